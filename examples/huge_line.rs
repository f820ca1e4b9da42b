//! Memory for one huge trace line: the peak RSS of every command that reads
//! a trace (`check --trace`, `export` in each format, `replay --print`,
//! `diff A A`, `mock` loading and serving it), against the line's size. The
//! budget is 2× the line (docs/bounds.md); `diff A A` reads two such lines.
//!
//! The trace is a real recording (`mcpscope call --demo --tool upload_file
//! --record`) with one `notifications/message` of SIZE MiB put in before the
//! call's result, so `mock` serves it inside the call it belongs to; then
//! the same with the SIZE MiB in the call's result instead (a frame the
//! mock must change: it puts the host's id in).
//!
//! Run: `cargo build --release && cargo run --release --example huge_line [SIZE_MIB]`
//! (default 300).

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

#[path = "support/release_bin.rs"]
mod release_bin;

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// The peak RSS of `cmd` in bytes, and its exit code (findings exit 1).
// The child is reaped by `wait4`, which also gives its own rusage.
#[allow(clippy::zombie_processes)]
fn peak_rss(cmd: &mut Command, feed: impl FnOnce(&mut std::process::Child)) -> (f64, i32) {
    let mut child = cmd.stderr(Stdio::null()).spawn().expect("spawn");
    feed(&mut child);
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: `rusage` is plain integers, for which all zeroes is a value.
    let mut usage = unsafe { std::mem::zeroed::<libc::rusage>() };
    // SAFETY: pid is our child; status and usage are valid out-pointers.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    assert!(libc::WIFEXITED(status), "{cmd:?} was killed");
    (usage.ru_maxrss as f64 * 1024.0, libc::WEXITSTATUS(status))
}

/// Record a demo call, then write it again at `to` with a log line of
/// `mib` MiB before the call's result. Returns the client's frames.
fn make_trace(bin: &Path, dir: &Path, to: &Path, mib: usize, in_result: bool) -> Vec<String> {
    let small = dir.join("small.trace");
    let st = Command::new(bin)
        .args([
            "call",
            "--quiet",
            "--demo",
            "--tool",
            "upload_file",
            "--record",
        ])
        .arg(&small)
        .stdout(Stdio::null())
        .status()
        .expect("record");
    assert!(st.success(), "recording the demo call failed");
    let text = std::fs::read_to_string(&small).expect("read recording");
    let mut out = BufWriter::new(std::fs::File::create(to).expect("create trace"));
    let mut client = Vec::new();
    let mut seq = 0u64;
    for (i, line) in text.lines().enumerate() {
        if i == 0 {
            writeln!(out, "{line}").unwrap();
            continue;
        }
        let mut ev: serde_json::Value = serde_json::from_str(line).expect("event");
        if ev["dir"] == "out" {
            client.push(ev["json"].to_string());
        }
        if in_result && ev["dir"] == "in" && ev["json"]["id"] == 1 {
            let t = ev["t"].as_f64().unwrap_or(0.0);
            write!(
                out,
                r#"{{"seq":{seq},"t":{t},"dir":"in","ch":"stdio","json":{{"id":1,"jsonrpc":"2.0","result":{{"content":[{{"type":"text","text":""#
            )
            .unwrap();
            let chunk = vec![b'x'; 1 << 20];
            for _ in 0..mib {
                out.write_all(&chunk).unwrap();
            }
            writeln!(out, r#""}}]}}}}}}"#).unwrap();
            seq += 1;
            continue;
        }
        if ev["dir"] == "in" && ev["json"]["id"] == 1 {
            let t = ev["t"].as_f64().unwrap_or(0.0);
            write!(
                out,
                r#"{{"seq":{seq},"t":{t},"dir":"in","ch":"stdio","json":{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":""#
            )
            .unwrap();
            let chunk = vec![b'x'; 1 << 20];
            for _ in 0..mib {
                out.write_all(&chunk).unwrap();
            }
            writeln!(out, r#""}}}}}}"#).unwrap();
            seq += 1;
        }
        ev["seq"] = seq.into();
        seq += 1;
        writeln!(out, "{ev}").unwrap();
    }
    out.flush().unwrap();
    client
}

fn main() {
    let mib: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let bin = release_bin::release_bin();
    let dir = tempfile::tempdir().expect("tempdir");
    let line = mib as f64 * (1 << 20) as f64;
    println!("one trace line of {mib} MiB ({line:.0} bytes); budget 2x the line per line read");
    let mut over = false;
    for (what, in_result) in [("a log notification", false), ("the call's result", true)] {
        let trace = dir.path().join("huge.trace");
        let client = make_trace(&bin, dir.path(), &trace, mib, in_result);
        println!("\nthe huge line is {what}");
        over |= measure(&bin, dir.path(), &trace, &client, line);
    }
    if over {
        println!("OVER BUDGET");
    }
}

/// Every command on `trace`; true when one went over the budget.
fn measure(bin: &Path, dir: &Path, trace: &Path, client: &[String], line: f64) -> bool {
    let out = |name: &str| dir.join(name);
    let trace = trace.to_path_buf();
    let export = |format: &str, file: &str| -> Vec<std::ffi::OsString> {
        vec![
            "export".into(),
            trace.clone().into(),
            "--format".into(),
            format.into(),
            "-o".into(),
            out(file).into(),
        ]
    };
    let runs: Vec<(&str, Vec<std::ffi::OsString>, f64)> = vec![
        (
            "check --trace",
            vec!["check".into(), "--trace".into(), trace.clone().into()],
            1.0,
        ),
        ("export --format json", export("json", "o.json"), 1.0),
        ("export --format mermaid", export("mermaid", "o.mmd"), 1.0),
        (
            "replay --print",
            vec!["replay".into(), trace.clone().into(), "--print".into()],
            1.0,
        ),
        (
            "diff A A (two lines)",
            vec!["diff".into(), trace.clone().into(), trace.clone().into()],
            2.0,
        ),
    ];
    println!(
        "{:<28} {:>12} {:>8} {:>6}",
        "command", "peak RSS MB", "x line", "exit"
    );
    let mut over = false;
    let mut report = |name: &str, (rss, code): (f64, i32), lines: f64| {
        let ratio = rss / (line * lines);
        over |= ratio > 2.0;
        println!("{name:<28} {:>12.1} {ratio:>8.2} {code:>6}", rss / 1e6);
    };
    for (name, args, lines) in runs {
        let r = peak_rss(
            Command::new(bin)
                .args(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::null()),
            |_| {},
        );
        report(name, r, lines);
    }
    // The mock, loading the recording and serving the call to a host that
    // sends the recorded client frames and reads until the result.
    let r = peak_rss(
        Command::new(bin)
            .args(["mock", "--speed", "0"])
            .arg(&trace)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped()),
        |child| {
            let mut stdin = child.stdin.take().expect("stdin");
            for frame in client {
                writeln!(stdin, "{frame}").expect("write to mock");
            }
            stdin.flush().ok();
            let mut lines = BufReader::new(child.stdout.take().expect("stdout"));
            let mut buf = Vec::new();
            let mut served = 0usize;
            loop {
                buf.clear();
                if lines.read_until(b'\n', &mut buf).unwrap_or(0) == 0 {
                    break;
                }
                served = served.max(buf.len());
                if buf.starts_with(br#"{"id":1,"#) {
                    break;
                }
            }
            assert!(served as f64 >= line, "the mock served the huge line");
            drop(stdin);
        },
    );
    report("mock (load and serve)", r, 1.0);
    over
}
