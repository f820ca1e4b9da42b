//! The fold on stores built frame by frame: ids, attributes, ends, bounds
//! and where findings go.

use super::*;
use crate::checks::{Party, Rule, Severity};
use crate::trace::StoreLimits;
use opentelemetry_proto::tonic::common::v1::any_value;

const TP: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

fn ctx(proxy: bool) -> Context {
    Context {
        wall_start_us: 1_000_000,
        proxy,
        transport: "pipe",
        server: None,
    }
}

fn store(frames: &[(Dir, u64, &str)]) -> Store {
    let mut s = Store::new(StoreLimits::default());
    for (dir, t, f) in frames {
        if *dir == Dir::Meta {
            let ev: Event = serde_json::from_str(f).unwrap();
            s.append_event("stdio", *t, &ev);
        } else {
            s.append_frame(*dir, "stdio", *t, f.as_bytes(), &mut Vec::new());
        }
    }
    s
}

fn fold_all(ctx: Context, s: &Store, findings: &[Finding]) -> Vec<Ready> {
    let mut f = SpanFold::new(ctx);
    f.preload(findings);
    for ev in s.range(0, s.next_seq()) {
        f.observe(&ev, s);
    }
    f.finish_session()
}

fn attr<'a>(s: &'a Span, k: &str) -> Option<&'a str> {
    attrs::get_str(&s.attributes, k)
}

fn named<'a>(spans: &'a [Ready], name: &str) -> &'a Span {
    &spans
        .iter()
        .find(|r| r.span.name == name)
        .unwrap_or_else(|| panic!("no span {name}: {spans:?}"))
        .span
}

#[test]
fn a_call_is_a_client_span_named_by_its_tool_with_its_progress() {
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"slow","_meta":{{"progressToken":"t","traceparent":"{TP}"}}}}}}"#
    );
    let s = store(&[
        (
            Dir::Meta,
            0,
            r#"{"event":"negotiated","protocolVersion":"2025-11-25"}"#,
        ),
        (
            Dir::Meta,
            1,
            r#"{"event":"http","method":"POST","status":200,"session":"s-1","ms":1}"#,
        ),
        (Dir::Out, 10, &call),
        (
            Dir::In,
            20,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2,"message":"half"}}"#,
        ),
        (
            Dir::In,
            30,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2,"total":2}}"#,
        ),
        (
            Dir::In,
            40,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}"#,
        ),
    ]);
    let spans = fold_all(ctx(false), &s, &[]);
    let span = named(&spans, "tools/call slow");
    // mcpscope's own request names its span: the traceparent it sent.
    assert_eq!(
        span.trace_id,
        ids::from_hex::<16>("4bf92f3577b34da6a3ce929d0e0e4736").unwrap()
    );
    assert_eq!(
        span.span_id,
        ids::from_hex::<8>("00f067aa0ba902b7").unwrap()
    );
    assert!(span.parent_span_id.is_empty());
    assert_eq!(span.kind, SpanKind::Client as i32);
    assert_eq!(span.start_time_unix_nano, 1_000_010_000);
    assert_eq!(span.end_time_unix_nano, 1_000_040_000);
    assert_eq!(attr(span, "mcp.method.name"), Some("tools/call"));
    assert_eq!(attr(span, "gen_ai.tool.name"), Some("slow"));
    assert_eq!(attr(span, "gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(attr(span, "jsonrpc.request.id"), Some("1"));
    assert_eq!(attr(span, "mcp.protocol.version"), Some("2025-11-25"));
    // The session id is a credential: its digest, never itself.
    assert_eq!(
        attr(span, "mcp.session.id"),
        Some(session_digest("s-1").as_str())
    );
    assert_eq!(session_digest("s-1").len(), 16);
    assert_ne!(session_digest("s-1"), session_digest("s-2"));
    assert_eq!(attr(span, "network.transport"), Some("pipe"));
    assert_eq!(attr(span, "error.type"), Some("tool_error"));
    assert_eq!(span.status.as_ref().unwrap().code, StatusCode::Error as i32);
    assert_eq!(span.events.len(), 2);
    assert_eq!(span.events[0].name, "notifications/progress");
    assert_eq!(span.events[0].time_unix_nano, 1_000_020_000);
    assert_eq!(
        attrs::get_str(&span.events[0].attributes, "mcpscope.progress.message"),
        Some("half")
    );
    assert!(
        span.events[0]
            .attributes
            .iter()
            .any(|kv| kv.key == "mcpscope.progress"
                && kv.value.as_ref().unwrap().value == Some(any_value::Value::DoubleValue(1.0)))
    );
    // The session span closes the export.
    assert_eq!(spans.last().unwrap().span.name, SESSION_SPAN);
}

#[test]
fn an_error_response_names_its_code_and_a_stateless_session_no_session() {
    let s = store(&[
        (
            Dir::Meta,
            0,
            r#"{"event":"negotiated","era":"2026-07-28","protocolVersion":"2026-07-28"}"#,
        ),
        (
            Dir::Meta,
            1,
            r#"{"event":"http","method":"POST","status":200,"session":"s-1","ms":1}"#,
        ),
        (
            Dir::Out,
            10,
            r#"{"jsonrpc":"2.0","id":"r-7","method":"resources/read","params":{"uri":"postgres://app:hunter2@db/x?token=t0k"}}"#,
        ),
        (
            Dir::In,
            20,
            r#"{"jsonrpc":"2.0","id":"r-7","error":{"code":-32602,"message":"no such\nresource"}}"#,
        ),
    ]);
    let spans = fold_all(ctx(false), &s, &[]);
    let span = named(&spans, "resources/read");
    assert_eq!(attr(span, "jsonrpc.request.id"), Some("r-7"));
    // Credentials in the URI never reach the backend.
    let uri = attr(span, "mcp.resource.uri").unwrap();
    assert!(uri.starts_with("postgres://app:"), "{uri}");
    assert!(!uri.contains("hunter2") && !uri.contains("t0k"), "{uri}");
    assert_eq!(attr(span, "error.type"), Some("-32602"));
    assert_eq!(attr(span, "rpc.response.status_code"), Some("-32602"));
    assert_eq!(
        attr(span, "mcp.session.id"),
        None,
        "2026-07-28 has no session"
    );
    let status = span.status.as_ref().unwrap();
    assert_eq!(
        status.message, "no such⏎resource",
        "one line, as the terminal shows it"
    );
    // Without a traceparent, ids are derived, the same on a second export.
    assert_eq!(span.trace_id.len(), 16);
    let again = fold_all(ctx(false), &s, &[]);
    assert_eq!(named(&again, "resources/read").span_id, span.span_id);
}

#[test]
fn through_the_proxy_the_hosts_traceparent_is_the_parent() {
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"x","_meta":{{"traceparent":"{TP}"}}}}}}"#
    );
    let s = store(&[
        (Dir::Out, 10, &call),
        (
            Dir::In,
            20,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
        ),
    ]);
    let spans = fold_all(ctx(true), &s, &[]);
    let span = named(&spans, "tools/call x");
    assert_eq!(
        span.trace_id,
        ids::from_hex::<16>("4bf92f3577b34da6a3ce929d0e0e4736").unwrap()
    );
    assert_eq!(
        span.parent_span_id,
        ids::from_hex::<8>("00f067aa0ba902b7").unwrap()
    );
    assert_ne!(span.span_id, span.parent_span_id);
    assert_eq!(span.status.as_ref().unwrap().code, StatusCode::Unset as i32);
    assert_eq!(attr(span, "error.type"), None);
}

