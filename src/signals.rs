//! The signals mcpscope catches, for every command in one place: SIGINT,
//! SIGTERM (`timeout`, CI cancellation, `docker stop`) and SIGHUP (the
//! terminal went away) end a session the way Ctrl-C does — whoever waits on
//! [`Caught::recv`] cancels what runs, stops the server and restores the
//! terminal — and the process exits with 128 + the signal (130, 143, 129).
//! The stdio proxy catches a few more, to pass them on to its server.
//!
//! What is platform-specific about catching and re-raising them lives in
//! this module only (`imp`), so a port swaps one block.

/// Signal numbers, the same on every Unix (and in C's `signal.h` elsewhere).
pub const INTERRUPT: i32 = 2;
pub const TERMINATE: i32 = 15;
pub const HANGUP: i32 = 1;

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
    /// server (SIGQUIT, SIGUSR1, SIGUSR2): all of them, or an error.
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
    std::process::exit(exit_code(sig))
}

#[cfg(unix)]
mod imp {
    use tokio::signal::unix::{Signal, SignalKind, signal};

    pub const FORWARDED: &[i32] = &[
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGUSR1,
        libc::SIGUSR2,
    ];

    pub struct Set(Vec<(i32, Signal)>);

    pub fn catch_each(sigs: &[i32]) -> Set {
        Set(sigs
            .iter()
            .filter_map(|&s| Some((s, signal(SignalKind::from_raw(s)).ok()?)))
            .collect())
    }

    pub fn catch_all(sigs: &[i32]) -> std::io::Result<Set> {
        let mut v = Vec::new();
        for &s in sigs {
            v.push((s, signal(SignalKind::from_raw(s))?));
        }
        Ok(Set(v))
    }

    pub async fn recv(set: &mut Set) -> i32 {
        if set.0.is_empty() {
            return std::future::pending().await;
        }
        let each = set.0.iter_mut().map(|(n, s)| {
            let n = *n;
            Box::pin(async move {
                s.recv().await;
                n
            })
        });
        futures_util::future::select_all(each).await.0
    }

    pub fn raise_default(sig: i32) {
        // SAFETY: restoring the default action and raising a signal at
        // ourselves; the caller has nothing left to clean up.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            libc::sigaddset(&mut set, sig);
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            libc::raise(sig);
        }
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn the_numbers_are_the_platforms() {
            assert_eq!(super::super::INTERRUPT, libc::SIGINT);
            assert_eq!(super::super::TERMINATE, libc::SIGTERM);
            assert_eq!(super::super::HANGUP, libc::SIGHUP);
        }
    }
}

/// Elsewhere only Ctrl-C is caught (as SIGINT), and nothing is re-raised.
#[cfg(not(unix))]
mod imp {
    pub const FORWARDED: &[i32] = &[super::INTERRUPT];

    pub struct Set {
        interrupt: bool,
    }

    pub fn catch_each(sigs: &[i32]) -> Set {
        Set {
            interrupt: sigs.contains(&super::INTERRUPT),
        }
    }

    pub fn catch_all(sigs: &[i32]) -> std::io::Result<Set> {
        Ok(catch_each(sigs))
    }

    pub async fn recv(set: &mut Set) -> i32 {
        if set.interrupt && tokio::signal::ctrl_c().await.is_ok() {
            return super::INTERRUPT;
        }
        std::future::pending().await
    }

    pub fn raise_default(_sig: i32) {}
}
