//! The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`)
//! headless, against the demo server over stdio and Streamable HTTP: a
//! `tools/call` answered with a task handle is followed with `tasks/get` to
//! its result, an `input_required` task's elicitation is answered with
//! `tasks/update` from `--elicit`, a failed task is the call's JSON-RPC
//! error, input nobody gives cancels the task, and Ctrl-C sends
//! `tasks/cancel`. The task rules stay silent on every clean run.

use crate::support::http::*;
use crate::support::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

const EXTENSION: &str = "io.modelcontextprotocol/tasks";

fn demo_argv() -> Vec<String> {
    vec![BIN.into(), "demo-server".into()]
}

fn demo_http() -> (Bg, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(["demo-server", "--http", "127.0.0.1:0"]);
    let (srv, port) = start_reporting(cmd);
    (srv, format!("http://127.0.0.1:{port}/mcp"))
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

/// No rule broken: the one note a 2026-07-28 session may carry is that its
/// logging is deprecated there (info, once per side).
fn assert_rules_silent(rec: &std::path::Path) {
    let (code, report) = check_trace(rec);
    assert_eq!(code, 0, "{report}");
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .filter(|r| !matches!(*r, "deprecated-feature" | "client-deprecated-feature"))
        .collect();
    assert!(rules.is_empty(), "{report}");
}

/// The `[task] ID STATUS …` lines: (id, status).
fn task_lines(stderr: &str) -> Vec<(String, String)> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("[task] "))
        .map(|l| {
            let mut w = l.split(' ');
            (
                w.next().unwrap_or("").to_string(),
                w.next().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// `batch_job confirm=true` of `steps` steps through `call` with `flag`,
/// its confirmation answered from `--elicit`: the output, the result
/// (checked), and the recording (checked silent by the task rules).
fn confirming_batch(
    server: &[&str],
    flag: &str,
    steps: u64,
    step_ms: &str,
    poll_ms: &str,
) -> (Output, Value, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("t.jsonl");
    let steps_arg = format!("steps={steps}");
    let mut args = vec![
        "call",
        "--protocol",
        "2026-07-28",
        flag,
        "--tool",
        "batch_job",
    ];
    for a in [steps_arg.as_str(), step_ms, poll_ms, "confirm=true"] {
        args.extend(["-a", a]);
    }
    args.extend([
        "--elicit",
        r#"accept:{"proceed":true,"note":"go"}"#,
        "--record",
        rec.to_str().unwrap(),
    ]);
    args.extend_from_slice(server);
    let o = run(&args);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let result: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        result["structuredContent"],
        json!({"steps": steps, "done": steps, "note": "go"})
    );
    assert_rules_silent(&rec);
    (o, result, trace_lines(&rec))
}

/// The confirming batch followed to its result, over either transport.
fn confirmed_batch(server: &[&str]) {
    let (o, result, lines) = confirming_batch(server, "--task", 4, "step_ms=20", "poll_ms=100");
    assert_eq!(result["isError"], false, "{result}");
    assert!(
        result.get("resultType").is_none(),
        "the tool's result, not the task: {result}"
    );

    let tasks = task_lines(&o.stderr);
    let id = &tasks.first().expect("[task] lines").0;
    assert_eq!(id.len(), 32, "{tasks:?}");
    assert!(tasks.iter().all(|(t, _)| t == id), "{tasks:?}");
    let statuses: Vec<&str> = tasks.iter().map(|(_, s)| s.as_str()).collect();
    assert_eq!(statuses.first(), Some(&"working"), "{statuses:?}");
    assert!(statuses.contains(&"input_required"), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&"completed"), "{statuses:?}");

    let call = frames(&lines, "out", "tools/call").next().unwrap();
    assert_eq!(
        call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
            [EXTENSION],
        json!({}),
        "the extension is declared per request"
    );
    assert!(
        call["params"].get("task").is_none(),
        "no 2025-11-25 task field"
    );
    assert!(frames(&lines, "out", "tasks/get").count() >= 2);
    assert_eq!(frames(&lines, "out", "tasks/result").count(), 0);
    let updates: Vec<&Value> = frames(&lines, "out", "tasks/update").collect();
    assert_eq!(updates.len(), 1, "one answer per input request key");
    assert_eq!(updates[0]["params"]["taskId"], id.as_str());
    assert_eq!(
        updates[0]["params"]["inputResponses"],
        json!({"confirm-1": {"action": "accept", "content": {"proceed": true, "note": "go"}}})
    );
    assert_eq!(frames(&lines, "out", "tasks/cancel").count(), 0);
}

#[test]
fn stdio_a_task_handle_is_followed_and_its_input_answered_with_tasks_update() {
    let argv = demo_argv();
    let mut server = vec!["--"];
    server.extend(argv.iter().map(String::as_str));
    confirmed_batch(&server);
}

#[test]
fn http_a_task_handle_is_followed_and_its_input_answered_with_tasks_update() {
    // The demo refuses a tasks/* request whose Mcp-Name is not its taskId,
    // so a run to the end shows the header was right on every poll.
    let (_srv, url) = demo_http();
    confirmed_batch(&["--url", &url]);
}

/// With `--listen`, the task's status comes pushed on a
/// `subscriptions/listen` stream (`taskIds`): the poll interval is the
/// longest there is (30 s), yet the call ends as soon as the task does,
/// without one `tasks/get`, and the stream is closed after it.
fn pushed_batch(server: &[&str], over_http: bool) {
    let (_, _, lines) = confirming_batch(server, "--listen", 3, "step_ms=10", "poll_ms=60000");
    let listens: Vec<&Value> = frames(&lines, "out", "subscriptions/listen").collect();
    let task_listen = listens
        .iter()
        .find(|l| l["params"]["notifications"]["taskIds"].is_array())
        .expect("a listen stream for the task");
    let task_id = task_listen["params"]["notifications"]["taskIds"][0]
        .as_str()
        .unwrap();
    let pushed: Vec<&Value> = frames(&lines, "in", "notifications/tasks").collect();
    assert!(
        pushed.iter().all(|p| p["params"]["taskId"] == task_id
            && p["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == task_listen["id"]),
        "{pushed:?}"
    );
    let statuses: Vec<&str> = pushed
        .iter()
        .filter_map(|p| p["params"]["status"].as_str())
        .collect();
    assert!(statuses.contains(&"input_required"), "{statuses:?}");
    assert_eq!(statuses.last(), Some(&"completed"), "{statuses:?}");
    assert_eq!(
        frames(&lines, "out", "tasks/get").count(),
        0,
        "pushed, not polled"
    );
    assert_eq!(frames(&lines, "out", "tasks/update").count(), 1);
    // The task's stream is closed once the task ended.
    let closed = if over_http {
        lines
            .iter()
            .any(|l| l["json"]["event"] == "cancel" && l["json"]["request"] == task_listen["id"])
    } else {
        frames(&lines, "out", "notifications/cancelled")
            .any(|c| c["params"]["requestId"] == task_listen["id"])
    };
    assert!(closed, "the task's listen stream closed");
}

#[test]
fn stdio_task_status_is_pushed_on_a_listen_stream() {
    let argv = demo_argv();
    let mut server = vec!["--"];
    server.extend(argv.iter().map(String::as_str));
    pushed_batch(&server, false);
}

#[test]
fn http_task_status_is_pushed_on_a_listen_stream() {
    let (_srv, url) = demo_http();
    pushed_batch(&["--url", &url], true);
}

#[test]
fn a_handle_is_followed_without_task_and_the_handshake_era_runs_inline() {
    let argv = demo_argv();
    let o = headless(["call"])
        .args([
            "--protocol",
            "2026-07-28",
            "--tool",
            "batch_job",
            "-a",
            "steps=2",
            "-a",
            "step_ms=1",
        ])
        .server(&argv)
        .expect(0);
    assert_eq!(task_lines(&o.stderr).last().unwrap().1, "completed");
    assert!(o.stdout.contains("Batch done: 2 steps"), "{}", o.stdout);
    // A 2025-11-25 session never declares the extension: no task, progress.
    let o = headless(["call"])
        .args([
            "--protocol",
            "2025-11-25",
            "--tool",
            "batch_job",
            "-a",
            "steps=2",
            "-a",
            "step_ms=1",
        ])
        .server(&argv)
        .expect(0);
    assert!(task_lines(&o.stderr).is_empty(), "{}", o.stderr);
    assert_eq!(o.lines("[progress]").len(), 2, "{}", o.stderr);
}

#[test]
fn a_failed_task_is_the_calls_error_and_missing_input_cancels_the_task() {
    let (_srv, url) = demo_http();
    let o = run(&[
        "call",
        "--url",
        &url,
        "--protocol",
        "2026-07-28",
        "--tool",
        "batch_job",
        "-a",
        "steps=1",
        "-a",
        "step_ms=1",
        "-a",
        "fail=true",
    ]);
    assert_ne!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.is_empty(), "{}", o.stdout);
    assert!(
        o.stderr.contains("-32603") && o.stderr.contains("batch failed"),
        "{}",
        o.stderr
    );
    assert_eq!(task_lines(&o.stderr).last().unwrap().1, "failed");

    let o = headless([
        "call",
        "--url",
        &url,
        "--protocol",
        "2026-07-28",
        "--tool",
        "batch_job",
        "-a",
        "steps=2",
        "-a",
        "step_ms=1",
        "-a",
        "confirm=true",
    ])
    .record()
    .expect(1);
    let waiting: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(waiting["status"], "input_required", "{waiting}");
    assert!(
        waiting["inputRequests"]["confirm-1"].is_object(),
        "{waiting}"
    );
    assert!(
        o.stderr
            .contains("[error] the task needs input mcpscope was not asked to give"),
        "{}",
        o.stderr
    );
    let lines = o.trace();
    let get = lines
        .iter()
        .filter(|l| l["dir"] == "in")
        .map(|l| &l["json"])
        .find(|f| f["result"]["status"] == "input_required")
        .expect("an input_required task");
    let id = get["result"]["taskId"].as_str().unwrap();
    let cancel = frames(&lines, "out", "tasks/cancel")
        .next()
        .expect("the waiting task is cancelled");
    assert_eq!(cancel["params"]["taskId"], id);
    assert_eq!(frames(&lines, "out", "tasks/update").count(), 0);
}

#[test]
fn ctrl_c_cancels_the_task_with_tasks_cancel() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("t.jsonl");
    let mut args: Vec<String> = [
        "call",
        "--protocol",
        "2026-07-28",
        "--tool",
        "batch_job",
        "-a",
        "steps=1000",
        "-a",
        "step_ms=50",
        "-a",
        "poll_ms=100",
        "--record",
        rec.to_str().unwrap(),
        "--",
    ]
    .map(String::from)
    .to_vec();
    args.extend(demo_argv());
    // The second status line comes from a tasks/get: the task is followed.
    interrupt_a_followed_task(&args, &rec);
}

/// The demo server over stdio, spoken to in raw JSON-RPC lines.
struct Demo {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    out: BufReader<std::process::ChildStdout>,
    next: u64,
}

impl Demo {
    fn start() -> Demo {
        let mut child = Command::new(BIN)
            .arg("demo-server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        Demo {
            stdin: child.stdin.take(),
            out: BufReader::new(child.stdout.take().unwrap()),
            child,
            next: 0,
        }
    }

    /// Send a request with the 2026-07-28 envelope (declaring the extension
    /// or not) and return its answer; notifications are skipped.
    fn ask(&mut self, method: &str, params: Value, extension: bool) -> Value {
        use std::io::Write;
        self.next += 1;
        let caps = if extension {
            json!({"extensions": {EXTENSION: {}}})
        } else {
            json!({})
        };
        let mut params = params;
        params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps});
        let req = json!({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params});
        writeln!(self.stdin.as_mut().unwrap(), "{req}").unwrap();
        loop {
            let mut line = String::new();
            assert!(self.out.read_line(&mut line).unwrap() > 0, "the demo ended");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == self.next {
                return v;
            }
        }
    }
}

