//! W3C Trace Context (SEP-414) against a real SDK: every request mcpscope
//! sends starts a trace, and the official Python SDK continues it — the
//! span its tool runs in has mcpscope's trace id.

use crate::support::*;
use mcpscope::protocol::trace_context::TraceParent;

fn traceparents(trace: &[serde_json::Value]) -> Vec<(String, TraceParent)> {
    trace
        .iter()
        .filter(|l| {
            l["dir"] == "out" && l["json"]["method"].is_string() && l["json"]["id"].is_number()
        })
        .map(|l| {
            let method = l["json"]["method"].as_str().unwrap().to_string();
            let tp = l["json"]["params"]["_meta"]["traceparent"]
                .as_str()
                .unwrap_or_else(|| panic!("{method} carries no traceparent: {l}"));
            (method, TraceParent::parse(tp).expect("a valid traceparent"))
        })
        .collect()
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn python_sdk_continues_the_trace_of_each_request() {
    let o = headless(["call"])
        .args(["--tool", "current_trace"])
        .server(python_server())
        .record()
        .expect(0);
    let sent = traceparents(&o.trace());
    let methods: Vec<&str> = sent.iter().map(|(m, _)| m.as_str()).collect();
    // The default finds the SDK at 2026-07-28: its discovery is the first request.
    assert_eq!(methods, ["server/discover", "tools/call"], "{}", o.stderr);
    // One trace per request.
    assert_ne!(sent[0].1.trace_id, sent[1].1.trace_id);
    let call = &sent[1].1;
    assert_eq!(
        o.json()["structuredContent"]["result"],
        call.trace_id.as_str()
    );
    assert!(o.lines("[finding]").is_empty(), "{}", o.stderr);
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn no_trace_context_sends_none() {
    let o = headless(["call"])
        .args(["--tool", "current_trace", "--no-trace-context"])
        .server(python_server())
        .record()
        .expect(0);
    assert_eq!(o.json()["structuredContent"]["result"], "none");
    assert!(
        o.trace()
            .iter()
            .all(|l| l["json"]["params"]["_meta"]["traceparent"].is_null()),
        "no frame carries one"
    );
}
