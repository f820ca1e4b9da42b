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
            task: false,
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
        let seq = store
            .token_seqs(&IdKey::Str("mcpscope-2".into()))
            .nth(1)
            .expect("a second seq");
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
    // Nothing can be sent: no Composer on screen, in the tabs or in focus.
    let wide =
        mcpscope::tui::layout::compute(ratatui::layout::Rect::new(0, 0, 160, 48), &offline.state);
    assert!(wide.panes.iter().all(|(p, _)| *p != Pane::Composer));
    let (_, tools) = wide.panes[0];
    assert_eq!(
        (wide.panes[0].0, tools.height),
        (Pane::Tools, 46),
        "the whole column"
    );
    assert!(offline.state.tabs().all(|p| p != Pane::Composer));
    offline.apply(Action::FocusComposer);
    assert_ne!(offline.state.focus, Pane::Composer);
    assert!(
        offline
            .state
            .notice
            .as_deref()
            .unwrap()
            .contains("read-only")
    );
    for _ in 0..10 {
        offline.apply(Action::FocusNext);
        assert_ne!(offline.state.focus, Pane::Composer);
    }
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

// ------------------------------------------------------------ findings

fn findings_app() -> (Scenario, App) {
    let sc = with_faults();
    let mut app = app(&sc);
    app.add_findings(check_all(&sc));
    (sc, app)
}

#[test]
fn a_finding_about_one_host_session_names_it_in_the_list() {
    let sc = with_faults();
    let mut app = app(&sc);
    let mut found = check_all(&sc);
    for f in &mut found {
        f.session = Some("7f3a9c01-4d2e-4b7e-9a1c-0e5d2b8f6a10".into());
    }
    app.add_findings(found);
    app.apply(Action::FocusFindings);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("[7f3a9c01-4d2…]"), "{screen}");
}

#[test]
fn findings_are_counted_flagged_and_listed() {
    let (sc, app) = findings_app();
    let f = &app.state.findings;
    assert!(f.counts.error >= 1, "{:?}", f.list);
    assert!(f.counts.warning >= 1, "{:?}", f.list);
    let not_inc = f
        .list
        .iter()
        .find(|x| x.rule.id() == "progress-not-increasing")
        .expect("the upload went backwards");
    assert_eq!(
        not_inc.seqs.len(),
        2,
        "the previous and the offending frame"
    );
    for s in &not_inc.seqs {
        let flag = f.flag(*s).expect("flagged");
        assert_eq!(flag.severity, mcpscope::checks::Severity::Error);
    }
    // Frames no finding names carry no flag.
    let store = sc.trace.read();
    assert!(f.flag(0).is_none() && store.next_seq() > 0);
}

#[test]
fn enter_on_a_finding_cycles_through_its_frames_in_timeline_and_raw() {
    let (sc, mut app) = findings_app();
    app.apply(Action::FocusFindings);
    assert_eq!(app.state.focus, Pane::Findings);
    let i = app
        .state
        .findings
        .list
        .iter()
        .position(|x| x.rule.id() == "progress-not-increasing")
        .unwrap();
    app.apply(Action::Top);
    for _ in 0..i {
        app.apply(Action::Down);
    }
    let seqs = app.state.findings.list[i].seqs.clone();
    // A filter that hides the frame is dropped to show it.
    app.state.timeline.view.set_filter(KindFilter::Logs, "");
    for round in 0..2 {
        for s in &seqs {
            app.apply(Action::ShowFrame);
            let store = sc.trace.read();
            let tl = &app.state.timeline;
            assert_eq!(
                tl.view.seq_at(tl.cursor.selected, &store),
                Some(*s),
                "round {round}"
            );
            assert!(!tl.follow);
            drop(store);
            assert_eq!(app.state.raw.seq, Some(*s), "Raw shows the frame");
        }
    }
    assert_eq!(app.state.timeline.view.kind, KindFilter::All);
    assert!(
        app.state
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("progress-not-increasing")),
        "{:?}",
        app.state.notice
    );
    // Moving to another finding starts again from its first frame.
    app.apply(Action::ShowFrame);
    app.apply(Action::Up);
    app.apply(Action::Down);
    app.apply(Action::ShowFrame);
    assert_eq!(app.state.raw.seq, Some(seqs[0]));
    // The cursor stays inside the list.
    for _ in 0..50 {
        app.apply(Action::Down);
    }
    assert_eq!(
        app.state.findings.cursor.selected,
        app.state.findings.list.len() - 1
    );
}

