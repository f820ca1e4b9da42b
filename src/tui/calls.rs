//! The calls the Progress pane shows: discovered from our own `tools/call`
//! requests in the store (so a replayed trace shows them too), finished by
//! their response, cancellation, timeout or the server's exit. A gauge's
//! numbers are read at draw time from the token index: the last and first
//! progress notifications only, whatever the notification count.
//!
//! In the 2026-07-28 era a call can end with `resultType: input_required`
//! (the server needs answers mcpscope could not give by itself): such a
//! call keeps what was asked, so the composer can build the retry.

use super::format::safe_row;
use crate::client::Limits;
use crate::event::Event;
use crate::protocol::IdKey;
use crate::protocol::frame::FrameKind;
use crate::protocol::methods;
use crate::protocol::views::{CancelledView, ProgressView};
use crate::trace::{Dir, EventRef, Store};
use serde_json::Value;
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallStatus {
    Running,
    Done,
    /// The tool answered with `isError: true`.
    ToolError,
    /// A JSON-RPC error response.
    RpcError,
    Cancelled,
    TimedOut,
    /// The server exited while the call was in flight.
    Crashed,
    /// The request could not be completed for another reason (see the note).
    Failed,
    /// The result asks for input (`resultType: input_required`).
    InputRequired,
}

impl CallStatus {
    pub fn label(self) -> &'static str {
        match self {
            CallStatus::Running => "running",
            CallStatus::Done => "done",
            CallStatus::ToolError => "error",
            CallStatus::RpcError => "rpc error",
            CallStatus::Cancelled => "cancelled",
            CallStatus::TimedOut => "timed out",
            CallStatus::Crashed => "crashed",
            CallStatus::Failed => "failed",
            CallStatus::InputRequired => "input required",
        }
    }
    pub fn is_running(self) -> bool {
        self == CallStatus::Running
    }
}

#[derive(Debug, Clone)]
pub struct Call {
    pub id: IdKey,
    pub token: Option<IdKey>,
    pub tool: String,
    pub request_seq: u64,
    pub sent_us: u64,
    pub limits: Option<Limits>,
    pub status: CallStatus,
    pub end_us: Option<u64>,
    pub note: String,
    /// What an `input_required` result asked for.
    pub input: Option<InputNeeded>,
}

/// One entry of an `input_required` result's `inputRequests`.
#[derive(Debug, Clone, PartialEq)]
pub struct InputAsk {
    /// The key the answer goes under in `inputResponses`.
    pub key: String,
    /// `elicitation/create`, `roots/list`, `sampling/createMessage`…
    pub method: String,
    pub params: Value,
}

impl InputAsk {
    /// `elicitation/create "Project name?"`: the method and what it asks.
    pub fn summary(&self) -> String {
        let what = self
            .params
            .get("message")
            .and_then(Value::as_str)
            .map(|m| format!(" \"{}\"", super::format::safe(m, 60)))
            .unwrap_or_default();
        format!("{}{what}", super::format::safe(&self.method, 40))
    }
}

/// An `input_required` result, kept for answering it.
#[derive(Debug, Clone, PartialEq)]
pub struct InputNeeded {
    pub asks: Vec<InputAsk>,
    /// Opaque; echoed back with the answers.
    pub request_state: Option<Value>,
    pub response_seq: u64,
    /// A later call carrying `inputResponses` for this one (sent by the
    /// session's own driver, or composed here).
    pub answered_by: Option<IdKey>,
}

impl InputNeeded {
    fn parse(result: &Value, seq: u64) -> InputNeeded {
        let asks = result
            .get("inputRequests")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, r)| InputAsk {
                        key: k.clone(),
                        method: r
                            .get("method")
                            .and_then(Value::as_str)
                            .unwrap_or("?")
                            .to_string(),
                        params: r.get("params").cloned().unwrap_or(Value::Null),
                    })
                    .collect()
            })
            .unwrap_or_default();
        InputNeeded {
            asks,
            request_state: result.get("requestState").cloned(),
            response_seq: seq,
            answered_by: None,
        }
    }
}

