//! What a server exports to mcpscope's OTLP receiver, from a real server
//! (tests/servers/hostile_stdio.py) through the real binary: a flood of
//! spans is counted past the first lines; URL-valued attributes lose their
//! credentials; spans with invalid ids are refused and said; OTLP/gRPC
//! from a real exporter is received. And a flood of status reports for tasks no answer named is
//! counted the same way.

use crate::support::{Run, headless};
use serde_json::Value;
use std::path::Path;

/// `python3 tests/servers/hostile_stdio.py MODE [N]`.
fn hostile(mode: &str, n: Option<usize>) -> Vec<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/hostile_stdio.py");
    let mut v = vec![
        "python3".to_string(),
        script.display().to_string(),
        mode.into(),
    ];
    v.extend(n.map(|n| n.to_string()));
    v
}

/// `mcpscope call --tool t -- SERVER`, recorded, whatever its exit code.
fn call(server: &[String]) -> Run {
    headless(["call", "--protocol", "legacy", "--tool", "t"])
        .server(server)
        .record()
        .run()
}

/// The recorded received spans.
fn spans(o: &Run) -> Vec<Value> {
    o.trace()
        .into_iter()
        .filter(|l| l["dir"] == "meta" && l["json"]["event"] == "otel-span")
        .map(|l| l["json"].clone())
        .collect()
}

#[test]
fn a_flood_of_received_spans_is_counted_not_printed_line_by_line() {
    let n = 30_000;
    let o = call(&hostile("span-flood", Some(n)));
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines = o.lines("[span]");
    assert!(lines.len() < 220, "{} [span] lines", lines.len());
    let total = format!(
        "[span] {} received spans in all (the first 200 shown)",
        n + 1
    );
    assert!(
        o.stderr.contains(&total),
        "{:?}",
        &lines[lines.len().saturating_sub(5)..]
    );
    // The trace keeps each.
    assert_eq!(spans(&o).len(), n + 1);
}

#[test]
fn received_urls_lose_their_credentials_and_invalid_ids_are_refused() {
    let o = call(&hostile("span-flood", Some(0)));
    assert_eq!(o.code, 0, "{}", o.stderr);
    let recorded = std::fs::read_to_string(o.trace_path()).unwrap();
    for secret in ["pw-secret", "tok-secret"] {
        assert!(!o.stderr.contains(secret), "{}", o.stderr);
        assert!(!recorded.contains(secret), "the trace keeps {secret}");
    }
    let spans = spans(&o);
    let url = spans
        .iter()
        .find_map(|s| s["attributes"]["url.full"].as_str())
        .expect("the span with a url.full");
    assert!(
        url.starts_with("https://user:") && url.contains("page=2"),
        "{url}"
    );
    let line = o
        .lines("[span]")
        .into_iter()
        .find(|l| l.contains("url.full="))
        .unwrap_or_else(|| panic!("{}", o.stderr));
    assert!(line.contains("api.example"), "{line}");
    // The two spans with an invalid id (a 4-byte span id, an all-zero
    // trace id) are neither kept nor quoted; they are said, and the
    // exporter is told (partial success).
    assert_eq!(spans.len(), 1, "{spans:?}");
    assert!(!recorded.contains("0a0b0c0d"));
    assert!(
        o.stderr
            .contains("[otel] 2 spans dropped: an invalid trace or span id"),
        "{}",
        o.stderr
    );
    assert!(o.stdout.contains("rejectedSpans"), "{}", o.stdout);
}

#[test]
fn a_flood_of_reports_for_unknown_tasks_is_counted_not_printed_line_by_line() {
    let n = 20_000;
    let o = call(&hostile("task-storm", Some(n)));
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines = o.lines("[task]");
    assert!(lines.len() < 30, "{} [task] lines", lines.len());
    assert!(lines[0].starts_with("[task] ghost-0 working"), "{lines:?}");
    let total =
        format!("[task] {n} status reports for tasks no answer named in all (the first 16 shown)");
    assert!(o.stderr.contains(&total), "{lines:#?}");
}

#[test]
fn a_bare_http2_preface_is_answered_and_says_nothing() {
    // OTLP/gRPC is served now: a connection that only opens HTTP/2 gets the
    // receiver's SETTINGS and goes; nothing is wrong, nothing is said.
    let o = call(&hostile("grpc-preface", None));
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(!o.stderr.contains("[otel]"), "{}", o.stderr);
    assert!(
        !o.trace()
            .iter()
            .any(|l| l["json"]["event"] == "otel-foreign"),
        "{}",
        o.stderr
    );
}

