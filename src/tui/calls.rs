//! The calls the Progress pane shows: the `tools/call`s of the session's
//! call model (`crate::calls`, built from the store, so a replayed trace
//! shows them too), with what the pane draws of each — its status, the note
//! beside it, the limits it was sent with. A gauge's numbers are read at
//! draw time from the token index: the last and first progress
//! notifications only, whatever the notification count.
//!
//! In the 2026-07-28 era a call can end with `resultType: input_required`
//! (the server needs answers mcpscope could not give by itself): such a
//! call keeps what was asked, so the composer can build the retry.

use super::format::safe_row;
use crate::calls::tasks::{self, TaskLinks, TaskNews, TaskView};
use crate::calls::{Ending, Seen, Timed, Tracker};
use crate::client::Limits;
use crate::event::ExitInfo;
use crate::protocol::IdKey;
use crate::protocol::frame::FrameKind;
use crate::protocol::methods;
use crate::protocol::task::TaskStatus;
use crate::protocol::views::ProgressView;
use crate::trace::{EventRef, Store};
use serde_json::Value;
use std::collections::HashMap;

/// What the pane draws for how a call ended (icon, colour, label): a view
/// of [`Ending`].
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

    /// The status an end gives a call; `None` for a closed stdout, which
    /// leaves it running here: the server's exit (or the transport's
    /// failure) that follows ends it, with the reason worth showing.
    pub fn of(how: &Ending) -> Option<CallStatus> {
        Some(match how {
            Ending::Running => CallStatus::Running,
            Ending::Done => CallStatus::Done,
            Ending::ToolError => CallStatus::ToolError,
            Ending::RpcError { .. } => CallStatus::RpcError,
            Ending::InputRequired { .. } => CallStatus::InputRequired,
            Ending::Cancelled { .. } => CallStatus::Cancelled,
            Ending::TimedOut { .. } => CallStatus::TimedOut,
            Ending::Exited(_) => CallStatus::Crashed,
            Ending::Failed { .. } => CallStatus::Failed,
            Ending::Eof => return None,
        })
    }
}

/// The note shown beside a call that ended this way.
fn note(how: &Ending) -> String {
    match how {
        Ending::RpcError { message } => message.as_deref().map(safe_row).unwrap_or_default(),
        Ending::Cancelled { reason, how: None } => {
            reason.as_deref().map(safe_row).unwrap_or_default()
        }
        Ending::Cancelled {
            reason,
            how: Some(how),
        } => format!(
            "{} ({})",
            safe_row(reason.as_deref().unwrap_or_default()),
            safe_row(how)
        ),
        Ending::TimedOut { limit, secs } => format!(
            "{} timeout of {}s",
            safe_row(limit),
            crate::format::num(*secs)
        ),
        Ending::Exited(exit) => exit_note(*exit),
        Ending::Failed { error } => safe_row(error),
        Ending::Running
        | Ending::Done
        | Ending::ToolError
        | Ending::InputRequired { .. }
        | Ending::Eof => String::new(),
    }
}

