//! The stdio proxy: the host runs mcpscope instead of the server; mcpscope
//! runs the server and copies host stdin → server stdin, server stdout →
//! host stdout and server stderr → its own stderr, byte for byte, each on a
//! thread of its own that offers the observer a copy of each piece (never
//! waiting for it) and writes it on.
//!
//! Ends pass through as a direct connection would show them: the host's EOF
//! closes the server's stdin; the server's EOF closes the host's stdout; a
//! side that stops reading makes the other side's writes fail; SIGINT,
//! SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are forwarded to the server
//! (in a process group of its own, so a terminal's Ctrl-C reaches it once);
//! the server's exit status becomes the proxy's.

use super::ProxyError;
use super::observer::{Feed, Observer};
use crate::checks::CheckConfig;
use crate::event::{Event, ExitInfo};
use crate::platform::process::{self, Tree};
use crate::session::ServerSpec;
use crate::session::live::{Notice, Observed, Plan};
use crate::session::registry::{Entry, Registration};
use crate::trace::Trace;
use crate::transport::stdio::CommandSpec;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Read size of the copying threads: a pipe hands over at most its
/// capacity per read (64 KiB by default), so a larger buffer only helps
/// when a pipe was enlarged.
const COPY_BUF: usize = 256 << 10;
/// How long after the server is reaped its stdout and stderr may stay open
/// (a helper process it left behind holds them) before the proxy stops
/// waiting.
const STDOUT_GRACE: Duration = Duration::from_secs(2);
/// How often the registry entry's counts are refreshed.
const REFRESH: Duration = Duration::from_millis(500);

/// What to run and how to observe it.
#[derive(Debug, Clone)]
pub struct StdioProxy {
    /// The session's name in `sessions` (default: from the command).
    pub name: Option<String>,
    pub cmd: CommandSpec,
    /// Keep the trace here (otherwise a trace in the sessions directory,
    /// removed at the end, serves `attach`).
    pub record: Option<PathBuf>,
    /// Run the protocol checks on the session.
    pub check: bool,
    pub checks: CheckConfig,
    /// Say what the proxy does on stderr (`[mcpscope] ...`).
    pub verbose: bool,
    pub max_store: Option<usize>,
    /// Frames over this are cut in the trace (never on the wire).
    pub max_frame: usize,
    /// Start an OTLP receiver into the trace and point the server's
    /// exporter at it (unless the host's environment already names one).
    pub otel_receiver: crate::otel::ReceiverAt,
    /// Send the session to an OpenTelemetry backend (`--otlp`).
    pub otlp: Option<crate::otel::export::Config>,
    /// Change the traffic on purpose (`--faults`): the two message streams
    /// are then copied line by line through these rules.
    pub faults: Option<super::faults::Faults>,
    /// Take breakpoints from `attach --intercept` (the streams are then
    /// copied line by line, as with faults).
    pub intercept: bool,
}

/// How the proxied server ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Its exit status.
    Exited(ExitInfo),
    /// It could not be started (or the proxy could not set up).
    Failed(String),
}

/// The name a session gets from its command: the program, or for a
/// launcher (`npx`, `node`, `python`, `uvx`, …) the first argument that is
/// not an option.
pub fn default_name(argv: &[String]) -> String {
    const LAUNCHERS: &[&str] = &[
        "npx", "node", "python", "python3", "uv", "uvx", "bun", "bunx", "deno", "pnpm", "npm",
        "pipx", "docker", "run",
    ];
    let base = |s: &str| {
        let b = s.rsplit('/').next().unwrap_or(s);
        b.split_once('.').map_or(b, |(stem, _)| stem).to_string()
    };
    let prog = argv.first().map(|p| base(p)).unwrap_or_default();
    if !LAUNCHERS.contains(&prog.as_str()) {
        return prog;
    }
    argv.iter()
        .skip(1)
        .map(|a| base(a))
        .find(|a| !a.starts_with('-') && !a.is_empty() && !LAUNCHERS.contains(&a.as_str()))
        .map_or(prog, |a| a.split('@').next().unwrap_or(&a).to_string())
}

