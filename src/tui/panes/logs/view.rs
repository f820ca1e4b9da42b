//! Logs: `notifications/message` by level (colour per level), logger and
//! data folded to one line, the selected entry expandable; OTel log records
//! (with the exporting service) and server stderr as the other sources,
//! each row marked with its source (mcp, otel, stderr) and, when one on
//! screen belongs to a call, the call (`#12 slow_task`, as the Timeline
//! names it); per-level counters from the store's level index.

use crate::protocol::views::{LogLevel, LogView};
use crate::trace::{Dir, Store};
use crate::tui::chrome::{fit, full_width, inner};
use crate::tui::format::{clip, safe, safe_row};
use crate::tui::jsonfmt::Tok;
use crate::tui::pane::Pane;
use crate::tui::screen::Body;
use crate::tui::screen::View;
use crate::tui::summary::data_one_line;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// The call column: `#12 slow_t…` at the least.
const CALL_MIN: usize = 11;
const CALL_MAX: usize = 24;

fn short(l: LogLevel) -> &'static str {
    match l {
        LogLevel::Debug => "dbg",
        LogLevel::Info => "inf",
        LogLevel::Notice => "ntc",
        LogLevel::Warning => "wrn",
        LogLevel::Error => "err",
        LogLevel::Critical => "crt",
        LogLevel::Alert => "alr",
        LogLevel::Emergency => "emg",
    }
}

/// The rows on screen, read from the store (the caller holds its lock),
/// and which entry each drawn line shows (an unfolded entry's lines show it too).
pub fn prepare(area: Rect, st: &View, store: &Store) -> Body {
    let t = &st.shell.theme;
    let lg = &st.panes.logs;
    let v = &lg.view;
    let counts: Vec<String> = LogLevel::ALL
        .iter()
        .map(|l| format!("{}:{}", short(*l), store.by_level(*l).len()))
        .collect();
    let mut info = format!(
        "· ≥ {} · {} · stderr {}",
        v.min,
        counts.join(" "),
        store.stderr_lines().len()
    );
    if !v.stderr {
        info.push_str(" (hidden)");
    }
    let otel = store.otel_logs().len();
    if otel > 0 {
        info.push_str(&format!(" · otel {otel}"));
    }
    if !v.text.is_empty() {
        info.push_str(&format!(" · filter \"{}\"", v.text));
    }
    let inner = inner(area);
    let mut hit_rows = Vec::with_capacity(inner.height as usize);
    let w = inner.width as usize;
    let rows = inner.height as usize;
    let len = v.len();
    let mut lines: Vec<Line> = Vec::new();
    let start = lg.cursor.window(len, rows);
    // The call each row on screen belongs to (`#12 slow_task`), in a
    // column only when one of them names one.
    let labels = &st.panes.timeline.labels;
    let named: Vec<Option<String>> = (start..len.min(start + rows))
        .map(|i| {
            v.seq_at(i)
                .and_then(|seq| store.get(seq))
                .and_then(|ev| labels.of(&ev))
        })
        .collect();
    let call_w = named
        .iter()
        .flatten()
        .map(|l| l.width())
        .max()
        .map_or(0, |n| n.clamp(CALL_MIN, CALL_MAX));
    for i in start..len {
        if lines.len() >= rows {
            break;
        }
        let Some(seq) = v.seq_at(i) else { break };
        let Some(ev) = store.get(seq) else { continue };
        // Read as the Timeline reads it: since the session started.
        let at = format!("{:>10}", crate::tui::format::since_start(ev.t_us));
        let mut spans = vec![Span::styled(at, t.muted()), Span::raw(" ")];
        // The source first, so no server text can pass for another source.
        let (source, color) = match ev.dir {
            Dir::Stderr => ("stderr", t.dir_stderr),
            Dir::Meta => ("otel", t.dir_meta),
            _ => ("mcp", t.muted),
        };
        spans.push(Span::styled(
            format!("{source:<6} "),
            Style::default().fg(color),
        ));
        if call_w > 0 {
            let call = named.get(i - start).cloned().flatten().unwrap_or_default();
            spans.push(Span::styled(
                format!("{} ", fit(&call, call_w)),
                Style::default().fg(t.accent),
            ));
        }
        if ev.dir == Dir::Stderr {
            // No level: the text lines up with the others' logger column.
            spans.push(Span::raw(" ".repeat(10)));
            spans.push(Span::styled(
                safe_row(&ev.text()),
                Style::default().fg(t.fg),
            ));
        } else if ev.dir == Dir::Meta {
            otel_row(st, &ev, &mut spans);
        } else {
            let fr = ev.frame();
            match LogView::parse(fr.params) {
                Ok(l) => {
                    let (label, color) = match &l.level {
                        Ok(lv) => (lv.as_str().to_string(), t.level(*lv)),
                        Err(raw) => (format!("{}?", safe(raw, 8)), t.kind_problem),
                    };
                    let mut style = Style::default().fg(color);
                    if l.level.as_ref().is_ok_and(|lv| *lv >= LogLevel::Error) || l.level.is_err() {
                        style = style.add_modifier(Modifier::BOLD);
                    }
                    spans.push(Span::styled(format!("{:<9} ", label), style));
                    let logger = l.logger.as_deref().map(|g| safe(g, 30)).unwrap_or_default();
                    spans.push(Span::styled(format!("{} ", fit(&logger, 12)), t.muted()));
                    spans.push(Span::styled(data_one_line(&l), Style::default().fg(t.fg)));
                }
                Err(why) => {
                    spans.push(Span::styled(
                        "invalid   ",
                        Style::default().fg(t.kind_problem),
                    ));
                    spans.push(Span::styled(
                        safe_row(&why.to_string()),
                        Style::default().fg(t.kind_problem),
                    ));
                }
            }
        }
        // The text, last on the row, ends in an ellipsis where it is cut.
        if let Some(last) = spans.pop() {
            let used: usize = spans.iter().map(|s| s.content.width()).sum();
            let text = clip(last.content.into_owned(), w.saturating_sub(used));
            spans.push(Span::styled(text, last.style));
        }
        let line = Line::from(spans);
        hit_rows.push((inner.y + lines.len() as u16, i));
        lines.push(if i == lg.cursor.selected && st.shell.focus == Pane::Logs {
            full_width(line, w, t.selected())
        } else {
            line
        });
        if let Some((s, detail)) = &lg.expanded
            && *s == seq
        {
            for dl in detail.iter().take(rows.saturating_sub(lines.len()).min(20)) {
                let mut spans = vec![Span::raw("            │ ")];
                spans.extend(
                    dl.iter()
                        .map(|(k, txt)| Span::styled(txt.clone(), json_style(st, *k))),
                );
                hit_rows.push((inner.y + lines.len() as u16, i));
                lines.push(Line::from(spans));
            }
        }
    }
    if len == 0 {
        lines.push(Line::styled(
            " No log messages yet (the composer's level key asks for them with logging/setLevel).",
            t.muted(),
        ));
    }
    Body {
        info,
        lines,
        rows: hit_rows,
    }
}

