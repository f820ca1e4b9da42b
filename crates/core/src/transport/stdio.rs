//! stdio transport: a child process exec'd directly (never through a shell),
//! newline-delimited frames on stdout, stderr captured line by line.
//!
//! Reading runs on dedicated threads with large buffers so a flooding server is
//! drained as fast as the pipe allows; the sink parses on the same thread, so
//! reading and the server's writing proceed in parallel.

use super::lines::read_lines_capped;
use super::{ExitInfo, Sink, TransportError};
use crate::event::{Event, Loss};
use crate::platform::process::{self, Tree};
use std::io::Write;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

pub const CHANNEL: &str = "stdio";

/// Bytes waiting for the server's stdin beyond which sends are refused: a
/// server that stops reading must not make mcpscope hold its frames without
/// bound. `MCPSCOPE_MAX_QUEUE` (bytes) lowers it, for tests.
fn max_queued() -> usize {
    static CAP: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CAP.get_or_init(|| {
        std::env::var("MCPSCOPE_MAX_QUEUE")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(64 << 20)
    })
}

/// What to run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommandSpec {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
}

pub struct StdioTransport {
    stdin: Mutex<Option<std_mpsc::Sender<Vec<u8>>>>,
    /// Bytes sent to the writer thread and not yet written.
    queued: Arc<AtomicUsize>,
    /// The server and what it starts, to stop at the end.
    tree: Tree,
    exited: watch::Receiver<Option<ExitInfo>>,
    /// Set the moment the child is reaped: its pid (and group id) may then be
    /// reused by an unrelated process, so it must not be signalled any more.
    reaped: Arc<Reaped>,
}

/// How long after EOF on stdout a server may take to be reaped before it
/// counts as still running.
const EOF_GRACE: Duration = Duration::from_millis(500);

pub use crate::event::EOF_RUNNING;

/// Whether the child has been reaped, and a way to wait for it.
#[derive(Default)]
struct Reaped {
    done: Mutex<bool>,
    cv: std::sync::Condvar,
}

impl Reaped {
    fn set(&self) {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.cv.notify_all();
    }

