//! Rules against real servers that break them (`tests/servers/rule_faults.py`,
//! one tool per fault) and against the demo server that keeps them: each
//! rule fires on its fault and stays silent on the correct behaviour next to
//! it.

use crate::support;

use crate::support::{BIN, Output, run};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

fn faults(extra: &[&str]) -> Vec<String> {
    let mut v = vec![
        "--".to_string(),
        "python3".to_string(),
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/servers/rule_faults.py").to_string(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// `mcpscope CMD ARGS… -- rule_faults.py SERVER_ARGS…`
fn against(cmd: &[&str], server: &[&str]) -> Output {
    let mut args: Vec<String> = cmd.iter().map(|s| s.to_string()).collect();
    args.extend(faults(server));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    run(&refs)
}

fn findings_of(o: &Output, rule: &str) -> Vec<String> {
    o.stdout
        .lines()
        .chain(o.stderr.lines())
        .filter(|l| l.contains(rule))
        // The causes as they opened; the end's summary sums them up.
        .filter(|l| !support::is_group_summary(l))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_server_request_the_client_did_not_offer_to_answer_is_found() {
    let o = against(&["call", "--tool", "ask_anyway"], &[]);
    let found = findings_of(&o, "server-request-without-capability");
    assert_eq!(found.len(), 1, "{}", o.stderr);
    assert!(found[0].contains("elicitation/create"), "{}", found[0]);
    let o = against(&["call", "--tool", "roots_anyway"], &[]);
    assert_eq!(
        findings_of(&o, "server-request-without-capability").len(),
        1,
        "{}",
        o.stderr
    );
    // Declared: nothing to say.
    let o = against(
        &["call", "--tool", "ask_anyway", "--elicit", "decline"],
        &[],
    );
    assert!(
        findings_of(&o, "server-request-without-capability").is_empty(),
        "{}",
        o.stderr
    );
    let o = against(&["call", "--tool", "roots_anyway", "--root", "/tmp"], &[]);
    assert!(
        findings_of(&o, "server-request-without-capability").is_empty(),
        "{}",
        o.stderr
    );
    // The demo server asks only a client that declared elicitation.
    let o = run(&[
        "call",
        "--demo",
        "--tool",
        "interactive_wizard",
        "--args",
        r#"{"questions": 1}"#,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.findings_but_the_logging_deprecation().is_empty(),
        "{}",
        o.stderr
    );
}

#[test]
fn a_form_outside_what_elicitation_allows_is_found() {
    let o = against(&["call", "--tool", "bad_form", "--elicit", "decline"], &[]);
    let found = findings_of(&o, "elicitation-schema-invalid");
    assert_eq!(found.len(), 1, "{}", o.stderr);
    assert!(found[0].contains("address"), "{}", found[0]);
    // The wizard's forms are within the rules.
    let o = run(&[
        "call",
        "--demo",
        "--tool",
        "interactive_wizard",
        "--args",
        r#"{"questions": 2}"#,
        "--elicit",
        "defaults",
    ]);
    assert!(
        !o.stderr.contains("elicitation-schema-invalid"),
        "{}",
        o.stderr
    );
}

#[test]
fn structured_results_are_validated_against_the_declared_output_schema() {
    for (tool, found) in [
        ("typed_result", Some("want integer, but got string")),
        ("missing_result", Some("no structuredContent")),
        ("good_result", None),
        ("error_result", None),
    ] {
        let o = against(&["check", "--tool", tool], &["--clean-listing"]);
        let got = findings_of(&o, "tool-output-invalid");
        match found {
            Some(why) => {
                assert_eq!(got.len(), 1, "{tool}: {}", o.stdout);
                assert!(got[0].contains(why), "{tool}: {}", got[0]);
                assert_eq!(o.code, 1, "{tool}");
            }
            None => {
                assert!(got.is_empty(), "{tool}: {}", o.stdout);
                assert_eq!(o.code, 0, "{tool}: {}{}", o.stdout, o.stderr);
            }
        }
    }
}

#[test]
fn a_listing_with_a_duplicate_a_bad_name_and_a_bad_schema_is_found() {
    let o = against(&["check", "--tool", "good_result", "--format", "json"], &[]);
    let report: Value =
        serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.stdout));
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        [
            "tool-name-duplicate",
            "tool-name-invalid",
            "tool-schema-invalid"
        ],
        "{report:#}"
    );
    // The demo server's listing is clean.
    let o = run(&[
        "check", "--demo", "--tool", "echo", "-a", "text=hi", "--strict",
    ]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
}

/// A live server whose first call starts late (1.2 s idle, then progress
/// 15 ms apart) is not buffering: the burst test alone would say it is.
/// The true positive, a flush back to back, is the demo's `fault_buffered`.
#[test]
fn a_late_start_with_live_progress_is_not_buffered() {
    let o = against(
        &["check", "--tool", "slow_start", "--strict"],
        &["--clean-listing"],
    );
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(!o.stdout.contains("progress-buffered"), "{}", o.stdout);
    let o = run(&[
        "check",
        "--demo",
        "--tool",
        "fault_buffered",
        "--args",
        r#"{"duration_ms": 1100}"#,
    ]);
    assert!(o.stdout.contains("progress-buffered"), "{}", o.stdout);
}

#[test]
fn a_log_without_data_is_found() {
    let o = against(&["call", "--tool", "log_no_data"], &[]);
    assert_eq!(findings_of(&o, "log-invalid ").len(), 1, "{}", o.stderr);
    let o = run(&[
        "call",
        "--demo",
        "--tool",
        "build_report",
        "--args",
        r#"{"tasks": 2, "delay_ms": 1}"#,
        "--log-level",
        "debug",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(!o.stderr.contains("log-invalid"), "{}", o.stderr);
}

#[test]
fn a_status_for_a_task_never_created_is_found() {
    let d = tempfile::tempdir().unwrap();
    let rec = d.path().join("t.jsonl");
    let o = against(
        &[
            "call",
            "--tool",
            "ghost_task_status",
            "--record",
            rec.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = run(&["check", "--trace", rec.to_str().unwrap()]);
    let found = findings_of(&o, "task-status-unknown");
    assert_eq!(found.len(), 1, "{}", o.stdout);
    assert!(found[0].contains("ghost-1"), "{}", found[0]);
    // A real task's statuses are not.
    let rec2 = d.path().join("task.jsonl");
    let o = run(&[
        "call",
        "--demo",
        "--protocol",
        "2026-07-28",
        "--task",
        "--tool",
        "batch_job",
        "-a",
        "steps=2",
        "-a",
        "step_ms=5",
        "-a",
        "poll_ms=20",
        "--record",
        rec2.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = run(&["check", "--trace", rec2.to_str().unwrap()]);
    assert!(!o.stdout.contains("task-status-unknown"), "{}", o.stdout);
}

#[test]
fn set_level_refused_though_logging_is_declared_is_found_once_said_once() {
    let o = against(
        &["call", "--tool", "good_result", "--log-level", "debug"],
        &["--logging-refused"],
    );
    assert_eq!(
        findings_of(&o, "logging-setlevel-refused").len(),
        1,
        "{}",
        o.stderr
    );
    let failed: Vec<&str> = o
        .stderr
        .lines()
        .filter(|l| l.contains("logging/setLevel failed"))
        .collect();
    assert!(
        failed
            .iter()
            .all(|l| l.matches("logging/setLevel failed").count() == 1),
        "{}",
        o.stderr
    );
    // The demo server honours it.
    let o = run(&[
        "call",
        "--demo",
        "--tool",
        "echo",
        "-a",
        "text=x",
        "--log-level",
        "debug",
    ]);
    assert!(
        !o.stderr.contains("logging-setlevel-refused"),
        "{}",
        o.stderr
    );
}

/// `mcpscope proxy --record REC -- SERVER…` with the host's ends of its
/// stdio: what to write to the server, what it answers.
fn proxied(
    server: &[String],
    rec: &std::path::Path,
    rt: &std::path::Path,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    BufReader<std::process::ChildStdout>,
) {
    let mut child = Command::new(BIN)
        .args(["proxy", "--record", rec.to_str().unwrap(), "--"])
        .args(server)
        .env("MCPSCOPE_RUNTIME_DIR", rt)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let to = child.stdin.take().unwrap();
    let from = BufReader::new(child.stdout.take().unwrap());
    (child, to, from)
}

/// A raw host behind `mcpscope proxy --record REC -- SERVER…`: it sends
/// each frame of `frames` in turn and, after each one marked `true`, reads
/// one line; the answers it read. The trace is complete when this returns.
fn host_through_proxy(
    server: &[String],
    frames: &[(Value, bool)],
    rec: &std::path::Path,
    rt: &std::path::Path,
) -> Vec<Value> {
    let (mut child, mut to, mut from) = proxied(server, rec, rt);
    let mut answers = Vec::new();
    for (frame, answered) in frames {
        writeln!(to, "{frame}").unwrap();
        if *answered {
            let mut line = String::new();
            from.read_line(&mut line).unwrap();
            answers.push(serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}")));
        }
    }
    drop(to);
    assert!(child.wait().unwrap().success());
    answers
}

/// Through the proxy, a host calls `tool` of rule_faults.py (id 2), cancels
/// it, and waits for the answer the server sends upon the cancel.
fn call_then_cancel(tool: &str, rec: &std::path::Path, rt: &std::path::Path) {
    let server: Vec<String> = faults(&[]).into_iter().skip(1).collect();
    let frames = [
        (
            serde_json::json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}),
            true,
        ),
        (
            serde_json::json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            false,
        ),
        (
            serde_json::json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":tool,"arguments":{}}}),
            false,
        ),
        (
            serde_json::json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}),
            true,
        ),
    ];
    let answers = host_through_proxy(&server, &frames, rec, rt);
    assert_eq!(answers[1]["id"], 2, "{answers:?}");
}

#[test]
fn a_response_after_the_client_cancelled_is_found_past_the_grace() {
    let d = tempfile::tempdir().unwrap();
    let late = d.path().join("late.jsonl");
    call_then_cancel("late_answer", &late, d.path());
    let check = |rec: &std::path::Path, grace: &str| {
        let o = run(&[
            "check",
            "--trace",
            rec.to_str().unwrap(),
            "--cancel-grace-ms",
            grace,
        ]);
        findings_of(&o, "response-after-cancel")
    };
    // At once after the cancel it may have been on its way: not reported.
    assert!(check(&late, "1000").is_empty());
    assert_eq!(check(&late, "0").len(), 1);
    // A -32800 acknowledgement of the cancel is never reported.
    let ack = d.path().join("ack.jsonl");
    call_then_cancel("cancel_ack", &ack, d.path());
    assert!(check(&ack, "0").is_empty());
}

#[test]
fn features_2026_07_28_deprecates_are_said_once_per_session_and_side() {
    let modern = run(&[
        "call",
        "--demo",
        "--protocol",
        "2026-07-28",
        "--tool",
        "build_report",
        "-a",
        "tasks=3",
        "-a",
        "delay_ms=1",
        "--log-level",
        "debug",
    ]);
    assert_eq!(modern.code, 0, "{}", modern.stderr);
    // An info: said once, in the summary at the end.
    let server = modern.lines("[finding] deprecated-feature ×1 first #");
    let client = modern.lines("[finding] client-deprecated-feature");
    assert_eq!(server.len(), 1, "{}", modern.stderr);
    assert_eq!(
        modern.lines("[finding] deprecated-feature").len(),
        1,
        "{}",
        modern.stderr
    );
    assert!(
        server[0].contains("logging") && server[0].contains("SEP-2577"),
        "{}",
        server[0]
    );
    // mcpscope's own session offers what the user asked for: no finding
    // about itself.
    assert!(client.is_empty(), "{}", modern.stderr);
    // A host asking for a log level at 2026-07-28, seen through the proxy.
    let d = tempfile::tempdir().unwrap();
    let rec = d.path().join("host.jsonl");
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": "hi"}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"roots": {}},
            "io.modelcontextprotocol/logLevel": "info"}}});
    let demo = [BIN.to_string(), "demo-server".to_string()];
    let answers = host_through_proxy(&demo, &[(call, true)], &rec, d.path());
    assert!(answers[0]["result"].is_object(), "{answers:?}");
    let o = run(&[
        "check",
        "--trace",
        rec.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let r: Value = serde_json::from_str(&o.stdout).unwrap();
    let client: Vec<&str> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "client-deprecated-feature")
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        client.len(),
        2,
        "logging and roots, once each: {}",
        o.stdout
    );
    assert!(
        client[0].contains("logging") && client[1].contains("roots"),
        "{client:?}"
    );
    // The same calls in a 2025-11-25 session: nothing is deprecated there.
    let legacy = run(&[
        "call",
        "--protocol",
        "legacy",
        "--demo",
        "--tool",
        "build_report",
        "-a",
        "tasks=3",
        "-a",
        "delay_ms=1",
        "--log-level",
        "debug",
    ]);
    assert_eq!(legacy.code, 0, "{}", legacy.stderr);
    assert!(
        !legacy.stderr.contains("deprecated-feature"),
        "{}",
        legacy.stderr
    );
}

