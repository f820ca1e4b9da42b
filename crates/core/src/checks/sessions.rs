//! One rule engine per host session: the engine's state is a session's
//! (request ids, progress tokens, streams, levels), and the HTTP proxy may
//! see several hosts, or one host reconnecting, at once. Which session an
//! event belongs to is `calls::scope`'s to say; a trace that names none is
//! one session, checked by one engine at the cost of a branch per event.
//!
//! A `restart` event (the TUI started the server again into the same
//! trace) ends the default scope's session: its engine finishes as at the
//! end of a trace, and a fresh one judges what follows, so nothing of the
//! session before (its ids, tokens, handshake, pending requests) is held
//! against the new one.
//!
//! An HTTP proxy's recording made before the proxy told host sessions
//! apart names none: it is one scope, which is sound while one host
//! talks. From the moment a second may have begun (a second `initialize`
//! or `server/discover`, or any request of the session-less 2026-07-28
//! era) only the rules judged from a frame alone ([`Rule::frame_local`])
//! are reported, and [`Sessions::unknown`] says from where and how many
//! findings were left out: never a false error from two hosts' ids.

use super::config::CheckConfig;
use super::engine::Checker;
use super::finding::Finding;
use super::rules::Rule;
use crate::calls::scope::{DEFAULT, Scopes};
use crate::protocol::Era;
use crate::trace::EventRef;
use std::collections::HashMap;
use std::sync::Arc;

struct Engine {
    checker: Checker,
    /// The host session's id, once known (findings name it).
    session: Option<Arc<str>>,
}

/// The rule engines of one trace, one per host session.
pub struct Sessions {
    cfg: CheckConfig,
    scopes: Scopes,
    /// The engine of the default scope, kept apart: it takes every event
    /// of a one-session trace without a lookup.
    first: Engine,
    engines: HashMap<u64, Engine>,
    /// The scope that saw the last event (its era is the trace's).
    last: u64,
    /// What the engines that a restart ended counted: suppressed findings
    /// per rule, and requests retired.
    ended_suppressed: HashMap<Rule, u64>,
    ended_retired: (u64, u64),
    /// What the server declared for `logging` in a `server/discover`
    /// answer, and its frame: at 2026-07-28 it holds for every exchange.
    server_logging: Option<(bool, u64)>,
    /// An HTTP proxy's recording that names no host session: how many
    /// host sessions began, and whether they can no longer be told apart.
    hosts_begun: u32,
    unknown: Option<SessionsUnknown>,
}

/// Host sessions that cannot be told apart, from `from_seq` on; `left_out`
/// findings of rules that keep a session's state were not reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SessionsUnknown {
    pub from_seq: u64,
    pub left_out: u64,
}

impl SessionsUnknown {
    /// What it means, in one line (the TUI's notice; `check` says more).
    pub fn notice(&self) -> String {
        format!(
            "this proxy recording does not tell host sessions apart: from #{} only the rules judged from one frame apply; record again to judge it whole",
            self.from_seq
        )
    }
}

/// The kind a `restart` event names (a cheap test before parsing).
const RESTART: &[u8] = br#""restart""#;

impl Sessions {
    pub fn new(cfg: CheckConfig) -> Sessions {
        Sessions {
            first: engine(&cfg),
            cfg,
            scopes: Scopes::default(),
            engines: HashMap::new(),
            last: DEFAULT,
            ended_suppressed: HashMap::new(),
            ended_retired: (0, 0),
            server_logging: None,
            hosts_begun: 0,
            unknown: None,
        }
    }

    /// Where host sessions stopped being told apart, in a recording that
    /// names none (see the module's comment).
    pub fn unknown(&self) -> Option<SessionsUnknown> {
        self.unknown
    }

