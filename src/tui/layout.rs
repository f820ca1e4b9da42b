//! Where each pane goes, as a pure function of the terminal size and the
//! state. The renderer records what it drew with it (`ui/hits.rs`), and
//! mouse hit-testing uses that record. Wide terminals
//! show every pane; narrow ones (below 120×30) show one pane under a tab bar.
//! Between 120×30 and 150×40 the automatic arrangement lets the focused pane
//! grow while every other pane keeps what it needs to read (Logs five rows
//! and 40 columns of message, the Timeline its call column); `Z` cycles it
//! with the fixed proportions and tabs at every size (settings.toml `layout`).
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

pub use super::pane::Arrangement;
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

/// Roomy enough for every pane in fixed proportions: below this (and at
/// 120×30 or more) the automatic arrangement lets the focused pane grow.
pub fn is_roomy(area: Rect) -> bool {
    area.width >= 150 && area.height >= 40
}

/// Where the automatic arrangement's medium sizes differ from the full one.
#[derive(Debug, Clone, Copy)]
struct Fit {
    /// The focused pane grows; the others keep what they need to read.
    grow: bool,
}

/// The Logs pane's rows at medium sizes: five entries inside its border.
const LOGS_MIN_H: u16 = 7;
/// The Timeline's: its column header and three events.
const TIMELINE_MIN_H: u16 = 6;
/// Findings' while not focused: three rows.
const FINDINGS_MIN_H: u16 = 5;
/// Beside the Tools/Composer column or a grown Raw pane the Timeline and
/// Logs keep this width, enough for 40 columns of a log message after its
/// time, source, level and logger.
const LISTS_MIN_W: u16 = 84;

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
    if !is_wide(area) || st.shell.arrangement == Arrangement::Tabs {
        let (tabs, pane) = rows(body, 1);
        l.tabs = Some(tabs);
        l.panes.push((st.shell.focus, pane));
        return l;
    }
    let fit = Fit {
        grow: st.shell.arrangement == Arrangement::Auto && !is_roomy(area),
    };
    every_pane(&mut l, body, st, fit);
    l
}

/// The Tools/Composer column, shown while one of them is focused, and
/// the right side's area. At medium sizes a focused Tools takes the
/// whole column (its list wants the rows).
fn left_column(l: &mut Layout, body: Rect, st: &View, fit: Fit) -> Rect {
    let focus = st.shell.focus;
    let composes = st.offers(Pane::Composer);
    if !matches!(focus, Pane::Tools | Pane::Composer) {
        if composes {
            l.panes.push((Pane::Composer, Rect::default()));
        }
        return body;
    }
    let w = if fit.grow {
        body.width.saturating_sub(LISTS_MIN_W).min(left_w(body))
    } else {
        left_w(body)
    };
    let (left, right) = cols(body, w);
    let (tools, composer) = if composes && !(fit.grow && focus == Pane::Tools) {
        rows(left, left.height * 9 / 20)
    } else {
        (left, Rect::default())
    };
    l.panes.push((Pane::Tools, tools));
    if composes {
        l.panes.push((Pane::Composer, composer));
    }
    right
}

fn left_w(body: Rect) -> u16 {
    (body.width * 3 / 10).max(44)
}