#[test]
fn a_cancel_acknowledged_with_32800_is_a_cancelled_call_ending_at_the_cancel() {
    let d = tempfile::tempdir().unwrap();
    let ack = d.path().join("ack.jsonl");
    call_then_cancel("cancel_ack", &ack, d.path());
    let o = run(&[
        "check",
        "--trace",
        ack.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let report: Value =
        serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.stdout));
    let call = &report["calls"][0];
    assert_eq!(call["outcome"], "cancelled", "{report:#}");
    assert_eq!(report["failures"][0]["kind"], "cancelled", "{report:#}");
    assert_eq!(
        report["summary"]["passed"], false,
        "a cancelled call is not a complete one"
    );
    // Its duration ends at the cancel, which the trace shows.
    let lines = support::trace_lines(&ack);
    let t = |pred: &dyn Fn(&Value) -> bool| {
        lines
            .iter()
            .find(|l| pred(l))
            .map(|l| l["t"].as_f64().unwrap())
            .unwrap()
    };
    let sent = t(&|l| l["json"]["method"] == "tools/call");
    let cancelled = t(&|l| l["json"]["method"] == "notifications/cancelled");
    let ms = call["duration_ms"].as_f64().unwrap();
    assert!(
        (ms - (cancelled - sent) * 1000.0).abs() < 0.01,
        "{ms} vs {}",
        (cancelled - sent) * 1000.0
    );
}

