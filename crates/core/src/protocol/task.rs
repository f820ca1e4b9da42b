//! The one task model: a `Task` object as both task revisions send it, and
//! its status. 2025-11-25 answers a task-augmented request with a
//! `CreateTaskResult` (`{task: {taskId, status, …}}`); the 2026-07-28 tasks
//! extension answers with the task itself as a handle (`{resultType:
//! "task", taskId, status, …}`). `tasks/get` and `tasks/cancel` answers and
//! the status notifications (`notifications/tasks/status`, the extension's
//! `notifications/tasks`) carry the bare object. Every reader parses task
//! objects here, so a status is read in one place.

use super::meta::ResultType;
use serde_json::Value;
use std::fmt;

/// The 2026-07-28 tasks extension's id (`capabilities.extensions`).
pub const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// A task's status. A status neither revision defines is kept as sent
/// (`Unknown`): the checks report it and the faces show it, never drop it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
    Unknown(String),
}

impl TaskStatus {
    pub fn parse(s: &str) -> TaskStatus {
        match s {
            "working" => TaskStatus::Working,
            "input_required" => TaskStatus::InputRequired,
            "completed" => TaskStatus::Completed,
            "failed" => TaskStatus::Failed,
            "cancelled" => TaskStatus::Cancelled,
            other => TaskStatus::Unknown(other.to_string()),
        }
    }

    /// The word on the wire (an unknown status as it was sent).
    pub fn as_str(&self) -> &str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
            TaskStatus::Unknown(s) => s,
        }
    }

    /// A status a task never leaves (both revisions use these words).
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// The same status with an unknown word passed through `f` (a face
    /// sanitising what it shows).
    pub fn map_unknown(&self, f: impl FnOnce(&str) -> String) -> TaskStatus {
        match self {
            TaskStatus::Unknown(s) => TaskStatus::Unknown(f(s)),
            known => known.clone(),
        }
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, not `write_str`: a column format (`{:<15}`) applies.
        f.pad(self.as_str())
    }
}

/// A status equals the word it reads as on the wire.
impl PartialEq<str> for TaskStatus {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for TaskStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// A task as one report gives it (`Task` object: `{taskId, status,
/// statusMessage?, pollInterval?}`).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskState {
    pub task_id: String,
    pub status: TaskStatus,
    pub message: Option<String>,
    pub poll_ms: Option<u64>,
}

impl TaskState {
    /// From a `Task` object: a `tasks/get` or `tasks/cancel` answer, the
    /// extension's handle, or a status notification's params. `None` unless
    /// `taskId` and `status` are strings.
    pub fn parse(v: &Value) -> Option<TaskState> {
        Some(TaskState {
            task_id: v.get("taskId")?.as_str()?.to_string(),
            status: TaskStatus::parse(v.get("status")?.as_str()?),
            message: v
                .get("statusMessage")
                .and_then(Value::as_str)
                .map(str::to_string),
            // 2025-11-25 says `pollInterval`, the 2026-07-28 extension `pollIntervalMs`.
            poll_ms: v
                .get("pollInterval")
                .or_else(|| v.get("pollIntervalMs"))
                .and_then(Value::as_u64),
        })
    }

    /// From any result that reports a task: a `CreateTaskResult` (`{task:
    /// {...}}`) or a bare `Task` object.
    pub fn of_result(result: &Value) -> Option<TaskState> {
        TaskState::parse(result.get("task").unwrap_or(result))
    }

    /// From the params of a status notification (either revision).
    pub fn of_notification(params: &Value) -> Option<TaskState> {
        TaskState::parse(params)
    }

    /// The task a result creates, in either revision's shape; `None` for a
    /// `tasks/get` answer or any other result.
    pub fn created(result: &Value) -> Option<TaskState> {
        match result.get("task") {
            Some(task) => TaskState::parse(task),
            None if is_handle(result) => TaskState::parse(result),
            None => None,
        }
    }

    pub fn is_terminal(&self) -> bool {
        self.status.is_terminal()
    }
}

/// Is this result the extension's task handle (`resultType: "task"`)?
pub fn is_handle(result: &Value) -> bool {
    ResultType::of(result) == Some(ResultType::Task)
}

/// Is this result a `CreateTaskResult` of either revision?
pub fn is_created(result: &Value) -> bool {
    result.get("task").is_some() || is_handle(result)
}

