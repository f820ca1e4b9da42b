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
    // The help's own corners, around its title (a focused pane's border
    // may share the row).
    let title = lines[top].iter().collect::<String>();
    let at = title[..title.find("Help — keys").unwrap()].chars().count();
    let x0 = lines[top][..at].iter().rposition(|c| *c == '┏').unwrap();
    let x1 = at + lines[top][at..].iter().position(|c| *c == '┓').unwrap();
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

/// `/` in the help types a search: rows whose keys or description hold
/// it (any case) stay, under their group's heading; the title says the
/// query and how many rows match; Esc drops the search, then closes.
#[test]
fn help_is_searched_by_key_or_description_at_every_size() {
    for (w, h) in [(80, 24), (120, 30), (160, 48)] {
        let sc = mid_progress();
        let mut app = app(&sc);
        app.apply(Action::FocusRaw);
        app.apply(Action::Help);
        key(&mut app, KeyCode::Char('/'));
        typed(&mut app, "COPY");
        let screen = render(&mut app, w, h);
        let rows = help_rows(&screen);
        // Raw's y, Composer's copy of the command line: by description.
        assert!(
            rows.iter()
                .any(|r| r.starts_with('y') && r.contains("copy")),
            "{w}x{h}: the Raw pane's copy key:\n{screen}"
        );
        // A key row has its keys padded to a column; headings have no gap.
        assert!(
            rows.iter()
                .filter(|r| r.contains("  "))
                .all(|r| r.to_lowercase().contains("copy")),
            "{w}x{h}: only matching rows (and headings):\n{screen}"
        );
        assert!(
            !rows.iter().any(|r| r.contains("quit")),
            "{w}x{h}: quit does not match:\n{screen}"
        );
        let n = rows.iter().filter(|r| r.contains("  ")).count();
        assert!(
            screen.contains(&format!("\"COPY\": {n} matches")),
            "{w}x{h}: the title counts {n} matches:\n{screen}"
        );
        // Enter keeps the search; the keys scroll the matches.
        key(&mut app, KeyCode::Enter);
        assert!(app.overlays.help.is_some());
        let kept = render(&mut app, w, h);
        assert!(kept.contains("\"COPY\": "), "{w}x{h}:\n{kept}");

        // By key: `G` is Bottom's second key.
        key(&mut app, KeyCode::Char('/'));
        for _ in 0..4 {
            key(&mut app, KeyCode::Backspace);
        }
        typed(&mut app, "ctrl-");
        let screen = render(&mut app, w, h);
        let rows = help_rows(&screen);
        assert!(
            rows.iter().any(|r| r.contains("Ctrl-d")) && rows.iter().any(|r| r.contains("Ctrl-c")),
            "{w}x{h}: keys with Ctrl:\n{screen}"
        );
        key(&mut app, KeyCode::Enter);

        // Esc drops the search, and a second Esc closes the help.
        key(&mut app, KeyCode::Esc);
        assert!(app.overlays.help.is_some(), "{w}x{h}: still open");
        let all = render(&mut app, w, h);
        assert!(
            !all.contains("matches") && help_rows(&all).iter().any(|r| r.contains("quit")),
            "{w}x{h}: every row again:\n{all}"
        );
        key(&mut app, KeyCode::Esc);
        assert!(app.overlays.help.is_none(), "{w}x{h}: closed");
    }
}

/// A search nothing matches says so rather than showing an empty frame.
#[test]
fn a_help_search_with_no_match_says_so() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::Help);
    key(&mut app, KeyCode::Char('/'));
    typed(&mut app, "zzzz");
    let screen = render(&mut app, 120, 30);
    assert!(
        screen.contains("\"zzzz\": 0 matches") && screen.contains("no key or description holds"),
        "{screen}"
    );
}
