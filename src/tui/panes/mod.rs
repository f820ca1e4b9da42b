//! Two files per pane: `NAME.rs` draws it, `NAME_ctl.rs` (its controller)
//! handles its input. Drawing formats only the rows shown and does no I/O.
//! Panes whose rows come from the store (header, progress, timeline, logs,
//! raw) split drawing in two: `prepare` reads the store (under the lock)
//! into a `Body` of owned lines, and painting it needs no lock. The others
//! draw from the state alone. Each list pane says which item every drawn
//! row shows, for mouse hit-testing (see `hits.rs`).

pub mod argform;
pub mod argform_ctl;
pub mod ask;
pub mod ask_ctl;
pub mod browse;
pub mod browse_ctl;
pub mod composer;
pub mod composer_ctl;
pub mod ctl;
pub mod findings;
pub mod findings_ctl;
pub mod header;
pub mod help;
pub mod help_ctl;
pub mod logs;
pub mod logs_ctl;
pub mod network;
pub mod network_ctl;
pub mod progress;
pub mod progress_ctl;
pub mod raw;
pub mod raw_ctl;
pub mod status;
pub mod status_ctl;
pub mod timeline;
pub mod timeline_ctl;
pub mod tools;
pub mod tools_ctl;

use super::state::{Pane, State};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph};

/// A bordered pane prepared from the store: title info, the lines inside
/// the border, and (screen row, list item) for each row showing an item.
pub struct Body {
    pub info: String,
    pub lines: Vec<Line<'static>>,
    pub rows: Vec<(u16, usize)>,
}

/// Draw a prepared pane: no store needed.
pub fn paint(f: &mut Frame, area: Rect, st: &State, pane: Pane, body: Body) {
    f.render_widget(block(st, pane, body.info), area);
    f.render_widget(
        Paragraph::new(body.lines).style(st.theme.base()),
        inner(area),
    );
}

/// A pane's frame: number and title, extra info, focus colour.
pub fn block<'a>(st: &State, pane: Pane, info: String) -> Block<'a> {
    framed(st, pane, info, |title| {
        vec![Span::styled(
            format!(" {} {} ", pane.number(), pane.title()),
            title,
        )]
    })
}

/// The frame of an overlay (a form, help): thick, in the focus colour,
/// its title in bold.
pub fn overlay_block<'a>(st: &State, title: String) -> Block<'a> {
    let t = &st.theme;
    Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Thick)
        .border_style(t.fg(t.border_focus))
        .style(t.base())
        .title(Span::styled(
            title,
            t.fg(t.title_focus).add_modifier(Modifier::BOLD),
        ))
}

/// A pane's frame whose title spans `title_spans` makes from the title
/// style (focused or not), with extra info after them.
pub fn framed<'a>(
    st: &State,
    pane: Pane,
    info: String,
    title_spans: impl FnOnce(Style) -> Vec<Span<'a>>,
) -> Block<'a> {
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
    let mut spans = title_spans(title);
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
