//! Times one child process from spawn to exit, with its own resource use.

use std::process::{Command, Stdio};
use std::time::Instant;

/// What one run of a child cost (each benchmark reads what it needs).
#[allow(dead_code)]
pub struct Cost {
    /// Wall seconds from spawn to exit.
    pub wall: f64,
    /// User plus system CPU seconds of the child.
    pub cpu: f64,
    /// The child's peak RSS in bytes.
    pub peak_rss: f64,
}

/// Runs `cmd` to its end (stdout discarded) and says what it cost; panics
/// when it fails, so a broken build is not timed as a fast one.
// The child is reaped by `wait4`, which also gives its own rusage.
#[allow(clippy::zombie_processes, dead_code)]
pub fn run(cmd: &mut Command) -> Cost {
    let t0 = Instant::now();
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: `rusage` is plain integers, for which all zeroes is a value.
    let mut usage = unsafe { std::mem::zeroed::<libc::rusage>() };
    // SAFETY: pid is our child; status and usage are valid out-pointers.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = t0.elapsed().as_secs_f64();
    assert_eq!(r, pid, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{cmd:?} failed with status {status}"
    );
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Cost {
        wall,
        cpu: secs(usage.ru_utime) + secs(usage.ru_stime),
        peak_rss: usage.ru_maxrss as f64 * 1024.0,
    }
}

/// Minimum, median and maximum.
#[allow(dead_code)]
pub fn stats(v: &[f64]) -> (f64, f64, f64) {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    (s[0], s[s.len() / 2], s[s.len() - 1])
}
