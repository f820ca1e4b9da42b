//! What every integration test binary shares (each includes this file as
//! its `support` module): the real binary (`BIN`), running it and other
//! processes under a watchdog, the headless builder (`headless`), the peers
//! of `tests/peers/install.sh`, and reading a recorded trace. Its modules:
//! loopback HTTP servers (`http`), the authorization fixture (`auth`), the
//! proxy tests' raw host (`proxy`), the conformance suite (`suite`), tmux
//! (`tmux`), and table rows run side by side (`rows`).
// Each binary uses a part of this.
#![allow(dead_code)]

pub mod auth;
pub mod headless;
pub mod http;
pub mod otlp;
pub mod proxy;
pub mod rows;
pub mod suite;
pub mod tmux;

// Not every binary runs mcpscope headless.
#[allow(unused_imports)]
pub use headless::{Headless, Run, headless};

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

pub const BIN: &str = env!("CARGO_BIN_EXE_mcpscope");

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    pub fn lines(&self, prefix: &str) -> Vec<&str> {
        self.stderr
            .lines()
            .filter(|l| l.starts_with(prefix))
            .collect()
    }

    /// The `[finding]` lines said as causes open (not the end's summary,
    /// one `[finding] RULE ×N …` line per cause) but one: the demo's
    /// `logging`, which 2026-07-28 (the era `--protocol auto` finds it
    /// speaking) deprecates — an info, said in the summary only (unless
    /// `-v`), once. A run in the handshake era has no such line, and it is
    /// not required.
    pub fn findings_but_the_logging_deprecation(&self) -> Vec<&str> {
        let (summary, live): (Vec<&str>, Vec<&str>) = self
            .lines("[finding]")
            .into_iter()
            .partition(|l| is_group_summary(l));
        let (said, rest): (Vec<&str>, Vec<&str>) = live
            .into_iter()
            .partition(|l| l.starts_with("[finding] deprecated-feature (info)"));
        let said_at_end: Vec<&str> = summary
            .iter()
            .copied()
            .filter(|l| l.starts_with("[finding] deprecated-feature ×"))
            .collect();
        assert!(
            said.len() <= 1 && said_at_end.len() <= 1,
            "said once: {}",
            self.stderr
        );
        assert!(
            said.iter()
                .chain(&said_at_end)
                .all(|l| l.contains("logging") || l.contains("notifications/message")),
            "{}",
            self.stderr
        );
        rest
    }
}

/// A line of the end's summary of findings: `[finding] RULE ×N first #a last #b …`.
pub fn is_group_summary(line: &str) -> bool {
    line.starts_with("[finding] ")
        && line
            .split_whitespace()
            .nth(2)
            .is_some_and(|w| w.starts_with('×'))
}

/// Kills a child of the test that is still running after a time limit (a
/// hang is a failure, not a stuck test run). It holds a pidfd, which names
/// that one process: once the child is reaped its pid may be reused, and a
/// kill by pid could hit an unrelated process.
#[must_use = "dropping the watchdog disarms it"]
pub struct Watchdog {
    cancel: Option<mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<bool>>,
}

impl Watchdog {
    /// Stop watching (the child was waited); true if it had fired.
    pub fn disarm(mut self) -> bool {
        self.stop()
    }

    fn stop(&mut self) -> bool {
        self.cancel.take();
        self.thread
            .take()
            .is_some_and(|t| t.join().unwrap_or(false))
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Arm a watchdog on `child`, which must not have been waited yet. Linux
/// kills through a pidfd (never another process that got the pid).
#[cfg(target_os = "linux")]
pub fn watchdog(child: &Child, limit: Duration) -> Watchdog {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    // SAFETY: pidfd_open(2) takes a pid and flags and returns a new
    // descriptor (owned below) or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, child.id() as libc::pid_t, 0) };
    assert!(fd >= 0, "pidfd_open: {}", std::io::Error::last_os_error());
    // SAFETY: the descriptor was just returned to us and nothing else owns it.
    let pidfd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    let (cancel, cancelled) = mpsc::channel::<()>();
    let thread = std::thread::spawn(move || {
        if cancelled.recv_timeout(limit) != Err(mpsc::RecvTimeoutError::Timeout) {
            return false;
        }
        // SAFETY: pidfd_send_signal(2) on a descriptor we own; no info struct.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                pidfd.as_raw_fd(),
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            );
        }
        true
    });
    Watchdog {
        cancel: Some(cancel),
        thread: Some(thread),
    }
}

