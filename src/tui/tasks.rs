//! Tasks as the TUI shows them: the timeline's one-line summary of a task
//! frame, and what the tools list says about running a tool as a task (the
//! composer's toggle and its equivalent command line). The tasks
//! themselves, followed from the store, are `crate::calls::tasks`'s.

use super::format::safe_row;
use crate::protocol::task::{self as task_model, TaskState};
use serde_json::Value;

/// A timeline summary of a task frame: `working · msg · task 7f3a9c2e…` for
/// a Task object (a status notification, a `tasks/get` or `tasks/cancel`
/// answer, a `CreateTaskResult`), `task 7f3a9c2e…` for a request naming
/// one. `None` when the text is not such a thing.
pub fn summary(text: &str) -> Option<String> {
    if !task_model::may_report_task(text) {
        return None;
    }
    let v: Value = serde_json::from_str(text).ok()?;
    let short = crate::calls::tasks::short_id;
    if let Some(s) = TaskState::of_result(&v) {
        let msg = s
            .message
            .as_deref()
            .map(|m| format!(" · {}", safe_row(m)))
            .unwrap_or_default();
        let created = if task_model::is_created(&v) {
            "created "
        } else {
            ""
        };
        // The status first: the timeline's column is narrow.
        return Some(format!(
            "{created}{}{msg} · task {}",
            safe_row(s.status.as_str()),
            short(&s.task_id)
        ));
    }
    let id = v.get("taskId")?.as_str()?;
    Some(format!("task {}", short(id)))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
