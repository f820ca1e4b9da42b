//! The binary that ships against the everyday release build, side by side
//! in one run: stripped sizes, and whole-process ingest of N progress
//! notifications from `examples/support/flood/flood_server.py` read by
//! `mcpscope call --quiet`, timed from spawn to exit. Rounds alternate which
//! binary goes first; the ratios are per pair, so both see the same machine.
//! The shipped binary must stay within 10 MB stripped and 5% of the release
//! build's ingest (docs/performance.md, "The shipped binary").
//!
//! Run: `bash packaging/dist.sh x86_64-unknown-linux-musl && cargo build --release &&
//! cargo run --release --example ship_bench [SHIPPED] [N] [ROUNDS]`
//! (SHIPPED: a stripped binary; by default the one dist.sh built and stripped.)

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

use child::{Cost, run, stats};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The stripped size of `bin` in bytes: the release build's own file is
/// stripped by its profile, a shipped one by dist.sh.
fn size(bin: &Path) -> u64 {
    std::fs::metadata(bin).map(|m| m.len()).unwrap_or(0)
}

fn ingest(bin: &Path, py: &Path, server: &Path, n: u64) -> Cost {
    run(Command::new(bin)
        .args(["call", "--tool", "flood", "--quiet", "--args"])
        .arg(format!(r#"{{"count":{n}}}"#))
        .arg("--")
        .arg(py)
        .arg(server))
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut args = std::env::args().skip(1);
    let shipped = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/x86_64-unknown-linux-musl/ship/mcpscope"));
    if !shipped.exists() {
        eprintln!(
            "{} not found: run `bash packaging/dist.sh x86_64-unknown-linux-musl`, or name the binary",
            shipped.display()
        );
        std::process::exit(2);
    }
    let n: u64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(7).max(3);
    let release = release_bin::release_bin();
    let py = python::python();
    let server = root.join("examples/support/flood/flood_server.py");

    let (mut wall, mut cpu, mut rel_wall, mut rel_cpu) = (vec![], vec![], vec![], vec![]);
    for round in 0..rounds {
        let mut pair: [Option<Cost>; 2] = [None, None];
        for k in 0..2 {
            let which = (round + k) % 2;
            let bin = if which == 0 { &shipped } else { &release };
            pair[which] = Some(ingest(bin, &py, &server, n));
        }
        let [Some(s), Some(r)] = pair else {
            unreachable!("both ran")
        };
        wall.push(s.wall / r.wall);
        cpu.push(s.cpu / r.cpu);
        rel_wall.push(r.wall);
        rel_cpu.push(r.cpu);
    }
    let (ss, rs) = (size(&shipped), size(&release));
    println!("stripped size");
    println!(
        "  shipped {}: {ss} B ({:.2} MB, budget 10 MB)",
        shipped.display(),
        ss as f64 / 1e6
    );
    println!(
        "  release {}: {rs} B ({:.2} MB)",
        release.display(),
        rs as f64 / 1e6
    );
    println!("ingest of {n} notifications, {rounds} rounds, shipped / release per pair");
    let show = |label: &str, v: &[f64], base: &[f64]| {
        let (min, med, max) = stats(v);
        println!(
            "  {label}: median {med:.3}x (min {min:.3}x, max {max:.3}x; release median {:.3} s)",
            stats(base).1
        );
    };
    show("wall", &wall, &rel_wall);
    show("CPU ", &cpu, &rel_cpu);
}
