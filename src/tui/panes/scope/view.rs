//! Scope drawing: a time ruler, one row per lane (its label, then one cell
//! per column), and a readout of the cursor's time and the event under it.
//!
//! ```text
//! ┏ 9 Scope · 10 s per width · following ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓
//! ┃ time             ╵+0s      ╵+1s      ╵+2s      ╵+3s      ╵+4s        ┃
//! ┃ upload_file #1   ▶───▂──▂──▂──▂──▂──▂──◆                             ┃
//! ┃ flood #2           ▶───────────────────█◆▃▃                          ┃
//! ┃ logs              ▂      ▂         ▃                                 ┃
//! ┃ +2.450000s · col 62.5 ms · flood #2 · ← ntf progress "tok" 12/100    ┃
//! ┗━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┛
//! ```
//!
//! A column counts the marks of each kind in its time range (binary
//! searches in the index): dense kinds (progress, logs, notifications)
//! are drawn as a height that grows with the count's logarithm, so a
//! burst stands out; the others as a symbol. A call's lane is a line while
//! it was in flight, in its state's colour; progress after its response
//! is drawn in the late colour. Once the server exported spans in a call's
//! trace, a third row draws them as bars (`━`, in the error colour for a
//! span that failed) over the time they cover.

use super::index::{Lane, LaneKind, Mark, SpanBar};
use super::{
    ScopeState, WallStart, Window, first_lane, label_cols, lane_height, plot_cols, span_label,
};
use crate::format::duration;
use crate::protocol::views::LogLevel;
use crate::trace::Store;
use crate::tui::calls::CallStatus;
use crate::tui::chrome::{fit, inner};
use crate::tui::panes::progress::view::status_color;
use crate::tui::screen::{Body, View};
use crate::tui::summary::{dir_glyph, summarize};
use crate::tui::theme::Theme;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// Heights of a dense column: 1 mark, 2–3, 4–7, … 64 and more.
const DENSITY: [char; 7] = ['▂', '▃', '▄', '▅', '▆', '▇', '█'];

fn glyph(m: Mark, count: u32) -> char {
    match m {
        Mark::Request => '▶',
        Mark::Response => '◆',
        Mark::Failure => '✗',
        Mark::Cancel => '⊘',
        Mark::Ask => '◀',
        Mark::Answer => '↩',
        Mark::Progress | Mark::Note | Mark::Log(_) => {
            let k = (u32::BITS - count.max(1).leading_zeros()) as usize;
            DENSITY[(k - 1).min(DENSITY.len() - 1)]
        }
    }
}

fn mark_color(t: &Theme, m: Mark) -> Color {
    match m {
        Mark::Request => t.kind_request,
        Mark::Response => t.kind_response,
        Mark::Failure => t.kind_error,
        Mark::Cancel => t.state_cancelled,
        Mark::Ask => t.warn,
        Mark::Answer => t.dir_out,
        Mark::Progress => t.gauge_fill,
        Mark::Note => t.kind_notification,
        Mark::Log(l) => t.level(l),
    }
}

/// How long a call's lane shows it in flight, and in which colour.
fn in_flight(st: &View, lane: &Lane, edge: u64) -> Option<(u64, u64, Color)> {
    let t = &st.shell.theme;
    let sent = lane.sent_us?;
    let call = lane
        .id
        .as_ref()
        .and_then(|id| st.panes.progress.calls.get(id));
    let (end, status) = match call {
        Some(c) => (
            c.end_us.unwrap_or(if c.status == CallStatus::Running {
                edge
            } else {
                lane.response_us.unwrap_or(edge)
            }),
            c.status,
        ),
        // A call the Progress pane no longer lists (cleared): its response.
        None => match lane.response_us {
            Some(r) => (r, CallStatus::Done),
            None => (edge, CallStatus::Running),
        },
    };
    Some((sent, end.max(sent), status_color(t, status)))
}

/// What drawing a lane row's cells needs besides the lane.
struct Cols<'a> {
    t: &'a Theme,
    /// Column edges (one more than columns).
    edges: &'a [u64],
    cur: usize,
    cursor_style: Style,
}

