//! The tasks of a session as its frames report them, one fold for both
//! faces. A call answered with a `CreateTaskResult` (or the 2026-07-28
//! extension's handle, `resultType: "task"`) keeps running as its task,
//! whose status comes from `tasks/get` and `tasks/cancel` answers and the
//! status notifications (`notifications/tasks/status`, the extension's
//! `notifications/tasks`); the answer to `tasks/result` ends it (the
//! extension has none: its answer that says `completed` carries the
//! result, an `input_required` one the `inputRequests`). [`TaskLinks`]
//! turns those frames into news about a task, [`TaskView`] keeps a task's
//! status and its changes. Everything is read from the store, so a replayed
//! trace shows the same history; what is kept per task and the requests
//! waiting for an answer are bounded and counted. Texts are kept as shown:
//! one line, bounded (a server chooses them).

use crate::protocol::IdKey;
use crate::protocol::frame::FrameKind;
use crate::protocol::methods;
use crate::protocol::sanitize::one_line_max;
use crate::protocol::task::{TaskState, TaskStatus};
use crate::trace::{Dir, EventRef};
use serde_json::Value;
use std::collections::HashMap;

/// Characters of a status or message kept.
pub const TEXT_CHARS: usize = 400;

fn shown(s: &str) -> String {
    one_line_max(s, TEXT_CHARS)
}

/// A task id short enough for a row: long ids (UUIDs) keep their first 8.
pub fn short_id(id: &str) -> String {
    if id.chars().count() <= 10 {
        shown(id)
    } else {
        format!("{}…", shown(&id.chars().take(8).collect::<String>()))
    }
}

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
    pub status: TaskStatus,
    pub message: Option<String>,
    /// Where it was read: `created`, `tasks/get`, `tasks/cancel`,
    /// `notification`, `tasks/result`.
    pub source: &'static str,
}

/// A call's task, as last reported.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskView {
    pub id: String,
    /// As reported; an unknown word made safe to show.
    pub status: TaskStatus,
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
            status: TaskStatus::Unknown(String::new()),
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
        let message = s.message.as_deref().map(shown);
        let status = s.status.map_unknown(shown);
        if self.is_terminal() || (self.status == status && self.message == message) {
            return false;
        }
        self.status = status;
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
        self.status.is_terminal()
    }

    /// The id cut to fit a gauge row: long ids (UUIDs) keep their first 8.
    pub fn short_id(&self) -> String {
        short_id(&self.id)
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
                        (_, Some(e)) => Err(shown(
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
    TaskState::created(result).map(|s| TaskView::new(&s, t_us))
}

/// Take in a status report for `task`; true when it changed.
pub fn report(task: &mut TaskView, s: &TaskState, t_us: u64, source: &'static str) -> bool {
    task.report(s, t_us, source)
}

/// Tasks whose last status a [`TaskBook`] remembers; an older one is
/// forgotten (it may then be said twice, never lost).
pub const BOOK_TASKS: usize = 256;

/// The last status and message said per task, so a face that says each
/// change once (the headless `[task]` lines) says it once. Unlike a
/// [`TaskView`], every change counts, after a terminal status too: a task
/// that moves on from one is news.
#[derive(Debug, Default)]
pub struct TaskBook {
    said: Vec<(String, TaskStatus, Option<String>)>,
}

impl TaskBook {
    /// Take in a report; true when it changed what was said of its task.
    pub fn changed(&mut self, t: &TaskState) -> bool {
        match self.said.iter_mut().find(|(id, ..)| *id == t.task_id) {
            Some((_, status, message)) if *status == t.status && *message == t.message => false,
            Some((_, status, message)) => {
                *status = t.status.clone();
                message.clone_from(&t.message);
                true
            }
            None => {
                if self.said.len() >= BOOK_TASKS {
                    self.said.remove(0);
                }
                self.said
                    .push((t.task_id.clone(), t.status.clone(), t.message.clone()));
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(status: &str, msg: Option<&str>) -> TaskState {
        TaskState {
            task_id: "t".into(),
            status: TaskStatus::parse(status),
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
    fn short_ids() {
        let mut t = TaskView::new(&state("working", None), 0);
        assert_eq!(t.short_id(), "t");
        t.id = "0f8c2a6e-1111-2222-3333-444455556666".into();
        assert_eq!(t.short_id(), "0f8c2a6e…");
    }

    #[test]
    fn the_book_says_each_change_once() {
        let mut b = TaskBook::default();
        assert!(b.changed(&state("working", None)));
        assert!(!b.changed(&state("working", None)));
        assert!(b.changed(&state("working", Some("half"))));
        assert!(b.changed(&state("completed", None)));
        // A terminal status is not the end of what is said.
        assert!(b.changed(&state("working", None)));
        for i in 0..BOOK_TASKS {
            let mut t = state("working", None);
            t.task_id = format!("x{i}");
            b.changed(&t);
        }
        assert_eq!(b.said.len(), BOOK_TASKS);
        assert!(b.changed(&state("working", None)), "forgotten, said again");
    }

    #[test]
    fn links_turn_task_frames_into_news_about_their_task() {
        use crate::trace::{ManualClock, Store, Trace};
        let trace = Trace::new(Store::default(), ManualClock::new());
        let frames: &[(Dir, &str)] = &[
            (
                Dir::Out,
                r#"{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T"}}"#,
            ),
            (
                Dir::In,
                r#"{"jsonrpc":"2.0","id":2,"result":{"taskId":"T","status":"working","statusMessage":"half"}}"#,
            ),
            (
                Dir::In,
                r#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"T","status":"paused"}}"#,
            ),
            (
                Dir::Out,
                r#"{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"T"}}"#,
            ),
            (
                Dir::In,
                r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#,
            ),
            // An answer nobody asked for through tasks/* says nothing here.
            (
                Dir::In,
                r#"{"jsonrpc":"2.0","id":9,"result":{"taskId":"T","status":"failed"}}"#,
            ),
        ];
        trace.append(|s, now| {
            for (d, f) in frames {
                s.append_frame(*d, "stdio", now, f.as_bytes(), &mut Vec::new());
            }
        });
        let store = trace.read();
        let mut links = TaskLinks::default();
        let news: Vec<(String, TaskNews)> = store
            .range(store.first_seq(), store.next_seq())
            .filter_map(|ev| links.observe(&ev))
            .collect();
        assert_eq!(news.len(), 3, "{}", news.len());
        match &news[0] {
            (id, TaskNews::Status(s, source, None)) => {
                assert_eq!((id.as_str(), *source), ("T", methods::TASKS_GET));
                assert_eq!(s.status, TaskStatus::Working);
                assert_eq!(s.message.as_deref(), Some("half"));
            }
            _ => panic!("a tasks/get answer"),
        }
        match &news[1] {
            (_, TaskNews::Status(s, "notification", None)) => {
                assert_eq!(s.status, TaskStatus::Unknown("paused".into()));
            }
            _ => panic!("a status notification"),
        }
        assert!(matches!(&news[2], (_, TaskNews::Result(Ok(_)))));
    }
}
