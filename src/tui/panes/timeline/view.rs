//! Timeline: every event in exact arrival order (or the filtered/lane view),
//! one row each, formatted only for the rows on screen. Frames named by a
//! finding carry its severity mark. Times read since the session started
//! (`+12.345s`) or, toggled, by the wall clock. Over HTTP, when the rows on
//! screen come from more than one stream, a narrow column names each
//! event's channel (`post:3`, `get`…), so the order within each stream is
//! visible; the Network pane narrows the view to one channel. The call
//! column names the call each row belongs to (`#12 slow_task`: its
//! request's seq and tool or method, see `label`). The columns are sized
//! from the rows on screen and the summary gets what is left; when room is
//! short the method column goes before the call column.

use crate::trace::{Dir, Store};
use crate::tui::chrome::{fit, full_width, inner};
use crate::tui::format::{clip, count, safe, since_start};
use crate::tui::panes::findings::view::{severity_color, severity_glyph};
use crate::tui::screen::Body;
use crate::tui::screen::View;
use crate::tui::summary::{Class, Summary, dir_glyph, summarize};
use crate::tui::views::KindFilter;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// The channel column: `post:1234`, `listen:12`, `get` fit; longer names are cut.
const CHANNEL_W: usize = 9;
/// The summary, the most useful column, gets at least this much when the
/// pane is wide enough for the narrowest other columns.
const SUMMARY_MIN: usize = 20;
const METHOD_MIN: usize = 8;
const METHOD_MAX: usize = 28;
/// `#12 slow_t…` still tells calls apart.
const CALL_MIN: usize = 11;
const CALL_MAX: usize = 30;

/// The rows on screen, read from the store (the caller holds its lock),
/// and which timeline row each drawn line shows.
pub fn prepare(area: Rect, st: &View, store: &Store) -> Body {
    let t = &st.shell.theme;
    let tl = &st.panes.timeline;
    let len = tl.view.len(store);
    let mut info = vec![format!("· {}", count(len as u64, "row", "rows"))];
    if let Some(l) = &tl.view.lane {
        info.push(match tl.labels.of_id(&l.id) {
            Some(name) => format!("lane {name}"),
            None => format!("lane id {}", l.id),
        });
    } else if let Some(c) = &tl.view.channel {
        info.push(format!("channel {}", c.name));
    } else {
        if tl.view.kind != KindFilter::All {
            info.push(format!("kind: {}", tl.view.kind.label()));
        }
        if !tl.view.text.is_empty() {
            info.push(format!("filter \"{}\"", tl.view.text));
        }
        match (&tl.expr_error, tl.view.expr()) {
            (Some(e), _) => info.push(format!("✗ {}", crate::tui::format::safe_row(e))),
            (None, Some(x)) => info.push(format!("where {}", crate::tui::format::safe_row(x))),
            (None, None) => {}
        }
        if tl.rebuilding {
            let total = store.next_seq().max(1);
            info.push(format!("scanning {}%", tl.view.scanned_to() * 100 / total));
        }
    }
    info.push(if tl.follow {
        "following".into()
    } else {
        "paused (f follows)".into()
    });
    let info = info.join(" · ");
    let inner = inner(area);
    let w = inner.width as usize;
    let rows = (inner.height as usize).saturating_sub(1);
    let start = tl.cursor.window(len, rows);
    let late_after = tl.view.lane.as_ref().and_then(|l| l.response_seq(store));
    let wall = st.panes.scope.wall.filter(|_| tl.wall_clock);
    // Only the rows on screen are read and summarised, once; the columns
    // are sized from them.
    let shown: Vec<(usize, u64, Option<Shown>)> = (start..(start + rows).min(len))
        .map_while(|i| {
            let seq = tl.view.seq_at(i, store)?;
            let row = store.get(seq).map(|ev| Shown {
                time: match &wall {
                    Some(w) => w.clock(ev.t_us),
                    None => since_start(ev.t_us),
                },
                dir: ev.dir,
                channel: safe(ev.channel, 40),
                s: summarize(&ev, &tl.labels),
            });
            Some((i, seq, row))
        })
        .collect();
    let cols = Columns::fit(w, st, shown.iter().filter_map(|r| r.2.as_ref()));
    let Columns {
        time: tw,
        channel: cw,
        method: mw,
        call: iw,
    } = cols;
    let mut lines = vec![Line::styled(
        fit(
            &format!(
                "{:>tw$}   {}{:<5} {}{} summary",
                if wall.is_some() { "UTC" } else { "time" },
                if cw > 0 {
                    format!("{} ", fit("channel", cw))
                } else {
                    String::new()
                },
                "kind",
                if mw > 0 {
                    format!("{} ", fit("method", mw))
                } else {
                    String::new()
                },
                fit("call", iw),
            ),
            w,
        ),
        t.muted().add_modifier(Modifier::BOLD),
    )];
    let mut hit_rows = Vec::with_capacity(rows);
    for (i, seq, row) in shown {
        // Below the column header: line k of `lines` is screen row inner.y + k.
        hit_rows.push((inner.y + lines.len() as u16, i));
        let Some(Shown {
            time,
            dir,
            channel,
            s,
        }) = row
        else {
            lines.push(Line::styled(format!("#{seq} (evicted)"), t.muted()));
            continue;
        };
        let dir_color = match dir {
            Dir::Out => t.dir_out,
            Dir::In => t.dir_in,
            Dir::Stderr => t.dir_stderr,
            Dir::Meta => t.dir_meta,
        };
        let class_color = match s.class {
            Class::Request => t.kind_request,
            Class::Response => t.kind_response,
            Class::Notification => t.kind_notification,
            Class::Error => t.kind_error,
            Class::Problem => t.kind_problem,
            Class::Stderr => t.dir_stderr,
            Class::Meta => t.dir_meta,
        };
        let late = late_after.is_some_and(|r| seq > r);
        let text_style = if late {
            Style::default()
                .fg(t.lane_late)
                .add_modifier(Modifier::BOLD)
        } else if s.class == Class::Problem {
            Style::default().fg(t.kind_problem)
        } else {
            Style::default().fg(t.fg)
        };
        // A flagged frame carries its worst finding's mark in the gutter left
        // of the time (the column is one wider than its longest time): one
        // map lookup per visible row.
        let ms = format!("{time:>tw$}");
        let mut spans = match st.panes.findings.flag(seq) {
            Some(fl) => vec![
                Span::styled(
                    severity_glyph(fl.severity),
                    Style::default()
                        .fg(severity_color(t, fl.severity))
                        .add_modifier(Modifier::BOLD),
                ),
                Span::styled(ms.strip_prefix(' ').unwrap_or(&ms).to_string(), t.muted()),
            ],
            None => vec![Span::styled(ms, t.muted())],
        };
        spans.extend([
            Span::raw(" "),
            Span::styled(
                format!("{} ", dir_glyph(dir)),
                Style::default().fg(dir_color).add_modifier(Modifier::BOLD),
            ),
        ]);
        if cw > 0 {
            // A replayed trace names its own channels: sanitised like any text.
            spans.push(Span::styled(format!("{} ", fit(&channel, cw)), t.muted()));
        }
        spans.push(Span::styled(
            format!("{:<5} ", s.kind),
            Style::default().fg(class_color),
        ));
        if mw > 0 {
            spans.push(Span::styled(
                format!("{} ", fit(short_method(&s.method), mw)),
                Style::default().fg(t.fg),
            ));
        }
        spans.push(Span::styled(
            format!("{} ", fit(&s.call, iw)),
            Style::default().fg(t.accent),
        ));
        if late {
            spans.push(Span::styled("after response! ", text_style));
        }
        let used: usize = spans.iter().map(|s| s.content.width()).sum();
        spans.push(Span::styled(
            clip(s.text, w.saturating_sub(used)),
            text_style,
        ));
        let line = Line::from(spans);
        lines.push(if i == tl.cursor.selected {
            full_width(line, w, t.selected())
        } else {
            line
        });
    }
    Body {
        info,
        lines,
        rows: hit_rows,
    }
}

