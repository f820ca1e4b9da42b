//! State and update logic of the TUI, driven by actions and keys with no
//! terminal: call tracking, follow mode, filters, lanes, logs, composer,
//! cancellation, `--run`.

mod tui_support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use mcpscope::client::{Limits, TokenPolicy};
use mcpscope::protocol::IdKey;
use mcpscope::protocol::views::LogLevel;
use mcpscope::tui::action::{Action, Effect, Msg};
use mcpscope::tui::calls::{ByteMode, CallStatus, Gauge};
use mcpscope::tui::state::{Conn, Pane};
use mcpscope::tui::views::KindFilter;
use mcpscope::tui::{App, AppOptions};
use serde_json::json;
use tui_support::*;

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn type_text(app: &mut App, s: &str) {
    for c in s.chars() {
        app.handle_key(key(c));
    }
}

fn status(app: &App, id: i64) -> CallStatus {
    app.state.calls.get(&IdKey::Int(id)).expect("call").status
}

#[test]
fn calls_are_found_in_the_trace_and_keep_their_final_state() {
    let sc = mid_progress();
    let mut app = app(&sc);
    assert_eq!(app.state.calls.list.len(), 5);
    assert_eq!(status(&app, 1), CallStatus::Running);
    assert_eq!(status(&app, 4), CallStatus::Done);
    assert_eq!(
        status(&app, 5),
        CallStatus::Cancelled,
        "a late response does not undo the cancel"
    );
    assert_eq!(app.state.calls.running(), 3);

    sc.at_ms(1500).result(1, "uploaded", false);
    sc.at_ms(1510)
        .inn(json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [], "isError": true}}));
    sc.at_ms(1520).meta(json!({"event": "timeout", "request": 3, "method": "tools/call", "limit": "idle", "secs": 1.0}));
    app.sync();
    assert_eq!(status(&app, 1), CallStatus::Done);
    assert_eq!(status(&app, 2), CallStatus::ToolError);
    assert_eq!(status(&app, 3), CallStatus::TimedOut);
    let c = app.state.calls.get(&IdKey::Int(1)).unwrap();
    assert_eq!(c.end_us, Some(1_500_000));
    assert_eq!(c.sent_us, 100_000);
}

#[test]
fn a_server_exit_crashes_running_calls_and_shows_in_the_header() {
    let sc = mid_progress();
    let mut app = app(&sc);
    sc.at_ms(2000)
        .meta(json!({"event": "exit", "code": null, "signal": 9}));
    app.sync();
    assert_eq!(status(&app, 1), CallStatus::Crashed);
    assert_eq!(status(&app, 4), CallStatus::Done);
    assert!(matches!(&app.state.conn, Conn::Exited(why) if why.contains("signal 9")));
}

#[test]
fn gauges_read_bytes_steps_rates_and_etas() {
    let sc = mid_progress();
    let app = app(&sc);
    let store = sc.trace.read();
    let upload = app.state.calls.get(&IdKey::Int(1)).unwrap();
    let g = Gauge::of(upload, &store, ByteMode::Auto);
    assert_eq!(g.notifications, 4);
    assert!(g.bytes);
    assert_eq!(g.progress, Some(2_097_152.0));
    assert_eq!(g.ratio(), Some(0.4));
    assert_eq!(g.first_us, Some(350_000));
    // 3 chunks of 512 KiB in 750 ms.
    assert_eq!(g.rate.map(|r| r.round()), Some(2_097_152.0));
    assert_eq!(g.eta_us(), Some(1_500_000));
    assert!(!Gauge::of(upload, &store, ByteMode::Plain).bytes);

    let wizard = app.state.calls.get(&IdKey::Int(3)).unwrap();
    let g = Gauge::of(wizard, &store, ByteMode::Auto);
    assert!(g.zero_based_steps);
    assert_eq!((g.progress, g.total), (Some(1.0), Some(3.0)));

    let ctx = app.state.calls.get(&IdKey::Int(2)).unwrap();
    let g = Gauge::of(ctx, &store, ByteMode::Auto);
    assert_eq!((g.notifications, g.total, g.ratio()), (3, None, None));
    assert_eq!(
        g.message.as_deref(),
        Some("[discovering] routing_confirmed")
    );
}

