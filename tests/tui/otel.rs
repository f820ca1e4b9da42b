//! Telemetry the server exported to the OTLP receiver, in the TUI: its log
//! records in the Logs pane (marked `otel`, filtered by level and text like
//! the rest) and its spans under their call in the Progress details. The
//! trace is built on a manual clock with fixed ids and times.

use crate::support::*;
use mcpscope::protocol::views::LogLevel;
use serde_json::json;

const TRACE_ID: &str = "99c1a0decdd77cade83998973452a4aa";
const CLIENT_SPAN: &str = "4c9409deb5763e86";
/// 2026-12-01T00:00:00Z in unix nanoseconds: span times are wall-clock.
const T0_NS: u64 = 1_796_083_200_000_000_000;

fn otel_log(sc: &Scenario, severity: i32, level: &str, body: &str, trace: Option<&str>) -> u64 {
    let mut ev = json!({"event": "otel-log", "service": "python", "time_ns": T0_NS,
        "severity_number": severity, "level": level, "body": body,
        "attributes": {"code.function.name": "slow_task"}});
    if let Some(t) = trace {
        ev["trace_id"] = json!(t);
    }
    sc.meta_on("otel", ev)
}

#[allow(clippy::too_many_arguments)]
fn span(
    sc: &Scenario,
    name: &str,
    span_id: &str,
    parent: Option<&str>,
    kind: &str,
    start_ms: u64,
    end_ms: u64,
    status: &str,
) -> u64 {
    let mut ev = json!({"event": "otel-span", "service": "python", "name": name,
        "trace_id": TRACE_ID, "span_id": span_id, "kind": kind,
        "start_ns": T0_NS + start_ms * 1_000_000, "end_ns": T0_NS + end_ms * 1_000_000,
        "status": status});
    if let Some(p) = parent {
        ev["parent_span_id"] = json!(p);
    }
    // A SERVER span carries the MCP semantic conventions' attributes; an
    // error has a message (with an escape sequence a server might send).
    if kind == "server" {
        ev["attributes"] = json!({"gen_ai.tool.name": "slow_task",
            "jsonrpc.request.id": "1", "mcp.method.name": "tools/call"});
    }
    if status == "error" {
        ev["status_message"] = json!("HTTP 503 \u{1b}[2J");
    }
    sc.meta_on("otel", ev)
}

/// A traced `tools/call` (its request carries a `traceparent`), an MCP log
/// message, a stderr line, OTel log records at three severities (one with
/// an escape sequence in its body), and the server's spans for the call,
/// the last of them arriving after the response.
pub fn with_otel() -> Scenario {
    let sc = Scenario::new();
    sc.at_ms(2).out(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}));
    sc.at_ms(9).inn(json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"logging": {}}, "serverInfo": {"name": "python", "version": "1.0"}}}));
    sc.at_ms(100)
        .out(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "slow_task", "arguments": {"steps": 2},
            "_meta": {"progressToken": "mcpscope-1",
                "traceparent": format!("00-{TRACE_ID}-{CLIENT_SPAN}-01")}}}));
    sc.at_ms(110).log("info", "tracker", json!("step 1"));
    sc.at_ms(115).stderr("python: working");
    sc.at_ms(120);
    otel_log(
        &sc,
        9,
        "info",
        "slow_task done after 2 steps",
        Some(TRACE_ID),
    );
    otel_log(&sc, 13, "warning", "cache \u{1b}[31mcold\u{1b}[0m", None);
    otel_log(&sc, 5, "debug", "polling", Some(TRACE_ID));
    sc.at_ms(130).result(1, "done", false);
    sc.at_ms(140);
    span(
        &sc,
        "tools/call slow_task",
        "aaaa000000000001",
        Some(CLIENT_SPAN),
        "server",
        0,
        27,
        "unset",
    );
    span(
        &sc,
        "step 1",
        "aaaa000000000002",
        Some("aaaa000000000001"),
        "internal",
        2,
        12,
        "ok",
    );
    span(
        &sc,
        "GET /data",
        "aaaa000000000004",
        Some("aaaa000000000002"),
        "client",
        3,
        9,
        "error",
    );
    sc.at_ms(900);
    span(
        &sc,
        "step 2",
        "aaaa000000000003",
        Some("aaaa000000000001"),
        "internal",
        13,
        25,
        "ok",
    );
    sc
}

