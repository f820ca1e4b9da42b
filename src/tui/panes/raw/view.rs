//! Raw: the selected event's frame (its title names the call it belongs
//! to, `call #12 slow_task`), pretty-printed with JSON colouring (long
//! lines wrapped at the pane's width, continuations marked `↪`) or as
//! exact bytes, with search matches highlighted. The lines were prepared
//! when the selection changed; drawing only slices them.

use crate::trace::Store;
use crate::tui::chrome::{fit, fit_parts, inner, tab_label};
use crate::tui::jsonfmt::{Seg, line_text};
use crate::tui::pane::Pane;
use crate::tui::panes::logs::view::json_style;
use crate::tui::screen::Body;
use crate::tui::screen::View;
use crate::tui::summary::{dir_glyph, event_label};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// The title's first part: the event and the call it belongs to, named
/// as the Timeline names it (`#14 ← notification of #12 slow_task`; the
/// kind in the Timeline's short words when the whole would not fit).
fn event_title(e: &crate::trace::EventRef<'_>, call: Option<String>, room: usize) -> String {
    let what = event_label(e.dir, e.kind);
    let head = format!("· #{} {}", e.seq, dir_glyph(e.dir));
    let Some(call) = call else {
        return format!("{head} {what}");
    };
    // A request is its own call: its name is enough.
    let own = format!("#{} ", e.seq);
    let call = match call.strip_prefix(&own) {
        Some(name) => name.to_string(),
        None => format!("of {call}"),
    };
    let long = format!("{head} {what} {call}");
    if long.width() <= room {
        return long;
    }
    let short = match what {
        "request" => "req",
        "response" => "res",
        "notification" => "ntf",
        "error" => "err",
        other => other,
    };
    format!("{head} {short} {}", call.trim_start_matches("of "))
}

/// The title (it names the event, read from the store: the caller holds
/// its lock) and the visible slice of the prepared lines.
pub fn prepare(area: Rect, st: &View, store: &Store) -> Body {
    let t = &st.shell.theme;
    let raw = &st.panes.raw;
    let ev = raw.seq.and_then(|s| store.get(s));
    // Most telling first: the title is cut when the pane is narrow, by
    // whole parts from the end. A search the user is in comes before
    // everything, its count kept whole and its text shortened if need be.
    let room = (area.width as usize).saturating_sub(tab_label(Pane::Raw).width() + 3);
    let mut info = search_part(raw, room);
    let mut rest = match &ev {
        Some(e) => event_title(e, st.panes.timeline.labels.of(e), room),
        None => "· nothing selected".into(),
    };
    if let Some(fl) = raw.seq.and_then(|s| st.panes.findings.flag(s))
        && let Some(fd) = st.panes.findings.list.get(fl.finding)
    {
        rest.push_str(&format!(
            " · {} {}",
            crate::tui::panes::findings::view::severity_glyph(fl.severity),
            fd.rule
        ));
    }
    if let Some(e) = &ev {
        rest.push_str(&format!(
            " · {} · {} B · {}",
            crate::tui::format::safe(e.method.unwrap_or(""), 40),
            e.bytes.len(),
            if raw.bytes_mode || !e.kind.is_json() {
                "exact bytes"
            } else {
                "pretty"
            }
        ));
    }
    if info.is_empty() {
        info = rest;
    } else {
        // What is left after the search and the space between the parts.
        let rest = fit_parts(&rest, room.saturating_sub(info.width() + 1));
        if !rest.is_empty() {
            info.push(' ');
            info.push_str(&rest);
        }
    }
    let inner = inner(area);
    let rows = inner.height as usize;
    let q = raw.search.to_lowercase();
    let mut lines: Vec<Line> = raw
        .lines
        .iter()
        .skip(raw.scroll)
        .take(rows)
        .map(|l| render_line(st, l, &q))
        .collect();
    if raw.truncated && lines.len() < rows {
        lines.push(Line::styled(
            "… (cut: copy with y for the whole frame)",
            t.muted(),
        ));
    }
    Body {
        info,
        lines,
        rows: Vec::new(),
    }
}

/// `· "query" 3/12` within `room` columns (the query shortened, never the
/// count), or nothing when no search is active.
fn search_part(raw: &super::RawState, room: usize) -> String {
    if raw.search.is_empty() {
        return String::new();
    }
    let count = format!(
        "{}/{}",
        if raw.matches.is_empty() {
            0
        } else {
            raw.match_idx + 1
        },
        raw.matches.len()
    );
    let query = crate::tui::format::safe(&raw.search, 200);
    // `· "` before the query, `" ` and the count after it.
    let frame = 5 + count.width();
    let query = if frame + query.width() <= room {
        query
    } else {
        fit(&query, room.saturating_sub(frame).max(1))
    };
    format!("· \"{query}\" {count}")
}

/// Colour the pieces, then overlay search matches (case-insensitive).
fn render_line<'a>(st: &View, l: &[Seg], q: &str) -> Line<'a> {
    if q.is_empty() {
        return Line::from(
            l.iter()
                .map(|(k, s)| Span::styled(s.clone(), json_style(st, *k)))
                .collect::<Vec<_>>(),
        );
    }
    let text = line_text(l);
    let lower = text.to_lowercase();
    // Lowercasing can change byte lengths outside ASCII; fall back to no highlight then.
    let ranges: Vec<(usize, usize)> = if lower.len() == text.len() {
        lower
            .match_indices(q)
            .map(|(i, m)| (i, i + m.len()))
            .collect()
    } else {
        Vec::new()
    };
    let mut spans = Vec::new();
    let mut pos = 0;
    for (k, s) in l {
        let base: Style = json_style(st, *k);
        let (seg_start, seg_end) = (pos, pos + s.len());
        let mut cur = seg_start;
        for (a, b) in &ranges {
            let (a, b) = ((*a).max(seg_start), (*b).min(seg_end));
            if a >= b || a < cur {
                continue;
            }
            if let (Some(before), Some(hit)) = (text.get(cur..a), text.get(a..b)) {
                spans.push(Span::styled(before.to_string(), base));
                spans.push(Span::styled(hit.to_string(), st.shell.theme.matched()));
                cur = b;
            }
        }
        if let Some(rest) = text.get(cur..seg_end) {
            spans.push(Span::styled(rest.to_string(), base));
        }
        pos = seg_end;
    }
    Line::from(spans)
}

impl crate::tui::screen::PaneView for super::RawState {
    fn prepare(
        &self,
        area: Rect,
        v: &View,
        store: &crate::trace::Store,
    ) -> Option<crate::tui::screen::Body> {
        Some(prepare(area, v, store))
    }
}
