//! Restarting a dead session: the key is offered (in the status line, and
//! it acts) only once the server exited or the connection failed, in a live
//! session; it asks the runtime for a new session, and everything on
//! screen stays, with the `restart` marker in the Timeline between the two
//! sessions.

use crate::support::*;
use mcpscope::tui::calls::CallStatus;
use mcpscope::tui::shell::Conn;

const F5: KeyCode = KeyCode::F(5);

/// The status line: the last row of a render.
fn status_line(app: &mut App) -> String {
    let screen = render(app, 160, 48);
    screen.lines().last().unwrap_or_default().to_string()
}

/// A session whose call is in flight when the server exits with 70.
fn crashed() -> (Scenario, App) {
    let sc = Scenario::new();
    sc.at_ms(1)
        .meta(json!({"event": "spawn", "argv": ["mcpscope", "demo-server"], "pid": 4242}));
    sc.at_ms(2).out(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}));
    sc.at_ms(9).inn(json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "mcpscope-demo", "version": "0.1.0"}}}));
    sc.at_ms(100)
        .call(1, "echo", json!({"text": "hi"}), Some(json!("mcpscope-1")));
    let mut app = app(&sc);
    // What the user typed in the Composer stays across the restart.
    app.apply(Action::FocusTools);
    app.apply(Action::Filter);
    typed(&mut app, "echo");
    key(&mut app, KeyCode::Enter);
    app.apply(Action::UseTool);
    app.apply(Action::Edit);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::End);
    key(&mut app, KeyCode::Left);
    typed(&mut app, "kept");
    key(&mut app, KeyCode::Esc);
    app.apply(Action::FocusProgress);
    assert_eq!(app.panes.composer.text(), "{\n  \"text\": \"kept\"\n}");
    let running = status_line(&mut app);
    assert!(!running.contains("restart"), "{running}");
    assert!(key(&mut app, F5).is_empty(), "no restart while it runs");
    assert!(
        app.shell
            .notice
            .as_deref()
            .unwrap()
            .starts_with("the server is running"),
        "{:?}",
        app.shell.notice
    );
    sc.at_ms(200)
        .meta(json!({"event": "exit", "code": 70, "signal": null}));
    app.sync();
    (sc, app)
}

