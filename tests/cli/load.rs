//! `mcpscope load` against real servers: the demo server over stdio and
//! Streamable HTTP (one session and several), its fault tools as true
//! positives of broken stream integrity, server-everything's long-running
//! operation and the Python SDK server as clean real peers; exit codes,
//! usage errors, a refused connection, and the live line (only on a
//! terminal: tmux).

use crate::support::http::{Bg, refusing_port, start_reporting};
use crate::support::tmux::{Tmux, require_tmux};
use crate::support::{BIN, everything, headless, python_server};
use serde_json::Value;
use std::process::Command;

const OTEL_BOUNDS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

fn demo_http() -> (Bg, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(["demo-server", "--http", "127.0.0.1:0"]);
    let (srv, port) = start_reporting(cmd);
    (srv, format!("http://127.0.0.1:{port}/mcp"))
}

/// `load ARGS --format json` with a stdio server (or none), expecting `code`.
fn load_json(args: &[&str], server: Option<Vec<String>>, code: i32) -> Value {
    let mut h = headless(["load"]).args(args).args(["--format", "json"]);
    if let Some(argv) = server {
        h = h.server(argv);
    }
    let run = h.expect(code);
    assert!(
        !run.stderr.contains('\r'),
        "a live line went to a stderr that is no terminal: {:?}",
        run.stderr
    );
    run.json()
}

/// The report's numbers agree with each other: every call in one bucket
/// of the OpenTelemetry boundaries, percentiles in order.
fn assert_consistent(v: &Value, calls: u64) {
    assert_eq!(v["mcpscope_load"], 1);
    assert_eq!(v["calls"], calls, "{v:#}");
    let hist = v["histogram"].as_array().unwrap();
    let bounds: Vec<Option<f64>> = hist.iter().map(|b| b["le"].as_f64()).collect();
    let mut want: Vec<Option<f64>> = OTEL_BOUNDS.iter().copied().map(Some).collect();
    want.push(None);
    assert_eq!(bounds, want);
    let in_buckets: u64 = hist.iter().map(|b| b["count"].as_u64().unwrap()).sum();
    assert_eq!(in_buckets, calls);
    let l = &v["latency_ms"];
    let p = |k: &str| l[k].as_f64().unwrap();
    assert!(
        p("p50") <= p("p95") && p("p95") <= p("p99") && p("p99") <= p("max"),
        "{l}"
    );
    assert!(v["throughput_per_s"].as_f64().unwrap() > 0.0);
}

#[test]
fn demo_server_calls_each_get_their_own_stream_and_pass() {
    let v = load_json(
        &[
            "--demo",
            "--tool",
            "pipeline_wait",
            "--args",
            r#"{"polls":3,"interval_ms":2}"#,
            "--concurrency",
            "4",
            "--calls",
            "40",
        ],
        None,
        0,
    );
    assert_consistent(&v, 40);
    assert_eq!(v["ok"], 40);
    assert_eq!(v["failed"], 0);
    assert_eq!(v["calls_with_progress"], 40, "{v:#}");
    assert!(v["progress_notifications"].as_u64().unwrap() >= 80);
    let fp = &v["first_progress_ms"];
    assert!(fp["p50"].as_f64().unwrap() <= v["latency_ms"]["p50"].as_f64().unwrap());
    // Forty tokens in flight four at a time, none reused, none broken; the
    // one finding is the demo's logging, deprecated at 2026-07-28.
    assert_eq!(
        v["findings"],
        serde_json::json!({"deprecated-feature": {"count": 1, "severity": "info"}}),
        "{v:#}"
    );
    assert_eq!(v["integrity"]["broken_streams"], 0);
    assert_eq!(v["passed"], true);
}

