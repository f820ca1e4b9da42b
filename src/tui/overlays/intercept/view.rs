//! The Intercept overlay: the breakpoint (or its line being typed, with
//! the filter's error under it), the held messages with their age, the
//! selected one's text, and the keys; or the editor of an edit or a forge.
//! Every piece of a message passes through the row sanitiser first.

use super::{Editing, Intercept};
use crate::intercept::protocol::Side;
use crate::tui::action::Action;
use crate::tui::keymap::Context;
use crate::tui::screen::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

fn frame(area: Rect) -> Rect {
    super::super::frame(area, 110)
}

/// `4.2s`: ages keep running while held, so a tenth is worth showing.
pub fn age(us: u64) -> String {
    format!("{:.1}s", us as f64 / 1e6)
}

pub fn arrow(to: Side) -> &'static str {
    match to {
        Side::Host => "→ host",
        Side::Server => "→ server",
    }
}

/// The first key bound to `a` in `ctx`, as help shows it.
fn key_of(st: &View, ctx: Context, a: Action) -> Option<String> {
    st.shell
        .keymap
        .keys_for(ctx, a)
        .first()
        .map(ToString::to_string)
}

fn keys_line(st: &View, items: &[(Context, Action, &str)]) -> Line<'static> {
    let t = &st.shell.theme;
    let mut spans = Vec::new();
    for (ctx, a, label) in items {
        if let Some(k) = key_of(st, *ctx, *a) {
            spans.push(Span::styled(k, t.fg(t.key).add_modifier(Modifier::BOLD)));
            spans.push(Span::styled(format!(" {label}  "), t.muted()));
        }
    }
    Line::from(spans)
}

pub fn draw(f: &mut Frame, area: Rect, st: &View) {
    let Some(ic) = st.overlays.intercept.as_ref().filter(|i| i.open) else {
        return;
    };
    let r = frame(area);
    if r.width < 20 || r.height < 6 {
        return;
    }
    let inner = crate::tui::chrome::inner(r);
    let (body, foot) = crate::tui::chrome::body_and_foot(inner);
    f.render_widget(Clear, r);
    if let Some(ed) = &ic.editor {
        draw_editor(f, r, body, foot, st, ed);
        return;
    }
    let title = match &ic.lost {
        Some(_) => " Intercept: disconnected ".to_string(),
        None => format!(" Intercept: {} held ", ic.held.len()),
    };
    f.render_widget(crate::tui::chrome::overlay_block(st, title), r);
    let foot_keys: &[(Context, Action, &str)] = &[
        (Context::Intercept, Action::ForwardHeld, "forward"),
        (Context::Intercept, Action::EditHeld, "edit"),
        (Context::Intercept, Action::DropHeld, "drop"),
        (Context::Intercept, Action::Forge, "forge"),
        (Context::Intercept, Action::SetBreakpoint, "breakpoint"),
        (Context::Intercept, Action::ClearBreakpoint, "clear"),
        (Context::Global, Action::Back, "close"),
    ];
    f.render_widget(Paragraph::new(keys_line(st, foot_keys)), foot);
    let lines = list_lines(st, ic, body);
    f.render_widget(Paragraph::new(lines), body);
}

