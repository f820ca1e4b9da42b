//! `mcpscope replay`: playback in recorded time, stepping, speed, the end.

use crate::support::*;
use mcpscope::tui::calls::CallStatus;
use mcpscope::tui::shell::Conn;

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
    app.shell.replay.unwrap().fed
}

#[test]
fn replay_plays_in_recorded_time_scaled_by_speed() {
    use std::time::Duration;
    let sc = mid_progress();
    let mut app = replay_app(&sc);
    let r = app.shell.replay.unwrap();
    assert_eq!((r.fed, r.speed, r.paused), (0, 1.0, false));
    assert_eq!(app.shell.conn, Conn::Offline);
    // 100 ms at ×1: the events up to t = 100 ms (spawn … initialized, the upload call).
    app.advance_replay(Duration::from_millis(100));
    app.sync();
    assert_eq!(fed(&app), 6);
    assert_eq!(app.shell.events, 6);
    assert_eq!(
        app.trace().now_us(),
        100_000,
        "the trace clock is the playback position"
    );
    assert_eq!(app.panes.progress.calls.list.len(), 1);
    // ×4: 50 ms of wall time is 200 ms of trace.
    app.apply(Action::ReplayFaster);
    app.apply(Action::ReplayFaster);
    assert_eq!(app.shell.replay.unwrap().speed, 4.0);
    app.advance_replay(Duration::from_millis(50));
    app.sync();
    assert_eq!(app.shell.replay.unwrap().pos_us, 300_000);
    assert_eq!(app.panes.progress.calls.list.len(), 5);
    // Paused: time passes, nothing is fed, the clock stands still.
    app.apply(Action::ReplayPause);
    let before = fed(&app);
    app.advance_replay(Duration::from_secs(10));
    assert_eq!(fed(&app), before);
    assert_eq!(app.trace().now_us(), 300_000);
    app.apply(Action::ReplayPause);
    app.advance_replay(Duration::from_millis(1));
    assert!(app.shell.replay.unwrap().pos_us > 300_000);
}

#[test]
fn replay_steps_one_event_and_clamps_its_speed() {
    let sc = mid_progress();
    let mut app = replay_app(&sc);
    app.apply(Action::ReplayStep);
    let r = app.shell.replay.unwrap();
    assert_eq!((r.fed, r.paused), (1, true));
    assert_eq!(app.shell.events, 1);
    app.apply(Action::ReplayStep);
    app.apply(Action::ReplayStep);
    assert_eq!(fed(&app), 3);
    assert_eq!(app.shell.events, 3);
    assert_eq!(
        app.shell.replay.unwrap().pos_us,
        5_000,
        "at the stepped event's time"
    );
    for _ in 0..10 {
        app.apply(Action::ReplayFaster);
    }
    assert_eq!(app.shell.replay.unwrap().speed, 16.0);
    for _ in 0..10 {
        app.apply(Action::ReplaySlower);
    }
    assert_eq!(app.shell.replay.unwrap().speed, 0.5);
}

#[test]
fn replay_jump_to_end_reproduces_the_full_timeline() {
    let sc = mid_progress();
    let mut app = replay_app(&sc);
    app.apply(Action::ReplayEnd);
    while app.sync() {}
    let r = app.shell.replay.unwrap();
    assert!(r.done());
    assert_eq!(r.fed, r.total);
    assert_eq!(r.pos_us, 1_100_000, "the last recorded event's time");
    let original = mcpscope::cli::replay::format_store(&sc.trace.read());
    let replayed = mcpscope::cli::replay::format_store(&app.trace().read());
    assert_eq!(replayed, original);
    let live = crate::support::app(&sc);
    assert_eq!(
        app.panes.progress.calls.list.len(),
        live.panes.progress.calls.list.len()
    );
    assert_eq!(status(&app, 4), CallStatus::Done);
    assert_eq!(status(&app, 5), CallStatus::Cancelled);
    // Stepping past the end says so; nothing can be sent.
    app.apply(Action::ReplayStep);
    assert!(
        app.shell
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("end of the trace"))
    );
    app.apply(Action::FocusComposer);
    let effects = app.apply(Action::Send);
    assert!(effects.is_empty());
    assert!(
        app.shell
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("recorded trace")),
        "{:?}",
        app.shell.notice
    );
}

