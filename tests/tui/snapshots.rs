//! Whole-screen snapshots on a TestBackend: the main screen mid-progress,
//! logs, raw, help, a finished run and the 80×24 layout. The trace is built
//! on a manual clock, so times and spinners are fixed; the crate version is
//! masked.

use crate::support::*;

#[test]
fn main_screen_mid_progress() {
    let sc = mid_progress();
    let mut app = app(&sc);
    insta::assert_snapshot!(render(&mut app, 160, 48));
}

#[test]
fn logs_zoomed_with_an_expanded_entry() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusLogs);
    app.apply(Action::Zoom);
    app.apply(Action::Top);
    app.apply(Action::Down);
    app.apply(Action::Down);
    app.apply(Action::Expand);
    insta::assert_snapshot!(render(&mut app, 120, 30));
}

#[test]
fn raw_frame_with_search() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusTimeline);
    app.apply(Action::Filter);
    typed(&mut app, "read 2097152");
    key(&mut app, KeyCode::Enter);
    app.apply(Action::FocusRaw);
    app.apply(Action::Search);
    typed(&mut app, "bytes");
    app.apply(Action::Zoom);
    insta::assert_snapshot!(render(&mut app, 120, 24));
}

#[test]
fn help_overlay() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::Help);
    insta::assert_snapshot!(render(&mut app, 160, 48));
}

#[test]
fn narrow_terminal_uses_tabs() {
    let sc = mid_progress();
    let mut app = app(&sc);
    insta::assert_snapshot!("narrow_progress", render(&mut app, 80, 24));
    app.apply(Action::FocusTimeline);
    insta::assert_snapshot!("narrow_timeline", render(&mut app, 80, 24));
}

#[test]
fn finished_run() {
    let sc = mid_progress();
    sc.at_ms(1500).progress(
        json!("mcpscope-1"),
        5_242_880.0,
        Some(5_242_880.0),
        "Read 5242880 / 5242880 bytes, preparing the upload",
    );
    sc.at_ms(1600)
        .result(1, "Uploaded ./release.tar.gz (5242880 bytes)", false);
    sc.at_ms(1700)
        .progress(json!(3), 3.0, Some(3.0), "Creating the project");
    sc.at_ms(1800)
        .result(3, "Created project mcpscope-demo", false);
    sc.at_ms(2000).meta(json!({"event": "timeout", "request": 2, "method": "tools/call", "limit": "idle", "secs": 1}));
    sc.at_ms(2000).out(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "timed out (idle timeout of 1s)"}}));
    sc.at_ms(2500);
    let mut app = app(&sc);
    insta::assert_snapshot!(render(&mut app, 160, 48));
}

#[test]
fn server_text_never_reaches_the_terminal_raw() {
    let sc = mid_progress();
    sc.at_ms(1500).log(
        "error",
        "\u{1b}]52;c;ZXZpbA==\u{7}evil",
        json!("\u{1b}[2J\u{1b}[H cleared?"),
    );
    sc.stderr("\u{1b}[31mred stderr\u{9b}");
    let mut app = app(&sc);
    for focus in [Action::FocusLogs, Action::FocusTimeline, Action::FocusRaw] {
        app.apply(focus);
        let screen = render(&mut app, 160, 48);
        assert!(
            !screen.chars().any(|c| c.is_control() && c != '\n'),
            "{screen}"
        );
        assert!(screen.contains("␛"), "escapes are shown as pictures");
    }
}

#[test]
fn findings_pane_flags_and_header_counts() {
    let sc = with_faults();
    let mut app = app(&sc);
    app.add_findings(check_all(&sc));
    app.apply(Action::FocusFindings);
    app.apply(Action::Top);
    app.apply(Action::ShowFrame);
    insta::assert_snapshot!(render(&mut app, 160, 48));
}

#[test]
fn progress_details_with_timing() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::Details);
    insta::assert_snapshot!(render(&mut app, 160, 48));
}

#[test]
fn http_session_with_network_pane() {
    let sc = http_session();
    let mut app = http_app(&sc);
    app.apply(Action::FocusNetwork);
    app.apply(Action::Top);
    for _ in 0..3 {
        app.apply(Action::Down);
    }
    insta::assert_snapshot!("network_wide", render(&mut app, 160, 48));
    app.apply(Action::ShowChannel);
    insta::assert_snapshot!("network_channel_in_timeline", render(&mut app, 160, 48));
    app.apply(Action::FocusNetwork);
    insta::assert_snapshot!("network_narrow", render(&mut app, 100, 24));
}

// ------------------------------------------- what a newcomer sees first