/// A cheap test on the text of a frame's result or params: every task
/// report names a `taskId`, and most frames do not.
pub fn may_report_task(raw: &str) -> bool {
    raw.contains("\"taskId\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ALL: [(&str, TaskStatus); 5] = [
        ("working", TaskStatus::Working),
        ("input_required", TaskStatus::InputRequired),
        ("completed", TaskStatus::Completed),
        ("failed", TaskStatus::Failed),
        ("cancelled", TaskStatus::Cancelled),
    ];

    #[test]
    fn every_status_reads_back_as_sent() {
        for (word, status) in ALL {
            let parsed = TaskStatus::parse(word);
            assert_eq!(parsed, status);
            assert_eq!(parsed.as_str(), word);
            assert_eq!(parsed.to_string(), word);
            assert_eq!(parsed, word);
            assert_eq!(format!("{parsed:<16}|"), format!("{word:<16}|"));
            assert_eq!(
                parsed.is_terminal(),
                matches!(word, "completed" | "failed" | "cancelled")
            );
        }
    }

    #[test]
    fn an_unknown_status_is_kept() {
        let s = TaskStatus::parse("paused");
        assert_eq!(s, TaskStatus::Unknown("paused".into()));
        assert_eq!(s.as_str(), "paused");
        assert!(!s.is_terminal());
        assert_eq!(
            s.map_unknown(|w| w.to_uppercase()),
            TaskStatus::Unknown("PAUSED".into())
        );
        assert_eq!(
            TaskStatus::Working.map_unknown(|_| unreachable!()),
            TaskStatus::Working
        );
        let t = TaskState::parse(&json!({"taskId": "t", "status": "Completed"})).unwrap();
        assert_eq!(t.status, TaskStatus::Unknown("Completed".into()));
    }

    #[test]
    fn the_2025_11_25_create_task_result() {
        let created = json!({"task": {"taskId": "t1", "status": "working", "pollInterval": 250,
            "createdAt": "2025-11-25T10:30:00Z"}});
        let want = TaskState {
            task_id: "t1".into(),
            status: TaskStatus::Working,
            message: None,
            poll_ms: Some(250),
        };
        assert_eq!(TaskState::created(&created), Some(want.clone()));
        assert_eq!(TaskState::of_result(&created), Some(want));
        assert!(is_created(&created));
        assert!(!is_handle(&created));
    }

    #[test]
    fn the_2026_07_28_task_handle() {
        let handle = json!({"resultType": "task", "taskId": "t2", "status": "input_required",
            "statusMessage": "Which?", "pollIntervalMs": 500});
        let t = TaskState::created(&handle).unwrap();
        assert_eq!(t.task_id, "t2");
        assert_eq!(t.status, TaskStatus::InputRequired);
        assert_eq!(t.message.as_deref(), Some("Which?"));
        assert_eq!(t.poll_ms, Some(500));
        assert!(is_handle(&handle));
        assert!(is_created(&handle));
    }

    #[test]
    fn a_bare_task_object_reports_but_creates_nothing() {
        let got = json!({"taskId": "t1", "status": "failed", "statusMessage": "boom"});
        assert_eq!(TaskState::created(&got), None);
        let s = TaskState::of_result(&got).unwrap();
        assert!(s.is_terminal());
        assert_eq!(s.message.as_deref(), Some("boom"));
        let note = json!({"taskId": "t1", "status": "cancelled"});
        assert_eq!(
            TaskState::of_notification(&note).map(|t| t.status),
            Some(TaskStatus::Cancelled)
        );
    }

    #[test]
    fn malformed_objects_are_not_tasks() {
        for v in [
            json!({"content": []}),
            json!({"taskId": "t"}),
            json!({"status": "working"}),
            json!({"taskId": 7, "status": "working"}),
            json!({"taskId": "t", "status": null}),
            json!({"task": {"taskId": "t"}}),
            json!({"task": "t1"}),
            json!("working"),
            json!({"resultType": "task"}),
        ] {
            assert_eq!(TaskState::of_result(&v), None, "{v}");
            assert_eq!(TaskState::created(&v), None, "{v}");
        }
        // A `task` key that is no task object does not fall back to the outer one.
        let odd = json!({"task": 1, "taskId": "t", "status": "working"});
        assert_eq!(TaskState::created(&odd), None);
        assert!(may_report_task(r#"{"taskId":"t"}"#));
        assert!(!may_report_task(r#"{"content":[]}"#));
    }
}