#[test]
fn a_dead_server_is_restarted_with_the_history_and_the_composer_kept() {
    let (sc, mut app) = crashed();
    assert_eq!(
        app.shell.conn,
        Conn::Exited("the server exited with status 70".into())
    );
    assert_eq!(status(&app, 1), CallStatus::Crashed);
    let dead = status_line(&mut app);
    assert!(dead.contains("F5 restart"), "{dead}");

    assert_eq!(key(&mut app, F5), vec![Effect::Restart { attempt: 1 }]);
    assert_eq!(app.shell.conn, Conn::Starting);
    assert!(
        app.shell
            .notice
            .as_deref()
            .unwrap()
            .starts_with("restarting the server (restart 1)")
    );
    assert!(
        key(&mut app, F5).is_empty(),
        "one restart at a time: {:?}",
        app.shell.notice
    );
    assert!(!status_line(&mut app).contains("F5 restart"));
    assert!(
        app.apply(Action::Send).is_empty(),
        "nothing is sent meanwhile"
    );
    assert!(
        app.shell
            .notice
            .as_deref()
            .unwrap()
            .starts_with("not sent: the server is restarting")
    );

    // The runtime: the marker, then the new session (its ids go on).
    let marker = sc
        .at_ms(300)
        .meta(json!({"event": "restart", "attempt": 1}));
    app.on_msg(Msg::Restarted {
        attempt: 1,
        seq: marker,
    });
    sc.at_ms(301)
        .meta(json!({"event": "spawn", "argv": ["mcpscope", "demo-server"], "pid": 4243}));
    sc.at_ms(302).out(json!({"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}));
    sc.at_ms(309).inn(json!({"jsonrpc": "2.0", "id": 2, "result": {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}, "serverInfo": {"name": "mcpscope-demo", "version": "0.1.0"}}}));
    app.on_msg(Msg::Handshake(Ok(init_result())));
    app.on_msg(Msg::Tools(Ok(tools())));
    assert_eq!(app.shell.conn, Conn::Ready);
    assert_eq!(app.panes.composer.text(), "{\n  \"text\": \"kept\"\n}");
    assert_eq!(app.panes.composer.tool.as_deref(), Some("echo"));

    let effects = app.apply(Action::Send);
    assert!(
        matches!(&effects[..], [Effect::Call { tool, args, .. }] if tool == "echo" && args == &json!({"text": "kept"})),
        "{effects:?}"
    );
    sc.at_ms(400).call(
        3,
        "echo",
        json!({"text": "kept"}),
        Some(json!("mcpscope-2")),
    );
    sc.at_ms(410).result(3, "kept", false);
    app.sync();
    // Both sessions' calls, each as it ended.
    assert_eq!(status(&app, 1), CallStatus::Crashed);
    assert_eq!(status(&app, 3), CallStatus::Done);
    assert!(!status_line(&mut app).contains("restart"));

    // The marker is a row of the Timeline, between the two sessions.
    app.apply(Action::FocusTimeline);
    let screen = render(&mut app, 160, 48);
    let rows: Vec<&str> = screen.lines().collect();
    let at = |needle: &str| {
        rows.iter()
            .position(|r| r.contains(needle))
            .unwrap_or_else(|| panic!("no {needle:?} in\n{screen}"))
    };
    let restart = at("restart");
    assert!(rows[restart].contains("attempt=1"), "{screen}");
    assert!(at("exit") < restart, "{screen}");
    // The second session's handshake follows it.
    let reinit = rows
        .iter()
        .rposition(|r| r.contains("→ req") && r.contains("initialize"))
        .unwrap_or_else(|| panic!("no initialize in\n{screen}"));
    assert!(restart < reinit, "{screen}");
}

#[test]
fn an_exit_the_restart_causes_is_not_the_new_session_ending() {
    // The handshake failed with the process still there: the restart
    // stops it, and its exit is recorded while the restart is under way.
    let sc = Scenario::new();
    let mut app = App::new(sc.trace.clone(), AppOptions::default());
    let long = format!("handshake failed: {}", "the server said no ".repeat(20));
    app.on_msg(Msg::Handshake(Err(long)));
    assert!(app.shell.conn.ended());
    let failed = status_line(&mut app);
    assert!(
        failed.starts_with(" F5 restart │ connection failed"),
        "the key before the long error: {failed}"
    );
    assert_eq!(key(&mut app, F5), vec![Effect::Restart { attempt: 1 }]);
    assert!(
        app.shell
            .notice
            .as_deref()
            .unwrap()
            .starts_with("restarting the server")
    );
    sc.at_ms(10)
        .meta(json!({"event": "exit", "code": null, "signal": 15}));
    app.sync();
    assert_eq!(app.shell.conn, Conn::Starting, "the old server's exit");
    let marker = sc.at_ms(11).meta(json!({"event": "restart", "attempt": 1}));
    app.on_msg(Msg::Restarted {
        attempt: 1,
        seq: marker,
    });
    app.on_msg(Msg::Handshake(Ok(init_result())));
    assert_eq!(app.shell.conn, Conn::Ready);
    // The new server's own exit ends the new session: a second restart.
    sc.at_ms(20)
        .meta(json!({"event": "exit", "code": 1, "signal": null}));
    app.sync();
    assert!(app.shell.conn.ended(), "{:?}", app.shell.conn);
    assert_eq!(key(&mut app, F5), vec![Effect::Restart { attempt: 2 }]);
}

#[test]
fn a_recorded_session_has_nothing_to_restart() {
    let sc = Scenario::new();
    sc.at_ms(1)
        .meta(json!({"event": "exit", "code": 70, "signal": null}));
    let mut app = App::new(
        sc.trace.clone(),
        AppOptions {
            live: false,
            ..AppOptions::default()
        },
    );
    app.sync();
    assert!(!status_line(&mut app).contains("restart"));
    assert!(key(&mut app, F5).is_empty());
    assert!(
        app.shell
            .notice
            .as_deref()
            .unwrap()
            .starts_with("nothing to restart")
    );
}

#[test]
fn the_help_lists_the_restart_key_where_it_works() {
    let (_sc, mut app) = crashed();
    app.apply(Action::Help);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("F5"), "{screen}");
    key(&mut app, KeyCode::Esc);
    key(&mut app, F5);
    app.apply(Action::Help);
    let screen = render(&mut app, 160, 48);
    assert!(!screen.contains("F5"), "restarting: {screen}");
}

#[test]
fn over_http_the_restart_connects_again() {
    let sc = Scenario::new();
    let mut app = http_app(&sc);
    app.on_msg(Msg::Handshake(
        Err("POST failed: connection refused".into()),
    ));
    assert!(status_line(&mut app).contains("F5 restart"));
    assert_eq!(key(&mut app, F5), vec![Effect::Restart { attempt: 1 }]);
    assert!(
        app.shell
            .notice
            .as_deref()
            .unwrap()
            .starts_with("connecting to the server again (restart 1)"),
        "{:?}",
        app.shell.notice
    );
}

/// An HTTP server that cannot be reached any more after a good handshake
/// (a call's POST was refused a connection) is as dead as an exited stdio
/// server: the header says so and F5 is offered; in a recorded session the
/// same message changes nothing.
#[test]
fn an_unreachable_http_server_offers_the_restart() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    assert!(!app.shell.conn.ended());
    assert!(key(&mut app, F5).is_empty(), "nothing to restart yet");
    let why = "tools/call failed: POST failed: error sending request: tcp connect error: Connection refused (os error 111)";
    app.on_msg(Msg::ServerLost(why.into()));
    assert!(app.shell.conn.ended());
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.lines().next().unwrap().contains("unreachable"),
        "{screen}"
    );
    assert!(status_line(&mut app).contains("F5 restart"));
    assert_eq!(key(&mut app, F5), vec![Effect::Restart { attempt: 1 }]);

    let mut replay = App::new(
        sc.trace.clone(),
        AppOptions {
            live: false,
            ..AppOptions::default()
        },
    );
    replay.on_msg(Msg::ServerLost(why.into()));
    assert!(!replay.shell.conn.ended());
}

/// Sending after the server died sends nothing (no failed row is added):
/// the status line says to restart it first.
#[test]
fn send_after_the_server_died_says_to_restart_it_and_sends_nothing() {
    let (_sc, mut app) = crashed();
    let rows = app.panes.progress.calls.list.len();
    app.apply(Action::FocusComposer);
    assert!(app.apply(Action::Send).is_empty(), "nothing is sent");
    let notice = app.shell.notice.clone().unwrap_or_default();
    assert!(
        notice.contains("the server has stopped") && notice.contains("F5"),
        "{notice}"
    );
    app.sync();
    assert_eq!(app.panes.progress.calls.list.len(), rows, "no row added");
}
