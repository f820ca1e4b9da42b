//! The Network pane: HTTP exchanges from meta events, their channels in
//! the timeline, authorization rows.

use crate::support::*;
use mcpscope::calls::exchanges::{HttpStatus, StreamEnd};
use mcpscope::protocol::IdKey;
use mcpscope::tui::calls::CallStatus;
use mcpscope::tui::pane::Pane;

#[test]
fn network_rows_come_from_http_meta_events_and_their_channels() {
    let sc = http_session();
    let app = app(&sc);
    let rows = &app.panes.network.view.rows;
    let summary: Vec<(&str, &str, String)> = rows
        .iter()
        .map(|x| (x.channel.as_str(), x.method.as_str(), x.status.label()))
        .collect();
    assert_eq!(
        summary,
        [
            ("post:1", "POST", "200".to_string()),
            ("post:2", "POST", "202".to_string()),
            ("get", "GET", "200".to_string()),
            ("post:3", "POST", "200".to_string()),
            ("post:3", "GET", "200".to_string()),
            ("post:4", "POST", "200".to_string()),
            ("post:5", "POST", "500".to_string()),
            ("post:6", "POST", "200".to_string()),
        ]
    );
    let init = &rows[0];
    assert_eq!(init.rpc, "initialize #0");
    assert_eq!(init.content_type, "sse");
    assert_eq!(init.session.as_deref(), Some("demo-00000001"));
    assert_eq!((init.frames, init.priming), (1, 1));
    assert_eq!(init.end, Some(StreamEnd::Ended));
    assert_eq!(rows[1].rpc, "notifications/initialized");
    assert_eq!(rows[2].rpc, "(server stream)");

    // The upload's stream: two progress frames, closed by the server, resumed.
    let post = &rows[3];
    assert_eq!(post.rpc, "tools/call upload_file #1");
    assert_eq!(
        post.session.as_deref(),
        Some("demo-00000001"),
        "a response without the header belongs to the session in use"
    );
    assert_eq!((post.frames, post.priming, post.resumed), (2, 1, 1));
    assert_eq!(post.ms, Some(1));
    assert_eq!(
        post.stream_events(),
        ["primed", "resumed ×1", "ended"].map(String::from)
    );
    // The resumption GET carries the rest: two progress and the response.
    let resume = &rows[4];
    assert_eq!(resume.rpc, "tools/call upload_file #1");
    assert_eq!((resume.frames, resume.resume_attempt), (3, Some(1)));
    assert_eq!(resume.end, Some(StreamEnd::Released));

    assert_eq!(rows[5].content_type, "json");
    let err = &rows[6];
    assert_eq!(err.status, HttpStatus::Code(500));
    assert_eq!(err.content_type, "html");
    assert_eq!(err.frames, 1, "the HTML page is kept as a frame");
    assert!(
        err.failed
            .as_deref()
            .is_some_and(|f| f.contains("HTTP 500"))
    );
    assert_eq!(
        rows[7].stream_events(),
        ["primed", "open"].map(String::from)
    );
    assert!(app.view().offers(Pane::Network));
    assert!(app.view().shows_channels());
}

#[test]
fn network_view_extends_incrementally_and_follows_the_newest_exchange() {
    let sc = http_session();
    let mut app = app(&sc);
    app.apply(Action::FocusNetwork);
    assert_eq!(app.panes.network.cursor.selected, 7);
    sc.at_ms(950).inn_on(
        "post:6",
        json!({"jsonrpc": "2.0", "id": 4, "result": {"content": [], "isError": false}}),
    );
    sc.at_ms(950)
        .meta_on("post:6", json!({"event": "stream-end"}));
    sc.at_ms(960).meta_on("http", json!({"event": "http", "method": "DELETE", "status": 200, "session": "demo-00000001", "ms": 1}));
    app.sync();
    let rows = &app.panes.network.view.rows;
    assert_eq!(rows.len(), 9);
    assert_eq!(rows[7].frames, 2);
    assert_eq!(rows[7].end, Some(StreamEnd::Ended));
    assert_eq!(rows[8].rpc, "(end session)");
    assert_eq!(app.panes.network.cursor.selected, 8, "following");
    // Scrolling up stops following; a new exchange does not move the cursor.
    app.apply(Action::Up);
    assert!(!app.panes.network.follow);
    sc.at_ms(970).meta_on(
        "get",
        json!({"event": "http-error", "method": "GET", "error": "connection refused"}),
    );
    app.sync();
    assert_eq!(app.panes.network.cursor.selected, 7);
    let last = app.panes.network.view.rows.last().unwrap();
    assert_eq!(last.status, HttpStatus::Error("connection refused".into()));
    // The Raw pane shows the selected exchange's meta event.
    let seq = app.panes.network.view.rows[7].seq;
    assert_eq!(app.panes.raw.seq, Some(seq));
    app.apply(Action::Follow);
    app.sync();
    assert_eq!(app.panes.network.cursor.selected, 9);
}