/// An OTel log record: its mapped level, the exporting service where a
/// message's logger goes, its body (server text, made one safe line).
fn otel_row(st: &View, ev: &crate::trace::EventRef<'_>, spans: &mut Vec<Span<'static>>) {
    let t = &st.shell.theme;
    let Some(crate::event::Event::OtelLog {
        service,
        level,
        body,
        severity_text,
        ..
    }) = ev.event()
    else {
        spans.push(Span::styled(
            "otel?     ",
            Style::default().fg(t.kind_problem),
        ));
        return;
    };
    let (label, mut style) = match level.parse::<LogLevel>() {
        Ok(lv) => (lv.as_str().to_string(), Style::default().fg(t.level(lv))),
        Err(_) => (
            format!("{}?", safe(&level, 8)),
            Style::default().fg(t.kind_problem),
        ),
    };
    if level
        .parse::<LogLevel>()
        .is_ok_and(|lv| lv >= LogLevel::Error)
    {
        style = style.add_modifier(Modifier::BOLD);
    }
    spans.push(Span::styled(format!("{label:<9} "), style));
    let service = service.map(|s| safe(&s, 30)).unwrap_or_default();
    spans.push(Span::styled(format!("{} ", fit(&service, 12)), t.muted()));
    let body = if body.is_empty() {
        severity_text.unwrap_or_default()
    } else {
        body
    };
    spans.push(Span::styled(safe_row(&body), Style::default().fg(t.fg)));
}

/// Colour for a piece of pretty-printed JSON.
pub fn json_style(st: &View, k: Tok) -> Style {
    let t = &st.shell.theme;
    Style::default().fg(match k {
        Tok::Key => t.json_key,
        Tok::Str => t.json_string,
        Tok::Num => t.json_number,
        Tok::Lit => t.json_literal,
        Tok::Punct => t.json_punct,
        Tok::Plain => t.fg,
        Tok::Odd => t.kind_problem,
        Tok::Wrap => t.muted,
    })
}

impl crate::tui::screen::PaneView for super::LogsState {
    fn prepare(
        &self,
        area: Rect,
        v: &View,
        store: &crate::trace::Store,
    ) -> Option<crate::tui::screen::Body> {
        Some(prepare(area, v, store))
    }
}
