//! The Timeline pane: follow mode, kind and text filters, lanes.

use crate::support::*;
use mcpscope::protocol::IdKey;
use mcpscope::tui::pane::Pane;
use mcpscope::tui::views::KindFilter;

#[test]
fn follow_mode_stops_when_scrolling_and_resumes_at_the_end() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusTimeline);
    let len = sc.trace.read().len() as usize;
    assert!(app.panes.timeline.follow);
    assert_eq!(app.panes.timeline.cursor.selected, len - 1);
    app.apply(Action::Up);
    assert!(!app.panes.timeline.follow);
    let held = app.panes.timeline.cursor.selected;
    sc.at_ms(1500).log("info", "x", json!("more"));
    app.sync();
    assert_eq!(
        app.panes.timeline.cursor.selected, held,
        "paused: new events do not move the selection"
    );
    app.apply(Action::Bottom);
    assert!(app.panes.timeline.follow);
    sc.at_ms(1600).log("info", "x", json!("even more"));
    app.sync();
    assert_eq!(app.panes.timeline.cursor.selected, len + 1);
    // The Raw pane follows the timeline's selection.
    assert_eq!(app.panes.raw.seq, Some(len as u64 + 1));
}

#[test]
fn kind_and_text_filters_are_incremental() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusTimeline);
    // all → calls → notifications → progress
    for _ in 0..3 {
        app.apply(Action::CycleKind);
    }
    assert_eq!(app.panes.timeline.view.kind, KindFilter::Progress);
    let store_len = |app: &App| {
        let s = sc.trace.read();
        app.panes.timeline.view.len(&s)
    };
    assert_eq!(store_len(&app), 10);
    sc.at_ms(1500).progress(
        json!("mcpscope-2"),
        4.0,
        None,
        "[generating] model_resolution",
    );
    sc.at_ms(1501).log("info", "t", json!("not progress"));
    app.sync();
    assert_eq!(store_len(&app), 11, "new matching events extend the view");

    app.apply(Action::Filter);
    typed(&mut app, "GENERATING");
    assert_eq!(
        store_len(&app),
        1,
        "the text filter is case-insensitive and applies while typing"
    );
    key(&mut app, KeyCode::Esc);
    assert_eq!(store_len(&app), 11, "Esc restores the previous filter");
    app.apply(Action::CycleKindBack);
    app.apply(Action::CycleKindBack);
    app.apply(Action::CycleKindBack);
    assert_eq!(app.panes.timeline.view.kind, KindFilter::All);
    assert_eq!(store_len(&app), sc.trace.read().len() as usize);

    for _ in 0..KindFilter::ORDER.len() - 1 {
        app.apply(Action::CycleKind);
    }
    assert_eq!(app.panes.timeline.view.kind, KindFilter::Problems);
    assert_eq!(
        store_len(&app),
        2,
        "the line that is not JSON, the late response"
    );
}

#[test]
fn a_lane_shows_one_request_and_flags_what_came_after_its_response() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::Top);
    app.apply(Action::ShowLane);
    assert_eq!(app.shell.focus, Pane::Timeline);
    let lane = app.panes.timeline.view.lane.clone().expect("lane");
    assert_eq!(lane.id, IdKey::Int(1));
    assert_eq!(lane.seqs.len(), 5, "request + 4 progress");
    sc.at_ms(1500).result(1, "done", false);
    sc.at_ms(1510)
        .progress(json!("mcpscope-1"), 5_242_880.0, Some(5_242_880.0), "late");
    sc.at_ms(1520).log("info", "x", json!("unrelated"));
    app.sync();
    let lane = app.panes.timeline.view.lane.clone().unwrap();
    assert_eq!(lane.seqs.len(), 7);
    let store = sc.trace.read();
    let resp = lane.response_seq(&store).unwrap();
    assert_eq!(
        lane.seqs.iter().filter(|s| **s > resp).count(),
        1,
        "the late progress"
    );
    drop(store);
    app.apply(Action::ClearLane);
    assert!(app.panes.timeline.view.lane.is_none());
}

/// The Timeline's rows on screen: the lines from its column header (which
/// starts with `time` or `UTC`) down to its border.
fn timeline_rows(screen: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for l in screen.lines() {
        let cell = l
            .split(['│', '┃'])
            .find(|c| c.trim_start().starts_with("time ") || c.trim_start().starts_with("UTC "));
        if let Some(c) = cell {
            inside = true;
            out.push(c.to_string());
            continue;
        }
        if inside {
            match l
                .split(['│', '┃'])
                .find(|c| c.contains(" ← ") || c.contains(" → "))
            {
                Some(c) => out.push(c.to_string()),
                None => break,
            }
        }
    }
    out
}

