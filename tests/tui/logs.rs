//! The Logs pane: level, text and source filters.

use crate::support::*;
use mcpscope::protocol::views::LogLevel;

#[test]
fn logs_filter_by_level_text_and_source() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusLogs);
    use Action::{LevelDown, LevelUp, ToggleStderr};
    // (actions, minimum level, rows shown, what they are)
    let steps: &[(&[Action], LogLevel, usize, &str)] = &[
        (&[], LogLevel::Debug, 5, "4 messages + 1 stderr line"),
        (
            &[LevelUp, LevelUp, LevelUp],
            LogLevel::Warning,
            3,
            "warning, error, stderr",
        ),
        (&[ToggleStderr], LogLevel::Warning, 2, "warning, error"),
        (&[LevelDown], LogLevel::Notice, 2, "no notice among them"),
    ];
    for (actions, min, rows, what) in steps {
        for a in *actions {
            app.apply(*a);
        }
        assert_eq!(app.panes.logs.view.min, *min, "{what}");
        assert_eq!(app.panes.logs.view.len(), *rows, "{what}");
    }
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