#[test]
fn findings_arrive_as_messages_and_the_pane_appears_in_the_wide_layout() {
    let sc = with_faults();
    let mut app = app(&sc);
    app.resize(160, 48);
    assert!(
        app.layout().rect(Pane::Findings).is_none(),
        "no findings, no pane"
    );
    app.on_msg(Msg::Findings(check_all(&sc)));
    assert!(app.layout().rect(Pane::Findings).is_some());
    app.resize(80, 24);
    app.apply(Action::FocusFindings);
    assert_eq!(
        app.layout().panes.len(),
        1,
        "narrow: one pane under the tabs"
    );
    assert_eq!(app.layout().panes[0].0, Pane::Findings);
}

#[test]
fn details_show_timing_statistics_of_the_selected_call() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::Details);
    assert!(app.state.progress_details);
    // The upload: notifications at 350, 600, 850 and 1100 ms after a request at 100 ms.
    let tm = &app.state.timing;
    assert_eq!(tm.id, Some(IdKey::Int(1)));
    assert_eq!(tm.count, 4);
    assert_eq!(tm.first_after_us(), Some(250_000));
    assert_eq!(tm.min_gap_us, Some(250_000));
    assert_eq!(tm.median_gap_us(), Some(250_000));
    assert_eq!(tm.max_gap_us, Some(250_000));
    // New notifications extend the numbers without a rescan.
    sc.at_ms(1150).progress(
        json!("mcpscope-1"),
        2_621_440.0,
        Some(5_242_880.0),
        "Read 2621440 / 5242880 bytes",
    );
    app.sync();
    let tm = &app.state.timing;
    assert_eq!(tm.count, 5);
    assert_eq!(tm.min_gap_us, Some(50_000));
    assert_eq!(tm.median_gap_us(), Some(250_000));
    // The same numbers as the checks' statistics.
    let stats = mcpscope::checks::stats::call_stats(&sc.trace.read());
    let s = stats
        .iter()
        .find(|c| c.request_id == IdKey::Int(1))
        .unwrap();
    assert_eq!(s.first_progress_ms, Some(250.0));
    let spread = s.inter_arrival_ms.unwrap();
    assert_eq!(
        (spread.min, spread.median, spread.max),
        (50.0, 250.0, 250.0)
    );
    // Another call: the numbers follow the selection.
    app.apply(Action::Down);
    assert_eq!(app.state.timing.id, Some(IdKey::Int(2)));
    assert_eq!(app.state.timing.count, 3);
    app.apply(Action::Details);
    assert!(!app.state.progress_details);
}

// -------------------------------------------------------------- replay

fn replay_app(sc: &Scenario) -> App {
    use mcpscope::trace::{ManualClock, Store, Trace};
    let clock = ManualClock::new();
    let trace = Trace::new(Store::default(), clock.clone());
    let playback = mcpscope::tui::replay::Playback::new(recorded(sc), trace.clone(), clock);
    let mut app = App::new(
        trace,
        AppOptions {
            live: false,
            playback: Some(playback),
            ..AppOptions::default()
        },
    );
    app.sync();
    app
}

fn fed(app: &App) -> usize {
    app.state.replay.unwrap().fed
}

