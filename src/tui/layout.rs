//! Where each pane goes, as a pure function of the terminal size and the
//! state. The renderer records what it drew with it (`ui/hits.rs`), and
//! mouse hit-testing uses that record. Wide terminals
//! show every pane; narrow ones (below 120×30) show one pane under a tab bar.
//! Findings take a slot below Logs once there is one (or when focused), so a
//! clean session keeps the room for the timeline. Network, a strip under
//! Progress as wide as it (its rows have many columns), appears once the
//! session made an HTTP exchange (or when focused): stdio sessions look as
//! before. The Tools/Composer column shows only while Tools or Composer is
//! focused (read-only sessions, `attach` and `replay`, have no Composer):
//! the rest of the time the right side takes the width, and Raw keeping
//! its own, the Timeline and Logs get the column's room.
//!
//! ```text
//! ┌ header ─────────────────────────────────────────────────────────────┐
//! ┌ 5 Tools ─────────┐┌ 1 Progress ─────────────────────────────────────┐
//! │ list / detail    ││ one gauge per call                              │
//! │                  │├ 8 Network (HTTP only) ────────────────────────────┤
//! │                  ││ one row per HTTP exchange                       │
//! ├ 6 Composer ──────┤├ 2 Timeline ──────────────────┐┌ 4 Raw ──────────┤
//! │ JSON editor      ││ every event, arrival order   ││ selected frame  │
//! │ token/level/...  │├ 3 Logs ──────────────────────┤│                 │
//! │ command line     ││ notifications/message+stderr ││                 │
//! │                  │├ 7 Findings ──────────────────┤│                 │
//! │                  ││ rule violations (once any)   ││                 │
//! └──────────────────┘└──────────────────────────────┘└─────────────────┘
//!   status line: keys of the focused pane / text input
//!   (the left column only while Tools or Composer is focused)
//! ```

use super::pane::Pane;
use super::screen::View;
use ratatui::layout::Rect;

/// Rows the Progress details view needs inside its border.
pub const DETAIL_ROWS: u16 = 9;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    pub header: Rect,
    /// The tab bar, when panes are shown one at a time.
    pub tabs: Option<Rect>,
    pub status: Rect,
    pub panes: Vec<(Pane, Rect)>,
}

impl Layout {
    pub fn rect(&self, pane: Pane) -> Option<Rect> {
        self.panes.iter().find(|(p, _)| *p == pane).map(|(_, r)| *r)
    }

    pub fn pane_at(&self, x: u16, y: u16) -> Option<(Pane, Rect)> {
        self.panes
            .iter()
            .find(|(_, r)| x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height)
            .copied()
    }
}

/// Wide enough to show every pane at once.
pub fn is_wide(area: Rect) -> bool {
    area.width >= 120 && area.height >= 30
}

fn rows(r: Rect, top: u16) -> (Rect, Rect) {
    let top = top.min(r.height);
    (
        Rect { height: top, ..r },
        Rect {
            y: r.y + top,
            height: r.height - top,
            ..r
        },
    )
}

fn cols(r: Rect, left: u16) -> (Rect, Rect) {
    let left = left.min(r.width);
    (
        Rect { width: left, ..r },
        Rect {
            x: r.x + left,
            width: r.width - left,
            ..r
        },
    )
}

/// The panes with a slot of their own in the wide layout. Any other (the
/// Scope) is shown while focused, in the room below Progress and Network.
const SLOTTED: [Pane; 8] = [
    Pane::Tools,
    Pane::Composer,
    Pane::Progress,
    Pane::Network,
    Pane::Timeline,
    Pane::Logs,
    Pane::Findings,
    Pane::Raw,
];

