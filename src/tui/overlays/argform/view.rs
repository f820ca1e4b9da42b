//! The argument form overlay (a prompt's arguments, a template's
//! variables): the elicitation form's rows (`ask::form_lines`), with the
//! completion values the server offers dropped down under the focused
//! field, the one picked highlighted, and how many there are in all.

use crate::tui::format::safe_row;
use crate::tui::overlays::argform::ArgForm;
use crate::tui::screen::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

/// Values listed under the field at once.
const DROPDOWN: usize = 8;

pub fn draw(f: &mut Frame, area: Rect, st: &View) {
    let Some(form) = &st.overlays.argform else {
        return;
    };
    let w = area.width.saturating_sub(4).min(90);
    let r = Rect {
        x: area.x + (area.width.saturating_sub(w)) / 2,
        y: area.y + 1,
        width: w,
        height: area.height.saturating_sub(2),
    };
    if r.width < 10 || r.height < 5 {
        return;
    }
    let block = crate::tui::chrome::overlay_block(st, format!(" {} ", form.title));
    f.render_widget(Clear, r);
    f.render_widget(block, r);
    let inner = crate::tui::chrome::inner(r);
    let body = Rect {
        height: inner.height.saturating_sub(1),
        ..inner
    };
    let (mut lines, focus) =
        crate::tui::overlays::asks::view::form_lines(st, &form.form, body.width as usize);
    let drop = dropdown(st, form);
    let after = focus + 1;
    let n = drop.len();
    for (i, l) in drop.into_iter().enumerate() {
        lines.insert((after + i).min(lines.len()), l);
    }
    let h = body.height as usize;
    let scroll = (focus + 1 + n).saturating_sub(h);
    f.render_widget(Paragraph::new(lines).scroll((scroll as u16, 0)), body);
    f.render_widget(
        Paragraph::new(keys_line(st, form)),
        crate::tui::chrome::body_and_foot(inner).1,
    );
}

fn dropdown(st: &View, form: &ArgForm) -> Vec<Line<'static>> {
    let t = &st.shell.theme;
    let values = form.shown();
    let Some(c) = &form.complete else {
        return Vec::new();
    };
    if values.is_empty() {
        return Vec::new();
    }
    let pick = c.pick;
    // Keep the picked value in the window.
    let start = pick.map_or(0, |p| p.saturating_sub(DROPDOWN - 1));
    let mut out: Vec<Line> = values
        .iter()
        .enumerate()
        .skip(start)
        .take(DROPDOWN)
        .map(|(i, v)| {
            let here = pick == Some(i);
            Line::from(Span::styled(
                format!("    {} {}", if here { "▸" } else { " " }, safe_row(v)),
                if here { t.selected() } else { t.fg(t.accent) },
            ))
        })
        .collect();
    let mut more = Vec::new();
    if values.len() > DROPDOWN {
        more.push(format!("{} values", values.len()));
    }
    if let Some(total) = c.total
        && total as usize > values.len()
    {
        more.push(format!("showing {} of {total}", values.len()));
    } else if c.has_more || c.cut {
        more.push("more exist (truncated)".into());
    }
    if !more.is_empty() {
        out.push(Line::styled(
            format!("      {}", more.join(" · ")),
            t.muted(),
        ));
    }
    out
}

fn keys_line(st: &View, form: &ArgForm) -> Line<'static> {
    let t = &st.shell.theme;
    let k = |s: &str| Span::styled(s.to_string(), t.fg(t.key).add_modifier(Modifier::BOLD));
    let d = |s: &str| Span::styled(s.to_string(), t.muted());
    let mut spans = vec![k("Enter"), d(" send  ")];
    if form.shown().is_empty() {
        spans.extend([k("↑↓ Tab"), d(" field  "), k("Esc"), d(" close")]);
    } else {
        spans.extend([k("↑↓"), d(" choose  "), k("Tab"), d(" take value  ")]);
        spans.extend([k("Esc"), d(" hide values")]);
    }
    Line::from(spans)
}
