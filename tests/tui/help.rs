//! The help overlay: the focused pane's keys first, and PgDn a page.

use crate::support::*;

/// The help's rows: the text inside its frame, below its title.
fn help_rows(screen: &str) -> Vec<String> {
    let lines: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
    let Some(top) = lines
        .iter()
        .position(|l| l.iter().collect::<String>().contains("Help — keys"))
    else {
        return Vec::new();
    };
    let x0 = lines[top].iter().position(|c| *c == '┏').unwrap();
    let x1 = lines[top].iter().rposition(|c| *c == '┓').unwrap();
    lines[top + 1..]
        .iter()
        .take_while(|l| l.get(x0) != Some(&'┗'))
        .map(|l| {
            l.get(x0 + 1..x1.min(l.len()))
                .unwrap_or(&[])
                .iter()
                .collect::<String>()
                .trim()
                .to_string()
        })
        .collect()
}

#[test]
fn the_focused_panes_keys_come_first_at_every_size() {
    for (w, h) in [(80, 24), (120, 30), (160, 48)] {
        for (focus, heading, first_key) in [
            (Action::FocusTimeline, "Timeline", "t"),
            (Action::FocusRaw, "Raw", "b"),
            (Action::FocusComposer, "Composer", "Enter, e, i"),
        ] {
            let sc = mid_progress();
            let mut app = app(&sc);
            app.apply(focus);
            app.apply(Action::Help);
            let screen = render(&mut app, w, h);
            let rows = help_rows(&screen);
            assert_eq!(rows[0], heading, "{w}x{h}:\n{screen}");
            assert!(
                rows[1..].iter().take(12).any(|r| r.starts_with(first_key)),
                "{w}x{h} {heading}: its keys follow:\n{screen}"
            );
        }
    }
}

#[test]
fn page_down_moves_a_page() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::Help);
    let before = help_rows(&render(&mut app, 120, 30));
    key(&mut app, KeyCode::PageDown);
    let after = help_rows(&render(&mut app, 120, 30));
    // A page: the row after the last shown is now (about) the first.
    let last = before.last().unwrap();
    let at = after.iter().position(|r| r == last);
    assert!(
        matches!(at, Some(0) | Some(1)),
        "{last:?} at {at:?} after PgDn:\n{}",
        after.join("\n")
    );
}