pub fn compute(area: Rect, st: &View) -> Layout {
    let (header, rest) = rows(area, 1);
    let (body, status) = rows(rest, rest.height.saturating_sub(1));
    let mut l = Layout {
        header,
        status,
        ..Layout::default()
    };
    if st.shell.zoom {
        l.panes.push((st.shell.focus, body));
        return l;
    }
    if !is_wide(area) {
        let (tabs, pane) = rows(body, 1);
        l.tabs = Some(tabs);
        l.panes.push((st.shell.focus, pane));
        return l;
    }
    let left_w = (body.width * 3 / 10).max(44);
    // The Tools/Composer column shows while one of them is focused; the
    // rest of the time the panes that follow the session take its room
    // (read-only sessions, attach and replay, have no Composer at all).
    let composes = st.offers(Pane::Composer);
    let (left, right) = if matches!(st.shell.focus, Pane::Tools | Pane::Composer) {
        cols(body, left_w)
    } else {
        (Rect::default(), body)
    };
    // Raw is as wide either way: what the column gives goes to the
    // Timeline and Logs, whose summaries need it most.
    let beside = body.width.saturating_sub(left_w);
    let raw_w = beside - beside * 13 / 20;
    let (tools, composer) = if composes {
        rows(left, left.height * 9 / 20)
    } else {
        (left, Rect::default())
    };
    let pr = &st.panes.progress;
    let calls = pr.order.total_rows(pr.calls.list.len()).max(3) as u16;
    // The details view shows one call's gauge plus its timing statistics.
    let gauge_rows = if pr.details {
        calls.max(DETAIL_ROWS)
    } else {
        calls
    };
    let progress_h = (2 + gauge_rows).clamp(5, (right.height * 2 / 5).max(5));
    let (progress, mut lower) = rows(right, progress_h);
    if !left.is_empty() {
        l.panes.push((Pane::Tools, tools));
    }
    if composes {
        l.panes.push((Pane::Composer, composer));
    }
    l.panes.push((Pane::Progress, progress));
    if st.offers(Pane::Network) {
        // Border, column header, the rows, the selected one in full.
        let want = 5 + st.panes.network.view.len().max(1) as u16;
        let h = want.clamp(6, (right.height / 4).max(6));
        let (network, rest) = rows(lower, h);
        l.panes.push((Pane::Network, network));
        lower = rest;
    }
    if !SLOTTED.contains(&st.shell.focus) {
        // The Scope's time axis wants width: it takes the lists and Raw.
        l.panes.push((st.shell.focus, lower));
        return l;
    }
    let (lists, raw) = cols(lower, lower.width.saturating_sub(raw_w));
    if !st.panes.findings.list.is_empty() || st.shell.focus == Pane::Findings {
        let (timeline, rest) = rows(lists, lists.height / 2);
        let (logs, findings) = rows(rest, rest.height / 2);
        l.panes.push((Pane::Timeline, timeline));
        l.panes.push((Pane::Logs, logs));
        l.panes.push((Pane::Findings, findings));
    } else {
        let (timeline, logs) = rows(lists, lists.height * 3 / 5);
        l.panes.push((Pane::Timeline, timeline));
        l.panes.push((Pane::Logs, logs));
    }
    l.panes.push((Pane::Raw, raw));
    l
}

/// Rows a list pane shows (inside its border, below any column header).
pub fn list_height(st: &View, pane: Pane) -> usize {
    let area = Rect::new(0, 0, st.shell.width, st.shell.height);
    let Some(r) = compute(area, st).rect(pane) else {
        return 0;
    };
    st.pane(pane).list_rows(r.height.saturating_sub(2))
}

/// Rows inside pane `pane`'s border.
pub fn inner_height(st: &View, pane: Pane) -> usize {
    let area = Rect::new(0, 0, st.shell.width, st.shell.height);
    compute(area, st)
        .rect(pane)
        .map_or(0, |r| r.height.saturating_sub(2) as usize)
}

/// The Tools pane gives its list at most half its height; details get the rest.
pub fn tools_list_height(inner_h: u16) -> u16 {
    (inner_h / 2).max(1)
}

/// The Findings pane keeps its last rows for the selected row in full (two,
/// three with the fix) once it has room for a list besides.
pub fn findings_list_height(inner_h: u16) -> u16 {
    // The selected row in full below the list, with its fix when there is room.
    match inner_h {
        9.. => inner_h - 3,
        6.. => inner_h - 2,
        _ => inner_h,
    }
}

/// The Network pane: a column header, the list, and the selected exchange
/// in full on the last two rows once there is room for both.
pub fn network_list_height(inner_h: u16) -> u16 {
    let list = inner_h.saturating_sub(1);
    if list >= 6 { list - 2 } else { list }
}

/// Inner width of a pane (for cutting exact-bytes lines).
pub fn inner_width(st: &View, pane: Pane) -> usize {
    let area = Rect::new(0, 0, st.shell.width, st.shell.height);
    compute(area, st)
        .rect(pane)
        .map_or(80, |r| r.width.saturating_sub(2) as usize)
}
