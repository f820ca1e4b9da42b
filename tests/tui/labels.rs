//! Calls by name: every row that belongs to a call reads as its request's
//! seq and tool (or method) — `#4 upload_file` — in the Timeline's call
//! column, the Logs, the Raw title and the Scope's lane titles, instead of
//! the raw id or progress token; handshake and `_meta`-only frames say what
//! they are. The layout gives the Timeline and Logs the Tools/Composer
//! column's room while that column is not focused.

use crate::support::*;
use mcpscope::tui::pane::Pane;

/// Tokens as mcpscope makes them on a real server: they all start alike.
const TOK_A: &str = "mcpscope-7f3a9c2e-0001";
const TOK_B: &str = "mcpscope-7f3a9c2e-0002";

/// A handshake whose frames carry `_meta`, then two calls at once with
/// interleaved progress, a log, one answer, a read and a `_meta`-only
/// notification. Seqs: 0 is `initialize`, 3 `pipeline_wait`, 4
/// `upload_file`, 11 the read.
fn concurrent() -> Scenario {
    let sc = Scenario::new();
    sc.at_ms(1).out(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "_meta": {"io.modelcontextprotocol/clientInfo": {"name": "mcpscope", "version": "9.9.9"}},
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "mcpscope", "version": "9.9.9"}}}),
    );
    sc.at_ms(5).inn(json!({"jsonrpc": "2.0", "id": 0, "result": {
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "mcpscope-demo", "version": "9.9.9"}},
        "protocolVersion": "2025-11-25", "capabilities": {"logging": {}, "tools": {}},
        "serverInfo": {"name": "mcpscope-demo", "version": "9.9.9"}}}));
    sc.at_ms(6)
        .out(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(
        sc.at_ms(10)
            .call(1, "pipeline_wait", json!({"polls": 9}), Some(json!(TOK_A))),
        3
    );
    assert_eq!(
        sc.at_ms(11).call(
            2,
            "upload_file",
            json!({"size_bytes": 1000}),
            Some(json!(TOK_B))
        ),
        4
    );
    sc.at_ms(20)
        .progress(json!(TOK_B), 250.0, Some(1000.0), "Read 250 bytes");
    sc.at_ms(21)
        .progress(json!(TOK_A), 1.0, None, "Pipeline #42: running (poll 1)");
    sc.at_ms(30)
        .progress(json!(TOK_B), 500.0, Some(1000.0), "Read 500 bytes");
    sc.at_ms(31)
        .progress(json!(TOK_A), 2.0, None, "Pipeline #42: running (poll 2)");
    sc.at_ms(40)
        .log("info", "tracker", json!("a log of the session"));
    sc.at_ms(50).result(2, "Uploaded (1000 bytes)", false);
    assert_eq!(
        sc.at_ms(60).out(
            json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
            "params": {"uri": "file:///notes.txt", "_meta": {"traceparent": "00-1-2-01"}}})
        ),
        11
    );
    sc.at_ms(62)
        .inn(json!({"jsonrpc": "2.0", "id": 3, "result": {"contents": [
        {"uri": "file:///notes.txt", "text": "hello"}]}}));
    sc.at_ms(70).inn(
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
        "params": {"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "mcpscope-demo"}}}}),
    );
    sc.at_ms(80);
    sc
}

#[test]
fn the_timeline_names_concurrent_calls_by_seq_and_tool() {
    let sc = concurrent();
    let mut app = app(&sc);
    app.apply(Action::FocusTimeline);
    let screen = render(&mut app, 160, 48);
    let rows = pane(&screen, "Timeline").rows;
    assert!(rows[0].contains("call"), "a call column:\n{screen}");
    let with = |needle: &str, label: &str| {
        rows.iter()
            .filter(|r| r.contains(needle) && r.contains(label))
            .count()
    };
    // Each progress row names its call; the two never read alike.
    assert_eq!(with("Pipeline #42", "#3 pipeline_wait"), 2, "{screen}");
    assert_eq!(with("Read ", "#4 upload_file"), 2, "{screen}");
    // The request names itself, its response its request.
    assert_eq!(with("req", "#4 upload_file"), 1, "{screen}");
    assert_eq!(
        with("Uploaded (1000 bytes)", "#4 upload_file"),
        1,
        "{screen}"
    );
    // Any other request by its method.
    assert_eq!(with("notes.txt", "#11 resources/read"), 2, "{screen}");
    // A session-wide log belongs to no call.
    let log = rows
        .iter()
        .find(|r| r.contains("a log of the session"))
        .unwrap();
    assert!(!log.contains('#'), "{log}");
    assert!(!screen.contains("tok="), "no raw tokens:\n{screen}");
    assert!(
        !rows.iter().any(|r| r.contains("mcpscope-7f3a")),
        "no raw tokens in the Timeline:\n{screen}"
    );
    insta::assert_snapshot!(screen);
}