#[test]
fn replay_plays_in_recorded_time_scaled_by_speed() {
    use std::time::Duration;
    let sc = mid_progress();
    let mut app = replay_app(&sc);
    let r = app.state.replay.unwrap();
    assert_eq!((r.fed, r.speed, r.paused), (0, 1.0, false));
    assert_eq!(app.state.conn, Conn::Offline);
    // 100 ms at ×1: the events up to t = 100 ms (spawn … initialized, the upload call).
    app.advance_replay(Duration::from_millis(100));
    app.sync();
    assert_eq!(fed(&app), 6);
    assert_eq!(app.state.events, 6);
    assert_eq!(
        app.trace().now_us(),
        100_000,
        "the trace clock is the playback position"
    );
    assert_eq!(app.state.calls.list.len(), 1);
    // ×4: 50 ms of wall time is 200 ms of trace.
    app.apply(Action::ReplayFaster);
    app.apply(Action::ReplayFaster);
    assert_eq!(app.state.replay.unwrap().speed, 4.0);
    app.advance_replay(Duration::from_millis(50));
    app.sync();
    assert_eq!(app.state.replay.unwrap().pos_us, 300_000);
    assert_eq!(app.state.calls.list.len(), 5);
    // Paused: time passes, nothing is fed, the clock stands still.
    app.apply(Action::ReplayPause);
    let before = fed(&app);
    app.advance_replay(Duration::from_secs(10));
    assert_eq!(fed(&app), before);
    assert_eq!(app.trace().now_us(), 300_000);
    app.apply(Action::ReplayPause);
    app.advance_replay(Duration::from_millis(1));
    assert!(app.state.replay.unwrap().pos_us > 300_000);
}

#[test]
fn replay_steps_one_event_and_clamps_its_speed() {
    let sc = mid_progress();
    let mut app = replay_app(&sc);
    app.apply(Action::ReplayStep);
    let r = app.state.replay.unwrap();
    assert_eq!((r.fed, r.paused), (1, true));
    assert_eq!(app.state.events, 1);
    app.apply(Action::ReplayStep);
    app.apply(Action::ReplayStep);
    assert_eq!(fed(&app), 3);
    assert_eq!(app.state.events, 3);
    assert_eq!(
        app.state.replay.unwrap().pos_us,
        5_000,
        "at the stepped event's time"
    );
    for _ in 0..10 {
        app.apply(Action::ReplayFaster);
    }
    assert_eq!(app.state.replay.unwrap().speed, 16.0);
    for _ in 0..10 {
        app.apply(Action::ReplaySlower);
    }
    assert_eq!(app.state.replay.unwrap().speed, 0.5);
}

#[test]
fn replay_jump_to_end_reproduces_the_full_timeline() {
    let sc = mid_progress();
    let mut app = replay_app(&sc);
    app.apply(Action::ReplayEnd);
    while app.sync() {}
    let r = app.state.replay.unwrap();
    assert!(r.done());
    assert_eq!(r.fed, r.total);
    assert_eq!(r.pos_us, 1_100_000, "the last recorded event's time");
    let original = mcpscope::cli::replay::format_store(&sc.trace.read());
    let replayed = mcpscope::cli::replay::format_store(&app.trace().read());
    assert_eq!(replayed, original);
    let live = tui_support::app(&sc);
    assert_eq!(app.state.calls.list.len(), live.state.calls.list.len());
    assert_eq!(status(&app, 4), CallStatus::Done);
    assert_eq!(status(&app, 5), CallStatus::Cancelled);
    // Stepping past the end says so; nothing can be sent.
    app.apply(Action::ReplayStep);
    assert!(
        app.state
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("end of the trace"))
    );
    app.apply(Action::FocusComposer);
    let effects = app.apply(Action::Send);
    assert!(effects.is_empty());
    assert!(
        app.state
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("recorded trace")),
        "{:?}",
        app.state.notice
    );
}

#[test]
fn playback_keys_outside_a_replay_only_explain_themselves() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.handle_key(key(' '));
    assert!(app.state.replay.is_none());
    assert!(
        app.state
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("mcpscope replay"))
    );
}

#[tokio::test]
async fn findings_are_computed_during_replay() {
    let sc = with_faults();
    let mut app = replay_app(&sc);
    let checks = mcpscope::checks::LiveChecks::spawn(
        app.trace().clone(),
        mcpscope::checks::CheckConfig::default(),
    );
    checks.sync();
    assert!(checks.is_empty(), "nothing played yet");
    app.apply(Action::ReplayEnd);
    checks.sync();
    app.add_findings(checks.findings_since(0));
    assert!(
        app.state
            .findings
            .list
            .iter()
            .any(|f| f.rule.id() == "progress-not-increasing")
    );
    checks.stop();
}