#[test]
fn a_rule_broken_again_and_again_is_said_once_then_counted() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/servers/hostile_stdio.py"
    );
    // One run: its stderr, and its recording.
    let d = tempfile::tempdir().unwrap();
    let rec = d.path().join("t.jsonl");
    let o = run(&[
        "call",
        "--protocol",
        "legacy",
        "--tool",
        "t",
        "--record",
        rec.to_str().unwrap(),
        "--",
        "python3",
        script,
        "roots-storm",
        "2000",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let full: Vec<&str> = o
        .lines("[finding] server-request-without-capability (error)")
        .into_iter()
        .collect();
    // One cause: said as it opened, then counted.
    assert_eq!(full.len(), 1, "{}", o.stderr);
    let counted = o.lines("[finding] server-request-without-capability ×");
    assert_eq!(counted.len(), 1, "{}", o.stderr);
    assert!(
        counted[0].starts_with("[finding] server-request-without-capability ×10 first #"),
        "{}",
        counted[0]
    );
    // The trace keeps each: check's text has the cause once with its
    // count, its JSON all ten findings.
    let check = run(&["check", "--trace", rec.to_str().unwrap()]);
    assert_eq!(
        check
            .stdout
            .matches("server-request-without-capability (error) ×10 first #")
            .count(),
        1,
        "{}",
        check.stdout
    );
    let json = run(&[
        "check",
        "--trace",
        rec.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let r: Value = serde_json::from_str(&json.stdout).unwrap();
    let all = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "server-request-without-capability")
        .count();
    assert_eq!(all, 10, "{}", json.stdout);
}

/// A server of a revision mcpscope does not know yet (`2026-12-15`, the one
/// expected next, `tests/servers/future_revision.py`): its newer
/// `protocolVersion`, unknown `_meta` keys, result fields, capability and
/// notification draw no error or warning — at most an info naming what was
/// not understood — and the session goes on in the newest revision both
/// sides speak: 2026-07-28 where discovery lists both, the offered
/// 2025-11-25 where `initialize` is answered with the newer one.
#[test]
fn a_server_of_a_newer_revision_is_spoken_to_in_the_newest_both_know() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/servers/future_revision.py"
    );
    let d = tempfile::tempdir().unwrap();
    for (mode, spoken) in [("discover", "2026-07-28"), ("handshake", "2025-11-25")] {
        let rec = d.path().join(format!("{mode}.jsonl"));
        let rec = rec.to_str().unwrap();
        let o = run(&[
            "check", "--tool", "echo", "--format", "json", "--record", rec, "--", "python3",
            script, mode,
        ]);
        assert_eq!(o.code, 0, "{mode}: {}\n{}", o.stdout, o.stderr);
        let r: Value = serde_json::from_str(&o.stdout).unwrap();
        assert_eq!(r["summary"]["error"], 0, "{mode}: {}", o.stdout);
        assert_eq!(r["summary"]["warning"], 0, "{mode}: {}", o.stdout);
        assert_eq!(r["summary"]["passed"], true);
        // The call went on and completed, its progress counted.
        assert_eq!(r["calls"][0]["outcome"], "ok", "{mode}: {}", o.stdout);
        assert_eq!(r["calls"][0]["notifications"], 1, "{mode}: {}", o.stdout);
        let infos: Vec<&Value> = r["findings"].as_array().unwrap().iter().collect();
        // The revision mcpscope spoke: the tools/call's own version.
        let trace = std::fs::read_to_string(rec).unwrap();
        let call: Value = trace
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|e| e["json"]["method"] == "tools/call")
            .unwrap();
        match mode {
            "discover" => {
                assert!(infos.is_empty(), "{mode}: {infos:?}");
                assert_eq!(
                    call["json"]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
                    spoken
                );
            }
            _ => {
                // The newer version is said, as an info that names it.
                assert_eq!(infos.len(), 1, "{infos:?}");
                assert_eq!(infos[0]["rule"], "protocol-version-newer");
                assert_eq!(infos[0]["severity"], "info");
                let m = infos[0]["message"].as_str().unwrap();
                assert!(m.contains("\"2026-12-15\"") && m.contains(spoken), "{m}");
                let init: Value = trace
                    .lines()
                    .skip(1)
                    .map(|l| serde_json::from_str::<Value>(l).unwrap())
                    .find(|e| e["json"]["method"] == "initialize")
                    .unwrap();
                assert_eq!(init["json"]["params"]["protocolVersion"], spoken);
            }
        }
    }
    // Headless call: the session line says where the session goes on.
    let o = run(&[
        "call",
        "--tool",
        "echo",
        "--",
        "python3",
        script,
        "handshake",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "· protocol 2026-12-15 (initialize handshake, newer than mcpscope knows: going on at 2025-11-25)"
        ),
        "{}",
        o.stderr
    );
    assert!(
        !o.stderr.contains("(error)") && !o.stderr.contains("(warning)"),
        "{}",
        o.stderr
    );
}

