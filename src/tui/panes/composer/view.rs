//! Composer: the JSON editor, validation, token/level/timeout controls, and
//! the equivalent `mcpscope call` command line.

use crate::format::timeout_secs;
use crate::tui::action::Action;
use crate::tui::chrome::{block, inner};
use crate::tui::format::{safe, safe_row};
use crate::tui::keymap::Context;
use crate::tui::pane::Pane;
use crate::tui::screen::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

pub fn draw(f: &mut Frame, area: Rect, st: &View) {
    let t = &st.shell.theme;
    let c = &st.panes.composer;
    let key = |a: Action| {
        st.shell
            .keymap
            .keys_for(Context::Pane(crate::tui::pane::Pane::Composer), a)
            .first()
            .map(|k| k.to_string())
            .unwrap_or_default()
    };
    let mode = if c.raw_mode {
        "raw JSON-RPC message".to_string()
    } else {
        format!("tools/call{}", task_mode(st, &key(Action::ToggleTask)))
    };
    let state = if c.editing {
        " · EDITING (Esc stops)"
    } else {
        ""
    };
    f.render_widget(block(st, Pane::Composer, format!("· {mode}{state}")), area);
    let inner = inner(area);
    if inner.height < 4 {
        return;
    }
    let head = if c.raw_mode {
        Line::from(vec![Span::styled(
            "a request (with \"id\") or a notification (without)",
            t.muted(),
        )])
    } else {
        Line::from(vec![
            Span::styled("tool ", t.muted()),
            Span::styled(
                c.tool
                    .as_deref()
                    .map_or_else(|| "(pick one in Tools)".into(), |n| safe(n, 80)),
                Style::default().fg(t.accent).add_modifier(Modifier::BOLD),
            ),
        ])
    };
    // The command preview gets the rows it needs, down to an editor of
    // two rows (then it is cut with `…`): the whole command is what `y`
    // copies, and what the user reads before sending.
    let command = command_lines(&safe_row(&st.composer_command()), inner.width as usize);
    let footer_h = 3 + command.len() as u16;
    let editor_h = inner.height.saturating_sub(1 + footer_h).max(2);
    f.render_widget(
        Paragraph::new(head).style(t.base()),
        Rect { height: 1, ..inner },
    );
    let ed_area = Rect {
        y: inner.y + 1,
        height: editor_h,
        ..inner
    };
    let border = if c.editing { t.border_focus } else { t.border };
    let ed_block = Block::default()
        .borders(Borders::LEFT)
        .border_style(Style::default().fg(border));
    let ed_inner = ed_block.inner(ed_area);
    f.render_widget(ed_block, ed_area);
    f.render_widget(c.editor(), ed_inner);

    let mut foot = Vec::new();
    match (&c.check.error, c.check.warnings.first()) {
        (Some(e), _) => foot.push(Line::styled(format!("✗ {e}"), Style::default().fg(t.error))),
        (None, Some(w)) => {
            let more = c.check.warnings.len() - 1;
            let extra = if more > 0 {
                format!(" (+{more} more)")
            } else {
                String::new()
            };
            foot.push(Line::styled(
                format!("⚠ {w}{extra} — sendable anyway"),
                Style::default().fg(t.warn),
            ))
        }
        (None, None) => foot.push(Line::styled("✓ valid", Style::default().fg(t.ok))),
    }
    let token = match c.token {
        crate::tui::panes::composer::TokenMode::Custom => format!("custom {:?}", c.custom_token),
        m => m.label().to_string(),
    };
    let ctl = |label: &str, value: String, keys: String| {
        vec![
            Span::styled(format!("{label} "), t.muted()),
            Span::styled(
                value,
                Style::default().fg(t.fg).add_modifier(Modifier::BOLD),
            ),
            Span::styled(format!(" {keys}"), Style::default().fg(t.key)),
            Span::styled("  ", t.muted()),
        ]
    };
    let mut l1 = ctl("token", token, key(Action::CycleToken));
    l1.extend(ctl(
        "level",
        c.level.map_or("—".into(), |l| l.to_string()),
        key(Action::CycleLogLevel),
    ));
    foot.push(Line::from(l1));
    let mut l2 = ctl(
        "idle",
        timeout_secs(c.idle_secs),
        format!("{}/{}", key(Action::IdleDown), key(Action::IdleUp)),
    );
    l2.extend(ctl(
        "max",
        timeout_secs(c.max_secs),
        format!("{}/{}", key(Action::MaxDown), key(Action::MaxUp)),
    ));
    l2.push(Span::styled(
        format!("send [{}]", key(Action::Send)),
        Style::default().fg(t.key).add_modifier(Modifier::BOLD),
    ));
    foot.push(Line::from(l2));
    let foot_area = Rect {
        y: ed_area.y + ed_area.height,
        height: inner.height.saturating_sub(1 + editor_h),
        ..inner
    };
    let room = (foot_area.height as usize).saturating_sub(foot.len());
    let cut = command.len() > room;
    for (i, part) in command.into_iter().take(room).enumerate() {
        let mut text = part;
        if cut && i + 1 == room {
            text = ellipsis_end(&text, inner.width as usize);
        }
        let lead = if i == 0 { "$ " } else { "" };
        foot.push(Line::from(vec![
            Span::styled(lead, Style::default().fg(t.accent)),
            Span::styled(text, t.muted()),
        ]));
    }
    f.render_widget(Paragraph::new(foot).style(t.base()), foot_area);
}

/// The command after `$ `, wrapped at spaces into lines of `width`
/// columns; the first line is two columns shorter for the prompt.
pub fn command_lines(cmd: &str, width: usize) -> Vec<String> {
    let width = width.max(4);
    crate::tui::chrome::wrap_words(cmd, width - 2, width)
}

/// `text` ending in `…` within `width` columns.
fn ellipsis_end(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let cw = c.width().unwrap_or(0);
        if used + cw + 1 > width {
            break;
        }
        out.push(c);
        used += cw;
    }
    out.push('…');
    out
}

/// The task part of the title: nothing for a tool that never runs as a
/// task; "required" where it always does; where optional, whether this
/// call will, and the key that switches it.
fn task_mode(st: &View, toggle: &str) -> String {
    use crate::client::tasks::TaskSupport;
    let Some(tool) = st.panes.composer.tool.as_deref() else {
        return String::new();
    };
    match st.panes.tools.task_support(tool) {
        TaskSupport::Forbidden => String::new(),
        TaskSupport::Required => " · task: required".into(),
        TaskSupport::Optional if st.panes.composer.as_task => format!(" · task: on [{toggle}]"),
        TaskSupport::Optional => format!(" · task: off [{toggle}]"),
    }
}

impl crate::tui::screen::PaneView for super::Composer {
    fn draw(&self, f: &mut Frame, area: Rect, v: &View) {
        draw(f, area, v);
    }

    /// Not where nothing can be sent (a recorded trace, an attached
    /// session: read-only).
    fn offered(&self, v: &View) -> bool {
        v.shell.live
    }
}