#[test]
fn handshake_and_meta_only_frames_say_what_they_are() {
    let sc = concurrent();
    let mut app = app(&sc);
    app.apply(Action::FocusTimeline);
    let screen = render(&mut app, 160, 48);
    let rows = pane(&screen, "Timeline").rows;
    let row = |label: &str| {
        rows.iter()
            .find(|r| r.contains(label))
            .unwrap_or_else(|| panic!("{label}:\n{screen}"))
    };
    assert!(
        row("#0 initialize").contains("initialize asks for 2025-11-25"),
        "{screen}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains("res")
                && r.contains("initialize → 2025-11-25 · mcpscope-demo 9.9.9")),
        "{screen}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains("initialized") && r.contains("notifications/initialized")),
        "{screen}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains("notifications/tools/list_changed")),
        "{screen}"
    );
    // `_meta` is never what a row shows, even beside other params.
    assert!(!screen.contains("{\"_meta\""), "{screen}");
    assert!(!screen.contains("traceparent"), "{screen}");
    assert!(
        row("#11 resources/read").contains("file:///notes.txt"),
        "{screen}"
    );

    // The 2026-07-28 era: discovery instead of a handshake.
    let sc = Scenario::new();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "mcpscope", "version": "9.9.9"}});
    sc.at_ms(1).out(
        json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": meta}}),
    );
    sc.at_ms(2).inn(json!({"jsonrpc": "2.0", "id": 0, "result": {
        "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}, "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "mcpscope-demo", "version": "9.9.9"}}}}));
    sc.at_ms(3)
        .out(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}));
    sc.at_ms(4);
    let mut app = crate::support::app(&sc);
    app.apply(Action::FocusTimeline);
    let screen = render(&mut app, 160, 48);
    let rows = pane(&screen, "Timeline").rows;
    assert!(
        rows.iter()
            .any(|r| r.contains("req") && r.contains("server/discover 2026-07-28 · mcpscope 9.9.9")),
        "{screen}"
    );
    assert!(
        rows.iter().any(|r| r.contains("res")
            && r.contains("server/discover → 2026-07-28 · mcpscope-demo 9.9.9")),
        "{screen}"
    );
    assert!(
        rows.iter()
            .any(|r| r.contains("#2 tools/list") && r.contains("tools/list 2026-07-28")),
        "{screen}"
    );
    assert!(!screen.contains("{\"_meta\""), "{screen}");
}

/// Columns from the Timeline's `summary` header to its right border.
fn summary_room(screen: &str) -> usize {
    let rows = pane(screen, "Timeline").rows;
    let header = &rows[0];
    let at = header
        .find("summary")
        .unwrap_or_else(|| panic!("no summary column:\n{screen}"));
    header.chars().count() - header[..at].chars().count()
}

#[test]
fn at_160x48_the_summary_gets_sixty_columns_while_tools_and_composer_are_not_focused() {
    let sc = concurrent();
    let mut app = app(&sc);
    for focus in [
        Action::FocusProgress,
        Action::FocusTimeline,
        Action::FocusLogs,
        Action::FocusRaw,
    ] {
        app.apply(focus);
        let screen = render(&mut app, 160, 48);
        let room = summary_room(&screen);
        assert!(room >= 60, "{focus:?}: {room} columns:\n{screen}");
        assert!(!screen.contains(" Composer "), "{focus:?}:\n{screen}");
    }
    // Focused, the column is back (and the Timeline keeps its call column).
    for focus in [Action::FocusTools, Action::FocusComposer] {
        app.apply(focus);
        let screen = render(&mut app, 160, 48);
        assert!(screen.contains(" Composer "), "{focus:?}:\n{screen}");
        assert!(
            pane(&screen, "Timeline").rows[0].contains("call"),
            "{screen}"
        );
    }
}

