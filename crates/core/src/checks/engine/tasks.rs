//! The task rules: a task-augmented request answered with a
//! `CreateTaskResult` lives on as a task, and its progress token with it,
//! until the task reaches a terminal status (`completed`, `failed`,
//! `cancelled`), which it never leaves.
//!
//! Statuses come from the `CreateTaskResult` (2025-11-25: `{task: {taskId,
//! status}}`; the 2026-07-28 tasks extension: `{resultType: "task", taskId,
//! status}`), from answers to `tasks/get` and `tasks/cancel`, and from status
//! notifications (`notifications/tasks/status`, and the extension's
//! `notifications/tasks`). Only tasks created in answer to this client's own
//! requests get state, so a server cannot grow it beyond those requests; a
//! task goes with its request when that is retired, which a running task's
//! request is not (until the requests kept in flight are over their cap).

use super::{Checker, Req};
use crate::checks::finding::Finding;
use crate::checks::rules::Rule;
use crate::protocol::task::{self as task_model, TaskState, TaskStatus};
use crate::protocol::{Era, methods};
use crate::trace::EventRef;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

/// The extension's status notification (it travels on `subscriptions/listen`).
pub(super) const STATUS_EXT: &str = "notifications/tasks";

/// Where a task's terminal status was first seen.
struct Terminal {
    status: TaskStatus,
    seq: u64,
    t_us: u64,
    channel: Box<str>,
}

struct Task {
    id: Box<str>,
    /// The request whose answer created it.
    req: usize,
    terminal: Option<Terminal>,
}

/// A status for a task not created yet: over Streamable HTTP a task's
/// notifications may overtake the CreateTaskResult on the call's stream.
struct Early {
    id: Box<str>,
    status: TaskStatus,
    seq: u64,
    t_us: u64,
    channel: Box<str>,
}

/// Statuses kept for tasks not created yet; older ones are dropped (counted).
pub const EARLY_KEPT: usize = 64;
/// A status still naming no created task this long after it arrived names
/// a task that does not exist (a CreateTaskResult it overtook comes within
/// milliseconds).
const UNKNOWN_AFTER_US: u64 = 5_000_000;

#[derive(Default)]
pub(super) struct Tasks {
    /// Tasks by slot; a retired task's slot is reused.
    list: Vec<Task>,
    free: Vec<usize>,
    by_id: HashMap<Box<str>, usize>,
    early: VecDeque<Early>,
    early_dropped: u64,
    /// Task ids the client named in its requests (`taskId`, `taskIds`): a
    /// task it follows from elsewhere (an earlier session, a listing) exists
    /// though no answer here created it. Bounded; the oldest go first.
    mentioned: VecDeque<Box<str>>,
}

/// Task ids the client named, remembered at most.
const MENTIONED_KEPT: usize = 1024;

/// Where and when a status was seen.
#[derive(Clone, Copy)]
struct Seen<'a> {
    seq: u64,
    t_us: u64,
    channel: &'a str,
}

impl<'a> Seen<'a> {
    fn of(ev: &EventRef<'a>) -> Seen<'a> {
        Seen {
            seq: ev.seq,
            t_us: ev.t_us,
            channel: ev.channel,
        }
    }
}

/// Requests whose answer is a `Task` object.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Query {
    Get,
    Cancel,
}

pub(super) fn query(method: Option<&str>) -> Option<Query> {
    match method {
        Some(methods::TASKS_GET) => Some(Query::Get),
        Some(methods::TASKS_CANCEL) => Some(Query::Cancel),
        _ => None,
    }
}

/// A status notification of either tasks revision.
pub(super) fn is_status_notification(method: Option<&str>) -> bool {
    matches!(method, Some(methods::TASKS_STATUS | STATUS_EXT))
}

impl Checker {
    /// Tasks with state, and statuses kept for tasks not created yet (with
    /// how many of those were dropped).
    pub fn tracked_tasks(&self) -> (usize, usize, u64) {
        let t = &self.tasks;
        (t.list.len() - t.free.len(), t.early.len(), t.early_dropped)
    }

    /// Whether task `ti` has not reached a terminal status.
    pub(super) fn task_running(&self, ti: usize) -> bool {
        self.tasks.list[ti].terminal.is_none()
    }

