//! What is global to the screen: help, zoom, focus, the mouse, the header.

use crate::support::*;
use mcpscope::tui::pane::Pane;

#[test]
fn keys_help_zoom_focus_and_mouse() {
    let sc = mid_progress();
    let mut app = app(&sc);
    key(&mut app, KeyCode::Char('?'));
    assert!(app.overlays.help.is_some());
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.overlays.help, Some(1));
    key(&mut app, KeyCode::Esc);
    assert!(app.overlays.help.is_none());
    key(&mut app, KeyCode::Char('3'));
    assert_eq!(app.shell.focus, Pane::Logs);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.shell.focus, Pane::Raw);
    key(&mut app, KeyCode::Char('z'));
    assert!(app.shell.zoom);
    key(&mut app, KeyCode::Esc);
    assert!(!app.shell.zoom);

    // A click in the Timeline focuses it and selects the row under the pointer.
    app.resize(160, 48);
    let r = app.layout().rect(Pane::Timeline).unwrap();
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: r.x + 5,
        row: r.y + 3,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.shell.focus, Pane::Timeline);
    let len = app.panes.timeline.view.len(&sc.trace.read());
    let h = (r.height - 3) as usize;
    assert_eq!(app.panes.timeline.cursor.selected, len - h + 1);
    assert!(!app.panes.timeline.follow);
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::ScrollUp,
        column: r.x + 5,
        row: r.y + 3,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.panes.timeline.cursor.selected, len - h - 2);
    key(&mut app, KeyCode::Char('q'));
    assert!(app.should_quit());
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
