//! Progress notifications for one call, rate-limited "latest wins".
//!
//! Tools report as often as they like; at most one notification per token
//! goes out every [`MIN_INTERVAL`]. An update arriving too early replaces the
//! pending one, and a timer sends it when the interval is over, so a slow
//! tool still shows its latest state without waiting for its next update.
//! [`Progress::finish`] flushes the pending update and disables the reporter;
//! the call sends its response only after that, which is what guarantees no
//! progress ever follows the response.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;

use super::out::{Link, notification_line};

pub const MIN_INTERVAL: Duration = Duration::from_millis(25);

struct Update {
    progress: u64,
    total: Option<u64>,
    message: Option<String>,
}

#[derive(Default)]
struct State {
    last_sent: Option<Instant>,
    /// Highest value accepted so far (sent or pending): progress must
    /// strictly increase, whatever a tool does.
    last_progress: Option<u64>,
    pending: Option<Update>,
    timer_armed: bool,
    finished: bool,
}

struct Limiter {
    token: Value,
    link: Link,
    state: Mutex<State>,
}

/// Reporter for one call; a no-op when the request carried no progressToken.
pub struct Progress {
    inner: Option<Arc<Limiter>>,
}

impl Progress {
    pub fn new(token: Option<Value>, link: Link) -> Self {
        Progress {
            inner: token.map(|token| {
                Arc::new(Limiter {
                    token,
                    link,
                    state: Mutex::new(State::default()),
                })
            }),
        }
    }

    pub fn update(&self, progress: u64, total: Option<u64>, message: Option<String>) {
        let Some(limiter) = &self.inner else { return };
        let mut state = limiter.lock();
        if state.finished || state.last_progress.is_some_and(|last| progress <= last) {
            return;
        }
        state.last_progress = Some(progress);
        let update = Update {
            progress,
            total,
            message,
        };
        let now = Instant::now();
        let due = state.last_sent.map(|t| t + MIN_INTERVAL);
        match due {
            Some(due) if now < due => {
                state.pending = Some(update);
                if !state.timer_armed {
                    state.timer_armed = true;
                    let limiter = limiter.clone();
                    tokio::spawn(async move {
                        tokio::time::sleep_until(due).await;
                        let mut state = limiter.lock();
                        state.timer_armed = false;
                        if !state.finished
                            && let Some(update) = state.pending.take()
                        {
                            limiter.send(&mut state, update);
                        }
                    });
                }
            }
            _ => {
                state.pending = None;
                limiter.send(&mut state, update);
            }
        }
    }

    /// Send whatever is pending right away, then ignore further updates.
    pub fn finish(&self) {
        let Some(limiter) = &self.inner else { return };
        let mut state = limiter.lock();
        if let Some(update) = state.pending.take() {
            limiter.send(&mut state, update);
        }
        state.finished = true;
    }
}

impl Limiter {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Called with the state locked, so the timer and the tool cannot reorder
    /// two notifications between deciding and enqueueing.
    fn send(&self, state: &mut State, update: Update) {
        let mut params = Map::new();
        params.insert("progressToken".into(), self.token.clone());
        params.insert("progress".into(), update.progress.into());
        if let Some(total) = update.total {
            params.insert("total".into(), total.into());
        }
        if let Some(message) = update.message {
            params.insert("message".into(), message.into());
        }
        self.link.send(notification_line(
            "notifications/progress",
            Value::Object(params),
        ));
        state.last_sent = Some(Instant::now());
    }
}