/// Copy `from` → `to` until either side ends. Each piece is offered to the
/// observer (which never waits) just before it is written: whatever the
/// other side does in answer is read after that, so the trace has both
/// directions in wire order — a response never before its request.
/// Returns whether it was the reading side that ended (EOF or error), as
/// opposed to the writing side failing.
fn copy(mut from: impl Read, mut to: impl Write, feed: &mut Feed) -> bool {
    let mut buf = vec![0u8; COPY_BUF];
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => return true,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return true,
        };
        feed.offer(&buf[..n]);
        if to.write_all(&buf[..n]).is_err() {
            return false;
        }
    }
}

fn spawn_thread(name: &str, f: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name(name.into())
        .spawn(f)
        .map(|_| ())
}

impl StdioProxy {
    /// Run the proxy until the server has ended and what it wrote is
    /// forwarded. Must run inside a tokio runtime (signals, checks).
    pub async fn run(self) -> Outcome {
        let say = |msg: &str| {
            if self.verbose {
                eprintln!("[mcpscope] {}", crate::protocol::sanitize::one_line(msg));
            }
        };
        let argv = &self.cmd.argv;
        let max_store = self
            .max_store
            .unwrap_or(crate::trace::StoreLimits::default().max_bytes);
        let name = self.name.clone().unwrap_or_else(|| default_name(argv));
        let spec = ServerSpec::Stdio {
            name: name.clone(),
            cmd: self.cmd.clone(),
        };
        let (trace_path, owned) = match self.trace_path() {
            Ok(t) => t,
            Err(e) => return Outcome::Failed(e.to_string()),
        };
        // Signals are caught before the server starts: from then on they
        // are the server's to act on.
        let mut signals = match crate::signals::Caught::forwarded() {
            Ok(s) => s,
            Err(e) => return Outcome::Failed(format!("cannot catch signals: {e}")),
        };
        let (host_in, host_out) = match crate::platform::stdio::take_host_stdio() {
            Ok(f) => f,
            Err(e) => return Outcome::Failed(format!("cannot take over stdin/stdout: {e}")),
        };
        let mut cmd = self.server_command();
        let trace = match super::open_trace(&spec, &name, &trace_path, self.max_store) {
            Ok(t) => t,
            Err(e) => return Outcome::Failed(e.to_string()),
        };
        let mut env = self.cmd.env.clone();
        let mut observed = match self.observe(&trace, &name, &mut env, &say).await {
            Ok(o) => o,
            Err(e) => return Outcome::Failed(e),
        };
        if let Some(at) = observed.receiver_endpoint() {
            for (k, v) in env.iter().skip(self.cmd.env.len()) {
                cmd.env(k, v);
            }
            say(&format!("OTLP receiver at {at}"));
        }
        let child = match cmd.spawn() {
            Ok(c) => c,
            Err(e) => {
                let why = format!("cannot start {:?}: {e}", argv[0]);
                return not_started(&trace, observed, why, owned.then_some(&trace_path));
            }
        };
        let child_pid = child.id();
        let tree = Tree::of(&child);
        let mut registration =
            self.register(&trace, &name, &spec, child_pid, (&trace_path, owned), &say);
        say(&format!(
            "proxying {name} (server pid {child_pid}); trace {}",
            trace_path.display()
        ));

        let (observer, [h2s, s2h, err]) = Observer::start(
            trace.clone(),
            self.max_frame,
            super::observer::max_queued(max_store),
        );
        let engine = self.engine(&say);
        if let Some(e) = engine.as_ref().filter(|_| self.intercept) {
            let controlled = crate::proxy::breakpoints::stdio::Controlled {
                engine: e.clone(),
                trace: trace.clone(),
                max_frame: self.max_frame,
            };
            match crate::proxy::breakpoints::control::start(Arc::new(controlled)).await {
                Ok(at) => {
                    say(&format!("intercept: controller at {}", at.addr));
                    if let Some(r) = registration.as_mut() {
                        r.update(|entry| entry.intercept = Some(at));
                    }
                }
                Err(e) => {
                    say(&format!("intercept: cannot listen for a controller: {e}"));
                }
            }
        }
        let copying = start_copying(
            host_in,
            host_out,
            child,
            [h2s, s2h, err],
            engine.map(|e| (e, self.max_frame)),
        );
        let Copying {
            mut exit_rx,
            reaped,
            out_done,
            err_done,
        } = match copying {
            Ok(c) => c,
            Err(e) => {
                // The child is not reaped (its waiter never ran).
                tree.signal_child(crate::signals::KILL);
                let _ = observed.abandon();
                return Outcome::Failed(format!("cannot start the proxy's threads: {e}"));
            }
        };

        let checks = observed.checks().cloned();
        let mut refresh = tokio::time::interval(REFRESH);
        let lost = observer.lost.clone();
        let mut reported = 0;
        let update = |reg: &mut Option<Registration>| {
            let events = trace.read().next_seq();
            let findings = checks.as_ref().map(|c| {
                let n = c.counts_by_severity();
                [n.error as u64, n.warning as u64, n.info as u64]
            });
            if let Some(r) = reg {
                r.update(|e| {
                    e.events = events;
                    e.findings = findings;
                    e.unobserved_bytes = lost.total();
                });
            }
        };
        let exit = loop {
            tokio::select! {
                r = &mut exit_rx => break r.unwrap_or_default(),
                sig = signals.recv() => {
                    say(&format!("forwarding signal {sig} to the server"));
                    if !reaped.load(Ordering::SeqCst) {
                        // The pid is our unreaped child's.
                        tree.signal_child(sig);
                    }
                }
                _ = refresh.tick() => {
                    update(&mut registration);
                    if self.verbose && let Some(c) = &checks {
                        for f in c.findings_since(reported) {
                            say(&format!("[finding] {f}"));
                            reported += 1;
                        }
                    }
                }
            }
        };
        // Everything the server wrote before it ended reaches the host, and
        // the observer before it stops: stdout and stderr both (unless a
        // process it left behind keeps one open: the grace bounds the wait).
        drain_output(out_done, err_done).await;
        // The server has ended: what it exported is in (an exporter flushes
        // before its process exits), and the trace is closed next.
        observed.stop_receiving();
        observer.finish();
        trace.append(|s, now| s.append_event(super::observer::CHANNEL, now, &Event::exit(exit)));
        let ended = observed.end(std::future::pending()).await;
        super::say_export(ended.export.as_ref(), say);
        update(&mut registration);
        if let Some(c) = &checks
            && self.verbose
        {
            for f in c.findings_since(reported) {
                say(&format!("[finding] {f}"));
            }
        }
        say_incomplete(lost.total(), ended.recording_error);
        say(&format!("server ended: {exit}"));
        drop(registration);
        Outcome::Exited(exit)
    }

