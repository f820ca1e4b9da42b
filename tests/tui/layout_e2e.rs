//! End to end: the real binary in tmux on `mcpscope demo` at 120×30 and
//! 80×24: Logs keep five rows with 40 columns, Tools lists ten tools, the
//! Timeline keeps its call column, and `Z` switches to tabs. Ignored by a
//! plain `cargo test` (they need tmux): `--include-ignored` runs them.

use crate::common::tmux::{Tmux, assert_restored, require_tmux};
use crate::layout::listed_tools;
use crate::support::pane;

#[test]
#[ignore = "needs tmux"]
fn every_pane_reads_at_120x30_and_80x24() {
    require_tmux();
    let t = Tmux::start_sized("layout", "demo --run 'upload_file {}'", 120, 30);
    t.wait_for("the call's progress", 30, |s| {
        s.contains("upload_file") && s.contains(" call ")
    });
    t.keys(&["3"]);
    let s = t.wait_for("Logs focused", 10, |s| s.contains("┏ 3 Logs"));
    let logs = pane(&s, "3 Logs");
    assert!(logs.rows.len() >= 5, "{s}");
    // Inside the border: 40 columns for the message after its time,
    // source, level and logger.
    let inner = logs.right - logs.left - 1;
    assert!(inner >= 80, "{s}");
    assert!(pane(&s, "2 Timeline").rows[0].contains(" call "), "{s}");
    t.keys(&["5"]);
    // A capture may catch the terminal mid-frame (the pane's first rows
    // drawn, the rest not yet): waited for whole.
    let s = t.wait_for("Tools focused, ten listed", 10, |s| {
        tools_whole(s) && listed_tools(&pane(s, "5 Tools")) >= 10
    });
    let logs = pane(&s, "3 Logs");
    // Inside the border: 40 columns for the message after its time,
    // source, level and logger.
    let inner = logs.right - logs.left - 1;
    assert!(inner >= 80, "{s}");
    t.keys(&["Z", "Z"]);
    let s = t.wait_for("tabs", 10, |s| s.contains("layout: tabs"));
    assert!(!s.contains("1 Progress ·"), "one pane at a time:\n{s}");
    t.keys(&["Z"]);
    t.keys(&["q"]);
    assert_restored(&t);

    let t = Tmux::start_sized("layout", "demo", 80, 24);
    t.wait_for("the tab bar", 30, |s| {
        s.contains("2 Timeline") && s.contains("events")
    });
    t.keys(&["5"]);
    t.wait_for("Tools, ten listed", 10, |s| {
        tools_whole(s) && listed_tools(&pane(s, "5 Tools")) >= 10
    });
    t.keys(&["q"]);
    assert_restored(&t);
}

/// The Tools pane is focused and its top border drawn whole (so `pane`
/// can read it from a capture taken mid-frame).
fn tools_whole(s: &str) -> bool {
    s.lines()
        .any(|l| l.contains("┏ 5 Tools") && l.contains('┓'))
}
