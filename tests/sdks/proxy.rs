//! `mcpscope proxy` between real hosts — the official TypeScript and Python
//! SDK clients (`tests/peers/sdk_host.*`) — and real servers
//! (server-everything, the Python SDK server, the demo server): each host
//! observes the same through the proxy as directly, and the recording has
//! both directions in wire order. Ignored by a plain `cargo test` (they need
//! the peers of `tests/peers/install.sh`).

use crate::support;
use crate::support::proxy;

use crate::support::proxy::{BIN, dir_frames, recorded_when_ended};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

pub(crate) fn ts_host() -> Vec<String> {
    let node = support::peer("node/node_modules/node/bin/node");
    support::peer("node/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/sdk_host.mjs");
    vec![node.display().to_string(), script.display().to_string()]
}

pub(crate) fn py_host() -> Vec<String> {
    let py = support::peer("venv/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/sdk_host.py");
    vec![py.display().to_string(), script.display().to_string()]
}

fn everything() -> Vec<String> {
    vec![support::everything().display().to_string(), "stdio".into()]
}

/// Run `host TOOL ARGS server...`; its one JSON line.
fn observe(host: &[String], tool: &str, args: &str, server: &[String], rt: &Path) -> Value {
    let mut cmd = Command::new(&host[0]);
    cmd.args(&host[1..])
        .arg(tool)
        .arg(args)
        .args(server)
        .env("MCPSCOPE_RUNTIME_DIR", rt)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let out = support::finish(cmd.spawn().unwrap());
    assert_eq!(out.code, 0, "host failed: {}", out.stderr);
    serde_json::from_str(out.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

fn proxied(server: &[String], trace: &Path) -> Vec<String> {
    proxy::proxied(server, trace, &[])
}

/// The host sees the same both ways; the trace has the call with the
/// host's token going out, its progress and response coming in, in order.
fn same_through_the_proxy(
    host: &[String],
    tool: &str,
    args: &str,
    server: &[String],
    steps: usize,
) {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let direct = observe(host, tool, args, server, d.path());
    let through = observe(host, tool, args, &proxied(server, &trace), d.path());
    // What the host made of the session is the same; only its progress
    // may miss the last notification either way: the TypeScript SDK drops
    // progress that the response overtakes in its queue (its issue #2580),
    // which is timing, not bytes.
    let without_progress = |v: &Value| {
        let mut v = v.clone();
        v["progress"] = Value::Null;
        v
    };
    assert_eq!(without_progress(&direct), without_progress(&through));
    for seen in [&direct, &through] {
        let got: Vec<f64> = seen["progress"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["progress"].as_f64().unwrap())
            .collect();
        let n = got.len();
        assert!(n == steps || n + 1 == steps, "{seen}");
        let want: Vec<f64> = (1..=n).map(|i| i as f64).collect();
        assert_eq!(got, want);
    }
    let recs = recorded_when_ended(&trace);
    let json = |b: &[u8]| serde_json::from_slice::<Value>(b).ok();
    let outs: Vec<(u64, Value)> = recs
        .iter()
        .filter(|r| r.dir == "out")
        .filter_map(|r| json(&r.bytes).map(|v| (r.seq, v)))
        .collect();
    let (call_seq, call) = outs
        .iter()
        .find(|(_, v)| v["method"] == "tools/call")
        .expect("the host's tools/call is recorded");
    let token = &call["params"]["_meta"]["progressToken"];
    assert!(!token.is_null(), "{call}");
    let ins: Vec<(u64, Value)> = recs
        .iter()
        .filter(|r| r.dir == "in")
        .filter_map(|r| json(&r.bytes).map(|v| (r.seq, v)))
        .collect();
    let progress: Vec<u64> = ins
        .iter()
        .filter(|(_, v)| {
            v["method"] == "notifications/progress" && &v["params"]["progressToken"] == token
        })
        .map(|(s, _)| *s)
        .collect();
    assert_eq!(progress.len(), steps);
    let response = ins
        .iter()
        .find(|(_, v)| v["id"] == call["id"] && v.get("method").is_none())
        .expect("the response is recorded")
        .0;
    assert!(progress.iter().all(|s| call_seq < s && *s < response));
    // The host's initialize went first, and its end reached the server.
    assert_eq!(outs[0].1["method"], "initialize");
    assert!(
        recs.last()
            .is_some_and(|r| String::from_utf8_lossy(&r.bytes).contains("\"event\":\"exit\""))
    );
}

#[test]
#[ignore = "needs peers (tests/peers/install.sh): TypeScript SDK, server-everything"]
fn ts_sdk_host_and_server_everything() {
    same_through_the_proxy(
        &ts_host(),
        "trigger-long-running-operation",
        r#"{"duration":1,"steps":4}"#,
        &everything(),
        4,
    );
}

#[test]
#[ignore = "needs peers (tests/peers/install.sh): TypeScript SDK, Python SDK server"]
fn ts_sdk_host_and_python_sdk_server() {
    same_through_the_proxy(
        &ts_host(),
        "slow_task",
        r#"{"steps":3,"delay_ms":20}"#,
        &support::python_server(),
        3,
    );
}

#[test]
#[ignore = "needs peers (tests/peers/install.sh): Python SDK"]
fn python_sdk_host_and_python_sdk_server() {
    same_through_the_proxy(
        &py_host(),
        "slow_task",
        r#"{"steps":3,"delay_ms":20}"#,
        &support::python_server(),
        3,
    );
}

#[test]
#[ignore = "needs peers (tests/peers/install.sh): Python SDK, server-everything"]
fn python_sdk_host_and_server_everything() {
    same_through_the_proxy(
        &py_host(),
        "trigger-long-running-operation",
        r#"{"duration":1,"steps":4}"#,
        &everything(),
        4,
    );
}

/// A 50,000-notification flood from the demo server to the TypeScript SDK
/// host: the recording has every notification, in order, before the
/// response, whatever the host makes of them.
#[test]
#[ignore = "needs peers (tests/peers/install.sh): TypeScript SDK"]
fn ts_sdk_host_under_a_flood_and_the_recording_keeps_every_frame_in_order() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let demo = vec![BIN.to_string(), "demo-server".into()];
    let through = observe(
        &ts_host(),
        "fault_flood",
        r#"{"count":50000}"#,
        &proxied(&demo, &trace),
        d.path(),
    );
    assert_eq!(through["result"]["isError"], false, "{through}");
    let ins = dir_frames(&recorded_when_ended(&trace), "in");
    let vals: Vec<Value> = ins
        .iter()
        .filter_map(|b| serde_json::from_slice::<Value>(b).ok())
        .collect();
    let response = vals
        .iter()
        .position(|v| {
            v["result"]["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("fault_flood"))
        })
        .expect("the flood's response is recorded");
    let progress: Vec<f64> = vals[..response]
        .iter()
        .filter(|v| v["method"] == "notifications/progress")
        .map(|v| v["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress.len(), 50_000);
    assert!(progress.windows(2).all(|w| w[0] < w[1]));
}

/// The proxy adds no trace context (the bytes pass unchanged): the host's
/// own `traceparent` reaches the server, which continues the host's trace;
/// one that breaks the W3C format is the host's finding.
#[test]
#[ignore = "needs peers (tests/peers/install.sh): TypeScript SDK, Python SDK"]
fn the_hosts_trace_context_passes_unchanged_and_is_judged() {
    let d = tempfile::tempdir().unwrap();
    let run = |meta: &str, trace: &Path| {
        let mut cmd = Command::new(&ts_host()[0]);
        cmd.args(&ts_host()[1..])
            .args(["current_trace", "{}"])
            .args(proxy::proxied(
                &support::python_server(),
                trace,
                &["--no-trace-context"],
            ))
            .env("MCPSCOPE_RUNTIME_DIR", d.path())
            .env("SDK_HOST_META", meta)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let out = support::finish(cmd.spawn().unwrap());
        assert_eq!(out.code, 0, "host failed: {}", out.stderr);
        let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
        let call = recorded_when_ended(trace)
            .into_iter()
            .filter(|r| r.dir == "out")
            .filter_map(|r| serde_json::from_slice::<Value>(&r.bytes).ok())
            .find(|v| v["method"] == "tools/call")
            .expect("the call is recorded");
        let check = support::run(&["check", "--trace", &trace.display().to_string()]);
        (
            v["result"]["structuredContent"]["result"].clone(),
            call,
            check,
        )
    };
    let good = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    let (seen, call, check) = run(
        &format!(r#"{{"traceparent":"{good}"}}"#),
        &d.path().join("good.jsonl"),
    );
    assert_eq!(
        seen, "0af7651916cd43dd8448eb211c80319c",
        "the server continued the host's trace"
    );
    assert_eq!(
        call["params"]["_meta"]["traceparent"], good,
        "passed as the host sent it"
    );
    assert!(
        !check.stdout.contains("trace-context-invalid"),
        "{}",
        check.stdout
    );

    let bad = "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01";
    let (_, call, check) = run(
        &format!(r#"{{"traceparent":"{bad}"}}"#),
        &d.path().join("bad.jsonl"),
    );
    assert_eq!(call["params"]["_meta"]["traceparent"], bad);
    assert!(
        check.stdout.contains("client-trace-context-invalid"),
        "{}",
        check.stdout
    );
    assert!(
        !check.stdout.contains("\ntrace-context-invalid"),
        "{}",
        check.stdout
    );
}

/// The proxy records the spawned server's OpenTelemetry beside the session:
/// the Python SDK server, exporting to the receiver the proxy points it at,
/// has its `tools/call slow_task` span in the proxy's trace; with
/// `--no-otel-receiver` nothing is received (and the host's answer is the
/// same either way).
#[test]
#[ignore = "needs peers (tests/peers/install.sh): Python SDK with OpenTelemetry"]
fn the_proxy_records_the_spawned_servers_spans() {
    let mut server = vec!["env".to_string(), "MCPSCOPE_PEER_OTEL=1".into()];
    server.extend(support::python_server());
    let spans = |extra: &[&str]| {
        let d = tempfile::tempdir().unwrap();
        let trace = d.path().join("t.jsonl");
        let through = observe(
            &py_host(),
            "slow_task",
            r#"{"steps":2,"delay_ms":10}"#,
            &proxy::proxied(&server, &trace, extra),
            d.path(),
        );
        assert!(through["result"].is_object(), "{through}");
        recorded_when_ended(&trace);
        let text = std::fs::read_to_string(&trace).unwrap();
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|l| l["json"]["event"] == "otel-span")
            .map(|l| l["json"]["name"].as_str().unwrap_or_default().to_string())
            .collect::<Vec<String>>()
    };
    let received = spans(&[]);
    assert!(
        received.iter().any(|n| n == "tools/call slow_task"),
        "{received:?}"
    );
    assert_eq!(spans(&["--no-otel-receiver"]), Vec::<String>::new());
}
