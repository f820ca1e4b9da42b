//! The layout at the sizes people use: at 120×30 every pane of the
//! automatic arrangement shows enough to read (Logs five rows with 40
//! columns of message, Tools ten rows, the Timeline its call column, Raw
//! broken between words), measured on the rendered screen; `Z` cycles the
//! arrangement and settings.toml's `layout` starts with one.

use crate::support::*;
use mcpscope::tui::layout::Arrangement;

/// 19 tools, like a real server's list.
fn many_tools() -> Vec<serde_json::Value> {
    let mut t = tools();
    for i in 0..14 {
        t.push(
            json!({"name": format!("extra_tool_{i:02}"), "description": "One more tool.",
                      "inputSchema": {"type": "object"}}),
        );
    }
    t
}

/// Rows of the Tools list (above the line before the details).
pub fn listed_tools(tools: &PaneBox) -> usize {
    tools
        .rows
        .iter()
        .take_while(|r| !r.contains('─'))
        .filter(|r| !r.trim().is_empty())
        .count()
}

/// Columns of a Logs row from where its message starts to the border.
fn message_width(logs: &PaneBox, message: &str) -> usize {
    let row = logs
        .rows
        .iter()
        .find(|r| r.contains(message))
        .unwrap_or_else(|| panic!("no log row with {message}: {:?}", logs.rows));
    let start = row[..row.find(message).unwrap()].chars().count();
    logs.right - logs.left - 1 - start
}

#[test]
fn logs_keep_five_rows_and_forty_columns_at_120x30() {
    let sc = mid_progress();
    let mut app = app(&sc);
    // Whichever pane is focused, Logs is readable.
    for focus in [
        Action::FocusProgress,
        Action::FocusTimeline,
        Action::FocusLogs,
        Action::FocusRaw,
        Action::FocusTools,
        Action::FocusComposer,
    ] {
        app.apply(focus);
        let screen = render(&mut app, 120, 30);
        let logs = pane(&screen, "3 Logs");
        assert!(
            logs.rows.len() >= 5,
            "{focus:?}: Logs has {} rows:\n{screen}",
            logs.rows.len()
        );
        let w = message_width(&logs, "cache hit");
        assert!(w >= 40, "{focus:?}: {w} columns of message:\n{screen}");
    }
    app.apply(Action::FocusLogs);
    insta::assert_snapshot!("logs_focused_120x30", render(&mut app, 120, 30));
}

#[test]
fn tools_list_shows_ten_rows_at_120x30() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.on_msg(mcpscope::tui::action::Msg::Tools(Ok(many_tools())));
    app.sync();
    app.apply(Action::FocusTools);
    // As a tab at 80×24 too.
    for (w, h) in [(80, 24), (120, 30)] {
        let screen = render(&mut app, w, h);
        let names = listed_tools(&pane(&screen, "5 Tools"));
        assert!(names >= 10, "{w}x{h}: Tools shows {names} tools:\n{screen}");
    }
    let screen = render(&mut app, 120, 30);
    // The Timeline beside it keeps its call column whole.
    let timeline = pane(&screen, "2 Timeline");
    assert!(timeline.rows[0].contains("call"), "{screen}");
    assert!(
        timeline.rows.iter().any(|r| r.contains("#5 upload_file ")),
        "the call column is cut:\n{screen}"
    );
    let logs = pane(&screen, "3 Logs");
    assert!(message_width(&logs, "cache hit") >= 40, "{screen}");
    insta::assert_snapshot!("tools_focused_120x30", screen);
}

#[test]
fn timeline_keeps_its_call_column_at_120x30() {
    let sc = mid_progress();
    let mut app = app(&sc);
    for focus in [
        Action::FocusTimeline,
        Action::FocusRaw,
        Action::FocusComposer,
    ] {
        app.apply(focus);
        let screen = render(&mut app, 120, 30);
        let timeline = pane(&screen, "2 Timeline");
        assert!(timeline.rows[0].contains(" call "), "{focus:?}:\n{screen}");
        assert!(
            timeline.rows.iter().any(|r| r.contains("#5 upload_file ")),
            "{focus:?}: the call column is cut:\n{screen}"
        );
        assert!(
            timeline.rows.len() >= 4,
            "{focus:?}: Timeline has {} rows:\n{screen}",
            timeline.rows.len()
        );
    }
}

