//! Proxy benchmark (DESIGN §7, proxy budgets), measured side by side in one
//! run with the same server and the same host:
//!
//! 1. A flood of COUNT progress notifications (default 1,000,000) to a raw
//!    reader host (counts lines, parses nothing), directly and through
//!    `mcpscope proxy` with recording and checks on; speed ratio
//!    proxied/direct (budget ≥ 0.9). Two servers:
//!    - the raw flood server (`examples/support/flood/flood_server.py`, the
//!      reference flood the ingest benchmarks use): the budget's figure;
//!    - the demo server's in-process `flood` tool, which writes ~3 GB/s, as
//!      a stress figure: there the host and the server alone keep both
//!      cores of a small machine busy, and every byte the proxy keeps costs
//!      the host.
//! 2. The same flood to the official TypeScript SDK client
//!    (`tests/peers/sdk_host.mjs`, needs `tests/peers/install.sh`); ratio
//!    (budget ≥ 0.85).
//! 3. Added latency per forwarded message at 1,000 msg/s: a host sends a
//!    JSON-RPC line every millisecond to `cat` (which echoes it) directly and
//!    through the proxy; each line crosses the proxy twice, so the added
//!    latency per message is half the difference of the round trips
//!    (budget: median ≤ 100 µs).
//!
//!    And through the proxy with `--faults` whose one rule matches nothing:
//!    the cost of framing lines and testing each (budget ≤ 1.05× the time
//!    of the plain proxy).
//!
//! 4. Memory: the proxy's peak RSS with `--max-store 64MiB`, for a session
//!    of COUNT and of 4 × COUNT notifications: bounded by the store, not by
//!    the session's length.
//!
//! Run: `cargo build --release && cargo run --release --example proxy_bench [COUNT] [REPS]`
//! `PROXY_BENCH_ONLY=raw` measures the raw reader host alone (for profiling).
//! `FLOOD_SERVER="python3 flood_server.py"` floods from another server with
//! a `flood {count}` tool instead.

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