/// How progress values are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteMode {
    /// Bytes when the message talks about bytes.
    Auto,
    Bytes,
    Plain,
}

impl ByteMode {
    pub fn next(self) -> ByteMode {
        match self {
            ByteMode::Auto => ByteMode::Bytes,
            ByteMode::Bytes => ByteMode::Plain,
            ByteMode::Plain => ByteMode::Auto,
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            ByteMode::Auto => "auto",
            ByteMode::Bytes => "bytes",
            ByteMode::Plain => "plain",
        }
    }
}

#[derive(Debug, Default)]
pub struct Calls {
    pub list: Vec<Call>,
    by_id: HashMap<IdKey, usize>,
    limits: HashMap<IdKey, Limits>,
    scanned_to: u64,
    /// Set when the server's exit is seen; the App moves it to the header.
    pub exit_note: Option<String>,
}

impl Calls {
    pub fn running(&self) -> usize {
        self.list.iter().filter(|c| c.status.is_running()).count()
    }

    pub fn get(&self, id: &IdKey) -> Option<&Call> {
        self.by_id.get(id).map(|i| &self.list[*i])
    }

    /// Limits of a call about to be sent (known before its request is stored).
    pub fn expect(&mut self, id: IdKey, limits: Limits) {
        match self.by_id.get(&id) {
            Some(i) => self.list[*i].limits = Some(limits),
            None => {
                self.limits.insert(id, limits);
            }
        }
    }

    pub fn fail(&mut self, id: &IdKey, why: &str, now_us: u64) {
        if let Some(i) = self.by_id.get(id) {
            let c = &mut self.list[*i];
            if c.note.is_empty() {
                c.note = safe_row(why);
            }
            if c.status.is_running() {
                c.status = CallStatus::Failed;
                c.end_us = Some(now_us);
            }
        }
    }

    /// Forget finished calls (the trace keeps them).
    pub fn clear_finished(&mut self) {
        self.list.retain(|c| c.status.is_running());
        self.by_id = self
            .list
            .iter()
            .enumerate()
            .map(|(i, c)| (c.id.clone(), i))
            .collect();
    }

    /// Look at new events (at most `budget`). Returns true when caught up.
    pub fn sync(&mut self, store: &Store, budget: u64) -> bool {
        let from = self.scanned_to.max(store.first_seq());
        let to = store.next_seq().min(from + budget);
        for ev in store.range(from, to) {
            self.event(&ev);
        }
        self.scanned_to = to;
        to >= store.next_seq()
    }

    /// A retry answering an `input_required` call went out: the call whose
    /// `requestState` it echoes, or else the latest unanswered one of the
    /// same tool.
    fn mark_answered(&mut self, tool: &str, state: Option<&Value>, by: &IdKey) {
        let waiting = |c: &Call| c.input.as_ref().is_some_and(|i| i.answered_by.is_none());
        let hit = match state {
            Some(st) => self.list.iter().rposition(|c| {
                waiting(c) && c.input.as_ref().and_then(|i| i.request_state.as_ref()) == Some(st)
            }),
            None => None,
        }
        .or_else(|| self.list.iter().rposition(|c| waiting(c) && c.tool == tool));
        if let Some(i) = hit
            && let Some(inp) = &mut self.list[i].input
        {
            inp.answered_by = Some(by.clone());
        }
    }

    fn finish(&mut self, id: &IdKey, status: CallStatus, t_us: u64, note: String) {
        if let Some(i) = self.by_id.get(id) {
            let c = &mut self.list[*i];
            if c.status.is_running() {
                c.status = status;
                c.end_us = Some(t_us);
                if c.note.is_empty() {
                    c.note = note;
                }
            }
        }
    }

