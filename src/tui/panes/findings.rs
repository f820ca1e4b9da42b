//! Findings: every protocol rule the server broke, one row each (severity,
//! rule id, the frames that prove it, the explanation), in the order the
//! checks found them. Only the rows on screen are formatted.

use super::{block, fit, full_width, inner};
use crate::checks::{Severity, SeverityCounts};
use crate::trace::Store;
use crate::tui::format::safe_row;
use crate::tui::state::{Pane, State};
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

pub fn draw(f: &mut Frame, area: Rect, st: &State, _store: &Store) {
    let t = &st.theme;
    let fs = &st.findings;
    let info = if fs.list.is_empty() {
        "· none".to_string()
    } else {
        let parts: Vec<String> = count_parts(fs.counts).into_iter().map(|(s, _)| s).collect();
        format!("· {} · Enter shows the frames", parts.join(" · "))
    };
    f.render_widget(block(st, Pane::Findings, info), area);
    let inner = inner(area);
    let w = inner.width as usize;
    let h = inner.height as usize;
    let mut lines = Vec::new();
    if fs.list.is_empty() {
        lines.push(Line::styled(
            " No findings: every frame so far follows the progress, logging and JSON-RPC rules checked (mcpscope rules lists them).",
            t.muted(),
        ));
    }
    let len = fs.list.len();
    let start = fs.cursor.window(len, h);
    for i in start..(start + h).min(len) {
        let Some(fd) = fs.list.get(i) else { break };
        let color = severity_color(t, fd.severity);
        let mut frames = String::new();
        for s in fd.seqs.iter().take(4) {
            frames.push_str(&format!("#{s} "));
        }
        if fd.seqs.len() > 4 {
            frames.push_str(&format!("+{} ", fd.seqs.len() - 4));
        }
        let line = Line::from(vec![
            Span::styled(
                format!(" {} {:<7} ", severity_glyph(fd.severity), fd.severity),
                Style::default().fg(color).add_modifier(Modifier::BOLD),
            ),
            Span::styled(
                format!("{} ", fit(fd.rule.id(), 26)),
                Style::default().fg(t.fg).add_modifier(Modifier::BOLD),
            ),
            Span::styled(format!("{} ", fit(&frames, 22)), t.fg(t.accent)),
            Span::styled(safe_row(&fd.message), Style::default().fg(t.fg)),
        ]);
        lines.push(if i == fs.cursor.selected {
            full_width(line, w, t.selected())
        } else {
            line
        });
    }
    f.render_widget(Paragraph::new(lines).style(t.base()), inner);
}