/// Arm a watchdog on `child`, which must not have been waited yet. Without
/// pidfds (macOS) the pid is signalled: should the limit pass just as the
/// child is reaped, another process could have got the pid — a risk taken
/// for tests only.
#[cfg(not(target_os = "linux"))]
pub fn watchdog(child: &Child, limit: Duration) -> Watchdog {
    let pid = child.id() as libc::pid_t;
    let (cancel, cancelled) = mpsc::channel::<()>();
    let thread = std::thread::spawn(move || {
        if cancelled.recv_timeout(limit) != Err(mpsc::RecvTimeoutError::Timeout) {
            return false;
        }
        // SAFETY: kill(2) has no memory-safety preconditions.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        true
    });
    Watchdog {
        cancel: Some(cancel),
        thread: Some(thread),
    }
}

/// `mcpscope ARGS...` to its end, whatever its exit code.
pub fn run(args: &[&str]) -> Output {
    let child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcpscope");
    finish(child)
}

pub fn finish(mut child: Child) -> Output {
    let dog = watchdog(&child, Duration::from_secs(120));
    let mut stdout = String::new();
    let mut stderr_pipe = child.stderr.take().expect("stderr");
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr_pipe.read_to_string(&mut s);
        s
    });
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut stdout);
    }
    let status = child.wait().expect("wait");
    dog.disarm();
    let stderr = err_thread.join().unwrap_or_default();
    Output {
        code: status.code().unwrap_or(-1),
        stdout,
        stderr,
    }
}

/// A path to a peer installed by tests/peers/install.sh. The tests that need
/// one are `#[ignore]`d, so a plain `cargo test` lists them as not run; one
/// run on purpose (`--include-ignored`) without its peer fails, saying why.
pub fn peer(rel: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/peers/.installed")
        .join(rel);
    assert!(
        p.exists(),
        "peer {} is missing: run `bash tests/peers/install.sh` first",
        p.display()
    );
    p
}

pub fn everything() -> PathBuf {
    peer("node/node_modules/.bin/mcp-server-everything")
}

/// The Python SDK test server: argv prefix.
pub fn python_server() -> Vec<String> {
    let py = peer("venv/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/python_server.py");
    vec![py.display().to_string(), script.display().to_string()]
}

/// The FastMCP test server (`tests/peers/fastmcp_server.py` in its venv): argv prefix.
pub fn fastmcp_server() -> Vec<String> {
    let py = peer("fastmcp-venv/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/fastmcp_server.py");
    vec![py.display().to_string(), script.display().to_string()]
}

/// The rmcp test server (`tests/peers/rmcp_server`, built by install.sh): argv prefix.
pub fn rmcp_server() -> Vec<String> {
    let bin = peer("rmcp-target/release/mcpscope-rmcp-peer");
    vec![bin.display().to_string()]
}

/// Read a recorded trace as JSON values (header first).
pub fn trace_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .expect("trace file")
        .lines()
        .map(|l| serde_json::from_str(l).expect("trace line is JSON"))
        .collect()
}

/// The `json` of recorded events matching a predicate.
pub fn frames<'a>(
    lines: &'a [serde_json::Value],
    dir: &'a str,
    method: &'a str,
) -> impl Iterator<Item = &'a serde_json::Value> + 'a {
    lines
        .iter()
        .skip(1)
        .filter(move |l| l["dir"] == dir && l["json"]["method"] == method)
        .map(|l| &l["json"])
}

/// `mcpscope call` (`args`, recording to `rec`) on a task: once its second
/// `[task]` status line shows the task is followed, SIGINT. It must exit
/// 130 having sent `tasks/cancel` for that task, and no
/// `notifications/cancelled` for the `tools/call` the task handle answered.
pub fn interrupt_a_followed_task(args: &[String], rec: &Path) {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let dog = watchdog(&child, Duration::from_secs(60));
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    let mut statuses = 0;
    while err.read_line(&mut line).unwrap() > 0 {
        if line.starts_with("[task]") {
            statuses += 1;
            if statuses == 2 {
                break;
            }
        }
        line.clear();
    }
    assert!(
        line.starts_with("[task]"),
        "no second task status before EOF"
    );
    let task_id = line.split(' ').nth(1).unwrap().to_string();
    // SAFETY: kill(2) has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    dog.disarm();
    assert_eq!(status.code(), Some(130));
    let lines = trace_lines(rec);
    let cancel = frames(&lines, "out", "tasks/cancel")
        .next()
        .expect("tasks/cancel before exit");
    assert_eq!(cancel["params"]["taskId"], task_id.as_str());
    assert_eq!(
        frames(&lines, "out", "notifications/cancelled").count(),
        0,
        "the answered tools/call is not cancelled"
    );
}