    /// The engine both message streams go through, with `--faults` or
    /// `--intercept`.
    fn engine(&self, say: &dyn Fn(&str)) -> Option<Arc<std::sync::Mutex<super::faults::Engine>>> {
        if self.faults.is_none() && !self.intercept {
            return None;
        }
        let f = self.faults.clone().unwrap_or_default();
        if self.faults.is_some() {
            say(&format!("faults: {} rules, seed {}", f.rules.len(), f.seed));
        }
        let mut e = super::faults::Engine::new(f, self.max_frame);
        if self.intercept {
            e.intercept = Some(crate::proxy::breakpoints::hold::Breakpoints::default());
        }
        Some(Arc::new(std::sync::Mutex::new(e)))
    }

    /// Where the trace goes, and whether it is the proxy's own (removed at
    /// the end) rather than one the user asked for.
    fn trace_path(&self) -> Result<(PathBuf, bool), ProxyError> {
        match &self.record {
            Some(p) => Ok((p.clone(), false)),
            None => crate::session::registry::owned_trace_path(std::process::id())
                .map(|p| (p, true))
                .map_err(ProxyError::SessionsDir),
        }
    }

    /// Start observing the session (checks, OTLP receiver and export); the
    /// receiver's address is added to `env`, the server's environment.
    async fn observe(
        &self,
        trace: &Trace,
        name: &str,
        env: &mut Vec<(String, String)>,
        say: &dyn Fn(&str),
    ) -> Result<Observed, String> {
        // The server's spans and log records go into the session's trace,
        // beside what the host and the server said (`attach` shows them).
        let plan = Plan {
            receiver: self.otel_receiver,
            // An address the user gave is one a server is pointed at.
            receiver_strict: true,
            checks: self.check.then(|| self.checks.clone()),
            export: self.otlp.clone(),
        };
        let server_json = serde_json::json!({"transport": "stdio"});
        let (o, notices) =
            Observed::start(trace.clone(), plan, Some((env, name)), server_json, true)
                .await
                .map_err(|e| e.0)?;
        for n in notices {
            if let Notice::NoReceiver(e) = n {
                say(&format!("no OTLP receiver: {e}"));
            }
        }
        Ok(o)
    }

