//! The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`): the
//! client declares it in every stateless request's capabilities, so a
//! server may answer a `tools/call` with a task handle (`resultType:
//! "task"`) instead of the result. The handle is followed with `tasks/get`
//! at the task's `pollIntervalMs` (bounded like the 2025-11-25 polls) until
//! the task is terminal, whose answer carries the tool's result (or the
//! JSON-RPC error); there is no blocking `tasks/result`. A task in
//! `input_required` lists `inputRequests`, answered with `tasks/update`:
//! here from `--elicit`/`--sample`, in the TUI through its forms.

use super::listen::TaskPushes;
use super::tasks::{MAX_POLL, MIN_POLL};
use super::timeout::Expiry;
use super::{ClientError, Limits, Reply, Session};
use crate::protocol::json_text::lenient_value;
use crate::protocol::methods;
use crate::protocol::task::{EXTENSION, TaskState, TaskStatus};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// Input request keys remembered per task (answered ones are not asked twice).
const MAX_KEYS: usize = 1024;
/// The poll interval when the task suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(1000);

/// Is this reply a task of the extension still waiting for input (the
/// call's reply when nobody could give it)?
pub fn is_waiting_for_input(result: &Value) -> bool {
    TaskState::parse(result).is_some_and(|t| t.status == TaskStatus::InputRequired)
}

/// The `inputRequests` of a task that needs input, in the server's order.
pub fn input_requests(task: &Value) -> Vec<(String, Value)> {
    task.get("inputRequests")
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

fn poll_of(s: &TaskState) -> Option<Duration> {
    s.poll_ms
        .map(|ms| Duration::from_millis(ms).clamp(MIN_POLL, MAX_POLL))
}

impl Session {
    /// Does the server speak the extension (`capabilities.extensions`)?
    pub fn tasks_extension(&self) -> bool {
        self.server().is_some_and(|s| {
            s.capabilities
                .get("extensions")
                .and_then(|e| e.get(EXTENSION))
                .is_some_and(|v| !v.is_null())
        })
    }

    /// `tasks/update`: the answers to some of a task's `inputRequests`.
    pub async fn update_task(
        &self,
        task_id: &str,
        responses: Map<String, Value>,
    ) -> Result<Reply, ClientError> {
        let params = json!({"taskId": task_id, "inputResponses": responses});
        self.request(methods::TASKS_UPDATE, Some(params), self.setup_limits())
            .await
    }

    /// Follow a task handle to its end: the tool's result as the call's
    /// reply, its JSON-RPC error as the call's error.
    pub async fn follow_ext_task(
        &self,
        handle: &Reply,
        limits: Limits,
    ) -> Result<Reply, ClientError> {
        let Some(first) = TaskState::of_result(&handle.result) else {
            return Err(ClientError::Protocol(
                "the task handle (resultType \"task\") has no taskId and status".into(),
            ));
        };
        let id = first.task_id.clone();
        self.task
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(id.clone());
        let mut pushes = self.listen_task(&id).await;
        let out = self
            .poll_ext_task(first, handle, limits, pushes.as_mut())
            .await;
        if let Some(p) = pushes {
            self.close_task_stream(p);
        }
        self.task
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|t| *t != id);
        out
    }

    /// Poll at the task's interval; a status pushed on its listen stream
    /// (`pushes`) is taken at once, as a poll's answer would be.
    async fn poll_ext_task(
        &self,
        first: TaskState,
        handle: &Reply,
        limits: Limits,
        mut pushes: Option<&mut TaskPushes>,
    ) -> Result<Reply, ClientError> {
        let started = tokio::time::Instant::now();
        let params = json!({"taskId": first.task_id});
        let mut poll = poll_of(&first).unwrap_or(DEFAULT_POLL);
        // "Clients SHOULD deduplicate inputRequests keys across consecutive
        // polls" and "SHOULD track inputRequests keys to avoid responding to
        // requests more than once".
        let mut seen: HashSet<String> = HashSet::new();
        // The handle may be terminal already (a seed state need not be working).
        let mut current = handle.clone();
        loop {
            let state = TaskState::of_result(&current.result);
            match state.as_ref().map(|s| &s.status) {
                Some(TaskStatus::Completed) => return task_result(&current),
                Some(TaskStatus::Failed) => return Err(task_error(&current.result)),
                Some(TaskStatus::Cancelled) => {
                    return Err(ClientError::Protocol(format!(
                        "the task {} was cancelled{}",
                        first.task_id,
                        state
                            .and_then(|s| s.message)
                            .map(|m| format!(": {m}"))
                            .unwrap_or_default()
                    )));
                }
                Some(TaskStatus::InputRequired)
                    if !self
                        .answer_task_inputs(&first.task_id, &current.result, &mut seen)
                        .await? =>
                {
                    return Ok(current);
                }
                _ => {}
            }
            if let Some(p) = state.as_ref().and_then(poll_of) {
                poll = p;
            }
            if let Some(max) = limits.max
                && started.elapsed() + poll > max
            {
                let _ = self.cancel_task_nowait(&first.task_id);
                return Err(ClientError::Timeout {
                    method: methods::TOOLS_CALL.into(),
                    expiry: Expiry::Max,
                    secs: max.as_secs_f64(),
                });
            }
            if let Some(p) = pushes.as_deref_mut() {
                tokio::select! {
                    pushed = p.next(&self.trace) => {
                        current = pushed;
                        continue;
                    }
                    () = tokio::time::sleep(poll) => {}
                }
            } else {
                tokio::time::sleep(poll).await;
            }
            current = self
                .request(
                    methods::TASKS_GET,
                    Some(params.clone()),
                    self.setup_limits(),
                )
                .await?;
        }
    }

    /// Answer the new `inputRequests` of a task from the options. Where a
    /// user answers (the TUI), every request goes to the forms, which
    /// answer with `tasks/update` themselves: answering some here too would
    /// send a key twice. Input nobody here can give ends the
    /// following (false; the call's reply is then the `input_required`
    /// task, as an unanswered MRTR round is), and the task is cancelled: it
    /// would wait forever.
    async fn answer_task_inputs(
        &self,
        task_id: &str,
        task: &Value,
        seen: &mut HashSet<String>,
    ) -> Result<bool, ClientError> {
        if self.opts.ask_user {
            return Ok(true);
        }
        let mut responses = Map::new();
        for (key, req) in input_requests(task) {
            if seen.contains(&key) {
                continue;
            }
            if seen.len() < MAX_KEYS {
                seen.insert(key.clone());
            }
            let method = req.get("method").and_then(Value::as_str).unwrap_or("");
            let params = req.get("params").cloned().unwrap_or(Value::Null);
            match super::answer::answer(self, method, &params, (None, 0)) {
                Ok(answer) => {
                    responses.insert(key, answer);
                }
                Err(_) => {
                    let _ = self.cancel_task_nowait(task_id);
                    return Ok(false);
                }
            }
        }
        if !responses.is_empty() {
            self.update_task(task_id, responses).await?;
        }
        Ok(true)
    }
}