#[test]
fn a_server_request_is_a_server_span_and_a_timeout_ends_a_call() {
    let s = store(&[
        (
            Dir::Out,
            10,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask"}}"#,
        ),
        (
            Dir::In,
            15,
            r#"{"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{}}"#,
        ),
        (
            Dir::Out,
            30_000_000,
            r#"{"jsonrpc":"2.0","id":9,"result":{"action":"accept"}}"#,
        ),
        (
            Dir::Meta,
            60_000_000,
            r#"{"event":"timeout","request":1,"method":"tools/call","limit":"idle","secs":60.0}"#,
        ),
    ]);
    let spans = fold_all(ctx(false), &s, &[]);
    let elicit = named(&spans, "elicitation/create");
    assert_eq!(elicit.kind, SpanKind::Server as i32);
    assert_eq!(
        elicit.end_time_unix_nano - elicit.start_time_unix_nano,
        29_999_985_000
    );
    let call = named(&spans, "tools/call ask");
    assert_eq!(attr(call, "error.type"), Some("timeout"));
}

#[test]
fn events_are_bounded_per_span_and_counted() {
    let mut frames = vec![(
        Dir::Out,
        0,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"f","_meta":{"progressToken":1}}}"#.to_string(),
    )];
    for i in 0..(MAX_EVENTS + 50) {
        frames.push((
            Dir::In,
            1 + i as u64,
            format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":1,"progress":{i}}}}}"#),
        ));
    }
    let refs: Vec<(Dir, u64, &str)> = frames
        .iter()
        .map(|(d, t, f)| (*d, *t, f.as_str()))
        .collect();
    let s = store(&refs);
    let mut f = SpanFold::new(ctx(false));
    for ev in s.range(0, s.next_seq()) {
        f.observe(&ev, &s);
    }
    let spans = f.finish_session();
    let span = named(&spans, "tools/call f");
    assert_eq!(span.events.len(), MAX_EVENTS);
    assert_eq!(span.dropped_events_count, 50);
    assert_eq!(f.counts.events_dropped, 50);
    assert_eq!(attr(span, "error.type"), Some("no_response"));
}

