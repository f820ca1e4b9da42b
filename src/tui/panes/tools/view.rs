//! Tools: the server's tools (every page), filterable, and the selected
//! tool's description and input schema.

use crate::tui::browse::Tab;
use crate::tui::chrome::{fit_middle, full_width, inner};
use crate::tui::format::safe_row;
use crate::tui::layout::tools_list_height;
use crate::tui::schema::describe_props;
use crate::tui::screen::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

/// The list's area, the line a status message takes above it (loading, an
/// error, no tools), and the tools listed (`start..end`).
fn window(area: Rect, st: &View) -> (Rect, u16, usize, usize) {
    let tools = &st.panes.tools;
    let inner = inner(area);
    let list_h = tools_list_height(inner.height);
    let message = u16::from(tools.loading || tools.error.is_some() || tools.all.is_empty());
    let start = tools.cursor.window(tools.visible.len(), list_h as usize);
    let end = (start + list_h as usize).min(tools.visible.len());
    (
        Rect {
            height: list_h,
            ..inner
        },
        message,
        start,
        end,
    )
}

/// Which tool each drawn row shows (rows cut off below the list show none).
pub fn rows(area: Rect, st: &View) -> Vec<(u16, usize)> {
    if st.panes.tools.browse.tab != Tab::Tools {
        return super::browse_view::rows(area, st);
    }
    let (list, message, start, end) = window(area, st);
    let mut rows = crate::tui::ui::hits::uniform(list.y + message, start, end, 1);
    rows.retain(|(y, _)| *y < list.y + list.height);
    rows
}

pub fn draw(f: &mut Frame, area: Rect, st: &View) {
    if st.panes.tools.browse.tab != Tab::Tools {
        return super::browse_view::draw(f, area, st);
    }
    let t = &st.shell.theme;
    let tools = &st.panes.tools;
    let mut info = format!("· {}", tools.all.len());
    if !tools.filter.is_empty() {
        info.push_str(&format!(
            " · filter \"{}\" ({} shown)",
            tools.filter,
            tools.visible.len()
        ));
    }
    f.render_widget(super::browse_view::pane_block(st, info), area);
    let inner = inner(area);
    let w = inner.width as usize;
    let list_h = tools_list_height(inner.height);
    let list_area = Rect {
        height: list_h,
        ..inner
    };
    let detail_area = Rect {
        y: inner.y + list_h,
        height: inner.height.saturating_sub(list_h),
        ..inner
    };
    let mut lines = Vec::new();
    if tools.loading {
        lines.push(Line::styled(" loading tools/list…", t.muted()));
    } else if let Some(e) = &tools.error {
        lines.push(Line::styled(
            format!(" tools/list failed: {e}"),
            Style::default().fg(t.error),
        ));
    } else if tools.all.is_empty() {
        lines.push(Line::styled(" no tools", t.muted()));
    }
    let (_, _, start, end) = window(area, st);
    let name_w = name_width(tools.all.iter().map(|t| t.label.as_str()), w);
    for (i, idx) in tools.visible.iter().enumerate().take(end).skip(start) {
        let tool = &tools.all[*idx];
        let line = Line::from(vec![
            Span::styled(
                format!(" {}", fit_middle(&tool.label, name_w)),
                Style::default().fg(t.accent),
            ),
            Span::styled(format!(" {}", tool.title), t.muted()),
        ]);
        lines.push(if i == tools.cursor.selected {
            full_width(line, w, t.selected())
        } else {
            line
        });
    }
    f.render_widget(Paragraph::new(lines).style(t.base()), list_area);

    let Some(tool) = tools.selected() else { return };
    let mut d = vec![Line::styled("─".repeat(w), Style::default().fg(t.border))];
    d.push(Line::from(vec![
        Span::styled(
            tool.label.clone(),
            Style::default().fg(t.fg).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            if tool.title.is_empty() {
                String::new()
            } else {
                format!(" — {}", tool.title)
            },
            t.muted(),
        ),
    ]));
    for l in tool.description.lines().take(12) {
        d.push(Line::styled(safe_row(l), Style::default().fg(t.fg)));
    }
    d.push(Line::styled(
        "input schema:",
        t.muted().add_modifier(Modifier::BOLD),
    ));
    let props = describe_props(&tool.schema);
    if props.is_empty() {
        d.push(Line::styled("  (no properties)", t.muted()));
    }
    for (head, desc, required) in props {
        d.push(Line::from(vec![
            Span::styled(
                if required { " * " } else { "   " },
                Style::default().fg(t.warn),
            ),
            Span::styled(safe_row(&head), Style::default().fg(t.json_key)),
            Span::styled(format!("  {}", safe_row(&desc)), t.muted()),
        ]));
    }
    f.render_widget(
        Paragraph::new(d).style(t.base()).wrap(Wrap { trim: false }),
        detail_area,
    );
}

/// The name column: 22 columns, wider for the longest name while the
/// column takes at most three fifths of the pane (all but ten columns of
/// a narrow one: the details below say what a tool does); longer names
/// are cut in the middle.
pub fn name_width<'a>(names: impl Iterator<Item = &'a str>, pane_w: usize) -> usize {
    let longest = names.map(|n| n.width()).max().unwrap_or(0);
    let most = if pane_w < 40 {
        pane_w.saturating_sub(10)
    } else {
        pane_w * 3 / 5
    };
    longest.max(22).min(most).max(8)
}

impl crate::tui::screen::PaneView for super::ToolsState {
    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        draw(f, area, v);
    }

    fn rows(&self, area: Rect, v: &View) -> Vec<(u16, usize)> {
        rows(area, v)
    }

    fn list_rows(&self, inner: u16) -> usize {
        crate::tui::layout::tools_list_height(inner) as usize
    }
}