    fn is_set(&self) -> bool {
        *self.done.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wait up to `limit` for the reap; true when it happened.
    fn wait(&self, limit: Duration) -> bool {
        let g = self.done.lock().unwrap_or_else(|e| e.into_inner());
        let (g, _) = self
            .cv
            .wait_timeout_while(g, limit, |done| !*done)
            .unwrap_or_else(|e| e.into_inner());
        *g
    }
}

impl StdioTransport {
    pub fn spawn(
        spec: &CommandSpec,
        sink: Arc<dyn Sink>,
    ) -> Result<StdioTransport, TransportError> {
        let program = spec.argv.first().cloned().unwrap_or_default();
        let mut cmd = process::command(&program);
        cmd.args(&spec.argv[1.min(spec.argv.len())..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Its own process group: Ctrl-C in the terminal reaches mcpscope,
        // which cancels properly, instead of killing the server mid-call.
        process::own_group(&mut cmd);
        for (k, v) in &spec.env {
            cmd.env(k, v);
        }
        if let Some(dir) = &spec.cwd {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn().map_err(|source| TransportError::Spawn {
            program: program.clone(),
            source,
        })?;
        let pid = child.id();
        let tree = Tree::of(&child);
        sink.event(
            CHANNEL,
            Event::Spawn {
                argv: spec.argv.clone(),
                pid: Some(pid),
                cwd: spec.cwd.as_ref().map(|p| p.display().to_string()),
            },
        );
        let (Some(stdout), Some(stderr), Some(stdin)) =
            (child.stdout.take(), child.stderr.take(), child.stdin.take())
        else {
            unreachable!("all three pipes were requested")
        };

        widen_pipe(&stdout);

        let (tx, rx) = std_mpsc::channel::<Vec<u8>>();
        let queued = Arc::new(AtomicUsize::new(0));
        spawn_writer(stdin, rx, queued.clone());

        let (out_done_tx, out_done_rx) = std_mpsc::channel::<()>();
        let reaped = Arc::new(Reaped::default());
        spawn_stdout_reader(stdout, sink.clone(), reaped.clone(), out_done_tx);

        let (err_done_tx, err_done_rx) = std_mpsc::channel::<()>();
        spawn_stderr_reader(stderr, sink.clone(), err_done_tx);

        let (exit_tx, exited) = watch::channel(None);
        let reaped_w = reaped.clone();
        #[allow(
            clippy::expect_used,
            reason = "std::thread::spawn panics the same way: the OS has no thread to give"
        )]
        std::thread::Builder::new()
            .name("stdio-wait".into())
            .spawn(move || {
                let status = child.wait();
                crate::platform::started::reaped(pid);
                reaped_w.set();
                let info = match status {
                    Ok(st) => {
                        let (code, signal) = process::exit_parts(&st);
                        ExitInfo { code, signal }
                    }
                    Err(_) => ExitInfo::default(),
                };
                // Everything the server wrote before dying is ingested before
                // its exit is reported (unless a grandchild keeps the pipe open).
                let _ = out_done_rx.recv_timeout(Duration::from_secs(2));
                let _ = err_done_rx.recv_timeout(Duration::from_millis(500));
                sink.closed(CHANNEL, info);
                let _ = exit_tx.send(Some(info));
            })
            .expect("spawn wait thread");

        Ok(StdioTransport {
            stdin: Mutex::new(Some(tx)),
            queued,
            tree,
            exited,
            reaped,
        })
    }

    /// Queue one frame (a newline is appended).
    pub fn send(&self, mut frame: Vec<u8>) -> Result<(), TransportError> {
        frame.push(b'\n');
        let guard = self.stdin.lock().unwrap_or_else(|e| e.into_inner());
        let Some(tx) = guard.as_ref() else {
            return Err(TransportError::Closed);
        };
        let n = frame.len();
        let before = self.queued.fetch_add(n, Ordering::SeqCst);
        if before > 0 && before + n > max_queued() {
            self.queued.fetch_sub(n, Ordering::SeqCst);
            return Err(TransportError::Backlog { queued: before });
        }
        tx.send(frame).map_err(|_| TransportError::Closed)
    }

    pub fn exit_info(&self) -> Option<ExitInfo> {
        *self.exited.borrow()
    }

    /// Resolves when the process has ended and its output is ingested.
    pub async fn wait(&self) -> ExitInfo {
        let mut rx = self.exited.clone();
        match rx.wait_for(Option::is_some).await {
            Ok(v) => v.unwrap_or_default(),
            Err(_) => ExitInfo::default(),
        }
    }

    pub fn close_stdin(&self) {
        self.stdin.lock().unwrap_or_else(|e| e.into_inner()).take();
    }

    /// Shut down per the spec: close stdin, wait; SIGTERM, wait; SIGKILL.
    pub async fn shutdown(&self, grace: Duration) -> ExitInfo {
        self.close_stdin();
        if let Ok(info) = tokio::time::timeout(grace, self.wait()).await {
            return info;
        }
        self.signal(crate::signals::TERMINATE);
        if let Ok(info) = tokio::time::timeout(grace, self.wait()).await {
            return info;
        }
        self.signal(crate::signals::KILL);
        self.wait().await
    }

    /// Signal the server's process group (it may have spawned helpers: npx → node).
    /// On Windows: [`crate::signals::KILL`] ends the server's job, anything
    /// else is Ctrl-Break to its group.
    pub fn signal(&self, sig: i32) {
        // Only the instants between `wait` returning and the flag being set
        // remain racy; before, the process group cannot have been reused.
        if !self.reaped.is_set() {
            self.tree.signal_group(sig);
        }
    }
}

/// The thread that writes queued frames to the server's stdin, flushing
/// once per burst; `written` counts down what it wrote.
fn spawn_writer(
    mut stdin: std::process::ChildStdin,
    rx: std_mpsc::Receiver<Vec<u8>>,
    written: Arc<AtomicUsize>,
) {
    #[allow(
        clippy::expect_used,
        reason = "std::thread::spawn panics the same way: the OS has no thread to give"
    )]
    std::thread::Builder::new()
        .name("stdio-writer".into())
        .spawn(move || {
            let write = |stdin: &mut std::process::ChildStdin, frame: &[u8]| {
                let ok = stdin.write_all(frame).is_ok();
                written.fetch_sub(frame.len(), Ordering::SeqCst);
                ok
            };
            // Write everything queued, flush once per burst; dropping stdin closes it.
            while let Ok(frame) = rx.recv() {
                if !write(&mut stdin, &frame) {
                    return;
                }
                while let Ok(more) = rx.try_recv() {
                    if !write(&mut stdin, &more) {
                        return;
                    }
                }
                if stdin.flush().is_err() {
                    return;
                }
            }
        })
        .expect("spawn writer thread");
}