#[test]
fn enter_on_an_exchange_shows_its_channel_in_the_timeline() {
    let sc = http_session();
    let mut app = app(&sc);
    app.apply(Action::FocusNetwork);
    app.apply(Action::Top);
    for _ in 0..3 {
        app.apply(Action::Down);
    }
    assert_eq!(app.panes.network.view.rows[3].channel, "post:3");
    app.apply(Action::ShowChannel);
    assert_eq!(app.shell.focus, Pane::Timeline);
    let channel_rows = |app: &App| -> Vec<(String, Option<String>)> {
        let store = sc.trace.read();
        let v = &app.panes.timeline.view;
        (0..v.len(&store))
            .map(|i| {
                let ev = store.get(v.seq_at(i, &store).unwrap()).unwrap();
                (ev.channel.to_string(), ev.method.map(str::to_string))
            })
            .collect()
    };
    let rows = channel_rows(&app);
    assert!(rows.iter().all(|(c, _)| c == "post:3"), "{rows:?}");
    let methods: Vec<&str> = rows
        .iter()
        .map(|(_, m)| m.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(
        methods,
        [
            "tools/call",
            "http",
            "sse-priming",
            "notifications/progress",
            "notifications/progress",
            "stream-end",
            "resume",
            "http",
            "notifications/progress",
            "notifications/progress",
            "tools/call",
            "stream-released"
        ]
    );
    assert_eq!(app.panes.timeline.cursor.selected, 0);
    // New events of that channel join, others do not.
    sc.at_ms(950)
        .meta_on("post:3", json!({"event": "stream-end"}));
    sc.at_ms(950)
        .meta_on("post:6", json!({"event": "stream-end"}));
    app.sync();
    assert_eq!(channel_rows(&app).len(), 13);
    // `a` shows every event again.
    app.apply(Action::ClearLane);
    let store_len = sc.trace.read().len() as usize;
    assert_eq!(app.panes.timeline.view.len(&sc.trace.read()), store_len);
}

#[test]
fn the_network_pane_is_offered_only_to_http_sessions() {
    let sc = mid_progress();
    let mut app = app(&sc);
    assert!(!app.view().offers(Pane::Network));
    assert!(!app.view().shows_channels());
    assert!(!app.view().tabs().any(|p| p == Pane::Network));
    // Tab never lands on it (Scope follows Findings)…
    app.apply(Action::FocusFindings);
    app.apply(Action::FocusNext);
    assert_eq!(app.shell.focus, Pane::Scope);
    app.apply(Action::FocusPrev);
    assert_eq!(app.shell.focus, Pane::Findings);
    // …but its key shows it (with nothing in it).
    key(&mut app, KeyCode::Char('8'));
    assert_eq!(app.shell.focus, Pane::Network);
    assert!(app.panes.network.view.is_empty());
    app.apply(Action::ShowChannel);
    assert_eq!(app.shell.focus, Pane::Network);
    assert_eq!(
        app.shell.notice.as_deref(),
        Some("no HTTP exchange selected")
    );
}

#[test]
fn stateless_cancel_legacy_sse_and_transport_failures_show_on_their_exchanges() {
    let sc = Scenario::new();
    // Legacy HTTP+SSE: the GET stream announces the POST endpoint.
    sc.at_ms(1).meta_on("sse", json!({"event": "http", "method": "GET", "status": 200, "content_type": "text/event-stream", "session": null, "ms": 3}));
    sc.at_ms(2).meta_on(
        "sse",
        json!({"event": "endpoint", "url": "http://127.0.0.1:9/messages?session=1"}),
    );
    // 2026-07-28: cancelling closes the call's response stream.
    sc.at_ms(10).out_on("post:1", json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "pipeline_wait", "arguments": {}}}));
    sc.at_ms(11).meta_on("post:1", json!({"event": "http", "method": "POST", "status": 200, "content_type": "text/event-stream", "session": null, "ms": 1}));
    sc.at_ms(50).meta_on("http", json!({"event": "cancel", "request": 7, "how": "closed the response stream", "reason": "cancelled by the user in mcpscope"}));
    // A 404 for a known session, and a POST that got no answer at all.
    sc.at_ms(60).out_on(
        "post:2",
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list"}),
    );
    sc.at_ms(61).meta_on("post:2", json!({"event": "http", "method": "POST", "status": 404, "content_type": "text/plain", "session": null, "ms": 1}));
    sc.at_ms(61)
        .meta_on("post:2", json!({"event": "session-expired", "status": 404}));
    sc.at_ms(70).out_on("post:3", json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "echo", "arguments": {}}}));
    sc.at_ms(80).meta_on("post:3", json!({"event": "http-error", "method": "POST", "error": "POST failed: connection refused"}));
    sc.at_ms(80).meta_on(
        "post:3",
        json!({"event": "failed", "request": 9, "error": "POST failed: connection refused"}),
    );
    let app = app(&sc);
    let rows = &app.panes.network.view.rows;
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[0].rpc, "(legacy SSE stream)");
    assert_eq!(
        rows[0].endpoint.as_deref(),
        Some("http://127.0.0.1:9/messages?session=1")
    );
    assert_eq!(rows[1].end, Some(StreamEnd::Cancelled));
    assert!(
        rows[1]
            .stream_events()
            .contains(&"cancelled (stream closed)".to_string())
    );
    assert!(rows[2].expired);
    assert_eq!(rows[2].status, HttpStatus::Code(404));
    assert_eq!(
        rows[3].status,
        HttpStatus::Error("POST failed: connection refused".into())
    );
    assert_eq!(rows[3].status.label(), "ERR");
    // The calls: cancelled by closing the stream, failed by the transport.
    let c = app.panes.progress.calls.get(&IdKey::Int(7)).unwrap();
    assert_eq!(c.status, CallStatus::Cancelled);
    assert_eq!(
        c.note,
        "cancelled by the user in mcpscope (closed the response stream)"
    );
    let c = app.panes.progress.calls.get(&IdKey::Int(9)).unwrap();
    assert_eq!(c.status, CallStatus::Failed);
    assert_eq!(c.note, "POST failed: connection refused");
}