/// A raw host behind `mcpscope proxy --record REC -- shifting_tools.py
/// SERVER_ARGS…` lists the tools, calls `flip` (the server then sends
/// `notifications/tools/list_changed`), and lists them again, as a host
/// does on that notification. Each request is sent once the answer to the
/// one before has come.
fn list_call_list(server_args: &[&str], rec: &std::path::Path, rt: &std::path::Path) {
    let mut server = vec![
        "python3".to_string(),
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/servers/shifting_tools.py"
        )
        .to_string(),
    ];
    server.extend(server_args.iter().map(|s| s.to_string()));
    list_twice(&server, Some("flip"), rec, rt);
}

/// A raw host behind `mcpscope proxy --record REC -- SERVER…` lists the
/// tools, calls `call` (if any), and lists them again.
fn list_twice(server: &[String], call: Option<&str>, rec: &std::path::Path, rt: &std::path::Path) {
    let (mut child, mut to, mut from) = proxied(server, rec, rt);
    let mut requests = vec![
        serde_json::json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}),
        serde_json::json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
    ];
    if let Some(tool) = call {
        requests.push(serde_json::json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":tool,"arguments":{}}}));
    }
    requests.push(serde_json::json!({"jsonrpc":"2.0","id":4,"method":"tools/list"}));
    let mut changed = false;
    for r in &requests {
        writeln!(to, "{r}").unwrap();
        if r["id"] == 1 {
            writeln!(
                to,
                r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
            )
            .unwrap();
        }
        loop {
            let mut line = String::new();
            assert!(from.read_line(&mut line).unwrap() > 0, "the proxy ended");
            let m: Value = serde_json::from_str(&line).unwrap();
            changed |= m["method"] == "notifications/tools/list_changed";
            if m["id"] == r["id"] {
                break;
            }
        }
    }
    assert!(changed || call.is_none(), "the server announced the change");
    drop(to);
    assert!(child.wait().unwrap().success());
}