#[test]
fn raw_breaks_between_words_at_120x30() {
    let sc = mid_progress();
    let mut app = app(&sc);
    let mut narrow = 0;
    for focus in [Action::FocusTimeline, Action::FocusRaw] {
        app.apply(focus);
        let screen = render(&mut app, 120, 30);
        let raw = pane(&screen, "4 Raw");
        if focus == Action::FocusTimeline {
            narrow = raw.right - raw.left;
        }
        for pair in raw.rows.windows(2) {
            let Some(next) = pair[1].trim_start().strip_prefix("↪ ") else {
                continue;
            };
            // A row broken inside a word is full (Raw keeps its last
            // column free); one broken at a space ends before it.
            let (a, b) = (pair[0].trim_end(), next);
            let full = a.chars().count() + 1 >= pair[0].chars().count();
            let mid_word = full
                && a.ends_with(|c: char| c.is_alphanumeric())
                && b.starts_with(|c: char| c.is_alphanumeric());
            assert!(!mid_word, "{focus:?}: Raw breaks a word:\n{screen}");
        }
    }
    // Focused, Raw grows wider; the Logs beside it keep their message.
    let screen = render(&mut app, 120, 30);
    let raw = pane(&screen, "4 Raw");
    assert!(raw.right - raw.left >= narrow + 8, "{screen}");
    assert!(
        message_width(&pane(&screen, "3 Logs"), "cache hit") >= 40,
        "{screen}"
    );
    insta::assert_snapshot!("raw_focused_120x30", screen);
}

/// Held to a share of the height, Progress shows whole calls: no rows
/// left blank under the last gauge it had room for, at the medium sizes
/// (below 120×30 the panes are tabs) whatever else is focused.
#[test]
fn progress_shows_whole_gauges_when_held_to_its_share() {
    let sc = mid_progress();
    let mut app = app(&sc);
    for (w, h) in [(120, 30), (140, 36), (150, 40)] {
        for focus in [Action::FocusTimeline, Action::FocusLogs, Action::FocusRaw] {
            app.apply(focus);
            let screen = render(&mut app, w, h);
            let progress = pane(&screen, "1 Progress");
            let rows = progress.rows.len();
            assert!(rows >= 3, "{w}x{h}: {rows} rows\n{screen}");
            assert!(
                progress.rows.iter().all(|r| !r.trim().is_empty()),
                "{w}x{h}: a blank row\n{screen}"
            );
        }
    }
}

#[test]
fn the_160x48_screen_keeps_every_pane_in_proportion() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusLogs);
    let screen = render(&mut app, 160, 48);
    // Timeline three fifths of the lists' height (no findings yet).
    let timeline = pane(&screen, "2 Timeline");
    let logs = pane(&screen, "3 Logs");
    assert!(timeline.rows.len() > logs.rows.len(), "{screen}");
    assert!(logs.top > timeline.top);
}

#[test]
fn z_cycles_the_arrangement_and_settings_choose_the_first() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusLogs);
    let auto = render(&mut app, 120, 30);
    app.apply(Action::CycleLayout);
    let full = render(&mut app, 120, 30);
    assert!(full.contains("layout: full"), "{full}");
    // Full: fixed proportions, Raw keeps its narrow column.
    assert!(pane(&full, "3 Logs").rows.len() < pane(&auto, "3 Logs").rows.len());
    app.apply(Action::CycleLayout);
    let tabs = render(&mut app, 120, 30);
    assert!(tabs.contains("layout: tabs"), "{tabs}");
    assert!(
        !tabs.contains("2 Timeline ·"),
        "one pane at a time:\n{tabs}"
    );
    app.apply(Action::CycleLayout);
    assert!(render(&mut app, 120, 30).contains("layout: auto"));

    let mut s = mcpscope::tui::settings::Settings::default();
    assert_eq!(s.layout, Arrangement::Auto);
    s.apply("layout = \"tabs\"").unwrap();
    assert_eq!(s.layout, Arrangement::Tabs);
    assert!(s.apply("layout = \"grid\"").is_err());
    let opts = AppOptions {
        arrangement: s.layout,
        ..Default::default()
    };
    let mut app = App::new(sc.trace.clone(), opts);
    app.sync();
    let screen = render(&mut app, 160, 48);
    assert!(!screen.contains("2 Timeline ·"), "{screen}");
}