/// The server's exit, for the call notes and the header.
fn exit_note(exit: ExitInfo) -> String {
    match (exit.code, exit.signal) {
        (Some(c), _) => format!("the server exited with status {c}"),
        (None, Some(s)) => format!("the server was killed by signal {s}"),
        _ => "the server exited".to_string(),
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
    /// The task its `CreateTaskResult` created: the call runs until the
    /// task's result comes (or the task fails or is cancelled).
    pub task: Option<TaskView>,
    /// Its record in the call model.
    core: usize,
}

impl<'a> From<&'a Call> for Timed<'a> {
    fn from(c: &'a Call) -> Timed<'a> {
        Timed {
            id: &c.id,
            token: c.token.as_ref(),
            request_seq: c.request_seq,
            sent_us: c.sent_us,
            scoped: None,
        }
    }
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
    /// Its requests were offered as waiting asks (the forms).
    pub offered: bool,
    /// The task (tasks extension) whose `inputRequests` these are: the
    /// answers go in a `tasks/update`, not a retry of the call.
    pub task: Option<String>,
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
            offered: false,
            task: None,
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
    /// The model's call index → the list's: an id names one call per host
    /// session, so an end is matched by the call that met it, not its id.
    by_core: HashMap<usize, usize>,
    limits: HashMap<IdKey, Limits>,
    scanned_to: u64,
    /// Set when the server's exit is seen (with the exit event's seq); the
    /// App moves it to the header.
    pub exit_note: Option<(u64, String)>,
    /// The session's calls; the list shows its `tools/call`s.
    model: Tracker,
    /// `tasks/*` requests and their answers, linked to their task.
    links: TaskLinks,
    /// Task id → the call it runs.
    by_task: HashMap<String, IdKey>,
    /// Statuses of tasks not yet linked to a call (bounded).
    early: std::collections::VecDeque<(crate::protocol::task::TaskState, &'static str, u64)>,
    /// When the server waited on the client (a form, a sampling request):
    /// not a gap of the server's in the details.
    pub waits: crate::calls::waits::ClientWaits,
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

    /// The request could not be completed for a reason the trace does not
    /// hold (the App says why).
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
        self.by_core = self
            .list
            .iter()
            .enumerate()
            .map(|(i, c)| (c.core, i))
            .collect();
        self.by_task = self
            .list
            .iter()
            .filter_map(|c| Some((c.task.as_ref()?.id.clone(), c.id.clone())))
            .collect();
    }

    /// The running call following task `task_id`.
    fn task_call(&mut self, task_id: &str) -> Option<&mut Call> {
        let id = self.by_task.get(task_id)?;
        let i = *self.by_id.get(id)?;
        Some(&mut self.list[i])
    }

    /// What a `tasks/*` frame says about a call's task.
    fn task_event(&mut self, ev: &EventRef<'_>) {
        let Some((task_id, news)) = self.links.observe(ev) else {
            return;
        };
        if !self.by_task.contains_key(&task_id) {
            // A status may come before the CreateTaskResult naming its task.
            if let TaskNews::Status(s, source, _) = news {
                if self.early.len() >= tasks::MAX_EARLY {
                    self.early.pop_front();
                }
                self.early.push_back((s, source, ev.t_us));
            }
            return;
        }
        let Some(c) = self.task_call(&task_id) else {
            return;
        };
        let Some(task) = c.task.as_mut() else {
            return;
        };
        match news {
            TaskNews::Status(s, source, detail) => {
                if !c.status.is_running() {
                    tasks::report(task, &s, ev.t_us, source);
                    return;
                }
                let waiting = s.status == TaskStatus::InputRequired;
                if let Some(d) = detail.as_ref().filter(|_| waiting) {
                    // New input requests (repeated polls repeat the old ones).
                    let mut input = InputNeeded::parse(d, ev.seq);
                    input.asks.retain(|a| !task.asked.contains(&a.key));
                    if !input.asks.is_empty() {
                        for a in &input.asks {
                            if task.asked.len() < tasks::MAX_ASKED {
                                task.asked.push(a.key.clone());
                            }
                        }
                        input.task = Some(task.id.clone());
                        c.input = Some(input);
                    }
                } else if let Some(input) = c.input.as_mut().filter(|i| i.task.is_some())
                    && input.answered_by.is_none()
                {
                    // The task moved on: its questions are answered (or
                    // withdrawn), and their forms go.
                    input.answered_by = Some(c.id.clone());
                }
                if s.status == TaskStatus::Completed
                    && let Some(result) = detail.as_ref().and_then(|d| d.get("result"))
                {
                    // The extension: the answer that says completed carries
                    // the tool's result.
                    tasks::report(task, &s, ev.t_us, source);
                    c.end_us = Some(ev.t_us);
                    c.status = if result.get("isError").and_then(Value::as_bool) == Some(true) {
                        CallStatus::ToolError
                    } else {
                        CallStatus::Done
                    };
                    return;
                }
                if !tasks::report(task, &s, ev.t_us, source) {
                    return;
                }
                // Completed waits for tasks/result; failed and cancelled end it.
                let status = match s.status {
                    TaskStatus::Failed => CallStatus::Failed,
                    TaskStatus::Cancelled => CallStatus::Cancelled,
                    _ => return,
                };
                c.status = status;
                c.end_us = Some(ev.t_us);
                let error = detail
                    .as_ref()
                    .and_then(|d| d.pointer("/error/message"))
                    .and_then(Value::as_str);
                if c.note.is_empty()
                    && let Some(e) = error
                {
                    c.note = format!("task failed: {}", safe_row(e));
                } else if c.note.is_empty() && task.message.is_none() {
                    c.note = format!("task {}", s.status);
                }
            }
            TaskNews::Result(r) => {
                if !c.status.is_running() {
                    return;
                }
                c.end_us = Some(ev.t_us);
                match r {
                    Ok(v) => {
                        if !task.is_terminal() {
                            let done = crate::protocol::task::TaskState {
                                task_id: task.id.clone(),
                                status: TaskStatus::Completed,
                                message: None,
                                poll_ms: None,
                            };
                            tasks::report(task, &done, ev.t_us, "tasks/result");
                        }
                        c.status = if v.get("isError").and_then(Value::as_bool) == Some(true) {
                            CallStatus::ToolError
                        } else {
                            CallStatus::Done
                        };
                    }
                    Err(why) => {
                        c.status = CallStatus::RpcError;
                        if c.note.is_empty() {
                            c.note = format!("tasks/result: {why}");
                        }
                    }
                }
            }
        }
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

    fn event(&mut self, ev: &EventRef<'_>) {
        self.task_event(ev);
        self.waits.observe(ev);
        match self.model.observe(ev) {
            Seen::Nothing => {}
            Seen::Sent(i) => self.sent(i, ev),
            Seen::Ended(i) => {
                if let Some(&at) = self.by_core.get(&i) {
                    self.settle(at, ev);
                }
            }
            Seen::EndedAll => self.settle_all(ev),
            Seen::Exit(exit) => {
                self.settle_all(ev);
                let why = exit_note(exit);
                // A task's call was answered already: the model ends it no more.
                for c in self.list.iter_mut().filter(|c| c.task.is_some()) {
                    if c.status.is_running() {
                        c.status = CallStatus::Crashed;
                        c.end_us = Some(ev.t_us);
                        c.note = why.clone();
                    }
                }
                self.exit_note = Some((ev.seq, why));
            }
        }
    }

    /// A call the model just took in: listed if it is a `tools/call`.
    fn sent(&mut self, i: usize, ev: &EventRef<'_>) {
        let rec = &self.model.calls[i];
        if rec.method != methods::TOOLS_CALL {
            return;
        }
        let (id, token) = (rec.id.clone(), rec.token.clone());
        let tool = rec.tool.as_deref().map_or_else(|| "?".into(), safe_row);
        // Only the composer cares whether this call answers an earlier one.
        let params = ev
            .frame()
            .params
            .and_then(|p| serde_json::from_str::<Value>(p.get()).ok());
        if let Some(p) = &params
            && p.get("inputResponses").is_some()
        {
            self.mark_answered(&tool, p.get("requestState"), &id);
        }
        let limits = self.limits.remove(&id);
        self.by_id.insert(id.clone(), self.list.len());
        self.by_core.insert(i, self.list.len());
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
            task: None,
            core: i,
        });
    }

    fn settle_all(&mut self, ev: &EventRef<'_>) {
        for at in 0..self.list.len() {
            self.settle(at, ev);
        }
    }

    /// A running call takes the first end its record met that the pane
    /// shows; `ev` is the event that ended it.
    fn settle(&mut self, at: usize, ev: &EventRef<'_>) {
        let c = &mut self.list[at];
        // A task's call ends with the task, not with its own response.
        if !c.status.is_running() || c.task.is_some() {
            return;
        }
        let Some((end, status)) = self.model.calls[c.core]
            .ends
            .iter()
            .find_map(|e| CallStatus::of(&e.how).map(|s| (e, s)))
        else {
            return;
        };
        if status == CallStatus::Done && end.seq == ev.seq {
            let created = ev
                .frame()
                .result
                .filter(|r| r.get().contains("\"task\""))
                .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                .and_then(|r| tasks::created(&r, ev.t_us));
            if let Some(mut task) = created {
                self.by_task.insert(task.id.clone(), c.id.clone());
                let tid = task.id.clone();
                for (s, source, t) in self.early.iter().filter(|e| e.0.task_id == tid) {
                    tasks::report(&mut task, s, *t, source);
                }
                self.early.retain(|e| e.0.task_id != task.id);
                // Created failed or cancelled (or so reported before): ended.
                let ended = match task.status {
                    TaskStatus::Failed => Some(CallStatus::Failed),
                    TaskStatus::Cancelled => Some(CallStatus::Cancelled),
                    _ => None,
                };
                if let Some(status) = ended {
                    c.status = status;
                    c.end_us = Some(ev.t_us);
                    if task.message.is_none() {
                        c.note = format!("task {}", task.status);
                    }
                }
                c.task = Some(task);
                return;
            }
        }
        c.status = status;
        c.end_us = Some(end.t_us);
        if c.note.is_empty() {
            c.note = note(&end.how);
        }
        if status == CallStatus::InputRequired && end.seq == ev.seq {
            let result = ev
                .frame()
                .result
                .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                .unwrap_or(Value::Null);
            c.input = Some(InputNeeded::parse(&result, ev.seq));
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
        let after = call.request_seq + 1;
        g.notifications = seqs.count_from(after) as u64;
        let (Some(first), Some(last)) = (seqs.from(after).next(), seqs.last()) else {
            return g;
        };
        let first = progress_at(store, first);
        let last = progress_at(store, last);
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
