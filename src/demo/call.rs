//! One `tools/call` as its own task: the context a tool runs with (progress,
//! logs, elicitation, all behind the call's gate) and the task's life cycle
//! from registration to response.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use serde_json::{Map, Value, json};

use super::era::Modern;
use super::out::{Link, Out, notification_line, request_line, response_line};
use super::progress::Progress;
use super::session::{Level, Session, id_key};
use super::tools::{Outcome, Tool};

/// Why a server→client request got no result; the fixtures quote the text
/// to the client.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    /// A stateless (2026-07-28) call has no session to carry the answer.
    #[error("{0} cannot be asked mid-call in the 2026-07-28 era (it uses input_required)")]
    Stateless(String),
    #[error("the call was cancelled")]
    Cancelled,
    /// The client answered with an error: its message.
    #[error("{0}")]
    Refused(String),
    #[error("the session ended")]
    Ended,
}

pub struct Call {
    session: Arc<Session>,
    /// Set for a 2026-07-28 request: its own log level, no elicitation requests.
    era: Option<Modern>,
    link: Link,
    token: Option<Value>,
    progress: Progress,
    id: Value,
    /// Set by fault tools that write their own response (or several).
    responded: AtomicBool,
}

/// Start `tool` for request `id`. Errs (with the JSON-RPC error to send) when
/// the id is already in use by a running call.
pub fn spawn(
    session: &Arc<Session>,
    out: &Out,
    id: Value,
    tool: Tool,
    args: Map<String, Value>,
    token: Option<Value>,
    era: Option<Modern>,
) -> Result<(), &'static str> {
    let key = id_key(&id);
    let gate = session
        .begin_call(&key)
        .ok_or("request id is already in use by a running call")?;
    let link = Link::new(out.clone(), gate.clone());
    let call = Call {
        session: session.clone(),
        era,
        progress: Progress::new(token.clone(), link.clone()),
        link,
        token,
        id: id.clone(),
        responded: AtomicBool::new(false),
    };
    let task_gate = gate.clone();
    let task_key = key.clone();
    let task = tokio::spawn(async move {
        let outcome = CatchPanic(Box::pin(tool.run(&call, &args)))
            .await
            .unwrap_or_else(|()| Outcome::error(format!("{} failed internally", tool.name())));
        call.progress.finish();
        if !call.responded.load(Ordering::SeqCst) {
            let result = super::era::complete(&call.era, outcome.into_result());
            call.link.send(response_line(&id, result));
        }
        call.session.end_call(&task_key, &task_gate);
    });
    session.attach_task(&key, &gate, task.abort_handle());
    Ok(())
}

impl Call {
    /// The request's progressToken, exactly as received.
    pub fn token(&self) -> Option<&Value> {
        self.token.as_ref()
    }

    pub fn link(&self) -> &Link {
        &self.link
    }

    /// The request id, exactly as received.
    pub fn id(&self) -> &Value {
        &self.id
    }

    /// Fault tools: write lines as they are, past the rate limiter and the
    /// log filter (still behind the cancellation gate).
    pub fn send_raw(&self, lines: Vec<u8>) -> bool {
        self.link.send(lines)
    }

    /// Fault tools: the tool writes the response itself; the outcome it
    /// returns is not sent.
    pub fn take_over_response(&self) {
        self.responded.store(true, Ordering::SeqCst);
    }

    /// Fault tools: answer now, while the tool keeps running.
    pub fn respond_now(&self, result: Value) {
        self.respond_now_then(result, Vec::new());
    }

    /// Fault tools: answer now and queue `after` (whole lines) behind the
    /// answer in one step, so a cancellation (the client hanging up as
    /// soon as it has the answer) cannot come between them.
    pub fn respond_now_then(&self, result: Value, after: Vec<u8>) {
        self.take_over_response();
        let mut lines = response_line(&self.id, result);
        lines.extend(after);
        self.link.send(lines);
    }

