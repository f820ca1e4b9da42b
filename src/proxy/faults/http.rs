//! Faults over the HTTP proxy (`proxy --listen … --url … --faults …`):
//! the host's messages (each POST body) and the server's (each event of a
//! response stream, or a JSON response body) are tested against the rules
//! in the order they pass the proxy. Over HTTP a rule can
//!
//! - `delay` a message, either way (added latency);
//! - answer a host's message with an HTTP `status` in the server's place;
//! - `close` the response stream of a host's POST just before a server
//!   message (the `drop-sse-stream` preset), to exercise resumption: the
//!   host never gets that message on it, and resumes the stream with GET +
//!   `Last-Event-ID` if it can; the server replays it there. Only streams a
//!   host can resume are closed: not a GET's (the resumed stream itself,
//!   which would be closed again at the same message), and not at
//!   2026-07-28, where closing a request's stream cancels the request.
//!
//! The other actions work on the stdio proxy's lines and are refused here
//! with a reason. Each change is an `injected` event, as on stdio; a closed
//! stream's is `close-stream`, since the host may still get the message.

use super::{Action, Faults, FaultsError, Rule, SplitMix, Stream};
use crate::event::Event;
use crate::filter::Matcher;
use crate::protocol::frame::{FrameKind, classify};
use crate::trace::{Dir, EventRef};
use std::sync::Mutex;
use std::time::Duration;

/// What becomes of one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Delay(Duration),
    /// Answer the host's request with this status; the server never sees it.
    Answer(u16),
    /// End the host's response stream before this message.
    Close,
}

struct Live {
    rule: Rule,
    matcher: Matcher,
    fired: u64,
}

struct State {
    rules: Vec<Live>,
    rng: SplitMix,
    seq: u64,
}

/// The rules of every `--faults`, shared by every exchange: a rule sees
/// the whole session, and its limit counts across exchanges.
pub struct HttpFaults {
    state: Mutex<State>,
    /// The trace's frame cap: an injected event keeps at most this of a
    /// message.
    max_frame: usize,
}

impl HttpFaults {
    /// The rules, or why one cannot act over HTTP (a usage error).
    pub fn new(faults: Faults, max_frame: usize) -> Result<HttpFaults, FaultsError> {
        for r in &faults.rules {
            let dir = r.filter.needs().dir;
            let refuse = |why: String| {
                Err(FaultsError(format!(
                    "--faults {}: rule {} ({}): {why}",
                    r.source,
                    r.index,
                    r.action.name()
                )))
            };
            match r.action {
                Action::Delay { .. } => {}
                Action::Status(_) if dir != Some(Dir::Out) => {
                    return refuse(
                        "it answers a host's message: its match must select them (`out && …`)"
                            .into(),
                    );
                }
                Action::Status(_) => {}
                Action::Close if dir != Some(Dir::In) => {
                    return refuse(
                        "it closes a response stream before a server's message: its match must \
                         select them (`in && …`)"
                            .into(),
                    );
                }
                Action::Close => {}
                _ => {
                    return refuse(
                        "works with the stdio proxy only; over HTTP a rule can delay, status or \
                         close"
                            .into(),
                    );
                }
            }
        }
        let rules = faults
            .rules
            .into_iter()
            .map(|rule| Live {
                matcher: Matcher::new(rule.filter.clone()),
                rule,
                fired: 0,
            })
            .collect();
        Ok(HttpFaults {
            state: Mutex::new(State {
                rules,
                rng: SplitMix::new(faults.seed),
                seq: 0,
            }),
            max_frame,
        })
    }

    /// The host's message `body` (a POST's JSON), read at `t_us`.
    pub fn host(&self, body: &[u8], t_us: u64, events: &mut Vec<Event>) -> Verdict {
        self.test(Stream::HostToServer, body, t_us, false, events)
    }

    /// A server's message (an SSE event's data, or a JSON response body);
    /// `closable`: on a stream the host can resume (see the module).
    pub fn server(
        &self,
        body: &[u8],
        t_us: u64,
        closable: bool,
        events: &mut Vec<Event>,
    ) -> Verdict {
        self.test(Stream::ServerToHost, body, t_us, closable, events)
    }