impl Cols<'_> {
    /// A row of empty cells, one per column.
    fn blank(&self) -> Vec<Cell> {
        let cell = Cell {
            ch: ' ',
            style: self.t.base(),
        };
        vec![cell; self.edges.len() - 1]
    }

    /// The cursor's column drawn over a row.
    fn with_cursor(&self, mut cells: Vec<Cell>) -> Vec<Cell> {
        if let Some(c) = cells.get_mut(self.cur) {
            if c.ch == ' ' {
                c.ch = '│';
            }
            c.style = self.cursor_style;
        }
        cells
    }

    /// One row of a lane: the in-flight line if any, then per column the
    /// first of `tracks` with marks there (dense ones after `late` in the
    /// late colour), the cursor's column over it.
    fn cells(
        &self,
        lane: &Lane,
        tracks: &[usize],
        flight: Option<(u64, u64, Color)>,
        late: Option<u64>,
        bins: &mut Vec<u32>,
    ) -> Vec<Cell> {
        let t = self.t;
        let edges = self.edges;
        let cols = edges.len() - 1;
        let mut cells = self.blank();
        if let Some((from, to, color)) = flight
            && from < edges[cols]
            && to >= edges[0]
        {
            let a = edges.partition_point(|e| *e <= from).saturating_sub(1);
            let b = edges.partition_point(|e| *e <= to).min(cols);
            for c in cells.iter_mut().take(b.max(a + 1)).skip(a) {
                *c = Cell {
                    ch: '─',
                    style: Style::default().fg(color),
                };
            }
        }
        let mut best: Vec<Option<(Mark, u32)>> = vec![None; cols];
        for &tr in tracks {
            let track = &lane.tracks[tr];
            if track.is_empty() {
                continue;
            }
            track.bin(edges, bins);
            let m = Mark::from_track(tr);
            for (b, n) in best.iter_mut().zip(bins.iter()) {
                if b.is_none() && *n > 0 {
                    *b = Some((m, *n));
                }
            }
        }
        for (c, b) in best.iter().enumerate() {
            if let Some((m, n)) = b {
                let is_late = m.is_dense() && late.is_some_and(|r| edges[c] > r);
                let style = if is_late {
                    Style::default()
                        .fg(t.lane_late)
                        .add_modifier(Modifier::BOLD)
                } else {
                    Style::default().fg(mark_color(t, *m))
                };
                cells[c] = Cell {
                    ch: glyph(*m, *n),
                    style,
                };
            }
        }
        self.with_cursor(cells)
    }
}

/// A call's spans on the session's axis (µs since its start), with each
/// span. Span times are the server's wall clock: a live session knows its
/// own start to the microsecond and places them by it; a replay knows it to
/// the second only, so there the earliest span starts with the request.
pub fn placed_spans(lane: &Lane, wall: Option<WallStart>) -> Vec<(u64, u64, &SpanBar)> {
    let Some(earliest) = lane.spans.iter().map(|s| s.start_ns / 1000).min() else {
        return Vec::new();
    };
    let shift = match wall {
        Some(w) if w.exact => -i128::from(w.unix_us),
        _ => i128::from(lane.sent_us.unwrap_or(0)) - i128::from(earliest),
    };
    let at = |ns: u64| (i128::from(ns / 1000) + shift).clamp(0, i128::from(u64::MAX)) as u64;
    lane.spans
        .iter()
        .map(|s| (at(s.start_ns), at(s.end_ns), s))
        .collect()
}

/// The innermost (shortest) span covering `t`, as the readout names it.
fn span_at(placed: &[(u64, u64, &SpanBar)], lo: u64, hi: u64) -> Option<String> {
    placed
        .iter()
        .filter(|(a, b, _)| *a < hi && *b >= lo)
        .min_by_key(|(a, b, _)| b - a)
        .map(|(a, b, s)| {
            format!(
                "span {} {}{}",
                s.name,
                duration(b - a),
                if s.error { " error" } else { "" }
            )
        })
}

