//! The OTLP exporter's budget (`--otlp`): a session with the
//! receiver and the exporter on ingests a 1,000,000-notification flood
//! within 5% of one with both off, and the exporter never holds more than
//! its queue.
//!
//! The demo server's `flood` tool is called through the real stdio
//! transport (as `flood_bench` does), the live checks on in every setup,
//! in three setups alternated A B C, A B C, A B C on one machine:
//!
//! - A: both off;
//! - B: an OTLP receiver on the session's trace, and a live export to a
//!   real OTLP/HTTP backend on loopback (a second mcpscope receiver on a
//!   trace of its own, decoding the protobuf for real);
//! - C: the live export with its backend down (a loopback port nothing
//!   listens on).
//!
//! Each setup's figure is the best of its three runs (the median is said
//! beside), in wall time and in this process's CPU time over the call
//! (which the machine's other load does not stretch); each call starts
//! after a second of idle.
//!
//! Then an exporter-heavy session: many `ping` requests (20,000), 64 in
//! flight, each one a span, with the export off, on with the default
//! queue, and on with a queue of 256, alternated the same way: the spans of
//! requests that end within the linger are queued together at the end,
//! where they wait for room rather than drop, and the exporter's peak must
//! stay within its queue.
//!
//! Run: `cargo build --release && cargo run --release --example otlp_export_bench [COUNT [PINGS]]`

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

#[path = "support/release_bin.rs"]
mod release_bin;

use futures_util::StreamExt;
use mcpscope::checks::{CheckConfig, LiveChecks};
use mcpscope::client::{ClientOptions, Limits, Session, TokenPolicy};
use mcpscope::otel::Receiver;
use mcpscope::otel::export::{Config, Context, LiveExport, Report};
use mcpscope::trace::{MonotonicClock, Store, Trace};
use mcpscope::transport::stdio::CommandSpec;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROUNDS: usize = 3;
const BUDGET: f64 = 1.05;
const IN_FLIGHT: usize = 64;
const FINISH: Duration = Duration::from_secs(5);
/// Idle before each measured call, so no run starts in the tail of the last.
const SETTLE: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, PartialEq)]
enum Setup {
    /// A: receiver and exporter off.
    Off,
    /// B: receiver on, exporter on to a live backend.
    On,
    /// C: exporter on, backend down.
    Down,
}

impl Setup {
    fn label(self) -> &'static str {
        match self {
            Setup::Off => "A both off",
            Setup::On => "B receiver + exporter on",
            Setup::Down => "C exporter on, backend down",
        }
    }
}

/// What one export made of a run.
struct Exported {
    report: Report,
    queue: usize,
    /// Spans the backend's trace holds afterwards (`None`: backend down).
    backend_spans: Option<usize>,
    /// How long `finish` took (the rest folded, sent, waited for).
    finish_s: f64,
}

struct Run {
    secs: f64,
    /// This process's CPU time over the call (the server's is not in it).
    cpu: f64,
    received: u64,
    export: Option<Exported>,
}

/// CPU time of this whole process (every thread), in seconds: the cost of
/// ingest, checks and export however the machine's other load stretches
/// wall time.
fn process_cpu() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

fn new_trace() -> Trace {
    Trace::new(Store::default(), MonotonicClock::new())
}

fn context() -> Context {
    Context {
        wall_start_us: Context::now_minus(0),
        proxy: false,
        transport: "pipe",
        server: None,
    }
}

fn spawn(bin: &Path, trace: &Trace) -> Arc<Session> {
    let spec = CommandSpec {
        argv: vec![bin.display().to_string(), "demo-server".into()],
        ..Default::default()
    };
    Session::spawn_stdio(&spec, ClientOptions::default(), trace.clone()).expect("spawn")
}

/// A port on loopback that nothing listens on.
fn dead_url() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    drop(l);
    format!("http://127.0.0.1:{port}")
}

/// The export of a session that ended: finished, and checked against its queue.
async fn finish(live: LiveExport, queue: usize, backend: Option<(Receiver, Trace)>) -> Exported {
    let t0 = Instant::now();
    let report = live.finish(FINISH).await;
    let finish_s = t0.elapsed().as_secs_f64();
    assert!(
        report.peak_held <= queue,
        "the exporter held {} spans, over its queue of {queue}",
        report.peak_held
    );
    // The receiver answers an export once its spans are in the trace.
    let backend_spans = backend.map(|(_, t)| t.read().otel_spans().len());
    Exported {
        report,
        queue,
        backend_spans,
        finish_s,
    }
}

