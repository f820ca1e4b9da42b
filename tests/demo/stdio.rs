//! End-to-end tests of `mcpscope demo-server`: the real binary, raw JSON
//! lines over its stdin/stdout. Synchronisation is by waiting for response
//! ids, never by sleeping; the receive timeout only turns a hang into a
//! failure.

use crate::support::BIN;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

const TIMEOUT: Duration = Duration::from_secs(30);

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: i64,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(BIN)
            .arg("demo-server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn demo server");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        // A thread keeps draining stdout so the server never blocks on a
        // full pipe while a test is busy writing.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Server {
            child,
            stdin,
            lines,
            next_id: 0,
        }
    }

    /// Started and initialised, with the given client capabilities.
    fn ready(capabilities: Value) -> Server {
        let mut server = Server::start();
        let (_, response) = server.call(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": {"name": "demo-server-test", "version": "0"},
            }),
        );
        assert!(response.get("result").is_some(), "{response}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn send(&mut self, message: &Value) {
        self.send_raw(&message.to_string());
    }

    /// Send a request; returns its id.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    fn next_line(&mut self) -> String {
        match self.lines.recv_timeout(TIMEOUT) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => {
                panic!("no message from the server within {TIMEOUT:?}")
            }
            Err(RecvTimeoutError::Disconnected) => panic!("server closed stdout"),
        }
    }

    fn next_message(&mut self) -> Value {
        let line = self.next_line();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Everything up to the response with `id`: (messages before, response).
    fn until_response(&mut self, id: &Value) -> (Vec<Value>, Value) {
        let mut before = Vec::new();
        loop {
            let message = self.next_message();
            let is_response = message.get("method").is_none() && message.get("id") == Some(id);
            if is_response {
                return (before, message);
            }
            before.push(message);
        }
    }

    fn call(&mut self, method: &str, params: Value) -> (Vec<Value>, Value) {
        let id = self.request(method, params);
        self.until_response(&id)
    }

    /// Call a tool; `token` goes into `_meta.progressToken` when given.
    fn call_tool(&mut self, name: &str, args: Value, token: Option<Value>) -> (Vec<Value>, Value) {
        let mut params = json!({"name": name, "arguments": args});
        if let Some(token) = token {
            params["_meta"] = json!({"progressToken": token});
        }
        self.call("tools/call", params)
    }

    /// Round-trip a ping and return what arrived before its answer.
    fn ping(&mut self) -> Vec<Value> {
        let (before, response) = self.call("ping", json!({}));
        assert_eq!(response["result"], json!({}), "{response}");
        before
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn method(message: &Value) -> Option<&str> {
    message.get("method").and_then(Value::as_str)
}

/// Progress notifications carrying exactly `token` (compared as JSON, so
/// `7` and `"7"` differ).
fn progress_for<'a>(messages: &'a [Value], token: &Value) -> Vec<&'a Value> {
    messages
        .iter()
        .filter(|m| method(m) == Some("notifications/progress"))
        .map(|m| &m["params"])
        .filter(|p| &p["progressToken"] == token)
        .collect()
}

fn progress_values(progress: &[&Value]) -> Vec<u64> {
    progress
        .iter()
        .map(|p| p["progress"].as_u64().expect("integer progress"))
        .collect()
}

fn assert_strictly_increasing(values: &[u64], what: &str) {
    assert!(
        values.windows(2).all(|w| w[0] < w[1]),
        "{what}: progress not strictly increasing: {values:?}"
    );
}

fn result_text(response: &Value) -> &str {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content: {response}"))
}

fn assert_tool_ok(response: &Value) {
    assert_eq!(response["result"]["isError"], json!(false), "{response}");
}

