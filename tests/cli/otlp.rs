//! `--otlp URL`: sessions sent to an OpenTelemetry backend over OTLP/HTTP
//! protobuf, read back from what a loopback sink received (decoded with
//! `opentelemetry-proto`): the MCP semantic conventions on the client
//! spans, progress and findings as span events, the histograms; retries on
//! a backend that refuses for now; a backend that is down costs the session
//! nothing but a line; credentials are sent, never printed. The real
//! backend (Arize Phoenix) is in `sdks::otel_export`.

use crate::support::headless;
use crate::support::http::refusing_port;
use crate::support::otlp::{Sink, hex, str_attr};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;

fn named<'a>(spans: &'a [(String, Span)], name: &str) -> &'a Span {
    &spans
        .iter()
        .find(|(_, s)| s.name == name)
        .unwrap_or_else(|| {
            let names: Vec<&str> = spans.iter().map(|(_, s)| s.name.as_str()).collect();
            panic!("no span {name:?} among {names:?}")
        })
        .1
}

#[test]
fn a_call_is_exported_by_the_mcp_conventions_with_its_progress() {
    let sink = Sink::accepting();
    let o = headless([
        "call",
        "--demo",
        "--tool",
        "upload_file",
        "--protocol",
        "legacy",
    ])
    .args(["--otlp", &sink.url()])
    .record()
    .expect(0);
    assert!(
        o.stderr
            .contains("[otel] exported 3 span(s) to http://127.0.0.1:"),
        "{}",
        o.stderr
    );
    let spans = sink.spans();
    let call = named(&spans, "tools/call upload_file");
    // The span is the one the request's traceparent named.
    let sent = o
        .trace()
        .into_iter()
        .find(|l| l["dir"] == "out" && l["json"]["method"] == "tools/call")
        .unwrap();
    let tp = sent["json"]["params"]["_meta"]["traceparent"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        tp,
        format!("00-{}-{}-01", hex(&call.trace_id), hex(&call.span_id))
    );
    assert!(call.parent_span_id.is_empty());
    let a = |k| str_attr(&call.attributes, k);
    assert_eq!(a("mcp.method.name"), Some("tools/call"));
    assert_eq!(a("gen_ai.tool.name"), Some("upload_file"));
    assert_eq!(
        a("jsonrpc.request.id"),
        sent["json"]["id"].to_string().as_str().into()
    );
    assert_eq!(a("mcp.protocol.version"), Some("2025-11-25"));
    assert_eq!(a("network.transport"), Some("pipe"));
    assert!(a("mcp.session.id").is_none(), "stdio has no session id");
    assert!(a("error.type").is_none());
    let progress = call
        .events
        .iter()
        .filter(|e| e.name == "notifications/progress")
        .count();
    assert!(progress >= 5, "{:?}", call.events);
    assert!(call.end_time_unix_nano > call.start_time_unix_nano);
    // The handshake too, and the session span (3 in all); all from mcpscope.
    assert_eq!(spans.len(), 3);
    named(&spans, "initialize");
    named(&spans, "mcpscope session");
    assert!(spans.iter().all(|(svc, _)| svc == "mcpscope"));

    // The histograms, with the conventions' buckets.
    let metrics: Vec<_> = sink
        .requests()
        .into_iter()
        .filter(|g| g.path == "/v1/metrics")
        .collect();
    assert_eq!(metrics.len(), 1);
    let m = ExportMetricsServiceRequest::decode(&metrics[0].body[..]).unwrap();
    let names: Vec<String> = m.resource_metrics[0].scope_metrics[0]
        .metrics
        .iter()
        .map(|m| m.name.clone())
        .collect();
    assert_eq!(
        names,
        [
            "mcp.client.operation.duration",
            "mcp.client.session.duration"
        ]
    );
    let Some(opentelemetry_proto::tonic::metrics::v1::metric::Data::Histogram(h)) =
        &m.resource_metrics[0].scope_metrics[0].metrics[0].data
    else {
        panic!("not a histogram")
    };
    assert_eq!(
        h.data_points[0].explicit_bounds,
        [
            0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0
        ]
    );
    assert!(metrics[0].header("content-type") == Some("application/x-protobuf"));
}

