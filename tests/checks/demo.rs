//! `mcpscope check` against the built-in demo server: each `fault_*` tool
//! produces its rule's finding, and the finding's seqs point at the frames
//! that prove it in the recorded trace; the well-behaved tools produce none.

use crate::support::BIN;
use mcpscope::checks::Rule;
use mcpscope::checks::stats::CallOutcome;
use mcpscope::cli::check::Report;
use mcpscope::cli::replay::load;
use mcpscope::protocol::frame::FrameKind;
use mcpscope::trace::{Dir, Store};
use serde_json::Value;
use std::process::Command;

struct Run {
    code: i32,
    report: Report,
    store: Store,
    stderr: String,
}

fn check(tool: &str, extra: &[&str]) -> Run {
    let dir = tempfile::tempdir().expect("tempdir");
    let rec = dir.path().join("t.jsonl");
    let out = Command::new(BIN)
        .args([
            "check", "--demo", "--tool", tool, "--format", "json", "--record",
        ])
        .arg(&rec)
        .args(extra)
        .output()
        .expect("run mcpscope check");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut report: Report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{tool}: bad JSON report ({e}): {stdout}"));
    if report.era == "stateless" {
        take_logging_deprecation(&mut report);
    }
    let (_, store) = load(&rec).expect("recorded trace");
    Run {
        code: out.status.code().unwrap_or(-1),
        report,
        store,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The demo declares `logging`, which 2026-07-28 (the era `--protocol auto`
/// finds the demo speaking) deprecates: exactly one info finding says so,
/// and it is taken out here so each test reads its fault's own findings.
fn take_logging_deprecation(report: &mut Report) {
    let (said, rest): (Vec<_>, Vec<_>) = report
        .findings
        .drain(..)
        .partition(|f| f.rule == Rule::DeprecatedFeature);
    assert!(
        matches!(&said[..], [f] if f.message.starts_with("the server declares the `logging` capability")),
        "one deprecation of logging: {said:#?}"
    );
    report.findings = rest;
    report.summary.info -= 1;
}

fn frame(store: &Store, seq: u64) -> Value {
    let ev = store.get(seq).expect("seq in trace");
    serde_json::from_slice(ev.bytes).unwrap_or(Value::Null)
}

fn is_progress(store: &Store, seq: u64) -> bool {
    let ev = store.get(seq).unwrap();
    ev.dir == Dir::In && ev.method == Some("notifications/progress")
}

/// The one finding of `rule` in a run whose other findings are only of `also`.
fn single(run: &Run, rule: Rule) -> mcpscope::checks::Finding {
    let mine: Vec<_> = run
        .report
        .findings
        .iter()
        .filter(|f| f.rule == rule)
        .collect();
    assert_eq!(mine.len(), 1, "{:#?}\n{}", run.report.findings, run.stderr);
    mine[0].clone()
}

#[test]
fn fault_not_increasing() {
    let r = check("fault_not_increasing", &["-a", "delay_ms=1"]);
    assert_eq!(r.code, 1);
    let f = single(&r, Rule::ProgressNotIncreasing);
    assert_eq!(r.report.findings.len(), 1);
    assert_eq!(frame(&r.store, f.seqs[0])["params"]["progress"], 3);
    assert_eq!(frame(&r.store, f.seqs[1])["params"]["progress"], 2);
    assert_eq!(f.request_id, Some(r.report.calls[0].request_id.clone()));
}

#[test]
fn fault_after_response() {
    let r = check("fault_after_response", &["-a", "delay_ms=1"]);
    assert_eq!(r.code, 1);
    let fs: Vec<_> = r.report.findings.iter().collect();
    assert_eq!(fs.len(), 2, "{fs:#?}");
    for f in fs {
        assert_eq!(f.rule, Rule::ProgressAfterResponse);
        assert_eq!(Some(f.seqs[0]), r.report.calls[0].response_seq);
        assert!(is_progress(&r.store, f.seqs[1]));
    }
}

#[test]
fn fault_unknown_token_with_and_without_a_token() {
    for token in ["auto", "none"] {
        let r = check("fault_unknown_token", &["--token", token]);
        assert_eq!(r.code, 1);
        let f = single(&r, Rule::ProgressUnknownToken);
        assert_eq!(
            frame(&r.store, f.seqs[0])["params"]["progressToken"],
            "fault-unknown-token"
        );
    }
}

#[test]
fn fault_invalid_params() {
    let r = check("fault_invalid_params", &[]);
    assert_eq!(r.code, 1);
    let f = single(&r, Rule::ProgressInvalid);
    assert_eq!(frame(&r.store, f.seqs[0])["params"]["progress"], "half");
    assert!(f.message.contains("not a number"), "{}", f.message);
}

#[test]
fn fault_exceeds_total_is_a_warning_unless_strict() {
    let r = check("fault_exceeds_total", &["-a", "delay_ms=1"]);
    assert_eq!(r.code, 0, "warnings pass without --strict");
    let f = single(&r, Rule::ProgressExceedsTotal);
    assert_eq!(frame(&r.store, f.seqs[0])["params"]["progress"], 12);
    let r = check("fault_exceeds_total", &["-a", "delay_ms=1", "--strict"]);
    assert_eq!(r.code, 1);
    assert!(!r.report.summary.passed);
}

#[test]
fn fault_total_changed() {
    let r = check("fault_total_changed", &["-a", "delay_ms=1"]);
    let f = single(&r, Rule::ProgressTotalChanged);
    assert_eq!(frame(&r.store, f.seqs[0])["params"]["total"], 10);
    assert_eq!(frame(&r.store, f.seqs[1])["params"]["total"], 20);
}

#[test]
fn fault_flood_and_the_rate_flag() {
    let r = check("fault_flood", &["-a", "count=120"]);
    let f = single(&r, Rule::ProgressFlood);
    assert_eq!(frame(&r.store, f.seqs[0])["params"]["progress"], 1);
    assert_eq!(frame(&r.store, f.seqs[1])["params"]["progress"], 51);
    assert_eq!(r.report.calls[0].notifications, 120);
    let r = check("fault_flood", &["-a", "count=120", "--flood-rate", "1000"]);
    assert!(r.report.findings.is_empty(), "{:#?}", r.report.findings);
}

#[test]
fn fault_buffered() {
    let args = [
        "-a",
        "duration_ms=300",
        "-a",
        "steps=4",
        "--buffered-min-secs",
        "0.2",
    ];
    let r = check("fault_buffered", &args);
    let f = single(&r, Rule::ProgressBuffered);
    let call = &r.report.calls[0];
    assert_eq!(f.seqs.first(), Some(&call.request_seq));
    assert_eq!(f.seqs.last(), call.response_seq.as_ref());
    assert!(is_progress(&r.store, f.seqs[1]) && is_progress(&r.store, f.seqs[2]));
    assert_eq!(call.notifications, 4);
}

#[test]
fn fault_stall() {
    let r = check(
        "fault_stall",
        &["-a", "silence_ms=300", "--stall-secs", "0.1"],
    );
    assert_eq!(r.code, 0, "info findings never fail");
    let f = single(&r, Rule::ProgressStalled);
    assert!(is_progress(&r.store, f.seqs[0]) && is_progress(&r.store, f.seqs[1]));
    assert_eq!(r.report.summary.info, 1);
}

/// The level asked for is the one judged: `logging/setLevel` in the
/// handshake era, the request's own `_meta` level at 2026-07-28.
#[test]
fn fault_log_below_level() {
    for (era, asked_by) in [("legacy", "logging/setLevel"), ("auto", "tools/call")] {
        let r = check(
            "fault_log_below_level",
            &["--log-level", "warning", "--protocol", era],
        );
        let fs: Vec<_> = r
            .report
            .findings
            .iter()
            .filter(|f| f.rule == Rule::LogBelowLevel)
            .collect();
        assert_eq!(fs.len(), 2, "{era}: {:#?}", r.report.findings);
        assert_eq!(frame(&r.store, fs[0].seqs[0])["method"], asked_by, "{era}");
        assert_eq!(frame(&r.store, fs[0].seqs[1])["params"]["level"], "debug");
        assert_eq!(frame(&r.store, fs[1].seqs[1])["params"]["level"], "info");
    }
    // Without a level set, the same logs are fine.
    let r = check("fault_log_below_level", &["--protocol", "legacy"]);
    assert!(r.report.findings.is_empty(), "{:#?}", r.report.findings);
}

#[test]
fn fault_log_invalid_level() {
    let r = check("fault_log_invalid_level", &[]);
    assert_eq!(r.code, 1);
    let f = single(&r, Rule::LogInvalidLevel);
    assert_eq!(frame(&r.store, f.seqs[0])["params"]["level"], "verbose");
}

#[test]
fn fault_stdout_garbage_and_not_jsonrpc() {
    let r = check("fault_stdout_garbage", &[]);
    assert_eq!(r.code, 1);
    let f = single(&r, Rule::StdoutNotJsonrpc);
    assert_eq!(r.store.get(f.seqs[0]).unwrap().kind, FrameKind::NotJson);
    let r = check("fault_not_jsonrpc", &[]);
    let f = single(&r, Rule::JsonrpcInvalid);
    assert_eq!(frame(&r.store, f.seqs[0])["status"], "ok");
}

#[test]
fn fault_duplicate_and_unknown_responses() {
    let r = check("fault_duplicate_response", &[]);
    let f = single(&r, Rule::ResponseDuplicate);
    assert_eq!(Some(f.seqs[0]), r.report.calls[0].response_seq);
    assert_eq!(frame(&r.store, f.seqs[1])["id"], 1);
    let r = check("fault_unknown_response", &[]);
    let f = single(&r, Rule::ResponseUnknownId);
    assert_eq!(frame(&r.store, f.seqs[0])["id"], "fault-no-such-request");
}

#[test]
fn fault_crash_is_a_connection_failure_with_a_report() {
    let r = check("fault_crash", &[]);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert_eq!(r.report.calls[0].outcome, CallOutcome::NoResponse);
    assert_eq!(r.report.calls[0].notifications, 1);
}

#[test]
fn fault_hang_times_out_and_is_cancelled() {
    let r = check("fault_hang", &["--timeout", "0.3", "--stall-secs", "0.1"]);
    assert_eq!(r.code, 4, "{}", r.stderr);
    assert_eq!(r.report.calls[0].outcome, CallOutcome::Timeout);
    let f = single(&r, Rule::ProgressStalled);
    assert_eq!(
        frame(&r.store, f.seqs[1])["method"],
        "notifications/cancelled"
    );
}

#[test]
fn well_behaved_tools_produce_no_findings() {
    let calls: &[(&str, &[&str])] = &[
        (
            "upload_file",
            &[
                "--args",
                r#"{"size_bytes":1000,"chunk_bytes":300,"delay_ms":1}"#,
            ],
        ),
        (
            "publish_package",
            &[
                "--args",
                r#"{"size_bytes":2048,"chunk_bytes":512,"delay_ms":1,"name":"pkg","version":"0.1.0"}"#,
            ],
        ),
        ("pipeline_wait", &["-a", "polls=3", "-a", "interval_ms=1"]),
        (
            "job_wait",
            &[
                "-a",
                "polls=3",
                "-a",
                "interval_ms=1",
                "--token",
                "auto-int",
            ],
        ),
        (
            "interactive_wizard",
            &["-a", "questions=3", "-a", "delay_ms=1"],
        ),
        (
            "context_builder",
            &["-a", "duration_ms=100", "-a", "heartbeat_ms=20"],
        ),
        (
            "build_report",
            &["-a", "tasks=3", "-a", "delay_ms=1", "--log-level", "info"],
        ),
        ("echo", &["-a", "text=hi", "--token", "none"]),
        // Live progress every 250 ms: neither buffered nor stalled, even with low thresholds.
        (
            "sleep",
            &[
                "-a",
                "ms=600",
                "--buffered-min-secs",
                "0.2",
                "--stall-secs",
                "0.4",
            ],
        ),
        ("flood", &["-a", "count=50", "--repeat", "2"]),
    ];
    for (tool, args) in calls {
        let r = check(tool, args);
        assert!(
            r.report.findings.is_empty(),
            "{tool}: {:#?}",
            r.report.findings
        );
        assert_eq!(r.code, 0, "{tool}: {}", r.stderr);
        assert!(r.report.summary.passed);
        assert!(
            r.report.calls.iter().all(|c| c.outcome == CallOutcome::Ok),
            "{tool}"
        );
    }
}

/// mcpscope's own client must pass the client-side rules. Its timeouts
/// cancel while progress flows (the hard cap; an idle limit shorter than
/// the progress interval), and the trace records why (`timeout`), so the
/// cancel is not taken for a timeout that ignored progress — live or when
/// the recording is checked again.
#[test]
fn mcpscopes_own_timeouts_raise_no_client_finding() {
    for limit in [["--max-timeout", "1"], ["--timeout", "0.2"]] {
        let mut args = vec!["-a", "ms=5000"];
        args.extend(limit);
        let r = check("sleep", &args);
        assert_eq!(r.code, 4, "{limit:?}: {}", r.stderr);
        let cancelled = r
            .store
            .range(0, r.store.next_seq())
            .any(|ev| ev.dir == Dir::Out && ev.method == Some("notifications/cancelled"));
        assert!(cancelled, "{limit:?}: the call was cancelled");
        let client: Vec<_> = r
            .report
            .findings
            .iter()
            .filter(|f| f.rule.id().starts_with("client-"))
            .collect();
        assert!(client.is_empty(), "{limit:?}: {client:#?}");
        assert_eq!(r.report.summary.client.total(), 0);
    }
}

/// `--token none` is the user's choice: no `client-no-progress-token`; any
/// other call carries a token.
#[test]
fn a_tokenless_call_by_choice_is_no_finding() {
    let r = check("echo", &["-a", "text=hi", "--token", "none"]);
    assert!(r.report.findings.is_empty(), "{:#?}", r.report.findings);
    let r = check("echo", &["-a", "text=hi"]);
    assert!(r.report.findings.is_empty(), "{:#?}", r.report.findings);
}

/// A recording of mcpscope's own session checked again later: a tokenless
/// call by the user's choice is still no finding (a proxy's recording of a
/// host is judged as a host: see `tests/checks/client_wire.rs`).
#[test]
fn a_recording_of_an_own_tokenless_call_checks_clean_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rec = dir.path().join("t.jsonl");
    let live = Command::new(BIN)
        .args([
            "call", "--demo", "--tool", "echo", "-a", "text=hi", "--token", "none", "--quiet",
            "--record",
        ])
        .arg(&rec)
        .output()
        .expect("run mcpscope call");
    assert_eq!(
        live.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&live.stderr)
    );
    let again = Command::new(BIN)
        .args(["check", "--format", "json", "--trace"])
        .arg(&rec)
        .output()
        .expect("run mcpscope check --trace");
    let stdout = String::from_utf8_lossy(&again.stdout);
    let mut report: Report =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("bad JSON report ({e}): {stdout}"));
    take_logging_deprecation(&mut report);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert_eq!(again.status.code(), Some(0));
    // Through a pipe, read once: the header decides before the first event.
    let mut piped = Command::new(BIN)
        .args(["check", "--format", "json", "--trace", "/dev/stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run mcpscope check --trace /dev/stdin");
    let bytes = std::fs::read(&rec).expect("recording");
    let mut stdin = piped.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &bytes));
    let out = piped.wait_with_output().expect("check output");
    writer.join().expect("writer").expect("write the trace");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut report: Report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("bad JSON report from a pipe ({e}): {stdout}"));
    take_logging_deprecation(&mut report);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert!(report.summary.events > 0);
    assert_eq!(out.status.code(), Some(0));
}
