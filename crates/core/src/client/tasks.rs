//! Task-augmented `tools/call` (2025-11-25 tasks): the call answers with a
//! `CreateTaskResult`; the task is then followed to its end — `tasks/get`
//! at the server's `pollInterval` for its status, `tasks/result` for the
//! tool's result (it blocks until the task is terminal, and carries the
//! server's requests tied to the task, such as an elicitation while the task
//! is `input_required`). The call's progress token stays valid for the whole
//! task, so the one gauge follows it across the `CreateTaskResult`.

use super::{CallOutcome, ClientError, Limits, Reply, Session, TokenPolicy};
use crate::protocol::methods;
use crate::protocol::task::{self, TaskState};
use serde_json::{Value, json};
use std::time::Duration;

/// What a tool says about running as a task (`execution.taskSupport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    Forbidden,
    Optional,
    Required,
}

impl TaskSupport {
    /// From a `tools/list` entry; absent means forbidden.
    pub fn of_tool(tool: &Value) -> TaskSupport {
        match tool
            .pointer("/execution/taskSupport")
            .and_then(Value::as_str)
        {
            Some("required") => TaskSupport::Required,
            Some("optional") => TaskSupport::Optional,
            _ => TaskSupport::Forbidden,
        }
    }
}

/// The task a `CreateTaskResult` answering request `id` created, if one did
/// and it is not known to have ended: read from the trace.
pub fn created_task(store: &crate::trace::Store, id: &crate::protocol::IdKey) -> Option<String> {
    let mut task: Option<TaskState> = None;
    for ev in store.range(store.first_seq(), store.next_seq()) {
        if ev.dir != crate::trace::Dir::In {
            continue;
        }
        let f = ev.frame();
        let Some(raw) = f.result.filter(|r| task::may_report_task(r.get())) else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(raw.get()) else {
            continue;
        };
        match (&task, TaskState::of_result(&v)) {
            (None, Some(t)) if task::is_created(&v) && f.id.as_ref() == Some(id) => task = Some(t),
            // A later tasks/get answer for it may say it ended.
            (Some(cur), Some(t)) if t.task_id == cur.task_id => task = Some(t),
            _ => {}
        }
    }
    task.filter(|t| !t.is_terminal()).map(|t| t.task_id)
}

/// Polls no faster than this, whatever the server suggests.
pub(super) const MIN_POLL: Duration = Duration::from_millis(100);
/// Nor slower: the status line should move.
pub(super) const MAX_POLL: Duration = Duration::from_secs(30);
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// How long `tasks/result` may stay unanswered once the task is terminal
/// (its result is due at once then): past this the call ends with the
/// task's status instead of waiting for the maximum time.
const RESULT_GRACE: Duration = Duration::from_secs(5);

impl Session {
    /// Does the server accept task-augmented `tools/call`
    /// (`capabilities.tasks.requests.tools.call`)?
    pub fn tasks_for_tools(&self) -> bool {
        self.server().is_some_and(|s| {
            s.capabilities
                .get("tasks")
                .and_then(|t| t.pointer("/requests/tools/call"))
                .is_some_and(|v| !v.is_null())
        })
    }

