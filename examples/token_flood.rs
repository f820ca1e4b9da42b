//! Memory bound under a flood of distinct progress tokens (issue 8): the real
//! `mcpscope call` against a server that answers one `tools/call` with
//! COUNT progress notifications, each for a token of its own, then the
//! result. Reports the peak RSS of the mcpscope process (from `wait4`), the
//! evictions it reported, and — with `--record` — that every frame reached
//! the recording.
//!
//! Run: `cargo build --release && cargo run --release --example token_flood [COUNT] [MAX_STORE]`
//! (defaults: 2,000,000 tokens, 64MiB). The server is this example itself,
//! re-run with `--serve`.

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
use std::process::{Command, Stdio};
use std::time::Instant;

fn serve() {
    let stdin = std::io::stdin().lock();
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    for line in stdin.lines() {
        let Ok(line) = line else { return };
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let Some(id) = msg.get("id").cloned() else {
            continue;
        };
        let result = match msg.get("method").and_then(|m| m.as_str()) {
            Some("initialize") => serde_json::json!({
                "protocolVersion": msg.pointer("/params/protocolVersion").cloned().unwrap_or_default(),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "token-flood", "version": "1"}
            }),
            Some("tools/call") => {
                let count = msg
                    .pointer("/params/arguments/count")
                    .and_then(|c| c.as_u64())
                    .unwrap_or(0);
                for i in 0..count {
                    let _ = writeln!(
                        out,
                        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"flood-{i:08}","progress":1,"total":1}}}}"#
                    );
                }
                serde_json::json!({"content": [{"type": "text", "text": format!("sent {count}")}]})
            }
            _ => serde_json::json!({}),
        };
        let reply = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result});
        let _ = writeln!(out, "{reply}");
        let _ = out.flush();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve") {
        return serve();
    }
    let count: u64 = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2_000_000);
    let max_store = args.get(2).cloned().unwrap_or_else(|| "64MiB".into());
    let bin = release_bin::release_bin();
    let me = std::env::current_exe().expect("exe");
    let dir = tempfile::tempdir().expect("tempdir");
    let record = dir.path().join("flood.jsonl");
    let t0 = Instant::now();
    // Reaped by `wait4` below, which also gives its peak RSS.
    #[allow(clippy::zombie_processes)]
    let mut child = Command::new(&bin)
        .args([
            "call",
            "--quiet",
            "--timeout",
            "120",
            "--max-store",
            &max_store,
        ])
        .arg("--record")
        .arg(&record)
        .args(["--tool", "flood", "--args"])
        .arg(format!(r#"{{"count":{count}}}"#))
        .arg("--")
        .arg(&me)
        .arg("--serve")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcpscope");
    let stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<_>>()
    });
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    // SAFETY: `rusage` is plain integers, for which all zeroes is a value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet waited for; both pointers are live.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4");
    let secs = t0.elapsed().as_secs_f64();
    let all = reader.join().unwrap_or_default();
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        // Say why instead of failing later on a recording that is not there.
        eprintln!("mcpscope call failed (wait status {status}):");
        for l in &all {
            eprintln!("  {l}");
        }
        std::process::exit(1);
    }
    let said: Vec<_> = all
        .into_iter()
        .filter(|l| l.starts_with("[store]") || l.starts_with("[error]"))
        .collect();

    // The recording must hold every frame the server sent.
    let recorded = BufReader::new(std::fs::File::open(&record).expect("recording"))
        .lines()
        .map_while(Result::ok)
        .filter(|l| l.contains("\"flood-"))
        .count() as u64;
    // Each line is the same length: `flood-` and eight digits.
    let line = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"flood-00000000","progress":1,"total":1}}"#;
    let wire_mb = count as f64 * (line.len() + 1) as f64 / 1e6;
    println!(
        "flood of {count} distinct progress tokens ({wire_mb:.0} MB of frames), --max-store {max_store}"
    );
    println!(
        "  mcpscope call exit status {}, {secs:.2} s",
        libc::WEXITSTATUS(status)
    );
    println!(
        "  peak RSS of mcpscope: {:.1} MB (budget < 320 MB)",
        usage.ru_maxrss as f64 / 1024.0
    );
    println!("  recorded progress frames: {recorded} of {count}");
    for l in &said {
        println!("  said: {l}");
    }
}
