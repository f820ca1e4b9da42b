//! Mouse hit-testing against the frame drawn, and the update step's
//! store-free reads (the Timeline's synced row count and selected call).

use super::*;
use crate::trace::{Dir, ManualClock, Store};
use crate::tui::panes::timeline::CallKey;
use crate::tui::ui;
use crossterm::event::KeyModifiers;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const W: u16 = 160;
const H: u16 = 50;

fn trace(frames: &[(Dir, String)]) -> Trace {
    let trace = Trace::new(Store::default(), ManualClock::new());
    trace.append(|s, _| {
        for (i, (dir, f)) in frames.iter().enumerate() {
            s.append_frame(
                *dir,
                "stdio",
                i as u64 * 1000,
                f.as_bytes(),
                &mut Vec::new(),
            );
        }
    });
    trace
}

fn call(id: u64) -> (Dir, String) {
    (
        Dir::Out,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t{id}","arguments":{{}},"_meta":{{"progressToken":"tok{id}"}}}}}}"#
        ),
    )
}

fn log(n: u64) -> (Dir, String) {
    (
        Dir::In,
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":{{"n":{n},"list":[1,2,3]}}}}}}"#
        ),
    )
}

fn app(frames: &[(Dir, String)]) -> App {
    let mut app = App::new(trace(frames), AppOptions::default());
    app.resize(W, H);
    while app.sync() {}
    app
}

/// Draw a frame the way the runtime does and hand its map to the App.
fn draw(app: &mut App) {
    let mut term = Terminal::new(TestBackend::new(W, H)).unwrap();
    let trace = app.trace().clone();
    let mut map = None;
    term.draw(|f| {
        let store = trace.read();
        app.sync_with(&store);
        let p = ui::prepare(f.area(), &app.view(), &store);
        drop(store);
        map = Some(ui::paint(f, &app.view(), p));
    })
    .unwrap();
    app.drawn(map.unwrap());
}

fn click(app: &mut App, x: u16, y: u16) {
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: x,
        row: y,
        modifiers: KeyModifiers::NONE,
    });
}

#[test]
fn a_click_on_any_of_a_calls_three_rows_selects_it() {
    let frames: Vec<_> = (1..=4).map(call).collect();
    let mut app = app(&frames);
    draw(&mut app);
    let r = app.layout().rect(Pane::Progress).unwrap();
    assert_eq!(app.panes.progress.calls.list.len(), 4);
    // Inside the border: rows 0-2 are the first call, 3-5 the second.
    click(&mut app, r.x + 5, r.y + 1 + 5);
    assert_eq!(app.shell.focus, Pane::Progress);
    assert_eq!(app.panes.progress.cursor.selected, 1);
    click(&mut app, r.x + 5, r.y + 1 + 3);
    assert_eq!(app.panes.progress.cursor.selected, 1);
    click(&mut app, r.x + 5, r.y + 1 + 2);
    assert_eq!(app.panes.progress.cursor.selected, 0);
}

#[test]
fn a_click_below_an_unfolded_log_entry_selects_the_entry_drawn_there() {
    let frames: Vec<_> = (0..5).map(log).collect();
    let mut app = app(&frames);
    app.apply(Action::FocusLogs);
    app.apply(Action::Top);
    app.apply(Action::Expand);
    let unfolded = app.panes.logs.expanded.as_ref().map(|(_, l)| l.len());
    assert!(unfolded.is_some_and(|n| n > 1), "the entry unfolds");
    draw(&mut app);
    let r = app.layout().rect(Pane::Logs).unwrap();
    // Entry 0, its unfolded lines, then entry 1.
    let below = r.y + 1 + 1 + unfolded.unwrap() as u16;
    click(&mut app, r.x + 5, below);
    assert_eq!(app.panes.logs.cursor.selected, 1);
    // An unfolded line belongs to its entry.
    click(&mut app, r.x + 5, r.y + 2);
    assert_eq!(app.panes.logs.cursor.selected, 0);
}

#[test]
fn a_click_lands_on_what_was_drawn_even_if_the_state_moved_since() {
    let frames: Vec<_> = (0..200).map(log).collect();
    let mut app = app(&frames);
    draw(&mut app);
    let r = app.layout().rect(Pane::Timeline).unwrap();
    let len = app.panes.timeline.len;
    let rows = (r.height - 3) as usize;
    // Following: the last rows are on screen. Jump to the top without drawing.
    app.apply(Action::FocusTimeline);
    app.apply(Action::Top);
    assert_eq!(app.panes.timeline.cursor.selected, 0);
    // The first data row on screen still shows row len - rows.
    click(&mut app, r.x + 5, r.y + 2);
    assert_eq!(app.panes.timeline.cursor.selected, len - rows);
}

#[test]
fn tabs_are_hit_where_the_tab_bar_drew_them() {
    let mut app = app(&[call(1)]);
    app.resize(100, 24);
    let mut term = Terminal::new(TestBackend::new(100, 24)).unwrap();
    let trace = app.trace().clone();
    let mut map = None;
    term.draw(|f| {
        let store = trace.read();
        let p = ui::prepare(f.area(), &app.view(), &store);
        map = Some(ui::paint(f, &app.view(), p));
    })
    .unwrap();
    let map = map.unwrap();
    let bar = map.tabs.clone().expect("a narrow terminal has tabs");
    let (pane, x0, _) = bar.tabs[2];
    app.drawn(map);
    click(&mut app, x0 + 1, bar.y);
    assert_eq!(app.shell.focus, pane);
}

#[test]
fn cancelling_from_the_timeline_uses_the_call_read_at_the_last_sync() {
    let mut app = app(&[call(1), call(2)]);
    app.apply(Action::FocusTimeline);
    app.apply(Action::Top);
    assert_eq!(
        app.panes.timeline.selected_call,
        Some(CallKey::Id(crate::protocol::IdKey::Int(1)))
    );
    let fx = app.apply(Action::CancelCall);
    assert_eq!(
        fx,
        vec![Effect::Cancel {
            id: crate::protocol::IdKey::Int(1)
        }]
    );
}