#[test]
fn a_backend_that_refuses_for_now_is_retried() {
    // The first two exports are refused (503, then 429 with Retry-After: 0).
    let sink = Sink::scripted(|n, _| match n {
        0 => (503, Vec::new()),
        1 => (429, vec![("Retry-After".into(), "0".into())]),
        _ => (200, Vec::new()),
    });
    let o = headless(["call", "--demo", "--tool", "echo", "-a", "message=hi"])
        .args(["--otlp", &sink.url()])
        .expect(0);
    assert!(!o.stderr.contains("not delivered"), "{}", o.stderr);
    assert!(
        o.stderr.contains("[otel] exported 3 span(s)"),
        "{}",
        o.stderr
    );
    named(&sink.spans(), "tools/call echo");
}

#[test]
fn a_backend_that_is_down_costs_a_line_and_the_call_still_succeeds() {
    let (_hold, port) = refusing_port();
    let o = headless(["call", "--demo", "--tool", "echo", "-a", "message=hi"])
        .args(["--otlp", &format!("http://127.0.0.1:{port}")])
        .expect(0);
    assert!(o.stdout.contains("hi"), "{}", o.stdout);
    assert!(
        o.stderr
            .contains("span(s) not delivered: cannot connect (after 3 retries)"),
        "{}",
        o.stderr
    );
    // Quiet still says what was lost.
    let q = headless(["call", "--demo", "--tool", "echo", "-a", "message=hi", "-q"])
        .args(["--otlp", &format!("http://127.0.0.1:{port}")])
        .expect(0);
    assert!(q.stderr.contains("not delivered"), "{}", q.stderr);
    assert!(!q.stderr.contains("exported 0"), "{}", q.stderr);
}

#[test]
fn credentials_reach_the_backend_and_never_the_terminal() {
    const KEY: &str = "sekrit-4f1d";
    let sink = Sink::accepting();
    let url = format!("http://user:{KEY}@127.0.0.1:{}?api_key={KEY}", sink.port);
    let o = headless(["call", "--demo", "--tool", "echo", "-a", "message=hi"])
        .args(["--otlp", &url, "--otlp-header", &format!("x-api-key={KEY}")])
        .record()
        .expect(0);
    let got = sink.requests();
    assert!(!got.is_empty());
    assert!(got.iter().all(|g| g.header("x-api-key") == Some(KEY)));
    assert!(
        !o.stderr.contains(KEY) && !o.stdout.contains(KEY),
        "{}",
        o.stderr
    );
    let recorded = std::fs::read_to_string(o.trace_path()).unwrap();
    assert!(!recorded.contains(KEY));
    let bad = headless([
        "call",
        "--demo",
        "--tool",
        "echo",
        "--otlp",
        "grpc://h:4317",
    ])
    .expect(2);
    assert!(bad.stderr.contains("OTLP/HTTP"), "{}", bad.stderr);
}

#[test]
fn a_recording_is_exported_with_its_findings_on_their_spans() {
    // A server whose progress goes backwards: the finding joins the call.
    let rec = crate::support::otlp::recording_with_a_finding();
    let findings = rec.lines("[finding] progress-not-increasing");
    assert!(!findings.is_empty(), "{}", rec.stderr);
    let sink = Sink::accepting();
    let trace = rec.trace_path().display().to_string();
    let o = headless(["export", &trace, "--otlp", &sink.url()]).expect(0);
    assert!(o.stdout.is_empty(), "{}", o.stdout);
    assert!(o.stderr.contains("[otel] exported"), "{}", o.stderr);
    let spans = sink.spans();
    let call = named(&spans, "tools/call fault_not_increasing");
    let finding = call
        .events
        .iter()
        .find(|e| e.name == "mcpscope.finding")
        .unwrap_or_else(|| panic!("{:?}", call.events));
    assert_eq!(
        str_attr(&finding.attributes, "mcpscope.rule.id"),
        Some("progress-not-increasing")
    );
    assert_eq!(
        str_attr(&finding.attributes, "mcpscope.finding.severity"),
        Some("error")
    );

    // Exported twice, the same ids: a backend sees the same spans.
    let again = Sink::accepting();
    headless(["export", &trace, "--otlp", &again.url()]).expect(0);
    let twice = named(&again.spans(), "tools/call fault_not_increasing").clone();
    assert_eq!(
        (twice.trace_id, twice.span_id),
        (call.trace_id.clone(), call.span_id.clone())
    );

    // Neither a format nor a backend: usage.
    let none = headless(["export", &trace]).expect(2);
    assert!(none.stderr.contains("--format"), "{}", none.stderr);
    // A backend that refuses: exit 1, said.
    let refusing = Sink::scripted(|_, _| (400, Vec::new()));
    let r = headless(["export", &trace, "--otlp", &refusing.url()]).expect(1);
    assert!(r.stderr.contains("not delivered: HTTP 400"), "{}", r.stderr);
}