    /// Task `ti` goes with its retired request.
    pub(super) fn retire_task(&mut self, ti: usize) {
        let t = &mut self.tasks;
        let id = std::mem::take(&mut t.list[ti].id);
        t.list[ti].terminal = None;
        if t.by_id.get(&id) == Some(&ti) {
            t.by_id.remove(&id);
        }
        t.free.push(ti);
    }

    /// A successful answer to request `ri`: a `CreateTaskResult` starts a
    /// task.
    pub(super) fn task_answer(&mut self, ri: usize, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        let f = ev.frame();
        // Cheap filter first: every shape that matters names a taskId.
        let Some(raw) = f.result.filter(|r| task_model::may_report_task(r.get())) else {
            return;
        };
        let Ok(v) = serde_json::from_str::<Value>(raw.get()) else {
            return;
        };
        if let Some(TaskState {
            task_id: id,
            status,
            ..
        }) = TaskState::created(&v)
        {
            let id = id.as_str();
            let task = Task {
                id: id.into(),
                req: ri,
                terminal: None,
            };
            let ti = match self.tasks.free.pop() {
                Some(ti) => {
                    self.tasks.list[ti] = task;
                    ti
                }
                None => {
                    self.tasks.list.push(task);
                    self.tasks.list.len() - 1
                }
            };
            // A reused id now names the newer task; the older one keeps its
            // request (and its token) but is no longer reachable by id.
            self.tasks.by_id.insert(id.into(), ti);
            self.reqs[ri].task = Some(ti);
            // What overtook this answer happened after it was sent, oldest
            // first; then the status it names (which may be terminal already).
            let mut early = std::mem::take(&mut self.tasks.early);
            early.retain(|e| {
                if *e.id != *id {
                    return true;
                }
                let at = Seen {
                    seq: e.seq,
                    t_us: e.t_us,
                    channel: &e.channel,
                };
                self.task_status(ti, &e.status, at, None, out);
                false
            });
            self.tasks.early = early;
            let sent = self.reqs[ri].seq;
            self.task_status(ti, &status, Seen::of(ev), Some(sent), out);
        }
    }

    /// The answer to a `tasks/get` or `tasks/cancel` request `ri`.
    pub(super) fn task_query_answer(
        &mut self,
        ri: usize,
        ev: &EventRef<'_>,
        out: &mut Vec<Finding>,
    ) {
        let f = ev.frame();
        let Some(v) = f
            .result
            .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
        else {
            return;
        };
        let Some(TaskState {
            task_id: id,
            status,
            ..
        }) = TaskState::parse(&v)
        else {
            return;
        };
        let (sent, rid) = (self.reqs[ri].seq, self.reqs[ri].id.clone());
        // The extension's cancel is an acknowledgement, whatever it carries.
        if self.reqs[ri].task_query == Some(Query::Cancel)
            && self.era != Era::Stateless
            && status != TaskStatus::Cancelled
        {
            let id = crate::protocol::sanitize::one_line(&id).into_owned();
            let status = crate::protocol::sanitize::one_line(status.as_str()).into_owned();
            self.emit(
                out,
                Rule::TaskCancelNotCancelled,
                vec![sent, ev.seq],
                None,
                Some(rid),
                format!(
                    "tasks/cancel for task {id} succeeded, but the task is {status:?}; a cancelled task must be cancelled before the answer, and a task already terminal refused with -32602"
                ),
            );
        }
        if let Some(&ti) = self.tasks.by_id.get(id.as_str()) {
            self.task_status(ti, &status, Seen::of(ev), Some(sent), out);
        }
    }

    /// `notifications/tasks/status` (or the extension's `notifications/tasks`).
    pub(super) fn task_notification(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        let f = ev.frame();
        let Some(v) = f
            .params
            .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
        else {
            return;
        };
        let Some(TaskState {
            task_id: id,
            status,
            ..
        }) = TaskState::of_notification(&v)
        else {
            return;
        };
        if let Some(&ti) = self.tasks.by_id.get(id.as_str()) {
            return self.task_status(ti, &status, Seen::of(ev), None, out);
        }
        let t = &mut self.tasks;
        if t.early.len() == EARLY_KEPT {
            t.early.pop_front();
            t.early_dropped += 1;
        }
        t.early.push_back(Early {
            id: id.into(),
            status,
            seq: ev.seq,
            t_us: ev.t_us,
            channel: ev.channel.into(),
        });
    }

