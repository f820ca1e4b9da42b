//! Task fixtures (2025-11-25 tasks, handshake era), beyond the suite's own:
//! `test_task_with_progress` runs as a task the way the spec asks — its
//! progress goes on after the `CreateTaskResult` on the call's token, its
//! status moves `working` → `completed` — and `test_task_fault_after_terminal`
//! breaks the task rules on purpose: progress after the task completed, then
//! a status after that terminal one.
//!
//! Each script is written out at once, in order, behind the
//! `CreateTaskResult`, and the task is terminal when it is; so `tasks/get`
//! and `tasks/result` answer at once, and a client sees every frame of the
//! script before the task's result.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value, json};

use super::super::out::{Out, notification_line};
use super::super::session::Session;

pub const WITH_PROGRESS: &str = "test_task_with_progress";
pub const FAULT_AFTER_TERMINAL: &str = "test_task_fault_after_terminal";

const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
/// Finished tasks kept for `tasks/get` and `tasks/result`; older ones are
/// forgotten (as a receiver may, once their ttl passed).
const KEPT: usize = 256;
use crate::protocol::meta::{self, RELATED_TASK};

struct Entry {
    task: Value,
    result: Value,
}

/// The session's tasks, newest last.
#[derive(Default)]
pub struct TaskTable {
    entries: Mutex<VecDeque<Entry>>,
    next: AtomicU64,
}

impl TaskTable {
    fn insert(&self, task: Value, result: Value) {
        let mut e = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if e.len() == KEPT {
            e.pop_front();
        }
        e.push_back(Entry { task, result });
    }

    fn find<T>(&self, id: &str, f: impl FnOnce(&Entry) -> T) -> Option<T> {
        let e = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        e.iter().rev().find(|x| x.task["taskId"] == id).map(f)
    }
}

pub fn tool_descriptors() -> Vec<Value> {
    vec![
        json!({
            "name": WITH_PROGRESS,
            "title": "Conformance: task with progress",
            "description": "Runs as a task (optional): progress continues after the CreateTaskResult on the request's progressToken, and the status moves from working to completed",
            "inputSchema": {"type": "object", "properties": {}},
            "execution": {"taskSupport": "optional"},
        }),
        json!({
            "name": FAULT_AFTER_TERMINAL,
            "title": "Fault: task progress after terminal",
            "description": "Runs as a task (required) and breaks the task rules: progress after the task completed, then a working status after completed",
            "inputSchema": {"type": "object", "properties": {}},
            "execution": {"taskSupport": "required"},
        }),
    ]
}

/// `tools/call` of a task fixture; false when `name` is not one.
pub fn call(
    session: &Session,
    out: &Out,
    id: &Value,
    name: &str,
    params: &Map<String, Value>,
) -> bool {
    let fault = match name {
        WITH_PROGRESS => false,
        FAULT_AFTER_TERMINAL => true,
        _ => return false,
    };
    let token = params
        .get(meta::META)
        .and_then(|m| m.get(meta::PROGRESS_TOKEN))
        .filter(|t| t.is_string() || t.is_i64() || t.is_u64());
    let progress = |n: u64, total: u64, message: &str| {
        if let Some(token) = token {
            out.send(notification_line(
                "notifications/progress",
                json!({"progressToken": token, "progress": n, "total": total, "message": message}),
            ));
        }
    };
    if !params.get("task").is_some_and(Value::is_object) {
        if fault {
            // The spec's answer when a task-required tool is called plainly.
            out.error(
                id,
                METHOD_NOT_FOUND,
                &format!("{name} must be called as a task (execution.taskSupport is required)"),
            );
        } else {
            progress(1, 2, "halfway");
            progress(2, 2, "done");
            out.respond(id, result(name));
        }
        return true;
    }
    let n = session.tasks.next.fetch_add(1, Ordering::Relaxed) + 1;
    let task_id = format!("task-{n}");
    let created = crate::format::rfc3339_now();
    let task = |status: &str, message: &str| {
        json!({
            "taskId": task_id,
            "status": status,
            "statusMessage": message,
            "createdAt": created,
            "lastUpdatedAt": crate::format::rfc3339_now(),
            "ttl": null,
            "pollInterval": 500,
        })
    };
    let status = |status: &str, message: &str| {
        out.send(notification_line(
            "notifications/tasks/status",
            task(status, message),
        ));
    };
    out.respond(id, json!({"task": task("working", "started")}));
    if fault {
        progress(1, 3, "running");
        status("completed", "finished");
        progress(2, 3, "still running after completed");
        status("working", "running again after completed");
    } else {
        progress(1, 2, "halfway");
        status("working", "halfway there");
        progress(2, 2, "done");
        status("completed", "finished");
    }
    session
        .tasks
        .insert(task("completed", "finished"), result(name));
    true
}

fn result(name: &str) -> Value {
    json!({
        "content": [{"type": "text", "text": format!("{name} finished")}],
        "isError": false,
    })
}

/// `tasks/get`, `tasks/result`, `tasks/cancel`: `None` for other methods.
pub fn request(
    session: &Session,
    method: &str,
    params: &Map<String, Value>,
) -> Option<Result<Value, (i64, String)>> {
    if !matches!(method, "tasks/get" | "tasks/result" | "tasks/cancel") {
        return None;
    }
    let Some(id) = params.get("taskId").and_then(Value::as_str) else {
        return Some(Err((INVALID_PARAMS, "taskId must be a string".into())));
    };
    let found = session.tasks.find(id, |e| match method {
        "tasks/get" => Ok(e.task.clone()),
        "tasks/result" => {
            let mut r = e.result.clone();
            r[meta::META] = json!({RELATED_TASK: {"taskId": id}});
            Ok(r)
        }
        // Every task here is terminal by the time it can be named.
        _ => Err((
            INVALID_PARAMS,
            format!(
                "task {id} is already {}",
                e.task["status"].as_str().unwrap_or("terminal")
            ),
        )),
    });
    Some(found.unwrap_or_else(|| Err((INVALID_PARAMS, format!("no task {id}")))))
}
