//! Answers to server→client requests: `ping`, `roots/list`,
//! `elicitation/create`, `sampling/createMessage`; anything else gets -32601. Every answer goes through
//! the trace like any other frame.

use super::{ElicitMode, SampleMode, Session, client_tasks};
use crate::event::Event;
use crate::protocol::IdKey;
use crate::protocol::elicit;
use crate::protocol::methods::{self, codes};
use crate::protocol::schema::{Blanks, Fields, Sampler};
use serde_json::{Value, json};
use std::sync::Weak;
use tokio::sync::mpsc;

pub async fn serve(session: Weak<Session>, mut rx: mpsc::Receiver<(IdKey, u64)>) {
    while let Some((id, seq)) = rx.recv().await {
        let Some(s) = session.upgrade() else { return };
        let (method, params) = {
            let store = s.trace.read();
            let Some(ev) = store.get(seq) else { continue };
            let v: Value = serde_json::from_slice(ev.bytes).unwrap_or(Value::Null);
            (
                v.get("method")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                v.get("params").cloned().unwrap_or(Value::Null),
            )
        };
        if s.for_the_user(&method) {
            // Run as a task: created working at once, completed by the
            // user's answer (the response was the `CreateTaskResult`).
            if let Some(task) = params.get("task")
                && client_tasks::runs_as_task(&method)
                && s.client_tasks_declared()
            {
                let created = s.client_tasks.create_working(task.get("ttl"), id.clone());
                let _ = s.send_response(&id, Ok(created));
            }
            let raw = s
                .trace
                .read()
                .get(seq)
                .map(|e| String::from_utf8_lossy(e.bytes).into_owned())
                .unwrap_or_default();
            let ask = ServerAsk {
                id: id.clone(),
                seq,
                method: method.clone(),
                params: params.clone(),
                raw,
            };
            let now = s.trace.now_us();
            match s.asks_tx.as_ref().map(|tx| tx.try_send(ask)) {
                Some(Ok(())) => {
                    s.user_wait().asked(id, now);
                    continue;
                }
                _ => {
                    let why =
                        format!("too many requests are waiting for the user (at most {MAX_ASKS})");
                    let _ = s.answer_server(&id, Err((codes::INTERNAL_ERROR, why)));
                    continue;
                }
            }
        }
        if let Some(sends) = s.client_tasks.answer(&method, &params, &id) {
            s.send_task_sends(sends);
            continue;
        }
        let a = answer(&s, &method, &params, (Some(&id), seq));
        let a = match params.get("task") {
            // Run as a task: created finished, fetched later.
            Some(task) if client_tasks::runs_as_task(&method) && s.client_tasks_declared() => {
                Ok(s.client_tasks.create(task.get("ttl"), a))
            }
            _ => a,
        };
        let _ = s.send_response(&id, a);
    }
}

/// Server requests waiting for the user at once; more are refused.
pub const MAX_ASKS: usize = 32;

/// A server request for the user to answer (elicitation, sampling).
#[derive(Debug, Clone)]
pub struct ServerAsk {
    pub id: IdKey,
    /// The request frame in the trace.
    pub seq: u64,
    pub method: String,
    pub params: Value,
    /// The frame as the server wrote it (the order of a form's fields).
    pub raw: String,
}

impl Session {
    /// Does `method` go to the user rather than to the options?
    fn for_the_user(&self, method: &str) -> bool {
        self.opts.ask_user
            && match method {
                methods::ELICIT => self.opts.elicit.is_none(),
                methods::SAMPLING => self.opts.sample.is_none(),
                _ => false,
            }
    }