#[test]
fn check_exports_the_judged_session() {
    let sink = Sink::accepting();
    let o = headless([
        "check",
        "--demo",
        "--tool",
        "fault_not_increasing",
        "--protocol",
        "legacy",
    ])
    .args(["--otlp", &sink.url()])
    .run();
    assert_eq!(o.code, 1, "{}", o.stderr);
    let spans = sink.spans();
    let call = named(&spans, "tools/call fault_not_increasing");
    assert!(
        call.events.iter().any(|e| e.name == "mcpscope.finding"
            && str_attr(&e.attributes, "mcpscope.rule.id") == Some("progress-not-increasing")),
        "{:?}",
        call.events
    );
}

#[test]
fn an_http_session_is_named_by_a_digest_of_its_id_never_the_id() {
    let mut cmd = std::process::Command::new(crate::support::BIN);
    cmd.args(["demo-server", "--http", "127.0.0.1:0"]);
    let (_srv, port) = crate::support::http::start_reporting(cmd);
    let sink = Sink::accepting();
    let o = headless(["call", "--url", &format!("http://127.0.0.1:{port}/mcp")])
        .args(["--tool", "echo", "-a", "message=hi", "--protocol", "legacy"])
        .args(["--otlp", &sink.url()])
        .record()
        .expect(0);
    let session = o
        .trace()
        .into_iter()
        .find_map(|l| l["json"]["session"].as_str().map(str::to_string))
        .expect("the server named a session");
    let spans = sink.spans();
    let call = named(&spans, "tools/call echo");
    let a = |k| str_attr(&call.attributes, k);
    assert_eq!(a("network.transport"), Some("tcp"));
    assert_eq!(a("server.address"), Some("127.0.0.1"));
    let digest = a("mcp.session.id").expect("a session id");
    assert_eq!(
        digest,
        mcpscope::otel::export::fold::session_digest(&session)
    );
    assert!(
        sink.requests()
            .iter()
            .all(|g| !String::from_utf8_lossy(&g.body).contains(&session)),
        "the session id itself left mcpscope"
    );
}

#[test]
fn check_of_a_recording_exports_it_judged() {
    let rec = crate::support::otlp::recording_with_a_finding();
    let sink = Sink::accepting();
    let trace = rec.trace_path().display().to_string();
    let o = headless(["check", "--trace", &trace, "--otlp", &sink.url()]).expect(1);
    assert!(o.stderr.contains("[otel] exported"), "{}", o.stderr);
    let spans = sink.spans();
    let call = named(&spans, "tools/call fault_not_increasing");
    assert!(
        call.events.iter().any(|e| e.name == "mcpscope.finding"),
        "{:?}",
        call.events
    );
}

