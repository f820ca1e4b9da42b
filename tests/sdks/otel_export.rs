//! `--otlp` into a real backend: Arize Phoenix (PyPI `arize-phoenix`,
//! pinned in tests/peers/requirements-phoenix.txt), started offline on
//! loopback, its spans read back through its REST API. One Phoenix serves
//! the three paths, one after the other (it takes a while to start):
//! - `call` on the official Python SDK server exporting to mcpscope's
//!   receiver: mcpscope's client span, named and attributed by the MCP
//!   conventions, with the server's own SERVER span under it (forwarded);
//! - the proxy between the TypeScript SDK host and that server: the span
//!   of the host's call is parented on the host's `traceparent`;
//! - `export` of a recording: a finding is an event on its call's span.

use crate::support::otlp::Phoenix;
use crate::support::proxy::{proxied, recorded_when_ended};
use crate::support::{self, headless};
use serde_json::Value;
use std::process::{Command, Stdio};

/// The span named `name` among `spans` whose parent is `parent`.
fn span<'a>(spans: &'a [Value], name: &str, parent: Option<&str>) -> &'a Value {
    spans
        .iter()
        .find(|s| s["name"] == name && s["parent_id"].as_str() == parent)
        .unwrap_or_else(|| panic!("no span {name:?} under {parent:?} in {spans:#?}"))
}

fn traceparent_of(trace: &[Value], method: &str) -> (String, String) {
    let line = trace
        .iter()
        .find(|l| l["dir"] == "out" && l["json"]["method"] == method)
        .unwrap_or_else(|| panic!("no {method} sent"));
    let tp = line["json"]["params"]["_meta"]["traceparent"]
        .as_str()
        .unwrap();
    let parts: Vec<&str> = tp.split('-').collect();
    (parts[1].to_string(), parts[2].to_string())
}

#[test]
#[ignore = "needs test peers (Arize Phoenix, the Python SDK, the TypeScript SDK host): bash tests/peers/install.sh"]
fn phoenix_shows_mcpscopes_spans_with_the_servers_under_them() {
    let phoenix = Phoenix::start();

    // 1. call: mcpscope's span, the server's span under it.
    let o = headless([
        "call",
        "--tool",
        "slow_task",
        "-a",
        "steps=3",
        "-a",
        "delay_ms=10",
    ])
    .args(["--protocol", "legacy", "--otlp", &phoenix.url()])
    .args(["-e", "MCPSCOPE_PEER_OTEL=1"])
    .server(support::python_server())
    .record()
    .expect(0);
    assert!(o.stderr.contains("[otel] exported"), "{}", o.stderr);
    let (trace_id, span_id) = traceparent_of(&o.trace(), "tools/call");
    let spans = phoenix.trace(&trace_id, 2);
    let ours = span(&spans, "tools/call slow_task", None);
    assert_eq!(ours["context"]["span_id"], span_id.as_str());
    let a = &ours["attributes"];
    assert_eq!(a["mcp.method.name"], "tools/call");
    assert_eq!(a["gen_ai.tool.name"], "slow_task");
    assert_eq!(a["gen_ai.operation.name"], "execute_tool");
    assert_eq!(a["mcp.protocol.version"], "2025-11-25");
    assert_eq!(a["network.transport"], "pipe");
    assert!(a["jsonrpc.request.id"].is_string(), "{a}");
    let progress: Vec<&Value> = ours["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["name"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 3, "{ours:#}");
    // The Python SDK's own span continues mcpscope's: forwarded with it.
    let theirs = span(&spans, "tools/call slow_task", Some(&span_id));
    assert_eq!(theirs["attributes"]["mcp.method.name"], "tools/call");

    // 2. proxy: the host's traceparent is the parent.
    let d = tempfile::tempdir().unwrap();
    let rec = d.path().join("proxy.jsonl");
    let mut server = vec!["env".to_string(), "MCPSCOPE_PEER_OTEL=1".into()];
    server.extend(support::python_server());
    let host = super::proxy::ts_host();
    let (host_trace, host_span) = ("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331");
    let mut cmd = Command::new(&host[0]);
    cmd.args(&host[1..])
        .args(["current_trace", "{}"])
        .args(proxied(&server, &rec, &["--otlp", &phoenix.url()]))
        .env("MCPSCOPE_RUNTIME_DIR", d.path())
        .env(
            "SDK_HOST_META",
            format!(r#"{{"traceparent":"00-{host_trace}-{host_span}-01"}}"#),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = support::finish(cmd.spawn().unwrap());
    assert_eq!(out.code, 0, "host failed: {}", out.stderr);
    recorded_when_ended(&rec);
    let spans = phoenix.trace(host_trace, 2);
    let observed = spans
        .iter()
        .filter(|s| s["name"] == "tools/call current_trace" && s["parent_id"] == host_span)
        .count();
    // The proxy's span of the host's call, and the server's own: both
    // children of the host's span.
    assert_eq!(observed, 2, "{spans:#?}");

    // 3. export: a recording's finding on its call's span.
    let rec = crate::support::otlp::recording_with_a_finding();
    let o = headless([
        "export",
        &rec.trace_path().display().to_string(),
        "--otlp",
        &phoenix.url(),
    ])
    .expect(0);
    assert!(o.stderr.contains("[otel] exported"), "{}", o.stderr);
    let (trace_id, _) = traceparent_of(&rec.trace(), "tools/call");
    let spans = phoenix.trace(&trace_id, 1);
    let call = span(&spans, "tools/call fault_not_increasing", None);
    let finding = call["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "mcpscope.finding")
        .unwrap_or_else(|| panic!("{call:#}"));
    assert_eq!(
        finding["attributes"]["mcpscope.rule.id"],
        "progress-not-increasing"
    );
}