/// A tool that turns less safe within a session — after
/// `notifications/tools/list_changed` the listing says it writes and
/// destroys, and wants a new input — is found without a baseline; the same
/// notification with the same listing is not.
#[test]
fn a_tool_that_turns_less_safe_within_the_session_is_found() {
    let d = tempfile::tempdir().unwrap();
    let rule = "tool-less-safe-in-session";
    let shifted = d.path().join("shifted.jsonl");
    list_call_list(&[], &shifted, d.path());
    let o = run(&[
        "check",
        "--trace",
        shifted.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let r: Value = serde_json::from_str(&o.stdout).unwrap();
    let found: Vec<&Value> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect();
    assert_eq!(found.len(), 1, "{}", o.stdout);
    let f = found[0];
    assert_eq!(f["severity"], "warning");
    assert_eq!(f["request_id"], 4, "the listing that showed it");
    let m = f["message"].as_str().unwrap();
    for why in [
        "\"flip\"",
        "readOnlyHint true → false",
        "destructiveHint false → true",
        "new required input \"path\"",
    ] {
        assert!(m.contains(why), "{why} in {m}");
    }
    // Both listings are its frames: the one before and the one after.
    let trace = std::fs::read_to_string(&shifted).unwrap();
    let listed: Vec<u64> = trace
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["dir"] == "in" && e["json"]["result"]["tools"].is_array())
        .map(|e| e["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(f["seq"], serde_json::json!(listed), "{f}");
    // Its group has the fix.
    let g = r["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["rule"] == rule)
        .unwrap();
    assert_eq!(
        g["fix"],
        mcpscope::checks::Rule::ToolLessSafeInSession.fix()
    );

    let steady = d.path().join("steady.jsonl");
    list_call_list(&["--steady"], &steady, d.path());
    let o = run(&["check", "--trace", steady.to_str().unwrap()]);
    assert!(findings_of(&o, rule).is_empty(), "{}", o.stdout);
}

/// Real servers listed twice in one session (server-everything announces
/// list_changed right after initialized) draw no tool-less-safe-in-session.
#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn real_servers_listed_twice_are_not_less_safe() {
    let d = tempfile::tempdir().unwrap();
    let everything = vec![support::everything().display().to_string(), "stdio".into()];
    for (name, server) in [
        ("everything", everything),
        ("python", support::python_server()),
        ("fastmcp", support::fastmcp_server()),
        ("rmcp", support::rmcp_server()),
    ] {
        let rec = d.path().join(format!("{name}.jsonl"));
        list_twice(&server, None, &rec, d.path());
        let o = run(&[
            "check",
            "--trace",
            rec.to_str().unwrap(),
            "--format",
            "json",
        ]);
        let r: Value = serde_json::from_str(&o.stdout).unwrap();
        let listed = std::fs::read_to_string(&rec)
            .unwrap()
            .matches("\"tools/list\"")
            .count();
        assert_eq!(listed, 2, "{name}: listed twice");
        assert_eq!(r["findings"], serde_json::json!([]), "{name}: {}", o.stdout);
    }
}

/// `--allow RULE` keeps a finding the author cannot fix out of the verdict
/// and still shows it, in every format; other rules still fail.
#[test]
fn an_allowed_rule_is_shown_but_does_not_fail_the_check() {
    let check = |extra: &[&str]| {
        let mut cmd = vec!["check", "--tool", "typed_result"];
        cmd.extend_from_slice(extra);
        against(&cmd, &["--clean-listing"])
    };
    let o = check(&[]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);

    let o = check(&["--allow", "tool-output-invalid"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let line = findings_of(&o, "tool-output-invalid");
    assert_eq!(line.len(), 1, "{}", o.stdout);
    assert!(line[0].contains("(allowed)"), "{}", line[0]);
    assert!(o.stdout.contains("PASS"), "{}", o.stdout);

    let o = check(&["--allow", "tool-output-invalid", "--format", "json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["summary"]["passed"], true);
    assert_eq!(v["summary"]["error"], 1, "still counted: {}", v["summary"]);
    assert_eq!(v["summary"]["allowed"][0], "tool-output-invalid");
    let g = &v["groups"][0];
    assert_eq!(g["rule"], "tool-output-invalid");
    assert_eq!(g["allowed"], true);

    let o = check(&["--allow", "tool-output-invalid", "--format", "sarif"]);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let res = &v["runs"][0]["results"];
    let r = res
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "tool-output-invalid")
        .expect("the allowed result is still reported");
    assert_eq!(r["suppressions"][0]["kind"], "external", "{r}");

    let o = check(&["--allow", "tool-output-invalid", "--format", "junit"]);
    assert_eq!(o.code, 0);
    assert!(o.stdout.contains("tool-output-invalid"), "{}", o.stdout);
    assert!(!o.stdout.contains("<failure"), "{}", o.stdout);

    // Another rule allowed: the finding still fails.
    let o = check(&["--allow", "log-invalid"]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    // An unknown rule is a usage error.
    let o = check(&["--allow", "no-such-rule"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("no-such-rule"), "{}", o.stderr);
}

/// Asked for a log level, mcpscope asks in the handshake era too, even of a
/// server that did not declare `logging` (and says so); its own setLevel is
/// deliberate and draws no `client-setlevel-without-capability`.
#[test]
fn a_log_level_asked_for_is_asked_of_a_server_without_logging_and_not_judged() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("s.jsonl");
    let rec_s = rec.to_str().unwrap();
    let o = against(
        &[
            "check",
            "--tool",
            "log_no_data",
            "--log-level",
            "debug",
            "--record",
            rec_s,
        ],
        &["--clean-listing"],
    );
    assert!(
        o.stderr.contains("did not declare the logging capability"),
        "{}",
        o.stderr
    );
    let trace = std::fs::read_to_string(&rec).unwrap();
    assert!(
        trace
            .lines()
            .any(|l| l.contains("\"out\"") && l.contains("logging/setLevel")),
        "no setLevel was sent: {trace}"
    );
    assert!(
        findings_of(&o, "client-setlevel-without-capability").is_empty(),
        "{}{}",
        o.stdout,
        o.stderr
    );
    // Nor when the recording is checked again.
    let o = run(&["check", "--trace", rec_s]);
    assert!(
        findings_of(&o, "client-setlevel-without-capability").is_empty(),
        "{}",
        o.stdout
    );
}