#[test]
fn initialize_negotiates_version_and_declares_capabilities() {
    let mut server = Server::start();
    let (_, response) = server.call(
        "initialize",
        json!({"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}),
    );
    let result = &response["result"];
    assert_eq!(result["protocolVersion"], "2025-03-26");
    assert_eq!(result["capabilities"], json!({"tools": {}, "logging": {}}));
    assert_eq!(result["serverInfo"]["name"], "mcpscope-demo");
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(
        result["instructions"]
            .as_str()
            .is_some_and(|s| !s.is_empty())
    );

    let (_, response) = server.call(
        "initialize",
        json!({"protocolVersion": "1999-01-01", "capabilities": {}}),
    );
    assert_eq!(response["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn tools_list_pages_through_all_tools() {
    let mut server = Server::ready(json!({}));
    let mut pages = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            None => json!({}),
            Some(c) => json!({"cursor": c}),
        };
        let (_, page) = server.call("tools/list", params);
        let page = page["result"].clone();
        assert!(page["tools"].as_array().unwrap().len() <= 6, "{page}");
        cursor = page["nextCursor"].as_str().map(str::to_owned);
        pages.push(page);
        if cursor.is_none() {
            break;
        }
        assert!(pages.len() < 100, "tools/list never ends");
    }
    assert_eq!(pages[0]["tools"].as_array().unwrap().len(), 6);
    assert!(pages.len() >= 2);

    let tools: Vec<Value> = pages
        .iter()
        .flat_map(|p| p["tools"].as_array().unwrap().clone())
        .collect();
    let tools: Vec<&Value> = tools.iter().collect();
    let mut names: Vec<&str> = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .filter(|n| !n.starts_with("fault_"))
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "batch_job",
            "build_report",
            "context_builder",
            "echo",
            "flood",
            "interactive_wizard",
            "job_wait",
            "pipeline_wait",
            "publish_package",
            "sleep",
            "upload_file",
        ]
    );
    let faults = tools
        .iter()
        .filter(|t| t["name"].as_str().unwrap().starts_with("fault_"))
        .count();
    assert_eq!(faults, 17);
    for tool in tools {
        assert!(tool["title"].is_string(), "{tool}");
        assert!(tool["description"].is_string(), "{tool}");
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
        assert!(tool["inputSchema"]["properties"].is_object(), "{tool}");
    }
    assert_eq!(
        tools_default(&mut server, "upload_file", "size_bytes"),
        json!(5_242_880)
    );

    let (_, bad) = server.call("tools/list", json!({"cursor": "bogus"}));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
}

