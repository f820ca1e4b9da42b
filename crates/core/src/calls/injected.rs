//! What a receiver got of a message `proxy --faults` changed on the way,
//! read from its `injected` event: the calls and the checks take it into
//! account, so that what the proxy did is blamed on neither party.

use crate::event::Event;
use crate::protocol::IdKey;
use crate::protocol::frame::{Frame, FrameKind, classify};

/// What the receiver got instead of the message as sent.
#[derive(Debug, Clone, PartialEq)]
pub enum Got {
    /// Nothing: dropped, its stream was closed, or (over HTTP) the proxy
    /// answered it with a status in the server's place.
    Nothing,
    /// Something that is no message (`cut`, `invalid-json`).
    Broken,
    /// The message with another id (`wrong-id`).
    Renamed(IdKey),
    /// The message, this many ms later than sent (`None`: some time later).
    Later(Option<u64>),
    /// The message twice.
    Twice,
    /// A message its peer never sent: the proxy forged it (`forge`).
    Forged,
}

/// One change, read from an `injected` event.
pub struct Injected<'a> {
    /// On its way to the server (host→server); else to the host.
    pub to_server: bool,
    /// The stream was closed towards its receiver (this message and
    /// everything after it never reach it).
    pub closed: bool,
    pub got: Got,
    /// The message as sent; `None` when the event kept it cut (longer
    /// than the frame cap), so it cannot be read back.
    pub original: Option<Frame<'a>>,
}

impl<'a> Injected<'a> {
    /// `None` for any other event, or one this version cannot read.
    pub fn of(event: &'a Event) -> Option<Injected<'a>> {
        let Event::Injected {
            action,
            stream,
            original,
            original_bytes,
            sent,
            detail,
            ..
        } = event
        else {
            return None;
        };
        let to_server = match stream.as_str() {
            "host→server" => true,
            "server→host" => false,
            _ => return None,
        };
        let got = match action.as_str() {
            "drop" | "close" | "status" => Got::Nothing,
            "duplicate" => Got::Twice,
            "delay" => Got::Later(
                detail
                    .as_deref()
                    .and_then(|d| d.strip_suffix(" ms"))
                    .and_then(|ms| ms.parse().ok()),
            ),
            // Over HTTP a closed response stream: the host may get the
            // message when it resumes the stream, some time later.
            "hold" | "late" | "close-stream" => Got::Later(None),
            "corrupt" if detail.as_deref() == Some("wrong-id") => {
                match sent.as_deref().and_then(|s| classify(s.as_bytes()).id) {
                    Some(id) => Got::Renamed(id),
                    None => Got::Broken,
                }
            }
            "corrupt" => Got::Broken,
            // A forged message reaches its receiver; the answer to a forged
            // request never reaches the peer that did not ask.
            // One forged but never written (its stream ended first) changed
            // nothing for anyone.
            "forge" => match classify(original.as_bytes()).kind {
                FrameKind::Response | FrameKind::ErrorResponse => Got::Nothing,
                _ if sent.is_none() => return None,
                _ => Got::Forged,
            },
            // Edited at a breakpoint (`attach --intercept`): another id is
            // a renamed message, no JSON a broken one, else the same
            // message, late.
            "edit" => match sent.as_deref().map(|s| classify(s.as_bytes())) {
                Some(s) if s.kind == FrameKind::NotJson || s.kind == FrameKind::NotJsonRpc => {
                    Got::Broken
                }
                Some(s) => match (s.id, classify(original.as_bytes()).id) {
                    (Some(new), Some(old)) if new != old => Got::Renamed(new),
                    _ => Got::Later(None),
                },
                None => Got::Later(None),
            },
            _ => return None,
        };
        Some(Injected {
            to_server,
            closed: action == "close",
            got,
            original: original_bytes
                .is_none()
                .then(|| classify(original.as_bytes())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn forge(original: &str, sent: Option<&str>) -> Event {
        Event::Injected {
            rule: 0,
            source: "intercept".into(),
            action: "forge".into(),
            stream: "server→host".into(),
            original: original.into(),
            original_bytes: None,
            sent: sent.map(Into::into),
            detail: None,
        }
    }

    /// A forged message reaches its receiver; the answer to a forged
    /// request reaches nobody; a forged message never written changes
    /// nothing (its progress is no progress the host missed).
    #[test]
    fn a_forged_message_never_written_is_no_change_for_anyone() {
        let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":5}}"#;
        let answer = r#"{"jsonrpc":"2.0","id":"mcpscope-forged-1","result":{}}"#;
        let sent = forge(progress, Some(progress));
        assert_eq!(Injected::of(&sent).map(|i| i.got), Some(Got::Forged));
        let kept = forge(answer, None);
        assert_eq!(Injected::of(&kept).map(|i| i.got), Some(Got::Nothing));
        let lost = forge(progress, None);
        assert!(Injected::of(&lost).is_none());
    }
}
