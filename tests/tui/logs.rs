//! The Logs pane: level, text and source filters.

use crate::support::*;
use mcpscope::protocol::views::LogLevel;

#[test]
fn logs_filter_by_level_text_and_source() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusLogs);
    assert_eq!(app.panes.logs.view.len(), 5, "4 messages + 1 stderr line");
    app.apply(Action::LevelUp);
    app.apply(Action::LevelUp);
    app.apply(Action::LevelUp);
    assert_eq!(app.panes.logs.view.min, LogLevel::Warning);
    assert_eq!(app.panes.logs.view.len(), 3, "warning, error, stderr");
    app.apply(Action::ToggleStderr);
    assert_eq!(app.panes.logs.view.len(), 2);
    app.apply(Action::LevelDown);
    app.apply(Action::Filter);
    typed(&mut app, "flaky");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.panes.logs.view.len(), 1);
    app.apply(Action::Top);
    app.apply(Action::Expand);
    let (_, lines) = app.panes.logs.expanded.as_ref().expect("expanded");
    assert!(lines.len() > 3, "the data object is pretty-printed");
    app.apply(Action::Expand);
    assert!(app.panes.logs.expanded.is_none());
}