// ------------------------------------------------------------- network

use mcpscope::tui::network::{HttpStatus, StreamEnd};

#[test]
fn network_rows_come_from_http_meta_events_and_their_channels() {
    let sc = http_session();
    let app = app(&sc);
    let rows = &app.state.network.view.rows;
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
    assert!(app.state.offers(Pane::Network));
    assert!(app.state.shows_channels());
}

#[test]
fn network_view_extends_incrementally_and_follows_the_newest_exchange() {
    let sc = http_session();
    let mut app = app(&sc);
    app.apply(Action::FocusNetwork);
    assert_eq!(app.state.network.cursor.selected, 7);
    sc.at_ms(950).inn_on(
        "post:6",
        json!({"jsonrpc": "2.0", "id": 4, "result": {"content": [], "isError": false}}),
    );
    sc.at_ms(950)
        .meta_on("post:6", json!({"event": "stream-end"}));
    sc.at_ms(960).meta_on("http", json!({"event": "http", "method": "DELETE", "status": 200, "session": "demo-00000001", "ms": 1}));
    app.sync();
    let rows = &app.state.network.view.rows;
    assert_eq!(rows.len(), 9);
    assert_eq!(rows[7].frames, 2);
    assert_eq!(rows[7].end, Some(StreamEnd::Ended));
    assert_eq!(rows[8].rpc, "(end session)");
    assert_eq!(app.state.network.cursor.selected, 8, "following");
    // Scrolling up stops following; a new exchange does not move the cursor.
    app.apply(Action::Up);
    assert!(!app.state.network.follow);
    sc.at_ms(970).meta_on(
        "get",
        json!({"event": "http-error", "method": "GET", "error": "connection refused"}),
    );
    app.sync();
    assert_eq!(app.state.network.cursor.selected, 7);
    let last = app.state.network.view.rows.last().unwrap();
    assert_eq!(last.status, HttpStatus::Error("connection refused".into()));
    // The Raw pane shows the selected exchange's meta event.
    let seq = app.state.network.view.rows[7].seq;
    assert_eq!(app.state.raw.seq, Some(seq));
    app.apply(Action::Follow);
    app.sync();
    assert_eq!(app.state.network.cursor.selected, 9);
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
    assert_eq!(app.state.network.view.rows[3].channel, "post:3");
    app.apply(Action::ShowChannel);
    assert_eq!(app.state.focus, Pane::Timeline);
    let channel_rows = |app: &App| -> Vec<(String, Option<String>)> {
        let store = sc.trace.read();
        let v = &app.state.timeline.view;
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
    assert_eq!(app.state.timeline.cursor.selected, 0);
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
    assert_eq!(app.state.timeline.view.len(&sc.trace.read()), store_len);
}

#[test]
fn the_network_pane_is_offered_only_to_http_sessions() {
    let sc = mid_progress();
    let mut app = app(&sc);
    assert!(!app.state.offers(Pane::Network));
    assert!(!app.state.shows_channels());
    assert!(!app.state.tabs().any(|p| p == Pane::Network));
    // Tab never lands on it…
    app.apply(Action::FocusFindings);
    app.apply(Action::FocusNext);
    assert_eq!(app.state.focus, Pane::Progress);
    app.apply(Action::FocusPrev);
    assert_eq!(app.state.focus, Pane::Findings);
    // …but its key shows it (with nothing in it).
    app.handle_key(key('8'));
    assert_eq!(app.state.focus, Pane::Network);
    assert!(app.state.network.view.is_empty());
    app.apply(Action::ShowChannel);
    assert_eq!(app.state.focus, Pane::Network);
    assert_eq!(
        app.state.notice.as_deref(),
        Some("no HTTP exchange selected")
    );
}

// ------------------------------------------------------- input_required

/// A stateless-era call whose result asks for an elicitation and roots.
fn input_required_session() -> Scenario {
    let sc = Scenario::new();
    sc.at_ms(10).out_on("post:1", json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "interactive_wizard", "arguments": {"questions": 2},
        "_meta": {"progressToken": "mcpscope-1", "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}));
    sc.at_ms(12).meta_on("post:1", json!({"event": "http", "method": "POST", "status": 200, "content_type": "application/json", "session": null, "ms": 2}));
    sc.at_ms(12).inn_on("post:1", json!({"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required",
        "inputRequests": {
            "project": {"method": "elicitation/create", "params": {
                "message": "Project name?",
                "requestedSchema": {"type": "object", "properties": {
                    "name": {"type": "string"},
                    "visibility": {"type": "string", "enum": ["private", "public"], "default": "private"},
                    "seats": {"type": "integer"}}}}},
            "where": {"method": "roots/list", "params": {}}
        },
        "requestState": "opaque-state-1"}}));
    sc.at_ms(20);
    sc
}

#[test]
fn an_input_required_result_is_its_own_state_listing_the_requests() {
    let sc = input_required_session();
    let mut app = app(&sc);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("input required"), "{screen}");
    assert!(
        screen.contains("needs elicitation/create \"Project name?\" · roots/list · a answers it"),
        "{screen}"
    );
    let c = app.state.calls.get(&IdKey::Int(1)).unwrap();
    assert_eq!(c.status, CallStatus::InputRequired);
    assert!(!c.status.is_running());
    assert_eq!(c.status.label(), "input required");
    let input = c.input.as_ref().unwrap();
    let asks: Vec<String> = input.asks.iter().map(|a| a.summary()).collect();
    assert_eq!(asks, ["elicitation/create \"Project name?\"", "roots/list"]);
    assert_eq!(input.request_state, Some(json!("opaque-state-1")));
    assert_eq!(input.answered_by, None);
}

#[test]
fn answering_input_composes_a_retry_and_sends_it_as_a_raw_tools_call() {
    let sc = input_required_session();
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.handle_key(key('a'));
    assert_eq!(app.state.focus, Pane::Composer);
    assert!(app.state.composer.raw_mode);
    assert_eq!(app.state.composer.check.error, None);
    let msg: serde_json::Value = serde_json::from_str(&app.state.composer.text()).unwrap();
    assert_eq!(
        msg,
        json!({
            "jsonrpc": "2.0",
            "id": "answer-1",
            "method": "tools/call",
            "params": {
                "name": "interactive_wizard",
                "arguments": {"questions": 2},
                "_meta": {"progressToken": "answer-1"},
                "inputResponses": {
                    "project": {"action": "accept", "content": {"name": "", "visibility": "private", "seats": 0}},
                    "where": {"roots": []}
                },
                "requestState": "opaque-state-1"
            }
        })
    );
    let e = app.apply(Action::Send);
    match &e[..] {
        [
            Effect::Raw {
                id: Some(IdKey::Str(id)),
                method,
                params: Some(p),
                ..
            },
        ] => {
            assert_eq!(&**id, "answer-1");
            assert_eq!(method, "tools/call");
            assert_eq!(p["requestState"], json!("opaque-state-1"));
            assert_eq!(p["inputResponses"]["project"]["action"], json!("accept"));
        }
        other => panic!("{other:?}"),
    }
    // The retry, once in the trace, is a call of its own and answers the first.
    sc.at_ms(30).out_on("post:2", msg);
    app.sync();
    let first = app.state.calls.get(&IdKey::Int(1)).unwrap();
    assert_eq!(
        first.input.as_ref().unwrap().answered_by,
        Some(IdKey::Str("answer-1".into()))
    );
    let retry = app.state.calls.get(&IdKey::Str("answer-1".into())).unwrap();
    assert_eq!(retry.status, CallStatus::Running);
    assert_eq!(retry.token, Some(IdKey::Str("answer-1".into())));
    // A second answer gets a fresh id.
    app.apply(Action::FocusProgress);
    app.apply(Action::Top);
    app.apply(Action::AnswerInput);
    assert!(app.state.composer.text().contains("\"answer-2\""));
    assert!(
        app.state
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("answered already"))
    );
}

