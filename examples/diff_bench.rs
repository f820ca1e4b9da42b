//! The diff budget (DESIGN §7): `diff` of two 1,000,000-event traces in at
//! most 2× the time of reading both.
//!
//! Two traces of one flood call (progress with total and message, a log
//! every 1,000 notifications, the response), the second with its last
//! notifications after the response. Measured in a fresh process of its own,
//! best of 3:
//! - reading both (`read_trace`, one after the other);
//! - `diff` as the command runs it (both traces folded at once, one thread
//!   each: rule engine, calls, listings, order), then the comparison;
//! - the same, one trace after the other on one thread (what it costs in
//!   CPU), also in this thread's CPU time against reading's: on a shared
//!   machine other processes stretch wall time, not CPU time.
//!
//! `DIFF_BENCH_KEEP=PATH` only writes the first trace to PATH (for
//! profiling).
//!
//! Run: `cargo run --release --example diff_bench [COUNT]`

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

use mcpscope::cli::diff::{read_both, read_side};
use mcpscope::diff::{Tolerances, report};
use mcpscope::trace::reader::read_trace;
use mcpscope::trace::record::Recorder;
use mcpscope::trace::{Dir, Store};
use serde_json::json;
use std::path::Path;

#[path = "support/timing.rs"]
mod timing;
use timing::{best, best_cpu};

fn write(path: &Path, count: u64, late: u64) {
    let header = json!({"mcpscope_trace": 1, "version": "bench", "started": "now", "server": {}});
    let mut store = Store::default();
    store.set_recorder(Recorder::create(path, &header).expect("create trace"));
    let mut t = 0;
    let mut push = |store: &mut Store, dir: Dir, b: &[u8]| {
        t += 20;
        store.append_frame(dir, "stdio", t, b, &mut Vec::new());
    };
    push(
        &mut store,
        Dir::Out,
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"flood","arguments":{"count":1000000},"_meta":{"progressToken":"mcpscope-1"}}}"#,
    );
    let response =
        br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}],"isError":false}}"#;
    let mut events = 1;
    let mut i = 0;
    // The response is the last event, or one of the loop's.
    let end = if late == 0 { count - 1 } else { count };
    while events < end {
        i += 1;
        if i == count.saturating_sub(late) {
            push(&mut store, Dir::In, response);
            events += 1;
        }
        if i % 1000 == 0 && events + 1 < end {
            let log = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","logger":"flood","data":"at {i}"}}}}"#
            );
            push(&mut store, Dir::In, log.as_bytes());
            events += 1;
        }
        let line = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"mcpscope-1","progress":{i},"total":{count},"message":"item {i}"}}}}"#
        );
        push(&mut store, Dir::In, line.as_bytes());
        events += 1;
    }
    if late == 0 {
        push(&mut store, Dir::In, response);
    }
    store.flush();
}

/// The measuring half, in its own process: prints read, diff (two
/// threads) and diff (one thread) seconds, and the differences found.
fn phase(a: &Path, b: &Path) {
    let (read_s, n) = best(3, || {
        read_trace(a).map(|(_, e)| e.len()).unwrap_or(0)
            + read_trace(b).map(|(_, e)| e.len()).unwrap_or(0)
    });
    let tol = Tolerances::default();
    let (diff_s, r) = best(3, || {
        let (sa, sb) = read_both(a, b, None).expect("read");
        report::diff(&sa, &sb, tol)
    });
    let serial = || {
        let sa = read_side(a, None).expect("read");
        let sb = read_side(b, None).expect("read");
        report::diff(&sa, &sb, tol)
    };
    let (serial_s, _) = best(3, serial);
    let read_cpu = best_cpu(3, || {
        read_trace(a).map(|(_, e)| e.len()).unwrap_or(0)
            + read_trace(b).map(|(_, e)| e.len()).unwrap_or(0)
    });
    let serial_cpu = best_cpu(3, serial);
    println!(
        "{read_s} {n} {diff_s} {serial_s} {} {read_cpu} {serial_cpu}",
        r.summary.differences
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--phase") {
        phase(Path::new(&args[2]), Path::new(&args[3]));
        return;
    }
    let count: u64 = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    if let Ok(keep) = std::env::var("DIFF_BENCH_KEEP") {
        write(Path::new(&keep), count, 0);
        return;
    }
    write(&a, count, 0);
    write(&b, count, 3);
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len()) as f64 / 1e6;
    // A fresh process, as `mcpscope diff` runs: this one's heap is shaped
    // by writing the traces.
    let out = std::process::Command::new(std::env::current_exe().expect("current exe"))
        .arg("--phase")
        .arg(&a)
        .arg(&b)
        .output()
        .expect("run the phase");
    assert!(out.status.success(), "phase failed: {out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let f: Vec<f64> = text
        .split_whitespace()
        .map(|f| f.parse().expect("figure"))
        .collect();
    let (read_s, n, diff_s, serial_s, differences) = (f[0], f[1], f[2], f[3], f[4]);
    let (read_cpu, serial_cpu) = (f[5], f[6]);
    println!(
        "two traces of {count} events each ({:.1} MB + {:.1} MB; {n} events read), best of 3",
        size(&a),
        size(&b)
    );
    println!("  reading both (read_trace, one after the other)   {read_s:.3} s");
    println!(
        "  diff, both traces at once (as the command runs)  {diff_s:.3} s  ({differences} difference(s))"
    );
    println!("  diff, one trace after the other on one thread    {serial_s:.3} s");
    println!(
        "  diff / read: {:.2}x (budget <= 2.00x); one thread: {:.2}x",
        diff_s / read_s,
        serial_s / read_s
    );
    println!(
        "  in this thread's CPU time (one thread; unmoved by other processes): read {read_cpu:.3} s, diff {serial_cpu:.3} s: {:.2}x",
        serial_cpu / read_cpu
    );
}