impl Cols<'_> {
    /// The spans row: a bar over each span's time, the cursor over it.
    fn span_cells(&self, placed: &[(u64, u64, &SpanBar)]) -> Vec<Cell> {
        let t = self.t;
        let edges = self.edges;
        let cols = edges.len() - 1;
        let mut cells = self.blank();
        // Failed spans last, so they show where spans overlap.
        let mut order: Vec<&(u64, u64, &SpanBar)> = placed.iter().collect();
        crate::sort::by_key(&mut order, |(_, _, s)| s.error);
        for (from, to, s) in order {
            if *from >= edges[cols] || *to < edges[0] {
                continue;
            }
            let a = edges.partition_point(|e| *e <= *from).saturating_sub(1);
            let b = edges.partition_point(|e| *e <= *to).min(cols);
            let color = if s.error { t.kind_error } else { t.dir_in };
            for c in cells.iter_mut().take(b.max(a + 1)).skip(a) {
                *c = Cell {
                    ch: '━',
                    style: Style::default().fg(color),
                };
            }
        }
        self.with_cursor(cells)
    }
}

/// A lane's title: a call's lane names its call as every pane does
/// (`#12 slow_task`, see `label`); the others keep theirs.
fn lane_title(lane: &Lane, labels: &crate::tui::label::Labels) -> String {
    match (&lane.kind, &lane.id) {
        (LaneKind::Call, Some(id)) => labels.of_id(id).unwrap_or_else(|| lane.label.clone()),
        _ => lane.label.clone(),
    }
}

/// A call's state for its lane's second label: `done 2.6s`, `running 1.2s`.
fn call_state(st: &View, lane: &Lane, edge: u64) -> String {
    let sent = lane.sent_us.unwrap_or(0);
    match lane
        .id
        .as_ref()
        .and_then(|id| st.panes.progress.calls.get(id))
    {
        Some(c) => {
            let end = c.end_us.unwrap_or(edge);
            format!(
                "{} {}",
                c.status.label(),
                duration(end.saturating_sub(sent))
            )
        }
        None => match lane.response_us {
            Some(r) => format!("answered {}", duration(r.saturating_sub(sent))),
            None => "waiting".into(),
        },
    }
}

/// One cell of a lane row.
#[derive(Clone, Copy)]
struct Cell {
    ch: char,
    style: Style,
}

/// Merge equal-styled neighbours into spans.
fn spans(cells: &[Cell]) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut style = None;
    for c in cells {
        if style.is_some_and(|s| s != c.style) {
            out.push(Span::styled(
                std::mem::take(&mut text),
                style.unwrap_or_default(),
            ));
        }
        style = Some(c.style);
        text.push(c.ch);
    }
    if let Some(s) = style {
        out.push(Span::styled(text, s));
    }
    out
}

/// The tick step for a window of `span_us` over `cols` columns: labels
/// about twelve columns apart.
fn tick_step(span_us: u64, cols: usize) -> u64 {
    let want = span_us as u128 * 12 / cols.max(1) as u128;
    let mut step = 1u64;
    loop {
        for m in [1, 2, 5] {
            if (step * m) as u128 >= want {
                return step * m;
            }
        }
        step = step.saturating_mul(10);
        if step >= u64::MAX / 10 {
            return step;
        }
    }
}

/// A tick's label, with as many decimals as the step needs: `+0s`,
/// `+1.5s`, `+12.345s`, `+2:05`.
fn tick_label(t_us: u64, step: u64) -> String {
    if step >= 1_000_000 && t_us >= 60_000_000 {
        let s = t_us / 1_000_000;
        return format!("+{}:{:02}", s / 60, s % 60);
    }
    let mut decimals = 0usize;
    let mut unit = 1_000_000u64;
    while !step.is_multiple_of(unit) && decimals < 6 {
        unit /= 10;
        decimals += 1;
    }
    if decimals == 0 {
        format!("+{}s", t_us / 1_000_000)
    } else {
        let frac = (t_us % 1_000_000) / 10u64.pow(6 - decimals as u32);
        format!("+{}.{:0decimals$}s", t_us / 1_000_000, frac)
    }
}

/// A time since the session start to the precision a column of `col_us`
/// can tell apart (a power of ten no wider than the column): `+12.35 s`,
/// `+0.012345 s`, `+2:05.4` past a minute. More digits than the column
/// resolves would be noise to read.
pub fn readable(t_us: u64, col_us: u64) -> String {
    let mut step = 1_000_000u64;
    let mut decimals = 0usize;
    while step > col_us.max(1) && decimals < 6 {
        step /= 10;
        decimals += 1;
    }
    let secs = t_us / 1_000_000;
    let frac = (t_us % 1_000_000) / 10u64.pow(6 - decimals as u32);
    let dot = if decimals == 0 {
        String::new()
    } else {
        format!(".{frac:0decimals$}")
    };
    if secs >= 60 {
        format!("+{}:{:02}{dot}", secs / 60, secs % 60)
    } else {
        format!("+{secs}{dot} s")
    }
}

