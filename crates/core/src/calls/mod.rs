//! The calls of a session, derived from the store: one record per request we
//! sent that is a `tools/call` or carries a progress token, and how it ended.
//! Both faces read this model — the TUI's Progress pane (incrementally, as
//! events arrive) and `check`'s per-call statistics and failures (in one
//! pass) — so "how did this call end" has one definition.
//!
//! A call can meet several ends (a timeout, then our cancellation, then a
//! late response; or the server's exit after its stdout closed). The record
//! keeps the first end of each kind, in trace order, and the faces read the
//! one they report: the pane the first that stopped it, `check` the response
//! if any, else what explains its absence.
//!
//! `http` knows which channel carries an HTTP error's body; `exchanges`
//! holds the HTTP exchanges one by one (the Network pane); `tasks` follows
//! the tasks calls run as (2025-11-25 tasks and the 2026-07-28 extension);
//! `timing` holds the per-call timing statistics of progress notifications;
//! `scope` says which host session an event belongs to (ids and tokens are
//! a session's: a proxy may see several hosts at once); `listings` holds
//! what the server listed (tools, resources, templates, prompts).
//!
//! `fold` lists the `tools/call`s as a face shows them (status and note,
//! limits, what an `input_required` result asked, the task, the input
//! rounds, see `input`), one fold every face reads; `status` says how a
//! listed call ended.

pub mod exchanges;
pub mod fold;
pub mod http;
pub mod injected;
pub mod input;
pub mod listings;
pub mod safety;
pub mod scope;
pub mod spans;
pub mod status;
pub mod task_end;
pub mod tasks;
pub mod timing;
pub mod waits;

pub use timing::{Timed, Timing};

use crate::event::{Event, ExitInfo};
use crate::protocol::IdKey;
use crate::protocol::frame::FrameKind;
use crate::protocol::meta::ResultType;
use crate::protocol::methods;
use crate::protocol::views::CancelledView;
use crate::trace::{Dir, EventRef, Store};
use serde_json::Value;
use std::collections::HashMap;

/// How a call ended, or that it has not (yet).
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    /// No end seen: still running, or — once the trace is over — no response.
    Running,
    /// A result.
    Done,
    /// A result with `isError: true`.
    ToolError,
    /// A JSON-RPC error response, with its message when it has one.
    RpcError { message: Option<String> },
    /// A result with `resultType: input_required` (the server needs answers
    /// first). `is_error`: the result also said `isError: true`, which the
    /// JSON outcome reports.
    InputRequired { is_error: bool },
    /// We cancelled it: `how` is `None` for a `notifications/cancelled`, or
    /// how it was done without one (a `cancel` event: closing the stream).
    Cancelled {
        reason: Option<String>,
        how: Option<String>,
    },
    /// mcpscope gave up waiting: the idle or maximum timeout.
    TimedOut { limit: String, secs: f64 },
    /// The server exited while the call was in flight.
    Exited(ExitInfo),
    /// The server closed its stdout while the call was in flight.
    Eof,
    /// The transport gave up on it: the connection failed (HTTP error,
    /// stream closed), or the request could not be sent.
    Failed { error: String },
}

impl Ending {
    /// A response from the server (rather than an end it never saw).
    pub fn is_response(&self) -> bool {
        matches!(
            self,
            Ending::Done
                | Ending::ToolError
                | Ending::RpcError { .. }
                | Ending::InputRequired { .. }
        )
    }

    /// The server went away or the connection failed.
    pub fn is_lost(&self) -> bool {
        matches!(
            self,
            Ending::Exited(_) | Ending::Eof | Ending::Failed { .. }
        )
    }

    /// Ends of one kind: a call keeps only the first of each. The two ways
    /// of cancelling are two kinds: only the notification tells the server.
    fn same_kind(&self, other: &Ending) -> bool {
        match (self, other) {
            (Ending::Cancelled { how: a, .. }, Ending::Cancelled { how: b, .. }) => {
                a.is_some() == b.is_some()
            }
            _ => {
                (self.is_response() && other.is_response())
                    || std::mem::discriminant(self) == std::mem::discriminant(other)
            }
        }
    }
}

/// One end a call met: what, at which event, when.
#[derive(Debug, Clone, PartialEq)]
pub struct End {
    pub how: Ending,
    pub seq: u64,
    pub t_us: u64,
}

