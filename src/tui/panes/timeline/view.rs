//! Timeline: every event in exact arrival order (or the filtered/lane view),
//! one row each, formatted only for the rows on screen. Frames named by a
//! finding carry its severity mark. Over HTTP a narrow column names each
//! event's channel (`post:3`, `get`…), so the order within each stream is
//! visible; the Network pane narrows the view to one channel.

use crate::format::rel_ms;
use crate::trace::{Dir, Store};
use crate::tui::chrome::{fit, full_width, inner};
use crate::tui::format::safe;
use crate::tui::panes::findings::view::{severity_color, severity_glyph};
use crate::tui::screen::Body;
use crate::tui::screen::View;
use crate::tui::summary::{Class, dir_glyph, summarize};
use crate::tui::views::KindFilter;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

/// The channel column: `post:1234`, `listen:12`, `get` fit; longer names are cut.
const CHANNEL_W: usize = 9;

/// The rows on screen, read from the store (the caller holds its lock),
/// and which timeline row each drawn line shows.
pub fn prepare(area: Rect, st: &View, store: &Store) -> Body {
    let t = &st.shell.theme;
    let tl = &st.panes.timeline;
    let len = tl.view.len(store);
    let mut info = vec![format!("· {len} rows")];
    if let Some(l) = &tl.view.lane {
        info.push(format!("lane id {}", l.id));
    } else if let Some(c) = &tl.view.channel {
        info.push(format!("channel {}", c.name));
    } else {
        if tl.view.kind != KindFilter::All {
            info.push(format!("kind: {}", tl.view.kind.label()));
        }
        if !tl.view.text.is_empty() {
            info.push(format!("filter \"{}\"", tl.view.text));
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
    // Method and id columns share the width; the summary gets the rest.
    let mw = (w / 5).clamp(16, 28);
    let iw = (w / 6).clamp(16, 26);
    let channels = st.shows_channels();
    let mut lines = vec![Line::styled(
        fit(
            &format!(
                "{:>10}   {}{:<5} {:<mw$} {:<iw$} summary",
                "ms",
                if channels {
                    format!("{:<CHANNEL_W$} ", "channel")
                } else {
                    String::new()
                },
                "kind",
                "method",
                "id / token"
            ),
            w,
        ),
        t.muted().add_modifier(Modifier::BOLD),
    )];
    let start = tl.cursor.window(len, rows);
    let mut hit_rows = Vec::with_capacity(rows);
    let late_after = tl.view.lane.as_ref().and_then(|l| l.response_seq(store));
    for i in start..(start + rows).min(len) {
        let Some(seq) = tl.view.seq_at(i, store) else {
            break;
        };
        // Below the column header: line k of `lines` is screen row inner.y + k.
        hit_rows.push((inner.y + lines.len() as u16, i));
        let Some(ev) = store.get(seq) else {
            lines.push(Line::styled(format!("#{seq} (evicted)"), t.muted()));
            continue;
        };
        let s = summarize(&ev);
        let dir_color = match ev.dir {
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
        // of the time: one map lookup per visible row.
        let ms = rel_ms(ev.t_us);
        let mut spans = match st.panes.findings.flag(seq) {
            Some(fl) => vec![
                Span::styled(
                    severity_glyph(fl.severity),
                    Style::default()
                        .fg(severity_color(t, fl.severity))
                        .add_modifier(Modifier::BOLD),
                ),
                // The time is right-aligned: its first column is a space
                // unless the session ran for more than a day.
                Span::styled(ms.strip_prefix(' ').unwrap_or(&ms).to_string(), t.muted()),
            ],
            None => vec![Span::styled(ms, t.muted())],
        };
        spans.extend([
            Span::raw(" "),
            Span::styled(
                format!("{} ", dir_glyph(ev.dir)),
                Style::default().fg(dir_color).add_modifier(Modifier::BOLD),
            ),
        ]);
        if channels {
            spans.push(Span::styled(
                // A replayed trace names its own channels: sanitised like any text.
                format!("{} ", fit(&safe(ev.channel, 40), CHANNEL_W)),
                t.muted(),
            ));
        }
        spans.extend([
            Span::styled(format!("{:<5} ", s.kind), Style::default().fg(class_color)),
            Span::styled(
                format!("{} ", fit(short_method(&s.method), mw)),
                Style::default().fg(t.fg),
            ),
            Span::styled(
                format!("{} ", fit(&s.ids, iw)),
                Style::default().fg(t.accent),
            ),
        ]);
        if late {
            spans.push(Span::styled("after response! ", text_style));
        }
        spans.push(Span::styled(s.text, text_style));
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