fn every_pane(l: &mut Layout, body: Rect, st: &View, fit: Fit) {
    let focus = st.shell.focus;
    let right = left_column(l, body, st, fit);
    // Raw is as wide either way: what the column gives goes to the
    // Timeline and Logs, whose summaries need it most.
    let beside = body.width.saturating_sub(left_w(body));
    let mut raw_w = beside - beside * 13 / 20;
    let pr = &st.panes.progress;
    let calls = pr.order.total_rows(pr.calls.list.len()).max(3) as u16;
    // The details view shows one call's gauge plus its timing statistics.
    let gauge_rows = if pr.details {
        calls.max(DETAIL_ROWS)
    } else {
        calls
    };
    // At medium sizes Progress gives way to the lists unless focused (a
    // focused Scope takes the lists' room: Progress keeps its share).
    let share = if fit.grow && focus != Pane::Progress && SLOTTED.contains(&focus) {
        right.height / 4
    } else {
        right.height * 2 / 5
    };
    let want = 2 + gauge_rows;
    let cap = share.max(5);
    // Held below what it wants, Progress is as high as the calls it can
    // show whole (a gauge takes three rows): the rows a cut gauge would
    // leave blank go to the panes below.
    let progress_h = if want > cap {
        let n = pr.calls.list.len();
        let fitted = pr
            .order
            .fitted(n, pr.cursor.selected, pr.cursor.offset, (cap - 2) as usize);
        2 + (fitted as u16).clamp(3, cap - 2)
    } else {
        want.max(5)
    };
    let (progress, mut lower) = rows(right, progress_h);
    l.panes.push((Pane::Progress, progress));
    if st.offers(Pane::Network) {
        // Border, column header, the rows, the selected one in full.
        let want = 5 + st.panes.network.view.len().max(1) as u16;
        let h = want.clamp(6, (right.height / 4).max(6));
        let (network, rest) = rows(lower, h);
        l.panes.push((Pane::Network, network));
        lower = rest;
    }
    if !SLOTTED.contains(&focus) {
        // The Scope's time axis wants width: it takes the lists and Raw.
        l.panes.push((focus, lower));
        return;
    }
    if fit.grow {
        raw_w = match focus {
            // Composing, the Timeline and Logs keep their width: Raw gives
            // way (the Composer's `r` shows the request as sent).
            Pane::Tools | Pane::Composer => 0,
            Pane::Raw => raw_w.max(lower.width.saturating_sub(LISTS_MIN_W)),
            _ => raw_w,
        };
    }
    let (lists, raw) = cols(lower, lower.width.saturating_sub(raw_w));
    let findings = !st.panes.findings.list.is_empty() || focus == Pane::Findings;
    let stacked: &[Pane] = if findings {
        &[Pane::Timeline, Pane::Logs, Pane::Findings]
    } else {
        &[Pane::Timeline, Pane::Logs]
    };
    let heights = if fit.grow {
        grown(lists.height, stacked, focus)
    } else if findings {
        let t = lists.height / 2;
        let rest = lists.height - t;
        vec![t, rest / 2, rest - rest / 2]
    } else {
        let t = lists.height * 3 / 5;
        vec![t, lists.height - t]
    };
    let mut rest = lists;
    for (p, h) in stacked.iter().zip(heights) {
        let (r, below) = rows(rest, h);
        l.panes.push((*p, r));
        rest = below;
    }
    l.panes.push((Pane::Raw, raw));
}

/// The heights of panes stacked in `h` rows at medium sizes: each keeps
/// its minimum and the focused one (the Timeline when none of them is)
/// takes the rest; when even the minimums do not fit they share `h` in
/// their proportions.
fn grown(h: u16, stacked: &[Pane], focus: Pane) -> Vec<u16> {
    let min = |p: Pane| match p {
        Pane::Logs => LOGS_MIN_H,
        Pane::Findings => FINDINGS_MIN_H,
        _ => TIMELINE_MIN_H,
    };
    let sum: u16 = stacked.iter().map(|p| min(*p)).sum();
    let grows = if stacked.contains(&focus) {
        focus
    } else {
        Pane::Timeline
    };
    let mut out: Vec<u16> = if sum > h {
        stacked.iter().map(|p| min(*p) * h / sum).collect()
    } else {
        stacked
            .iter()
            .map(|p| min(*p) + if *p == grows { h - sum } else { 0 })
            .collect()
    };
    // What rounding left goes to the last pane.
    let given: u16 = out.iter().sum();
    if let Some(last) = out.last_mut() {
        *last += h.saturating_sub(given);
    }
    out
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

/// The Tools pane gives its list half its height (the odd row too: ten
/// rows at 80×24); details get the rest.
pub fn tools_list_height(inner_h: u16) -> u16 {
    inner_h.div_ceil(2).max(1)
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
