//! The HTML export's budgets (DESIGN §7), side by side for 1k, 100k and 1M
//! events: the page's size against its trace's (budget ≤ 1.5×), the time
//! `export --format html` takes, and the time headless Chromium takes to
//! open it (budget ≤ 2 s for 100k events) — the page's own `data-ready-ms`
//! (performance.now() once everything is drawn) and Chromium's wall time
//! to the dumped DOM less its wall time for an empty page.
//!
//! The traces are written here: calls of a tool that reports progress in
//! bursts, with log messages between, as a recording of them reads.
//!
//! Run: `cargo build --release && cargo run --release --example html_bench [COUNT...]`
//! (needs `chromium`).

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

#[path = "support/release_bin.rs"]
mod release_bin;

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Events per call: its request, progress, logs and response.
const PER_CALL: u64 = 100;

fn write_trace(path: &Path, events: u64) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(f, r#"{{"mcpscope_trace":1,"recorded_as":"client","server":{{"argv":["bench-server"],"name":"bench","transport":"stdio"}},"started":"2026-01-01T00:00:00Z","version":"0.1.0"}}"#).unwrap();
    let (mut seq, mut t_us, mut call) = (0u64, 0u64, 0u64);
    let mut line = |f: &mut std::io::BufWriter<std::fs::File>, dir: &str, json: String, dt: u64| {
        let seq = &mut seq;
        t_us += dt;
        writeln!(
            f,
            r#"{{"seq":{},"t":{}.{:06},"dir":"{dir}","ch":"stdio","json":{json}}}"#,
            *seq,
            t_us / 1_000_000,
            t_us % 1_000_000
        )
        .unwrap();
        *seq += 1;
        *seq
    };
    let mut written = 0;
    while written < events {
        call += 1;
        let left = (events - written).clamp(2, PER_CALL);
        line(
            &mut f,
            "out",
            format!(
                r#"{{"jsonrpc":"2.0","id":{call},"method":"tools/call","params":{{"name":"build_report","arguments":{{"tasks":{}}},"_meta":{{"progressToken":"tok-{call}"}}}}}}"#,
                left - 2
            ),
            200,
        );
        for k in 1..left - 1 {
            if k % 30 == 0 {
                line(
                    &mut f,
                    "in",
                    format!(
                        r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","logger":"tracker","data":"call {call}: task {k} done"}}}}"#
                    ),
                    150,
                );
            } else {
                // Bursts: ten at once, then a pause.
                let dt = if k % 10 == 0 { 20_000 } else { 40 };
                line(
                    &mut f,
                    "in",
                    format!(
                        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"tok-{call}","progress":{k},"total":{},"message":"Task {k}: compiling module {k}"}}}}"#,
                        left - 2
                    ),
                    dt,
                );
            }
        }
        written = line(
            &mut f,
            "in",
            format!(
                r#"{{"jsonrpc":"2.0","id":{call},"result":{{"content":[{{"type":"text","text":"report {call}: {} tasks done"}}]}}}}"#,
                left - 2
            ),
            500,
        );
    }
}

fn chromium(url: &str, profile: &Path) -> (f64, String) {
    let start = Instant::now();
    let out = Command::new("chromium")
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--proxy-server=127.0.0.1:9",
            "--proxy-bypass-list=<-loopback>",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--virtual-time-budget=120000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .output()
        .expect("chromium (apt-get install chromium)");
    let secs = start.elapsed().as_secs_f64();
    (secs, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// An attribute of the page's `<body>` (which the page sets once drawn).
fn attr(dom: &str, name: &str) -> String {
    let key = format!("{name}=\"");
    let body = dom.find("<body").map_or("", |at| {
        let tag = &dom[at..];
        &tag[..tag.find('>').unwrap_or(0)]
    });
    body.find(&key)
        .map(|at| {
            let v = &body[at + key.len()..];
            v[..v.find('"').unwrap_or(0)].to_string()
        })
        .unwrap_or_else(|| "?".into())
}

fn main() {
    let bin = release_bin::release_bin();
    let counts: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("COUNT"))
        .collect();
    let counts = if counts.is_empty() {
        vec![1_000, 100_000, 1_000_000]
    } else {
        counts
    };
    let dir = tempfile::tempdir().unwrap();
    let profile = dir.path().join("profile");
    let empty = dir.path().join("empty.html");
    std::fs::write(&empty, "<!doctype html><title>empty</title>").unwrap();
    // Chromium's own start, warm, best of three.
    let base = (0..3)
        .map(|_| chromium(&format!("file://{}", empty.display()), &profile).0)
        .fold(f64::INFINITY, f64::min);
    println!("chromium, an empty page: {base:.2} s (taken off the open times)");
    println!(
        "{:>9} {:>11} {:>11} {:>6} {:>9} {:>9} {:>11} {:>6}",
        "events", "trace", "page", "ratio", "export", "ready", "open(wall)", "state"
    );
    for n in counts {
        let trace = dir.path().join(format!("t{n}.jsonl"));
        write_trace(&trace, n);
        let page = dir.path().join(format!("t{n}.html"));
        let t = Instant::now();
        let st = Command::new(&bin)
            .args(["export", trace.to_str().unwrap(), "--format", "html", "-o"])
            .arg(&page)
            .status()
            .unwrap();
        assert!(st.success());
        let export_s = t.elapsed().as_secs_f64();
        let (ts, ps) = (
            std::fs::metadata(&trace).unwrap().len(),
            std::fs::metadata(&page).unwrap().len(),
        );
        let (wall, dom) = (0..2)
            .map(|_| chromium(&format!("file://{}", page.display()), &profile))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .unwrap();
        println!(
            "{:>9} {:>9.1}KB {:>9.1}KB {:>5.2}x {:>8.2}s {:>7}ms {:>10.2}s {:>6}",
            n,
            ts as f64 / 1024.0,
            ps as f64 / 1024.0,
            ps as f64 / ts as f64,
            export_s,
            attr(&dom, "data-ready-ms"),
            (wall - base).max(0.0),
            attr(&dom, "data-state"),
        );
        let _ = std::fs::remove_file(&trace);
        let _ = std::fs::remove_file(&page);
    }
}