fn tools_default(server: &mut Server, tool: &str, arg: &str) -> Value {
    let (_, page) = server.call("tools/list", json!({}));
    page["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == tool)
        .map(|t| t["inputSchema"]["properties"][arg]["default"].clone())
        .unwrap_or(Value::Null)
}

/// Small arguments so every tool finishes in well under a second.
fn quick_calls() -> Vec<(&'static str, Value)> {
    vec![
        (
            "upload_file",
            json!({"size_bytes": 1000, "chunk_bytes": 300, "delay_ms": 1}),
        ),
        (
            "publish_package",
            json!({"size_bytes": 2048, "chunk_bytes": 512, "delay_ms": 1, "name": "pkg", "version": "0.1.0"}),
        ),
        ("pipeline_wait", json!({"polls": 3, "interval_ms": 1})),
        ("job_wait", json!({"polls": 3, "interval_ms": 1})),
        ("interactive_wizard", json!({"questions": 3, "delay_ms": 1})),
        (
            "context_builder",
            json!({"duration_ms": 100, "heartbeat_ms": 20}),
        ),
        ("build_report", json!({"tasks": 3, "delay_ms": 1})),
        ("echo", json!({"text": "hi"})),
        ("sleep", json!({"ms": 60})),
        ("flood", json!({"count": 50})),
        ("batch_job", json!({"steps": 3, "step_ms": 1})),
    ]
}

#[test]
fn every_tool_reports_progress_only_with_a_token() {
    let mut server = Server::ready(json!({}));
    for (n, (tool, args)) in quick_calls().into_iter().enumerate() {
        let token = json!(format!("tok-{n}"));
        let (before, response) = server.call_tool(tool, args.clone(), Some(token.clone()));
        assert_tool_ok(&response);
        let progress = progress_for(&before, &token);
        let values = progress_values(&progress);
        if tool == "echo" {
            assert!(values.is_empty(), "echo sent progress: {values:?}");
        } else {
            assert!(!values.is_empty(), "{tool} sent no progress");
        }
        assert_strictly_increasing(&values, tool);
        // Nothing for this token once the response is out.
        let after = server.ping();
        assert!(
            progress_for(&after, &token).is_empty(),
            "{tool}: progress after the response"
        );

        let (before, response) = server.call_tool(tool, args, None);
        assert_tool_ok(&response);
        assert!(
            !before
                .iter()
                .any(|m| method(m) == Some("notifications/progress")),
            "{tool} sent progress without a token: {before:?}"
        );
    }
}

#[test]
fn tool_specific_progress_shapes() {
    let mut server = Server::ready(json!({}));

    let token = json!("upload");
    let (before, response) = server.call_tool(
        "upload_file",
        json!({"size_bytes": 1000, "chunk_bytes": 300, "delay_ms": 30}),
        Some(token.clone()),
    );
    let progress = progress_for(&before, &token);
    assert_eq!(progress_values(&progress), [300, 600, 900, 1000]);
    assert!(progress.iter().all(|p| p["total"] == 1000));
    assert_eq!(
        progress[0]["message"],
        "Read 300 / 1000 bytes, preparing the upload"
    );
    assert!(
        result_text(&response).starts_with("Uploaded release.tar.gz (1000 bytes) as /uploads/"),
        "{response}"
    );

    let token = json!("pipeline");
    let (before, _) = server.call_tool(
        "pipeline_wait",
        json!({"polls": 3, "interval_ms": 30}),
        Some(token.clone()),
    );
    let progress = progress_for(&before, &token);
    assert_eq!(progress_values(&progress), [1, 2, 3]);
    assert!(progress.iter().all(|p| p.get("total").is_none()));
    assert_eq!(progress[1]["message"], "Pipeline #4711 is running (poll 2)");
    assert_eq!(progress[2]["message"], "Pipeline #4711 finished: success");

    let (_, response) = server.call_tool(
        "job_wait",
        json!({"polls": 1, "interval_ms": 0, "outcome": "failed"}),
        None,
    );
    assert_eq!(response["result"]["isError"], true, "{response}");

    let token = json!("context");
    let (before, _) = server.call_tool(
        "context_builder",
        json!({"duration_ms": 200, "heartbeat_ms": 0}),
        Some(token.clone()),
    );
    let progress = progress_for(&before, &token);
    assert!(progress.iter().all(|p| p.get("total").is_none()));
    let last = progress.last().unwrap();
    assert_eq!(last["message"], "[processing] selection_reply_rendering");
    assert_eq!(last["progress"], 9);

    let token = json!("sleep");
    let (before, _) = server.call_tool("sleep", json!({"ms": 80}), Some(token.clone()));
    let progress = progress_for(&before, &token);
    let last = progress.last().unwrap();
    assert_eq!(last["progress"], 80);
    assert_eq!(last["total"], 80);
    assert_eq!(last["message"], "Sleeping: 80 of 80 ms");
}

#[test]
fn tokens_are_echoed_exactly() {
    let mut server = Server::ready(json!({}));
    for token in [json!("abc"), json!(7)] {
        let (before, response) = server.call_tool(
            "pipeline_wait",
            json!({"polls": 2, "interval_ms": 30}),
            Some(token.clone()),
        );
        assert_tool_ok(&response);
        let progress: Vec<&Value> = before
            .iter()
            .filter(|m| method(m) == Some("notifications/progress"))
            .collect();
        assert_eq!(progress.len(), 2, "{before:?}");
        for p in progress {
            assert_eq!(p["params"]["progressToken"], token, "{p}");
        }
    }
}

#[test]
fn rate_limit_keeps_the_latest_update() {
    let mut server = Server::ready(json!({}));
    let token = json!("fast");
    let (before, response) = server.call_tool(
        "upload_file",
        json!({"size_bytes": 2000, "chunk_bytes": 1, "delay_ms": 0}),
        Some(token.clone()),
    );
    assert_tool_ok(&response);
    let values = progress_values(&progress_for(&before, &token));
    assert!(
        values.len() < 2000,
        "no coalescing: {} updates",
        values.len()
    );
    assert_strictly_increasing(&values, "upload_file");
    assert_eq!(values.last(), Some(&2000), "final update must be sent");
}

#[test]
fn interactive_wizard_counts_steps_from_zero() {
    let mut server = Server::ready(json!({}));
    let token = json!("wizard");
    let (before, response) = server.call_tool(
        "interactive_wizard",
        json!({"questions": 3, "delay_ms": 30}),
        Some(token.clone()),
    );
    assert_tool_ok(&response);
    let progress = progress_for(&before, &token);
    assert_eq!(progress_values(&progress), [0, 1, 2, 3]);
    assert!(progress.iter().all(|p| p["total"] == 3));
    assert!(
        progress[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("Step 1 of 3: "),
        "{}",
        progress[0]
    );
    assert_eq!(progress[3]["message"], "Creating the project");
    // No elicitation capability: nothing asked, defaults used.
    assert!(
        !before
            .iter()
            .any(|m| method(m) == Some("elicitation/create"))
    );
    assert!(
        result_text(&response).contains("mcpscope-demo"),
        "{response}"
    );
}

#[test]
fn interactive_wizard_asks_through_elicitation() {
    let mut server = Server::ready(json!({"elicitation": {}}));
    let id = server.request(
        "tools/call",
        json!({"name": "interactive_wizard", "arguments": {"questions": 2, "delay_ms": 0}}),
    );
    let mut asked = 0;
    let response = loop {
        let message = server.next_message();
        if message.get("id") == Some(&id) && message.get("method").is_none() {
            break message;
        }
        if method(&message) == Some("elicitation/create") {
            let request_id = message["id"].clone();
            assert!(request_id.as_str().is_some_and(|s| s.starts_with("srv-")));
            let schema = &message["params"]["requestedSchema"];
            asked += 1;
            let result = if asked == 1 {
                // The first form: a required, length-limited name and a description.
                assert_eq!(schema["properties"]["project_name"]["type"], "string");
                assert_eq!(schema["properties"]["project_name"]["maxLength"], 64);
                assert_eq!(schema["required"], json!(["project_name"]));
                json!({"action": "accept", "content": {"project_name": "my-project", "summary": ""}})
            } else {
                // The second: a titled single choice and a boolean, both with defaults.
                assert_eq!(
                    schema["properties"]["visibility"]["oneOf"][2]["const"],
                    "public"
                );
                assert_eq!(schema["properties"]["with_readme"]["default"], true);
                json!({"action": "decline"})
            };
            server.send(&json!({"jsonrpc": "2.0", "id": request_id, "result": result}));
        }
    };
    assert_eq!(asked, 2);
    assert_tool_ok(&response);
    let text = result_text(&response);
    assert!(text.contains("my-project"), "{text}");
    // A blank answer and a declined form fall back to the defaults.
    assert!(
        text.contains("summary: A project created by the mcpscope demo wizard"),
        "{text}"
    );
    assert!(text.contains("visibility: private"), "{text}");
    assert!(text.contains("with_readme: true"), "{text}");
}

#[test]
fn set_level_filters_log_messages() {
    let mut server = Server::ready(json!({}));
    let logs = |messages: &[Value]| -> Vec<String> {
        messages
            .iter()
            .filter(|m| method(m) == Some("notifications/message"))
            .inspect(|m| assert_eq!(m["params"]["logger"], "tracker"))
            .map(|m| m["params"]["level"].as_str().unwrap().to_owned())
            .collect()
    };

    // Before any setLevel, everything is sent.
    let (before, _) = server.call_tool("build_report", json!({"tasks": 4, "delay_ms": 0}), None);
    let levels = logs(&before);
    for level in ["debug", "info", "notice", "warning", "error"] {
        assert!(
            levels.iter().any(|l| l == level),
            "no {level} in {levels:?}"
        );
    }

    let (_, response) = server.call("logging/setLevel", json!({"level": "warning"}));
    assert_eq!(response["result"], json!({}));
    let (before, response) =
        server.call_tool("build_report", json!({"tasks": 4, "delay_ms": 0}), None);
    assert_tool_ok(&response);
    let levels = logs(&before);
    assert!(
        levels.iter().all(|l| l == "warning" || l == "error"),
        "{levels:?}"
    );
    assert!(levels.iter().any(|l| l == "warning"), "{levels:?}");
    assert!(levels.iter().any(|l| l == "error"), "{levels:?}");

    let (_, response) = server.call("logging/setLevel", json!({"level": "loud"}));
    assert_eq!(response["error"]["code"], -32602, "{response}");
}

#[test]
fn cancellation_stops_progress_and_suppresses_the_response() {
    let mut server = Server::ready(json!({}));
    let token = json!("doomed");
    let id = server.request(
        "tools/call",
        json!({"name": "sleep", "arguments": {"ms": 60000}, "_meta": {"progressToken": token}}),
    );
    // Wait until it is demonstrably running.
    loop {
        let message = server.next_message();
        if method(&message) == Some("notifications/progress") {
            assert_eq!(message["params"]["progressToken"], token);
            break;
        }
    }
    server.send(&json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": "test"},
    }));
    // Progress sent before the server saw the cancellation may still arrive
    // here; nothing may come after.
    let mut seen = server.ping();
    // Several of the cancelled call's 250 ms progress ticks fit in this call.
    let (mut later, response) = server.call_tool("sleep", json!({"ms": 700}), None);
    assert_tool_ok(&response);
    later.extend(server.ping());
    assert!(
        progress_for(&later, &token).is_empty(),
        "progress after cancellation"
    );
    seen.extend(later);
    assert!(
        !seen
            .iter()
            .any(|m| m.get("id") == Some(&id) && m.get("method").is_none()),
        "cancelled call was answered"
    );
}

