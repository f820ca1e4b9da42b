//! The calls as a face lists them: the `tools/call`s of the call model
//! ([`Tracker`]), each with its status and the note beside it, what an
//! `input_required` result asked and whether it was answered, the task it
//! runs as, and its input rounds — one fold, fed event by event, that the
//! TUI's Progress pane (and any face listing calls) reads. The limits a
//! call was sent with are not in the trace: the face that sent it keeps
//! them.
//!
//! A call and its input rounds are one call: a retry carrying
//! `inputResponses` joins the call whose round it answers ([`Asking`]);
//! from then on the retry is the request that carries the call (its
//! status is the final round's), and the round shows as steps on it:
//! asked, answered, resumed. A task's input (the tasks extension) is
//! rounds too: its status asks, `tasks/update` answers, its next status
//! resumes it.

use super::input::{Asking, InputNeeded, Step, StepKind, Steps, retry_of};
use super::status::{CallStatus, exit_note, note, safe_note};
use super::tasks::{self, TaskLinks, TaskView};
use super::waits::ClientWaits;
use super::{Seen, Timed, Tracker};
use crate::protocol::IdKey;
use crate::protocol::frame::FrameKind;
use crate::protocol::methods;
use crate::protocol::task::{TaskState, TaskStatus};
use crate::trace::{Dir, EventRef, Store};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

#[path = "fold_tasks.rs"]
mod fold_tasks;

/// A request of a call: the first, or a retry answering its input.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: IdKey,
    pub token: Option<IdKey>,
    pub request_seq: u64,
    pub sent_us: u64,
}

/// One `tools/call` and its rounds, as listed.
#[derive(Debug, Clone)]
pub struct ToolCall {
    /// The first request's id, token, seq and time: the call's own.
    pub id: IdKey,
    pub token: Option<IdKey>,
    /// Its `name`, made safe for a row (`?` when it has none).
    pub tool: String,
    pub request_seq: u64,
    pub sent_us: u64,
    /// The request that carries it now: the first, or the latest retry.
    pub latest: Request,
    pub status: CallStatus,
    pub end_us: Option<u64>,
    pub note: String,
    /// What the latest round asked for.
    pub input: Option<InputNeeded>,
    /// The task its `CreateTaskResult` created: the call runs until the
    /// task's result comes (or the task fails or is cancelled).
    pub task: Option<TaskView>,
    /// Its input rounds, step by step.
    pub steps: Steps,
    /// The record (in the call model) of the latest request, and of the first.
    core: usize,
    root: usize,
}

impl<'a> From<&'a ToolCall> for Timed<'a> {
    fn from(c: &'a ToolCall) -> Timed<'a> {
        Timed {
            id: &c.latest.id,
            token: c.latest.token.as_ref(),
            request_seq: c.latest.request_seq,
            sent_us: c.latest.sent_us,
            scoped: None,
        }
    }
}

/// The calls of a session, folded from the store event by event.
#[derive(Debug, Default)]
pub struct Calls {
    pub list: Vec<ToolCall>,
    /// Each request id of a call (its first and its retries) → the list.
    by_id: HashMap<IdKey, usize>,
    /// The model's call index → the list's: an id names one call per host
    /// session, so an end is matched by the call that met it, not its id.
    by_core: HashMap<usize, usize>,
    scanned_to: u64,
    /// Set when the server's exit is seen (with the exit event's seq); a
    /// face takes it for its header.
    pub exit_note: Option<(u64, String)>,
    /// The session's calls; the list shows its `tools/call`s.
    model: Tracker,
    /// `tasks/*` requests and their answers, linked to their task.
    links: TaskLinks,
    /// Task id → the call it runs.
    by_task: HashMap<String, IdKey>,
    /// Statuses of tasks not yet linked to a call (bounded).
    early: VecDeque<(TaskState, &'static str, u64)>,
    /// Rounds waiting for their retry, by the first request's record.
    asking: Asking,
    /// Retries answered but not yet taken up by the server: their
    /// token → the list (one per call at most).
    resuming: HashMap<IdKey, usize>,
    /// When the server waited on the client (a form, a sampling request):
    /// not a gap of the server's in the details.
    pub waits: ClientWaits,
}

impl Calls {
    /// Every call of a stored session (one pass).
    pub fn of(store: &Store) -> Calls {
        let mut c = Calls::default();
        while !c.sync(store, u64::MAX) {}
        c
    }

