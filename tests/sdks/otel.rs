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

/// The HTTP proxy spawns no server, so it cannot point one at its receiver:
/// it says where the receiver listens, and what an exporter sends there
/// (the Python OpenTelemetry SDK's OTLP/HTTP exporter) is in its trace.
#[test]
#[ignore = "needs test peers (the Python SDK venv with OpenTelemetry): bash tests/peers/install.sh"]
fn the_http_proxy_says_where_its_receiver_is_and_records_what_arrives() {
    use std::io::BufRead;
    let mut demo = std::process::Command::new(BIN);
    demo.args(["demo-server", "--http", "127.0.0.1:0"]);
    let (_demo, port) = http::start_reporting(demo);
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    // Where the user asked (`--otel-receiver`), so a server already
    // running can be pointed there once.
    let otel_port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let mut child = std::process::Command::new(BIN)
        .args(["proxy", "--listen", "127.0.0.1:0", "--url"])
        .arg(format!("http://127.0.0.1:{port}/mcp"))
        .arg("--otel-receiver")
        .arg(format!("127.0.0.1:{otel_port}"))
        .arg("--record")
        .arg(&trace)
        .env("MCPSCOPE_RUNTIME_DIR", d.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let proxy = http::Bg(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    let endpoint = loop {
        let line = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("the proxy said where its receiver is");
        if let Some(rest) = line.strip_prefix("[mcpscope] OTLP receiver at ") {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    assert_eq!(endpoint, format!("http://127.0.0.1:{otel_port}"));
    let script = [
        "import sys",
        "from opentelemetry.sdk.trace import TracerProvider",
        "from opentelemetry.sdk.trace.export import SimpleSpanProcessor",
        "from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter",
        "p = TracerProvider()",
        "p.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=sys.argv[1] + '/v1/traces')))",
        "with p.get_tracer('probe').start_as_current_span('tools/call probe'):",
        "    pass",
        "p.shutdown()",
    ]
    .join("\n");
    let out = std::process::Command::new(peer("venv/bin/python"))
        .args(["-c", &script, &endpoint])
        .env("OTEL_SERVICE_NAME", "probe")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut proxy = proxy;
    // SAFETY: kill(2) on our own child, which has not been waited for.
    unsafe { libc::kill(proxy.0.id() as i32, libc::SIGTERM) };
    proxy.0.wait().unwrap();
    let span = trace_lines(&trace)
        .into_iter()
        .find(|l| l["json"]["event"] == "otel-span")
        .expect("the span is recorded");
    assert_eq!(span["json"]["name"], "tools/call probe");
    assert_eq!(span["json"]["service"], "probe");
}

/// FastMCP makes a SERVER span per request, parented on the request's
/// `traceparent` (opentelemetry-api; exported here with the SDK's OTLP/HTTP
/// exporter, configured by the peer under `MCPSCOPE_PEER_OTEL=1`): it
/// arrives at the receiver and is printed under the call it continues.
#[test]
#[ignore = "needs test peers (FastMCP with OpenTelemetry): bash tests/peers/install.sh"]
fn fastmcp_spans_arrive_under_their_call() {
    let o = headless(["call"])
        .args(["--tool", "slow_task", "-a", "steps=2", "-a", "delay_ms=10"])
        .args(["--protocol", "legacy", "-e", "MCPSCOPE_PEER_OTEL=1"])
        .server(fastmcp_server())
        .record()
        .expect(0);
    let trace = o.trace();
    let (seq, tp) = tools_call(&trace);
    let span = trace
        .iter()
        .map(|l| &l["json"])
        .find(|j| j["event"] == "otel-span" && j["name"] == "tools/call slow_task")
        .unwrap_or_else(|| panic!("no tools/call span recorded:\n{}", o.stderr));
    assert_eq!(span["trace_id"], tp.trace_id.as_str());
    assert_eq!(span["parent_span_id"], tp.parent_id.as_str());
    assert_eq!(span["kind"], "server");
    assert_eq!(span["attributes"]["gen_ai.tool.name"], "slow_task");
    // A session id is a credential: the receiver keeps it out of the trace.
    assert_eq!(span["attributes"]["mcp.session.id"], "[redacted]");
    let lines = o.lines("[span] tools/call slow_task ");
    assert_eq!(lines.len(), 1, "{}", o.stderr);
    assert!(lines[0].contains(&format!(" call=#{seq} ")), "{}", lines[0]);
}

/// `--otlp` forwards the server's log records too (Python `logging`
/// through the OTel handler): to `/v1/logs`, under the server's service
/// name, in the trace of the call that logged them.
#[test]
#[ignore = "needs test peers (the Python SDK with OpenTelemetry): bash tests/peers/install.sh"]
fn the_servers_log_records_are_forwarded_to_the_backend() {
    use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
    use prost::Message;
    let sink = otlp::Sink::accepting();
    let o = headless(["call"])
        .args(["--tool", "slow_task", "-a", "steps=2", "-a", "delay_ms=10"])
        .args(["-e", "MCPSCOPE_PEER_OTEL=1", "--otlp", &sink.url()])
        .server(python_server())
        .record()
        .expect(0);
    assert!(o.stderr.contains(" log record(s) to "), "{}", o.stderr);
    let (_, tp) = tools_call(&o.trace());
    let mut found = false;
    for g in sink.requests().iter().filter(|g| g.path == "/v1/logs") {
        let req = ExportLogsServiceRequest::decode(&g.body[..]).unwrap();
        for rl in req.resource_logs {
            let service = rl
                .resource
                .as_ref()
                .and_then(|r| otlp::str_attr(&r.attributes, "service.name"))
                .unwrap_or_default()
                .to_string();
            for r in rl.scope_logs.into_iter().flat_map(|s| s.log_records) {
                let body = format!("{:?}", r.body);
                if body.contains("slow_task done after 2 steps") {
                    found = true;
                    assert_eq!(service, "python");
                    assert_eq!(otlp::hex(&r.trace_id), tp.trace_id);
                }
            }
        }
    }
    assert!(found, "no forwarded log record:\n{}", o.stderr);
}
