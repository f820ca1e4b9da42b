//! The Scope pane: the session on a time axis, as a logic analyser shows
//! signals. One lane per call (in the order the calls started; a call's
//! input rounds — `input_required`, then the retry — are steps on its
//! lane: an ask mark, then an answer mark), then lanes
//! for logs, other notifications, the server's requests and our answers,
//! the session's other requests, and stderr and transport events; over
//! HTTP, optionally one lane per stream.
//!
//! The index (`index.rs`) keeps, per lane and per kind of mark, the
//! arrival times in order, appended by the sync step as events arrive. A
//! frame asks it how many marks of each kind fall in each column's time
//! range (two binary searches per column and kind), so drawing costs the
//! same with a thousand events as with a million.

pub mod index;
pub mod update;
pub mod view;

use crate::trace::Store;
use crate::tui::action::Action;
use crate::tui::command::Commands;
use crate::tui::panes::{Actions, Cx, Fit, Keys, PaneSpec, Start, Upkeep};
use index::{Lane, LaneKind, ScopeIndex};
use ratatui::layout::Rect;

/// Time per screen width the zoom keys step through: 1 ms to 10 minutes.
pub const SPANS_US: [u64; 19] = [
    1_000,
    2_000,
    5_000,
    10_000,
    20_000,
    50_000,
    100_000,
    200_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    30_000_000,
    60_000_000,
    120_000_000,
    300_000_000,
    600_000_000,
];

/// The span a new view starts with: 10 s per screen width.
pub const DEFAULT_SPAN: usize = 12;

#[derive(Debug)]
pub struct ScopeState {
    pub index: ScopeIndex,
    /// Index into `SPANS_US`: the time one screen width shows.
    pub span: usize,
    /// The view's right edge is the live edge (the latest event or now).
    pub follow: bool,
    /// The view's left edge while not following (µs since session start).
    pub start_us: u64,
    /// The cursor: a column of the plot (0 is its left edge).
    pub col: usize,
    /// The selected lane (among those shown) and the first lane drawn.
    pub lane: usize,
    pub lane_offset: usize,
    /// HTTP: a lane per stream (channel) below the others.
    pub streams: bool,
    /// When the session started by the wall clock, if known.
    pub wall: Option<WallStart>,
}

/// The wall-clock time of the session's start (its µs 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WallStart {
    /// Microseconds since the Unix epoch.
    pub unix_us: u64,
    /// False when known to the second only (a trace header's `started`).
    pub exact: bool,
}

impl WallStart {
    /// A session whose clock reads `elapsed_us` now.
    pub fn now_minus(elapsed_us: u64) -> Option<WallStart> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()?
            .as_micros() as u64;
        Some(WallStart {
            unix_us: now.saturating_sub(elapsed_us),
            exact: true,
        })
    }

    /// A trace header's `started` (`2026-12-01T21:19:33Z`, RFC 3339 UTC).
    pub fn parse_rfc3339(s: &str) -> Option<WallStart> {
        // The header is written with a `Z`; anything else is not trusted.
        if s.as_bytes().get(19) != Some(&b'Z') {
            return None;
        }
        let secs = crate::format::rfc3339_unix_secs(s)?;
        Some(WallStart {
            unix_us: u64::try_from(secs).ok()? * 1_000_000,
            exact: false,
        })
    }

    /// Time `t_us` of the session by the wall clock: `21:19:33.250 UTC`
    /// (`≈21:19:33 UTC` when the start is known to the second only).
    pub fn at(&self, t_us: u64) -> String {
        format!("{} UTC", self.clock(t_us))
    }

    /// The time of day of `t_us` (UTC): `21:19:33.250`, or `≈21:19:33`
    /// when the start is known to the second only.
    pub fn clock(&self, t_us: u64) -> String {
        let us = self.unix_us.saturating_add(t_us);
        let ms_of_day = us / 1000 % 86_400_000;
        let (h, m, s, ms) = (
            ms_of_day / 3_600_000,
            ms_of_day / 60_000 % 60,
            ms_of_day / 1000 % 60,
            ms_of_day % 1000,
        );
        if self.exact {
            format!("{h:02}:{m:02}:{s:02}.{ms:03}")
        } else {
            format!("≈{h:02}:{m:02}:{s:02}")
        }
    }
}

impl Default for ScopeState {
    fn default() -> Self {
        ScopeState {
            index: ScopeIndex::default(),
            span: DEFAULT_SPAN,
            follow: true,
            start_us: 0,
            col: usize::MAX,
            lane: 0,
            lane_offset: 0,
            streams: false,
            wall: None,
        }
    }
}

/// Where the view is, for one plot width: its left edge and span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start_us: u64,
    pub span_us: u64,
    /// Columns of the plot.
    pub cols: usize,
}

impl Window {
    /// Column `c` covers `[col_start(c), col_start(c + 1))`.
    pub fn col_start(&self, c: usize) -> u64 {
        let off = (self.span_us as u128 * c as u128 / self.cols.max(1) as u128) as u64;
        self.start_us.saturating_add(off)
    }

    /// The column showing time `t`, if it is in the window.
    pub fn col_of(&self, t: u64) -> Option<usize> {
        if t < self.start_us {
            return None;
        }
        let c = ((t - self.start_us) as u128 * self.cols as u128 / self.span_us.max(1) as u128)
            as usize;
        (c < self.cols).then_some(c)
    }

    pub fn end_us(&self) -> u64 {
        self.start_us.saturating_add(self.span_us)
    }
}