#[test]
fn the_exporters_headers_never_follow_a_redirect_to_another_origin() {
    const KEY: &str = "sekrit-9c2e";
    // The second backend, on another port, takes everything and keeps
    // what it saw; the first redirects every export to it.
    let other = Sink::accepting();
    let to = other.url();
    let first =
        Sink::scripted(move |_, g| (307, vec![("Location".into(), format!("{to}{}", g.path))]));
    let o = headless(["call", "--demo", "--tool", "echo", "-a", "message=hi"])
        .args([
            "--otlp",
            &first.url(),
            "--otlp-header",
            &format!("x-api-key={KEY}"),
        ])
        .expect(0);
    let seen = other.requests();
    assert!(
        seen.iter()
            .all(|g| g.header("x-api-key").is_none() && g.header("referer").is_none()),
        "the other origin saw {seen:?}"
    );
    assert!(
        seen.is_empty(),
        "a cross-origin redirect was followed: {seen:?}"
    );
    assert!(
        o.stderr.contains("not delivered: HTTP 307") && o.stderr.contains("another origin"),
        "{}",
        o.stderr
    );
    assert!(!o.stderr.contains(KEY), "{}", o.stderr);

    // Within the backend's own origin a redirect is followed, headers and all.
    let moving = Sink::scripted(|_, g| match g.path.starts_with("/v1/") {
        true => (307, vec![("Location".into(), format!("/moved{}", g.path))]),
        false => (200, Vec::new()),
    });
    headless(["call", "--demo", "--tool", "echo", "-a", "message=hi"])
        .args([
            "--otlp",
            &moving.url(),
            "--otlp-header",
            &format!("x-api-key={KEY}"),
        ])
        .expect(0);
    let took = moving.requests();
    assert!(
        took.iter().any(|g| g.path == "/moved/v1/traces"),
        "{took:?}"
    );
    assert!(took.iter().all(|g| g.header("x-api-key") == Some(KEY)));
}

#[test]
fn a_base_url_with_a_query_gets_the_signal_path_before_its_query() {
    let sink = Sink::accepting();
    let url = format!("{}/base?token=X", sink.url());
    headless(["call", "--demo", "--tool", "echo", "-a", "message=hi"])
        .args(["--otlp", &url])
        .expect(0);
    let paths: Vec<String> = sink.requests().into_iter().map(|g| g.path).collect();
    assert!(
        paths.contains(&"/base/v1/traces?token=X".to_string()),
        "{paths:?}"
    );
    assert!(
        paths.iter().all(|p| p.starts_with("/base/v1/")),
        "{paths:?}"
    );
}

#[test]
fn an_otlp_usage_error_never_prints_the_urls_password() {
    for url in [
        "grpc://user:sekrit@127.0.0.1:4317/?token=sekrit",
        "http://user:sekrit@127.0.0.1:99999/",
    ] {
        let o = headless(["call", "--demo", "--tool", "echo", "--otlp", url]).expect(2);
        assert!(o.stderr.contains("--otlp"), "{}", o.stderr);
        assert!(!o.stderr.contains("sekrit"), "{}", o.stderr);
    }
}

/// `export --otlp --only FILTER` sends the spans of what the filter
/// selects: the call whole, with its finding; a filter that selects another
/// part of the session sends no span of that call.
#[test]
fn an_export_with_only_sends_the_selected_calls_spans() {
    let rec = crate::support::otlp::recording_with_a_finding();
    let trace = rec.trace_path().display().to_string();
    let sink = Sink::accepting();
    // The call's request alone selects it, its progress and response.
    let o = headless([
        "export",
        &trace,
        "--otlp",
        &sink.url(),
        "--only",
        "tool == fault_not_increasing && request",
    ])
    .expect(0);
    assert!(o.stderr.contains("[only] "), "{}", o.stderr);
    let spans = sink.spans();
    let call = named(&spans, "tools/call fault_not_increasing");
    assert!(
        call.events.iter().any(|e| e.name == "mcpscope.finding"),
        "{:?}",
        call.events
    );
    assert!(
        call.events
            .iter()
            .any(|e| e.name == "notifications/progress"),
        "{:?}",
        call.events
    );

    let other = Sink::accepting();
    headless([
        "export",
        &trace,
        "--otlp",
        &other.url(),
        "--only",
        "method == initialize",
    ])
    .expect(0);
    assert!(
        other
            .spans()
            .iter()
            .all(|(_, s)| !s.name.starts_with("tools/call")),
        "{:?}",
        other
            .spans()
            .iter()
            .map(|(_, s)| &s.name)
            .collect::<Vec<_>>()
    );
}
