//! One file per pane. Every `draw` takes the state, the store and a
//! rectangle, formats only the rows it shows, and does no I/O.

pub mod composer;
pub mod findings;
pub mod header;
pub mod help;
pub mod logs;
pub mod network;
pub mod progress;
pub mod raw;
pub mod status;
pub mod timeline;
pub mod tools;

use super::state::{Pane, State};
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders};

/// A pane's frame: number and title, extra info, focus colour.
pub fn block<'a>(st: &State, pane: Pane, info: String) -> Block<'a> {
    let focused = st.focus == pane;
    let t = &st.theme;
    let (border, title) = if focused {
        (
            t.fg(t.border_focus),
            t.fg(t.title_focus).add_modifier(Modifier::BOLD),
        )
    } else {
        (t.fg(t.border), t.fg(t.title))
    };
    let mut spans = vec![Span::styled(
        format!(" {} {} ", pane.number(), pane.title()),
        title,
    )];
    if !info.is_empty() {
        spans.push(Span::styled(format!("{info} "), t.muted()));
    }
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Rounded
        })
        .border_style(border)
        .style(t.base())
        .title(Line::from(spans))
}

/// Label of a pane in the tab bar (also used for mouse hit-testing).
pub fn tab_label(p: Pane) -> String {
    format!(" {} {} ", p.number(), p.title())
}

/// Pad a row to the full width so a selection highlight spans it.
pub fn full_width(mut line: Line<'_>, width: usize, style: Style) -> Line<'_> {
    let w = line.width();
    if w < width {
        line.spans.push(Span::raw(" ".repeat(width - w)));
    }
    line.style(style)
}

/// Inner area of a bordered pane.
pub fn inner(r: Rect) -> Rect {
    Rect {
        x: r.x + 1,
        y: r.y + 1,
        width: r.width.saturating_sub(2),
        height: r.height.saturating_sub(2),
    }
}

/// Fit text into `w` columns (by chars; panes only show sanitised text).
pub fn fit(s: &str, w: usize) -> String {
    let n = s.chars().count();
    if n <= w {
        format!("{s:<w$}")
    } else if w == 0 {
        String::new()
    } else {
        let mut out: String = s.chars().take(w - 1).collect();
        out.push('…');
        out
    }
}