/// What the marks mean, for the row under the lanes when there is room.
fn legend(t: &Theme) -> Line<'static> {
    let item = |g: &str, c: Color, what: &str| {
        [
            Span::styled(g.to_string(), t.fg(c)),
            Span::styled(format!(" {what}  "), t.muted()),
        ]
    };
    let mut spans = Vec::new();
    for (g, m, what) in [
        ("▶", Mark::Request, "request"),
        ("◆", Mark::Response, "response"),
        ("✗", Mark::Failure, "error"),
        ("⊘", Mark::Cancel, "cancelled"),
        ("◀", Mark::Ask, "server asks"),
        ("↩", Mark::Answer, "answered"),
        ("▂▅█", Mark::Progress, "progress (taller: more)"),
    ] {
        spans.extend(item(g, mark_color(t, m), what));
    }
    spans.extend(item("━", t.fg, "server span"));
    spans.extend(item("▄", t.level(LogLevel::Warning), "logs by level"));
    Line::from(spans)
}

/// A column's width for people: `62.5 µs`, `1.25 ms`, `0.5 s`.
fn col_width(us: f64) -> String {
    if us < 1000.0 {
        format!("{us:.1} µs")
    } else if us < 1_000_000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

/// The title's facts: the scale, the lanes, what is not shown, following.
fn title_info(sc: &ScopeState, win: &Window, lanes: usize) -> Vec<String> {
    let mut info = vec![
        format!("· {} per width", span_label(win.span_us)),
        crate::tui::format::count(lanes as u64, "lane", "lanes"),
    ];
    if sc.index.dropped > 0 {
        info.push(format!("{} marks not kept (bound)", sc.index.dropped));
    }
    if !sc.index.streams.is_empty() && !sc.streams {
        info.push("s: streams".into());
    }
    info.push(if sc.follow {
        "following".into()
    } else {
        "paused (f follows)".into()
    });
    info
}

/// The ruler: ticks with their labels, the cursor's column marked.
fn ruler(t: &Theme, win: &Window, cols: usize, cur: usize, lw: usize) -> Line<'static> {
    let step = tick_step(win.span_us, cols);
    let mut ruler = vec![' '; cols];
    let first_tick = win.start_us.div_ceil(step) * step;
    let mut tick = first_tick;
    while tick < win.end_us() {
        if let Some(c) = win.col_of(tick) {
            let label = tick_label(tick, step);
            if ruler[c..]
                .iter()
                .take(label.chars().count() + 2)
                .all(|x| *x == ' ')
            {
                ruler[c] = '╵';
                for (i, ch) in label.chars().enumerate() {
                    if let Some(cell) = ruler.get_mut(c + 1 + i) {
                        *cell = ch;
                    }
                }
            }
        }
        tick = tick.saturating_add(step);
    }
    let mut head: Vec<Cell> = ruler
        .iter()
        .map(|ch| Cell {
            ch: *ch,
            style: t.muted(),
        })
        .collect();
    if let Some(c) = head.get_mut(cur) {
        *c = Cell {
            ch: '▼',
            style: t.selected(),
        };
    }
    let mut row = vec![Span::styled(
        fit("time", lw),
        t.muted().add_modifier(Modifier::BOLD),
    )];
    row.push(Span::styled(" ", t.muted()));
    row.extend(spans(&head));
    Line::from(row)
}