    /// Statuses for tasks never created: those older than
    /// [`UNKNOWN_AFTER_US`] at `now_us`, or (`all`, the end of a trace) all.
    pub(super) fn unknown_task_statuses(&mut self, now_us: u64, all: bool, out: &mut Vec<Finding>) {
        let mut said: Option<Box<str>> = None;
        while let Some(e) = self.tasks.early.front() {
            if !all && e.t_us.saturating_add(UNKNOWN_AFTER_US) > now_us {
                break;
            }
            let Some(e) = self.tasks.early.pop_front() else {
                break;
            };
            // Followed from elsewhere, or said already (one finding per task).
            if self.tasks.mentioned.contains(&e.id) || said.as_ref() == Some(&e.id) {
                continue;
            }
            said = Some(e.id.clone());
            let id = crate::protocol::sanitize::one_line(&e.id).into_owned();
            self.emit(
                out,
                Rule::TaskStatusUnknown,
                vec![e.seq],
                None,
                None,
                format!(
                    "a status ({}) for task {id:?}, which no answer of the server created; send status notifications only for tasks that exist",
                    crate::protocol::sanitize::one_line(e.status.as_str())
                ),
            );
        }
    }

    /// The client named task ids in a request's params.
    pub(super) fn tasks_mentioned(&mut self, params: &Value) {
        let one = params.get("taskId").and_then(Value::as_str);
        let many = params.get("taskIds").and_then(Value::as_array);
        let ids = one
            .into_iter()
            .chain(many.into_iter().flatten().filter_map(Value::as_str));
        for id in ids {
            let m = &mut self.tasks.mentioned;
            if m.iter().any(|k| &**k == id) {
                continue;
            }
            if m.len() == MENTIONED_KEPT {
                m.pop_front();
            }
            m.push_back(id.into());
        }
    }

    /// Task `ti` reported `status` at `ev`; `asked` is the seq of the poll it
    /// answers, if it answers one.
    fn task_status(
        &mut self,
        ti: usize,
        status: &TaskStatus,
        ev: Seen<'_>,
        asked: Option<u64>,
        out: &mut Vec<Finding>,
    ) {
        let task = &mut self.tasks.list[ti];
        let Some(term) = &task.terminal else {
            if status.is_terminal() {
                task.terminal = Some(Terminal {
                    status: status.clone(),
                    seq: ev.seq,
                    t_us: ev.t_us,
                    channel: ev.channel.into(),
                });
                // Its request, kept while the task ran, is finished now.
                let ri = task.req;
                self.req_finished(ri);
            }
            return;
        };
        if term.status == *status {
            return;
        }
        // Over Streamable HTTP two streams may deliver out of order: an
        // answer to a poll sent before the terminal status was seen, or a
        // notification on another stream shortly after, may be older news.
        let certain = *term.channel == *ev.channel
            || match asked {
                Some(sent) => sent > term.seq,
                None => ev.t_us.saturating_sub(term.t_us) > self.cfg.cancel_grace_us,
            };
        if !certain {
            return;
        }
        let (tseq, was) = (term.seq, term.status.clone());
        let id = task.id.clone();
        let rid = self.reqs[task.req].id.clone();
        let status = crate::protocol::sanitize::one_line(status.as_str()).into_owned();
        self.emit(
            out,
            Rule::TaskStatusRegressed,
            vec![tseq, ev.seq],
            None,
            Some(rid.clone()),
            format!(
                "task {id} (request {rid}) reported status {status:?} after it was {was} (#{tseq}); a task in a terminal status must not move to another status"
            ),
        );
    }

    /// Progress for the token of request `req`, answered already: `None`
    /// when no task lives on behind that answer (the progress came after
    /// the response); `Some(None)` while its task runs (progress is
    /// expected); `Some(Some(..))` with the finding to report when the task
    /// had ended.
    pub(super) fn task_progress(&self, req: &Req, ev: &EventRef<'_>) -> Option<Option<Ended>> {
        let task = &self.tasks.list[req.task?];
        let Some(term) = &task.terminal else {
            return Some(None);
        };
        let late = *term.channel == *ev.channel
            || ev.t_us.saturating_sub(term.t_us) > self.cfg.cancel_grace_us;
        if !late {
            return Some(None);
        }
        Some(Some(Ended {
            task: task.id.clone(),
            status: term.status.clone(),
            seq: term.seq,
        }))
    }
}

/// The end of a task that progress arrived after.
pub(super) struct Ended {
    pub(super) task: Box<str>,
    pub(super) status: TaskStatus,
    pub(super) seq: u64,
}