#[test]
fn the_authorization_flow_is_rows_in_the_network_pane_and_a_state_in_the_header() {
    let sc = Scenario::new();
    sc.at_ms(1).out_on("post:1", json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "mcpscope", "version": "0"}}}));
    sc.at_ms(2).meta_on("post:1", json!({"event": "http", "method": "POST", "status": 401, "content_type": "application/json", "session": null, "ms": 1, "challenge": "Bearer resource_metadata=\"http://127.0.0.1:8181/.well-known/oauth-protected-resource/mcp\""}));
    sc.at_ms(3).meta_on(
        "auth",
        json!({"event": "auth", "state": "authorizing", "detail": "authorization needed for http://127.0.0.1:8181/mcp"}),
    );
    let step = |ms: u64, step: &str, method: &str, url: &str, status: u16| {
        sc.at_ms(ms).meta_on(
            "auth",
            json!({"event": "auth-http", "step": step, "method": method, "url": url, "status": status, "ms": 2}),
        );
    };
    step(
        4,
        "resource-metadata",
        "GET",
        "http://127.0.0.1:8181/.well-known/oauth-protected-resource/mcp",
        200,
    );
    step(
        6,
        "server-metadata",
        "GET",
        "http://127.0.0.1:8181/.well-known/oauth-authorization-server",
        200,
    );
    step(8, "register", "POST", "http://127.0.0.1:8181/register", 201);
    let mut app = http_app(&sc);
    render(&mut app, 160, 30);
    let header = render(&mut app, 160, 30)
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert!(header.contains("⚿ authorizing…"), "{header}");
    step(
        9,
        "authorize",
        "GET",
        "http://127.0.0.1:8181/authorize",
        302,
    );
    step(10, "token", "POST", "http://127.0.0.1:8181/token", 200);
    sc.at_ms(11).meta_on(
        "auth",
        json!({"event": "auth", "state": "authorized", "detail": "client fixture-client (dynamic), scope \"mcp:tools\", expires in 3600s, refreshable"}),
    );
    sc.at_ms(12).meta_on("post:1", json!({"event": "http", "method": "POST", "status": 200, "content_type": "application/json", "session": null, "ms": 1}));
    let screen = render(&mut app, 160, 30);
    let header = screen.lines().next().unwrap();
    assert!(
        header.contains("⚿ authorized as fixture-client"),
        "{header}"
    );
    let rows = &app.panes.network.view.rows;
    let auth: Vec<(String, String, String)> = rows
        .iter()
        .filter(|r| r.channel == "auth")
        .map(|r| (r.method.clone(), r.status.label(), r.rpc.clone()))
        .collect();
    assert_eq!(
        auth,
        [
            ("GET", "200", "auth resource-metadata http://127.0.0.1:8181/.well-known/oauth-protected-resource/mcp"),
            ("GET", "200", "auth server-metadata http://127.0.0.1:8181/.well-known/oauth-authorization-server"),
            ("POST", "201", "auth register http://127.0.0.1:8181/register"),
            ("GET", "302", "auth authorize http://127.0.0.1:8181/authorize"),
            ("POST", "200", "auth token http://127.0.0.1:8181/token"),
        ]
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
    );
    assert!(rows.iter().all(|r| r.ms.is_some()));
    sc.at_ms(20).meta_on(
        "auth",
        json!({"event": "auth", "state": "expired", "detail": "the server refused the access token"}),
    );
    let header = render(&mut app, 160, 30)
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert!(header.contains("⚿ token expired"), "{header}");
}
