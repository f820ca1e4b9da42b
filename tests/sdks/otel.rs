//! The OTLP receiver against a real exporter: the official Python SDK's
//! SERVER span per request and Python `logging` through OpenTelemetry's log
//! handler (opentelemetry-sdk and its OTLP/HTTP exporter, configured by the
//! peer when `MCPSCOPE_PEER_OTEL=1`), received, shown under the call whose
//! `traceparent` they continue, recorded and replayed.

use crate::support::*;
use mcpscope::protocol::trace_context::TraceParent;
use serde_json::Value;

/// The outgoing `tools/call`: its seq and the traceparent it carried.
fn tools_call(trace: &[Value]) -> (u64, TraceParent) {
    let line = trace
        .iter()
        .find(|l| l["dir"] == "out" && l["json"]["method"] == "tools/call")
        .expect("a tools/call was sent");
    let tp = line["json"]["params"]["_meta"]["traceparent"]
        .as_str()
        .expect("it carries a traceparent");
    (
        line["seq"].as_u64().unwrap(),
        TraceParent::parse(tp).unwrap(),
    )
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn python_sdk_spans_and_logs_arrive_under_their_call() {
    let o = headless(["call"])
        .args(["--tool", "slow_task", "-a", "steps=2", "-a", "delay_ms=10"])
        .args(["-e", "MCPSCOPE_PEER_OTEL=1"])
        .server(python_server())
        .record()
        .expect(0);
    let trace = o.trace();
    let (seq, tp) = tools_call(&trace);

    // Received, recorded: the SDK's SERVER span, parented on mcpscope's span.
    let span = trace
        .iter()
        .map(|l| &l["json"])
        .find(|j| j["event"] == "otel-span" && j["name"] == "tools/call slow_task")
        .unwrap_or_else(|| panic!("no tools/call span recorded:\n{}", o.stderr));
    assert_eq!(span["trace_id"], tp.trace_id.as_str());
    assert_eq!(span["parent_span_id"], tp.parent_id.as_str());
    assert_eq!(span["kind"], "server");
    assert_eq!(span["attributes"]["gen_ai.tool.name"], "slow_task");
    assert_eq!(
        span["service"], "python",
        "OTEL_SERVICE_NAME is the server's name"
    );
    assert!(span["end_ns"].as_u64() > span["start_ns"].as_u64());

    // Printed under its call.
    let lines = o.lines("[span] tools/call slow_task ");
    assert_eq!(lines.len(), 1, "{}", o.stderr);
    assert!(lines[0].contains(&format!(" call=#{seq} ")), "{}", lines[0]);
    assert!(
        lines[0].contains(&format!(" trace={} ", tp.trace_id)),
        "{}",
        lines[0]
    );
    assert!(
        lines[0].contains(" mcp.method.name=tools/call"),
        "{}",
        lines[0]
    );

    // Python logging through the OTel handler: an otel-log, not a stderr line.
    let logs = o.lines("[otel-log] info ");
    assert!(
        logs.iter()
            .any(|l| l.contains(&format!("call=#{seq} "))
                && l.contains("slow_task done after 2 steps")),
        "{}",
        o.stderr
    );
    assert!(
        o.lines("[stderr]")
            .iter()
            .all(|l| !l.contains("slow_task done")),
        "{}",
        o.stderr
    );
    assert!(o.lines("[otel] no span").is_empty(), "{}", o.stderr);

    // Replayed from the recording: every received span is in the timeline.
    let recorded = trace
        .iter()
        .filter(|l| l["json"]["event"] == "otel-span")
        .count();
    let replay = run(&["replay", "--print", &o.trace_path().display().to_string()]);
    let replayed = replay
        .stdout
        .lines()
        .filter(|l| l.contains("meta:otel-span"))
        .count();
    assert!(recorded >= 1);
    assert_eq!(replayed, recorded, "{}", replay.stdout);
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn check_prints_the_spans_and_no_otel_receiver_starts_none() {
    let o = headless(["check"])
        .args(["--tool", "echo", "-a", "text=hi"])
        .args(["-e", "MCPSCOPE_PEER_OTEL=1"])
        .server(python_server())
        .record()
        .run();
    let (seq, _) = tools_call(&o.trace());
    let lines = o.lines("[span] tools/call echo ");
    assert_eq!(lines.len(), 1, "{}", o.stderr);
    assert!(lines[0].contains(&format!(" call=#{seq} ")), "{}", lines[0]);
    // The SDK parents its span on mcpscope's traceparent: nothing to report.
    assert!(
        !o.stdout.contains("server-span-trace-not-continued"),
        "{}",
        o.stdout
    );

    let o = headless(["call"])
        .args(["--tool", "echo", "-a", "text=hi", "--no-otel-receiver"])
        .server(python_server())
        .record()
        .expect(0);
    assert!(o.lines("[span]").is_empty(), "{}", o.stderr);
    assert!(
        o.trace().iter().all(|l| l["ch"] != "otel"),
        "nothing received"
    );
}
