//! Findings: every protocol rule the server broke, one row per cause
//! (severity, rule id, how many times, the first and last frame that broke
//! it, the explanation), worst first, then by first frame; an expanded
//! group lists its findings under it. The selected row in full below the
//! list, with how to fix it and the specification section. Only the rows
//! on screen are formatted.

use super::Row;
use crate::checks::{Severity, SeverityCounts};
use crate::tui::chrome::{block, cut_line, fit, full_width, inner};
use crate::tui::format::safe_row;
use crate::tui::pane::Pane;
use crate::tui::screen::View;
use crate::tui::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The colour a severity is drawn in, everywhere (header, timeline flags, here).
pub fn severity_color(t: &Theme, s: Severity) -> Color {
    match s {
        Severity::Error => t.error,
        Severity::Warning => t.warn,
        Severity::Info => t.level_info,
    }
}

/// The mark on a flagged timeline row and in front of a finding.
pub fn severity_glyph(s: Severity) -> &'static str {
    match s {
        Severity::Error => "✗",
        Severity::Warning => "▲",
        Severity::Info => "●",
    }
}

/// `text` over at most `max` lines of `width`, the last cut with `…`; the
/// first line starts with `mark` (or a space).
fn push_wrapped(
    lines: &mut Vec<Line<'static>>,
    text: &str,
    width: usize,
    max: usize,
    mark: Option<(&'static str, Color)>,
    style: Style,
) {
    let chars: Vec<char> = text.chars().collect();
    let chunks: Vec<&[char]> = chars.chunks(width).collect();
    for (n, c) in chunks.iter().take(max).enumerate() {
        let mut part: String = c.iter().collect();
        if n + 1 == max && chunks.len() > max {
            part.pop();
            part.push('…');
        }
        let head = match (n, mark) {
            (0, Some((m, color))) => Span::styled(m, Style::default().fg(color)),
            _ => Span::raw(" "),
        };
        lines.push(Line::from(vec![head, Span::styled(part, style)]));
    }
}

/// `#12 #14`: a finding's frames, the first few of them.
fn frames(seqs: &[u64]) -> String {
    let mut out: Vec<String> = seqs.iter().take(4).map(|s| format!("#{s}")).collect();
    if seqs.len() > 4 {
        out.push(format!("+{}", seqs.len() - 4));
    }
    out.join(" ")
}

/// `2 errors`, `1 warning`, `3 info`: the non-zero counts, worst first.
pub fn count_parts(c: SeverityCounts) -> Vec<(String, Severity)> {
    let mut out = Vec::new();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    if c.error > 0 {
        out.push((plural(c.error, "error", "errors"), Severity::Error));
    }
    if c.warning > 0 {
        out.push((plural(c.warning, "warning", "warnings"), Severity::Warning));
    }
    if c.info > 0 {
        out.push((format!("{} info", c.info), Severity::Info));
    }
    out
}

/// The findings listed (`start..end`) in a pane of `inner` rows.
fn window(st: &View, inner_h: u16) -> (usize, usize, usize) {
    let fs = &st.panes.findings;
    let len = fs.rows().len();
    let rows = crate::tui::layout::findings_list_height(inner_h) as usize;
    let start = fs.cursor.window(len, rows);
    (start, (start + rows).min(len), rows)
}

/// Which finding each drawn row shows (the footer names none).
pub fn rows(area: Rect, st: &View) -> Vec<(u16, usize)> {
    let inner = inner(area);
    let (start, end, _) = window(st, inner.height);
    crate::tui::ui::hits::uniform(inner.y, start, end, 1)
}

pub fn draw(f: &mut Frame, area: Rect, st: &View) {
    let t = &st.shell.theme;
    let fs = &st.panes.findings;
    let info = if fs.list.is_empty() {
        "· none".to_string()
    } else {
        let parts: Vec<String> = count_parts(fs.counts).into_iter().map(|(s, _)| s).collect();
        if fs.order.len() < fs.list.len() {
            format!(
                "· {} · {} · Enter lists a cause's findings",
                parts.join(" · "),
                crate::tui::format::count(fs.order.len() as u64, "cause", "causes")
            )
        } else {
            format!("· {} · Enter shows the frames", parts.join(" · "))
        }
    };
    f.render_widget(block(st, Pane::Findings, info), area);
    let inner = inner(area);
    let w = inner.width as usize;
    let mut lines = Vec::new();
    if fs.list.is_empty() {
        lines.push(Line::styled(
            " No findings: every frame so far follows the progress, logging and JSON-RPC rules checked (mcpscope rules lists them).",
            t.muted(),
        ));
    }
    let (start, end, rows) = window(st, inner.height);
    let listed = fs.rows();
    let gs = fs.groups.groups();
    for (i, row) in listed.iter().enumerate().take(end).skip(start) {
        let line = match *row {
            Row::Group(gi) => {
                let g = &gs[gi];
                let color = severity_color(t, g.severity);
                // Several findings: their count and span, and whether they are listed.
                let count = match (g.count, g.first_seq, g.last_seq) {
                    // One finding: its frames, as they prove it.
                    (1, _, _) => g
                        .findings
                        .first()
                        .and_then(|k| fs.list.get(*k))
                        .map_or(String::new(), |fd| frames(&fd.seqs)),
                    (n, first, last) => {
                        let fold = if fs.expanded.contains(&gi) {
                            "▾"
                        } else {
                            "▸"
                        };
                        match (first, last) {
                            (Some(a), Some(b)) => format!("{fold}×{n} #{a}…#{b}"),
                            _ => format!("{fold}×{n}"),
                        }
                    }
                };
                Line::from(vec![
                    Span::styled(
                        format!(" {} {:<8}", severity_glyph(g.severity), g.severity.as_str()),
                        Style::default().fg(color).add_modifier(Modifier::BOLD),
                    ),
                    Span::styled(
                        format!("{} ", fit(g.rule.id(), 25)),
                        Style::default().fg(t.fg).add_modifier(Modifier::BOLD),
                    ),
                    Span::styled(format!("{} ", fit(&count, 13)), t.fg(t.accent)),
                    // Which host session, where the proxy judged several.
                    Span::styled(
                        g.session.as_deref().map_or(String::new(), |s| {
                            format!("[{}] ", crate::checks::finding::short_session(s))
                        }),
                        t.fg(t.accent),
                    ),
                    Span::styled(safe_row(&g.message), Style::default().fg(t.fg)),
                ])
            }
            Row::Finding(_, k) => {
                let Some(fd) = fs.list.get(k) else { break };
                Line::from(vec![
                    Span::styled("     └ ", t.muted()),
                    Span::styled(format!("{} ", fit(&frames(&fd.seqs), 28)), t.fg(t.accent)),
                    Span::styled(safe_row(&fd.message), Style::default().fg(t.fg)),
                ])
            }
        };
        // A message too long for the row ends in `…` (the selected row's
        // whole text is below the list).
        let line = cut_line(line, w);
        lines.push(if i == fs.cursor.selected {
            full_width(line, w, t.selected())
        } else {
            line
        });
    }
    // The selected row in full: the list cuts messages to the pane's
    // width; then how to fix it, and where the specification says so.
    let selected = listed.get(fs.cursor.selected).copied();
    if let Some(row) = selected
        && (inner.height as usize) > rows
    {
        while lines.len() < rows {
            lines.push(Line::raw(""));
        }
        let (g, one) = match row {
            Row::Group(g) => (&gs[g], fs.finding_of(row)),
            Row::Finding(g, k) => (&gs[g], Some(k)),
        };
        let mut text = match one.and_then(|k| fs.list.get(k)) {
            Some(fd) => {
                let mut text = format!("{} · frames {}", safe_row(&fd.message), frames(&fd.seqs));
                if let Some(tok) = &fd.token {
                    text.push_str(&format!(" · token {tok}"));
                }
                if let Some(id) = &fd.request_id {
                    text.push_str(&format!(" · request {id}"));
                }
                text
            }
            None => format!(
                "{} · {} findings, first #{} last #{} · Enter lists them",
                safe_row(&g.message),
                g.count,
                g.first_seq.unwrap_or_default(),
                g.last_seq.unwrap_or_default()
            ),
        };
        if let Some(s) = &g.session {
            text.push_str(&format!(" · host session {}", safe_row(s)));
        }
        let room = (inner.height as usize) - rows;
        let fix = format!("fix: {} · {}", g.rule.fix(), g.rule.spec());
        let width = w.saturating_sub(1).max(1);
        // The finding on one line, the fix on the rest.
        let text_lines = room.min(1);
        push_wrapped(
            &mut lines,
            &text,
            width,
            text_lines,
            Some(("▸", severity_color(t, g.severity))),
            Style::default().fg(t.fg),
        );
        if room > text_lines {
            push_wrapped(&mut lines, &fix, width, room - text_lines, None, t.muted());
        }
    }
    f.render_widget(Paragraph::new(lines).style(t.base()), inner);
}

impl crate::tui::screen::PaneView for super::FindingsState {
    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        draw(f, area, v);
    }

    fn rows(&self, area: Rect, v: &View) -> Vec<(u16, usize)> {
        rows(area, v)
    }

    fn list_rows(&self, inner: u16) -> usize {
        crate::tui::layout::findings_list_height(inner) as usize
    }
}