    /// `tools/call` as a task: the request carries `task`; a
    /// `CreateTaskResult` is followed to the tool's result. A server that
    /// answers with the result at once is taken at its word.
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        args: &Value,
        policy: &TokenPolicy,
        limits: Limits,
    ) -> Result<CallOutcome, ClientError> {
        let (id, token) = self.prepare_call(policy);
        self.call_prepared_as_task(id, token, name, args, limits)
            .await
    }

    /// `call_tool_as_task` with the id and token chosen beforehand (a UI
    /// shows and cancels the call while it runs).
    pub async fn call_prepared_as_task(
        &self,
        id: crate::protocol::IdKey,
        token: Option<crate::protocol::IdKey>,
        name: &str,
        args: &Value,
        limits: Limits,
    ) -> Result<CallOutcome, ClientError> {
        if self.is_modern() {
            // The extension has no task request: the server decides, and a
            // handle it answers with is followed by `call_prepared`.
            return self.call_prepared(id, token, name, args, limits).await;
        }
        let mut params = self.call_params(name, args, token.as_ref());
        params["task"] = json!({});
        let reply = self
            .request_with_id(id.clone(), methods::TOOLS_CALL, Some(params), limits)
            .await?;
        let reply = match TaskState::of_result(&reply.result) {
            Some(task) if reply.result.get("task").is_some() => {
                self.follow_task(&task, limits).await?
            }
            _ => reply,
        };
        Ok(CallOutcome { id, token, reply })
    }

    /// Wait for a task's result: `tasks/result` (blocking on the server)
    /// while `tasks/get` polls its status, until the result comes.
    pub async fn follow_task(
        &self,
        task: &TaskState,
        limits: Limits,
    ) -> Result<Reply, ClientError> {
        self.task
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(task.task_id.clone());
        // The result may take as long as the task: only the hard cap applies
        // to it. The polls show the task is alive.
        let wait = Limits {
            idle: None,
            max: limits.max,
        };
        let params = json!({"taskId": task.task_id});
        let result_id = self.fresh_id();
        let result = self.request_with_id(
            result_id.clone(),
            methods::TASKS_RESULT,
            Some(params.clone()),
            wait,
        );
        tokio::pin!(result);
        let mut poll = task
            .poll_ms
            .map_or(DEFAULT_POLL, Duration::from_millis)
            .clamp(MIN_POLL, MAX_POLL);
        // The last status polled, and from when a terminal one was seen:
        // the result is then due at once, and a server that keeps it back
        // past the grace ends the call with the task's status.
        let mut last = task.clone();
        let mut ended = task.is_terminal().then(tokio::time::Instant::now);
        let mut polling = true;
        let out = loop {
            let grace_over = async {
                match ended {
                    Some(at) => tokio::time::sleep_until(at + RESULT_GRACE).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                r = &mut result => break r,
                () = grace_over => {
                    let _ = self.cancel(&result_id, "the task ended; its result never came");
                    break Err(ClientError::Protocol(format!(
                        "the task {} ended {}{}, but tasks/result got no answer within {} s",
                        last.task_id,
                        last.status,
                        last.message.as_deref().map(|m| format!(" ({m})")).unwrap_or_default(),
                        RESULT_GRACE.as_secs()
                    )));
                }
                _ = tokio::time::sleep(poll), if polling && ended.is_none() => {
                    match self.request(methods::TASKS_GET, Some(params.clone()), self.setup_limits()).await {
                        Ok(r) => {
                            if let Some(s) = TaskState::of_result(&r.result) {
                                if s.is_terminal() {
                                    ended = Some(tokio::time::Instant::now());
                                }
                                if let Some(ms) = s.poll_ms {
                                    poll = Duration::from_millis(ms).clamp(MIN_POLL, MAX_POLL);
                                }
                                last = s;
                            }
                        }
                        // A server without tasks/get still answers
                        // tasks/result: no more polls, and no grace either
                        // (nothing says the task ended).
                        Err(ClientError::Rpc { .. }) => polling = false,
                        Err(e) => break Err(e),
                    }
                }
            }
        };
        self.task
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|t| *t != task.task_id);
        out
    }

    /// The task being followed, if any (what an interrupt cancels); the
    /// latest when several calls follow one.
    pub fn current_task(&self) -> Option<String> {
        self.task
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .last()
            .cloned()
    }

    /// Every task a call is following now.
    pub fn followed_tasks(&self) -> Vec<String> {
        self.task.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// `tasks/cancel`, sent without waiting for its answer (on the way out).
    pub fn cancel_task_nowait(&self, task_id: &str) -> Result<u64, ClientError> {
        let id = self.fresh_id();
        let _rx = self.pending.register(id.clone());
        let msg = json!({"jsonrpc": "2.0", "id": id.to_value(), "method": methods::TASKS_CANCEL,
            "params": self.with_envelope(Some(json!({"taskId": task_id})))});
        self.send_frame(&msg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_support() {
        assert_eq!(
            TaskSupport::of_tool(&json!({"execution": {"taskSupport": "required"}})),
            TaskSupport::Required
        );
        assert_eq!(
            TaskSupport::of_tool(&json!({"execution": {"taskSupport": "optional"}})),
            TaskSupport::Optional
        );
        assert_eq!(TaskSupport::of_tool(&json!({})), TaskSupport::Forbidden);
    }
}
