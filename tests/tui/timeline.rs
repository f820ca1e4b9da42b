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