#[test]
fn playback_keys_outside_a_replay_only_explain_themselves() {
    let sc = mid_progress();
    let mut app = app(&sc);
    key(&mut app, KeyCode::Char(' '));
    assert!(app.shell.replay.is_none());
    assert!(
        app.shell
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("mcpscope replay"))
    );
    for a in [
        Action::ReplayPause,
        Action::ReplayStep,
        Action::ReplayBack,
        Action::ReplayFaster,
        Action::ReplaySlower,
        Action::ReplayEnd,
    ] {
        app.shell.notice = None;
        assert!(app.apply(a).is_empty(), "{a:?}");
        assert!(app.shell.replay.is_none(), "{a:?}");
        assert!(
            app.shell
                .notice
                .as_deref()
                .is_some_and(|n| n.contains("mcpscope replay")),
            "{a:?}"
        );
    }
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
        app.panes
            .findings
            .list
            .iter()
            .any(|f| f.rule.id() == "progress-not-increasing")
    );
    checks.stop();
}

/// The Logs pane's level after one `+` from the default.
fn fwd_level() -> mcpscope::protocol::views::LogLevel {
    let sc = mid_progress();
    let mut app = replay_app(&sc);
    app.apply(Action::FocusLogs);
    app.apply(Action::LevelUp);
    app.panes.logs.view.min
}

/// The whole screen after `n` events, with nothing else on it (notices
/// cleared): what stepping back to `n` must show again.
fn screen_at(sc: &Scenario, n: usize, w: u16, h: u16) -> String {
    let mut app = replay_app(sc);
    for _ in 0..n {
        app.apply(Action::ReplayStep);
    }
    app.shell.notice = None;
    render(&mut app, w, h)
}

/// `,` steps back one event: the screen is the one stepping forward to
/// that event drew, at every size and with any pane focused.
#[test]
fn replay_steps_back_to_the_screen_it_showed_there() {
    let sc = mid_progress();
    let total = recorded(&sc).len();
    for (w, h) in [(80, 24), (120, 30), (160, 48)] {
        let mut app = replay_app(&sc);
        app.apply(Action::ReplayEnd);
        while app.sync() {}
        for n in (total - 6..total).rev() {
            key(&mut app, KeyCode::Char(','));
            let r = app.shell.replay.unwrap();
            assert_eq!((r.fed, r.paused), (n, true), "{w}x{h}");
            assert_eq!(app.shell.events, n as u64, "{w}x{h}");
            app.shell.notice = None;
            let back = render(&mut app, w, h);
            assert_eq!(back, screen_at(&sc, n, w, h), "{w}x{h} at {n}");
        }
        // Back to the middle, with the Logs pane focused and filtered.
        app.apply(Action::FocusLogs);
        app.apply(Action::LevelUp);
        app.apply(Action::Filter);
        typed(&mut app, "chunk");
        key(&mut app, KeyCode::Enter);
        for _ in 0..10 {
            app.apply(Action::ReplayBack);
        }
        let n = total - 16;
        assert_eq!(app.shell.replay.unwrap().fed, n);
        assert_eq!(app.panes.logs.view.text, "chunk", "the filter is kept");
        assert_eq!(
            app.panes.logs.view.min,
            fwd_level(),
            "and the level the user chose"
        );
        let mut fwd = replay_app(&sc);
        for _ in 0..n {
            fwd.apply(Action::ReplayStep);
        }
        fwd.apply(Action::FocusLogs);
        fwd.apply(Action::LevelUp);
        fwd.apply(Action::Filter);
        typed(&mut fwd, "chunk");
        key(&mut fwd, KeyCode::Enter);
        app.shell.notice = None;
        fwd.shell.notice = None;
        assert_eq!(render(&mut app, w, h), render(&mut fwd, w, h), "{w}x{h}");
        // Forward again from there: the same as having never gone back.
        app.apply(Action::ReplayEnd);
        while app.sync() {}
        let original = mcpscope::cli::replay::format_store(&sc.trace.read());
        let replayed = mcpscope::cli::replay::format_store(&app.trace().read());
        assert_eq!(replayed, original);
    }
}

#[test]
fn stepping_back_from_the_start_says_so() {
    let sc = mid_progress();
    let mut app = replay_app(&sc);
    app.apply(Action::ReplayStep);
    app.apply(Action::ReplayBack);
    assert_eq!(fed(&app), 0);
    assert_eq!(app.shell.events, 0);
    assert_eq!(app.trace().now_us(), 0);
    app.apply(Action::ReplayBack);
    assert!(
        app.shell
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("start of the trace")),
        "{:?}",
        app.shell.notice
    );
}