/// One request we sent, and the ends it met.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub id: IdKey,
    pub token: Option<IdKey>,
    pub method: String,
    /// The `name` param, as sent (not sanitised: each face does that).
    pub tool: Option<String>,
    pub request_seq: u64,
    pub sent_us: u64,
    /// The first end of each kind, in trace order (at most one response,
    /// timeout, notification and other cancellation, exit, eof and
    /// failure: bounded).
    pub ends: Vec<End>,
    /// The request's stream, when the trace names host sessions (see
    /// [`Timed::scoped`]).
    pub scoped_channel: Option<Box<str>>,
    /// `proxy --faults` is why the server could not answer it: the request
    /// never reached the server (dropped, broken, sent after the server's
    /// input was closed), or the server's input was closed while it ran.
    pub faulted: bool,
}

impl Call {
    /// How it ended first (`None`: still running).
    pub fn ended(&self) -> Option<&End> {
        self.ends.first()
    }

    /// How it ended first, as an [`Ending`].
    pub fn ending(&self) -> Ending {
        self.ended().map_or(Ending::Running, |e| e.how.clone())
    }

    pub fn is_running(&self) -> bool {
        self.ends.is_empty()
    }

    /// Its response, even one that came after it ended otherwise.
    pub fn response(&self) -> Option<&End> {
        self.ends.iter().find(|e| e.how.is_response())
    }

    pub fn response_seq(&self) -> Option<u64> {
        self.response().map(|e| e.seq)
    }

    pub fn timeout(&self) -> Option<&End> {
        self.ends
            .iter()
            .find(|e| matches!(e.how, Ending::TimedOut { .. }))
    }

    /// The first cancellation, whichever way it was done.
    pub fn cancel(&self) -> Option<&End> {
        self.ends
            .iter()
            .find(|e| matches!(e.how, Ending::Cancelled { .. }))
    }

    /// The first time the server went away or the connection failed.
    pub fn lost(&self) -> Option<&End> {
        self.ends.iter().find(|e| e.how.is_lost())
    }

    /// What timing statistics need of it.
    pub fn timed(&self) -> Timed<'_> {
        Timed {
            id: &self.id,
            token: self.token.as_ref(),
            request_seq: self.request_seq,
            sent_us: self.sent_us,
            scoped: self
                .scoped_channel
                .as_deref()
                .map(|ch| (ch, self.response_seq())),
        }
    }

    fn meet(&mut self, how: Ending, ev: &EventRef<'_>) -> bool {
        if self.ends.iter().any(|e| e.how.same_kind(&how)) {
            return false;
        }
        self.ends.push(End {
            how,
            seq: ev.seq,
            t_us: ev.t_us,
        });
        true
    }
}

/// What one observed event did to the calls.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    Nothing,
    /// A new call (its index in [`Tracker::calls`]).
    Sent(usize),
    /// This call met an end.
    Ended(usize),
    /// An end naming no request (eof, a failure of all): every call still
    /// in flight met it.
    EndedAll,
    /// The server exited: every call still in flight met it.
    Exit(ExitInfo),
}

/// Why a call the session before a restart left in flight ended.
pub const RESTARTED: &str = "the session was restarted";

/// The error code by which a server acknowledges a cancellation (as LSP
/// names it: `RequestCancelled`).
pub const REQUEST_CANCELLED: i64 = -32800;

/// Whether `ev` is an error response acknowledging a cancellation.
fn acknowledges_cancel(ev: &EventRef<'_>) -> bool {
    ev.kind == FrameKind::ErrorResponse
        && ev
            .frame()
            .error
            .and_then(|e| serde_json::from_str::<Value>(e.get()).ok())
            .and_then(|e| e.get("code").and_then(Value::as_i64))
            == Some(REQUEST_CANCELLED)
}

/// Calls by id (or token) within their host session. The default scope —
/// every event of a trace that names no host session — has a map of its
/// own, so the common lookup needs no key built.
#[derive(Debug, Default)]
struct Scoped {
    default: HashMap<IdKey, usize>,
    scoped: HashMap<(u64, IdKey), usize>,
}

impl Scoped {
    fn get(&self, scope: u64, id: &IdKey) -> Option<usize> {
        match scope {
            scope::DEFAULT => self.default.get(id),
            s => self.scoped.get(&(s, id.clone())),
        }
        .copied()
    }

    fn insert(&mut self, scope: u64, id: IdKey, call: usize) {
        match scope {
            scope::DEFAULT => self.default.insert(id, call),
            s => self.scoped.insert((s, id), call),
        };
    }

    fn remove(&mut self, scope: u64, id: IdKey) {
        match scope {
            scope::DEFAULT => self.default.remove(&id),
            s => self.scoped.remove(&(s, id)),
        };
    }
}