#[path = "support/python.rs"]
mod python;
#[path = "support/release_bin.rs"]
mod release_bin;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let count: u64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let reps: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let bin = release_bin::release_bin();
    let tmp = tempdir();
    let demo: Vec<String> = vec![bin.display().to_string(), "demo-server".into()];
    let server: Vec<String> = match std::env::var("FLOOD_SERVER") {
        Ok(cmd) => cmd.split_whitespace().map(str::to_string).collect(),
        Err(_) => demo.clone(),
    };
    let reference: Vec<String> = vec![
        python::python().display().to_string(),
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/support/flood/flood_server.py")
            .display()
            .to_string(),
    ];
    let trace = tmp.join("flood.jsonl");
    let proxied = |argv: &[String]| -> Vec<String> {
        let mut v = vec![
            bin.display().to_string(),
            "proxy".into(),
            "--record".into(),
            trace.display().to_string(),
            "--".into(),
        ];
        v.extend(argv.iter().cloned());
        v
    };
    // A faults file whose one rule matches nothing: what line framing and
    // testing every line cost (budget: <= 1.05x the plain proxy).
    let faults = tmp.join("nothing.toml");
    std::fs::write(
        &faults,
        "[[rule]]\nmatch = \"in && method == no/such-method\"\naction = \"drop\"\n",
    )
    .expect("faults file");
    let with_faults = |argv: &[String]| -> Vec<String> {
        let mut v = proxied(argv);
        v.splice(2..2, ["--faults".to_string(), faults.display().to_string()]);
        v
    };
    println!(
        "proxy_bench: {count} notifications, {reps} runs each, alternating; 2 shared cores, other builds may run: figures are noisy"
    );

    // 1. Raw reader host, on the reference flood server and on the demo server.
    for (label, server) in [("raw flood server", &reference), ("demo server", &demo)] {
        let (mut direct, mut through, mut faulted) = (Vec::new(), Vec::new(), Vec::new());
        // The proxy's CPU seconds (with the server's), plain and faulted:
        // less noisy than the time on shared cores.
        let (mut cpu_plain, mut cpu_faulted) = (Vec::new(), Vec::new());
        let mut lost = 0;
        for _ in 0..reps {
            direct.push(raw_flood(server, count, &tmp).0);
            let (t, _, cpu) = raw_flood(&proxied(server), count, &tmp);
            through.push(t);
            cpu_plain.push(cpu);
            lost = lost.max(lost_bytes(&trace));
            let (t, _, cpu) = raw_flood(&with_faults(server), count, &tmp);
            faulted.push(t);
            cpu_faulted.push(cpu);
        }
        let f = median(&mut faulted);
        let (d, t) = (median(&mut direct), median(&mut through));
        println!(
            "raw reader host, {label:<16} direct {:>9.0}/s ({d:.3} s)   proxied {:>9.0}/s ({t:.3} s)   ratio {:.2}{}",
            count as f64 / d,
            count as f64 / t,
            d / t,
            if server == &reference {
                " (budget >= 0.90)"
            } else {
                " (stress figure)"
            }
        );
        println!(
            "  with --faults matching nothing {:>9.0}/s ({f:.3} s)   time {:.3}x the plain proxy's (budget <= 1.05)",
            count as f64 / f,
            f / t
        );
        let (cp, cf) = (median(&mut cpu_plain), median(&mut cpu_faulted));
        println!(
            "  CPU of proxy and server: plain {cp:.3} s, with --faults {cf:.3} s ({:+.0} ms, {:.3}x)",
            (cf - cp) * 1000.0,
            cf / cp
        );
        let recorded = std::fs::metadata(&trace).map_or(0, |m| m.len());
        println!(
            "  recording of the last proxied run: {} MiB; the observer fell behind by at most {lost} bytes",
            recorded >> 20
        );
    }
    // Memory: the proxy's own peak RSS under a 64 MiB store bound, for a
    // session of COUNT and of 4 × COUNT notifications (the reference flood
    // server; the proxy is the host's child, the server the proxy's).
    let bounded = |n: u64| {
        let mut argv = proxied(&reference);
        argv.splice(2..2, ["--max-store".to_string(), "64MiB".to_string()]);
        let (_, rss, _) = raw_flood(&argv, n, &tmp);
        (rss, lost_bytes(&trace))
    };
    let (short, long) = (bounded(count), bounded(4 * count));
    println!(
        "memory, --max-store 64MiB: proxy peak RSS {} MiB for {count} notifications, {} MiB for {} (not recorded by the observer: {} / {} bytes)",
        short.0 >> 10,
        long.0 >> 10,
        4 * count,
        short.1,
        long.1
    );

    if std::env::var("PROXY_BENCH_ONLY").is_ok_and(|v| v == "raw") {
        let _ = std::fs::remove_dir_all(&tmp);
        return;
    }

    // 2. TypeScript SDK host.
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let node = here.join("tests/peers/.installed/node/node_modules/node/bin/node");
    let host = here.join("tests/peers/sdk_host.mjs");
    if node.exists() {
        let host = [node.display().to_string(), host.display().to_string()];
        let ts = |server: &[String]| ts_flood(&host, server, count, &tmp);
        let (mut direct, mut through) = (Vec::new(), Vec::new());
        for _ in 0..reps.min(2) {
            direct.push(ts(&server));
            through.push(ts(&proxied(&server)));
        }
        let recv = |v: &[(f64, u64)]| v.iter().map(|r| r.1).min().unwrap_or(0);
        let (rd, rt) = (recv(&direct), recv(&through));
        let mut ds: Vec<f64> = direct.iter().map(|r| r.0).collect();
        let mut ts_: Vec<f64> = through.iter().map(|r| r.0).collect();
        let (d, t) = (median(&mut ds), median(&mut ts_));
        println!(
            "TS SDK host       direct {:>9.0}/s ({d:.3} s)   proxied {:>9.0}/s ({t:.3} s)   ratio {:.2} (budget >= 0.85); received at least {rd} / {rt} of {count}",
            count as f64 / d,
            count as f64 / t,
            d / t
        );
    } else {
        println!(
            "TS SDK host       not measured: {} is missing (run tests/peers/install.sh)",
            node.display()
        );
    }

    // 3. Latency at 1,000 msg/s.
    let n = 5_000;
    let cat = vec!["cat".to_string()];
    let mut direct = echo_rtts(&cat, n, &tmp);
    let ltrace = tmp.join("latency.jsonl");
    let mut through = echo_rtts(
        &[
            bin.display().to_string(),
            "proxy".into(),
            "--record".into(),
            ltrace.display().to_string(),
            "--".into(),
            "cat".into(),
        ],
        n,
        &tmp,
    );
    let (d50, t50) = (median(&mut direct), median(&mut through));
    let (d99, t99) = (pct(&direct, 0.99), pct(&through, 0.99));
    println!(
        "latency @1000/s   round trip median direct {:.1} µs, proxied {:.1} µs; added per message (half the difference) median {:.1} µs (budget <= 100); p99 round trips {:.1} / {:.1} µs",
        d50 * 1e6,
        t50 * 1e6,
        (t50 - d50) / 2.0 * 1e6,
        d99 * 1e6,
        t99 * 1e6
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

fn tempdir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("mcpscope-proxy-bench-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn spawn(argv: &[String], rt: &Path, stdout: Stdio) -> Child {
    Command::new(&argv[0])
        .args(&argv[1..])
        .env("MCPSCOPE_RUNTIME_DIR", rt)
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn")
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#;

/// Seconds from sending the flood call to reading its last line, and the
/// peak RSS (KiB) of the process the host ran.
/// (seconds of the flood, the child's peak RSS in KiB, its CPU seconds).
fn raw_flood(argv: &[String], count: u64, rt: &Path) -> (f64, u64, f64) {
    let mut child = spawn(argv, rt, Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut buf = vec![0u8; 1 << 16];
    writeln!(stdin, "{INIT}").unwrap();
    // The initialize response: one line.
    let mut lines = 0u64;
    let mut pending = Vec::new();
    while lines < 1 {
        let n = out.read(&mut buf).unwrap();
        assert!(n > 0, "server ended before answering initialize");
        lines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        pending.extend_from_slice(&buf[..n]);
    }
    let call = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"flood\",\"arguments\":{{\"count\":{count}}},\"_meta\":{{\"progressToken\":\"b\"}}}}}}\n"
    );
    let t0 = Instant::now();
    stdin.write_all(call.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // Every notification and the response: count + 1 lines.
    let mut got = 0u64;
    while got < count + 1 {
        let n = out.read(&mut buf).unwrap();
        assert!(n > 0, "server ended mid-flood after {got} lines");
        got += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
    }
    let dt = t0.elapsed().as_secs_f64();
    drop(stdin);
    while out.read(&mut buf).is_ok_and(|n| n > 0) {}
    let (rss, cpu) = reap(child);
    (dt, rss, cpu)
}

/// Wait for `child` and return its peak RSS in KiB (its own, not its
/// children's: for the proxy, without the server it runs) and the CPU
/// seconds it used (user and system, with those of the children it reaped:
/// for the proxy, the server's too).
// The child is reaped by `wait4`, which also gives its rusage.
#[allow(clippy::zombie_processes)]
fn reap(child: Child) -> (u64, f64) {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data; all zeroes is a valid value.
    // SAFETY: `rusage` is plain integers, for which all zeroes is a value.
    let mut usage = unsafe { std::mem::zeroed::<libc::rusage>() };
    // SAFETY: pid is our child, not yet reaped; both are valid out-pointers.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (
        usage.ru_maxrss as u64,
        secs(usage.ru_utime) + secs(usage.ru_stime),
    )
}

/// (seconds of the call, notifications received) for the TypeScript SDK host.
fn ts_flood(host: &[String], server: &[String], count: u64, rt: &Path) -> (f64, u64) {
    let out = Command::new(&host[0])
        .args(&host[1..])
        .arg("flood")
        .arg(format!("{{\"count\":{count}}}"))
        .args(server)
        .env("SDK_HOST_SUMMARY", "1")
        .env("MCPSCOPE_RUNTIME_DIR", rt)
        .stderr(Stdio::inherit())
        .output()
        .expect("node");
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("TS host: {e}: {:?}", out));
    (
        v["call_s"].as_f64().unwrap_or(f64::NAN),
        v["received"].as_u64().unwrap_or(0),
    )
}

/// Round-trip times of `n` lines sent one per millisecond to an echoing
/// server.
fn echo_rtts(argv: &[String], n: usize, rt: &Path) -> Vec<f64> {
    let mut child = spawn(argv, rt, Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Instant>();
    let reader = std::thread::spawn(move || {
        let mut r = std::io::BufReader::new(out);
        let mut line = Vec::new();
        let mut times = Vec::new();
        while std::io::BufRead::read_until(&mut r, b'\n', &mut line).is_ok_and(|n| n > 0) {
            times.push(Instant::now());
            line.clear();
        }
        let _ = tx.send(Instant::now());
        times
    });
    let start = Instant::now();
    let mut sent = Vec::with_capacity(n);
    for i in 0..n {
        let due = start + Duration::from_millis(i as u64);
        while Instant::now() < due {
            std::thread::sleep(due - Instant::now());
        }
        let line = format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"l\",\"progress\":{}}}}}\n",
            i + 1
        );
        sent.push(Instant::now());
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }
    drop(stdin);
    let received = reader.join().unwrap();
    let _ = rx.recv();
    child.wait().unwrap();
    assert_eq!(received.len(), n, "lines lost on the way");
    sent.iter()
        .zip(&received)
        .map(|(s, r)| r.duration_since(*s).as_secs_f64())
        .collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn pct(v: &[f64], p: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s[((s.len() - 1) as f64 * p) as usize]
}

/// Bytes the proxy's observer reported it could not keep, from its trace.
fn lost_bytes(trace: &Path) -> u64 {
    let Ok(f) = std::fs::File::open(trace) else {
        return 0;
    };
    std::io::BufRead::lines(std::io::BufReader::new(f))
        .map_while(Result::ok)
        .filter(|l| l.contains("\"observer-behind\""))
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(&l).ok())
        .filter_map(|v| v["json"]["bytes"].as_u64())
        .sum()
}
