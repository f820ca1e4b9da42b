//! What mcpscope's own probing draws from a server is its normal answer,
//! not the server's fault: the era probe (`server/discover` under
//! `--protocol auto`) refused by a server of the handshake era, and the
//! `initialize` POST a legacy HTTP+SSE server refuses before mcpscope finds
//! its SSE stream. Their `[http]` and error-body `[protocol]` lines are held
//! until the fallback is known to have worked, then dropped (said with
//! `-v`); any other line printed meanwhile, or the session's end, releases
//! them first, so a failure is never silenced.

use crate::event::Event;
use crate::protocol::methods;
use crate::trace::EventRef;

/// Probe channels remembered (one probe and one `initialize` per session,
/// plus a discovery again after a refused handshake).
const MAX_PROBES: usize = 8;
/// Lines held for one probe: its status and its body.
const MAX_HELD: usize = 8;

#[derive(Default)]
pub struct ProbeNoise {
    probes: Vec<Box<str>>,
    held: Vec<String>,
    /// HTTP+SSE was tried after a refused `initialize`: its stream's
    /// endpoint confirms it.
    legacy_tried: bool,
}

/// What a meta event says about the held lines.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The fallback worked: the held lines were the probe's normal answer.
    FellBack,
    /// Nothing about the probes.
    Other,
}

impl ProbeNoise {
    /// A request went out: the era probe (`auto`: the era was not chosen)
    /// and `initialize` on a POST are probes.
    pub fn request(&mut self, ev: &EventRef<'_>, auto_era: bool) {
        let probe = match ev.method {
            Some(methods::INITIALIZE) => true,
            Some(methods::SERVER_DISCOVER) => auto_era,
            _ => false,
        };
        if probe && ev.channel.starts_with("post:") && self.probes.len() < MAX_PROBES {
            self.probes.push(ev.channel.into());
        }
    }

    /// Hold `line` (about `channel`) if it is about a probe; else give it back.
    pub fn hold(&mut self, channel: &str, line: String) -> Option<String> {
        if self.probes.iter().any(|c| &**c == channel) && self.held.len() < MAX_HELD {
            self.held.push(line);
            None
        } else {
            Some(line)
        }
    }

    /// Learn from a meta event whether a fallback worked.
    pub fn meta(&mut self, event: Option<&Event>) -> Outcome {
        match event {
            Some(Event::Era { era, .. }) if era == "handshake" => Outcome::FellBack,
            Some(Event::TransportDetect { .. }) => {
                self.legacy_tried = true;
                Outcome::Other
            }
            Some(Event::Endpoint { .. }) if self.legacy_tried => {
                self.legacy_tried = false;
                Outcome::FellBack
            }
            _ => Outcome::Other,
        }
    }

    pub fn has_held(&self) -> bool {
        !self.held.is_empty()
    }

    /// The held lines, to print (or to drop).
    pub fn take(&mut self) -> Vec<String> {
        std::mem::take(&mut self.held)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_other_channels_pass_and_the_held_are_bounded() {
        let mut p = ProbeNoise {
            probes: vec!["post:1".into()],
            ..ProbeNoise::default()
        };
        assert_eq!(p.hold("post:2", "a".into()), Some("a".into()));
        for i in 0..MAX_HELD {
            assert_eq!(p.hold("post:1", i.to_string()), None);
        }
        // Past the bound a line is printed, not lost.
        assert_eq!(p.hold("post:1", "late".into()), Some("late".into()));
        assert_eq!(p.take().len(), MAX_HELD);
        assert!(!p.has_held());
    }

    #[test]
    fn legacy_is_confirmed_by_its_endpoint_only_after_a_refused_initialize() {
        let mut p = ProbeNoise::default();
        let endpoint = Event::Endpoint { url: "/m".into() };
        assert_eq!(p.meta(Some(&endpoint)), Outcome::Other);
        let detect = Event::TransportDetect {
            flavor: "sse".into(),
            reason: "POST initialize answered 405".into(),
        };
        assert_eq!(p.meta(Some(&detect)), Outcome::Other);
        assert_eq!(p.meta(Some(&endpoint)), Outcome::FellBack);
    }
}
