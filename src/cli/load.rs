//! `mcpscope load [SERVER] --tool T [--args JSON] --concurrency C
//! (--calls N | --duration D) [--sessions S] [--format json]`: concurrent
//! `tools/call`s, each with a progress token of its own, over one session
//! or S, with the rule engine following every session as it runs
//! (`crate::load`): throughput, errors by kind, the latency histogram on
//! the OpenTelemetry MCP buckets, percentiles, time to first progress and
//! per-call stream integrity.
//!
//! Memory stays bounded whatever N: nothing is kept per call beyond the
//! histograms and counters, and each session's store is bounded by
//! `--max-store` (64 MiB unless given).
//!
//! Exit: 0 every call ok and no error finding; 1 a call failed or an error
//! finding; 2 usage; 3 a session could not connect or was lost.

use super::call::{RequestOpts, build_args};
use super::check::Thresholds;
use super::connect::{Failure, connect, handshake};
use super::signals::Signals;
use super::spec::{ServerArgs, UsageError};
use crate::client::{CallOutcome, ClientError, Limits, Session, TokenPolicy};
use crate::format::duration_fine;
use crate::load::histogram::Histogram;
use crate::load::{Follower, Outcome, Tally};
use crate::protocol::IdKey;
use crate::protocol::sanitize::one_line;
use clap::{Args, ValueEnum};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The store bound of each session unless `--max-store` says otherwise.
const DEFAULT_STORE: usize = 64 << 20;
/// How often the live line is rewritten, and the time-based rules run.
const TICK: Duration = Duration::from_millis(250);
/// Width of the longest bar of the chart.
const BAR: usize = 40;

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadFormat {
    Text,
    Json,
}

#[derive(Args, Debug, Clone)]
pub struct LoadArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Tool to call.
    #[arg(long)]
    pub tool: String,
    /// Arguments as a JSON object.
    #[arg(long)]
    pub args: Option<String>,
    /// One argument KEY=VALUE (VALUE parsed as JSON when it parses, else a string).
    #[arg(short = 'a', long = "arg")]
    pub arg: Vec<String>,
    /// Calls in flight at once in each session.
    #[arg(long, default_value_t = 1)]
    pub concurrency: u32,
    /// Make this many calls in all.
    #[arg(
        long,
        required_unless_present = "duration",
        conflicts_with = "duration"
    )]
    pub calls: Option<u64>,
    /// Keep calling this long (e.g. 30s, 500ms, 2m; a bare number is seconds).
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Open this many sessions (stdio: server processes), each with --concurrency calls in flight.
    #[arg(long, default_value_t = 1)]
    pub sessions: u32,
    /// Keep listening this long after the last call before disconnecting,
    /// so notifications a server sends after its response are caught.
    #[arg(long, default_value_t = 200)]
    pub settle_ms: u64,
    /// Report format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: LoadFormat,
    #[command(flatten)]
    pub request: RequestOpts,
    #[command(flatten)]
    pub thresholds: Thresholds,
}

