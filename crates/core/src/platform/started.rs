//! The servers this process started and has not reaped yet, so that a
//! panic still stops them.
//!
//! The shipped binaries abort on panic (`panic = "abort"` in the `ship`
//! profile, for size): nothing unwinds, so no `Drop` and no orderly
//! shutdown runs. The panic hook installed by [`stop_on_panic`] then sends
//! every started process group SIGTERM, gives them a short grace, and
//! SIGKILLs what is left, before the process aborts. Builds that unwind
//! (tests, `cargo install`) stop their servers through the usual shutdown
//! paths and leave the hook's part out: there a caught panic (a tokio task,
//! a demo tool) must not take the server down.
//!
//! On Windows the job object each server is put in ends its tree when this
//! process dies, however it dies; the registry is not needed there.

use std::sync::Mutex;

/// At most this many servers at once are remembered: `load` runs at most
/// 1,024 sessions, and a full registry only forgets the newest (an orderly
/// exit still stops them).
const MAX: usize = 4096;

/// How long started servers get to end after SIGTERM before SIGKILL.
#[cfg(unix)]
const GRACE: std::time::Duration = std::time::Duration::from_millis(1500);

static STARTED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// `pid` leads a process group this process started.
pub fn add(pid: u32) {
    let mut s = STARTED.lock().unwrap_or_else(|e| e.into_inner());
    if s.len() < MAX {
        s.push(pid);
    }
}

/// `pid` was reaped: its group id may be reused from now on.
pub fn reaped(pid: u32) {
    let mut s = STARTED.lock().unwrap_or_else(|e| e.into_inner());
    s.retain(|p| *p != pid);
}

/// The pids of started servers not reaped yet.
pub fn running() -> Vec<u32> {
    STARTED.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Install the panic hook that stops every started server when this build
/// aborts on panic. The previous hook (the panic message; the TUI's
/// terminal restore wraps this one) runs first.
///
/// `alive` says whether a started process still runs (not a zombie): the
/// caller hands in `platform::process::alive`, which registers processes
/// here, so this registry names nothing of the process code.
pub fn stop_on_panic(alive: fn(u32) -> bool) {
    if !cfg!(panic = "abort") {
        return;
    }
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        previous(info);
        stop_all(alive);
    }));
}

/// SIGTERM to every started group, then SIGKILL to those still there
/// after [`GRACE`]. Never blocks longer than the grace.
pub fn stop_all(#[cfg_attr(not(unix), allow(unused_variables))] alive: fn(u32) -> bool) {
    #[cfg(unix)]
    {
        use std::time::{Duration, Instant};
        // The lock is not held while waiting: the threads that reap keep
        // running meanwhile. A poisoned lock is still read.
        let pids = running();
        for pid in &pids {
            signal_group(*pid, libc::SIGTERM);
        }
        let end = Instant::now() + GRACE;
        while Instant::now() < end && running().iter().any(|p| alive(*p)) {
            std::thread::sleep(Duration::from_millis(20));
        }
        for pid in running() {
            signal_group(pid, libc::SIGKILL);
        }
    }
}

#[cfg(unix)]
fn signal_group(pid: u32, sig: i32) {
    if let Ok(p) = i32::try_from(pid) {
        // SAFETY: kill(2) has no memory-safety preconditions.
        unsafe {
            libc::kill(-p, sig);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reaped_server_is_forgotten_and_the_registry_is_bounded() {
        add(u32::MAX - 1);
        assert!(running().contains(&(u32::MAX - 1)));
        reaped(u32::MAX - 1);
        assert!(!running().contains(&(u32::MAX - 1)));
        for i in 0..(MAX as u32 + 10) {
            add(u32::MAX - 100_000 + i);
        }
        assert!(running().len() <= MAX);
        assert!(!running().contains(&(u32::MAX - 100_000 + MAX as u32 + 9)));
        for i in 0..(MAX as u32 + 10) {
            reaped(u32::MAX - 100_000 + i);
        }
    }
}