/// The tool's result out of a completed task, with its text as the server
/// wrote it.
fn task_result(task: &Reply) -> Result<Reply, ClientError> {
    let raw = serde_json::from_str::<HashMap<&str, &RawValue>>(&task.raw)
        .ok()
        .and_then(|m| m.get("result").map(|r| r.get().to_string()));
    let Some(raw) = raw else {
        return Err(ClientError::Protocol(
            "the task completed without a result".into(),
        ));
    };
    let (result, out_of_range) =
        lenient_value(&raw).map_err(|e| ClientError::Protocol(e.to_string()))?;
    if !result.is_object() {
        return Err(ClientError::Protocol(
            "the completed task's result is not an object".into(),
        ));
    }
    Ok(Reply {
        seq: task.seq,
        result,
        raw: raw.into(),
        out_of_range,
    })
}

/// The JSON-RPC error a failed task carries, as the call's error.
fn task_error(task: &Value) -> ClientError {
    let error = task.get("error");
    let message = error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .or_else(|| task.get("statusMessage").and_then(Value::as_str))
        .unwrap_or("the task failed")
        .to_string();
    ClientError::Rpc {
        method: methods::TOOLS_CALL.into(),
        code: error
            .and_then(|e| e.get("code"))
            .and_then(Value::as_i64)
            .unwrap_or(0),
        message,
        data: error.and_then(|e| e.get("data")).cloned(),
    }
}