    fn event(&mut self, ev: &EventRef<'_>) {
        match (ev.dir, ev.kind) {
            (Dir::Out, FrameKind::Request) if ev.method == Some(methods::TOOLS_CALL) => {
                let f = ev.frame();
                let Some(id) = f.id.clone() else { return };
                let token = f.progress_token().map(|t| IdKey::from_raw(t.get()));
                let params = f
                    .params
                    .and_then(|p| serde_json::from_str::<Value>(p.get()).ok());
                let tool = params
                    .as_ref()
                    .and_then(|v| v.get("name").and_then(Value::as_str).map(safe_row))
                    .unwrap_or_else(|| "?".into());
                if let Some(p) = &params
                    && p.get("inputResponses").is_some()
                {
                    self.mark_answered(&tool, p.get("requestState"), &id);
                }
                let limits = self.limits.remove(&id);
                self.by_id.insert(id.clone(), self.list.len());
                self.list.push(Call {
                    id,
                    token,
                    tool,
                    request_seq: ev.seq,
                    sent_us: ev.t_us,
                    limits,
                    status: CallStatus::Running,
                    end_us: None,
                    note: String::new(),
                    input: None,
                });
            }
            (Dir::In, FrameKind::Response | FrameKind::ErrorResponse) => {
                let f = ev.frame();
                let Some(id) = f.id.as_ref() else { return };
                if !self.by_id.contains_key(id) {
                    return;
                }
                let (status, note) = if ev.kind == FrameKind::ErrorResponse {
                    let msg = f
                        .error
                        .and_then(|e| serde_json::from_str::<Value>(e.get()).ok())
                        .and_then(|e| e.get("message").and_then(Value::as_str).map(safe_row))
                        .unwrap_or_default();
                    (CallStatus::RpcError, msg)
                } else {
                    let result = f
                        .result
                        .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                        .unwrap_or(Value::Null);
                    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
                    if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
                        let id = id.clone();
                        self.finish(&id, CallStatus::InputRequired, ev.t_us, String::new());
                        if let Some(i) = self.by_id.get(&id)
                            && self.list[*i].status == CallStatus::InputRequired
                        {
                            self.list[*i].input = Some(InputNeeded::parse(&result, ev.seq));
                        }
                        return;
                    }
                    if is_error {
                        (CallStatus::ToolError, String::new())
                    } else {
                        (CallStatus::Done, String::new())
                    }
                };
                let id = id.clone();
                self.finish(&id, status, ev.t_us, note);
            }
            (Dir::Out, FrameKind::Notification) if ev.method == Some(methods::CANCELLED) => {
                let f = ev.frame();
                if let Some(c) = CancelledView::parse(f.params) {
                    let why = c.reason.as_deref().map(safe_row).unwrap_or_default();
                    self.finish(&c.request_id, CallStatus::Cancelled, ev.t_us, why);
                }
            }
            (Dir::Meta, _) => match ev.event() {
                Some(Event::Timeout {
                    request,
                    limit,
                    secs,
                    ..
                }) => {
                    let note = format!(
                        "{} timeout of {}s",
                        safe_row(&limit),
                        super::format::num(secs)
                    );
                    self.finish(
                        &IdKey::from_value(&request),
                        CallStatus::TimedOut,
                        ev.t_us,
                        note,
                    );
                }
                Some(Event::Cancel {
                    request,
                    how,
                    reason,
                }) => {
                    // 2026-07-28 over HTTP: cancelling closes the response
                    // stream, so no notifications/cancelled is sent.
                    let note = format!("{} ({})", safe_row(&reason), safe_row(&how));
                    self.finish(
                        &IdKey::from_value(&request),
                        CallStatus::Cancelled,
                        ev.t_us,
                        note,
                    );
                }
                Some(Event::Failed { request, error }) => {
                    // The transport gave up on a request (HTTP error, stream
                    // closed); without a request id it gave up on all of them.
                    let note = safe_row(&error);
                    let ids: Vec<IdKey> = match request.filter(|r| !r.is_null()) {
                        Some(r) => vec![IdKey::from_value(&r)],
                        None => self
                            .list
                            .iter()
                            .filter(|c| c.status.is_running())
                            .map(|c| c.id.clone())
                            .collect(),
                    };
                    for id in ids {
                        self.finish(&id, CallStatus::Failed, ev.t_us, note.clone());
                    }
                }
                Some(Event::Exit { code, signal }) => {
                    let note = match (code, signal) {
                        (Some(c), _) => format!("the server exited with status {c}"),
                        (None, Some(s)) => format!("the server was killed by signal {s}"),
                        _ => "the server exited".to_string(),
                    };
                    let running: Vec<IdKey> = self
                        .list
                        .iter()
                        .filter(|c| c.status.is_running())
                        .map(|c| c.id.clone())
                        .collect();
                    for id in running {
                        self.finish(&id, CallStatus::Crashed, ev.t_us, note.clone());
                    }
                    self.exit_note = Some(note);
                }
                _ => {}
            },
            _ => {}
        }
    }
}