/// Findings about events stepped back over leave the Findings pane and
/// come back, once each, when the playback feeds those events again.
#[tokio::test]
async fn findings_follow_the_replay_back_and_forth() {
    let sc = with_faults();
    let mut app = replay_app(&sc);
    let checks = mcpscope::checks::LiveChecks::spawn(
        app.trace().clone(),
        mcpscope::checks::CheckConfig::default(),
    );
    app.apply(Action::ReplayEnd);
    checks.sync();
    app.add_findings(checks.findings_since(0));
    let all = app.panes.findings.list.len();
    let first = app
        .panes
        .findings
        .list
        .iter()
        .map(|f| f.seqs.iter().max().copied().unwrap_or(0))
        .min()
        .unwrap();
    let total = app.shell.replay.unwrap().total;
    assert!(all > 0 && (first as usize) < total);
    // Back to just before the first finding's last frame: none is listed.
    while app.shell.replay.unwrap().fed > first as usize {
        app.apply(Action::ReplayBack);
    }
    checks.sync();
    app.add_findings(checks.findings_since(all));
    assert_eq!(app.panes.findings.list.len(), 0);
    assert_eq!(app.panes.findings.counts.total(), 0);
    // Forward: they come back as their frames are fed, never twice.
    app.apply(Action::ReplayStep);
    checks.sync();
    app.add_findings(checks.findings_since(all));
    assert!(!app.panes.findings.list.is_empty());
    app.apply(Action::ReplayEnd);
    checks.sync();
    app.add_findings(checks.findings_since(all));
    assert_eq!(app.panes.findings.list.len(), all);
    assert_eq!(checks.len(), all, "the checks judged each event once");
    checks.stop();
}

/// The Scope view keeps its span and cursor over a step back: only its
/// marks are taken in again, and they are those of the earlier screen.
#[test]
fn the_scope_keeps_its_zoom_over_a_step_back() {
    let sc = mid_progress();
    let total = recorded(&sc).len();
    let mut app = replay_app(&sc);
    app.apply(Action::ReplayEnd);
    while app.sync() {}
    app.apply(Action::FocusScope);
    app.apply(Action::ZoomIn);
    app.apply(Action::ZoomIn);
    app.apply(Action::CursorLeft);
    let (span, col) = (app.panes.scope.span, app.panes.scope.col);
    app.apply(Action::ReplayBack);
    assert_eq!(fed(&app), total - 1);
    assert_eq!((app.panes.scope.span, app.panes.scope.col), (span, col));
    let mut fwd = replay_app(&sc);
    for _ in 0..total - 1 {
        fwd.apply(Action::ReplayStep);
    }
    assert_eq!(
        app.panes.scope.index.marks(),
        fwd.panes.scope.index.marks(),
        "the marks of the first {} events",
        total - 1
    );
}

/// A 2026-07-28 session names its server in `server/discover`'s `_meta`
/// (there is no `serverInfo` field): the replay's header reads it there.
#[test]
fn a_replayed_discovery_names_the_server_in_the_header() {
    let sc = Scenario::new();
    sc.out(serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover"}));
    sc.inn(serde_json::json!({"jsonrpc": "2.0", "id": 0, "result": {
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "wizard-server", "version": "2.3.4"}},
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}}
    }}));
    let mut app = replay_app(&sc);
    app.advance_replay(std::time::Duration::from_secs(1));
    app.sync();
    let screen = render(&mut app, 160, 48);
    let header = screen.lines().next().unwrap_or_default();
    assert!(header.contains("wizard-server 2.3.4"), "{header}");
    assert!(!header.contains(" ? "), "{header}");
}

/// A server that names itself nowhere keeps the recording's name for it.
#[test]
fn a_replayed_server_without_a_name_keeps_the_recordings_name() {
    let sc = Scenario::new();
    sc.out(serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}));
    sc.inn(serde_json::json!({"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": "2025-06-18", "capabilities": {}
    }}));
    let mut app = replay_app(&sc);
    app.advance_replay(std::time::Duration::from_secs(1));
    app.sync();
    let screen = render(&mut app, 120, 30);
    let header = screen.lines().next().unwrap_or_default();
    assert!(!header.contains("│ ? │"), "{header}");
    assert!(header.contains("server"), "{header}");
}