#[test]
fn answering_a_call_that_needs_no_input_explains_why_not() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::AnswerInput);
    assert_eq!(app.state.focus, Pane::Progress);
    assert!(
        app.state
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("only an input_required result can be answered")),
        "{:?}",
        app.state.notice
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
    let rows = &app.state.network.view.rows;
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
    let c = app.state.calls.get(&IdKey::Int(7)).unwrap();
    assert_eq!(c.status, CallStatus::Cancelled);
    assert_eq!(
        c.note,
        "cancelled by the user in mcpscope (closed the response stream)"
    );
    let c = app.state.calls.get(&IdKey::Int(9)).unwrap();
    assert_eq!(c.status, CallStatus::Failed);
    assert_eq!(c.note, "POST failed: connection refused");
}

#[test]
fn the_header_says_when_the_recording_stopped() {
    use mcpscope::trace::record::Recorder;
    use mcpscope::trace::{ManualClock, Store, Trace};
    // The recording goes into a real pipe; closing its reading end makes the
    // next write fail, as a full disk would.
    let (reader, writer) = std::io::pipe().unwrap();
    let header = json!({"mcpscope_trace": 1, "version": "t", "started": "now", "server": {}});
    let mut store = Store::default();
    store.set_recorder(Recorder::new(Box::new(writer), &header).unwrap());
    let clock = ManualClock::new();
    let sc = Scenario {
        trace: Trace::new(store, clock.clone()),
        clock,
    };
    let mut app = App::new(
        sc.trace.clone(),
        AppOptions {
            recording: Some("t.jsonl".into()),
            ..AppOptions::default()
        },
    );
    sc.call(1, "echo", json!({}), None);
    let screen = render(&mut app, 240, 12);
    assert!(
        screen.lines().next().unwrap().contains("● REC t.jsonl"),
        "{screen}"
    );
    // The recording is written by a thread of its own: event 0 is in the
    // pipe before its reader goes, and the failed write is seen before drawing.
    sc.trace.sync_recording();
    drop(reader);
    sc.result(1, "ok", false);
    sc.trace.sync_recording();
    let screen = render(&mut app, 240, 12);
    let header = screen.lines().next().unwrap();
    assert!(
        header.contains("✗ recording stopped at event 1") && !header.contains("● REC"),
        "{header}"
    );
}