/// `30s`, `500ms`, `2m`, `1h`, or seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (e.g. 30s, 500ms, 2m)"))?;
    let secs = match unit {
        "ms" => v / 1000.0,
        "s" => v,
        "m" => v * 60.0,
        "h" => v * 3600.0,
        _ => return Err(format!("{s:?}: the unit must be ms, s, m or h")),
    };
    if !(secs.is_finite() && secs > 0.0 && secs <= 366.0 * 86_400.0) {
        return Err(format!(
            "{s:?} must be a positive duration of at most a year"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// What ends the run.
#[derive(Clone, Copy)]
enum Budget {
    Calls(u64),
    Until(Instant),
}

/// What the workers share.
struct Shared {
    tally: Mutex<Tally>,
    issued: AtomicU64,
    stop: AtomicBool,
    /// A session was lost while calls ran.
    lost: AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One open session and the engine following it.
struct Open {
    session: Arc<Session>,
    follower: Arc<Mutex<Follower>>,
    /// Ids of its calls in flight (at most --concurrency), cancelled on a signal.
    in_flight: Arc<Mutex<HashSet<IdKey>>>,
    /// Its connection was lost (said once, by the first worker to meet it).
    lost: Arc<AtomicBool>,
}

/// Calls in flight per session at most (docs/bounds.md): each is a task of
/// its own with its own token; beyond this a run measures mcpscope, not the
/// server, and memory grows with the slots.
pub const MAX_CONCURRENCY: u32 = 1024;

/// `--concurrency`, clamped to the calls there are to make and to
/// [`MAX_CONCURRENCY`], saying so on stderr when it is.
fn clamp_concurrency(asked: u32, calls: Option<u64>) -> u32 {
    let by_calls = calls.map_or(u32::MAX, |n| u32::try_from(n).unwrap_or(u32::MAX));
    let c = asked.min(by_calls).min(MAX_CONCURRENCY);
    if c < asked {
        let why = if c == MAX_CONCURRENCY {
            format!("at most {MAX_CONCURRENCY} calls are in flight per session")
        } else {
            format!("there are only {c} calls to make")
        };
        eprintln!("[load] --concurrency {asked}: {why}; running {c} at once");
    }
    c
}

/// Session `n` (0-based) could not be opened (`what` failed): said on
/// stderr, and with `--format json` also a report — no call made, `passed`
/// false, `failure: {session, kind, reason}` — so a JSON consumer always
/// gets a document. A usage error prints none.
fn not_started(a: &LoadArgs, concurrency: u32, n: u32, what: &str, e: &Failure) -> (i32, String) {
    super::call::fail(e);
    let code = match e {
        Failure::Usage(_) => 2,
        Failure::Client(_) => 3,
    };
    if code == 2 || a.format != LoadFormat::Json {
        return (code, String::new());
    }
    let tally = Tally::default();
    let report = Report {
        tool: &a.tool,
        sessions: a.sessions,
        concurrency,
        elapsed: Duration::ZERO,
        tally: &tally,
        cancelled: 0,
        interrupted: None,
        passed: false,
    };
    let mut v = report.json();
    v["failure"] = json!({"session": n + 1, "kind": what, "reason": one_line(&e.to_string())});
    (
        code,
        serde_json::to_string_pretty(&v).unwrap_or_default() + "\n",
    )
}

/// Why opening the sessions stopped.
enum Halt {
    /// A signal, with its exit code.
    Signal(i32),
    Failed(Failure),
}

fn usage(msg: impl Into<String>) -> i32 {
    super::call::fail(&Failure::Usage(UsageError(msg.into())))
}

pub async fn run(a: LoadArgs) -> i32 {
    let (code, report) = execute(a).await;
    let mut out = super::stdout::lock();
    let _ = out.write_all(report.as_bytes());
    let _ = out.flush();
    code
}

/// Why the options cannot make a load run, if they cannot.
fn invalid(a: &LoadArgs, policy: &TokenPolicy) -> Option<&'static str> {
    if matches!(policy, TokenPolicy::Explicit(_)) {
        return Some(
            "load gives every call a token of its own: --token must be auto, auto-int or none",
        );
    }
    if a.concurrency == 0 || a.sessions == 0 {
        return Some("--concurrency and --sessions must be at least 1");
    }
    if a.calls.is_none() && a.duration.is_none() {
        return Some("load needs --calls N or --duration D");
    }
    if a.calls == Some(0) {
        return Some("--calls must be at least 1");
    }
    None
}

/// Connect and initialize `--sessions` sessions; on a failure or a signal
/// the ones open are stopped and the run's code and report are returned.
async fn open_sessions(
    a: &LoadArgs,
    server: &ServerArgs,
    limits: Limits,
    cfg: &crate::checks::CheckConfig,
    concurrency: u32,
    signals: &mut Signals,
) -> Result<Vec<Open>, (i32, String)> {
    let mut open: Vec<Open> = Vec::new();
    for n in 0..a.sessions {
        // Once started, the server is stopped on every way out: a failed
        // handshake, a signal during it, a later session's failure.
        // Nothing recorded, received or exported: the session and its
        // trace are all of it that a load run keeps.
        let (session, trace) = match connect(server, None, limits).await {
            Ok(live) => (live.session, live.trace),
            Err(e) => {
                shutdown(&open).await;
                return Err(not_started(a, concurrency, n, "connection", &e));
            }
        };
        let ready = async {
            handshake(&session).await?;
            a.request.apply_log_level(&session, false).await;
            Ok::<_, Failure>(())
        };
        let halt = tokio::select! {
            r = ready => r.err().map(Halt::Failed),
            stop = signals.recv() => Some(Halt::Signal(stop.code)),
        };
        if let Some(halt) = halt {
            session.shutdown().await;
            shutdown(&open).await;
            return Err(match halt {
                Halt::Signal(c) => (c, String::new()),
                Halt::Failed(e) => not_started(a, concurrency, n, "handshake", &e),
            });
        }
        open.push(Open {
            follower: Arc::new(Mutex::new(Follower::new(n, trace.clone(), cfg.clone()))),
            session,
            in_flight: Arc::new(Mutex::new(HashSet::new())),
            lost: Arc::new(AtomicBool::new(false)),
        });
    }
    Ok(open)
}

/// One task per session that runs its checks as its trace grows.
fn spawn_syncers(open: &[Open], shared: &Arc<Shared>) -> tokio::task::JoinSet<()> {
    let mut syncers = tokio::task::JoinSet::new();
    for o in open {
        let (follower, shared) = (o.follower.clone(), shared.clone());
        let mut rx = lock(&o.follower).subscribe();
        syncers.spawn(async move {
            while rx.changed().await.is_ok() {
                let mut f = lock(&follower);
                f.sync(&mut lock(&shared.tally));
            }
        });
    }
    syncers
}

/// The run and its report (empty when it ended before any call: a usage
/// error, a failed connection; those are said on stderr).
pub async fn execute(a: LoadArgs) -> (i32, String) {
    let code = |c: i32| (c, String::new());
    let cfg = match a.thresholds.config() {
        Ok(c) => c,
        Err(e) => return code(usage(e.0)),
    };
    let args = match build_args(a.args.as_deref(), &a.arg) {
        Ok(v) => v,
        Err(e) => return code(usage(e.0)),
    };
    let limits = match a.request.limits() {
        Ok(l) => l,
        Err(e) => return code(usage(e.0)),
    };
    let policy = a.request.policy();
    if let Some(why) = invalid(&a, &policy) {
        return code(usage(why));
    }
    let concurrency = clamp_concurrency(a.concurrency, a.calls);
    let mut server = a.server.clone();
    server.max_store.get_or_insert(DEFAULT_STORE);
    let cfg = crate::checks::CheckConfig {
        tokenless_by_choice: policy == TokenPolicy::None,
        own_client: true,
        ..cfg
    };
    let mut signals = Signals::install();
    let open = match open_sessions(&a, &server, limits, &cfg, concurrency, &mut signals).await {
        Ok(o) => o,
        Err(out) => return out,
    };
    let shared = Arc::new(Shared {
        tally: Mutex::new(Tally::default()),
        issued: AtomicU64::new(0),
        stop: AtomicBool::new(false),
        lost: AtomicBool::new(false),
    });
    let started = Instant::now();
    let budget = match (a.calls, a.duration) {
        (Some(n), _) => Budget::Calls(n),
        (None, d) => Budget::Until(started + d.unwrap_or_default()),
    };
    let mut workers = tokio::task::JoinSet::new();
    let tool: Arc<str> = a.tool.as_str().into();
    let args = Arc::new(args);
    for o in &open {
        for _ in 0..concurrency {
            workers.spawn(worker(
                o.session.clone(),
                o.follower.clone(),
                o.in_flight.clone(),
                o.lost.clone(),
                shared.clone(),
                tool.clone(),
                args.clone(),
                policy.clone(),
                limits,
                budget,
            ));
        }
    }
    // Each engine follows its trace as it grows, so the store's bound never
    // evicts an event before the rules saw it (the workers' syncs alone
    // lag by the calls in flight).
    let mut syncers = spawn_syncers(&open, &shared);
    let live = std::io::stderr().is_terminal();
    let mut ticker = tokio::time::interval(TICK);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut stopped = None;
    let mut cancelled = 0u64;
    loop {
        tokio::select! {
            done = workers.join_next() => {
                if done.is_none() { break; }
            }
            _ = ticker.tick() => {
                for o in &open {
                    let mut f = lock(&o.follower);
                    f.tick(&mut lock(&shared.tally));
                }
                if live {
                    live_line(&lock(&shared.tally), a.calls, started.elapsed());
                }
            }
            stop = signals.recv(), if stopped.is_none() => {
                shared.stop.store(true, Ordering::Relaxed);
                for o in &open {
                    for id in lock(&o.in_flight).iter() {
                        let _ = o.session.cancel(id, stop.reason);
                        cancelled += 1;
                    }
                }
                workers.abort_all();
                eprintln!("[error] {}: load stopped, the calls in flight were cancelled", stop.name);
                stopped = Some(stop);
            }
        }
    }
    let elapsed = started.elapsed();
    if stopped.is_none() && a.settle_ms > 0 {
        // Late notifications are what the integrity rules are about.
        tokio::time::sleep(Duration::from_millis(a.settle_ms)).await;
    }
    if live {
        eprint!("\r\x1b[2K");
    }
    shutdown(&open).await;
    syncers.shutdown().await;
    let mut tally = std::mem::take(&mut *lock(&shared.tally));
    for o in open {
        let follower =
            Arc::try_unwrap(o.follower).map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()));
        if let Ok(f) = follower {
            f.finish(&mut tally);
        }
    }
    let lost = shared.lost.load(Ordering::Relaxed);
    let passed = stopped.is_none()
        && tally.failed() == 0
        && tally.errors_found() == 0
        && tally.unchecked == 0;
    let report = Report {
        tool: &a.tool,
        sessions: a.sessions,
        concurrency,
        elapsed,
        tally: &tally,
        cancelled,
        interrupted: stopped.map(|s| s.name),
        passed,
    };
    let text = match a.format {
        LoadFormat::Json => serde_json::to_string_pretty(&report.json()).unwrap_or_default() + "\n",
        LoadFormat::Text => report.text(),
    };
    let exit = match stopped {
        Some(stop) => stop.code,
        None if lost => 3,
        None if passed => 0,
        None => 1,
    };
    (exit, text)
}

async fn shutdown(open: &[Open]) {
    for o in open {
        o.session.shutdown().await;
    }
}

#[allow(clippy::too_many_arguments)]
async fn worker(
    session: Arc<Session>,
    follower: Arc<Mutex<Follower>>,
    in_flight: Arc<Mutex<HashSet<IdKey>>>,
    lost: Arc<AtomicBool>,
    shared: Arc<Shared>,
    tool: Arc<str>,
    args: Arc<Value>,
    policy: TokenPolicy,
    limits: Limits,
    budget: Budget,
) {
    loop {
        if shared.stop.load(Ordering::Relaxed) {
            return;
        }
        match budget {
            Budget::Calls(n) => {
                if shared.issued.fetch_add(1, Ordering::Relaxed) >= n {
                    return;
                }
            }
            Budget::Until(t) => {
                if Instant::now() >= t {
                    return;
                }
            }
        }
        let (id, token) = session.prepare_call(&policy);
        if let Some(t) = &token {
            let mut f = lock(&follower);
            let now = f.now_us();
            f.sent(t.clone(), now);
        }
        lock(&in_flight).insert(id.clone());
        let t0 = Instant::now();
        let r = session
            .call_prepared(id.clone(), token.clone(), &tool, &args, limits)
            .await;
        let us = t0.elapsed().as_micros() as u64;
        lock(&in_flight).remove(&id);
        let outcome = outcome(&r);
        {
            let mut f = lock(&follower);
            let mut tally = lock(&shared.tally);
            match &token {
                Some(t) => f.ended(t, &mut tally),
                None => f.sync(&mut tally),
            }
            tally.call(outcome, us);
        }
        if outcome == Outcome::Connection {
            // The session is gone: its other workers meet the same, and
            // one line per session says so.
            if let Err(e) = &r
                && !lost.swap(true, Ordering::Relaxed)
            {
                eprintln!("[error] connection lost: {}", one_line(&e.to_string()));
            }
            shared.lost.store(true, Ordering::Relaxed);
            return;
        }
    }
}

fn outcome(r: &Result<CallOutcome, ClientError>) -> Outcome {
    match r {
        Ok(o) if o.is_error() => Outcome::ToolError,
        Ok(_) => Outcome::Ok,
        Err(ClientError::Rpc { .. }) => Outcome::RpcError,
        Err(ClientError::Timeout { .. } | ClientError::HandshakeTimeout { .. }) => Outcome::Timeout,
        Err(ClientError::Transport(_) | ClientError::Gone(crate::client::Gone::Exited(_)))
        | Err(ClientError::Gone(crate::client::Gone::Transport(_))) => Outcome::Connection,
        Err(_) => Outcome::Protocol,
    }
}

/// `load: 120/1000 calls, 240.1/s, 0 errors, 0.5 s`, rewritten in place.
fn live_line(t: &Tally, of: Option<u64>, elapsed: Duration) {
    let secs = elapsed.as_secs_f64().max(1e-9);
    let of = of.map(|n| format!("/{n}")).unwrap_or_default();
    eprint!(
        "\r\x1b[2Kload: {}{of} calls, {:.1}/s, {} errors, {:.1} s",
        t.done,
        t.done as f64 / secs,
        t.failed(),
        elapsed.as_secs_f64()
    );
    let _ = std::io::stderr().flush();
}

struct Report<'a> {
    tool: &'a str,
    sessions: u32,
    concurrency: u32,
    elapsed: Duration,
    tally: &'a Tally,
    /// Calls in flight when a signal stopped the run, cancelled.
    cancelled: u64,
    /// The signal that stopped it.
    interrupted: Option<&'static str>,
    passed: bool,
}

