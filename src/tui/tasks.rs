//! Task-augmented calls (2025-11-25 tasks) as the Progress pane follows
//! them: a call answered with a `CreateTaskResult` keeps running as its
//! task, whose status comes from the `CreateTaskResult`, `tasks/get`
//! answers, `tasks/cancel` answers and `notifications/tasks/status`; the
//! answer to `tasks/result` ends it. The 2026-07-28 tasks extension is
//! followed the same way: its handle (`resultType: "task"`) creates the
//! task, `tasks/get` answers and `notifications/tasks` report it, and the
//! answer that says `completed` carries the result (there is no
//! `tasks/result`); an `input_required` one carries the `inputRequests`
//! the forms answer. Everything is read from the store, so
//! a replayed trace shows the same history. What is kept per task and the
//! requests waiting for an answer are bounded and counted.

use super::format::safe_row;
use crate::client::tasks::{TaskState, is_terminal};
use crate::protocol::IdKey;
use crate::protocol::frame::FrameKind;
use crate::protocol::methods;
use crate::trace::{Dir, EventRef};
use serde_json::Value;
use std::collections::HashMap;

/// Status changes kept per task; later ones replace the middle of the list.
pub const MAX_HISTORY: usize = 64;
/// Statuses kept for tasks whose `CreateTaskResult` has not come yet.
pub const MAX_EARLY: usize = 32;
/// `tasks/*` requests waiting for their answer that are remembered.
pub const MAX_WAITING: usize = 4096;

/// One status a task reported.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStep {
    pub t_us: u64,
    pub status: String,
    pub message: Option<String>,
    /// Where it was read: `created`, `tasks/get`, `tasks/cancel`,
    /// `notification`, `tasks/result`.
    pub source: &'static str,
}

/// A call's task, as last reported.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskView {
    pub id: String,
    pub status: String,
    pub message: Option<String>,
    /// Each change of status or message, oldest first (bounded).
    pub history: Vec<TaskStep>,
    /// Changes not kept (the history was full).
    pub dropped: u64,
    /// The user asked to cancel it (`tasks/cancel` sent).
    pub cancel_sent: bool,
    /// `inputRequests` keys offered already (the extension's keys are
    /// unique over a task's life; repeated polls repeat them).
    pub asked: Vec<String>,
}

/// Input request keys remembered per task.
pub const MAX_ASKED: usize = 256;

impl TaskView {
    fn new(s: &TaskState, t_us: u64) -> TaskView {
        let mut v = TaskView {
            id: s.task_id.clone(),
            status: String::new(),
            message: None,
            history: Vec::new(),
            dropped: 0,
            cancel_sent: false,
            asked: Vec::new(),
        };
        v.report(s, t_us, "created");
        v
    }

    /// Take in a report; a step is kept when the status or message changed.
    /// A terminal status is final: later reports are not taken.
    fn report(&mut self, s: &TaskState, t_us: u64, source: &'static str) -> bool {
        let message = s.message.as_deref().map(safe_row);
        if self.is_terminal() || (self.status == s.status && self.message == message) {
            return false;
        }
        self.status = safe_row(&s.status);
        self.message = message.clone();
        let step = TaskStep {
            t_us,
            status: self.status.clone(),
            message,
            source,
        };
        if self.history.len() >= MAX_HISTORY {
            // Keep the first (the creation) and the latest ones.
            self.history.remove(1);
            self.dropped += 1;
        }
        self.history.push(step);
        true
    }

    pub fn is_terminal(&self) -> bool {
        is_terminal(&self.status)
    }

    /// The id cut to fit a gauge row: long ids (UUIDs) keep their first 8.
    pub fn short_id(&self) -> String {
        let n = self.id.chars().count();
        if n <= 10 {
            safe_row(&self.id)
        } else {
            format!(
                "{}…",
                safe_row(&self.id.chars().take(8).collect::<String>())
            )
        }
    }
}