#[test]
fn calls_run_concurrently() {
    let mut server = Server::ready(json!({}));
    let slow = server.request(
        "tools/call",
        json!({"name": "sleep", "arguments": {"ms": 60000}}),
    );
    let (before, response) = server.call_tool("echo", json!({"text": "overtaking"}), None);
    assert_eq!(result_text(&response), r#"{"text":"overtaking"}"#);
    assert!(!before.iter().any(|m| m.get("id") == Some(&slow)));
    server.send(&json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": slow},
    }));
    server.ping();
}

#[test]
fn protocol_errors_and_bad_arguments() {
    let mut server = Server::ready(json!({}));

    server.send_raw("this is not json");
    let message = server.next_message();
    assert_eq!(message["error"]["code"], -32700, "{message}");
    assert_eq!(message["id"], Value::Null);
    // Still serving.
    server.ping();

    let (_, response) = server.call("no/such/method", json!({}));
    assert_eq!(response["error"]["code"], -32601, "{response}");

    let (_, response) = server.call_tool("no_such_tool", json!({}), None);
    assert_eq!(response["error"]["code"], -32602, "{response}");
    assert!(
        response["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no_such_tool")
    );

    let (_, response) = server.call_tool("sleep", json!({"ms": "soon"}), None);
    assert_eq!(response["result"]["isError"], true, "{response}");
    assert!(result_text(&response).contains("ms"), "{response}");

    let (_, response) = server.call_tool("pipeline_wait", json!({"outcome": "maybe"}), None);
    assert_eq!(response["result"]["isError"], true, "{response}");
}

