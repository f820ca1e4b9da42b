//! Whole-process ingest against the floor, side by side in one run: the raw
//! flood server (`examples/support/flood/flood_server.py`) sends N progress
//! notifications, read once by `mcpscope call --quiet` and once by the
//! no-parse line counter `raw_reader.py` (handshake, call, count lines until
//! the response). Both are timed from spawn to exit, rounds alternating, and
//! both start the same Python interpreter for the server.
//! Memory: the same N lines appended to a store, its bytes (events plus
//! indexes) over the raw bytes; and the peak RSS of the mcpscope process.
//!
//! Run: `cargo build --release && cargo run --release --example process_bench [N] [ROUNDS]`

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

#[path = "support/child.rs"]
mod child;
#[path = "support/python.rs"]
mod python;
#[path = "support/release_bin.rs"]
mod release_bin;

use child::{run, stats};

use mcpscope::trace::{Dir, Store};
use std::path::Path;
use std::process::Command;

fn line(label: &str, v: &[f64]) {
    let (min, med, max) = stats(v);
    println!("  {label:<34} min {min:.3} s  median {med:.3} s  max {max:.3} s");
}

/// Store bytes over raw bytes (events alone, with indexes), and the raw
/// bytes of the flood's lines.
fn store_ratio(n: u64) -> (f64, f64, f64) {
    let mut store = Store::default();
    let mut raw = 0usize;
    for i in 1..=n {
        let l = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":2,"progress":{i},"total":{n},"message":"item {i}"}}}}"#
        );
        raw += l.len() + 1;
        store.append_frame(Dir::In, "stdio", i, l.as_bytes(), &mut Vec::new());
    }
    let events = store.mem_bytes() as f64 / raw as f64;
    let all = (store.mem_bytes() + store.index_bytes()) as f64 / raw as f64;
    (events, all, raw as f64)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(7).max(5);
    let bin = release_bin::release_bin();
    let py = python::python();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/support/flood");
    let server = dir.join("flood_server.py");
    let server_cmd = format!("{} {}", py.display(), server.display());

    let (mut ours, mut floor, mut ratios, mut rss) = (vec![], vec![], vec![], vec![]);
    for round in 0..rounds {
        // Alternate which goes first so both see the same machine state.
        let mut pair = [0.0; 2];
        for k in 0..2 {
            let which = (round + k) % 2;
            if which == 0 {
                let c = run(Command::new(&bin)
                    .args(["call", "--tool", "flood", "--quiet", "--args"])
                    .arg(format!(r#"{{"count":{n}}}"#))
                    .arg("--")
                    .arg(&py)
                    .arg(&server));
                pair[0] = c.wall;
                rss.push(c.peak_rss);
            } else {
                let c = run(Command::new(&py)
                    .arg(dir.join("raw_reader.py"))
                    .arg(n.to_string())
                    .env("FLOOD_SERVER", &server_cmd));
                pair[1] = c.wall;
            }
        }
        ours.push(pair[0]);
        floor.push(pair[1]);
        ratios.push(pair[0] / pair[1]);
    }
    println!(
        "{n} progress notifications from flood_server.py, {rounds} rounds, whole process (spawn to exit)"
    );
    line("mcpscope call --quiet", &ours);
    line("no-parse reader (raw_reader.py)", &floor);
    let (rmin, rmed, rmax) = stats(&ratios);
    println!(
        "  mcpscope / floor, per round: min {rmin:.2}x  median {rmed:.2}x  max {rmax:.2}x (goal <= 1.30x)"
    );
    println!(
        "  mcpscope median rate: {:.2} M notifications/s",
        n as f64 / stats(&ours).1 / 1e6
    );
    let (events, all, raw_bytes) = store_ratio(n);
    println!("memory");
    println!("  store / raw bytes: events {events:.2}x, with indexes {all:.2}x (goal <= 1.30x)");
    println!(
        "  mcpscope peak RSS, median: {:.0} MB ({:.2}x the {:.0} MB of raw lines)",
        stats(&rss).1 / 1e6,
        stats(&rss).1 / raw_bytes,
        raw_bytes / 1e6
    );
}
