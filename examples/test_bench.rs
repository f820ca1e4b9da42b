//! `mcpscope test`'s two budgets (DESIGN.md §8, docs/performance.md), side
//! by side in one run:
//! - a file of 10 cases against the demo server against the same calls run
//!   with `check` one by one (whole processes, rounds alternating which goes
//!   first, ratio per pair): within 10%;
//! - `test --from` on a recording of 1,000,000 progress notifications
//!   against reading that recording (the trace reader alone, in this
//!   process): at most 2x.
//!
//! Run: `cargo build --release && cargo run --release --example test_bench [ROUNDS]`

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

#[path = "support/child.rs"]
mod child;
#[path = "support/release_bin.rs"]
mod release_bin;

use child::{run, stats};
use std::process::Command;
use std::time::Instant;

/// The calls: (tool, arguments), each a case of the file and a `check`.
const CALLS: [(&str, &str); 10] = [
    ("echo", r#"{"text":"a"}"#),
    ("echo", r#"{"text":"b"}"#),
    ("echo", r#"{"text":"c"}"#),
    ("echo", r#"{"text":"d"}"#),
    ("upload_file", r#"{"size":1024}"#),
    ("upload_file", r#"{"size":2048}"#),
    ("upload_file", r#"{"size":4096}"#),
    ("build_report", r#"{"tasks":3,"delay_ms":1}"#),
    ("build_report", r#"{"tasks":4,"delay_ms":1}"#),
    ("build_report", r#"{"tasks":5,"delay_ms":1}"#),
];

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5)
        .max(3);
    let bin = release_bin::release_bin();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ten.toml");
    let mut text = String::from("[server]\ndemo = true\n");
    for (i, (tool, args)) in CALLS.iter().enumerate() {
        let table = serde_json::from_str::<serde_json::Value>(args).unwrap();
        let inline: Vec<String> = table
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        text.push_str(&format!(
            "\n[[case]]\nname = \"{i} {tool}\"\ntool = \"{tool}\"\narguments = {{ {} }}\n",
            inline.join(", ")
        ));
    }
    std::fs::write(&file, text).unwrap();

    let test = || run(Command::new(&bin).arg("test").arg(&file));
    let checks = || {
        let (mut wall, mut cpu) = (0.0, 0.0);
        for (tool, args) in CALLS {
            let c =
                run(Command::new(&bin).args(["check", "--demo", "--tool", tool, "--args", args]));
            wall += c.wall;
            cpu += c.cpu;
        }
        (wall, cpu)
    };
    let (mut wall, mut cpu, mut base) = (vec![], vec![], vec![]);
    for round in 0..rounds {
        let (t, c) = if round % 2 == 0 {
            let t = test();
            (t, checks())
        } else {
            let c = checks();
            (test(), c)
        };
        wall.push(t.wall / c.0);
        cpu.push(t.cpu / c.1);
        base.push(c.0);
    }
    let (lo, med, hi) = stats(&wall);
    println!(
        "10 cases against the demo server, {rounds} rounds, `test` / `check` one by one per pair"
    );
    println!(
        "  wall: median {med:.3}x (min {lo:.3}x, max {hi:.3}x; checks median {:.2} s){}",
        stats(&base).1,
        if med > 1.10 {
            "  OVER BUDGET (1.10x)"
        } else {
            ""
        }
    );
    let (lo, med, hi) = stats(&cpu);
    println!("  CPU : median {med:.3}x (min {lo:.3}x, max {hi:.3}x)");

    // A recording of 1,000,000 progress notifications.
    let trace = dir.path().join("flood.jsonl");
    let t0 = Instant::now();
    run(Command::new(&bin)
        .args([
            "call",
            "--demo",
            "--tool",
            "flood",
            "--quiet",
            "--args",
            r#"{"count":1000000}"#,
            "--record",
        ])
        .arg(&trace));
    let events = std::fs::read_to_string(&trace).unwrap().lines().count() - 1;
    println!(
        "recorded {events} events in {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    let (mut ratios, mut reads) = (vec![], vec![]);
    for round in 0..rounds {
        let read = || {
            let t = Instant::now();
            let l = mcpscope::cli::replay::read_into(
                &trace,
                mcpscope::trace::StoreLimits::default(),
                |_, _, _| {},
            )
            .unwrap();
            assert!(!l.store.is_empty());
            t.elapsed().as_secs_f64()
        };
        let from = || {
            run(Command::new(&bin)
                .args(["test", "--from"])
                .arg(&trace)
                .args(["-o", "/dev/null"]))
            .wall
        };
        let (r, f) = if round % 2 == 0 {
            let r = read();
            (r, from())
        } else {
            let f = from();
            (read(), f)
        };
        ratios.push(f / r);
        reads.push(r);
    }
    let (lo, med, hi) = stats(&ratios);
    println!("`test --from` on {events} events, {rounds} rounds, / reading the trace per pair");
    println!(
        "  wall: median {med:.3}x (min {lo:.3}x, max {hi:.3}x; reading median {:.2} s){}",
        stats(&reads).1,
        if med > 2.0 { "  OVER BUDGET (2x)" } else { "" }
    );
}