    pub fn running(&self) -> usize {
        self.list.iter().filter(|c| c.status.is_running()).count()
    }

    /// The call a request id (its first or a retry) belongs to.
    pub fn get(&self, id: &IdKey) -> Option<&ToolCall> {
        self.by_id.get(id).map(|i| &self.list[*i])
    }

    pub fn get_mut(&mut self, id: &IdKey) -> Option<&mut ToolCall> {
        self.by_id.get(id).map(|i| &mut self.list[*i])
    }

    /// The request could not be completed for a reason the trace does not
    /// hold (the session says why).
    pub fn fail(&mut self, id: &IdKey, why: &str, now_us: u64) {
        if let Some(i) = self.by_id.get(id) {
            let c = &mut self.list[*i];
            if c.note.is_empty() {
                c.note = safe_note(why);
            }
            if c.status.is_running() {
                c.status = CallStatus::Failed;
                c.end_us = Some(now_us);
            }
        }
    }

    /// Forget finished calls (the trace keeps them).
    pub fn clear_finished(&mut self) {
        let mut new_at = vec![None; self.list.len()];
        let mut kept = 0;
        for (i, c) in self.list.iter().enumerate() {
            if c.status.is_running() {
                new_at[i] = Some(kept);
                kept += 1;
            } else {
                self.asking.forget(c.root);
            }
        }
        self.list.retain(|c| c.status.is_running());
        remap(&mut self.by_id, &new_at);
        remap(&mut self.by_core, &new_at);
        remap(&mut self.resuming, &new_at);
        let ids: std::collections::HashSet<&IdKey> = self.list.iter().map(|c| &c.id).collect();
        self.by_task.retain(|_, id| ids.contains(id));
    }

    /// Look at new events (at most `budget`). Returns true when caught up.
    pub fn sync(&mut self, store: &Store, budget: u64) -> bool {
        let from = self.scanned_to.max(store.first_seq());
        let to = store.next_seq().min(from.saturating_add(budget));
        for ev in store.range(from, to) {
            self.event(&ev);
        }
        self.scanned_to = to;
        to >= store.next_seq()
    }