#[test]
fn flood_delivers_every_notification_in_order() {
    const COUNT: u64 = 100_000;
    let mut server = Server::ready(json!({}));
    let id = server.request(
        "tools/call",
        json!({"name": "flood", "arguments": {"count": COUNT}, "_meta": {"progressToken": "flood"}}),
    );
    let mut expected = 1;
    let response = loop {
        let line = server.next_line();
        if line.contains(r#""method":"notifications/progress""#) {
            // Compared as text: the format is fixed, and parsing 100k lines
            // would dominate the test's run time.
            let want = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"flood","progress":{expected},"total":{COUNT},"message":"item {expected}"}}}}"#
            );
            assert_eq!(line, want);
            expected += 1;
            continue;
        }
        let message: Value = serde_json::from_str(&line).unwrap();
        if message.get("id") == Some(&id) {
            break message;
        }
    };
    assert_eq!(expected - 1, COUNT);
    assert_eq!(result_text(&response), "sent 100000 progress notifications");
}

#[test]
fn exits_cleanly_when_stdin_closes() {
    let mut server = Server::ready(json!({}));
    // A call in flight must not keep the server alive.
    server.request(
        "tools/call",
        json!({"name": "sleep", "arguments": {"ms": 60000}}),
    );
    server.ping();
    drop(server.stdin.take());
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status}");
}

