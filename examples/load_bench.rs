//! `mcpscope load` against the demo server: calls per second and what each
//! call costs mcpscope in CPU, beside what it costs the server.
//!
//! The load runs in this process (`cli::load::execute`, as the command runs
//! it, on a multi-thread runtime like the binary's), against the release
//! binary's `demo-server` as a child on stdio; `getrusage` gives this
//! process's CPU (`RUSAGE_SELF`: mcpscope's client, the rule engine, the
//! histograms) and the reaped server's (`RUSAGE_CHILDREN`). Each row is
//! one run of N `echo` calls (no progress) or of `flood` calls with 20
//! progress notifications each (the engine's work per notification);
//! peak RSS is printed after the smaller and the larger run: what grows
//! between them is the session's event store filling towards its bound
//! (64 MiB for `load`); the tallies themselves are fixed-size.
//!
//! Run: `cargo build --release && cargo run --release --example load_bench [N]`

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

#[path = "support/release_bin.rs"]
mod release_bin;

use clap::Parser;
use mcpscope::cli::{Cli, Cmd};
use serde_json::Value;

/// User + system CPU seconds of `who`, and the peak RSS in MiB.
fn usage(who: libc::c_int) -> (f64, f64) {
    // SAFETY: `rusage` is plain integers, for which all zeroes is a value.
    let mut u = unsafe { std::mem::zeroed::<libc::rusage>() };
    // SAFETY: getrusage writes one rusage through a valid pointer.
    unsafe { libc::getrusage(who, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    (t(u.ru_utime) + t(u.ru_stime), u.ru_maxrss as f64 / 1024.0)
}

struct Row {
    calls: u64,
    per_s: f64,
    self_us: f64,
    server_us: f64,
    progress: u64,
    rss_mib: f64,
}

fn run(rt: &tokio::runtime::Runtime, server: &str, tool: &str, args: &str, n: u64, c: u32) -> Row {
    let argv = [
        "mcpscope",
        "load",
        "--tool",
        tool,
        "--args",
        args,
        "--calls",
        &n.to_string(),
        "--concurrency",
        &c.to_string(),
        "--format",
        "json",
        "--",
        server,
        "demo-server",
    ];
    let Some(Cmd::Load(a)) = Cli::parse_from(argv).cmd else {
        unreachable!("a load command line")
    };
    let (self0, _) = usage(libc::RUSAGE_SELF);
    let (kids0, _) = usage(libc::RUSAGE_CHILDREN);
    let (code, text) = rt.block_on(mcpscope::cli::load::execute(a));
    let (self1, rss) = usage(libc::RUSAGE_SELF);
    let (kids1, _) = usage(libc::RUSAGE_CHILDREN);
    assert_eq!(code, 0, "load failed:\n{text}");
    let v: Value = serde_json::from_str(&text).expect("json report");
    let calls = v["calls"].as_u64().unwrap();
    assert_eq!(calls, n);
    Row {
        calls,
        per_s: v["throughput_per_s"].as_f64().unwrap(),
        self_us: (self1 - self0) / calls as f64 * 1e6,
        server_us: (kids1 - kids0) / calls as f64 * 1e6,
        progress: v["progress_notifications"].as_u64().unwrap(),
        rss_mib: rss,
    }
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let server = release_bin::release_bin().display().to_string();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("load_bench: demo server on stdio, {cores} core(s); CPU per call from getrusage");
    println!(
        "  {:<30} {:>8} {:>10} {:>16} {:>16} {:>8} {:>9}",
        "run", "calls", "calls/s", "mcpscope µs/call", "server µs/call", "ratio", "peak RSS"
    );
    let row = |label: &str, tool: &str, args: &str, n: u64, c: u32| {
        let r = run(&rt, &server, tool, args, n, c);
        println!(
            "  {label:<30} {:>8} {:>10.0} {:>16.1} {:>16.1} {:>8.2} {:>6.1} MiB{}",
            r.calls,
            r.per_s,
            r.self_us,
            r.server_us,
            r.self_us / r.server_us.max(1e-9),
            r.rss_mib,
            if r.progress > 0 {
                format!("  ({} progress)", r.progress)
            } else {
                String::new()
            }
        );
        r
    };
    // A first short run warms the page cache and the binary.
    run(&rt, &server, "echo", "{}", 200, 1);
    row("echo, concurrency 1", "echo", "{}", n / 4, 1);
    row("echo, concurrency 8", "echo", "{}", n / 4, 8);
    let small = row("echo, concurrency 32", "echo", "{}", n / 4, 32);
    let large = row("echo, concurrency 32, 4x calls", "echo", "{}", n, 32);
    row(
        "flood 20 progress, conc. 8",
        "flood",
        r#"{"count":20}"#,
        n / 4,
        8,
    );
    println!(
        "  peak RSS after a run of {} calls: {:.1} MiB; after a run of {}: {:.1} MiB (the event store fills towards its 64 MiB bound)",
        small.calls, small.rss_mib, large.calls, large.rss_mib
    );
}