fn ms(us: u64) -> f64 {
    (us as f64 / 1000.0 * 1000.0).round() / 1000.0
}

fn spread_json(h: &Histogram) -> Value {
    if h.count() == 0 {
        return Value::Null;
    }
    let p = |q| h.percentile_us(q).map(ms);
    json!({"p50": p(50.0), "p95": p(95.0), "p99": p(99.0),
           "max": h.max_us().map(ms), "mean": h.mean_us().map(ms)})
}

fn spread_text(h: &Histogram) -> String {
    let f = |v: Option<u64>| v.map_or_else(|| "-".into(), duration_fine);
    format!(
        "p50 {}  p95 {}  p99 {}  max {}",
        f(h.percentile_us(50.0)),
        f(h.percentile_us(95.0)),
        f(h.percentile_us(99.0)),
        f(h.max_us())
    )
}

impl Report<'_> {
    fn throughput(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            (self.tally.done as f64 / s * 10.0).round() / 10.0
        } else {
            0.0
        }
    }

    fn json(&self) -> Value {
        let t = self.tally;
        let (broken, more) = t.broken_streams();
        json!({
            "mcpscope_load": 1,
            "tool": self.tool,
            "sessions": self.sessions,
            "concurrency": self.concurrency,
            "calls": t.done,
            "ok": t.ok,
            "failed": t.failed(),
            "elapsed_s": (self.elapsed.as_secs_f64() * 1000.0).round() / 1000.0,
            "throughput_per_s": self.throughput(),
            "errors": t.errors,
            "latency_ms": spread_json(&t.latency),
            "histogram": t.latency.buckets()
                .map(|(le, n)| json!({"le": le, "count": n}))
                .collect::<Vec<_>>(),
            "first_progress_ms": spread_json(&t.first_progress),
            "calls_with_progress": t.with_progress,
            "progress_notifications": t.progress,
            "integrity": {
                "broken_streams": broken,
                "at_least": more,
                "findings": t.integrity_findings()
                    .map(|(r, n)| (r.id().to_string(), json!(n)))
                    .collect::<serde_json::Map<_, _>>(),
            },
            "findings": t.findings.iter()
                .map(|(r, n)| (r.id().to_string(), json!({"severity": r.severity().to_string(), "count": n})))
                .collect::<serde_json::Map<_, _>>(),
            "examples": t.examples,
            "unchecked_events": t.unchecked,
            "interrupted": self.interrupted,
            "cancelled_in_flight": self.cancelled,
            "passed": self.passed,
        })
    }

    fn text(&self) -> String {
        let t = self.tally;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "load {}: {} call(s) in {:.2} s over {} session(s), concurrency {}: {} calls/s",
            one_line(self.tool),
            t.done,
            self.elapsed.as_secs_f64(),
            self.sessions,
            self.concurrency,
            self.throughput()
        );
        let errors: Vec<String> = t.errors.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let _ = writeln!(
            s,
            "ok {}, failed {}{}",
            t.ok,
            t.failed(),
            if errors.is_empty() {
                String::new()
            } else {
                format!(" ({})", errors.join(", "))
            }
        );
        let _ = writeln!(s, "latency         {}", spread_text(&t.latency));
        if t.with_progress > 0 {
            let _ = writeln!(
                s,
                "first progress  {}  ({} call(s) had progress, {} notifications)",
                spread_text(&t.first_progress),
                t.with_progress,
                t.progress
            );
        } else {
            let _ = writeln!(
                s,
                "first progress  none: no call got a progress notification"
            );
        }
        s.push_str("\nlatency histogram (mcp.client.operation.duration buckets, seconds)\n");
        s.push_str(&chart(&t.latency));
        let (broken, more) = t.broken_streams();
        s.push('\n');
        if t.progress == 0 && t.integrity_findings().next().is_none() {
            s.push_str("stream integrity: no progress to judge (no call got a notification)\n");
        } else if t.integrity_findings().next().is_none() {
            let _ = writeln!(
                s,
                "stream integrity: every call's progress stayed on its own token, increased, and stopped with its response"
            );
        } else {
            let _ = writeln!(
                s,
                "stream integrity: {}{broken} call(s) broke it",
                if more { "at least " } else { "" }
            );
            for (r, n) in t.integrity_findings() {
                let _ = writeln!(s, "  {} ({}): {n}", r.id(), r.severity());
            }
        }
        if t.findings.is_empty() {
            s.push_str("findings: none\n");
        } else {
            s.push_str("findings by rule:\n");
            for (r, n) in &t.findings {
                let _ = writeln!(s, "  {:<34}  {:<7}  {n}", r.id(), r.severity().to_string());
            }
            for f in t.examples.iter().take(3) {
                let _ = writeln!(s, "  e.g. {}", one_line(&f.to_string()));
            }
        }
        if t.unchecked > 0 {
            let _ = writeln!(
                s,
                "[incomplete] {} events were evicted (--max-store) before the rules saw them",
                t.unchecked
            );
        }
        if let Some(sig) = self.interrupted {
            let _ = writeln!(
                s,
                "INTERRUPTED by {sig}: {} call(s) in flight were cancelled",
                self.cancelled
            );
        }
        let _ = writeln!(s, "{}", if self.passed { "PASS" } else { "FAIL" });
        s
    }
}