#[test]
fn cancelling_the_wizard_withdraws_its_question() {
    let mut server = Server::ready(json!({"elicitation": {}}));
    let id = server.request(
        "tools/call",
        json!({"name": "interactive_wizard", "arguments": {"questions": 3, "delay_ms": 0}}),
    );
    let question = loop {
        let message = server.next_message();
        if method(&message) == Some("elicitation/create") {
            break message["id"].clone();
        }
    };
    server.send(&json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": id},
    }));
    loop {
        let message = server.next_message();
        assert_ne!(message.get("id"), Some(&id), "cancelled call was answered");
        if method(&message) == Some("notifications/cancelled") {
            assert_eq!(message["params"]["requestId"], question);
            break;
        }
    }
    // A late answer to the withdrawn question is ignored.
    server.send(&json!({"jsonrpc": "2.0", "id": question, "result": {"action": "decline"}}));
    server.ping();
}

#[test]
fn stateless_requests_lose_the_removed_methods_and_need_the_whole_envelope() {
    let mut server = Server::start();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    for method in ["initialize", "ping", "logging/setLevel"] {
        let (_, response) = server.call(method, json!({"_meta": meta}));
        assert_eq!(response["error"]["code"], -32601, "{method}: {response}");
    }
    let (_, response) = server.call(
        "tools/list",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
    );
    assert_eq!(response["error"]["code"], -32602, "{response}");
    // The handshake era still has them.
    let (_, response) = server.call("ping", json!({}));
    assert_eq!(response["result"], json!({}), "{response}");
}

/// `fault_after_response` writes its late progress right behind the
/// response: a client that hangs up as soon as it has the result still gets
/// both. Repeated, since the server reading the client's EOF races the tool.
#[test]
fn progress_after_the_response_reaches_a_client_that_hangs_up_at_once() {
    for round in 0..40 {
        let mut server = Server::ready(json!({}));
        let token = json!(format!("late-{round}"));
        server.call_tool(
            "fault_after_response",
            json!({"delay_ms": 0}),
            Some(token.clone()),
        );
        drop(server.stdin.take());
        let mut after = Vec::new();
        while let Ok(line) = server.lines.recv_timeout(TIMEOUT) {
            after.push(serde_json::from_str::<Value>(&line).unwrap());
        }
        let late = progress_values(&progress_for(&after, &token));
        assert_eq!(
            late,
            [2, 3],
            "round {round}: after the response came {after:?}"
        );
    }
}