    /// The requests for the user, once (the UI takes the receiver).
    pub fn take_asks(&self) -> Option<mpsc::Receiver<ServerAsk>> {
        self.asks_rx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// Send the user's answer to server request `id`: a result, or a
    /// JSON-RPC error `(code, message)`. A request that runs as a task was
    /// answered with its `CreateTaskResult`: the answer completes the task
    /// instead (its waiting `tasks/result` requests get it, and the server
    /// is told the new status).
    pub fn answer_server(
        &self,
        id: &IdKey,
        answer: Result<Value, (i64, String)>,
    ) -> Result<u64, super::ClientError> {
        self.user_wait().answered(id, self.trace.now_us());
        if self.client_tasks.runs(id) {
            return match self.client_tasks.complete(id, answer) {
                Some(sends) if sends.status.is_some() => Ok(self.send_task_sends(sends)),
                _ => Err(super::ClientError::Protocol(
                    "the server ended that task already".into(),
                )),
            };
        }
        self.send_response(id, answer)
    }

    fn user_wait(&self) -> std::sync::MutexGuard<'_, super::user_wait::UserWait> {
        self.user_wait.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How long (µs) server requests have waited for the user so far.
    pub(super) fn user_paused_us(&self) -> u64 {
        let now = self.trace.now_us();
        let store = self.trace.read();
        self.user_wait().paused_us(&store, now)
    }

    /// Send the responses and the status notification a task change
    /// produced; the seq of the last frame sent (0 when none was).
    fn send_task_sends(&self, sends: client_tasks::Sends) -> u64 {
        let mut last = 0;
        for (id, outcome) in sends.replies {
            last = self.send_response(&id, outcome).unwrap_or(last);
        }
        if let Some(task) = sends.status {
            let msg = json!({"jsonrpc": "2.0", "method": methods::TASKS_STATUS, "params": task});
            last = self.send_frame(&msg).unwrap_or(last);
        }
        last
    }

    fn send_response(
        &self,
        id: &IdKey,
        answer: Result<Value, (i64, String)>,
    ) -> Result<u64, super::ClientError> {
        let mut msg = json!({"jsonrpc": "2.0", "id": id.to_value()});
        match answer {
            Ok(result) => msg["result"] = result,
            Err((code, message)) => msg["error"] = json!({"code": code, "message": message}),
        }
        self.send_frame(&msg)
    }
}

/// The answer to a server request `method` with `params`, as the options
/// say; `from` names the request (none for an `inputRequests` entry) and
/// the seq of the frame that asked (0 when none is known).
pub(super) fn answer(
    s: &Session,
    method: &str,
    params: &Value,
    from: (Option<&IdKey>, u64),
) -> Result<Value, (i64, String)> {
    let opts = s.options();
    match method {
        methods::PING => Ok(json!({})),
        methods::ROOTS_LIST if opts.ask_user || !opts.roots.is_empty() => Ok(roots(&s.roots())),
        methods::ELICIT => match &opts.elicit {
            Some(ElicitMode::Decline) => Ok(json!({"action": "decline"})),
            Some(ElicitMode::Defaults) => Ok(defaults_answer(s, method, params, from)),
            Some(ElicitMode::Accept(content)) => {
                if params.get("mode").and_then(Value::as_str) == Some("url") {
                    // A URL elicitation has no content: accepting means the
                    // user goes there; headless, nobody will.
                    return Ok(refuse(
                        s,
                        method,
                        from,
                        "a URL-mode elicitation cannot be accepted headless".into(),
                    ));
                }
                let schema = params.get("requestedSchema").unwrap_or(&Value::Null);
                match elicit::fit(schema, content) {
                    Ok(kept) => Ok(json!({"action": "accept", "content": kept})),
                    Err(problems) => Ok(refuse(
                        s,
                        method,
                        from,
                        format!(
                            "the --elicit accept content does not fit the requested schema: {}",
                            problems.join("; ")
                        ),
                    )),
                }
            }
            None => Err((
                codes::METHOD_NOT_FOUND,
                "elicitation is not enabled (use --elicit)".into(),
            )),
        },
        methods::SAMPLING => match &opts.sample {
            Some(SampleMode::Text(text)) => Ok(json!({
                "role": "assistant",
                "content": {"type": "text", "text": text},
                "model": "mcpscope",
                "stopReason": "endTurn",
            })),
            // The spec's example of a user rejecting a sampling request.
            Some(SampleMode::Decline) => Err((-1, "User rejected sampling request".into())),
            None => Err((
                codes::METHOD_NOT_FOUND,
                "sampling is not enabled (use --sample)".into(),
            )),
        },
        other => Err((
            codes::METHOD_NOT_FOUND,
            format!("mcpscope does not handle {other:?}"),
        )),
    }
}

/// Content that does not fit is never sent: the request is answered
/// `cancel` (the user gave no usable answer), and the trace says why.
fn refuse(s: &Session, method: &str, from: (Option<&IdKey>, u64), reason: String) -> Value {
    s.refused.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    record_refusal(s, method, from, reason, "cancel");
    json!({"action": "cancel"})
}

/// `--elicit defaults`: the schema's defaults, checked as `accept:` content
/// is. Defaults that cannot satisfy the schema (a required field without
/// one, a default outside its own bounds) are never sent: the request is
/// declined and the trace says why. Unlike content the user wrote, nothing
/// the user gave was wrong, and declining is an answer every server must
/// expect, so the run is not failed for it.
fn defaults_answer(
    s: &Session,
    method: &str,
    params: &Value,
    from: (Option<&IdKey>, u64),
) -> Value {
    let content = schema_defaults(params);
    if params.get("mode").and_then(Value::as_str) == Some("url") {
        // A URL elicitation has no form to fill: nothing to check.
        return json!({"action": "accept", "content": content});
    }
    let schema = params.get("requestedSchema").unwrap_or(&Value::Null);
    let checked = match &content {
        Value::Object(fields) => elicit::fit(schema, fields),
        _ => Err(vec![
            "the requested schema is not an object form".to_string(),
        ]),
    };
    match checked {
        Ok(kept) => json!({"action": "accept", "content": kept}),
        Err(problems) => {
            let reason = format!(
                "the requested schema's defaults do not satisfy it: {}",
                problems.join("; ")
            );
            record_refusal(s, method, from, reason, "decline");
            json!({"action": "decline"})
        }
    }
}

/// Say in the trace that a server request was answered `answered` instead
/// of as the options asked, and why (the printers show it).
fn record_refusal(
    s: &Session,
    method: &str,
    from: (Option<&IdKey>, u64),
    reason: String,
    answered: &str,
) {
    s.meta(Event::AnswerRefused {
        request: from.0.map_or(Value::Null, IdKey::to_value),
        seq: from.1,
        method: method.to_string(),
        reason,
        answered: answered.into(),
    });
}

/// A `roots/list` result from `--root` values.
pub(super) fn roots(roots: &[String]) -> Value {
    json!({"roots": roots.iter().map(|r| root_entry(r)).collect::<Vec<_>>()})
}

fn root_entry(r: &str) -> Value {
    if r.contains("://") {
        return json!({"uri": r});
    }
    let path = std::fs::canonicalize(r).unwrap_or_else(|_| r.into());
    let name = path.file_name().map(|n| n.to_string_lossy().to_string());
    json!({"uri": format!("file://{}", path.display()), "name": name})
}

/// An elicitation accepted without asking anyone (`--elicit defaults`): the
/// `default` of each property in `requestedSchema`, nothing invented.
pub(super) fn schema_defaults(params: &Value) -> Value {
    const DEFAULTS: Sampler = Sampler {
        fields: Fields::DefaultsOnly,
        nested: Fields::DefaultsOnly,
        // Never used: only properties with a default get a value.
        blanks: Blanks {
            string: "",
            number: 0,
            boolean: false,
            honour_const: false,
            untyped_as_string: false,
        },
    };
    DEFAULTS.sample(params.get("requestedSchema").unwrap_or(&Value::Null))
}