/// What a row on screen shows, read once from its event.
struct Shown {
    time: String,
    dir: Dir,
    channel: String,
    s: Summary,
}

/// The widths of the columns before the summary, which gets what is left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Columns {
    time: usize,
    /// 0: no channel column.
    channel: usize,
    /// 0: no method column.
    method: usize,
    call: usize,
}

impl Columns {
    /// Each column as wide as its widest row on screen (within bounds);
    /// when that leaves the summary less than `SUMMARY_MIN`, the call and
    /// then the method columns give way down to their minimums, then the
    /// method column goes (the kind and the summary still say what a row
    /// is); the call column stays, so concurrent calls read apart at every
    /// size. The channel column is drawn only over HTTP when the rows on
    /// screen come from more than one stream.
    fn fit<'a>(w: usize, st: &View, rows: impl Iterator<Item = &'a Shown> + Clone) -> Columns {
        let widest = |f: &dyn Fn(&Shown) -> usize| rows.clone().map(f).max().unwrap_or(0);
        let time = widest(&|r| r.time.width()).max(4) + 1;
        let mut first = None;
        let several = rows.clone().any(|r| {
            let c = first.get_or_insert(r.channel.as_str());
            *c != r.channel
        });
        let channel = if st.shows_channels() && st.panes.timeline.view.channel.is_none() && several
        {
            widest(&|r| r.channel.width()).clamp(7, CHANNEL_W)
        } else {
            0
        };
        let mut method = widest(&|r| short_method(&r.s.method).width()).clamp(6, METHOD_MAX);
        let mut call = widest(&|r| r.s.call.width()).clamp(4, CALL_MAX);
        // Time, the direction glyph, the channel, the kind, and a space after each.
        let fixed = time + 3 + if channel > 0 { channel + 1 } else { 0 } + 6;
        let used = |m: usize, c: usize| fixed + if m > 0 { m + 1 } else { 0 } + c + 1 + SUMMARY_MIN;
        while used(method, call) > w && call > CALL_MIN {
            call -= 1;
        }
        while used(method, call) > w && method > METHOD_MIN {
            method -= 1;
        }
        // Still short: the method goes (the kind and the summary say what
        // a row is; the Raw pane shows it).
        if used(method, call) > w {
            method = 0;
        }
        Columns {
            time,
            channel,
            method,
            call,
        }
    }
}

/// The kind column already says "notification": drop the common prefix so
/// the method column shows what differs (custom methods stay whole).
fn short_method(m: &str) -> &str {
    m.strip_prefix("notifications/").unwrap_or(m)
}

impl crate::tui::screen::PaneView for super::TimelineState {
    fn prepare(
        &self,
        area: Rect,
        v: &View,
        store: &crate::trace::Store,
    ) -> Option<crate::tui::screen::Body> {
        Some(prepare(area, v, store))
    }

    fn list_rows(&self, inner: u16) -> usize {
        inner.saturating_sub(1) as usize
    }
}