/// A span exported over OTLP/gRPC by the OpenTelemetry Python SDK's own gRPC
/// exporter reaches the trace and the screen as one over OTLP/HTTP does.
#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn otlp_over_grpc_from_the_python_sdk_exporter_is_received() {
    let py = crate::support::peer("phoenix-venv/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/grpc_exporter.py");
    let o = headless(["call", "--protocol", "legacy", "--tool", "traced"])
        .args(["-e", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"])
        .server([py.display().to_string(), script.display().to_string()])
        .record()
        .run();
    assert_eq!(o.code, 0, "{}", o.stderr);
    let spans = spans(&o);
    let span = spans
        .iter()
        .find(|s| s["name"] == "traced-work")
        .unwrap_or_else(|| panic!("no span received over gRPC: {spans:?}\n{}", o.stderr));
    assert_eq!(span["attributes"]["work.kind"], "grpc", "{span}");
    assert!(o.stderr.contains("[span] traced-work"), "{}", o.stderr);
    assert!(!o.stderr.contains("not supported"), "{}", o.stderr);
}

/// A server on the official Go SDK (mcp-grafana, pinned in the Python
/// peers' venv) exporting over OTLP/gRPC, as it does when its exporter is
/// set to `grpc`: its tool call's span joins the call, its logs arrive.
#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn otlp_over_grpc_from_a_go_sdk_server_is_received() {
    let grafana = crate::support::peer("venv/bin/mcp-grafana");
    let o = headless(["call", "--protocol", "legacy", "--tool", "list_datasources"])
        .args([
            "-e",
            "OTEL_EXPORTER_OTLP_PROTOCOL=grpc",
            // No Grafana: the tool fails, and its span says so.
            "-e",
            "GRAFANA_URL=http://127.0.0.1:9",
            // Nothing leaves this machine.
            "-e",
            "GRAFANA_USAGE_STATS=disabled",
        ])
        .server([grafana.display().to_string()])
        .record()
        .run();
    assert_eq!(o.code, 1, "the tool's error result: {}", o.stderr);
    let spans = spans(&o);
    let call = spans
        .iter()
        .find(|s| s["name"] == "tools/call list_datasources")
        .unwrap_or_else(|| panic!("no tools/call span over gRPC: {spans:?}\n{}", o.stderr));
    assert_eq!(
        call["attributes"]["mcp.method.name"], "tools/call",
        "{call}"
    );
    assert!(
        o.stderr
            .lines()
            .any(|l| l.starts_with("[span] tools/call list_datasources") && l.contains("call=#")),
        "{}",
        o.stderr
    );
    assert!(
        o.trace().iter().any(|l| l["json"]["event"] == "otel-log"),
        "no logs arrived"
    );
}

/// A loopback port free right now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port()
}

#[test]
fn the_receiver_listens_where_asked() {
    let port = free_port();
    let at = format!("127.0.0.1:{port}");
    let o = headless(["call", "--protocol", "legacy", "--tool", "t"])
        .args(["--otel-receiver", &at])
        .server(hostile("span-flood", Some(0)))
        .record()
        .run();
    assert_eq!(o.code, 0, "{}", o.stderr);
    // The server was pointed there, and what it sent is recorded.
    assert_eq!(spans(&o).len(), 1, "{}", o.stderr);
    // An address in use is refused, not replaced by another: a server
    // pointed at it would lose what it sends.
    let taken = std::net::TcpListener::bind(&at).unwrap();
    let o = headless(["call", "--tool", "t", "--otel-receiver", &at])
        .server(hostile("span-flood", Some(0)))
        .run();
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains(&format!("--otel-receiver: cannot listen on {at}")),
        "{}",
        o.stderr
    );
    drop(taken);
    // Loopback only, and not beside --no-otel-receiver.
    for args in [
        vec!["--otel-receiver", "0.0.0.0:4318"],
        vec!["--otel-receiver", &at, "--no-otel-receiver"],
    ] {
        let o = headless(["call", "--tool", "t"])
            .args(args.clone())
            .server(hostile("span-flood", Some(0)))
            .run();
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
    }
    let o = headless(["call", "--tool", "t", "--otel-receiver", "0.0.0.0:4318"])
        .server(hostile("span-flood", Some(0)))
        .run();
    assert!(o.stderr.contains("loopback only"), "{}", o.stderr);
}

#[test]
fn commands_that_start_no_receiver_refuse_the_address() {
    // A server pointed at the address would send into nothing: refused,
    // never silently ignored.
    let at = format!("127.0.0.1:{}", free_port());
    for cmd in [vec!["tools"], vec!["load", "--tool", "t", "--calls", "1"]] {
        let o = headless(cmd.clone())
            .args(["--otel-receiver", &at])
            .server(hostile("span-flood", Some(0)))
            .run();
        assert_eq!(o.code, 2, "{cmd:?}: {}", o.stderr);
        assert!(
            o.stderr.contains("this command starts no OTLP receiver"),
            "{cmd:?}: {}",
            o.stderr
        );
    }
}