impl Drop for Demo {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

#[test]
fn the_demo_keeps_the_extensions_musts() {
    let mut demo = Demo::start();
    let dog = watchdog(&demo.child, std::time::Duration::from_secs(60));
    let discover = demo.ask("server/discover", json!({}), true);
    assert_eq!(
        discover["result"]["capabilities"]["extensions"][EXTENSION],
        json!({})
    );
    let long = json!({"name": "batch_job", "arguments": {"steps": 1000, "step_ms": 50}});
    let handle = demo.ask("tools/call", long.clone(), true)["result"].clone();
    assert_eq!(handle["resultType"], "task", "{handle}");
    assert_eq!(handle["status"], "working");
    assert_eq!(handle["ttlMs"], 3_600_000);
    assert!(handle["createdAt"].is_string() && handle["lastUpdatedAt"].is_string());
    let id = handle["taskId"].as_str().unwrap();
    // Durably created before the handle: tasks/get resolves at once.
    let got = demo.ask("tasks/get", json!({"taskId": id}), true);
    assert_eq!(got["result"]["resultType"], "complete", "{got}");
    assert_eq!(got["result"]["taskId"], id);
    // Unknown ids are invalid params; a client without the extension is
    // told what it lacks.
    let unknown = demo.ask("tasks/get", json!({"taskId": "0"}), true);
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let undeclared = demo.ask("tasks/get", json!({"taskId": id}), false);
    assert_eq!(undeclared["error"]["code"], -32021, "{undeclared}");
    assert_eq!(
        undeclared["error"]["data"]["requiredCapabilities"]["extensions"][EXTENSION],
        json!({})
    );
    // A second task gets another id.
    let quick = json!({"name": "batch_job", "arguments": {"steps": 1, "step_ms": 1}});
    let second = demo.ask("tools/call", quick.clone(), true);
    assert_ne!(second["result"]["taskId"], id);
    // Cancelled: acknowledged empty, and the task says so from then on.
    let ack = demo.ask("tasks/cancel", json!({"taskId": id}), true);
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let got = demo.ask("tasks/get", json!({"taskId": id}), true);
    assert_eq!(got["result"]["status"], "cancelled", "{got}");
    // Without the extension the same tool answers with its result.
    let inline = demo.ask("tools/call", quick, false);
    assert_eq!(inline["result"]["resultType"], "complete", "{inline}");
    assert_eq!(inline["result"]["isError"], false, "{inline}");
    drop(demo);
    dog.disarm();
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn a_real_server_without_the_extension_takes_the_declaration_and_task_is_refused() {
    let argv = python_server();
    // Declared on the request, ignored by a server without the extension:
    // the call is answered as ever.
    let o = headless(["call"])
        .args([
            "--protocol",
            "modern",
            "--tool",
            "slow_task",
            "-a",
            "steps=1",
            "-a",
            "delay_ms=1",
        ])
        .server(&argv)
        .record()
        .expect(0);
    assert!(task_lines(&o.stderr).is_empty(), "{}", o.stderr);
    let lines = o.trace();
    let call = frames(&lines, "out", "tools/call").next().unwrap();
    assert_eq!(
        call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
            [EXTENSION],
        json!({})
    );
    // --task asks for what the server did not declare: a usage error, before any call.
    let o = headless(["call"])
        .args(["--protocol", "modern", "--task", "--tool", "slow_task"])
        .server(&argv)
        .expect(2);
    assert!(
        o.stderr
            .contains("--task: the server did not declare the tasks extension"),
        "{}",
        o.stderr
    );
}

#[test]
fn the_maximum_time_cancels_the_task_and_is_a_timeout() {
    let argv = demo_argv();
    let o = headless(["call"])
        .args([
            "--protocol",
            "modern",
            "--tool",
            "batch_job",
            "-a",
            "steps=1000",
            "-a",
            "step_ms=50",
            "-a",
            "poll_ms=100",
            "--max-timeout",
            "0.5",
        ])
        .server(&argv)
        .record()
        .expect(4);
    let lines = o.trace();
    let created = lines
        .iter()
        .find(|l| l["dir"] == "in" && l["json"]["result"]["resultType"] == "task")
        .expect("a task handle");
    let cancel = frames(&lines, "out", "tasks/cancel")
        .next()
        .expect("the task is cancelled");
    assert_eq!(
        cancel["params"]["taskId"],
        created["json"]["result"]["taskId"]
    );
}