    /// The server's command line, piped on all three sides, in a process
    /// group of its own.
    fn server_command(&self) -> std::process::Command {
        let argv = &self.cmd.argv;
        let mut cmd = process::command(&argv[0]);
        cmd.args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        process::own_group(&mut cmd);
        for (k, v) in &self.cmd.env {
            cmd.env(k, v);
        }
        if let Some(d) = &self.cmd.cwd {
            cmd.current_dir(d);
        }
        cmd
    }

    /// Record the started server in the trace and list the session in the
    /// registry (`mcpscope sessions`), when it can be.
    fn register(
        &self,
        trace: &Trace,
        name: &str,
        spec: &ServerSpec,
        child_pid: u32,
        (trace_path, owned): (&Path, bool),
        say: &dyn Fn(&str),
    ) -> Option<Registration> {
        let argv = &self.cmd.argv;
        let pid = std::process::id();
        let mut spawn = Event::Spawn {
            argv: argv.clone(),
            pid: Some(child_pid),
            cwd: self.cmd.cwd.as_ref().map(|p| p.display().to_string()),
        }
        .to_json();
        crate::protocol::secrets::redact_json(&mut spawn);
        trace.append(|s, now| s.append_meta(super::observer::CHANNEL, now, &spawn));
        let server = spec.to_json(true)["argv"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        Registration::register(Entry::starting(
            name.to_string(),
            pid,
            "stdio",
            server,
            trace_path.to_path_buf(),
            owned,
            self.check,
        ))
        .map_err(|e| say(&format!("not listed in `mcpscope sessions`: {e}")))
        .ok()
    }
}

/// The server could not be started: say so in the trace, stop observing and
/// remove the trace when it was the proxy's own.
fn not_started(trace: &Trace, observed: Observed, why: String, owned: Option<&PathBuf>) -> Outcome {
    let ev = Event::Failed {
        request: None,
        error: why.clone(),
    };
    trace.append(|s, now| s.append_event(super::observer::CHANNEL, now, &ev));
    let _ = observed.abandon();
    if let Some(path) = owned {
        let _ = std::fs::remove_file(path);
    }
    Outcome::Failed(why)
}

/// What the trace is missing, said whether asked or not.
fn say_incomplete(lost: u64, recording_error: Option<String>) {
    if lost > 0 {
        eprintln!(
            "[mcpscope] the observer fell behind: {lost} bytes were forwarded but are missing from the trace"
        );
    }
    if let Some(e) = recording_error {
        eprintln!("[mcpscope] {}", crate::protocol::sanitize::one_line(&e));
    }
}

/// What the copying threads and the server's waiter hand back.
struct Copying {
    /// The server's exit status, once it is reaped.
    exit_rx: tokio::sync::oneshot::Receiver<ExitInfo>,
    /// Set once the server is reaped (its pid may then be another's).
    reaped: Arc<AtomicBool>,
    /// Sent when the server's stdout has ended and been forwarded.
    out_done: std::sync::mpsc::Receiver<()>,
    /// Sent when the server's stderr has ended and been forwarded.
    err_done: std::sync::mpsc::Receiver<()>,
}

/// The fault engine both message streams go through, and the longest line
/// it holds whole.
type Faulted = Option<(Arc<std::sync::Mutex<super::faults::Engine>>, usize)>;

/// Start the three copying threads (host → server, server → host, server's
/// stderr) and the one that waits for the server to exit.
fn start_copying(
    host_in: File,
    host_out: File,
    mut child: std::process::Child,
    [mut h2s, mut s2h, mut err]: [Feed; 3],
    faulted: Faulted,
) -> std::io::Result<Copying> {
    let child_pid = child.id();
    let (Some(server_in), Some(server_out), Some(server_err)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        unreachable!("all three pipes were requested")
    };
    // A flooding server blocks (and wakes the copy thread) a sixteenth
    // as often; the host's own pipe is the host's and is left alone.
    crate::transport::stdio::widen_pipe(&server_out);
    let reaped = Arc::new(AtomicBool::new(false));
    let (out_done_tx, out_done) = std::sync::mpsc::channel::<()>();
    let (err_done_tx, err_done) = std::sync::mpsc::channel::<()>();
    use super::faults::{Stream, copy_lines};
    let faulted_out = faulted.clone();
    let threads = spawn_thread("proxy-host-in", move || {
        // The host's EOF (or a failed read) closes the server's stdin; a
        // server that stopped reading closes the host's side in turn.
        match faulted {
            // Only with faults are the streams framed into lines.
            Some((engine, max)) => {
                copy_lines(
                    host_in,
                    server_in,
                    &mut h2s,
                    &engine,
                    Stream::HostToServer,
                    max,
                );
            }
            None => {
                copy(host_in, server_in, &mut h2s);
            }
        }
        drop(h2s);
    })
    .and_then(|()| {
        spawn_thread("proxy-host-out", move || {
            match faulted_out {
                Some((engine, max)) => {
                    copy_lines(
                        server_out,
                        host_out,
                        &mut s2h,
                        &engine,
                        Stream::ServerToHost,
                        max,
                    );
                }
                None => {
                    copy(server_out, host_out, &mut s2h);
                }
            }
            drop(s2h);
            let _ = out_done_tx.send(());
        })
    })
    .and_then(|()| {
        spawn_thread("proxy-stderr", move || {
            copy(server_err, std::io::stderr(), &mut err);
            drop(err);
            let _ = err_done_tx.send(());
        })
    });
    let (exit_tx, exit_rx) = tokio::sync::oneshot::channel();
    let reaped_w = reaped.clone();
    let threads = threads.and_then(|()| {
        spawn_thread("proxy-wait", move || {
            let status = child.wait();
            crate::platform::started::reaped(child_pid);
            reaped_w.store(true, Ordering::SeqCst);
            let info = match status {
                Ok(st) => {
                    let (code, signal) = process::exit_parts(&st);
                    ExitInfo { code, signal }
                }
                Err(_) => ExitInfo::default(),
            };
            let _ = exit_tx.send(info);
        })
    });
    threads?;
    Ok(Copying {
        exit_rx,
        reaped,
        out_done,
        err_done,
    })
}

/// Wait until everything the server wrote before it ended is forwarded:
/// stdout and stderr both, unless a process it left behind keeps one open
/// (the grace bounds the wait).
async fn drain_output(
    out_done: std::sync::mpsc::Receiver<()>,
    err_done: std::sync::mpsc::Receiver<()>,
) {
    let _ = tokio::task::spawn_blocking(move || {
        let deadline = std::time::Instant::now() + STDOUT_GRACE;
        let _ = out_done.recv_timeout(STDOUT_GRACE);
        let _ =
            err_done.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()));
    })
    .await;
}

/// End this process the way the server ended: its exit code, or the same
/// signal (with the default action), so the host sees what it would have
/// seen running the server directly.
pub fn exit_like(exit: ExitInfo) -> ! {
    crate::trace::record::wait_all();
    if let Some(sig) = exit.signal {
        crate::signals::die_by(sig);
    }
    #[allow(
        clippy::exit,
        reason = "the proxy ends as its server ended, with its code"
    )]
    std::process::exit(exit.code.unwrap_or(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_program_or_what_a_launcher_runs() {
        let n = |a: &[&str]| default_name(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(n(&["/usr/bin/my-server", "--x"]), "my-server");
        assert_eq!(
            n(&[
                "npx",
                "-y",
                "@modelcontextprotocol/server-everything@2025.1.1"
            ]),
            "server-everything"
        );
        assert_eq!(n(&["python3", "-u", "/srv/weather.py"]), "weather");
        assert_eq!(n(&["uvx", "mcp-server-git"]), "mcp-server-git");
        assert_eq!(n(&["node"]), "node");
    }
}