/// Builds the calls from store events observed in order, once each.
#[derive(Debug, Default)]
pub struct Tracker {
    pub calls: Vec<Call>,
    /// The latest request with each id in each host session: like the
    /// store's request index, a response answers the latest request of its
    /// session that used its id.
    by_id: Scoped,
    /// The latest call with each progress token, per host session:
    /// progress names its call by token only.
    by_token: Scoped,
    scopes: scope::Scopes,
    /// The host session of the event observed last.
    scope: u64,
    /// Calls an end naming no request can still reach: those without a
    /// response or an exit (pruned when such an end comes, so each call is
    /// visited a bounded number of times).
    open: Vec<usize>,
    /// `proxy --faults` closed the server's input: no later request
    /// reaches it.
    server_input_closed: bool,
}

impl Tracker {
    /// Every call of a stored session, in request order (one pass).
    pub fn of(store: &Store) -> Tracker {
        let mut t = Tracker::default();
        for ev in store.range(0, store.next_seq()) {
            t.observe(&ev);
        }
        t
    }

    /// The latest call with `id` in the host session of the event
    /// observed last.
    pub fn get(&self, id: &IdKey) -> Option<&Call> {
        self.by_id.get(self.scope, id).map(|i| &self.calls[i])
    }

    /// The latest call that carried `token`, in the host session of the
    /// event observed last.
    pub fn by_token(&self, token: &IdKey) -> Option<&Call> {
        self.by_token.get(self.scope, token).map(|i| &self.calls[i])
    }

    /// Take in one event (in trace order).
    pub fn observe(&mut self, ev: &EventRef<'_>) -> Seen {
        match self.scopes.route(ev) {
            Some(s) => self.scope = s,
            // A host session no longer kept: nothing of it can be matched.
            None => return Seen::Nothing,
        }
        match (ev.dir, ev.kind) {
            (Dir::Out, FrameKind::Request) => self.request(ev),
            (Dir::In, FrameKind::Response | FrameKind::ErrorResponse) => self.response(ev),
            (Dir::Out, FrameKind::Notification) if ev.method == Some(methods::CANCELLED) => {
                let Some(c) = CancelledView::parse(ev.frame().params) else {
                    return Seen::Nothing;
                };
                let how = Ending::Cancelled {
                    reason: c.reason,
                    how: None,
                };
                self.end_one(&c.request_id, how, ev)
            }
            (Dir::Meta, _) => self.meta(ev),
            _ => Seen::Nothing,
        }
    }

