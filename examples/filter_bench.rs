//! The filter language's cost per message (budget: well under a
//! microsecond for a typical filter), side by side in one run: a store of
//! N events shaped like a real session (tool calls, each with progress
//! and logs, and their responses) scanned with no filter (the baseline:
//! the store's own iteration) and with typical filters — a method, a
//! direction and kind, a tool (the call index), a log level, a JSON field.
//! Prints nanoseconds per event over the baseline and the matches, in this
//! thread's CPU time (best of 5).
//!
//! Run: `cargo run --release --example filter_bench [EVENTS]`

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

use mcpscope::filter::{Filter, Matcher};
use mcpscope::trace::{Dir, Store, StoreLimits};
use serde_json::json;

#[path = "support/timing.rs"]
mod timing;
use timing::best_cpu;

fn session(n: usize) -> Store {
    let mut s = Store::new(StoreLimits {
        max_bytes: usize::MAX,
    });
    let mut routes = Vec::new();
    let mut t = 0u64;
    let mut id = 0u64;
    while s.len() < n as u64 {
        id += 1;
        let tool = ["slow_task", "upload", "build_report"][(id % 3) as usize];
        let mut push = |dir: Dir, v: serde_json::Value| {
            t += 100;
            s.append_frame(dir, "stdio", t, v.to_string().as_bytes(), &mut routes);
        };
        push(
            Dir::Out,
            json!({"jsonrpc":"2.0","id":id,"method":"tools/call",
            "params":{"name":tool,"arguments":{"n":id},"_meta":{"progressToken":format!("mcpscope-{id}")}}}),
        );
        for p in 0..16 {
            push(
                Dir::In,
                json!({"jsonrpc":"2.0","method":"notifications/progress",
                "params":{"progressToken":format!("mcpscope-{id}"),"progress":p*10,"total":150,"message":"working on it"}}),
            );
            if p % 4 == 0 {
                let level = ["debug", "info", "warning", "error"][(p / 4) as usize];
                push(
                    Dir::In,
                    json!({"jsonrpc":"2.0","method":"notifications/message",
                    "params":{"level":level,"logger":"worker","data":"step done"}}),
                );
            }
        }
        push(
            Dir::In,
            json!({"jsonrpc":"2.0","id":id,"result":{"content":[{"type":"text","text":"ok"}],"isError":false}}),
        );
    }
    s
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let store = session(n);
    let events = store.len();
    let scan = || {
        let mut k = 0usize;
        for ev in store.range(store.first_seq(), store.next_seq()) {
            // The whole event, as a filter sees it.
            k += std::hint::black_box(&ev).bytes.len() & 1;
        }
        k
    };
    let base = best_cpu(5, scan);
    println!(
        "filter_bench: {events} events; the scan alone {:.1} ns/event",
        base * 1e9 / events as f64
    );
    println!("{:<44} {:>12} {:>10}", "filter", "ns/event", "matches");
    for src in [
        "seq >= 0",
        "in",
        "method == notifications/progress",
        "in && notification && !progress",
        "tool == upload",
        "level >= warning",
        "params.progress > 50",
        "tool == slow_task && progress && params.progress >= 100",
        "text ~ \"working\"",
    ] {
        let filter = Filter::parse(src).unwrap();
        let mut matches = 0usize;
        let cpu = best_cpu(5, || {
            let mut m = Matcher::new(filter.clone());
            matches = 0;
            for ev in store.range(store.first_seq(), store.next_seq()) {
                if m.test(&ev) {
                    matches += 1;
                }
            }
        });
        println!(
            "{:<44} {:>12.1} {:>10}",
            src,
            (cpu - base).max(0.0) * 1e9 / events as f64,
            matches
        );
    }
}