/// The readout: the cursor's time, the column's width, the event under
/// the cursor on the selected lane (or the nearest one).
fn readout(
    st: &View,
    store: &Store,
    win: &Window,
    edges: &[u64],
    cur: usize,
    lane: Option<&Lane>,
) -> Line<'static> {
    let t = &st.shell.theme;
    let sc = &st.panes.scope;
    let labels = &st.panes.timeline.labels;
    let cols = win.cols;
    let (lo, hi) = (edges[cur], edges[cur + 1].max(edges[cur] + 1));
    let col_us = (win.span_us / cols as u64).max(1);
    let mut text = readable(lo, col_us);
    if let Some(wall) = sc.wall {
        text.push_str(&format!(" ({})", wall.at(lo)));
    }
    text.push_str(&format!(
        " · col {}",
        col_width(win.span_us as f64 / cols as f64)
    ));
    let mut spans_out = Vec::new();
    if let Some(lane) = lane {
        text.push_str(&format!(" · {}", lane_title(lane, labels)));
        if let Some(s) = span_at(&placed_spans(lane, sc.wall), lo, hi) {
            text.push_str(&format!(" · {s}"));
        }
        let (hit, near) = match lane.top_in(lo, hi) {
            Some(h) => (Some(h), false),
            None => (lane.nearest(lo), true),
        };
        if let Some((_, seq, at)) = hit
            && let Some(ev) = store.get(seq)
        {
            let s = summarize(&ev, labels);
            if near {
                text.push_str(&format!(" · nearest {}", readable(at, col_us)));
            }
            let mut ids = s.call.clone();
            if !ids.is_empty() {
                ids.push(' ');
            }
            spans_out.push(Span::styled(text, t.fg(t.fg)));
            spans_out.push(Span::styled(
                format!(
                    " · #{seq} {} {} {} {ids}",
                    dir_glyph(ev.dir),
                    s.kind,
                    s.method
                ),
                t.fg(t.accent),
            ));
            spans_out.push(Span::styled(s.text, t.muted()));
        } else {
            spans_out.push(Span::styled(text, t.fg(t.fg)));
        }
    } else {
        spans_out.push(Span::styled(text, t.fg(t.fg)));
    }
    Line::from(spans_out)
}

pub fn prepare(area: Rect, st: &View, store: &Store) -> Body {
    let t = &st.shell.theme;
    let sc = &st.panes.scope;
    let labels = &st.panes.timeline.labels;
    let inner = inner(area);
    let w = inner.width as usize;
    let lw = label_cols(w);
    let cols = plot_cols(area);
    let now = st.shell.now_us;
    let win = sc.window(cols, now);
    let edge = sc.edge_us(now);
    let cur = sc.cursor_col(cols);
    let lanes = sc.index.shown(sc.streams);
    let info = title_info(sc, &win, lanes.len());
    let edges: Vec<u64> = (0..=cols).map(|c| win.col_start(c)).collect();
    let cursor_style = t.selected();
    let mut lines = Vec::new();

    lines.push(ruler(t, &win, cols, cur, lw));

    // The lanes in view: the selected one stays among them.
    let lane_rows = (inner.height as usize).saturating_sub(2);
    let heights: Vec<usize> = lanes.iter().map(|l| lane_height(l)).collect();
    let start = first_lane(&heights, sc.lane, sc.lane_offset, lane_rows);
    let mut rows = Vec::with_capacity(lane_rows);
    let mut bins = Vec::new();
    let cx = Cols {
        t,
        edges: &edges,
        cur,
        cursor_style,
    };
    for (i, lane) in lanes.iter().enumerate().skip(start) {
        if lines.len() + heights[i] > lane_rows + 1 {
            break;
        }
        let selected = i == sc.lane;
        let label_style = if selected {
            t.fg(t.accent).add_modifier(Modifier::BOLD)
        } else {
            t.fg(t.fg)
        };
        let sel_mark = Span::styled(if selected { "▸" } else { " " }, t.fg(t.accent));
        if lane.kind == LaneKind::Call {
            // The progress row: how many per column, late ones marked.
            rows.push((inner.y + lines.len() as u16, i));
            let late = lane.response_us;
            let cells = cx.cells(lane, &[Mark::Progress.track()], None, late, &mut bins);
            let mut row = vec![
                Span::styled(fit(&lane_title(lane, labels), lw), label_style),
                sel_mark.clone(),
            ];
            row.extend(spans(&cells));
            lines.push(Line::from(row));
            // The call's line: in flight, its request and its ends.
            rows.push((inner.y + lines.len() as u16, i));
            let flight = in_flight(st, lane, edge);
            let ends = [
                Mark::Failure.track(),
                Mark::Cancel.track(),
                Mark::Response.track(),
                Mark::Request.track(),
            ];
            let cells = cx.cells(lane, &ends, flight, None, &mut bins);
            let state = call_state(st, lane, edge);
            let mut row = vec![
                Span::styled(fit(&format!("  {state}"), lw), t.muted()),
                sel_mark.clone(),
            ];
            row.extend(spans(&cells));
            lines.push(Line::from(row));
            // The server's spans in the call's trace, once any came.
            if !lane.spans.is_empty() {
                rows.push((inner.y + lines.len() as u16, i));
                let placed = placed_spans(lane, sc.wall);
                let label = match lane.spans_dropped {
                    0 => format!("  spans {}", lane.spans.len()),
                    n => format!("  spans {}+{n}", lane.spans.len()),
                };
                let mut row = vec![Span::styled(fit(&label, lw), t.muted()), sel_mark];
                row.extend(spans(&cx.span_cells(&placed)));
                lines.push(Line::from(row));
            }
        } else {
            rows.push((inner.y + lines.len() as u16, i));
            let cells = cx.cells(lane, &Mark::PRIORITY, None, None, &mut bins);
            let mut row = vec![Span::styled(fit(&lane.label, lw), label_style), sel_mark];
            row.extend(spans(&cells));
            lines.push(Line::from(row));
        }
    }
    if lanes.is_empty() {
        lines.push(Line::styled(
            "nothing yet: calls, logs and notifications appear here as they arrive",
            t.muted(),
        ));
    }
    let used = lines.len();
    while lines.len() < inner.height.saturating_sub(1) as usize {
        lines.push(Line::raw(""));
    }
    // The legend takes the last spare row, never one a lane needs.
    if let Some(last) = lines.len().checked_sub(1)
        && last >= used
    {
        lines[last] = cut(legend(t), w);
    }

    let lane = lanes.get(sc.lane).copied();
    lines.push(cut(readout(st, store, &win, &edges, cur, lane), w));
    Body {
        info: info.join(" · "),
        lines,
        rows,
    }
}

