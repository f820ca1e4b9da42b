//! Background priority for the work beside a forwarding path.
//!
//! In proxy mode the host's speed is the budget: framing, recording and
//! checking must take the CPU only when forwarding leaves it. On a machine
//! with few cores a plain thread competes with the copy threads, the host
//! and the server as an equal; a thread marked here yields to all of them
//! (nice 19: weight 15 against 1024). Not `SCHED_IDLE`: an idle-class thread
//! may wait seconds under load, and the runtime threads also deliver the
//! signals the proxy forwards.

use std::sync::atomic::{AtomicBool, Ordering};

static BACKGROUND: AtomicBool = AtomicBool::new(false);

/// From now on, threads that do background work (the recorder's writer)
/// lower themselves when they start.
pub fn mark_process_background() {
    BACKGROUND.store(true, Ordering::Relaxed);
}

/// Whether background work should run at lowered priority.
pub fn is_background() -> bool {
    BACKGROUND.load(Ordering::Relaxed)
}

/// Lower the calling thread (only it: Linux nice values are per thread, and
/// threads it starts later inherit the value).
pub fn lower_this_thread() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority(2) on this thread's own tid; no memory is involved.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 19);
    }
}

/// Lower the calling thread if the process does background work.
pub fn lower_if_background() {
    if is_background() {
        lower_this_thread();
    }
}
