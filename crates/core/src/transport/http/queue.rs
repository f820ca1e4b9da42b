//! The send queue: frames leave in the order the session queued them. Each
//! request gets its own POST task (and is remembered, so a cancel can close
//! its stream); a notification or response holds up the frames after it
//! until the server has taken it, since order carries meaning (initialized
//! before the first call, a cancel after its request).

use super::Inner;
use crate::event::Event;
use crate::protocol::IdKey;
use crate::protocol::frame::{FrameKind, classify};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// A frame as the session handed it over: its channel, its bytes, and the
/// extra headers its POST carries.
pub(super) type Queued = (String, Vec<u8>, Vec<(String, String)>);

/// How long a notification's POST may hold up the frames queued after it;
/// `MCPSCOPE_DELIVERY_WAIT_MS` shortens it for tests of a stalled server.
fn delivery_wait() -> Duration {
    static WAIT: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *WAIT.get_or_init(|| {
        std::env::var("MCPSCOPE_DELIVERY_WAIT_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(Duration::from_secs(10), Duration::from_millis)
    })
}

/// Sends frames in order. A notification or response waits for its 202 so the
/// next frame cannot overtake it; a request's stream is read in its own task.
pub(super) async fn dispatch(inner: Arc<Inner>, mut rx: mpsc::UnboundedReceiver<Queued>) {
    while let Some((channel, frame, headers)) = rx.recv().await {
        let (request_id, method) = {
            let f = classify(&frame);
            (
                (f.kind == FrameKind::Request)
                    .then(|| f.id.clone())
                    .flatten(),
                f.method.as_deref().map(str::to_string),
            )
        };
        let out = Outgoing {
            channel,
            frame,
            request_id,
            method,
            headers,
            delivered: None,
        };
        match out.request_id.clone() {
            Some(id) => {
                let task_inner = inner.clone();
                let handle = tokio::spawn(async move {
                    let done = out.request_id.clone();
                    let me = task_inner.clone();
                    task_inner.post(out).await;
                    if let Some(id) = done {
                        me.lock().running.remove(&id);
                    }
                });
                inner.lock().running.insert(id, handle.abort_handle());
            }
            None => {
                // Order matters (initialized before the first call, a cancel
                // after its request): wait until the server has this one —
                // its response headers — but never on its body, and not forever.
                let delivered = Arc::new(tokio::sync::Notify::new());
                let out = Outgoing {
                    delivered: Some(delivered.clone()),
                    ..out
                };
                let channel = out.channel.clone();
                tokio::spawn(inner.clone().post(out));
                let wait = delivery_wait();
                if tokio::time::timeout(wait, delivered.notified())
                    .await
                    .is_err()
                {
                    inner.meta(
                        &channel,
                        Event::SlowDelivery {
                            waited_ms: wait.as_millis() as u64,
                        },
                    );
                }
            }
        }
    }
}

/// One frame on its way out, with what the headers need to know about it.
#[derive(Clone)]
pub(super) struct Outgoing {
    pub(super) channel: String,
    pub(super) frame: Vec<u8>,
    pub(super) request_id: Option<IdKey>,
    pub(super) method: Option<String>,
    /// Sent besides the usual headers, as the session gave them.
    pub(super) headers: Vec<(String, String)>,
    /// Told when the server has answered the POST (headers or failure).
    pub(super) delivered: Option<Arc<tokio::sync::Notify>>,
}