    fn event(&mut self, ev: &EventRef<'_>) {
        self.task_event(ev);
        self.waits.observe(ev);
        if !self.resuming.is_empty() && ev.progress.is_some() {
            self.progressed(ev);
        }
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

    /// A progress notification: the first for a retry resumes its call.
    fn progressed(&mut self, ev: &EventRef<'_>) {
        let Ok(p) = crate::protocol::views::ProgressView::parse(ev.frame().params) else {
            return;
        };
        let token = IdKey::from_raw(p.token.get());
        if let Some(at) = self.resuming.remove(&token) {
            resume(&mut self.list[at], ev);
        }
    }

    /// A call the model just took in: listed if it is a `tools/call`, as
    /// a call of its own or as the next round of the call it answers.
    fn sent(&mut self, i: usize, ev: &EventRef<'_>) {
        let rec = &self.model.calls[i];
        if rec.method != methods::TOOLS_CALL {
            return;
        }
        let latest = Request {
            id: rec.id.clone(),
            token: rec.token.clone(),
            request_seq: ev.seq,
            sent_us: ev.t_us,
        };
        let tool = rec.tool.as_deref().map_or_else(|| "?".into(), safe_note);
        let answers = ev
            .frame()
            .params
            .filter(|p| p.get().contains("\"inputResponses\""))
            .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
            .and_then(|p| retry_of(&p))
            .and_then(|r| self.asking.answer(&r))
            .and_then(|root| self.by_core.get(&root).copied());
        if let Some(at) = answers {
            self.retried(at, i, latest, ev);
            return;
        }
        self.by_id.insert(latest.id.clone(), self.list.len());
        self.by_core.insert(i, self.list.len());
        self.list.push(ToolCall {
            id: latest.id.clone(),
            token: latest.token.clone(),
            tool,
            request_seq: ev.seq,
            sent_us: ev.t_us,
            latest,
            status: CallStatus::Running,
            end_us: None,
            note: String::new(),
            input: None,
            task: None,
            steps: Steps::default(),
            core: i,
            root: i,
        });
    }

    /// The retry `latest` (record `i`) answers the call at `at`: its next
    /// round, carried by the retry from now on.
    fn retried(&mut self, at: usize, i: usize, latest: Request, ev: &EventRef<'_>) {
        let c = &mut self.list[at];
        if let Some(inp) = c.input.as_mut().filter(|i| i.answered_by.is_none()) {
            inp.answered_by = Some(latest.id.clone());
        }
        c.steps.push(Step {
            kind: StepKind::Answered,
            seq: ev.seq,
            t_us: ev.t_us,
            by: Some(latest.id.clone()),
        });
        c.status = CallStatus::Running;
        c.end_us = None;
        c.note.clear();
        c.core = i;
        self.by_id.insert(latest.id.clone(), at);
        self.by_core.insert(i, at);
        self.resuming.retain(|_, a| *a != at);
        if let Some(t) = &latest.token {
            self.resuming.insert(t.clone(), at);
        }
        c.latest = latest;
    }

    fn settle_all(&mut self, ev: &EventRef<'_>) {
        for at in 0..self.list.len() {
            self.settle(at, ev);
        }
    }

    /// A running call takes the first end its latest request met that
    /// the list shows; `ev` is the event that ended it.
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
        if end.how.is_response() && end.seq == ev.seq {
            resume(c, ev);
            if let Some(t) = &c.latest.token {
                self.resuming.remove(t);
            }
        }
        if status == CallStatus::Done && end.seq == ev.seq {
            let created = ev
                .frame()
                .result
                .filter(|r| r.get().contains("\"task\""))
                .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                .and_then(|r| tasks::created(&r, ev.t_us));
            if let Some(task) = created {
                self.start_task(at, task, ev);
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
            let input = InputNeeded::parse(&result, ev.seq);
            self.asking
                .asked(c.root, Some(&c.tool), input.request_state.clone());
            c.steps.push(Step {
                kind: StepKind::Asked,
                seq: ev.seq,
                t_us: ev.t_us,
                by: None,
            });
            c.input = Some(input);
        }
    }

    /// The call at `at` runs as `task` from now on.
    fn start_task(&mut self, at: usize, mut task: TaskView, ev: &EventRef<'_>) {
        let c = &mut self.list[at];
        self.by_task.insert(task.id.clone(), c.id.clone());
        let tid = task.id.clone();
        for (s, source, t) in self.early.iter().filter(|e| e.0.task_id == tid) {
            tasks::report(&mut task, s, *t, source);
        }
        self.early.retain(|e| e.0.task_id != tid);
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
    }

    /// The running call following task `task_id`.
    fn task_call(&mut self, task_id: &str) -> Option<&mut ToolCall> {
        let id = self.by_task.get(task_id)?;
        let i = *self.by_id.get(id)?;
        Some(&mut self.list[i])
    }
}

/// Keep the entries of `m` whose list index stays, renumbered.
fn remap<K>(m: &mut HashMap<K, usize>, new_at: &[Option<usize>]) {
    m.retain(|_, at| match new_at[*at] {
        Some(n) => {
            *at = n;
            true
        }
        None => false,
    });
}

/// The server took up a call whose last step was an answer.
fn resume(c: &mut ToolCall, ev: &EventRef<'_>) {
    if c.steps.last().is_some_and(|s| s.kind == StepKind::Answered) {
        c.steps.push(Step {
            kind: StepKind::Resumed,
            seq: ev.seq,
            t_us: ev.t_us,
            by: None,
        });
    }
}

/// Whether `ev` is a `tasks/update` we sent, and for which task.
fn task_update(ev: &EventRef<'_>) -> Option<String> {
    if ev.dir != Dir::Out
        || ev.kind != FrameKind::Request
        || ev.method != Some(methods::TASKS_UPDATE)
    {
        return None;
    }
    let p: Value = serde_json::from_str(ev.frame().params?.get()).ok()?;
    Some(p.get("taskId")?.as_str()?.to_owned())
}

#[cfg(test)]
#[path = "fold_tests.rs"]
mod tests;
