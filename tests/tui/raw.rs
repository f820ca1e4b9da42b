//! The Raw pane: search and exact bytes.

use crate::support::*;

#[test]
fn raw_pane_searches_and_switches_to_exact_bytes() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusTimeline);
    app.apply(Action::Top);
    app.apply(Action::Down); // initialize request
    app.apply(Action::FocusRaw);
    assert!(app.panes.raw.lines.len() > 3);
    app.apply(Action::Search);
    typed(&mut app, "protocolversion");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.panes.raw.matches.len(), 1);
    app.apply(Action::ToggleBytes);
    let shown: String = app
        .panes
        .raw
        .lines
        .iter()
        .map(|l| mcpscope::tui::jsonfmt::line_text(l))
        .collect();
    let frame = sc
        .trace
        .read()
        .get(app.panes.raw.seq.unwrap())
        .unwrap()
        .text()
        .into_owned();
    assert_eq!(shown, frame, "exact bytes, cut into lines only");
    let seq = app.panes.raw.seq.unwrap();
    let copied = app.apply(Action::Copy);
    assert_eq!(
        copied,
        vec![Effect::Copy {
            text: frame,
            what: format!("frame #{seq}")
        }]
    );
}