/// The first row of a rendered screen.
fn header(screen: &str) -> &str {
    screen.lines().next().unwrap_or("")
}

/// The last row of a rendered screen (the status line).
fn footer(screen: &str) -> &str {
    screen.lines().last().unwrap_or("")
}

fn replay_app(sc: &crate::support::Scenario) -> mcpscope::tui::App {
    use mcpscope::trace::{ManualClock, Store, Trace};
    let clock = ManualClock::new();
    let trace = Trace::new(Store::default(), clock.clone());
    let playback = mcpscope::tui::replay::Playback::new(recorded(sc), trace.clone(), clock);
    let mut app = mcpscope::tui::App::new(
        trace,
        mcpscope::tui::AppOptions {
            live: false,
            playback: Some(playback),
            ..mcpscope::tui::AppOptions::default()
        },
    );
    app.sync();
    app
}

#[test]
fn header_fits_any_width_in_whole_parts_and_keeps_the_findings_count() {
    let sc = with_faults();
    let mut app = app(&sc);
    app.add_findings(check_all(&sc));
    let full = header(&render(&mut app, 240, 24)).to_string();
    let parts: Vec<&str> = full.trim().split(" │ ").collect();
    assert!(full.contains("2 errors · 1 warning"), "{full}");
    // Below 50 columns even the parts that stay do not fit.
    for w in 50..=200 {
        let screen = render(&mut app, w, 24);
        let h = header(&screen).trim();
        assert!(h.contains("2 errors · 1 warning"), "{w} columns: {h}");
        assert!(h.contains("● connected"), "{w} columns: {h}");
        for p in h.split(" │ ") {
            // Only the server's name may be cut, and then it says so.
            assert!(
                parts
                    .iter()
                    .any(|f| f == &p || f.starts_with(p.trim_end_matches('…'))),
                "{w} columns: {p:?} is not a whole part of {full:?}"
            );
        }
    }
}

/// With findings about the host (the client) too, the header counts each
/// side apart, and still fits any width as whole parts.
#[test]
fn header_counts_server_and_host_findings_apart() {
    let sc = with_faults();
    // The client cancels a request it never sent.
    sc.at_ms(1500).out(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}),
    );
    let mut app = app(&sc);
    let found = check_all(&sc);
    assert!(
        found
            .iter()
            .any(|f| f.rule.id() == "client-cancel-unknown-request"),
        "{found:#?}"
    );
    app.add_findings(found);
    let full = header(&render(&mut app, 240, 24)).to_string();
    assert!(full.contains("findings: server 3 · host 1"), "{full}");
    assert!(!full.contains("errors"), "{full}");
    for w in 50..=200 {
        let screen = render(&mut app, w, 24);
        let h = header(&screen).trim();
        assert!(h.contains("server 3 · host 1"), "{w} columns: {h}");
        assert!(h.contains("● connected"), "{w} columns: {h}");
    }
    let at80 = render(&mut app, 80, 24);
    assert!(
        header(&at80).contains("findings: server 3 · host 1"),
        "{at80}"
    );
}

#[test]
fn replay_at_80x24() {
    let sc = with_faults();
    let mut app = replay_app(&sc);
    app.apply(Action::ReplayEnd);
    app.add_findings(check_all(&sc));
    app.apply(Action::FocusProgress);
    let screen = render(&mut app, 80, 24);
    insta::assert_snapshot!(screen);
}

#[test]
fn replay_offers_no_server_actions_in_the_footer() {
    let sc = mid_progress();
    let mut live = app(&sc);
    live.apply(Action::FocusProgress);
    assert!(footer(&render(&mut live, 240, 24)).contains("c cancel"));
    let mut replay = replay_app(&sc);
    replay.apply(Action::ReplayEnd);
    // The Composer is not offered (nothing can be sent): its key says so
    // and the focus stays.
    for (focus, keep) in [
        (Action::FocusProgress, "Enter lane"),
        (Action::FocusComposer, "read-only"),
    ] {
        replay.apply(focus);
        assert_eq!(replay.shell.focus, mcpscope::tui::pane::Pane::Progress);
        let screen = render(&mut replay, 240, 24);
        let f = footer(&screen);
        assert!(f.contains(keep), "{f}");
        assert!(f.contains("Space pause"), "{f}");
        for gone in ["cancel", "send", "answer input"] {
            assert!(!f.contains(gone), "{gone:?} in a replay: {f}");
        }
    }
}