#[test]
fn follow_mode_stops_when_scrolling_and_resumes_at_the_end() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusTimeline);
    let len = sc.trace.read().len() as usize;
    assert!(app.state.timeline.follow);
    assert_eq!(app.state.timeline.cursor.selected, len - 1);
    app.apply(Action::Up);
    assert!(!app.state.timeline.follow);
    let held = app.state.timeline.cursor.selected;
    sc.at_ms(1500).log("info", "x", json!("more"));
    app.sync();
    assert_eq!(
        app.state.timeline.cursor.selected, held,
        "paused: new events do not move the selection"
    );
    app.apply(Action::Bottom);
    assert!(app.state.timeline.follow);
    sc.at_ms(1600).log("info", "x", json!("even more"));
    app.sync();
    assert_eq!(app.state.timeline.cursor.selected, len + 1);
    // The Raw pane follows the timeline's selection.
    assert_eq!(app.state.raw.seq, Some(len as u64 + 1));
}

#[test]
fn kind_and_text_filters_are_incremental() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusTimeline);
    // all → calls → notifications → progress
    for _ in 0..3 {
        app.apply(Action::CycleKind);
    }
    assert_eq!(app.state.timeline.view.kind, KindFilter::Progress);
    let store_len = |app: &App| {
        let s = sc.trace.read();
        app.state.timeline.view.len(&s)
    };
    assert_eq!(store_len(&app), 10);
    sc.at_ms(1500).progress(
        json!("mcpscope-2"),
        4.0,
        None,
        "[generating] model_resolution",
    );
    sc.at_ms(1501).log("info", "t", json!("not progress"));
    app.sync();
    assert_eq!(store_len(&app), 11, "new matching events extend the view");

    app.apply(Action::Filter);
    type_text(&mut app, "GENERATING");
    assert_eq!(
        store_len(&app),
        1,
        "the text filter is case-insensitive and applies while typing"
    );
    app.handle_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert_eq!(store_len(&app), 11, "Esc restores the previous filter");
    app.apply(Action::CycleKindBack);
    app.apply(Action::CycleKindBack);
    app.apply(Action::CycleKindBack);
    assert_eq!(app.state.timeline.view.kind, KindFilter::All);
    assert_eq!(store_len(&app), sc.trace.read().len() as usize);

    for _ in 0..KindFilter::ORDER.len() - 1 {
        app.apply(Action::CycleKind);
    }
    assert_eq!(app.state.timeline.view.kind, KindFilter::Problems);
    assert_eq!(
        store_len(&app),
        2,
        "the line that is not JSON, the late response"
    );
}

#[test]
fn a_lane_shows_one_request_and_flags_what_came_after_its_response() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::Top);
    app.apply(Action::ShowLane);
    assert_eq!(app.state.focus, Pane::Timeline);
    let lane = app.state.timeline.view.lane.clone().expect("lane");
    assert_eq!(lane.id, IdKey::Int(1));
    assert_eq!(lane.seqs.len(), 5, "request + 4 progress");
    sc.at_ms(1500).result(1, "done", false);
    sc.at_ms(1510)
        .progress(json!("mcpscope-1"), 5_242_880.0, Some(5_242_880.0), "late");
    sc.at_ms(1520).log("info", "x", json!("unrelated"));
    app.sync();
    let lane = app.state.timeline.view.lane.clone().unwrap();
    assert_eq!(lane.seqs.len(), 7);
    let store = sc.trace.read();
    let resp = lane.response_seq(&store).unwrap();
    assert_eq!(
        lane.seqs.iter().filter(|s| **s > resp).count(),
        1,
        "the late progress"
    );
    drop(store);
    app.apply(Action::ClearLane);
    assert!(app.state.timeline.view.lane.is_none());
}

#[test]
fn logs_filter_by_level_text_and_source() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusLogs);
    assert_eq!(app.state.logs.view.len(), 5, "4 messages + 1 stderr line");
    app.apply(Action::LevelUp);
    app.apply(Action::LevelUp);
    app.apply(Action::LevelUp);
    assert_eq!(app.state.logs.view.min, LogLevel::Warning);
    assert_eq!(app.state.logs.view.len(), 3, "warning, error, stderr");
    app.apply(Action::ToggleStderr);
    assert_eq!(app.state.logs.view.len(), 2);
    app.apply(Action::LevelDown);
    app.apply(Action::Filter);
    type_text(&mut app, "flaky");
    app.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert_eq!(app.state.logs.view.len(), 1);
    app.apply(Action::Top);
    app.apply(Action::Expand);
    let (_, lines) = app.state.logs.expanded.as_ref().expect("expanded");
    assert!(lines.len() > 3, "the data object is pretty-printed");
    app.apply(Action::Expand);
    assert!(app.state.logs.expanded.is_none());
}