#[test]
fn otel_log_records_sit_beside_messages_and_stderr_and_filter_alike() {
    let sc = with_otel();
    let mut app = app(&sc);
    app.apply(Action::FocusLogs);
    // 1 message, 1 stderr line, 3 OTel records.
    assert_eq!(app.panes.logs.view.len(), 5);
    app.apply(Action::LevelUp);
    assert_eq!(app.panes.logs.view.min, LogLevel::Info);
    assert_eq!(app.panes.logs.view.len(), 4, "the debug OTel record is out");
    app.apply(Action::LevelUp);
    app.apply(Action::LevelUp);
    assert_eq!(app.panes.logs.view.min, LogLevel::Warning);
    assert_eq!(
        app.panes.logs.view.len(),
        2,
        "the warning record and stderr"
    );
    app.apply(Action::ToggleStderr);
    assert_eq!(app.panes.logs.view.len(), 1);
    app.apply(Action::LevelDown);
    app.apply(Action::LevelDown);
    app.apply(Action::LevelDown);
    app.apply(Action::Filter);
    typed(&mut app, "done after");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.panes.logs.view.len(),
        1,
        "the text filter reads the body"
    );
    app.apply(Action::Top);
    app.apply(Action::Expand);
    let (_, lines) = app.panes.logs.expanded.as_ref().expect("expanded");
    assert!(lines.len() > 3, "the record is pretty-printed");
}

#[test]
fn logs_with_otel_records() {
    let sc = with_otel();
    let mut app = app(&sc);
    app.apply(Action::FocusLogs);
    app.apply(Action::Zoom);
    insta::assert_snapshot!(render(&mut app, 120, 16));
}

#[test]
fn call_details_with_the_servers_spans() {
    let sc = with_otel();
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::Details);
    let before = render(&mut app, 120, 24);
    assert!(before.contains("server spans (4 spans)"), "{before}");
    // A span that arrives later still attaches to its call.
    sc.at_ms(2000);
    span(
        &sc,
        "late flush",
        "aaaa000000000005",
        Some("aaaa000000000001"),
        "internal",
        26,
        27,
        "unset",
    );
    app.sync();
    app.apply(Action::Zoom);
    insta::assert_snapshot!(render(&mut app, 120, 24));
}

#[test]
fn the_waterfall_is_bounded_and_counts_the_rest() {
    let sc = with_otel();
    for i in 0..40u64 {
        span(
            &sc,
            &format!("poll {i}"),
            &format!("bbbb{i:012x}"),
            Some("aaaa000000000001"),
            "client",
            i,
            i + 1,
            "ok",
        );
    }
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::Details);
    app.apply(Action::Zoom);
    let screen = render(&mut app, 120, 60);
    assert!(screen.contains("server spans (44 spans)"), "{screen}");
    // 32 rows: the server span and GET /data take two (their attributes,
    // its status message), so 30 spans are drawn.
    assert!(screen.contains("… 14 more spans"), "{screen}");
    assert_eq!(screen.matches("    poll ").count(), 26, "{screen}");
}

#[test]
fn offsets_count_from_the_request_when_the_wall_clock_start_is_known() {
    let sc = with_otel();
    // The request (100 ms into the session) was sent 1 ms before the
    // server span started.
    let opts = AppOptions {
        wall_start: Some(mcpscope::tui::panes::scope::WallStart {
            unix_us: T0_NS / 1000 - 101_000,
            exact: true,
        }),
        ..AppOptions::default()
    };
    let mut app = App::new(sc.trace.clone(), opts);
    app.sync();
    app.apply(Action::FocusProgress);
    app.apply(Action::Details);
    app.apply(Action::Zoom);
    let screen = render(&mut app, 120, 30);
    assert!(screen.contains("start after the request"), "{screen}");
    let row = |name: &str| {
        screen
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name}: {screen}"))
            .to_string()
    };
    assert!(row("tools/call slow_task").contains(" +1.0ms "), "{screen}");
    assert!(row("step 2").contains(" +14ms "), "{screen}");
}