#[test]
fn help_lists_playback_keys_only_in_a_replay_and_scrolls_to_its_end() {
    let sc = mid_progress();
    let mut live = app(&sc);
    live.apply(Action::Help);
    render(&mut live, 80, 24);
    key(&mut live, KeyCode::End);
    let end = render(&mut live, 80, 24);
    assert!(
        end.contains("Mouse: click"),
        "End shows the last line:\n{end}"
    );
    assert!(!end.contains("more below"), "{end}");
    assert!(end.contains("end of help"), "{end}");
    assert!(!end.contains("replay:"), "a live session:\n{end}");
    // One step back up moves at once (End did not scroll past the end).
    key(&mut live, KeyCode::Up);
    let up = render(&mut live, 80, 24);
    assert!(up.contains(" 1 more below"), "{up}");
    key(&mut live, KeyCode::Char('G'));
    assert!(render(&mut live, 80, 24).contains("Mouse: click"), "G too");
    key(&mut live, KeyCode::Home);
    let top = render(&mut live, 80, 24);
    assert!(
        top.contains("more below: ↓/PgDn scroll, End jumps to the end"),
        "{top}"
    );
    let tall = render(&mut live, 120, 200);
    assert!(!tall.contains("replay:"), "{tall}");
    assert!(!tall.contains("more below"), "everything fits:\n{tall}");

    let mut replay = replay_app(&sc);
    replay.apply(Action::Help);
    let screen = render(&mut replay, 120, 200);
    let at = screen.find("Replay").expect("a Replay group");
    assert!(screen[at..].contains("replay: pause / resume"), "{screen}");
    assert!(
        !screen[..at].contains("replay:"),
        "playback keys are not under Everywhere:\n{screen}"
    );
}

#[test]
fn header_cuts_long_texts_but_keeps_what_always_stays() {
    let sc = with_faults();
    let mut app = app(&sc);
    app.add_findings(check_all(&sc));
    app.shell.conn = mcpscope::tui::shell::Conn::Failed(
        "the server closed its stdout before answering initialize (exit code 1)".into(),
    );
    app.shell.recording = Some("/home/someone/a/rather/deep/directory/session.jsonl".into());
    for w in [80u16, 100, 120] {
        let screen = render(&mut app, w, 24);
        let h = header(&screen).trim_end();
        assert!(h.chars().count() <= w as usize, "{h}");
        assert!(h.contains("✗ failed: the"), "{w}: {h}");
        assert!(h.contains("● REC /home"), "{w}: {h}");
        assert!(h.contains("2 errors · 1 warning"), "{w}: {h}");
        assert!(h.contains('…'), "something had to be cut at {w}: {h}");
    }
}

/// `attach` over the scenario's trace: read-only, nothing played back.
fn attach_app(sc: &crate::support::Scenario) -> mcpscope::tui::App {
    let mut app = mcpscope::tui::App::new(
        sc.trace.clone(),
        mcpscope::tui::AppOptions {
            live: false,
            playback: None,
            spec_name: "demo".into(),
            transport: "stdio · attached (pid 4242)".into(),
            server_cli: "# attached to demo".into(),
            ..mcpscope::tui::AppOptions::default()
        },
    );
    app.sync();
    app
}

/// Nothing can be composed in `attach` or `replay`: the Tools column
/// shows only while focused, and Progress, Timeline, Logs and Raw take
/// its room.
#[test]
fn attach_and_replay_give_the_tools_column_to_the_session() {
    use mcpscope::tui::pane::Pane;
    for (w, h) in [(80, 24), (120, 30), (160, 48)] {
        for mode in ["attach", "replay"] {
            let sc = with_faults();
            let mut app = if mode == "attach" {
                attach_app(&sc)
            } else {
                let mut app = replay_app(&sc);
                app.apply(Action::ReplayEnd);
                app
            };
            app.add_findings(check_all(&sc));
            app.apply(Action::FocusTimeline);
            let screen = render(&mut app, w, h);
            if w >= 120 {
                let l = app.layout();
                assert_eq!(l.rect(Pane::Tools), None, "{mode} {w}x{h}:\n{screen}");
                for p in [Pane::Progress, Pane::Timeline, Pane::Logs] {
                    assert_eq!(
                        l.rect(p).map(|r| r.x),
                        Some(0),
                        "{mode} {w}x{h}: {p:?} starts at the left edge:\n{screen}"
                    );
                }
                assert_eq!(l.rect(Pane::Progress).unwrap().width, w);
            }
            insta::assert_snapshot!(format!("{mode}_layout_{w}x{h}"), screen);
            // Focused, the Tools column comes back (the list a session made).
            app.apply(Action::FocusTools);
            render(&mut app, w, h);
            assert!(app.layout().rect(Pane::Tools).is_some(), "{mode} {w}x{h}");
        }
    }
}
