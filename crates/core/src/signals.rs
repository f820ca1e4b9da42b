//! The signals mcpscope catches, for every command in one place: SIGINT,
//! SIGTERM (`timeout`, CI cancellation, `docker stop`) and SIGHUP (the
//! terminal went away) end a session the way Ctrl-C does — whoever waits on
//! [`Caught::recv`] cancels what runs, stops the server and restores the
//! terminal — and the process exits with 128 + the signal (130, 143, 129).
//! The stdio proxy catches a few more, to pass them on to its server.
//!
//! What is platform-specific about catching and re-raising them (and what
//! they are on Windows: console control events) lives in
//! [`crate::platform::signals`].

/// Signal numbers, the same on every Unix (and in C's `signal.h` elsewhere).
pub use crate::platform::signals::{ABORT, HANGUP, INTERRUPT, KILL, PIPE, QUIT, SEGV, TERMINATE};

/// The signals that stop mcpscope.
const STOPPING: [i32; 3] = [INTERRUPT, TERMINATE, HANGUP];

/// The exit code a process stopped by `sig` reports, as shells print it.
pub fn exit_code(sig: i32) -> i32 {
    128 + sig
}

/// Signals caught from now on: while caught, they no longer kill the
/// process with their default action.
pub struct Caught(imp::Set);

impl Caught {
    /// SIGINT, SIGTERM and SIGHUP. Must run inside the runtime. A signal
    /// that cannot be caught keeps its default action; `recv` waits forever
    /// if none could be.
    pub fn stopping() -> Caught {
        Caught(imp::catch_each(&STOPPING))
    }

    /// The stopping signals and the others a stdio proxy passes on to its
    /// server (SIGQUIT, SIGUSR1, SIGUSR2; on Windows only the console
    /// events read as the stopping signals): all of them, or an error.
    pub fn forwarded() -> std::io::Result<Caught> {
        imp::catch_all(imp::FORWARDED).map(Caught)
    }

    /// The number of the next signal that arrives.
    pub async fn recv(&mut self) -> i32 {
        imp::recv(&mut self.0).await
    }
}

/// End this process the way `sig` would have (its default action), so a
/// parent sees what it would have seen running our child directly; the exit
/// code says so where the signal cannot be raised.
pub fn die_by(sig: i32) -> ! {
    imp::raise_default(sig);
    #[allow(
        clippy::exit,
        reason = "the signal could not end the process: its code does"
    )]
    std::process::exit(exit_code(sig))
}

use crate::platform::signals as imp;