impl ScopeState {
    pub fn span_us(&self) -> u64 {
        SPANS_US[self.span.min(SPANS_US.len() - 1)]
    }

    /// The live edge: now, or the latest event if the clock is behind it
    /// (a replay stepping, a trace read whole).
    pub fn edge_us(&self, now_us: u64) -> u64 {
        now_us.max(self.index.last_us())
    }

    /// The window for a plot of `cols` columns at `now_us`.
    pub fn window(&self, cols: usize, now_us: u64) -> Window {
        let span_us = self.span_us();
        let start_us = if self.follow {
            self.edge_us(now_us).saturating_sub(span_us)
        } else {
            self.start_us
        };
        Window {
            start_us,
            span_us,
            cols: cols.max(1),
        }
    }

    /// The cursor's column in a plot of `cols` columns (it starts at the
    /// right edge, where new events arrive).
    pub fn cursor_col(&self, cols: usize) -> usize {
        self.col.min(cols.saturating_sub(1))
    }
}

/// Rows a lane takes: a call has a row of progress (how many per column)
/// above its line (in flight, request, response, cancel); the others one.
/// Rows a lane takes: a call two (its progress, its line), and a third
/// for the server's spans once any came.
pub fn lane_height(l: &Lane) -> usize {
    match l.kind {
        LaneKind::Call if !l.spans.is_empty() => 3,
        LaneKind::Call => 2,
        _ => 1,
    }
}

/// The first lane drawn in `rows` rows so that lane `sel` is shown,
/// starting from `offset` where it can (lanes of `heights`).
pub fn first_lane(heights: &[usize], sel: usize, offset: usize, rows: usize) -> usize {
    if heights.is_empty() {
        return 0;
    }
    let sel = sel.min(heights.len() - 1);
    let mut start = offset.min(sel);
    while start < sel && heights[start..=sel].iter().sum::<usize>() > rows {
        start += 1;
    }
    start
}

/// Width of the lane labels for an inner width `w`.
pub fn label_cols(w: usize) -> usize {
    (w / 5).clamp(6, 24)
}

/// Columns of the plot in a pane laid out at `area` (its border, the
/// labels and the separator taken off).
pub fn plot_cols(area: Rect) -> usize {
    let w = area.width.saturating_sub(2) as usize;
    w.saturating_sub(label_cols(w) + 1).max(1)
}

/// A span for people: `1 ms`, `500 ms`, `10 s`, `2 min`.
pub fn span_label(us: u64) -> String {
    if us < 1_000_000 {
        format!("{} ms", us / 1000)
    } else if us < 60_000_000 {
        format!("{} s", us / 1_000_000)
    } else {
        format!("{} min", us / 60_000_000)
    }
}

impl PaneSpec for ScopeState {
    const TITLE: &'static str = "Scope";
    const NAME: &'static str = "scope";
    const FOCUS: Option<Action> = Some(Action::FocusScope);
    const KEYS: Keys = {
        use Action::*;
        &[
            (&["+", "="], ZoomIn),
            (&["-"], ZoomOut),
            (&["w"], ZoomFit),
            (&["left"], PrevEvent),
            (&["right"], NextEvent),
            (&["h"], CursorLeft),
            (&["l"], CursorRight),
            (&["[", "H"], PanLeft),
            (&["]", "L"], PanRight),
            (&["f"], Follow),
            (&["enter"], ShowEvent),
            (&["s"], ToggleStreams),
        ]
    };
    const HINTS: Actions = {
        use Action::*;
        &[ZoomIn, ZoomOut, NextEvent, PanRight, ShowEvent, Follow]
    };
    const ACTIONS: Actions = {
        use Action::*;
        &[
            ZoomIn,
            ZoomOut,
            ZoomFit,
            PanLeft,
            PanRight,
            CursorLeft,
            CursorRight,
            PrevEvent,
            NextEvent,
            ShowEvent,
            ToggleStreams,
        ]
    };

    fn start(s: &Start) -> Self {
        ScopeState {
            wall: s.wall_start,
            ..ScopeState::default()
        }
    }

    fn act(&mut self, a: Action, cx: &Cx) -> Commands {
        self.apply(a, cx)
    }

    /// A new mark or a dropped one redraws.
    fn pull(&mut self, store: &Store, budget: u64) -> Upkeep {
        let marks = (self.index.marks(), self.index.dropped);
        let done = self.index.sync(store, budget);
        Upkeep {
            done,
            changed: (self.index.marks(), self.index.dropped) != marks,
        }
    }

    fn refit(&mut self, _store: &Store, fit: Fit) -> Upkeep {
        self.settle(fit.rows);
        Upkeep::DONE
    }
}

#[cfg(test)]
mod tests {
    use super::WallStart;

    #[test]
    fn the_wall_clock_reads_from_the_sessions_start() {
        let w = WallStart::parse_rfc3339("2026-01-01T00:00:00Z").unwrap();
        assert_eq!(w.unix_us, 1_767_225_600 * 1_000_000);
        assert_eq!(w.at(1_500_000), "≈00:00:01 UTC");
        let w = WallStart::parse_rfc3339("2026-12-01T21:19:33Z").unwrap();
        assert_eq!(w.at(0), "≈21:19:33 UTC");
        assert!(WallStart::parse_rfc3339("now").is_none());
        assert!(WallStart::parse_rfc3339("2026-13-01T21:19:33Z").is_none());
        let exact = WallStart {
            unix_us: w.unix_us,
            exact: true,
        };
        assert_eq!(exact.at(86_400_000_000 + 1_250_000), "21:19:34.250 UTC");
    }
}