#[test]
fn the_summary_gets_what_is_left_and_times_read_since_the_start_at_every_size() {
    for (w, h) in [(80, 24), (120, 30), (160, 48)] {
        let sc = mid_progress();
        let mut app = app(&sc);
        app.apply(Action::FocusTimeline);
        app.apply(Action::Zoom);
        app.apply(Action::Zoom);
        let screen = render(&mut app, w, h);
        let rows = timeline_rows(&screen);
        assert!(
            rows.len() > 3,
            "{w}x{h}: the timeline is on screen:\n{screen}"
        );
        let header = &rows[0];
        let at = header
            .find("summary")
            .unwrap_or_else(|| panic!("{w}x{h}: {header}"));
        let room = header.chars().count() - header[..at].chars().count();
        assert!(
            room >= 20,
            "{w}x{h}: the summary gets {room} columns:\n{screen}"
        );
        // Times since the session started, to the millisecond.
        assert!(screen.contains("+1.100s"), "{w}x{h}:\n{screen}");
        assert!(!screen.contains("1100.0"), "{w}x{h}:\n{screen}");
        // The upload's last progress row shows its numbers whole.
        assert!(
            rows.iter().any(|r| r.contains("2097152/5242880 (40%)")),
            "{w}x{h}:\n{screen}"
        );
    }
}

#[test]
fn the_channel_column_shows_only_where_the_rows_come_from_several_streams() {
    let sc = http_session();
    let mut app = http_app(&sc);
    app.apply(Action::FocusTimeline);
    let screen = render(&mut app, 160, 48);
    let rows = timeline_rows(&screen);
    assert!(rows[0].contains("channel"), "{screen}");
    // One stream's rows only: the column says nothing and is gone.
    app.apply(Action::Filter);
    typed(&mut app, "provider_process_starting");
    key(&mut app, KeyCode::Enter);
    let screen = render(&mut app, 160, 48);
    let rows = timeline_rows(&screen);
    assert!(!rows[0].contains("channel"), "{screen}");
    // A stdio session never has it.
    let sc = mid_progress();
    let mut stdio = crate::support::app(&sc);
    let screen = render(&mut stdio, 160, 48);
    assert!(!timeline_rows(&screen)[0].contains("channel"), "{screen}");
}

#[test]
fn t_toggles_the_wall_clock_when_the_start_is_known() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusTimeline);
    key(&mut app, KeyCode::Char('t'));
    assert!(!app.panes.timeline.wall_clock, "no wall-clock start known");
    assert!(app.shell.notice.as_deref().unwrap().contains("not known"));
    let opts = AppOptions {
        wall_start: mcpscope::tui::panes::scope::WallStart::parse_rfc3339("2026-12-01T21:19:33Z"),
        ..AppOptions::default()
    };
    let mut app = App::new(sc.trace.clone(), opts);
    app.on_msg(Msg::Tools(Ok(tools())));
    app.apply(Action::FocusTimeline);
    key(&mut app, KeyCode::Char('t'));
    assert!(app.panes.timeline.wall_clock);
    let screen = render(&mut app, 160, 48);
    // Known to the second only: marked as approximate.
    assert!(screen.contains("≈21:19:34"), "{screen}");
    assert!(
        timeline_rows(&screen)[0].trim_start().starts_with("UTC"),
        "{screen}"
    );
    key(&mut app, KeyCode::Char('t'));
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("+1.100s"), "{screen}");
}

/// `F` types a filter in the filter language: applied while it parses, the
/// last good one kept (and the error in the title) while it does not,
/// backspace clears it.
#[test]
fn a_filter_expression_selects_a_calls_messages() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusTimeline);
    let rows = |app: &App| {
        let s = sc.trace.read();
        let v = &app.panes.timeline.view;
        (0..v.len(&s))
            .filter_map(|i| v.seq_at(i, &s))
            .collect::<Vec<u64>>()
    };
    let all = rows(&app).len();
    key(&mut app, KeyCode::Char('F'));
    typed(&mut app, "tool == upload_file && progress");
    key(&mut app, KeyCode::Enter);
    app.sync();
    let picked = rows(&app);
    assert!(!picked.is_empty() && picked.len() < all, "{picked:?}");
    {
        let s = sc.trace.read();
        for seq in &picked {
            let ev = s.get(*seq).unwrap();
            assert_eq!(ev.method, Some("notifications/progress"), "#{seq}");
            assert!(ev.text().contains("mcpscope-1"), "#{seq}: {}", ev.text());
        }
    }
    app.apply(Action::Zoom);
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains("where tool == upload_file && progress"),
        "{screen}"
    );

    // A filter that does not parse keeps the last good one and says why.
    key(&mut app, KeyCode::Char('F'));
    typed(&mut app, " &&");
    app.sync();
    assert_eq!(rows(&app), picked);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("✗ column 35"), "{screen}");
    key(&mut app, KeyCode::Esc);
    assert!(app.panes.timeline.expr_error.is_none());

    app.apply(Action::ClearFilter);
    app.sync();
    assert_eq!(rows(&app).len(), all);
}
