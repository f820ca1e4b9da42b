//! Checking budgets (DESIGN §7, issue 4), side by side in one run:
//! 1. ingest of a 1,000,000-notification flood into a store, with and without
//!    the rule engine observing every event (budget: checking adds <= 10%);
//! 2. `check --trace` on a 1,000,000-event trace versus just reading it
//!    (budget: <= 3x), in a fresh process of its own.
//!
//! Run: `cargo run --release --example check_bench [COUNT]`

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

use mcpscope::checks::{CheckConfig, Sessions, Verdict};
use mcpscope::cli::check::check_store;
use mcpscope::cli::replay::load;
use mcpscope::trace::reader::read_trace;
use mcpscope::trace::record::Recorder;
use mcpscope::trace::{Dir, Store};
use serde_json::json;

#[path = "support/timing.rs"]
mod timing;
use timing::{best, thread_cpu};

/// The trace half, in its own process: prints read seconds, events read,
/// check seconds, findings and calls.
fn trace_phase(path: &std::path::Path) {
    let (read_s, n) = best(3, || read_trace(path).map(|(_, e)| e.len()).unwrap_or(0));
    let (check_s, report) = best(3, || {
        let (_, store) = load(path).expect("load");
        check_store(
            &store,
            CheckConfig::default(),
            json!({}),
            &Verdict::default(),
        )
    });
    println!(
        "{read_s} {n} {check_s} {} {}",
        report.findings.len(),
        report.calls.len()
    );
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--trace-phase") {
        let path = std::env::args().nth(2).expect("trace path");
        trace_phase(std::path::Path::new(&path));
        return;
    }
    // `--one none|plain|checked COUNT`: one ingest round and nothing else,
    // for instruction counting (`valgrind --tool=callgrind`), which is
    // repeatable where wall time on a shared machine is not.
    let one = (std::env::args().nth(1).as_deref() == Some("--one"))
        .then(|| std::env::args().nth(2).unwrap_or_default());
    let count: u64 = std::env::args()
        .nth(if one.is_some() { 3 } else { 1 })
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    // The demo `flood` tool's exact line shape, a request before and the
    // response after; 20 µs apart so the flood rule fires once, as it would.
    let mut frames: Vec<(Dir, u64, Vec<u8>)> = Vec::with_capacity(count as usize + 2);
    frames.push((
        Dir::Out,
        0,
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flood","arguments":{"count":1000000},"_meta":{"progressToken":"mcpscope-1"}}}"#.to_vec(),
    ));
    for i in 1..=count {
        let line = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"mcpscope-1","progress":{i},"total":{count},"message":"item {i}"}}}}"#
        );
        frames.push((Dir::In, i * 20, line.into_bytes()));
    }
    frames.push((
        Dir::In,
        (count + 1) * 20,
        br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}],"isError":false}}"#.to_vec(),
    ));
    let bytes: usize = frames.iter().map(|f| f.2.len() + 1).sum();

    // 1. Ingest with and without the checker.
    let ingest = |check: bool| {
        let mut store = Store::default();
        // What live checks and `check --trace` run: the engines per host
        // session (one here, as for any trace that names none).
        let mut checker = Sessions::new(CheckConfig::default());
        let mut findings = Vec::new();
        let mut routes = Vec::new();
        // As the live checks task does: it wakes on the store's "changed"
        // signal and walks what arrived since (`Store::range`), here every
        // `WAKE` events; a flood fills far bigger batches between wake-ups.
        const WAKE: usize = 1024;
        let mut next = 0;
        for (i, (dir, t, b)) in frames.iter().enumerate() {
            store.append_frame(*dir, "stdio", *t, b, &mut routes);
            if check && (i % WAKE == WAKE - 1 || i + 1 == frames.len()) {
                for ev in store.range(next, store.next_seq()) {
                    checker.observe(&ev, &mut findings);
                }
                next = store.next_seq();
            }
        }
        (store.len(), findings.len())
    };
    if let Some(mode) = one {
        match mode.as_str() {
            "plain" => println!("{:?}", ingest(false)),
            "checked" => println!("{:?}", ingest(true)),
            _ => println!("{bytes}"),
        }
        return;
    }
    // Interleave the variants so both see the same machine state.
    let mut plain = f64::MAX;
    let mut checked = f64::MAX;
    let (mut plain_cpu, mut checked_cpu) = (f64::MAX, f64::MAX);
    let mut found = 0;
    for _ in 0..5 {
        let c0 = thread_cpu();
        plain = plain.min(best(1, || ingest(false)).0);
        let c1 = thread_cpu();
        let (t, (_, n)) = best(1, || ingest(true));
        let c2 = thread_cpu();
        plain_cpu = plain_cpu.min(c1 - c0);
        checked_cpu = checked_cpu.min(c2 - c1);
        checked = checked.min(t);
        found = n;
    }

    // 2. A recorded trace of the same events.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("flood.jsonl");
    {
        let header =
            json!({"mcpscope_trace": 1, "version": "bench", "started": "now", "server": {}});
        let mut store = Store::default();
        store.set_recorder(Recorder::create(&path, &header).expect("create trace"));
        for (d, t, b) in &frames {
            store.append_frame(*d, "stdio", *t, b, &mut Vec::new());
        }
        store.flush();
    }
    let file_bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
    // Reading and checking run in a fresh process, as `mcpscope check --trace`
    // does: after the ingest rounds above, this process's heap layout decides
    // whether glibc trims freed memory and the reads fault it back in, which
    // would measure the allocator's history rather than the reader.
    let out = std::process::Command::new(std::env::current_exe().expect("current exe"))
        .arg("--trace-phase")
        .arg(&path)
        .output()
        .expect("run the trace phase");
    assert!(out.status.success(), "trace phase failed: {out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut fields = text
        .split_whitespace()
        .map(|f| f.parse::<f64>().expect("figure"));
    let mut next = || fields.next().expect("five figures");
    let (read_s, n, check_s, findings, calls) = (next(), next(), next(), next(), next());
    assert_eq!(n as u64, count + 2);

    let rate = |s: f64| count as f64 / s / 1e6;
    println!(
        "flood of {count} progress notifications ({:.1} MB), best of 5",
        bytes as f64 / 1e6
    );
    println!(
        "  ingest into the store              {plain:.3} s  {:.2} M/s",
        rate(plain)
    );
    println!(
        "  ingest + rule engine per event     {checked:.3} s  {:.2} M/s  ({found} finding: progress-flood)",
        rate(checked)
    );
    println!(
        "  checking adds {:+.1}% to ingest in wall time, {:+.1}% in this thread's CPU time ({plain_cpu:.3} s -> {checked_cpu:.3} s; budget <= +10%)",
        (checked / plain - 1.0) * 100.0,
        (checked_cpu / plain_cpu - 1.0) * 100.0
    );
    println!(
        "trace of {} events ({:.1} MB)",
        count + 2,
        file_bytes as f64 / 1e6
    );
    println!("  read_trace alone                   {read_s:.3} s");
    println!(
        "  check --trace (read+store+check+stats) {check_s:.3} s  ({findings} finding(s), {calls} call(s))"
    );
    println!("  check / read: {:.2}x (budget <= 3.00x)", check_s / read_s);
}