#[test]
fn composer_prefills_validates_and_sends() {
    let sc = mid_progress();
    let mut app = app(&sc);
    assert_eq!(app.state.composer.tool.as_deref(), Some("upload_file"));
    assert!(
        app.state
            .composer
            .text()
            .contains("\"size_bytes\": 5242880")
    );

    // Pick echo through the tools filter, then load it.
    app.apply(Action::FocusTools);
    app.apply(Action::Filter);
    type_text(&mut app, "echo");
    app.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    app.apply(Action::UseTool);
    assert_eq!(app.state.focus, Pane::Composer);
    assert_eq!(app.state.composer.tool.as_deref(), Some("echo"));
    assert_eq!(app.state.composer.text(), "{\n  \"text\": \"\"\n}");

    // Break the JSON: sending is refused with the parser's position.
    app.apply(Action::Edit);
    app.handle_key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
    app.handle_key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE));
    type_text(&mut app, ",");
    assert!(
        app.state
            .composer
            .check
            .error
            .as_deref()
            .unwrap()
            .starts_with("line 3")
    );
    let ctrl_s = KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL);
    assert!(app.handle_key(ctrl_s).is_empty());
    assert!(app.state.notice.as_deref().unwrap().starts_with("not sent"));
    app.handle_key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE));
    app.handle_key(KeyEvent::new(KeyCode::Left, KeyModifiers::NONE));
    type_text(&mut app, "hey");
    assert_eq!(app.state.composer.check.error, None);
    app.handle_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert!(!app.state.composer.editing);

    app.apply(Action::CycleToken); // auto int
    app.apply(Action::CycleLogLevel); // debug
    app.apply(Action::IdleDown); // 30 s
    let effects = app.apply(Action::Send);
    assert_eq!(
        effects,
        vec![Effect::Call {
            tool: "echo".into(),
            args: json!({"text": "hey"}),
            token: TokenPolicy::AutoInt,
            level: Some(LogLevel::Debug),
            limits: Limits {
                idle: Some(std::time::Duration::from_secs(30)),
                max: Some(std::time::Duration::from_secs(600)),
            },
        }]
    );
    let cmd = app.state.composer.command_line(&app.state.server_cli);
    assert_eq!(
        cmd,
        r#"mcpscope call --demo --tool echo --args '{"text":"hey"}' --token auto-int --log-level debug --timeout 30"#
    );
    let copied = app.apply(Action::CopyCommand);
    assert_eq!(copied, vec![Effect::Copy(cmd)]);

    // Arguments typed for a tool survive switching away and back.
    app.apply(Action::FocusTools);
    app.apply(Action::ClearFilter);
    app.apply(Action::Top);
    app.apply(Action::UseTool);
    app.apply(Action::FocusTools);
    app.apply(Action::Filter);
    type_text(&mut app, "echo");
    app.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    app.apply(Action::UseTool);
    assert!(app.state.composer.text().contains("hey"));
}

#[test]
fn raw_mode_sends_requests_and_notifications() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusComposer);
    app.apply(Action::ToggleRawMode);
    let e = app.apply(Action::Send);
    assert!(
        matches!(&e[..], [Effect::Raw { id: Some(IdKey::Str(s)), method, .. }] if &**s == "raw-1" && method == "ping")
    );
    // Remove the id line: a notification.
    app.apply(Action::Edit);
    app.handle_key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
    app.handle_key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
    app.handle_key(KeyEvent::new(KeyCode::End, KeyModifiers::NONE));
    for _ in 0..16 {
        app.handle_key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE));
    }
    assert_eq!(
        app.state.composer.check.error,
        None,
        "{}",
        app.state.composer.text()
    );
    let e = app.apply(Action::Send);
    assert!(
        matches!(&e[..], [Effect::Raw { id: None, method, .. }] if method == "ping"),
        "{e:?}"
    );
}