/// A line cut to `w` columns (the summary may be long).
fn cut(line: Line<'static>, w: usize) -> Line<'static> {
    use unicode_width::UnicodeWidthStr;
    let mut used = 0;
    let mut out = Vec::new();
    for s in line.spans {
        let n = s.content.width();
        if used + n <= w {
            used += n;
            out.push(s);
        } else {
            let rest = w.saturating_sub(used);
            if rest > 0 {
                out.push(Span::styled(fit(&s.content, rest), s.style));
            }
            break;
        }
    }
    Line::from(out)
}

impl crate::tui::screen::PaneView for ScopeState {
    fn prepare(&self, area: Rect, v: &View, store: &Store) -> Option<Body> {
        Some(prepare(area, v, store))
    }

    fn list_rows(&self, inner: u16) -> usize {
        inner.saturating_sub(2) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn density_grows_with_the_logarithm_of_the_count() {
        assert_eq!(glyph(Mark::Progress, 1), '▂');
        assert_eq!(glyph(Mark::Progress, 2), '▃');
        assert_eq!(glyph(Mark::Progress, 3), '▃');
        assert_eq!(glyph(Mark::Progress, 4), '▄');
        assert_eq!(glyph(Mark::Progress, 64), '█');
        assert_eq!(glyph(Mark::Progress, 1_000_000), '█');
    }

    #[test]
    fn ticks_read_in_whole_steps() {
        assert_eq!(tick_step(10_000_000, 120), 1_000_000);
        assert_eq!(tick_step(1_000, 120), 100);
        assert_eq!(tick_label(0, 1_000_000), "+0s");
        assert_eq!(tick_label(1_500_000, 500_000), "+1.5s");
        assert_eq!(tick_label(12_345_000, 1_000), "+12.345s");
        assert_eq!(tick_label(125_000_000, 5_000_000), "+2:05");
        // The cursor's time to the column's precision.
        assert_eq!(readable(1_234_567, 100_000), "+1.2 s");
        assert_eq!(readable(1_234_567, 16_393), "+1.23 s");
        assert_eq!(readable(1_234_567, 7), "+1.234567 s");
        assert_eq!(readable(1_234_567, 5_000_000), "+1 s");
        assert_eq!(readable(125_400_000, 50_000), "+2:05.40");
    }
}
