//! Timing for the benches: the best of several runs in wall time, and the
//! calling thread's own CPU time, which other processes on a shared machine
//! do not stretch. Each bench uses what it needs of it.
#![allow(dead_code)]

use std::time::Instant;

/// The best wall time of `runs` runs of `f`, in seconds, and the last result.
pub fn best<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..runs {
        let t0 = Instant::now();
        let r = f();
        best = best.min(t0.elapsed().as_secs_f64());
        last = Some(r);
    }
    (best, last.expect("at least one run"))
}

/// CPU time of this thread, in seconds: other processes on a shared
/// machine stretch wall time, not the time this thread computed.
pub fn thread_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

/// Best of `runs`, in this thread's CPU time.
pub fn best_cpu<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..runs {
        let c0 = thread_cpu();
        let _ = f();
        best = best.min(thread_cpu() - c0);
    }
    best
}
