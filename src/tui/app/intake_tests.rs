//! A flood's backlog and what the user does: a key is handled and drawn
//! from what the views already hold, and the backlog is taken in by
//! bounded slices that together miss nothing. Slices are stopped by an
//! injected "enough" (a count here, the wall clock in the runtime).

use super::*;
use crate::trace::{Dir, ManualClock, Store};
use crossterm::event::{KeyCode, KeyModifiers};

fn log(n: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":{{"n":{n}}}}}}}"#
    )
}

fn append_logs(trace: &Trace, from: u64, n: u64) {
    trace.append(|s, _| {
        for i in from..from + n {
            s.append_frame(
                Dir::In,
                "stdio",
                i * 1000,
                log(i).as_bytes(),
                &mut Vec::new(),
            );
        }
    });
}

/// An App that has taken in `synced` log lines, over a store that then
/// gained `backlog` more, which the runtime was told of (`behind`).
fn flooded(synced: u64, backlog: u64) -> App {
    let trace = Trace::new(Store::default(), ManualClock::new());
    append_logs(&trace, 0, synced);
    let mut app = App::new(trace.clone(), AppOptions::default());
    app.resize(160, 50);
    while app.sync() {}
    append_logs(&trace, synced, backlog);
    app.behind = true;
    app
}

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

#[test]
fn a_key_during_a_flood_takes_nothing_in() {
    let mut app = flooded(10, 50_000);
    assert_eq!(app.shell.events, 10);
    app.handle_key(key('2'));
    assert_eq!(app.shell.focus, Pane::Timeline);
    // The key's update settled the views but scanned none of the backlog:
    // that is the next slice's work, after the key's frame.
    assert_eq!(app.shell.events, 10);
    assert_eq!(app.panes.logs.view.len(), 10);
    assert!(app.behind);
    app.handle_key(key('?'));
    assert!(app.overlays.help.is_some());
    assert_eq!(app.panes.logs.view.len(), 10);
}

#[test]
fn a_cleared_filter_still_rescans_at_once() {
    let mut app = flooded(10, 0);
    app.panes
        .logs
        .view
        .set_filter(crate::protocol::views::LogLevel::Debug, "n\":3", true);
    while app.sync() {}
    assert_eq!(app.panes.logs.view.len(), 1);
    app.handle_key(key('3'));
    assert_eq!(app.shell.focus, Pane::Logs);
    app.apply(Action::ClearFilter);
    assert_eq!(app.panes.logs.view.len(), 10);
}

#[test]
fn slices_are_bounded_and_together_take_in_every_event() {
    let backlog = 3 * super::sync::SLICE + 100;
    let mut app = flooded(0, backlog);
    let trace = app.trace().clone();
    let store = trace.read();
    // Enough after the second slice: two slices' worth, no more.
    let mut asked = 0;
    let behind = app.sync_until(&store, || {
        asked += 1;
        asked >= 2
    });
    assert!(behind);
    assert_eq!(asked, 2);
    assert_eq!(app.panes.logs.view.len() as u64, 2 * super::sync::SLICE);
    // One slice a call from here on, until nothing is left.
    let mut calls = 0;
    while app.sync_until(&store, || true) {
        calls += 1;
        assert!(calls < 10, "the slices never caught up");
    }
    assert_eq!(app.panes.logs.view.len() as u64, backlog);
    assert!(!app.behind);
}
