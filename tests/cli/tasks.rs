//! Tasks (2025-11-25) headless: a task-required tool runs as a task without
//! asking, `--task` where a tool forbids it is a usage error, status lines
//! follow the task to its result, an elicitation while the task is
//! `input_required` is answered; and client-side tasks (the server asking
//! mcpscope to run sampling or elicitation as a task). Against
//! server-everything over stdio and Streamable HTTP, and the demo server.

use crate::support::http::*;
use crate::support::*;
use serde_json::Value;
use std::process::Command;

fn everything_argv() -> Vec<String> {
    vec![everything().display().to_string(), "stdio".into()]
}

/// The handshake era, where the 2025-11-25 tasks live.
const LEGACY: [&str; 2] = ["--protocol", "legacy"];

fn text(stdout: &str) -> String {
    let v: Value = serde_json::from_str(stdout).unwrap();
    v["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn a_task_required_tool_runs_as_a_task_to_its_result() {
    let o = headless(["call"])
        .args(["--tool", "simulate-research-query", "-a", "topic=rust"])
        .server(everything_argv())
        .record()
        .expect(0);
    assert!(
        text(&o.stdout).contains("# Research Report: rust"),
        "{}",
        o.stdout
    );
    let tasks = o.lines("[task]");
    assert!(
        tasks
            .first()
            .is_some_and(|l| l.ends_with("working Gathering sources...")),
        "{}",
        o.stderr
    );
    assert!(
        tasks.last().is_some_and(|l| l.contains(" completed")),
        "{}",
        o.stderr
    );
    // One line per change: no two neighbours alike.
    assert!(tasks.windows(2).all(|w| w[0] != w[1]), "{tasks:?}");
    let lines = o.trace();
    let call = frames(&lines, "out", "tools/call").next().unwrap();
    assert!(call["params"]["task"].is_object(), "{call}");
    let id = tasks[0].split(' ').nth(1).unwrap();
    let result = frames(&lines, "out", "tasks/result").next().unwrap();
    assert_eq!(result["params"]["taskId"], id);
    assert!(frames(&lines, "out", "tasks/get").count() >= 1);
    assert!(o.lines("[finding]").is_empty(), "{}", o.stderr);
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn input_required_is_answered_from_elicit() {
    let o = headless(["call"])
        .args([
            "--tool",
            "simulate-research-query",
            "-a",
            "topic=rust",
            "-a",
            "ambiguous=true",
            "--elicit",
            r#"accept:{"interpretation":"technical"}"#,
        ])
        .server(everything_argv())
        .expect(0);
    let statuses: Vec<&str> = o
        .lines("[task]")
        .iter()
        .map(|l| l.split(' ').nth(2).unwrap())
        .collect();
    assert!(statuses.contains(&"input_required"), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&"completed"));
    assert!(
        text(&o.stdout).contains("**Clarification**: technical"),
        "{}",
        o.stdout
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn task_where_the_tool_forbids_it_is_a_usage_error() {
    let o = headless(["call"])
        .args(["--tool", "echo", "-a", "message=x", "--task"])
        .server(everything_argv())
        .expect(2);
    assert!(
        o.stderr.contains("echo does not run as a task"),
        "{}",
        o.stderr
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn task_against_a_server_without_tasks_is_a_usage_error() {
    let o = headless(["call", "--demo", "--tool", "echo", "--task"])
        .args(LEGACY)
        .expect(2);
    assert!(
        o.stderr.contains("did not declare tasks for tools/call"),
        "{}",
        o.stderr
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn client_side_tasks_for_sampling_and_elicitation() {
    let o = headless(["call"])
        .args([
            "--tool",
            "trigger-sampling-request-async",
            "-a",
            "prompt=hi",
            "--sample",
            "async hello",
        ])
        .server(everything_argv())
        .record()
        .expect(0);
    let t = text(&o.stdout);
    assert!(t.contains("[COMPLETED] Async sampling completed!"), "{t}");
    assert!(t.contains("async hello"), "{t}");
    let lines = o.trace();
    let init = frames(&lines, "out", "initialize").next().unwrap();
    assert!(
        init["params"]["capabilities"]["tasks"]["requests"]["sampling"]["createMessage"]
            .is_object(),
        "{init}"
    );
    // The server fetched the result from mcpscope's task.
    assert!(frames(&lines, "in", "tasks/result").count() == 1);

    let o = headless(["call"])
        .args([
            "--tool",
            "trigger-elicitation-request-async",
            "--elicit",
            r#"accept:{"name":"Ada"}"#,
        ])
        .server(everything_argv())
        .expect(0);
    let t = text(&o.stdout);
    assert!(t.contains("- Name: Ada"), "{t}");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn a_task_over_streamable_http() {
    let preload = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/report_port.cjs");
    let mut cmd = Command::new(everything());
    cmd.arg("streamableHttp")
        .env("PORT", "0")
        .env("NODE_OPTIONS", format!("--require {preload}"));
    let (_srv, port) = start_reporting(cmd);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let o = headless([
        "call",
        "--url",
        &url,
        "--tool",
        "simulate-research-query",
        "-a",
        "topic=http",
    ])
    .expect(0);
    assert!(
        text(&o.stdout).contains("# Research Report: http"),
        "{}",
        o.stdout
    );
    assert!(
        o.lines("[task]")
            .last()
            .is_some_and(|l| l.contains(" completed")),
        "{}",
        o.stderr
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn ctrl_c_cancels_the_task_then_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("t.jsonl");
    let mut args: Vec<String> = [
        "call",
        "--tool",
        "simulate-research-query",
        "-a",
        "topic=rust",
        "--record",
        rec.to_str().unwrap(),
        "--",
    ]
    .map(String::from)
    .to_vec();
    args.extend(everything_argv());
    // The server announces the task's first status before it answers the
    // call, and moves to the second stage a second later.
    interrupt_a_followed_task(&args, &rec);
}

/// The demo server with the conformance fixtures, whose task fixtures run
/// as 2025-11-25 tasks: in the handshake era (`LEGACY`), where they are
/// offered.
fn demo_tasks_argv() -> Vec<String> {
    vec![BIN.into(), "demo-server".into(), "--conformance".into()]
}

/// `check --trace FILE --format json`: its exit code and report.
fn check_trace(rec: &std::path::Path) -> (i32, Value) {
    let o = run(&[
        "check",
        "--trace",
        rec.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let report = serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.stdout));
    (o.code, report)
}

/// Seq of the first recorded event matching `pred`.
fn seq_of(lines: &[Value], pred: impl Fn(&Value) -> bool) -> u64 {
    lines
        .iter()
        .skip(1)
        .find(|l| pred(l))
        .and_then(|l| l["seq"].as_u64())
        .expect("a matching event")
}

#[test]
fn a_task_keeps_its_progress_token_after_the_create_task_result() {
    let o = headless(["call"])
        .args(["--tool", "test_task_with_progress", "--task"])
        .args(LEGACY)
        .server(demo_tasks_argv())
        .record()
        .expect(0);
    assert!(
        text(&o.stdout).contains("test_task_with_progress finished"),
        "{}",
        o.stdout
    );
    assert!(o.lines("[finding]").is_empty(), "{}", o.stderr);
    assert_eq!(o.lines("[progress]").len(), 2, "{}", o.stderr);
    let statuses: Vec<&str> = o
        .lines("[task]")
        .iter()
        .map(|l| l.split(' ').nth(2).unwrap())
        .collect();
    assert_eq!(statuses.last(), Some(&"completed"), "{}", o.stderr);

    // The progress came after the CreateTaskResult, on the call's token.
    let lines = o.trace();
    let call = frames(&lines, "out", "tools/call").next().unwrap();
    assert!(call["params"]["task"].is_object(), "{call}");
    let token = &call["params"]["_meta"]["progressToken"];
    let created = seq_of(&lines, |l| {
        l["dir"] == "in" && l["json"]["id"] == call["id"] && l["json"]["result"]["task"].is_object()
    });
    let progress: Vec<u64> = lines
        .iter()
        .filter(|l| {
            l["json"]["method"] == "notifications/progress"
                && l["json"]["params"]["progressToken"] == *token
        })
        .map(|l| l["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(progress.len(), 2, "{lines:?}");
    assert!(
        progress.iter().all(|s| *s > created),
        "{progress:?} vs {created}"
    );

    let (code, report) = check_trace(o.trace_path());
    assert_eq!(code, 0, "{report}");
    assert_eq!(report["findings"], serde_json::json!([]), "{report}");
    // The call's statistics count the task's progress too: the handle is
    // not the call's end, the task's terminal status is.
    let stats = &report["calls"][0];
    assert_eq!(stats["notifications"], 2, "{report}");
    let completed = lines
        .iter()
        .find(|l| l["json"]["params"]["status"] == "completed")
        .expect("the completed status");
    let sent = call_t(&lines, call);
    let want_ms = (completed["t"].as_f64().unwrap() - sent) * 1000.0;
    let got_ms = stats["duration_ms"].as_f64().unwrap();
    assert!(
        (got_ms - want_ms).abs() < 0.01,
        "{got_ms} vs {want_ms}: {report}"
    );
}

/// When `call` was sent (seconds on the trace clock).
fn call_t(lines: &[serde_json::Value], call: &serde_json::Value) -> f64 {
    lines
        .iter()
        .find(|l| l["dir"] == "out" && l["json"] == *call)
        .and_then(|l| l["t"].as_f64())
        .expect("the call's line")
}

#[test]
fn a_task_that_breaks_the_task_rules_is_reported() {
    // Its taskSupport is required: it runs as a task without --task.
    // The tool's result is no error: `call` exits 0 and reports live.
    let o = headless(["call", "--tool", "test_task_fault_after_terminal"])
        .args(LEGACY)
        .server(demo_tasks_argv())
        .record()
        .expect(0);
    let findings = o.lines("[finding]");
    // Each cause as it opens, then each summed up at the end (in the order
    // of their first frames, both errors).
    assert_eq!(findings.len(), 4, "{}", o.stderr);
    assert!(
        findings[0].starts_with("[finding] task-progress-after-terminal (error)"),
        "{findings:?}"
    );
    assert!(
        findings[1].starts_with("[finding] task-status-regressed (error)"),
        "{findings:?}"
    );
    assert!(
        findings[2].starts_with("[finding] task-progress-after-terminal ×1 first #"),
        "{findings:?}"
    );
    assert!(
        findings[3].starts_with("[finding] task-status-regressed ×1 first #"),
        "{findings:?}"
    );

    // The recording checked later says the same, and fails.
    let lines = o.trace();
    let status = |s: &'static str| {
        move |l: &Value| {
            l["json"]["method"] == "notifications/tasks/status"
                && l["json"]["params"]["status"] == s
        }
    };
    let completed = seq_of(&lines, status("completed"));
    let late = seq_of(&lines, |l| {
        l["json"]["method"] == "notifications/progress" && l["seq"].as_u64() > Some(completed)
    });
    let reopened = lines
        .iter()
        .skip(1)
        .filter(|l| status("working")(l))
        .filter_map(|l| l["seq"].as_u64())
        .find(|s| *s > completed)
        .expect("the status after completed");
    let (code, report) = check_trace(o.trace_path());
    assert_eq!(code, 1, "{report}");
    assert_eq!(report["summary"]["passed"], false, "{report}");
    let got: Vec<(&str, &str, Vec<u64>)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap(),
                f["severity"].as_str().unwrap(),
                f["seq"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|s| s.as_u64().unwrap())
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "task-progress-after-terminal",
                "error",
                vec![completed, late]
            ),
            ("task-status-regressed", "error", vec![completed, reopened]),
        ],
        "{report}"
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn a_clean_task_raises_no_task_rule() {
    // simulate-research-query reports its stages as task statuses and sends
    // no progress; progress going on after a CreateTaskResult is covered
    // against the demo's task fixture above.
    let o = headless(["call"])
        .args([
            "--tool",
            "simulate-research-query",
            "-a",
            "topic=rules",
            "--task",
        ])
        .server(everything_argv())
        .record()
        .expect(0);
    assert!(o.lines("[finding]").is_empty(), "{}", o.stderr);
    let lines = o.trace();
    // Its status was followed to the end: polls answered until completed.
    let polled: Vec<&str> = lines
        .iter()
        .skip(1)
        .filter(|l| l["dir"] == "in" && l["json"]["result"]["taskId"].is_string())
        .filter_map(|l| l["json"]["result"]["status"].as_str())
        .collect();
    assert!(polled.contains(&"working"), "{polled:?}");
    let (code, report) = check_trace(o.trace_path());
    assert_eq!(code, 0, "{report}");
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(
        !rules
            .iter()
            .any(|r| r.starts_with("task-") || *r == "progress-after-response"),
        "{report}"
    );
    assert!(rules.is_empty(), "{report}");
}

/// A server that says the task was cancelled, then never answers
/// `tasks/result`: the call ends with the task's status after a short
/// grace, not at `--max-timeout`.
#[test]
fn a_terminal_task_whose_result_never_comes_ends_the_call() {
    let port = raw_server(|req| {
        let v = req.json();
        let id = v["id"].clone();
        let ok = |result: serde_json::Value| {
            Reply::Body(
                200,
                "application/json",
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
            )
        };
        match v["method"].as_str() {
            Some("initialize") => ok(serde_json::json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}, "tasks": {"requests": {"tools": {"call": {}}}}},
                "serverInfo": {"name": "raw", "version": "1"}})),
            Some("tools/list") => ok(serde_json::json!({"tools": [{"name": "slow",
                "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}]})),
            Some("tools/call") => ok(serde_json::json!({"task": {"taskId": "t1",
                "status": "working", "pollInterval": 100,
                "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 60000}})),
            Some("tasks/get") => ok(serde_json::json!({"taskId": "t1", "status": "cancelled",
                "statusMessage": "stopped by the operator",
                "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:01Z", "ttl": 60000})),
            Some("tasks/result") => Reply::Hang,
            _ if req.method == "GET" => Reply::Body(405, "text/plain", String::new()),
            _ => Reply::Body(202, "text/plain", String::new()),
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("t.jsonl");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let o = run(&[
        "call",
        "--url",
        &url,
        "--tool",
        "slow",
        "--max-timeout",
        "600",
        "--record",
        rec.to_str().unwrap(),
    ]);
    assert_ne!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("cancelled") && o.stderr.contains("stopped by the operator"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("tasks/result"), "{}", o.stderr);
    // The unanswered tasks/result is cancelled, not left pending.
    let lines = trace_lines(&rec);
    let asked = frames(&lines, "out", "tasks/result").next().expect("asked");
    assert!(
        frames(&lines, "out", "notifications/cancelled")
            .any(|c| c["params"]["requestId"] == asked["id"]),
        "the wait for tasks/result is cancelled"
    );
}

/// `check --tool` runs a task-required tool as a task without asking, and
/// an optional one with `--task`; where none can run, `--task` is a usage
/// error (2) said before anything is called.
#[test]
fn check_runs_tools_as_tasks() {
    let check = |extra: &[&str]| {
        let mut args = vec!["check", "--format", "json"];
        args.extend(LEGACY);
        args.extend_from_slice(extra);
        args.push("--");
        let argv = demo_tasks_argv();
        args.extend(argv.iter().map(String::as_str));
        let o = run(&args);
        let report: Value = serde_json::from_str(&o.stdout).unwrap_or(Value::Null);
        (o, report)
    };
    let (o, report) = check(&["--tool", "test_task_fault_after_terminal"]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert_eq!(
        rules,
        ["task-progress-after-terminal", "task-status-regressed"],
        "{report}"
    );
    assert_eq!(report["failures"], serde_json::json!([]), "{report}");

    let (o, report) = check(&["--tool", "test_task_with_progress", "--task"]);
    assert_eq!(o.code, 0, "{}\n{report}", o.stderr);
    assert_eq!(report["findings"], serde_json::json!([]), "{report}");
    assert_eq!(report["summary"]["passed"], true, "{report}");
    let call = &report["calls"][0];
    assert_eq!(call["outcome"], "ok", "{report}");
    assert!(call["notifications"].as_u64() > Some(0), "{report}");

    let (o, _) = check(&["--tool", "echo", "--task"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("--task: echo does not run as a task"),
        "{}",
        o.stderr
    );
}