/// How `sh` splits a command line into words (the real shell, no guessing).
fn shell_words(cmd: &str) -> Vec<String> {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("set -- {cmd}; printf '%s\\0' \"$@\""))
        .output()
        .expect("sh runs");
    assert!(out.status.success(), "not a valid shell command: {cmd}");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_terminator('\0')
        .map(str::to_string)
        .collect()
}

#[test]
fn copied_command_runs_the_same_stdio_call_without_secrets() {
    let args = mcpscope::cli::spec::ServerArgs {
        command: vec![
            "node".into(),
            "my server.js".into(),
            "--api-key".into(),
            "s3cret".into(),
            "--session-token=t0k".into(),
            "--verbose".into(),
        ],
        env: vec!["DB_PASSWD=hunter2".into(), "MODE=it's".into()],
        protocol: "legacy".into(),
        ..Default::default()
    };
    let opts = AppOptions {
        server_cli: mcpscope::cli::spec::server_cli(&args),
        ..AppOptions::default()
    };
    let sc = mid_progress();
    let mut app = App::new(sc.trace.clone(), opts);
    app.set_server(&init_result());
    // A legal tool name longer than the list shows: the call needs all of it.
    let long = format!("{}.fetch", "namespace_".repeat(10));
    let mut tools = tools();
    tools.insert(
        0,
        json!({"name": long, "inputSchema": {"type": "object", "properties": {"q": {"type": "string", "default": "a 'b'"}}}}),
    );
    app.on_msg(mcpscope::tui::action::Msg::Tools(Ok(tools)));
    app.sync();
    assert_eq!(app.state.composer.tool.as_deref(), Some(long.as_str()));
    let effects = app.apply(Action::Send);
    assert!(
        matches!(&effects[..], [Effect::Call { tool, .. }] if *tool == long),
        "{effects:?}"
    );

    let copied = app.apply(Action::CopyCommand);
    let [Effect::Copy(cmd)] = &copied[..] else {
        panic!("{copied:?}")
    };
    for secret in ["s3cret", "t0k", "hunter2"] {
        assert!(!cmd.contains(secret), "{cmd}");
    }
    assert_eq!(
        shell_words(cmd),
        [
            "mcpscope",
            "call",
            "-e",
            "DB_PASSWD=[redacted]",
            "-e",
            "MODE=it's",
            "--tool",
            &long,
            "--args",
            r#"{"q":"a 'b'"}"#,
            "--",
            "node",
            "my server.js",
            "--api-key",
            "[redacted]",
            "--session-token=[redacted]",
            "--verbose",
        ]
    );
}