/// What a gauge shows, derived from the store for one call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gauge {
    pub notifications: u64,
    pub progress: Option<f64>,
    pub total: Option<f64>,
    pub message: Option<String>,
    pub first_us: Option<u64>,
    pub last_us: Option<u64>,
    /// Progress units per second between the first and last notification.
    pub rate: Option<f64>,
    pub bytes: bool,
    /// Step counters starting at 0 ("step 1 of 3" is progress 0).
    pub zero_based_steps: bool,
    pub malformed: bool,
}

/// One progress notification's values: progress, total, message, time.
type Point = (f64, Option<f64>, Option<String>, u64);

/// `None`: not a notification; `Some(Err)`: malformed progress params.
fn progress_at(store: &Store, seq: u64) -> Option<Result<Point, ()>> {
    let ev = store.get(seq)?;
    if ev.kind != FrameKind::Notification {
        return None;
    }
    let f = ev.frame();
    Some(
        ProgressView::parse(f.params)
            .map(|p| {
                (
                    p.progress,
                    p.total,
                    p.message.as_deref().map(safe_row),
                    ev.t_us,
                )
            })
            .map_err(|_| ()),
    )
}

fn mentions_bytes(msg: &str) -> bool {
    let m = msg.to_ascii_lowercase();
    m.contains("byte") || m.contains("kib") || m.contains("mib") || m.contains("gib")
}

impl Gauge {
    pub fn of(call: &Call, store: &Store, mode: ByteMode) -> Gauge {
        let mut g = Gauge::default();
        let Some(entry) = call.token.as_ref().and_then(|t| store.token(t)) else {
            return g;
        };
        let seqs = &entry.seqs;
        // The request itself is in the token's index; notifications follow it.
        let start = seqs.partition_point(|s| *s <= call.request_seq);
        let notes = &seqs[start..];
        g.notifications = notes.len() as u64;
        let (Some(first), Some(last)) = (notes.first(), notes.last()) else {
            return g;
        };
        let first = progress_at(store, *first);
        let last = progress_at(store, *last);
        if let Some(Ok((p, total, msg, t))) = &last {
            g.progress = Some(*p);
            g.total = *total;
            g.message = msg.clone();
            g.last_us = Some(*t);
        } else {
            g.malformed = last.is_some();
        }
        if let Some(Ok((p0, total0, _, t0))) = first {
            g.first_us = Some(t0);
            if let (Some(p), Some(t)) = (g.progress, g.last_us)
                && t > t0
            {
                g.rate = Some((p - p0) / ((t - t0) as f64 / 1e6));
            }
            g.zero_based_steps = p0 == 0.0
                && total0.is_some_and(|t| t.fract() == 0.0 && (1.0..=1000.0).contains(&t))
                && !g.message.as_deref().is_some_and(mentions_bytes);
        }
        g.bytes = match mode {
            ByteMode::Bytes => true,
            ByteMode::Plain => false,
            ByteMode::Auto => g.message.as_deref().is_some_and(mentions_bytes),
        };
        if g.bytes {
            g.zero_based_steps = false;
        }
        g
    }

    /// Fraction done, when a total is known.
    pub fn ratio(&self) -> Option<f64> {
        match (self.progress, self.total) {
            (Some(p), Some(t)) if t > 0.0 => Some((p / t).clamp(0.0, 1.0)),
            _ => None,
        }
    }

    /// Seconds left at the current rate.
    pub fn eta_us(&self) -> Option<u64> {
        let (p, t, r) = (self.progress?, self.total?, self.rate?);
        (r > 0.0 && t > p).then(|| ((t - p) / r * 1e6) as u64)
    }
}