#[test]
fn cancel_targets_the_selected_running_call() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::Top);
    assert_eq!(
        app.apply(Action::CancelCall),
        vec![Effect::Cancel { id: IdKey::Int(1) }]
    );
    app.apply(Action::Down);
    app.apply(Action::Down);
    app.apply(Action::Down); // echo, finished
    assert!(app.apply(Action::CancelCall).is_empty());
    assert!(
        app.state
            .notice
            .as_deref()
            .unwrap()
            .contains("already done")
    );
    // From the timeline: a progress row names its call through the token.
    app.apply(Action::FocusTimeline);
    let pos = {
        let store = sc.trace.read();
        let seq = store.token_seqs(&IdKey::Str("mcpscope-2".into()))[1];
        app.state.timeline.view.position_of(seq, &store)
    };
    app.apply(Action::Top);
    for _ in 0..pos {
        app.apply(Action::Down);
    }
    assert_eq!(
        app.apply(Action::CancelCall),
        vec![Effect::Cancel { id: IdKey::Int(2) }]
    );
}

#[test]
fn runs_fire_once_the_tools_are_known_and_offline_apps_send_nothing() {
    let sc = Scenario::new();
    let run = mcpscope::tui::app::parse_run(r#"upload_file {"size_bytes": 1024}"#).unwrap();
    assert!(mcpscope::tui::app::parse_run("x [1]").is_err());
    assert!(mcpscope::tui::app::parse_run("x {").is_err());
    assert_eq!(mcpscope::tui::app::parse_run("echo").unwrap().1, json!({}));
    let mut app = App::new(
        sc.trace.clone(),
        AppOptions {
            runs: vec![run],
            ..AppOptions::default()
        },
    );
    assert!(app.on_msg(Msg::Handshake(Ok(init_result()))).is_empty());
    let fired = app.on_msg(Msg::Tools(Ok(tools())));
    assert!(
        matches!(&fired[..], [Effect::Call { tool, args, .. }] if tool == "upload_file" && args["size_bytes"] == 1024)
    );
    assert!(
        app.on_msg(Msg::Tools(Ok(tools()))).is_empty(),
        "runs fire once"
    );

    let mut offline = App::new(
        sc.trace.clone(),
        AppOptions {
            live: false,
            ..AppOptions::default()
        },
    );
    offline.set_tools(&tools());
    assert_eq!(offline.state.conn, Conn::Offline);
    assert!(offline.apply(Action::Send).is_empty());
    assert!(
        offline
            .state
            .notice
            .as_deref()
            .unwrap()
            .contains("recorded trace")
    );
}

#[test]
fn keys_help_zoom_focus_and_mouse() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.handle_key(key('?'));
    assert!(app.state.help.is_some());
    app.handle_key(key('j'));
    assert_eq!(app.state.help, Some(1));
    app.handle_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert!(app.state.help.is_none());
    app.handle_key(key('3'));
    assert_eq!(app.state.focus, Pane::Logs);
    app.handle_key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
    assert_eq!(app.state.focus, Pane::Raw);
    app.handle_key(key('z'));
    assert!(app.state.zoom);
    app.handle_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert!(!app.state.zoom);

    // A click in the Timeline focuses it and selects the row under the pointer.
    app.resize(160, 48);
    let r = app.layout().rect(Pane::Timeline).unwrap();
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: r.x + 5,
        row: r.y + 3,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.state.focus, Pane::Timeline);
    let len = app.state.timeline.view.len(&sc.trace.read());
    let h = (r.height - 3) as usize;
    assert_eq!(app.state.timeline.cursor.selected, len - h + 1);
    assert!(!app.state.timeline.follow);
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::ScrollUp,
        column: r.x + 5,
        row: r.y + 3,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.state.timeline.cursor.selected, len - h - 2);
    app.handle_key(key('q'));
    assert!(app.should_quit());
}

#[test]
fn raw_pane_searches_and_switches_to_exact_bytes() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusTimeline);
    app.apply(Action::Top);
    app.apply(Action::Down); // initialize request
    app.apply(Action::FocusRaw);
    assert!(app.state.raw.lines.len() > 3);
    app.apply(Action::Search);
    type_text(&mut app, "protocolversion");
    app.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    assert_eq!(app.state.raw.matches.len(), 1);
    app.apply(Action::ToggleBytes);
    let shown: String = app
        .state
        .raw
        .lines
        .iter()
        .map(|l| mcpscope::tui::jsonfmt::line_text(l))
        .collect();
    let frame = sc
        .trace
        .read()
        .get(app.state.raw.seq.unwrap())
        .unwrap()
        .text()
        .into_owned();
    assert_eq!(shown, frame, "exact bytes, cut into lines only");
    let copied = app.apply(Action::Copy);
    assert_eq!(copied, vec![Effect::Copy(frame)]);
}
