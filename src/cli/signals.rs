//! The signals that end a headless command the way Ctrl-C does: SIGINT,
//! SIGTERM (`timeout`, CI cancellation, `docker stop`) and SIGHUP (the
//! terminal went away). Each cancels the call in flight and stops the server
//! before mcpscope exits with 128 + the signal number.

use crate::client::Session;
use crate::trace::Dir;
use tokio::signal::unix::{Signal, SignalKind, signal};

/// A stopping signal that arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop {
    pub name: &'static str,
    /// The exit code: 130, 143 or 129.
    pub code: i32,
    /// How the cancellation reason names it.
    pub reason: &'static str,
}

/// Handlers installed once, before anything is started: from then on these
/// signals no longer kill the process with the default action.
pub struct Signals {
    int: Option<Signal>,
    term: Option<Signal>,
    hup: Option<Signal>,
}

impl Signals {
    pub fn install() -> Signals {
        Signals {
            int: signal(SignalKind::interrupt()).ok(),
            term: signal(SignalKind::terminate()).ok(),
            hup: signal(SignalKind::hangup()).ok(),
        }
    }

    /// Resolves when one of the signals arrives.
    pub async fn recv(&mut self) -> Stop {
        async fn next(s: &mut Option<Signal>) {
            match s {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            _ = next(&mut self.int) => Stop { name: "SIGINT", code: 130, reason: "interrupted by the user (Ctrl-C)" },
            _ = next(&mut self.term) => Stop { name: "SIGTERM", code: 143, reason: "mcpscope received SIGTERM" },
            _ = next(&mut self.hup) => Stop { name: "SIGHUP", code: 129, reason: "mcpscope received SIGHUP" },
        }
    }
}

/// Cancel the call in flight (the last `tools/call` we sent, if its
/// response has not come) and say why on stderr.
pub fn cancel_in_flight(session: &Session, stop: Stop) {
    tracing::info!(signal = stop.name, "stopping on a signal");
    let last = {
        let store = session.trace().read();
        store
            .range(0, store.next_seq())
            .filter(|e| e.dir == Dir::Out && e.method == Some(crate::protocol::methods::TOOLS_CALL))
            .last()
            .and_then(|e| e.frame().id)
    };
    // A call running as a task was answered already: the task is what runs.
    // The trace says so even before the call's own code has read the answer.
    let task = session.current_task().or_else(|| {
        last.as_ref()
            .and_then(|id| crate::client::tasks::created_task(&session.trace().read(), id))
    });
    let cancelled = match task {
        Some(task) => session.cancel_task_nowait(&task).is_ok(),
        None => last.is_some_and(|id| session.cancel(&id, stop.reason).is_ok()),
    };
    if cancelled {
        eprintln!("[error] {}: the call was cancelled", describe(stop));
    } else {
        eprintln!("[error] {}", describe(stop));
    }
}

fn describe(stop: Stop) -> String {
    match stop.code {
        130 => "interrupted".to_string(),
        _ => format!("stopped by {}", stop.name),
    }
}