    /// Rate-limited progress; ignored without a token or when not increasing.
    pub fn progress(&self, progress: u64, total: Option<u64>, message: impl Into<String>) {
        self.progress.update(progress, total, Some(message.into()));
    }

    /// `notifications/message`, if the client's log level lets it through.
    pub fn log(&self, level: Level, logger: &str, data: impl Into<Value>) {
        let wanted = match &self.era {
            // 2026-07-28: logs only for a request that asked, at its level.
            Some(m) => m.log_level.is_some_and(|min| level as u8 >= min as u8),
            None => self.session.logs(level),
        };
        if wanted {
            self.link.send(notification_line(
                "notifications/message",
                json!({"level": level.as_str(), "logger": logger, "data": data.into()}),
            ));
        }
    }

    /// What a 2026-07-28 request said about itself; `None` in the
    /// handshake era.
    pub fn modern(&self) -> Option<&super::era::Modern> {
        self.era.as_ref()
    }

    pub fn supports_elicitation(&self) -> bool {
        // The stateless era has no mid-call server requests (it has input_required).
        self.era.is_none() && self.session.supports_elicitation()
    }

    /// Send `elicitation/create` and wait for the client's result object;
    /// `None` when the client answered with an error or the call is gone.
    pub async fn elicit(&self, params: Value) -> Option<Value> {
        self.ask("elicitation/create", params).await.ok()
    }

    /// Send a server→client request and wait for its result; `Err` carries
    /// the client's error message, or says the call is gone.
    pub async fn ask(&self, method: &str, params: Value) -> Result<Value, AskError> {
        if self.era.is_some() {
            // A stateless request has no session to carry the client's
            // answer back: asking would wait forever.
            return Err(AskError::Stateless(method.to_string()));
        }
        let id = self.session.next_request_id();
        // Registered before sending: the answer may beat us back.
        let reply = self.session.expect_reply(&id);
        if !self.link.send(request_line(&id, method, params)) {
            self.session.forget_reply(&id);
            return Err(AskError::Cancelled);
        }
        let _asked = Asked {
            session: &self.session,
            id: &id,
        };
        match reply.await {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(AskError::Refused(
                error
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| error.to_string(), str::to_owned),
            )),
            Err(_) => Err(AskError::Ended),
        }
    }
}

/// An elicitation the client has seen but not answered yet. Dropped
/// unanswered means this call was cancelled: withdraw the question, so the
/// client can close its prompt instead of waiting for a user who no longer
/// matters.
struct Asked<'a> {
    session: &'a Session,
    id: &'a str,
}

impl Drop for Asked<'_> {
    fn drop(&mut self) {
        if self.session.forget_reply(self.id) {
            self.session.out.send(notification_line(
                "notifications/cancelled",
                json!({"requestId": self.id, "reason": "the tool call was cancelled"}),
            ));
        }
    }
}

impl Outcome {
    pub fn into_result(self) -> Value {
        if let Some(raw) = self.raw {
            return raw;
        }
        let mut result = json!({
            "content": [{"type": "text", "text": self.text}],
            "isError": self.is_error,
        });
        if let (Some(structured), Value::Object(map)) = (self.structured, &mut result) {
            map.insert("structuredContent".into(), structured);
        }
        result
    }
}

/// A bug in a tool becomes an error result instead of a request the client
/// waits on forever (the panic message still reaches stderr via the hook).
/// In a build that aborts on panic (the shipped binaries' `ship` profile)
/// nothing is caught: the demo server ends, and the client reports the
/// server's exit as it would any other server's.
struct CatchPanic<F>(Pin<Box<F>>);

impl<F: Future> Future for CatchPanic<F> {
    type Output = Result<F::Output, ()>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = self.0.as_mut();
        match catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(Poll::Ready(value)) => Poll::Ready(Ok(value)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(_) => Poll::Ready(Err(())),
        }
    }
}
