//! The Findings pane: counts, flags on timeline rows, walking a finding's
//! frames.

use crate::support::*;
use mcpscope::tui::pane::Pane;
use mcpscope::tui::views::KindFilter;

fn findings_app() -> (Scenario, App) {
    let sc = with_faults();
    let mut app = app(&sc);
    app.add_findings(check_all(&sc));
    (sc, app)
}

#[test]
fn a_finding_about_one_host_session_names_it_in_the_list() {
    let sc = with_faults();
    let mut app = app(&sc);
    let mut found = check_all(&sc);
    for f in &mut found {
        f.session = Some("7f3a9c01-4d2e-4b7e-9a1c-0e5d2b8f6a10".into());
    }
    app.add_findings(found);
    app.apply(Action::FocusFindings);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("[7f3a9c01-4d2…]"), "{screen}");
}

/// At 120×30 a finding's message is longer than its row: the row ends in
/// `…` at the border instead of stopping mid-word.
#[test]
fn a_message_cut_at_the_border_ends_in_an_ellipsis() {
    let (_sc, mut app) = findings_app();
    app.apply(Action::FocusFindings);
    let screen = render(&mut app, 120, 30);
    let findings = pane(&screen, "7 Findings");
    let rows: Vec<&String> = findings
        .rows
        .iter()
        .filter(|r| r.contains("progress-not-increasing"))
        .collect();
    assert!(!rows.is_empty(), "{screen}");
    for r in rows {
        assert!(r.trim_end().ends_with('…'), "{r:?}\n{screen}");
    }
}

#[test]
fn findings_are_counted_flagged_and_listed() {
    let (sc, app) = findings_app();
    let f = &app.panes.findings;
    assert!(f.counts.error >= 1, "{:?}", f.list);
    assert!(f.counts.warning >= 1, "{:?}", f.list);
    let not_inc = f
        .list
        .iter()
        .find(|x| x.rule.id() == "progress-not-increasing")
        .expect("the upload went backwards");
    assert_eq!(
        not_inc.seqs.len(),
        2,
        "the previous and the offending frame"
    );
    for s in &not_inc.seqs {
        let flag = f.flag(*s).expect("flagged");
        assert_eq!(flag.severity, mcpscope::checks::Severity::Error);
    }
    // Frames no finding names carry no flag.
    let store = sc.trace.read();
    assert!(f.flag(0).is_none() && store.next_seq() > 0);
}

#[test]
fn enter_on_a_finding_cycles_through_its_frames_in_timeline_and_raw() {
    let (sc, mut app) = findings_app();
    app.apply(Action::FocusFindings);
    assert_eq!(app.shell.focus, Pane::Findings);
    let i = app
        .panes
        .findings
        .list
        .iter()
        .position(|x| x.rule.id() == "progress-not-increasing")
        .unwrap();
    app.apply(Action::Top);
    for _ in 0..i {
        app.apply(Action::Down);
    }
    let seqs = app.panes.findings.list[i].seqs.clone();
    // A filter that hides the frame is dropped to show it.
    app.panes.timeline.view.set_filter(KindFilter::Logs, "");
    for round in 0..2 {
        for s in &seqs {
            app.apply(Action::ShowFrame);
            let store = sc.trace.read();
            let tl = &app.panes.timeline;
            assert_eq!(
                tl.view.seq_at(tl.cursor.selected, &store),
                Some(*s),
                "round {round}"
            );
            assert!(!tl.follow);
            drop(store);
            assert_eq!(app.panes.raw.seq, Some(*s), "Raw shows the frame");
        }
    }
    assert_eq!(app.panes.timeline.view.kind, KindFilter::All);
    assert!(
        app.shell
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("progress-not-increasing")),
        "{:?}",
        app.shell.notice
    );
    // Moving to another finding starts again from its first frame.
    app.apply(Action::ShowFrame);
    app.apply(Action::Up);
    app.apply(Action::Down);
    app.apply(Action::ShowFrame);
    assert_eq!(app.panes.raw.seq, Some(seqs[0]));
    // The cursor stays inside the list.
    for _ in 0..50 {
        app.apply(Action::Down);
    }
    assert_eq!(
        app.panes.findings.cursor.selected,
        app.panes.findings.list.len() - 1
    );
}

#[test]
fn findings_arrive_as_messages_and_the_pane_appears_in_the_wide_layout() {
    let sc = with_faults();
    let mut app = app(&sc);
    app.resize(160, 48);
    assert!(
        app.layout().rect(Pane::Findings).is_none(),
        "no findings, no pane"
    );
    app.on_msg(Msg::Findings(check_all(&sc)));
    assert!(app.layout().rect(Pane::Findings).is_some());
    app.resize(80, 24);
    app.apply(Action::FocusFindings);
    assert_eq!(
        app.layout().panes.len(),
        1,
        "narrow: one pane under the tabs"
    );
    assert_eq!(app.layout().panes[0].0, Pane::Findings);
}

/// One cause is one row with its count, worst first; Enter lists its
/// findings under it, and Enter on one of them walks its frames. The
/// selected row says how to fix the rule and where the spec says so.
#[test]
fn findings_of_one_cause_are_one_row_that_enter_expands() {
    let sc = with_faults();
    let mut app = app(&sc);
    let found = check_all(&sc);
    let not_inc = found
        .iter()
        .find(|x| x.rule.id() == "progress-not-increasing")
        .unwrap()
        .clone();
    // The same cause twice more, on later frames.
    let mut again = not_inc.clone();
    let last = *again.seqs.last().unwrap();
    again.seqs = vec![last + 1];
    let mut third = not_inc.clone();
    third.seqs = vec![last + 2];
    let mut all = found.clone();
    all.push(again);
    all.push(third);
    app.add_findings(all.clone());
    let f = &app.panes.findings;
    assert_eq!(f.list.len(), found.len() + 2, "every finding is kept");
    assert_eq!(f.rows().len(), f.order.len());
    assert!(f.order.len() < f.list.len());
    // Worst first.
    let severities: Vec<_> = f
        .order
        .iter()
        .map(|g| f.groups.groups()[*g].severity)
        .collect();
    let mut sorted = severities.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(severities, sorted);
    let row = f
        .rows()
        .iter()
        .position(|r| match r {
            mcpscope::tui::panes::findings::Row::Group(g) => {
                f.groups.groups()[*g].rule.id() == "progress-not-increasing"
            }
            _ => false,
        })
        .unwrap();
    app.apply(Action::FocusFindings);
    app.apply(Action::Top);
    for _ in 0..row {
        app.apply(Action::Down);
    }
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("▸×3 #"), "{screen}");
    assert!(
        screen.contains("fix: the reported counter goes back"),
        "{screen}"
    );
    let rows_before = app.panes.findings.rows().len();
    app.apply(Action::ShowFrame);
    assert_eq!(app.panes.findings.rows().len(), rows_before + 3, "expanded");
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("▾×3 #"), "{screen}");
    // The second finding of the cause: its frame in Timeline and Raw.
    app.apply(Action::Down);
    app.apply(Action::Down);
    app.apply(Action::ShowFrame);
    assert_eq!(app.panes.raw.seq, Some(last + 1));
    // Enter on the group again folds it.
    app.apply(Action::Up);
    app.apply(Action::Up);
    app.apply(Action::ShowFrame);
    assert_eq!(app.panes.findings.rows().len(), rows_before);
}
