//! What `mcpscope load` keeps while it runs calls: counters, two bounded
//! histograms (latency, time to first progress) and the findings of the
//! rule engine by rule — never the calls themselves, so memory stays
//! bounded whatever the number of calls.
//!
//! The rule engine (`checks::Sessions`, the engine `check` runs) follows
//! each session's trace as events are appended ([`Follower`]); its
//! findings are counted and dropped (a few are kept as examples). This is
//! `checks::LiveChecks` without its list of every finding, which a load
//! of a faulty server would grow by a finding or more per call. The
//! session's store itself is bounded by `--max-store`.

pub mod histogram;

use crate::checks::{CheckConfig, Finding, Rule, Sessions, Severity};
use crate::protocol::IdKey;
use crate::trace::Trace;
use histogram::Histogram;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Findings kept whole, as examples for the report.
pub const EXAMPLES: usize = 10;
/// Calls told apart among those whose stream broke (beyond, only counted).
const MAX_BROKEN_TOKENS: usize = 65_536;
/// Events checked per store lock, as `LiveChecks` does.
const BATCH: u64 = 16_384;

/// The rules that judge one call's progress stream: its notifications
/// named its own token, increased, stayed within their total, and stopped
/// with the response.
pub fn is_integrity(rule: Rule) -> bool {
    matches!(
        rule,
        Rule::ProgressNotIncreasing
            | Rule::ProgressAfterResponse
            | Rule::ProgressUnknownToken
            | Rule::ProgressInvalid
            | Rule::ProgressExceedsTotal
            | Rule::ProgressTotalChanged
            | Rule::TaskProgressAfterTerminal
            | Rule::NotificationWrongStream
    )
}

/// How a call ended, as `load` counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    Ok,
    /// A result with `isError: true`.
    ToolError,
    /// A JSON-RPC error response.
    RpcError,
    /// The idle or maximum timeout expired (the call was cancelled).
    Timeout,
    /// The server went away or the transport failed.
    Connection,
    /// Anything else the client refused (a malformed answer).
    Protocol,
}

impl Outcome {
    pub fn kind(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::ToolError => "tool-error",
            Outcome::RpcError => "rpc-error",
            Outcome::Timeout => "timeout",
            Outcome::Connection => "connection",
            Outcome::Protocol => "protocol",
        }
    }
}

/// Everything counted over all sessions.
#[derive(Debug, Default)]
pub struct Tally {
    pub done: u64,
    pub ok: u64,
    pub errors: BTreeMap<&'static str, u64>,
    pub latency: Histogram,
    pub first_progress: Histogram,
    /// Calls that got any progress notification.
    pub with_progress: u64,
    pub progress: u64,
    pub findings: BTreeMap<Rule, u64>,
    /// Distinct calls whose stream broke an integrity rule — a token within
    /// its session (sessions number their tokens alike) — and whether there
    /// were more than could be told apart.
    broken: HashSet<(u32, IdKey)>,
    broken_more: bool,
    pub examples: Vec<Finding>,
    /// Events evicted from a store before the engine saw them.
    pub unchecked: u64,
}

impl Tally {
    pub fn call(&mut self, outcome: Outcome, us: u64) {
        self.done += 1;
        self.latency.record(us);
        if outcome == Outcome::Ok {
            self.ok += 1;
        } else {
            *self.errors.entry(outcome.kind()).or_default() += 1;
        }
    }

    pub fn failed(&self) -> u64 {
        self.done - self.ok
    }

    fn finding(&mut self, session: u32, f: Finding) {
        *self.findings.entry(f.rule).or_default() += 1;
        if is_integrity(f.rule)
            && let Some(t) = f.token.clone()
        {
            let t = (session, t);
            if self.broken.len() < MAX_BROKEN_TOKENS {
                self.broken.insert(t);
            } else if !self.broken.contains(&t) {
                self.broken_more = true;
            }
        }
        if self.examples.len() < EXAMPLES {
            self.examples.push(f);
        }
    }

    /// Calls whose progress stream broke an integrity rule (a lower bound
    /// when `.1`: more than could be told apart).
    pub fn broken_streams(&self) -> (u64, bool) {
        (self.broken.len() as u64, self.broken_more)
    }

    pub fn integrity_findings(&self) -> impl Iterator<Item = (Rule, u64)> + '_ {
        self.findings
            .iter()
            .filter(|(r, _)| is_integrity(**r))
            .map(|(r, n)| (*r, *n))
    }

    pub fn errors_found(&self) -> u64 {
        self.findings
            .iter()
            .filter(|(r, _)| r.severity() == Severity::Error)
            .map(|(_, n)| n)
            .sum()
    }
}

/// The rule engine over one session's live trace, plus the time to first
/// progress of the calls in flight (bounded by the concurrency).
pub struct Follower {
    /// Which session of the run it follows (0-based).
    session: u32,
    trace: Trace,
    checker: Sessions,
    next: u64,
    /// Token → when its call was sent (trace µs), until its first progress.
    waiting: HashMap<IdKey, u64>,
}

impl Follower {
    pub fn new(session: u32, trace: Trace, cfg: CheckConfig) -> Follower {
        Follower {
            session,
            trace,
            checker: Sessions::new(cfg),
            next: 0,
            waiting: HashMap::new(),
        }
    }

    /// Receives a change whenever events are appended to the trace.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.trace.subscribe()
    }

    /// The trace's clock now, for [`Follower::sent`].
    pub fn now_us(&self) -> u64 {
        self.trace.now_us()
    }

    /// A call with this token is about to be sent.
    pub fn sent(&mut self, token: IdKey, at_us: u64) {
        self.waiting.insert(token, at_us);
    }

    /// Its call ended: everything up to its response is in the trace, so
    /// catch up first, then forget it.
    pub fn ended(&mut self, token: &IdKey, tally: &mut Tally) {
        self.sync(tally);
        self.waiting.remove(token);
    }

    /// Run the engine over what was appended since the last sync.
    pub fn sync(&mut self, tally: &mut Tally) {
        let mut fresh = Vec::new();
        loop {
            let store = self.trace.read();
            let from = self.next.max(store.first_seq());
            tally.unchecked += from - self.next;
            let end = store.next_seq().min(from + BATCH);
            if from >= end {
                break;
            }
            for ev in store.range(from, end) {
                self.checker.observe(&ev, &mut fresh);
                if let Some(p) = ev.progress {
                    tally.progress += 1;
                    if let Some(token) = store.token_by_slot(p.slot).map(|t| &t.key)
                        && let Some(sent) = self.waiting.remove(token)
                    {
                        tally.with_progress += 1;
                        tally.first_progress.record(ev.t_us.saturating_sub(sent));
                    }
                }
            }
            self.next = end;
        }
        for f in fresh {
            tally.finding(self.session, f);
        }
    }

    /// The time-based rules, at the trace clock's now.
    pub fn tick(&mut self, tally: &mut Tally) {
        self.sync(tally);
        let mut fresh = Vec::new();
        self.checker.tick(self.trace.now_us(), &mut fresh);
        for f in fresh {
            tally.finding(self.session, f);
        }
    }

    /// The session is over: the rules that wait for the end judge.
    pub fn finish(mut self, tally: &mut Tally) {
        self.sync(tally);
        let mut fresh = Vec::new();
        self.checker.finish(&mut fresh);
        for f in fresh {
            tally.finding(self.session, f);
        }
    }
}