#[test]
fn the_composer_shows_what_a_run_sent_not_the_schema_defaults() {
    let sc = Scenario::new();
    let parse = |s: &str| mcpscope::tui::app::parse_run(s).unwrap();
    let mut app = App::new(
        sc.trace.clone(),
        AppOptions {
            runs: vec![
                parse(r#"pipeline_wait {"polls": 2}"#),
                parse(r#"echo {"text": "first"}"#),
                parse(r#"echo {"text": "second"}"#),
            ],
            ..AppOptions::default()
        },
    );
    app.on_msg(Msg::Handshake(Ok(init_result())));
    assert_eq!(app.on_msg(Msg::Tools(Ok(tools()))).len(), 3);
    let shown = |app: &App| -> serde_json::Value {
        serde_json::from_str(&app.state.composer.text()).unwrap()
    };
    // It opens on the first run's tool, with exactly what was sent.
    assert_eq!(app.state.composer.tool.as_deref(), Some("pipeline_wait"));
    assert_eq!(shown(&app), json!({"polls": 2}));
    // Another tool that was run shows its last call's arguments…
    app.apply(Action::FocusTools);
    app.apply(Action::Top);
    while app.state.tools.selected().map(|t| t.name.as_str()) != Some("echo") {
        app.apply(Action::Down);
    }
    app.apply(Action::UseTool);
    assert_eq!(app.state.composer.tool.as_deref(), Some("echo"));
    assert_eq!(shown(&app), json!({"text": "second"}));
    // …and sending repeats that call.
    app.apply(Action::FocusComposer);
    assert!(matches!(
        &app.apply(Action::Send)[..],
        [Effect::Call { tool, args, .. }] if tool == "echo" && args == &json!({"text": "second"})
    ));
    // A tool never run still starts from its schema; R still refills from it.
    app.apply(Action::FocusTools);
    app.apply(Action::Top);
    app.apply(Action::UseTool);
    assert_eq!(app.state.composer.tool.as_deref(), Some("upload_file"));
    assert_eq!(shown(&app)["size_bytes"], 5242880);
    app.apply(Action::FocusTools);
    while app.state.tools.selected().map(|t| t.name.as_str()) != Some("pipeline_wait") {
        app.apply(Action::Down);
    }
    app.apply(Action::UseTool);
    assert_eq!(shown(&app), json!({"polls": 2}));
    app.apply(Action::FocusComposer);
    app.apply(Action::ResetArgs);
    assert_eq!(shown(&app), json!({"polls": 5, "outcome": "success"}));
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
    let rows = &app.state.network.view.rows;
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

#[test]
fn two_host_sessions_with_one_id_each_settle_their_own_call() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    let call = |tool: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": {"progressToken": "t"}}})
    };
    let start = |s: &str| json!({"event": "host-request", "method": "POST", "session": s});
    sc.at_ms(10);
    sc.meta_on("post:1", start("A"));
    sc.out_on("post:1", call("first"));
    sc.at_ms(20);
    sc.meta_on("post:2", start("B"));
    sc.out_on("post:2", call("second"));
    sc.at_ms(30);
    sc.inn_on(
        "post:1",
        json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": false}}),
    );
    app.sync();
    let status = |tool: &str| {
        app.state
            .calls
            .list
            .iter()
            .find(|c| c.tool == tool)
            .map(|c| c.status)
            .unwrap()
    };
    assert_eq!(
        status("first"),
        CallStatus::Done,
        "host A's answer ends host A's call"
    );
    assert_eq!(status("second"), CallStatus::Running);
}
