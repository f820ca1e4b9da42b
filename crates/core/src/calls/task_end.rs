//! A call answered by a task: its `CreateTaskResult` (2025-11-25 tasks, or
//! the 2026-07-28 extension's `resultType: "task"` handle) is not its end.
//! The call's progress token stays valid for the task's life, so its
//! notifications and duration run to the task's end, as the trace shows it.

use crate::protocol::task::{self, TaskState};
use crate::trace::{Dir, EventRef, Store};
use serde_json::Value;

/// The task a response created, if it is a task handle.
pub fn created_task(ev: &EventRef<'_>) -> Option<String> {
    let raw = ev.frame().result?;
    // Most responses are not task handles: skip the parse for them.
    if !task::may_report_task(raw.get()) {
        return None;
    }
    let v: Value = serde_json::from_str(raw.get()).ok()?;
    TaskState::created(&v).map(|t| t.task_id)
}

/// When task `task_id` ended, looking from seq `from` on: the answer to a
/// `tasks/result` for it, or the first terminal status reported for it (a
/// `tasks/get` or `tasks/cancel` answer, a status notification).
pub fn end_us(store: &Store, task_id: &str, from: u64) -> Option<u64> {
    let needle = format!("\"{task_id}\"");
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    for ev in store.range(from.max(store.first_seq()), store.next_seq()) {
        if ev.dir != Dir::In || finder.find(ev.bytes).is_none() {
            continue;
        }
        let f = ev.frame();
        let Some(body) = f.result.or(f.params) else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(body.get()) else {
            continue;
        };
        if ev.method == Some(crate::protocol::methods::TASKS_RESULT) && f.result.is_some() {
            return Some(ev.t_us);
        }
        // A status: the task itself, or wrapped in `task`.
        if TaskState::of_result(&v).is_some_and(|t| t.task_id == task_id && t.is_terminal()) {
            return Some(ev.t_us);
        }
    }
    None
}