    /// In an HTTP proxy's recording that names no host session: does `ev`
    /// begin a host session (or belong to one that cannot be tied to any)?
    fn watch_hosts(&mut self, ev: &EventRef<'_>) {
        if self.unknown.is_some() || ev.dir != crate::trace::Dir::Out {
            return;
        }
        if ev.kind != crate::protocol::FrameKind::Request {
            return;
        }
        let stateless =
            memchr::memmem::find(ev.bytes, b"io.modelcontextprotocol/protocolVersion").is_some();
        if matches!(ev.method, Some("initialize" | "server/discover")) {
            self.hosts_begun += 1;
        }
        if stateless || self.hosts_begun > 1 {
            self.unknown = Some(SessionsUnknown {
                from_seq: ev.seq,
                left_out: 0,
            });
        }
    }

    /// Findings from `from` on that a recording of unknown host sessions
    /// cannot vouch for go, counted.
    fn leave_out(&mut self, out: &mut Vec<Finding>, from: usize) {
        let Some(u) = &mut self.unknown else { return };
        if out.len() == from {
            return;
        }
        let found: Vec<Finding> = out.drain(from..).collect();
        for f in found {
            if f.rule.frame_local() {
                out.push(f);
            } else {
                u.left_out += 1;
            }
        }
    }

    fn all(&self) -> impl Iterator<Item = &Checker> {
        std::iter::once(&self.first)
            .chain(self.engines.values())
            .map(|e| &e.checker)
    }

    fn all_mut(&mut self) -> impl Iterator<Item = &mut Engine> {
        std::iter::once(&mut self.first).chain(self.engines.values_mut())
    }

    /// The era of the session last active (the hosts of one server agree).
    pub fn era(&self) -> Era {
        match self.last {
            DEFAULT => self.first.checker.era(),
            s => self
                .engines
                .get(&s)
                .map_or(self.first.checker.era(), |e| e.checker.era()),
        }
    }

    /// Findings counted but not reported, per rule, over every session.
    pub fn suppressed(&self) -> HashMap<Rule, u64> {
        let mut sum = self.ended_suppressed.clone();
        for c in self.all() {
            for (r, n) in c.suppressed() {
                *sum.entry(*r).or_insert(0) += n;
            }
        }
        sum
    }

    pub fn requests_retired(&self) -> (u64, u64) {
        self.all()
            .map(Checker::requests_retired)
            .fold(self.ended_retired, |a, b| (a.0 + b.0, a.1 + b.1))
    }

    /// Check one event; findings are appended to `out`, each naming its
    /// host session when the trace names sessions.
    #[inline]
    pub fn observe(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        if !self.scopes.routing() && ev.dir != crate::trace::Dir::Meta {
            // The hot path: one session.
            if !self.cfg.http_proxy {
                return self.first.checker.observe(ev, out);
            }
            self.watch_hosts(ev);
            let from = out.len();
            self.first.checker.observe(ev, out);
            return self.leave_out(out, from);
        }
        if ev.dir == crate::trace::Dir::Meta
            && memchr::memmem::find(ev.bytes, RESTART).is_some()
            && matches!(ev.event(), Some(crate::event::Event::Restart { .. }))
        {
            return self.restart(out);
        }
        let Some(scope) = self.scopes.route(ev) else {
            return;
        };
        for gone in self.scopes.take_retired() {
            self.engines.remove(&gone);
        }
        let cfg = &self.cfg;
        let e = match scope {
            DEFAULT => &mut self.first,
            s => self.engines.entry(s).or_insert_with(|| engine(cfg)),
        };
        if e.session.is_none() {
            e.session = self.scopes.session(scope).cloned();
        }
        self.last = scope;
        if let Some(declared) = self.server_logging {
            e.checker.adopt_server_logging(declared);
        }
        let from = out.len();
        e.checker.observe(ev, out);
        label(&mut out[from..], e);
        if let Some(declared) = e.checker.server_logging() {
            self.server_logging = Some(declared);
        }
        self.leave_out(out, from);
    }

    /// The session was started again: the default scope's engine finishes
    /// (what is still open counts as at the end of a trace) and a fresh
    /// one takes the events that follow.
    fn restart(&mut self, out: &mut Vec<Finding>) {
        let from = out.len();
        self.first.checker.finish(out);
        label(&mut out[from..], &self.first);
        self.leave_out(out, from);
        let ended = std::mem::replace(&mut self.first, engine(&self.cfg));
        for (r, n) in ended.checker.suppressed() {
            *self.ended_suppressed.entry(*r).or_insert(0) += n;
        }
        let (a, b) = ended.checker.requests_retired();
        self.ended_retired = (self.ended_retired.0 + a, self.ended_retired.1 + b);
        self.last = DEFAULT;
    }