/// What a `tasks/*` frame means for the call following that task.
pub enum TaskNews {
    /// A status report, with the task object when it carries a result or
    /// input requests (the tasks extension).
    Status(TaskState, &'static str, Option<Value>),
    /// The answer to `tasks/result`: the tool's result, or an error message.
    Result(Result<Value, String>),
}

/// Links `tasks/*` requests to their task, so answers (which may not name
/// the task) find it.
#[derive(Debug, Default)]
pub struct TaskLinks {
    /// Request id → (task id, method) for `tasks/get`, `tasks/result`, `tasks/cancel`.
    waiting: HashMap<IdKey, (String, &'static str)>,
    /// Requests not remembered because too many were waiting.
    pub dropped: u64,
}

fn parse(raw: Option<&serde_json::value::RawValue>) -> Option<Value> {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
}

impl TaskLinks {
    /// Look at one event; the task it tells about and what it says.
    pub fn observe(&mut self, ev: &EventRef<'_>) -> Option<(String, TaskNews)> {
        let method = ev.method?;
        if !method.starts_with("tasks/")
            && method != methods::TASKS_STATUS
            && method != methods::TASKS_NOTIFY
        {
            return None;
        }
        let f = ev.frame();
        match (ev.dir, ev.kind) {
            (Dir::Out, FrameKind::Request) => {
                let m = match method {
                    methods::TASKS_GET => methods::TASKS_GET,
                    methods::TASKS_RESULT => methods::TASKS_RESULT,
                    methods::TASKS_CANCEL => methods::TASKS_CANCEL,
                    _ => return None,
                };
                let task = parse(f.params)?.get("taskId")?.as_str()?.to_string();
                let id = f.id?;
                if self.waiting.len() >= MAX_WAITING {
                    self.dropped += 1;
                } else {
                    self.waiting.insert(id, (task, m));
                }
                None
            }
            (Dir::In, FrameKind::Response | FrameKind::ErrorResponse) => {
                let (task, m) = self.waiting.remove(f.id.as_ref()?)?;
                if m == methods::TASKS_RESULT {
                    let r = match (parse(f.result), parse(f.error)) {
                        (_, Some(e)) => Err(safe_row(
                            e.get("message").and_then(Value::as_str).unwrap_or("error"),
                        )),
                        (Some(v), None) => Ok(v),
                        (None, None) => Err("an empty answer".into()),
                    };
                    return Some((task, TaskNews::Result(r)));
                }
                let v = parse(f.result)?;
                let s = TaskState::of_result(&v)?;
                let detail = detail(v);
                (s.task_id == task).then_some((task, TaskNews::Status(s, m, detail)))
            }
            (Dir::In, FrameKind::Notification)
                if method == methods::TASKS_STATUS || method == methods::TASKS_NOTIFY =>
            {
                let v = parse(f.params)?;
                let s = TaskState::of_result(&v)?;
                let detail = detail(v);
                Some((
                    s.task_id.clone(),
                    TaskNews::Status(s, "notification", detail),
                ))
            }
            _ => None,
        }
    }
}

/// The task object, kept when it carries what the call needs: the result
/// (or error) of a finished task, or the requests of one waiting for input.
fn detail(v: Value) -> Option<Value> {
    ["result", "error", "inputRequests"]
        .iter()
        .any(|k| v.get(k).is_some())
        .then_some(v)
}

/// The task a call's response created, if it is a `CreateTaskResult` (or
/// the extension's task handle).
pub fn created(result: &Value, t_us: u64) -> Option<TaskView> {
    if result.get("task").is_none() && !crate::client::ext_tasks::is_handle(result) {
        return None;
    }
    TaskState::of_result(result).map(|s| TaskView::new(&s, t_us))
}

/// Take in a status report for `task`; true when it changed.
pub fn report(task: &mut TaskView, s: &TaskState, t_us: u64, source: &'static str) -> bool {
    task.report(s, t_us, source)
}

/// A timeline summary of a task frame: `working · msg · task 7f3a9c2e…` for
/// a Task object (a status notification, a `tasks/get` or `tasks/cancel`
/// answer, a `CreateTaskResult`), `task 7f3a9c2e…` for a request naming
/// one. `None` when the text is not such a thing.
pub fn summary(text: &str) -> Option<String> {
    if !text.contains("\"taskId\"") {
        return None;
    }
    let v: Value = serde_json::from_str(text).ok()?;
    let short = |id: &str| {
        if id.chars().count() > 10 {
            format!("{}…", safe_row(&id.chars().take(8).collect::<String>()))
        } else {
            safe_row(id)
        }
    };
    if let Some(s) = TaskState::of_result(&v) {
        let msg = s
            .message
            .as_deref()
            .map(|m| format!(" · {}", safe_row(m)))
            .unwrap_or_default();
        let created = if v.get("task").is_some() || crate::client::ext_tasks::is_handle(&v) {
            "created "
        } else {
            ""
        };
        // The status first: the timeline's column is narrow.
        return Some(format!(
            "{created}{}{msg} · task {}",
            safe_row(&s.status),
            short(&s.task_id)
        ));
    }
    let id = v.get("taskId")?.as_str()?;
    Some(format!("task {}", short(id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(status: &str, msg: Option<&str>) -> TaskState {
        TaskState {
            task_id: "t".into(),
            status: status.into(),
            message: msg.map(str::to_string),
            poll_ms: None,
        }
    }

    #[test]
    fn history_keeps_changes_and_stops_at_a_terminal_status() {
        let mut t = TaskView::new(&state("working", Some("a")), 1);
        assert!(!t.report(&state("working", Some("a")), 2, "tasks/get"));
        assert!(t.report(&state("working", Some("b")), 3, "tasks/get"));
        assert!(t.report(&state("completed", None), 4, "notification"));
        assert!(!t.report(&state("working", None), 5, "tasks/get"));
        let statuses: Vec<&str> = t.history.iter().map(|s| s.status.as_str()).collect();
        assert_eq!(statuses, ["working", "working", "completed"]);
        assert!(t.is_terminal());
    }

    #[test]
    fn history_is_bounded_and_counts_what_it_dropped() {
        let mut t = TaskView::new(&state("working", Some("0")), 0);
        for i in 1..=MAX_HISTORY as u64 + 9 {
            t.report(&state("working", Some(&i.to_string())), i, "tasks/get");
        }
        assert_eq!(t.history.len(), MAX_HISTORY);
        assert_eq!(t.dropped, 10);
        assert_eq!(t.history[0].source, "created");
        assert_eq!(
            t.history.last().unwrap().message.as_deref(),
            Some(&*(MAX_HISTORY as u64 + 9).to_string())
        );
    }

    #[test]
    fn timeline_summaries() {
        assert_eq!(
            summary(r#"{"task":{"taskId":"0f8c2a6e-1111","status":"working"}}"#).as_deref(),
            Some("created working · task 0f8c2a6e…")
        );
        assert_eq!(
            summary(r#"{"taskId":"t1","status":"input_required","statusMessage":"Which?"}"#)
                .as_deref(),
            Some("input_required · Which? · task t1")
        );
        assert_eq!(summary(r#"{"taskId":"t1"}"#).as_deref(), Some("task t1"));
        assert_eq!(summary(r#"{"content":[]}"#), None);
    }

    #[test]
    fn short_ids() {
        let mut t = TaskView::new(&state("working", None), 0);
        assert_eq!(t.short_id(), "t");
        t.id = "0f8c2a6e-1111-2222-3333-444455556666".into();
        assert_eq!(t.short_id(), "0f8c2a6e…");
    }
}
