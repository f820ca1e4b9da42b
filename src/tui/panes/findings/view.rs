//! Findings: every protocol rule the server broke, one row each (severity,
//! rule id, the frames that prove it, the explanation), in the order the
//! checks found them. Only the rows on screen are formatted.

use crate::checks::{Severity, SeverityCounts};
use crate::tui::chrome::{block, fit, full_width, inner};
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
    let len = fs.list.len();
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
        format!("· {} · Enter shows the frames", parts.join(" · "))
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
    for i in start..end {
        let Some(fd) = fs.list.get(i) else { break };
        let color = severity_color(t, fd.severity);
        let line = Line::from(vec![
            Span::styled(
                format!(
                    " {} {:<8}",
                    severity_glyph(fd.severity),
                    fd.severity.as_str()
                ),
                Style::default().fg(color).add_modifier(Modifier::BOLD),
            ),
            Span::styled(
                format!("{} ", fit(fd.rule.id(), 25)),
                Style::default().fg(t.fg).add_modifier(Modifier::BOLD),
            ),
            Span::styled(format!("{} ", fit(&frames(&fd.seqs), 13)), t.fg(t.accent)),
            // Which host session, where the proxy judged several.
            Span::styled(
                fd.session.as_deref().map_or(String::new(), |s| {
                    format!("[{}] ", crate::checks::finding::short_session(s))
                }),
                t.fg(t.accent),
            ),
            Span::styled(safe_row(&fd.message), Style::default().fg(t.fg)),
        ]);
        lines.push(if i == fs.cursor.selected {
            full_width(line, w, t.selected())
        } else {
            line
        });
    }
    // The selected finding in full: the list cuts messages to the pane's width.
    if let Some(fd) = fs.list.get(fs.cursor.selected)
        && (inner.height as usize) > rows
    {
        while lines.len() < rows {
            lines.push(Line::raw(""));
        }
        let mut text = format!("{} · frames {}", safe_row(&fd.message), frames(&fd.seqs));
        if let Some(tok) = &fd.token {
            text.push_str(&format!(" · token {tok}"));
        }
        if let Some(id) = &fd.request_id {
            text.push_str(&format!(" · request {id}"));
        }
        if let Some(s) = &fd.session {
            text.push_str(&format!(" · host session {}", safe_row(s)));
        }
        let text: Vec<char> = text.chars().collect();
        let width = w.saturating_sub(1).max(1);
        let mut chunks = text.chunks(width);
        let first: String = chunks.next().unwrap_or_default().iter().collect();
        lines.push(Line::from(vec![
            Span::styled("▸", t.fg(severity_color(t, fd.severity))),
            Span::styled(first, Style::default().fg(t.fg)),
        ]));
        if let Some(rest) = chunks.next() {
            let mut rest: String = rest.iter().collect();
            if chunks.next().is_some() {
                rest.pop();
                rest.push('…');
            }
            lines.push(Line::styled(
                format!(" {}", fit(&rest, width)),
                Style::default().fg(t.fg),
            ));
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