/// The OpenTelemetry buckets up to the last one holding a call, each with
/// its count and a bar (eighths of a block).
fn chart(h: &Histogram) -> String {
    let rows: Vec<(Option<f64>, u64)> = h.buckets().collect();
    let last = rows.iter().rposition(|(_, n)| *n > 0).unwrap_or(0);
    let top = rows.iter().map(|(_, n)| *n).max().unwrap_or(0).max(1);
    let mut s = String::new();
    for (le, n) in &rows[..=last.max(rows.len().min(6) - 1)] {
        let label = match le {
            Some(b) => format!("≤ {b}"),
            None => "> 300".into(),
        };
        let eighths = (*n as f64 / top as f64 * (BAR * 8) as f64).round() as usize;
        let mut bar = "█".repeat(eighths / 8);
        if !eighths.is_multiple_of(8) {
            bar.push([' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'][eighths % 8]);
        }
        if *n > 0 && bar.is_empty() {
            bar.push('▏');
        }
        let _ = writeln!(s, "{}", format!("  {label:>7}  {n:>9}  {bar}").trim_end());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("3d").is_err());
        assert!(parse_duration("x").is_err());
    }

    #[test]
    fn the_chart_scales_bars_to_the_fullest_bucket() {
        let mut h = Histogram::default();
        for _ in 0..80 {
            h.record(5_000);
        }
        for _ in 0..10 {
            h.record(150_000);
        }
        let c = chart(&h);
        let lines: Vec<&str> = c.lines().collect();
        assert_eq!(lines.len(), 6, "{c}");
        assert!(lines[0].contains("≤ 0.01") && lines[0].ends_with(&"█".repeat(BAR)));
        assert!(lines[4].contains("≤ 0.2") && lines[4].ends_with(&"█".repeat(BAR / 8)));
        assert!(lines[1].trim_end().ends_with(" 0"));
    }
}