fn list_lines(st: &View, ic: &Intercept, body: Rect) -> Vec<Line<'static>> {
    let t = &st.shell.theme;
    let w = body.width as usize;
    let fit = |s: &str| crate::tui::chrome::fit(s, w);
    let label = t.fg(t.accent).add_modifier(Modifier::BOLD);
    let mut lines = Vec::new();
    match &ic.input {
        Some(inp) => {
            lines.push(Line::from(vec![
                Span::styled("breakpoint: ", label),
                Span::styled(crate::tui::format::safe_row(&inp.text), t.fg(t.fg)),
                Span::styled("█", t.fg(t.accent)),
            ]));
            match &inp.error {
                Some(e) => {
                    // The caret sits under the column the parser names.
                    let pad = " ".repeat("breakpoint: ".len() + e.column.saturating_sub(1));
                    let text = format!("{pad}^ {}", crate::tui::format::safe_row(&e.message));
                    lines.push(Line::from(Span::styled(fit(&text), t.fg(t.warn))));
                }
                None => lines.push(Line::from(Span::styled(
                    fit("Enter sets it (empty: none) · Esc keeps the one in force"),
                    t.muted(),
                ))),
            }
        }
        None => {
            let (text, style) = match (&ic.lost, &ic.filter) {
                (Some(why), _) => (format!("disconnected: {why}"), t.fg(t.warn)),
                (None, Some(flt)) => (crate::tui::format::safe_row(flt), t.fg(t.fg)),
                (None, None) => ("none: nothing is held".to_string(), t.muted()),
            };
            lines.push(Line::from(vec![
                Span::styled("breakpoint: ", label),
                Span::styled(fit(&text), style),
            ]));
            lines.push(Line::default());
        }
    }
    if ic.held.is_empty() {
        lines.push(Line::from(Span::styled(
            fit("Nothing held. Messages the breakpoint selects wait here; their peers' clocks keep running."),
            t.muted(),
        )));
        return lines;
    }
    let now = st.shell.now_us;
    // The list takes up to half the body, the selected message the rest.
    let room = (body.height as usize).saturating_sub(lines.len());
    let list_rows = (room / 2).max(3).min(ic.held.len()).min(room);
    let first = ic.selected.saturating_sub(list_rows.saturating_sub(1));
    for (i, h) in ic.held.iter().enumerate().skip(first).take(list_rows) {
        let sel = i == ic.selected;
        let mut row = format!(
            "{} #{:<4} {:<9} {:>7}  {}",
            if sel { "▶" } else { " " },
            h.id,
            arrow(h.to),
            age(now.saturating_sub(h.held_at_us)),
            h.head
        );
        if let Some(a) = h.asked {
            row.push_str(&format!("  ({a}…)"));
        }
        let style = if sel { t.selected() } else { t.fg(t.fg) };
        lines.push(Line::from(Span::styled(fit(&row), style)));
    }
    if let Some(h) = ic.selected() {
        let left = (body.height as usize).saturating_sub(lines.len() + 1);
        if left > 0 {
            lines.push(Line::from(Span::styled("─".repeat(w), t.muted())));
            let (pretty, _) = crate::tui::jsonfmt::pretty(&h.message, left);
            for l in pretty.into_iter().take(left) {
                let text = crate::tui::jsonfmt::line_text(&l);
                lines.push(Line::from(Span::styled(fit(&text), t.fg(t.fg))));
            }
        }
    }
    lines
}

fn draw_editor(f: &mut Frame, r: Rect, body: Rect, foot: Rect, st: &View, ed: &super::Editor) {
    let t = &st.shell.theme;
    let (title, send) = match ed.kind {
        Editing::Forward(id) => (format!(" Edit held #{id}, then forward it "), "forward"),
        Editing::Forge(to) => (format!(" Forge a message → {} ", to.name()), "send"),
    };
    f.render_widget(crate::tui::chrome::overlay_block(st, title), r);
    let err_rows = u16::from(ed.error.is_some());
    let text_area = Rect {
        height: body.height.saturating_sub(err_rows),
        ..body
    };
    f.render_widget(&*ed.text, text_area);
    if let Some(e) = &ed.error {
        f.render_widget(
            Paragraph::new(Line::from(Span::styled(
                crate::tui::chrome::fit(e, body.width as usize),
                t.fg(t.warn),
            ))),
            Rect {
                y: body.y + body.height.saturating_sub(1),
                height: 1.min(body.height),
                ..body
            },
        );
    }
    let mut keys: Vec<(Context, Action, &str)> = vec![
        (Context::Editor, Action::Send, send),
        (Context::Editor, Action::StopEdit, "back"),
    ];
    let other = match ed.kind {
        Editing::Forge(Side::Host) => Some("to the server instead"),
        Editing::Forge(Side::Server) => Some("to the host instead"),
        Editing::Forward(_) => None,
    };
    if let Some(o) = other {
        keys.push((Context::Intercept, Action::ForgeSide, o));
    }
    f.render_widget(
        Paragraph::new(keys_line(st, &keys)).style(Style::default()),
        foot,
    );
}