fn finding(rule: Rule, id: Option<i64>) -> Finding {
    Finding {
        rule,
        severity: Severity::Error,
        seqs: vec![2],
        token: None,
        request_id: id.map(IdKey::Int),
        message: "progress went\u{1b}[31m back".into(),
        party: Party::Server,
        session: None,
    }
}

#[test]
fn findings_join_their_span_or_a_child_of_it_or_the_session() {
    let s = store(&[
        (
            Dir::Out,
            10,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#,
        ),
        (
            Dir::In,
            20,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
        ),
    ]);
    // A recording's findings, given first.
    let spans = fold_all(
        ctx(false),
        &s,
        &[
            finding(Rule::ProgressNotIncreasing, Some(1)),
            finding(Rule::ProgressNotIncreasing, None),
        ],
    );
    let call = named(&spans, "tools/call a");
    assert_eq!(call.events.len(), 1);
    let e = &call.events[0];
    assert_eq!(e.name, "mcpscope.finding");
    assert_eq!(
        attrs::get_str(&e.attributes, "mcpscope.rule.id"),
        Some("progress-not-increasing")
    );
    assert_eq!(
        attrs::get_str(&e.attributes, "mcpscope.finding.severity"),
        Some("error")
    );
    assert!(
        !attrs::get_str(&e.attributes, "mcpscope.finding.message")
            .unwrap()
            .contains('\u{1b}')
    );
    assert_eq!(named(&spans, SESSION_SPAN).events.len(), 1);

    // Live: a finding after the span left is a child span of it.
    let mut f = SpanFold::new(ctx(false));
    for ev in s.range(0, s.next_seq()) {
        f.observe(&ev, &s);
    }
    let early = f.take_ready(u64::MAX, 0);
    assert_eq!(early.len(), 1);
    f.finding(&finding(Rule::ProgressNotIncreasing, Some(1)));
    let late = f.take_ready(u64::MAX, 0);
    assert_eq!(late.len(), 1);
    assert_eq!(late[0].span.parent_span_id, early[0].span.span_id);
    assert_eq!(late[0].span.trace_id, early[0].span.trace_id);
    assert_eq!(late[0].span.events[0].name, "mcpscope.finding");
}

#[test]
fn a_span_the_server_exported_is_forwarded_with_its_service() {
    let s = store(&[(
        Dir::Meta,
        5,
        r#"{"event":"otel-span","service":"python","name":"tools/call slow","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"1111111111111111","parent_span_id":"00f067aa0ba902b7","kind":"server","start_ns":7,"end_ns":9,"status":"error","status_message":"boom","attributes":{"gen_ai.tool.name":"slow","n":3}}"#,
    )]);
    let spans = fold_all(ctx(false), &s, &[]);
    let r = spans
        .iter()
        .find(|r| r.service.as_deref() == Some("python"))
        .unwrap();
    assert_eq!(r.span.kind, SpanKind::Server as i32);
    assert_eq!(
        r.span.parent_span_id,
        ids::from_hex::<8>("00f067aa0ba902b7").unwrap()
    );
    assert_eq!(
        (r.span.start_time_unix_nano, r.span.end_time_unix_nano),
        (7, 9)
    );
    assert_eq!(
        r.span.status.as_ref().unwrap().code,
        StatusCode::Error as i32
    );
    assert_eq!(attr(&r.span, "gen_ai.tool.name"), Some("slow"));
}

#[test]
fn a_log_record_the_server_exported_is_forwarded_with_its_trace() {
    let s = store(&[(
        Dir::Meta,
        5,
        r#"{"event":"otel-log","service":"python","time_ns":7,"severity_number":9,"severity_text":"INFO","level":"info","body":"slow_task done","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"1111111111111111","attributes":{"code.line.number":89}}"#,
    )]);
    let mut f = SpanFold::new(ctx(false));
    for ev in s.range(0, s.next_seq()) {
        f.observe(&ev, &s);
    }
    let logs = f.take_logs();
    assert_eq!(logs.len(), 1);
    let l = &logs[0];
    assert_eq!(l.service, "python");
    assert_eq!((l.record.time_unix_nano, l.record.severity_number), (7, 9));
    assert_eq!(l.record.severity_text, "INFO");
    assert_eq!(
        l.record.trace_id,
        ids::from_hex::<16>("4bf92f3577b34da6a3ce929d0e0e4736").unwrap()
    );
    assert_eq!(
        l.record.span_id,
        ids::from_hex::<8>("1111111111111111").unwrap()
    );
    assert_eq!(
        l.record.body.as_ref().unwrap().value,
        Some(any_value::Value::StringValue("slow_task done".into()))
    );
    assert!(f.take_logs().is_empty(), "taken once");
}
