//! Help overlay: every binding of the key map, grouped by where it applies,
//! the focused pane's group first. The playback keys are listed (as their
//! own group) only in a replay.

use crate::tui::action::Action;
use crate::tui::keymap::Context;
use crate::tui::overlays::status::InputTarget;
use crate::tui::screen::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};

fn frame(area: Rect) -> Rect {
    super::super::frame(area, 100)
}

/// Rows of text the overlay shows at once on a screen `height` rows high:
/// a row is left free above and below it, and its border takes two more.
pub fn rows(height: u16) -> usize {
    height.saturating_sub(4) as usize
}

/// The furthest the help can scroll on the current screen.
pub fn max_scroll(st: &View) -> usize {
    lines(st).len().saturating_sub(rows(st.shell.height))
}

/// Every line of the help, unscrolled: under a search, only the rows
/// whose keys or description hold it (any case), under their headings.
fn lines(st: &View) -> Vec<Line<'static>> {
    lines_and_matches(st).0
}

/// The help's lines and how many key rows the search kept.
fn lines_and_matches(st: &View) -> (Vec<Line<'static>>, usize) {
    let t = &st.shell.theme;
    let heading = Style::default().fg(t.accent).add_modifier(Modifier::BOLD);
    let query = st.overlays.help_query.to_lowercase();
    let matches = |keys: &str, action: Action| {
        query.is_empty()
            || keys.to_lowercase().contains(&query)
            || action.describe().to_lowercase().contains(&query)
    };
    let mut found = 0;
    let row = |keys: &str, action: Action| {
        Line::from(vec![
            Span::styled(format!("  {keys:<22}"), Style::default().fg(t.key)),
            Span::styled(action.describe(), Style::default().fg(t.fg)),
        ])
    };
    let mut out = Vec::new();
    let mut playback = Vec::new();
    // The focused pane's keys first: they are what the user came for.
    let here = if st.shell.focus == crate::tui::pane::Pane::Composer && st.panes.composer.editing {
        Context::Editor
    } else {
        st.key_context()
    };
    let mut groups = st.shell.keymap.describe();
    if let Some(i) = groups.iter().position(|(c, _)| *c == here) {
        let g = groups.remove(i);
        groups.insert(0, g);
    }
    let replay = st.shell.replay.is_some();
    for (ctx, rows) in groups {
        let mut group = Vec::new();
        for (keys, action) in rows {
            // Playback keys are bound everywhere but do nothing live: list
            // them apart, and only where they work.
            let apart = ctx == Context::Global && action.is_replay();
            // Likewise the restart: only once a live session's server is gone.
            let restart = action == Action::Restart && !(st.shell.live && st.shell.conn.ended());
            if (apart && !replay) || restart || !matches(&keys, action) {
                continue;
            }
            found += 1;
            if apart {
                playback.push(row(&keys, action));
            } else {
                group.push(row(&keys, action));
            }
        }
        if group.is_empty() {
            continue;
        }
        out.push(Line::styled(ctx.title(), heading));
        out.extend(group);
        out.push(Line::raw(""));
    }
    if !playback.is_empty() {
        out.push(Line::styled("Replay", heading));
        out.extend(playback);
        out.push(Line::raw(""));
    }
    if query.is_empty() {
        out.push(Line::styled(
            "Mouse: click focuses a pane and selects a row; the wheel scrolls the pane under the pointer.",
            t.muted(),
        ));
    } else if found == 0 {
        out.push(Line::styled(
            "  no key or description holds that text",
            t.muted(),
        ));
    }
    (out, found)
}

/// The frame's title: what the help holds and the keys that leave it, or
/// the search and its count.
fn title(st: &View, found: usize) -> String {
    let q = &st.overlays.help_query;
    let typing = st
        .overlays
        .input
        .as_ref()
        .is_some_and(|i| i.target == InputTarget::HelpSearch);
    if q.is_empty() && !typing {
        let search = st
            .shell
            .keymap
            .keys_for(Context::Help, Action::Filter)
            .first()
            .map(|k| format!("{k} searches · "))
            .unwrap_or_default();
        return format!(" Help — keys (rebind in settings.toml [keys.*]) · {search}Esc closes ");
    }
    format!(
        " Help — keys matching \"{}\": {} · Esc {} ",
        crate::tui::format::safe(q, 40),
        crate::tui::format::count(found as u64, "match", "matches"),
        if typing { "drops it" } else { "clears" }
    )
}

pub fn draw(f: &mut Frame, area: Rect, st: &View) {
    let t = &st.shell.theme;
    let r = frame(area);
    f.render_widget(Clear, r);
    let (lines, found) = lines_and_matches(st);
    let height = r.height.saturating_sub(2) as usize;
    let scroll = st
        .overlays
        .help
        .unwrap_or(0)
        .min(lines.len().saturating_sub(height));
    let below = lines.len().saturating_sub(scroll + height);
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Thick)
        .border_style(Style::default().fg(t.border_focus))
        .style(t.base())
        .title(Span::styled(
            title(st, found),
            Style::default()
                .fg(t.title_focus)
                .add_modifier(Modifier::BOLD),
        ));
    // Without this a cut list looks complete: say how much is left, and how
    // to get there.
    // The keys are the user's bindings, which may not be the defaults.
    let key = |a: Action| {
        st.shell
            .keymap
            .keys_for(Context::Global, a)
            .first()
            .map(|k| k.to_string())
            .unwrap_or_else(|| "?".into())
    };
    if below > 0 {
        block = block.title_bottom(Span::styled(
            format!(
                " {below} more below: {}/{} scroll, {} jumps to the end ",
                key(Action::Down),
                key(Action::PageDown),
                key(Action::Bottom)
            ),
            Style::default().fg(t.accent).add_modifier(Modifier::BOLD),
        ));
    } else if scroll > 0 {
        block = block.title_bottom(Span::styled(
            format!(
                " end of help: {}/{} scroll back, {} to the top ",
                key(Action::Up),
                key(Action::PageUp),
                key(Action::Top)
            ),
            Style::default().fg(t.muted),
        ));
    }
    let inner = block.inner(r);
    f.render_widget(block, r);
    let visible: Vec<Line> = lines.into_iter().skip(scroll).take(height).collect();
    f.render_widget(Paragraph::new(visible).style(t.base()), inner);
}