/// The thread that reads the server's stdout into frames, and says when
/// it ended while the server still runs.
fn spawn_stdout_reader(
    stdout: std::process::ChildStdout,
    sink: Arc<dyn Sink>,
    reaped: Arc<Reaped>,
    out_done_tx: std_mpsc::Sender<()>,
) {
    let cap = sink.max_frame();
    let s = sink;
    let reaped_r = reaped;
    #[allow(
        clippy::expect_used,
        reason = "std::thread::spawn panics the same way: the OS has no thread to give"
    )]
    std::thread::Builder::new()
        .name("stdio-reader".into())
        .spawn(move || {
            let r = read_lines_capped(
                stdout,
                cap,
                |lines| {
                    s.frames(CHANNEL, lines);
                },
                |kept, total| s.oversized(CHANNEL, kept, total),
            );
            match r {
                Err(e) => s.event(
                    CHANNEL,
                    Event::ReadError {
                        error: e.to_string(),
                    },
                ),
                // A server that exits closes stdout a moment before it is
                // reaped; one still running after that moment closed it on
                // purpose or by mistake, and will never answer again.
                Ok(()) if !reaped_r.wait(EOF_GRACE) => {
                    s.event(
                        CHANNEL,
                        Event::Eof {
                            stream: "stdout".into(),
                            running: true,
                        },
                    );
                    s.failed(CHANNEL, None, Loss::StdoutClosed);
                }
                Ok(()) => {}
            }
            let _ = out_done_tx.send(());
        })
        .expect("spawn reader thread");
}

/// The thread that reads the server's stderr lines.
fn spawn_stderr_reader(
    stderr: std::process::ChildStderr,
    sink: Arc<dyn Sink>,
    err_done_tx: std_mpsc::Sender<()>,
) {
    let cap = sink.max_frame();
    let s = sink;
    #[allow(
        clippy::expect_used,
        reason = "std::thread::spawn panics the same way: the OS has no thread to give"
    )]
    std::thread::Builder::new()
        .name("stderr-reader".into())
        .spawn(move || {
            let _ = read_lines_capped(
                stderr,
                cap,
                |lines| s.stderr(CHANNEL, lines),
                |kept, total| {
                    s.stderr(CHANNEL, &[kept]);
                    let mut ev = Event::oversized(kept.len(), total, None);
                    if let Event::Oversized { stream, .. } = &mut ev {
                        *stream = Some("stderr".into());
                    }
                    s.event(CHANNEL, ev);
                },
            );
            let _ = err_done_tx.send(());
        })
        .expect("spawn stderr thread");
}

/// Ask for a 1 MiB pipe from the server's stdout (Linux; the default is
/// 64 KiB, and raising it up to `/proc/sys/fs/pipe-max-size` needs no
/// privilege). A flooding server then blocks, and wakes the reader, a
/// sixteenth as often. Best effort: the pipe works either way.
pub fn widen_pipe(stdout: &std::process::ChildStdout) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: the fd is the open read end of our child's stdout pipe;
        // F_SETPIPE_SZ only changes the pipe's capacity.
        let _ = unsafe { libc::fcntl(stdout.as_raw_fd(), libc::F_SETPIPE_SZ, 1 << 20) };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = stdout;
}