#[test]
fn several_http_sessions_share_the_calls() {
    let (_srv, url) = demo_http();
    let v = load_json(
        &[
            "--url",
            &url,
            "--tool",
            "sleep",
            "--args",
            r#"{"ms":20}"#,
            "--sessions",
            "3",
            "--concurrency",
            "2",
            "--calls",
            "30",
        ],
        None,
        0,
    );
    assert_consistent(&v, 30);
    assert_eq!(v["sessions"], 3);
    assert_eq!(v["ok"], 30);
    // 20 ms sleeps: nothing under 0.02 s.
    assert!(v["latency_ms"]["p50"].as_f64().unwrap() >= 20.0, "{v:#}");
    assert_eq!(v["histogram"][0]["count"], 0);
    assert_eq!(v["integrity"]["findings"], serde_json::json!({}));
    assert_eq!(v["passed"], true);
}

#[test]
fn progress_after_the_response_breaks_integrity_and_fails() {
    let v = load_json(
        &[
            "--demo",
            "--tool",
            "fault_after_response",
            "--concurrency",
            "4",
            "--calls",
            "20",
            // The last calls' late notifications come after the last response.
            "--settle-ms",
            "2000",
        ],
        None,
        1,
    );
    assert_consistent(&v, 20);
    // Every call answered, and every one of them sent two notifications too many.
    assert_eq!(v["ok"], 20);
    assert_eq!(
        v["integrity"]["findings"]["progress-after-response"], 40,
        "{v:#}"
    );
    assert_eq!(v["integrity"]["broken_streams"], 20);
    assert_eq!(
        v["findings"]["progress-after-response"]["severity"],
        "error"
    );
    assert_eq!(v["passed"], false);
    let ex = v["examples"].as_array().unwrap();
    assert!(!ex.is_empty() && ex.len() <= 10);

    let run = headless([
        "load",
        "--demo",
        "--tool",
        "fault_not_increasing",
        "--concurrency",
        "3",
        "--calls",
        "9",
    ])
    .expect(1);
    assert!(
        run.stdout.contains("stream integrity: 9 call(s) broke it"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("progress-not-increasing (error): 9"));
    assert!(run.stdout.trim_end().ends_with("FAIL"));
}

#[test]
fn failed_calls_are_counted_by_kind_and_exit_1() {
    let v = load_json(
        &[
            "--demo",
            "--tool",
            "pipeline_wait",
            "--args",
            r#"{"polls":1,"interval_ms":1,"outcome":"failed"}"#,
            "--calls",
            "5",
        ],
        None,
        1,
    );
    assert_eq!(v["failed"], 5);
    assert_eq!(v["errors"]["tool-error"], 5, "{v:#}");
    let v = load_json(
        &["--demo", "--tool", "no_such_tool", "--calls", "3"],
        None,
        1,
    );
    assert_eq!(v["failed"], 3);
}

#[test]
fn a_duration_bounds_the_run() {
    let v = load_json(
        &[
            "--demo",
            "--tool",
            "echo",
            "--concurrency",
            "2",
            "--duration",
            "300ms",
        ],
        None,
        0,
    );
    assert!(v["calls"].as_u64().unwrap() > 0);
    assert!(v["elapsed_s"].as_f64().unwrap() >= 0.3, "{v:#}");
    assert_consistent(&v, v["calls"].as_u64().unwrap());
}

#[test]
fn usage_errors_and_a_refused_connection() {
    for args in [
        vec!["--demo", "--tool", "echo"],
        vec!["--demo", "--tool", "echo", "--calls", "0"],
        vec![
            "--demo",
            "--tool",
            "echo",
            "--calls",
            "3",
            "--concurrency",
            "0",
        ],
        vec![
            "--demo", "--tool", "echo", "--calls", "3", "--token", "fixed",
        ],
        vec![
            "--demo",
            "--tool",
            "echo",
            "--calls",
            "3",
            "--duration",
            "1s",
        ],
        vec!["--demo", "--tool", "echo", "--duration", "soon"],
    ] {
        let o = headless(["load"]).args(&args).expect(2);
        assert!(o.stdout.is_empty(), "{args:?}: {}", o.stdout);
    }
    let (_held, port) = refusing_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let o = headless(["load", "--url", &url, "--tool", "echo", "--calls", "3"]).expect(3);
    assert!(o.stderr.contains("[error]"), "{}", o.stderr);
    assert!(o.stdout.is_empty());
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn server_everything_long_running_operation_keeps_its_streams_intact() {
    let v = load_json(
        &[
            "--tool",
            "trigger-long-running-operation",
            "--args",
            r#"{"duration":0.2,"steps":4}"#,
            "--concurrency",
            "4",
            "--calls",
            "12",
        ],
        Some(vec![everything().display().to_string()]),
        0,
    );
    assert_consistent(&v, 12);
    assert_eq!(v["calls_with_progress"], 12, "{v:#}");
    assert_eq!(v["progress_notifications"], 48);
    assert_eq!(v["integrity"]["findings"], serde_json::json!({}));
    assert_eq!(v["integrity"]["broken_streams"], 0);
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn python_sdk_server_keeps_its_streams_intact() {
    let v = load_json(
        &[
            "--tool",
            "slow_task",
            "--args",
            r#"{"steps":3,"delay_ms":10}"#,
            "--concurrency",
            "4",
            "--sessions",
            "2",
            "--calls",
            "16",
        ],
        Some(python_server()),
        0,
    );
    assert_consistent(&v, 16);
    assert_eq!(v["calls_with_progress"], 16, "{v:#}");
    assert_eq!(v["integrity"]["findings"], serde_json::json!({}));
    assert_eq!(v["passed"], true);
}

#[test]
#[ignore = "needs tmux"]
fn on_a_terminal_one_live_line_is_rewritten_in_place() {
    require_tmux();
    let t = Tmux::start_cmd(
        "load-live",
        "load --demo --tool sleep --args '{\"ms\":100}' --concurrency 2 --calls 40",
    );
    let seen = t.wait_for("a live line", 30, |s| s.contains("/40 calls,"));
    let live: Vec<&str> = seen.lines().filter(|l| l.starts_with("load: ")).collect();
    assert_eq!(live.len(), 1, "one line, rewritten:\n{seen}");
    assert!(live[0].contains("/s, 0 errors,"), "{seen}");
    let done = t.wait_for("the report", 60, |s| s.contains("PASS"));
    assert!(
        !done.lines().any(|l| l.starts_with("load: ")),
        "the live line stays:\n{done}"
    );
    assert!(done.contains("load sleep: 40 call(s)"), "{done}");
}

#[test]
#[ignore = "needs tmux"]
fn ctrl_c_cancels_the_calls_in_flight_and_reports_what_was_done() {
    require_tmux();
    // The shell traps Ctrl-C (its children get the default), so it lives
    // on to print the exit code.
    let t = Tmux::start_with(
        "load-stop",
        "trap 'true' INT\n",
        "load --demo --tool sleep --args '{\"ms\":30000}' --concurrency 2 --calls 4",
        160,
        48,
    );
    t.wait_for("the live line", 30, |s| s.contains("load: 0/4 calls,"));
    t.keys(&["C-c"]);
    let done = t.wait_for("the exit", 30, |s| s.contains("EXIT="));
    assert!(done.contains("EXIT=130"), "{done}");
    assert!(done.contains("INTERRUPTED by SIGINT"), "{done}");
    assert!(done.contains("load stopped, the calls in flight were cancelled"));
    assert!(done.contains("\nFAIL"), "{done}");
}

/// Whether process `pid` still exists (a zombie of ours would too, but the
/// server is mcpscope's child, never this test's).
fn alive(pid: i32) -> bool {
    // SAFETY: kill(2) with signal 0 only checks; no memory is involved.
    unsafe { libc::kill(pid, 0) == 0 }
}

#[test]
fn a_handshake_that_times_out_leaves_no_server_behind() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    // A "server" that never answers: it writes its pid and becomes `sleep`.
    let script = format!("echo $$ > {}; exec sleep 43", pidfile.display());
    for extra in [&[][..], &["--sessions", "2"][..], &["--format", "json"][..]] {
        let _ = std::fs::remove_file(&pidfile);
        let o = headless([
            "load",
            "--tool",
            "t",
            "--calls",
            "10",
            "--timeout",
            "2",
            "--protocol",
            "legacy",
        ])
        .args(extra)
        .server(["sh", "-c", &script])
        .run();
        assert_eq!(o.code, 3, "{extra:?}: {}", o.stderr);
        if extra.contains(&"--format") {
            // A JSON consumer still gets a document saying what failed.
            let v = o.json();
            assert_eq!(v["failure"]["kind"], "handshake", "{v:#}");
            assert_eq!(v["failure"]["session"], 1);
            assert_eq!(v["calls"], 0);
            assert_eq!(v["passed"], false);
        } else {
            assert!(o.stdout.is_empty(), "{}", o.stdout);
        }
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let left = alive(pid);
        if left {
            // SAFETY: as above; the test's own leftover is ended.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        assert!(!left, "{extra:?}: the server (pid {pid}) outlived load");
    }
}

#[test]
fn broken_streams_are_counted_per_session() {
    // Two sessions reuse the same token names; each of the 20 calls breaks
    // its own stream (two notifications after its response).
    let v = load_json(
        &[
            "--demo",
            "--tool",
            "fault_after_response",
            "--sessions",
            "2",
            "--concurrency",
            "4",
            "--calls",
            "20",
            "--settle-ms",
            "2000",
        ],
        None,
        1,
    );
    assert_consistent(&v, 20);
    assert_eq!(
        v["integrity"]["findings"]["progress-after-response"], 40,
        "{v:#}"
    );
    assert_eq!(v["integrity"]["broken_streams"], 20, "{v:#}");
}

#[test]
fn concurrency_is_clamped_to_the_calls_and_the_cap() {
    let o = headless([
        "load",
        "--demo",
        "--tool",
        "echo",
        "--calls",
        "20",
        "--concurrency",
        "1000000",
        "--format",
        "json",
    ])
    .expect(0);
    let v = o.json();
    assert_eq!(v["concurrency"], 20, "{v:#}");
    assert_eq!(v["calls"], 20);
    let said = o.lines("[load]");
    assert!(
        said.len() == 1 && said[0].contains("--concurrency 1000000") && said[0].contains("20"),
        "{}",
        o.stderr
    );
    // A duration has no number of calls: the cap holds.
    let o = headless([
        "load",
        "--demo",
        "--tool",
        "echo",
        "--duration",
        "200ms",
        "--concurrency",
        "1000000",
        "--format",
        "json",
    ])
    .expect(0);
    assert_eq!(o.json()["concurrency"], 1024, "{}", o.stdout);
    assert!(o.stderr.contains("at most 1024"), "{}", o.stderr);
}

#[test]
fn a_lost_session_is_said_once_not_once_per_call() {
    // Answers the handshake, then exits at the first call.
    let server = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("method") == "initialize":
        print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "dies", "version": "1"}}}), flush=True)
    elif m.get("method") == "tools/call":
        sys.exit(0)
"#;
    let o = headless([
        "load",
        "--protocol",
        "legacy",
        "--tool",
        "t",
        "--calls",
        "40",
        "--sessions",
        "2",
        "--concurrency",
        "4",
        "--format",
        "json",
    ])
    .server(["python3", "-c", server])
    .expect(3);
    let v = o.json();
    assert!(v["errors"]["connection"].as_u64().unwrap() >= 2, "{v:#}");
    assert_eq!(
        o.lines("[error] connection lost").len(),
        2,
        "one line per session:\n{}",
        o.stderr
    );
}