#[test]
fn at_120x30_the_timeline_keeps_its_call_column_whatever_is_focused() {
    let sc = concurrent();
    let mut app = app(&sc);
    for focus in [
        Action::FocusProgress,
        Action::FocusTimeline,
        Action::FocusTools,
        Action::FocusComposer,
    ] {
        app.apply(focus);
        let screen = render(&mut app, 120, 30);
        let rows = pane(&screen, "Timeline").rows;
        assert!(rows[0].contains("call"), "{focus:?}:\n{screen}");
        for label in ["#3 pipe", "#4 uplo"] {
            assert!(
                rows.iter().any(|r| r.contains(label)),
                "{focus:?}: {label}:\n{screen}"
            );
        }
        // Cut text ends in an ellipsis, never mid-word without a mark.
        assert!(!screen.contains("tok="), "{focus:?}:\n{screen}");
    }
}

/// An HTTP session: a call on its own stream (`post:3`), its progress, a
/// log on that stream and one on the standalone stream. Seq 2 is the call.
fn http_call() -> Scenario {
    let sc = Scenario::new();
    sc.at_ms(1).out_on("post:1", json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mcpscope", "version": "0"}}}));
    sc.at_ms(4).inn_on("post:1", json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"logging": {}, "tools": {}}, "serverInfo": {"name": "mcpscope-demo", "version": "9.9.9"}}}));
    assert_eq!(
        sc.at_ms(10).out_on("post:3", json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "upload_file", "arguments": {"size_bytes": 100000}, "_meta": {"progressToken": TOK_A}}})),
        2
    );
    sc.at_ms(20).inn_on("post:3", json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "logger": "upload", "data": "upload started"}}));
    sc.at_ms(30).inn_on("post:3", json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": TOK_A, "progress": 25000, "total": 100000}}));
    sc.at_ms(40).inn_on("get", json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "logger": "server", "data": "cache warmed"}}));
    sc.at_ms(50);
    sc
}

#[test]
fn logs_raw_and_the_scope_use_the_same_label() {
    let sc = http_call();
    let mut app = http_app(&sc);
    app.apply(Action::FocusLogs);
    let screen = render(&mut app, 160, 48);
    let logs = pane(&screen, "Logs").rows;
    let row = |text: &str| {
        logs.iter()
            .find(|r| r.contains(text))
            .unwrap_or_else(|| panic!("{text}:\n{screen}"))
            .clone()
    };
    assert!(row("upload started").contains("#2 upload_file"), "{screen}");
    assert!(!row("cache warmed").contains('#'), "{screen}");
    // The log on the call's stream, selected in the Timeline: Raw names its call.
    app.apply(Action::FocusTimeline);
    app.apply(Action::Top);
    for _ in 0..3 {
        app.apply(Action::Down);
    }
    let screen = render(&mut app, 160, 48);
    let raw_title = screen
        .lines()
        .find(|l| l.contains(" Raw "))
        .expect("the Raw pane");
    assert!(raw_title.contains("#3"), "the log is selected:\n{screen}");
    assert!(raw_title.contains("#2 upload_file"), "{screen}");
    // The Scope's lane for the call.
    app.apply(Action::FocusScope);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("┃#2 upload_file"), "{screen}");
    assert!(!screen.contains("upload_file #1"), "{screen}");
}

#[test]
fn a_log_of_the_stateless_era_names_the_only_request_in_flight() {
    let sc = Scenario::new();
    let meta = |level: Option<&str>| {
        let mut m = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}});
        if let Some(l) = level {
            m["io.modelcontextprotocol/logLevel"] = json!(l);
        }
        m
    };
    sc.at_ms(1)
        .out(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "context_builder", "arguments": {}, "_meta": meta(Some("debug"))}}));
    sc.at_ms(2).log("info", "ctx", json!("one call in flight"));
    sc.at_ms(3)
        .out(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {}, "_meta": meta(None)}}));
    sc.at_ms(4).log("info", "ctx", json!("two calls in flight"));
    sc.at_ms(5).result(2, "echoed", false);
    sc.at_ms(6).log("info", "ctx", json!("one again"));
    sc.at_ms(7);
    let mut app = app(&sc);
    app.apply(Action::FocusLogs);
    let screen = render(&mut app, 160, 48);
    let logs = pane(&screen, "Logs").rows;
    let row = |text: &str| {
        logs.iter()
            .find(|r| r.contains(text))
            .unwrap_or_else(|| panic!("{text}:\n{screen}"))
            .clone()
    };
    assert!(
        row("one call in flight").contains("#0 context_builder"),
        "{screen}"
    );
    assert!(!row("two calls in flight").contains('#'), "{screen}");
    assert!(row("one again").contains("#0 context_builder"), "{screen}");
    assert_eq!(app.shell.focus, Pane::Logs);
}