/// Start the export a setup asks for: the live export, its queue, and the
/// backend it sends to when that is up.
async fn start_export(
    setup: Setup,
    trace: &Trace,
    checks: &LiveChecks,
    queue: Option<usize>,
) -> Option<(LiveExport, usize, Option<(Receiver, Trace)>)> {
    let (url, backend) = match setup {
        Setup::Off => return None,
        Setup::On => {
            let bt = new_trace();
            let r = Receiver::start(bt.clone()).await.expect("backend listens");
            (r.endpoint(), Some((r, bt)))
        }
        Setup::Down => (dead_url(), None),
    };
    let mut cfg = Config::new(&url).expect("url");
    if let Some(q) = queue {
        cfg.queue = q;
    }
    let live = LiveExport::start(trace.clone(), Some(checks.clone()), &cfg, context());
    Some((live, cfg.queue, backend))
}

/// One flood through a fresh session in `setup`.
async fn flood(bin: &Path, count: u64, setup: Setup) -> Run {
    let trace = new_trace();
    let checks = LiveChecks::spawn(trace.clone(), CheckConfig::default());
    // B's own receiver: the server could export to it (the demo server does not).
    let receiver = match setup {
        Setup::On => Some(
            Receiver::start(trace.clone())
                .await
                .expect("receiver listens"),
        ),
        _ => None,
    };
    let export = start_export(setup, &trace, &checks, None).await;
    let session = spawn(bin, &trace);
    session.initialize().await.expect("initialize");
    let limits = Limits {
        idle: Some(Duration::from_secs(60)),
        max: Some(Duration::from_secs(600)),
    };
    tokio::time::sleep(SETTLE).await;
    let c0 = process_cpu();
    let t0 = Instant::now();
    let out = session
        .call_tool(
            "flood",
            &json!({"count": count}),
            &TokenPolicy::AutoString,
            limits,
        )
        .await
        .expect("flood call");
    let secs = t0.elapsed().as_secs_f64();
    let cpu = process_cpu() - c0;
    let received = trace
        .read()
        .token(out.token.as_ref().expect("token"))
        .map_or(0, |t| t.notifications);
    session.shutdown().await;
    let export = match export {
        Some((live, queue, backend)) => Some(finish(live, queue, backend).await),
        None => None,
    };
    drop(receiver);
    drop(checks);
    Run {
        secs,
        cpu,
        received,
        export,
    }
}

/// `n` pings, [`IN_FLIGHT`] at once, through a fresh session.
async fn pings(
    bin: &Path,
    n: usize,
    setup: Setup,
    queue: Option<usize>,
) -> (f64, Option<Exported>) {
    let trace = new_trace();
    let checks = LiveChecks::spawn(trace.clone(), CheckConfig::default());
    let export = start_export(setup, &trace, &checks, queue).await;
    let session = spawn(bin, &trace);
    session.initialize().await.expect("initialize");
    let limits = Limits {
        idle: Some(Duration::from_secs(60)),
        max: Some(Duration::from_secs(120)),
    };
    let s = &*session;
    let t0 = Instant::now();
    let answered = futures_util::stream::iter(0..n)
        .map(|_| s.request("ping", None, limits))
        .buffer_unordered(IN_FLIGHT)
        .filter(|r| std::future::ready(r.is_ok()))
        .count()
        .await;
    let secs = t0.elapsed().as_secs_f64();
    assert_eq!(answered, n, "every ping is answered");
    session.shutdown().await;
    let export = match export {
        Some((live, queue, backend)) => Some(finish(live, queue, backend).await),
        None => None,
    };
    drop(checks);
    (secs, export)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[s.len() / 2]
}

fn best(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::MAX, f64::min)
}