    fn test(
        &self,
        stream: Stream,
        body: &[u8],
        t_us: u64,
        closable: bool,
        events: &mut Vec<Event>,
    ) -> Verdict {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let f = classify(body);
        let method = match f.kind {
            FrameKind::Request | FrameKind::Notification => f.method.as_deref(),
            _ => None,
        };
        let ev = EventRef {
            seq: st.seq,
            t_us,
            dir: stream.dir(),
            kind: f.kind,
            channel: "http",
            method,
            flags: 0,
            bytes: body,
            progress: None,
        };
        st.seq += 1;
        let State { rules, rng, .. } = &mut *st;
        let mut verdict = Verdict::Pass;
        // Every matcher sees every message (its calls follow the session);
        // the first rule that matches within its limit decides.
        for r in rules.iter_mut() {
            let matched = r.matcher.test(&ev);
            if !matched || verdict != Verdict::Pass || r.rule.limit.is_some_and(|l| r.fired >= l) {
                continue;
            }
            let (v, detail) = match r.rule.action {
                Action::Delay { ms, jitter_ms } => {
                    let extra = if jitter_ms > 0 {
                        rng.next_u64() % (jitter_ms + 1)
                    } else {
                        0
                    };
                    let d = ms + extra;
                    (Verdict::Delay(Duration::from_millis(d)), format!("{d} ms"))
                }
                Action::Status(code) => (
                    Verdict::Answer(code),
                    format!("answered HTTP {code} in the server's place"),
                ),
                Action::Close if closable => (
                    Verdict::Close,
                    "closed the host's response stream before this message; the host may resume it"
                        .to_string(),
                ),
                // Refused by `new`, or a stream no host could resume.
                _ => continue,
            };
            r.fired += 1;
            verdict = v;
            let mut ev = r
                .rule
                .injected(stream, body, None, Some(detail), self.max_frame);
            if let (Verdict::Close, Event::Injected { action, .. }) = (v, &mut ev) {
                // Not the stdio `close`: the host's input goes on, and it may
                // still get the message on the resumed stream.
                *action = "close-stream".into();
            }
            events.push(ev);
        }
        verdict
    }
}

/// Where the next whole SSE event of `buf` ends (after its blank line).
pub fn event_end(buf: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < buf.len() {
        match buf[i] {
            b'\n' if buf.get(i + 1) == Some(&b'\n') => return Some(i + 2),
            b'\n' if buf.get(i + 1) == Some(&b'\r') && buf.get(i + 2) == Some(&b'\n') => {
                return Some(i + 3);
            }
            b'\r' if buf.get(i + 1) == Some(&b'\r') => return Some(i + 2),
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::Filter;

    fn faults(rules: &[(&str, Action, Option<u64>)]) -> Result<HttpFaults, FaultsError> {
        let rules = rules
            .iter()
            .enumerate()
            .map(|(i, (f, a, limit))| Rule {
                index: i as u32 + 1,
                source: "t".into(),
                filter: Filter::parse(f).unwrap(),
                action: a.clone(),
                limit: *limit,
            })
            .collect();
        HttpFaults::new(
            Faults {
                rules,
                seed: super::super::DEFAULT_SEED,
            },
            1 << 20,
        )
    }

    const PROGRESS: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#;
    const CALL: &[u8] = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}"#;

    #[test]
    fn each_action_decides_once_within_its_limit_and_says_so() {
        let f = faults(&[
            (
                "in && progress",
                Action::Delay {
                    ms: 3,
                    jitter_ms: 0,
                },
                Some(1),
            ),
            ("out && method == tools/call", Action::Status(503), None),
            (
                "out",
                Action::Delay {
                    ms: 7,
                    jitter_ms: 0,
                },
                None,
            ),
        ])
        .unwrap();
        let mut ev = Vec::new();
        assert_eq!(
            f.server(PROGRESS, 0, true, &mut ev),
            Verdict::Delay(Duration::from_millis(3))
        );
        assert_eq!(
            f.server(PROGRESS, 0, true, &mut ev),
            Verdict::Pass,
            "limit 1"
        );
        assert_eq!(f.host(CALL, 0, &mut ev), Verdict::Answer(503));
        let ping = br#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#;
        assert_eq!(
            f.host(ping, 0, &mut ev),
            Verdict::Delay(Duration::from_millis(7))
        );
        let actions: Vec<&str> = ev
            .iter()
            .map(|e| match e {
                Event::Injected { action, .. } => action.as_str(),
                _ => "?",
            })
            .collect();
        assert_eq!(actions, ["delay", "status", "delay"]);
    }

    #[test]
    fn actions_that_need_lines_or_the_wrong_side_are_refused() {
        let e = faults(&[("in", Action::Duplicate, None)]).err().unwrap();
        assert!(e.0.contains("stdio proxy only"), "{e}");
        let e = faults(&[("progress", Action::Status(500), None)])
            .err()
            .unwrap();
        assert!(e.0.contains("`out && …`"), "{e}");
        let e = faults(&[("progress", Action::Close, None)]).err().unwrap();
        assert!(e.0.contains("`in && …`"), "{e}");
    }

    #[test]
    fn a_stream_is_closed_only_where_the_host_can_resume_it() {
        let f = faults(&[("in && progress", Action::Close, None)]).unwrap();
        let mut ev = Vec::new();
        assert_eq!(f.server(PROGRESS, 0, false, &mut ev), Verdict::Pass);
        assert!(ev.is_empty(), "a rule that did not act says nothing");
        assert_eq!(f.server(PROGRESS, 0, true, &mut ev), Verdict::Close);
        let Some(Event::Injected { action, detail, .. }) = ev.first() else {
            panic!("{ev:?}")
        };
        assert_eq!(action, "close-stream");
        assert!(detail.as_deref().unwrap().contains("may resume"));
    }

    #[test]
    fn events_end_at_their_blank_line_whatever_the_line_breaks() {
        assert_eq!(event_end(b"data: 1\n\ndata: 2"), Some(9));
        assert_eq!(event_end(b"data: 1\r\n\r\nx"), Some(11));
        assert_eq!(event_end(b"data: 1\r\rx"), Some(9));
        assert_eq!(event_end(b"data: 1\n"), None);
    }
}
