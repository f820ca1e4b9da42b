//! Help overlay: every binding of the key map, grouped by where it applies.

use crate::tui::state::State;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};

pub fn draw(f: &mut Frame, area: Rect, st: &State) {
    let t = &st.theme;
    let w = area.width.saturating_sub(4).min(100);
    let h = area.height.saturating_sub(2);
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + 1,
        width: w,
        height: h,
    };
    f.render_widget(Clear, r);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Thick)
        .border_style(Style::default().fg(t.border_focus))
        .style(t.base())
        .title(Span::styled(
            " Help — keys (rebind in settings.toml [keys.*]) · Esc closes ",
            Style::default()
                .fg(t.title_focus)
                .add_modifier(Modifier::BOLD),
        ));
    let inner = block.inner(r);
    f.render_widget(block, r);
    let mut lines = Vec::new();
    for (ctx, rows) in st.keymap.describe() {
        lines.push(Line::styled(
            ctx.title(),
            Style::default().fg(t.accent).add_modifier(Modifier::BOLD),
        ));
        for (keys, action) in rows {
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys:<22}"), Style::default().fg(t.key)),
                Span::styled(action.describe(), Style::default().fg(t.fg)),
            ]));
        }
        lines.push(Line::raw(""));
    }
    lines.push(Line::styled(
        "Mouse: click focuses a pane and selects a row; the wheel scrolls the pane under the pointer.",
        t.muted(),
    ));
    let scroll = st
        .help
        .unwrap_or(0)
        .min(lines.len().saturating_sub(inner.height as usize));
    let visible: Vec<Line> = lines
        .into_iter()
        .skip(scroll)
        .take(inner.height as usize)
        .collect();
    f.render_widget(Paragraph::new(visible).style(t.base()), inner);
}
