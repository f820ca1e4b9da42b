//! What `tasks/*` frames do to the call a task runs: its status, the end
//! a terminal status or `tasks/result` brings, and its input rounds (the
//! tasks extension: a status asks, `tasks/update` answers, the next
//! status resumes it).

use super::{Calls, ToolCall, task_update};
use crate::calls::input::{InputNeeded, Step, StepKind};
use crate::calls::status::{CallStatus, safe_note};
use crate::calls::tasks::{self, TaskNews};
use crate::protocol::task::{TaskState, TaskStatus};
use crate::trace::EventRef;
use serde_json::Value;

impl Calls {
    /// What a `tasks/*` frame says about a call's task.
    pub(super) fn task_event(&mut self, ev: &EventRef<'_>) {
        if let Some(task_id) = task_update(ev) {
            let id = ev.frame().id;
            if let Some(c) = self.task_call(&task_id)
                && c.task.as_ref().is_some_and(|t| !t.is_terminal())
            {
                c.steps.push(Step {
                    kind: StepKind::Answered,
                    seq: ev.seq,
                    t_us: ev.t_us,
                    by: id,
                });
            }
            return;
        }
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
        if c.task.is_none() {
            return;
        }
        match news {
            TaskNews::Status(s, source, detail) => status(c, &s, source, detail, ev),
            TaskNews::Result(r) => result(c, r, ev),
        }
    }
}

/// A status report for the call's task.
fn status(
    c: &mut ToolCall,
    s: &TaskState,
    source: &'static str,
    detail: Option<Value>,
    ev: &EventRef<'_>,
) {
    let Some(task) = c.task.as_mut() else {
        return;
    };
    if !c.status.is_running() {
        tasks::report(task, s, ev.t_us, source);
        return;
    }
    let waiting = s.status == TaskStatus::InputRequired;
    if let Some(d) = detail.as_ref().filter(|_| waiting) {
        asked(c, d, ev);
    } else if let Some(input) = c.input.as_mut().filter(|i| i.task.is_some())
        && input.answered_by.is_none()
    {
        // The task moved on: its questions are answered (or withdrawn),
        // and their forms go.
        input.answered_by = Some(c.id.clone());
        c.steps.push(Step {
            kind: StepKind::Resumed,
            seq: ev.seq,
            t_us: ev.t_us,
            by: None,
        });
    }
    let Some(task) = c.task.as_mut() else {
        return;
    };
    if s.status == TaskStatus::Completed
        && let Some(result) = detail.as_ref().and_then(|d| d.get("result"))
    {
        // The extension: the answer that says completed carries the
        // tool's result.
        tasks::report(task, s, ev.t_us, source);
        c.end_us = Some(ev.t_us);
        c.status = outcome(result);
        return;
    }
    if !tasks::report(task, s, ev.t_us, source) {
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
        c.note = format!("task failed: {}", safe_note(e));
    } else if c.note.is_empty() && task.message.is_none() {
        c.note = format!("task {}", s.status);
    }
}

/// A waiting task's input requests: the new ones are a round
/// (repeated polls repeat the old ones).
fn asked(c: &mut ToolCall, detail: &Value, ev: &EventRef<'_>) {
    let Some(task) = c.task.as_mut() else {
        return;
    };
    let mut input = InputNeeded::parse(detail, ev.seq);
    input.asks.retain(|a| !task.asked.contains(&a.key));
    if input.asks.is_empty() {
        return;
    }
    for a in &input.asks {
        if task.asked.len() < tasks::MAX_ASKED {
            task.asked.push(a.key.clone());
        }
    }
    input.task = Some(task.id.clone());
    c.input = Some(input);
    c.steps.push(Step {
        kind: StepKind::Asked,
        seq: ev.seq,
        t_us: ev.t_us,
        by: None,
    });
}

/// The answer to `tasks/result` for the call's task.
fn result(c: &mut ToolCall, r: Result<Value, String>, ev: &EventRef<'_>) {
    let Some(task) = c.task.as_mut() else {
        return;
    };
    if !c.status.is_running() {
        return;
    }
    c.end_us = Some(ev.t_us);
    match r {
        Ok(v) => {
            if !task.is_terminal() {
                let done = TaskState {
                    task_id: task.id.clone(),
                    status: TaskStatus::Completed,
                    message: None,
                    poll_ms: None,
                };
                tasks::report(task, &done, ev.t_us, "tasks/result");
            }
            c.status = outcome(&v);
        }
        Err(why) => {
            c.status = CallStatus::RpcError;
            if c.note.is_empty() {
                c.note = format!("tasks/result: {why}");
            }
        }
    }
}

/// A tool's result: done, or an error it reported.
fn outcome(result: &Value) -> CallStatus {
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        CallStatus::ToolError
    } else {
        CallStatus::Done
    }
}