    /// Time passed without events.
    pub fn tick(&mut self, now_us: u64, out: &mut Vec<Finding>) {
        let start = out.len();
        for e in self.all_mut() {
            let from = out.len();
            e.checker.tick(now_us, out);
            label(&mut out[from..], e);
        }
        self.leave_out(out, start);
    }

    /// End of a recorded trace.
    pub fn finish(&mut self, out: &mut Vec<Finding>) {
        let start = out.len();
        for e in self.all_mut() {
            let from = out.len();
            e.checker.finish(out);
            label(&mut out[from..], e);
        }
        self.leave_out(out, start);
    }
}

fn engine(cfg: &CheckConfig) -> Engine {
    Engine {
        checker: Checker::new(cfg.clone()),
        session: None,
    }
}

fn label(found: &mut [Finding], e: &Engine) {
    if let Some(s) = &e.session {
        for f in found {
            f.session = Some(s.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{Dir, Store, StoreLimits};

    /// Feed `frames` (direction, channel, JSON) to the engines of an HTTP
    /// proxy's recording that names no host session.
    fn check(frames: &[(Dir, &str, &str)]) -> (Vec<Finding>, Option<SessionsUnknown>) {
        let header = serde_json::json!({
            "mcpscope_trace": 1,
            "proxy": {"name": "p"},
            "server": {"transport": "http", "url": "http://127.0.0.1:1/mcp"},
        });
        let mut s = Sessions::new(CheckConfig::default().for_recording(&header));
        let mut store = Store::new(StoreLimits::default());
        let mut out = Vec::new();
        for (i, (dir, ch, json)) in frames.iter().enumerate() {
            let seq =
                store.append_frame(*dir, ch, i as u64 * 1000, json.as_bytes(), &mut Vec::new());
            s.observe(&store.get(seq).unwrap(), &mut out);
        }
        s.finish(&mut out);
        (out, s.unknown())
    }

    const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}"#;
    const INITED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;
    const CALL: &str = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"tk"}}}"#;
    const BAD_PROGRESS: &str = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tk","progress":"half"}}"#;

    #[test]
    fn one_host_is_judged_whole() {
        let (found, unknown) = check(&[
            (Dir::Out, "post:1", INIT),
            (Dir::In, "post:1", INITED),
            (Dir::Out, "post:2", CALL),
            (Dir::Out, "post:3", CALL),
        ]);
        assert_eq!(unknown, None);
        assert!(
            found.iter().any(|f| f.rule == Rule::ClientRequestIdReused),
            "{found:?}"
        );
    }

    #[test]
    fn from_a_second_host_only_frame_rules_are_reported_and_the_rest_counted() {
        let (found, unknown) = check(&[
            (Dir::Out, "post:1", INIT),
            (Dir::In, "post:1", INITED),
            (Dir::Out, "post:2", CALL),
            (Dir::Out, "post:3", INIT),
            (Dir::In, "post:3", INITED),
            (Dir::Out, "post:4", CALL),
            (Dir::In, "post:4", BAD_PROGRESS),
        ]);
        let rules: Vec<Rule> = found.iter().map(|f| f.rule).collect();
        assert!(rules.contains(&Rule::ProgressInvalid), "{rules:?}");
        assert!(!rules.contains(&Rule::ClientRequestIdReused), "{rules:?}");
        assert!(
            !rules.contains(&Rule::ClientDuplicateProgressToken),
            "{rules:?}"
        );
        let u = unknown.expect("two hosts began");
        assert_eq!(u.from_seq, 3);
        assert!(u.left_out >= 2, "{u:?}");
    }

    #[test]
    fn a_session_less_request_cannot_be_tied_to_a_host() {
        let stateless = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let (_, unknown) = check(&[(Dir::Out, "post:1", stateless)]);
        assert_eq!(unknown.map(|u| u.from_seq), Some(0));
    }
}
