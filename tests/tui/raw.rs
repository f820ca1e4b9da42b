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

#[test]
fn long_strings_wrap_in_the_pretty_view_at_every_size() {
    for (w, h) in [(80, 24), (120, 30), (160, 48)] {
        let sc = mid_progress();
        let long = format!(
            "{} THE-END",
            "a long log line from the server that goes on ".repeat(4)
        );
        sc.at_ms(1300).log("info", "tracker", json!(long));
        let mut app = app(&sc);
        // The Timeline follows: the log is selected and Raw shows it.
        app.apply(Action::FocusRaw);
        let mut screen = render(&mut app, w, h);
        assert!(
            screen.contains("↪ "),
            "{w}x{h}: continuation marked:\n{screen}"
        );
        // Paging down reaches the string's end: nothing is clipped away.
        for _ in 0..5 {
            if screen.contains("THE-END") {
                break;
            }
            app.apply(Action::PageDown);
            screen = render(&mut app, w, h);
        }
        assert!(
            screen.contains("THE-END"),
            "{w}x{h}: the string's end is on screen:\n{screen}"
        );
        // Copying gives the frame as pretty-printed, without the wrapping.
        let copied = app.apply(Action::Copy);
        let [Effect::Copy { text, .. }] = &copied[..] else {
            panic!("{copied:?}")
        };
        assert!(!text.contains('↪') && text.contains(&long), "{text}");
    }
}

/// The Raw pane's title is fitted to its width: what the user searched
/// for and where they are among its matches is kept before the event's
/// own details, shortened when even that does not fit. At 160×48 the
/// pane is about 38 columns wide.
#[test]
fn the_search_count_stays_in_the_title_of_a_narrow_raw_pane() {
    for (w, h) in [(80, 24), (120, 30), (160, 48)] {
        for (query, count) in [
            ("protocolversion", "\" 1/1"),
            (&"a query longer than any pane ".repeat(5), "…\" 0/0"),
        ] {
            let sc = mid_progress();
            let mut app = app(&sc);
            app.apply(Action::FocusTimeline);
            app.apply(Action::Top);
            app.apply(Action::Down); // initialize request
            app.apply(Action::FocusRaw);
            app.apply(Action::Search);
            typed(&mut app, query);
            key(&mut app, KeyCode::Enter);
            let screen = render(&mut app, w, h);
            // The pane's top border (not the tab bar), from its corner on.
            let title = screen
                .lines()
                .find_map(|l| {
                    l.find("┏ 4 Raw ")
                        .or_else(|| l.find("╭ 4 Raw "))
                        .map(|i| &l[i..])
                })
                .unwrap_or_else(|| panic!("{w}x{h}: no Raw pane:\n{screen}"));
            // The query's start, then its count.
            let start = format!("\"{}", &query[..6]);
            assert!(
                title.contains(&start) && title.contains(count),
                "{w}x{h}: {start:?}…{count:?} in the title: {title:?}\n{screen}"
            );
        }
    }
}
