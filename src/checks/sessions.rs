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
            return self.first.checker.observe(ev, out);
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
    }

    /// The session was started again: the default scope's engine finishes
    /// (what is still open counts as at the end of a trace) and a fresh
    /// one takes the events that follow.
    fn restart(&mut self, out: &mut Vec<Finding>) {
        let from = out.len();
        self.first.checker.finish(out);
        label(&mut out[from..], &self.first);
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
        for e in self.all_mut() {
            let from = out.len();
            e.checker.tick(now_us, out);
            label(&mut out[from..], e);
        }
    }

    /// End of a recorded trace.
    pub fn finish(&mut self, out: &mut Vec<Finding>) {
        for e in self.all_mut() {
            let from = out.len();
            e.checker.finish(out);
            label(&mut out[from..], e);
        }
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