    fn request(&mut self, ev: &EventRef<'_>) -> Seen {
        let f = ev.frame();
        let Some(id) = f.id.clone() else {
            return Seen::Nothing;
        };
        let token = f.progress_token().map(|t| IdKey::from_raw(t.get()));
        let method = f.method.as_deref().unwrap_or("");
        if method != methods::TOOLS_CALL && token.is_none() {
            // Not a call, but it takes the id over: a response with it is its.
            self.by_id.remove(self.scope, id);
            return Seen::Nothing;
        }
        let tool = f
            .params
            .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
            .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_owned));
        let i = self.calls.len();
        if let Some(t) = &token {
            self.by_token.insert(self.scope, t.clone(), i);
        }
        self.calls.push(Call {
            id: id.clone(),
            token,
            method: method.to_string(),
            tool,
            request_seq: ev.seq,
            sent_us: ev.t_us,
            ends: Vec::new(),
            scoped_channel: self.scopes.routing().then(|| ev.channel.into()),
            faulted: self.server_input_closed,
        });
        self.by_id.insert(self.scope, id, i);
        self.open.push(i);
        Seen::Sent(i)
    }

    fn response(&mut self, ev: &EventRef<'_>) -> Seen {
        let f = ev.frame();
        let scope = self.scope;
        let Some(i) = f.id.and_then(|id| self.by_id.get(scope, &id)) else {
            return Seen::Nothing;
        };
        // A second response to the same request is a duplicate, not an end.
        if self.calls[i].response().is_some() {
            return Seen::Nothing;
        }
        // `-32800` after our cancel acknowledges it: the call stays cancelled
        // (over every transport alike), not answered.
        if self.calls[i].cancel().is_some() && acknowledges_cancel(ev) {
            return Seen::Nothing;
        }
        let how = if ev.kind == FrameKind::ErrorResponse {
            let message = f
                .error
                .and_then(|e| serde_json::from_str::<Value>(e.get()).ok())
                .and_then(|e| e.get("message").and_then(Value::as_str).map(str::to_owned));
            Ending::RpcError { message }
        } else {
            // Two fields of what may be a large result: read only them.
            #[derive(serde::Deserialize, Default)]
            struct Outcome {
                #[serde(rename = "isError", default)]
                is_error: Option<Value>,
                #[serde(rename = "resultType", default)]
                result_type: Option<Value>,
            }
            let result = f
                .result
                .and_then(|r| serde_json::from_str::<Outcome>(r.get()).ok())
                .unwrap_or_default();
            let is_error = result.is_error.and_then(|v| v.as_bool()) == Some(true);
            let result_type = result.result_type.as_ref().and_then(Value::as_str);
            if result_type.map(ResultType::parse) == Some(ResultType::InputRequired) {
                Ending::InputRequired { is_error }
            } else if is_error {
                Ending::ToolError
            } else {
                Ending::Done
            }
        };
        self.calls[i].meet(how, ev);
        Seen::Ended(i)
    }

    fn meta(&mut self, ev: &EventRef<'_>) -> Seen {
        match ev.event() {
            Some(Event::Timeout {
                request,
                limit,
                secs,
                ..
            }) => self.end_one(
                &IdKey::from_value(&request),
                Ending::TimedOut { limit, secs },
                ev,
            ),
            // 2026-07-28 over HTTP: cancelling closes the response stream,
            // so no notifications/cancelled is sent.
            Some(Event::Cancel {
                request,
                how,
                reason,
            }) => self.end_one(
                &IdKey::from_value(&request),
                Ending::Cancelled {
                    reason: Some(reason),
                    how: Some(how),
                },
                ev,
            ),
            // The transport gave up on a request; without a request id it
            // gave up on all of them.
            Some(Event::Failed { request, error }) => match request.filter(|r| !r.is_null()) {
                Some(r) => self.end_one(&IdKey::from_value(&r), Ending::Failed { error }, ev),
                None => {
                    self.end_all(Ending::Failed { error }, ev);
                    Seen::EndedAll
                }
            },
            Some(Event::Eof { .. }) => {
                self.end_all(Ending::Eof, ev);
                Seen::EndedAll
            }
            Some(Event::Exit { code, signal }) => {
                let exit = ExitInfo { code, signal };
                self.end_all(Ending::Exited(exit), ev);
                Seen::Exit(exit)
            }
            Some(e @ Event::Injected { .. }) => {
                self.injected(&e);
                Seen::Nothing
            }
            // The session was started again: what the one before left in
            // flight can no longer be answered.
            Some(Event::Restart { .. }) => {
                self.end_all(
                    Ending::Failed {
                        error: RESTARTED.into(),
                    },
                    ev,
                );
                Seen::EndedAll
            }
            _ => Seen::Nothing,
        }
    }

    /// What `proxy --faults` changed on the way to the server: a request
    /// whose id was changed is answered by the id the server got; one that
    /// never reached it, or ran when its input was closed, is `faulted`.
    fn injected(&mut self, event: &Event) {
        let Some(change) = injected::Injected::of(event) else {
            return;
        };
        if !change.to_server {
            return;
        }
        if change.closed {
            self.server_input_closed = true;
            for &i in &self.open {
                self.calls[i].faulted = true;
            }
        }
        let Some(f) = change.original else { return };
        if f.kind != FrameKind::Request {
            return;
        }
        let Some(i) = f.id.and_then(|id| self.by_id.get(self.scope, &id)) else {
            return;
        };
        match change.got {
            injected::Got::Nothing | injected::Got::Broken => self.calls[i].faulted = true,
            injected::Got::Renamed(id) => self.by_id.insert(self.scope, id, i),
            _ => {}
        }
    }

    fn end_one(&mut self, id: &IdKey, how: Ending, ev: &EventRef<'_>) -> Seen {
        match self.by_id.get(self.scope, id) {
            Some(i) if self.calls[i].meet(how, ev) => Seen::Ended(i),
            _ => Seen::Nothing,
        }
    }

    fn end_all(&mut self, how: Ending, ev: &EventRef<'_>) {
        let calls = &mut self.calls;
        // Answered, or the server is gone: nothing more can happen to it.
        let settled = |c: &Call| {
            c.response().is_some() || c.ends.iter().any(|e| matches!(e.how, Ending::Exited(_)))
        };
        self.open.retain(|&i| {
            let c = &mut calls[i];
            if settled(c) {
                return false;
            }
            c.meet(how.clone(), ev);
            !settled(c)
        });
    }
}

#[cfg(test)]
mod tests;
