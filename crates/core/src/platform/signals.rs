//! Catching the signals that stop mcpscope (and those the stdio proxy
//! passes on), and ending the process the way one of them would.
//!
//! Signals are named by their Unix numbers everywhere (the same on Linux
//! and macOS, and C's `signal.h` numbers on Windows). On Windows there are
//! no signals, only console control events, read as the signal that means
//! the same: Ctrl-C is SIGINT; Ctrl-Break, logoff and shutdown are SIGTERM;
//! the console window closing is SIGHUP. SIGQUIT, SIGUSR1 and SIGUSR2
//! cannot arrive there, so the proxy cannot pass them on.

#[cfg(unix)]
pub use unix::*;
#[cfg(windows)]
pub use windows::*;

/// Signal numbers, the same on every Unix (and in C's `signal.h` elsewhere).
/// Defined here, where they are caught, and named by `crate::signals`.
pub const INTERRUPT: i32 = 2;
pub const TERMINATE: i32 = 15;
pub const HANGUP: i32 = 1;
/// The signal that cannot be caught: stop at once.
pub const KILL: i32 = 9;
/// Further numbers a server's exit can name (the same on Linux and macOS).
pub const QUIT: i32 = 3;
pub const ABORT: i32 = 6;
pub const SEGV: i32 = 11;
pub const PIPE: i32 = 13;

#[cfg(unix)]
mod unix {
    use tokio::signal::unix::{Signal, SignalKind, signal};

    /// The signals the stdio proxy passes on to its server.
    pub const FORWARDED: &[i32] = &[
        libc::SIGINT,
        libc::SIGTERM,
        libc::SIGHUP,
        libc::SIGQUIT,
        libc::SIGUSR1,
        libc::SIGUSR2,
    ];

    pub struct Set(Vec<(i32, Signal)>);

    /// Each of `sigs` that can be caught.
    pub fn catch_each(sigs: &[i32]) -> Set {
        Set(sigs
            .iter()
            .filter_map(|&s| Some((s, signal(SignalKind::from_raw(s)).ok()?)))
            .collect())
    }

    /// All of `sigs`, or an error.
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

    /// Restore `sig`'s default action and raise it at this process.
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
        use super::super::{ABORT, HANGUP, INTERRUPT, KILL, PIPE, QUIT, SEGV, TERMINATE};

        #[test]
        fn the_numbers_are_the_platforms() {
            assert_eq!(INTERRUPT, libc::SIGINT);
            assert_eq!(TERMINATE, libc::SIGTERM);
            assert_eq!(HANGUP, libc::SIGHUP);
            assert_eq!(KILL, libc::SIGKILL);
            assert_eq!(QUIT, libc::SIGQUIT);
            assert_eq!(ABORT, libc::SIGABRT);
            assert_eq!(SEGV, libc::SIGSEGV);
            assert_eq!(PIPE, libc::SIGPIPE);
        }
    }
}

#[cfg(windows)]
mod windows {
    use super::{HANGUP, INTERRUPT, TERMINATE};
    use tokio::signal::windows as console;

    /// The events the stdio proxy passes on (as Ctrl-Break to the server's
    /// process group: Ctrl-C cannot be sent to a group of its own).
    pub const FORWARDED: &[i32] = &[INTERRUPT, TERMINATE, HANGUP];

    enum Listener {
        CtrlC(console::CtrlC),
        CtrlBreak(console::CtrlBreak),
        Close(console::CtrlClose),
        Logoff(console::CtrlLogoff),
        Shutdown(console::CtrlShutdown),
    }

    impl Listener {
        async fn recv(&mut self) {
            match self {
                Listener::CtrlC(l) => l.recv().await,
                Listener::CtrlBreak(l) => l.recv().await,
                Listener::Close(l) => l.recv().await,
                Listener::Logoff(l) => l.recv().await,
                Listener::Shutdown(l) => l.recv().await,
            };
        }
    }

    /// The console events read as `sig`.
    fn listeners(sig: i32) -> std::io::Result<Vec<Listener>> {
        Ok(match sig {
            INTERRUPT => vec![Listener::CtrlC(console::ctrl_c()?)],
            TERMINATE => vec![
                Listener::CtrlBreak(console::ctrl_break()?),
                Listener::Logoff(console::ctrl_logoff()?),
                Listener::Shutdown(console::ctrl_shutdown()?),
            ],
            HANGUP => vec![Listener::Close(console::ctrl_close()?)],
            _ => Vec::new(),
        })
    }

    pub struct Set(Vec<(i32, Listener)>);

    /// Each of `sigs` whose console events can be caught.
    pub fn catch_each(sigs: &[i32]) -> Set {
        Set(sigs
            .iter()
            .filter_map(|&s| Some(listeners(s).ok()?.into_iter().map(move |l| (s, l))))
            .flatten()
            .collect())
    }

    /// All of `sigs`, or an error.
    pub fn catch_all(sigs: &[i32]) -> std::io::Result<Set> {
        let mut v = Vec::new();
        for &s in sigs {
            v.extend(listeners(s)?.into_iter().map(|l| (s, l)));
        }
        Ok(Set(v))
    }

    pub async fn recv(set: &mut Set) -> i32 {
        if set.0.is_empty() {
            return std::future::pending().await;
        }
        let each = set.0.iter_mut().map(|(n, l)| {
            let n = *n;
            Box::pin(async move {
                l.recv().await;
                n
            })
        });
        futures_util::future::select_all(each).await.0
    }

    /// Nothing can be raised: the caller's exit code says which it was.
    pub fn raise_default(_sig: i32) {}
}
