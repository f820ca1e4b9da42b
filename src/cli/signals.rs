//! The signals that end a headless command the way Ctrl-C does: SIGINT,
//! SIGTERM (`timeout`, CI cancellation, `docker stop`) and SIGHUP (the
//! terminal went away). Each cancels the call in flight and stops the server
//! before mcpscope exits with 128 + the signal number. On Windows: Ctrl-C,
//! Ctrl-Break (and logoff, shutdown) and the console closing, with the same
//! codes (see [`crate::platform::signals`]).

use crate::client::Session;
use crate::signals::{Caught, HANGUP, INTERRUPT, TERMINATE};
use crate::trace::Dir;

/// A stopping signal that arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stop {
    pub name: &'static str,
    /// The exit code: 130, 143 or 129.
    pub code: i32,
    /// How the cancellation reason names it.
    pub reason: &'static str,
}

impl Stop {
    fn of(sig: i32) -> Stop {
        #[cfg(unix)]
        let (name, reason) = match sig {
            INTERRUPT => ("SIGINT", "interrupted by the user (Ctrl-C)"),
            TERMINATE => ("SIGTERM", "mcpscope received SIGTERM"),
            HANGUP => ("SIGHUP", "mcpscope received SIGHUP"),
            _ => ("signal", "mcpscope received a signal"),
        };
        // The console events that stand for the signals there.
        #[cfg(windows)]
        let (name, reason) = match sig {
            INTERRUPT => ("Ctrl-C", "interrupted by the user (Ctrl-C)"),
            TERMINATE => (
                "Ctrl-Break",
                "mcpscope received Ctrl-Break (or a logoff or shutdown)",
            ),
            HANGUP => ("console close", "the console of mcpscope was closed"),
            _ => ("console event", "mcpscope received a console event"),
        };
        Stop {
            name,
            code: crate::signals::exit_code(sig),
            reason,
        }
    }
}

/// Handlers installed once, before anything is started: from then on these
/// signals no longer kill the process with the default action.
pub struct Signals(Caught);

impl Signals {
    pub fn install() -> Signals {
        Signals(Caught::stopping())
    }

    /// Resolves when one of the signals arrives.
    pub async fn recv(&mut self) -> Stop {
        Stop::of(self.0.recv().await)
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