fn export_line(e: &Exported) -> String {
    let r = &e.report;
    let backend = e.backend_spans.map_or("backend down".to_string(), |n| {
        format!("backend holds {n} spans")
    });
    format!(
        "sent {} dropped {} failed {} peak_held {} (queue {}: {}), {backend}, finish {:.2} s{}",
        r.sent,
        r.dropped,
        r.failed,
        r.peak_held,
        e.queue,
        if r.peak_held <= e.queue { "ok" } else { "OVER" },
        e.finish_s,
        r.error
            .as_ref()
            .map_or(String::new(), |why| format!(" [{why}]"))
    )
}

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let n_pings: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let bin = release_bin::release_bin();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let setups = [Setup::Off, Setup::On, Setup::Down];

    println!(
        "otlp export: flood of {count} progress notifications, live checks on in every setup, \
         {ROUNDS} rounds of A B C alternated"
    );
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); setups.len()];
    let mut cpus: Vec<Vec<f64>> = vec![Vec::new(); setups.len()];
    let mut exports: Vec<Vec<Exported>> = setups.iter().map(|_| Vec::new()).collect();
    for round in 1..=ROUNDS {
        for (i, &setup) in setups.iter().enumerate() {
            let run = rt.block_on(flood(&bin, count, setup));
            assert_eq!(
                run.received,
                count,
                "{}: every notification arrives",
                setup.label()
            );
            println!(
                "  round {round} {:<28} {:.3} s  {:.2} M notif/s  cpu {:.3} s",
                setup.label(),
                run.secs,
                count as f64 / run.secs / 1e6,
                run.cpu
            );
            if let Some(e) = &run.export {
                println!("      exporter: {}", export_line(e));
                if setup == Setup::On {
                    assert!(e.report.sent > 0, "the live backend took the spans");
                    assert_eq!(e.backend_spans, Some(e.report.sent as usize));
                }
            }
            times[i].push(run.secs);
            cpus[i].push(run.cpu);
            if let Some(e) = run.export {
                exports[i].push(e);
            }
        }
    }

    println!("flood of {count}: best of {ROUNDS} runs (median in brackets)");
    for (i, setup) in setups.iter().enumerate() {
        let (b, m) = (best(&times[i]), median(&times[i]));
        println!(
            "  {:<28} {b:.3} s  {:.2} M notif/s   ({m:.3} s  {:.2} M notif/s)   cpu {:.3} s ({:.3} s)",
            setup.label(),
            count as f64 / b / 1e6,
            count as f64 / m / 1e6,
            best(&cpus[i]),
            median(&cpus[i])
        );
    }
    let (a_best, a_med) = (best(&times[0]), median(&times[0]));
    for (i, what) in [
        (1, "B/A (receiver + exporter on)"),
        (2, "C/A (backend down)"),
    ] {
        let ratio = best(&times[i]) / a_best;
        println!(
            "  time {what:<30} {:>6.1}%  (median {:.1}%)  (budget ≤ {:.0}%): {}",
            ratio * 100.0,
            median(&times[i]) / a_med * 100.0,
            BUDGET * 100.0,
            if ratio <= BUDGET { "ok" } else { "OVER BUDGET" }
        );
    }
    for (i, what) in [
        (1, "B/A (receiver + exporter on)"),
        (2, "C/A (backend down)"),
    ] {
        println!(
            "  cpu  {what:<30} {:>6.1}%  (median {:.1}%)  (this process's CPU over the call)",
            best(&cpus[i]) / best(&cpus[0]) * 100.0,
            median(&cpus[i]) / median(&cpus[0]) * 100.0
        );
    }
    for (i, setup) in setups.iter().enumerate().skip(1) {
        let es = &exports[i];
        let peak = es.iter().map(|e| e.report.peak_held).max().unwrap_or(0);
        let sent: Vec<u64> = es.iter().map(|e| e.report.sent).collect();
        let failed: Vec<u64> = es.iter().map(|e| e.report.failed).collect();
        let dropped: u64 = es.iter().map(|e| e.report.dropped).sum();
        let ev_dropped = es.first().map_or(0, |e| e.report.events_dropped);
        println!(
            "  exporter, {}: spans sent {sent:?} failed {failed:?} dropped {dropped} per run; \
             peak_held {peak} ≤ queue {}; span events past the per-span bound, counted: {ev_dropped}",
            setup.label(),
            es.first().map_or(0, |e| e.queue)
        );
    }

    println!(
        "exporter-heavy session: {n_pings} pings, {IN_FLIGHT} in flight, each one a span, live checks on"
    );
    let runs: [(&str, Setup, Option<usize>); 3] = [
        ("export off", Setup::Off, None),
        ("export on, default queue", Setup::On, None),
        ("export on, queue 256", Setup::On, Some(256)),
    ];
    let mut ping_times: Vec<Vec<f64>> = runs.iter().map(|_| Vec::new()).collect();
    for round in 1..=ROUNDS {
        for (i, &(what, setup, queue)) in runs.iter().enumerate() {
            let (secs, export) = rt.block_on(pings(&bin, n_pings, setup, queue));
            println!(
                "  round {round} {what:<26} {secs:.3} s  {:>6.0} pings/s",
                n_pings as f64 / secs
            );
            if let Some(e) = export {
                let r = &e.report;
                let made = r.made;
                assert_eq!(made, r.sent + r.dropped + r.failed + r.rejected);
                println!(
                    "      spans made {made} (+{} not opened): {}",
                    r.not_opened,
                    export_line(&e)
                );
                assert_eq!(e.backend_spans, Some(r.sent as usize));
            }
            ping_times[i].push(secs);
        }
    }
    println!("{n_pings} pings: best of {ROUNDS} runs (median in brackets)");
    let off = best(&ping_times[0]);
    for (i, (what, _, _)) in runs.iter().enumerate() {
        let (b, m) = (best(&ping_times[i]), median(&ping_times[i]));
        println!(
            "  {what:<26} {b:.3} s  {:>6.0} pings/s   ({m:.3} s)   {:.1}% of the time with the export off",
            n_pings as f64 / b,
            b / off * 100.0
        );
    }
}
