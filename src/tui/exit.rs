//! How the UI ends, and what always follows. Whatever ends it — a quit, a
//! terminal error, a panic, SIGINT, SIGTERM, SIGHUP, a terminal that went
//! away — the
//! server mcpscope started is stopped (stdin closed, a grace period, then
//! signals to its process group), and the exit code says which it was.
//!
//! A closed terminal is the hard case: every write to it fails from then on,
//! and anything that panics on a failed write (`eprintln!`, ratatui's
//! terminal dropping with the cursor hidden) would end the process before
//! the server is stopped, leaving it running with nobody to talk to.

use futures_util::FutureExt;
use std::future::Future;
use std::io::Write;
use std::panic::AssertUnwindSafe;

/// Why the event loop returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The user quit, or the terminal's input ended.
    Quit,
    /// SIGINT, SIGTERM or SIGHUP (the signal number).
    Signal(i32),
}

impl Ended {
    /// 0 for a quit; 128 + the signal otherwise (130 SIGINT, 143 SIGTERM,
    /// 129 SIGHUP), as the headless commands exit and as shells report a
    /// signal.
    pub fn exit_code(self) -> i32 {
        match self {
            Ended::Quit => 0,
            Ended::Signal(s) => crate::signals::exit_code(s),
        }
    }
}

/// Exit code when the UI panicked (what Rust uses for a panic in `main`).
pub const PANIC_EXIT: i32 = 101;

/// SIGINT, SIGTERM and SIGHUP, caught from before the server starts until
/// the process ends: once caught they no longer kill mcpscope outright, so
/// the terminal is restored and the server shut down. SIGINT matters
/// although Ctrl-C is a key in raw mode: another process can still send it
/// (`kill -INT`, a supervisor, a process-group signal).
pub struct ExitSignals(crate::signals::Caught);

impl ExitSignals {
    /// Must run inside the runtime.
    pub fn catch() -> ExitSignals {
        ExitSignals(crate::signals::Caught::stopping())
    }

    /// The next SIGINT, SIGTERM or SIGHUP (its number); pending forever if
    /// none could be caught.
    pub async fn recv(&mut self) -> i32 {
        self.0.recv().await
    }
}

/// Run the UI, then `stop` the server however the UI ended — also when it
/// panicked (the panic hook has restored the terminal by then). Returns the
/// UI's result, or `Err` with the panic.
pub async fn stop_after<T>(
    ui: impl Future<Output = T>,
    stop: impl Future<Output = ()>,
) -> std::thread::Result<T> {
    let r = AssertUnwindSafe(ui).catch_unwind().await;
    stop.await;
    r
}

/// The process exit code for how the UI ended; a terminal error is
/// reported (3), a panic was already reported by the panic hook.
pub fn code_of(r: std::thread::Result<std::io::Result<Ended>>) -> i32 {
    match r {
        Ok(Ok(ended)) => ended.exit_code(),
        Ok(Err(e)) => {
            report(&format!("[error] terminal: {e}"));
            3
        }
        Err(_) => PANIC_EXIT,
    }
}

/// One line on stderr that never panics: after the terminal closed, stderr
/// may be a dead tty, and the exit code must still be reached.
pub fn report(line: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{line}");
    let _ = err.flush();
}
