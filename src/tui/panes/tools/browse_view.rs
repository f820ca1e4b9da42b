//! The Tools pane's title with its tabs (Tools │ Resources │ Prompts, the
//! shown one highlighted, the switching key beside them), and the
//! Resources and Prompts tabs: a list over the selected item's details, or
//! (after Enter) the read contents or the prompt's messages over the whole
//! pane, scrollable.

use crate::tui::action::Action;
use crate::tui::browse::{Detail, Listing, Row, Tab, Tone};
use crate::tui::chrome::{fit, fit_middle, full_width, inner};
use crate::tui::format::safe_row;
use crate::tui::keymap::Context;
use crate::tui::layout::{self, tools_list_height};
use crate::tui::pane::Pane;
use crate::tui::screen::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

/// The title's pieces: text, and the tab it names (if it names one).
fn title_parts(st: &View) -> Vec<(Option<Tab>, String)> {
    let mut parts = vec![(None, format!(" {} ", Pane::Tools.number()))];
    for (i, tab) in Tab::ALL.iter().enumerate() {
        if i > 0 {
            parts.push((None, " │ ".into()));
        }
        parts.push((Some(*tab), tab.title().into()));
    }
    let key = st
        .shell
        .keymap
        .keys_for(
            Context::Pane(crate::tui::pane::Pane::Tools),
            Action::NextTab,
        )
        .first()
        .map(|k| format!(" ({k}) "))
        .unwrap_or_else(|| " ".into());
    parts.push((None, key));
    parts
}

/// The tab whose name is drawn at column `x` of the title of a pane at `area`.
pub fn tab_at(st: &View, area: Rect, x: u16) -> Option<Tab> {
    let mut x0 = area.x + 1;
    for (tab, text) in title_parts(st) {
        let x1 = x0 + text.width() as u16;
        if x >= x0 && x < x1 {
            return tab;
        }
        x0 = x1;
    }
    None
}

/// The pane's frame, with the tabs as its title and `info` after them.
pub fn pane_block<'a>(st: &View, info: String) -> Block<'a> {
    let t = &st.shell.theme;
    crate::tui::chrome::framed(st, Pane::Tools, info, |title| {
        title_parts(st)
            .into_iter()
            .map(|(tab, text)| match tab {
                Some(tab) if tab == st.panes.tools.browse.tab => Span::styled(
                    text,
                    title.add_modifier(Modifier::UNDERLINED | Modifier::BOLD),
                ),
                Some(_) => Span::styled(text, t.muted()),
                None => Span::styled(text, title),
            })
            .collect()
    })
}

/// The detail view's text area: columns and rows (below its heading).
pub fn detail_size(st: &View) -> (usize, usize) {
    let area = Rect::new(0, 0, st.shell.width, st.shell.height);
    layout::compute(area, st)
        .rect(Pane::Tools)
        .map_or((1, 1), |r| {
            (
                r.width.saturating_sub(2) as usize,
                r.height.saturating_sub(3) as usize,
            )
        })
}

/// The list's area, the status line above it, and the items shown.
fn window(area: Rect, st: &View) -> (Rect, u16, usize, usize) {
    let inner = inner(area);
    let list_h = tools_list_height(inner.height);
    let b = &st.panes.tools.browse;
    let (len, cursor, message) = match b.tab {
        Tab::Resources => (
            b.resources.len(),
            b.resources.cursor,
            b.resources.loading()
                || b.resources.resources.error.is_some()
                || b.resources.templates.error.is_some()
                || b.resources.is_empty(),
        ),
        _ => (
            b.prompts.len(),
            b.prompts.cursor,
            b.prompts.list.loading || b.prompts.list.error.is_some() || b.prompts.is_empty(),
        ),
    };
    let message = u16::from(message);
    let shown = (list_h.saturating_sub(message)) as usize;
    let start = cursor.window(len, shown);
    let end = (start + shown).min(len);
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

/// Which item each drawn row shows (none while the detail view covers the list).
pub fn rows(area: Rect, st: &View) -> Vec<(u16, usize)> {
    if st.panes.tools.browse.detail_focus {
        return Vec::new();
    }
    let (list, message, start, end) = window(area, st);
    let mut rows = crate::tui::ui::hits::uniform(list.y + message, start, end, 1);
    rows.retain(|(y, _)| *y < list.y + list.height);
    rows
}

fn status_line<T>(st: &View, l: &Listing<T>, method: &str) -> Option<Line<'static>> {
    let t = &st.shell.theme;
    if l.loading {
        return Some(Line::styled(format!(" loading {method}…"), t.muted()));
    }
    l.error.as_ref().map(|e| {
        Line::styled(
            format!(" {method} failed: {e}"),
            Style::default().fg(t.error),
        )
    })
}

pub fn draw(f: &mut Frame, area: Rect, st: &View) {
    let b = &st.panes.tools.browse;
    let (mut info, filter, shown) = match b.tab {
        Tab::Resources => {
            let r = &b.resources;
            (
                format!(
                    "· {} · {} templates",
                    r.resources.count(),
                    r.templates.count()
                ),
                &r.filter,
                r.len(),
            )
        }
        _ => (
            format!("· {}", b.prompts.list.count()),
            &b.prompts.filter,
            b.prompts.len(),
        ),
    };
    if !filter.is_empty() {
        info.push_str(&format!(
            " · filter \"{}\" ({shown} shown)",
            safe_row(filter)
        ));
    }
    f.render_widget(pane_block(st, info), area);
    let inner = inner(area);
    let detail = match b.tab {
        Tab::Resources => b.resources.detail.as_ref(),
        _ => b.prompts.detail.as_ref(),
    };
    if b.detail_focus {
        draw_detail(f, inner, st, detail);
        return;
    }
    let (list_area, _, start, end) = window(area, st);
    let w = inner.width as usize;
    let t = &st.shell.theme;
    let mut lines = Vec::new();
    let declared = match b.tab {
        Tab::Resources => b.caps.resources,
        _ => b.caps.prompts,
    };
    match b.tab {
        Tab::Resources => {
            let r = &b.resources;
            let msg = status_line(st, &r.resources, "resources/list")
                .or_else(|| status_line(st, &r.templates, "resources/templates/list"));
            if let Some(m) = msg {
                lines.push(m);
            } else if r.is_empty() && !r.filter.is_empty() {
                lines.push(Line::styled(" no resource matches the filter", t.muted()));
            } else if r.is_empty() {
                lines.push(Line::styled(
                    if !st.shell.live {
                        " a recorded trace: nothing to list"
                    } else if declared {
                        " no resources"
                    } else {
                        " the server declared no resources capability"
                    },
                    t.muted(),
                ));
            }
            for i in start..end {
                let Some(row) = r.row(i) else { break };
                let line = resource_row(st, row, w);
                lines.push(if i == r.cursor.selected {
                    full_width(line, w, t.selected())
                } else {
                    line
                });
            }
        }
        _ => {
            let p = &b.prompts;
            if let Some(m) = status_line(st, &p.list, "prompts/list") {
                lines.push(m);
            } else if p.is_empty() && !p.list.items.is_empty() {
                lines.push(Line::styled(" no prompt matches the filter", t.muted()));
            } else if p.is_empty() {
                lines.push(Line::styled(
                    if !st.shell.live {
                        " a recorded trace: nothing to list"
                    } else if declared {
                        " no prompts"
                    } else {
                        " the server declared no prompts capability"
                    },
                    t.muted(),
                ));
            }
            for i in start..end {
                let Some(pr) = p.item(i) else { break };
                let mut spans = vec![
                    Span::styled(format!(" {}", fit_middle(&pr.label, 24)), t.fg(t.accent)),
                    Span::styled(format!(" {}", pr.title), t.muted()),
                ];
                if !pr.args.is_empty() {
                    spans.push(Span::styled(
                        format!(" ({} args)", pr.args.len()),
                        t.muted(),
                    ));
                }
                let line = Line::from(spans);
                lines.push(if i == p.cursor.selected {
                    full_width(line, w, t.selected())
                } else {
                    line
                });
            }
        }
    }
    f.render_widget(Paragraph::new(lines).style(t.base()), list_area);
    let below = Rect {
        y: inner.y + list_area.height,
        height: inner.height.saturating_sub(list_area.height),
        ..inner
    };
    let mut d = vec![Line::styled("─".repeat(w), Style::default().fg(t.border))];
    match b.tab {
        Tab::Resources => resource_info(st, &mut d),
        _ => prompt_info(st, &mut d),
    }
    f.render_widget(
        Paragraph::new(d).style(t.base()).wrap(Wrap { trim: false }),
        below,
    );
}

fn ago(st: &View, at_us: u64) -> String {
    let s = st.shell.now_us.saturating_sub(at_us) / 1_000_000;
    format!("{s}s ago")
}

/// A resource or template: its name, then its URI, both cut in the middle
/// when too long (URIs differ most at their ends).
fn resource_row(st: &View, row: Row, w: usize) -> Line<'static> {
    let t = &st.shell.theme;
    let room = |spans: &[Span]| w.saturating_sub(spans.iter().map(|s| s.width()).sum::<usize>());
    match row {
        Row::Resource(r) => {
            let name = if r.name.is_empty() { &r.label } else { &r.name };
            let mut spans = vec![
                Span::styled(
                    if r.subscribed { " ●" } else { "  " },
                    Style::default().fg(t.warn),
                ),
                Span::styled(format!("{} ", fit_middle(name, 22)), t.fg(t.accent)),
            ];
            if r.updates > 0 {
                spans.push(Span::styled(
                    format!(
                        "↻{} {} ",
                        r.updates,
                        r.last_update_us.map(|u| ago(st, u)).unwrap_or_default()
                    ),
                    Style::default().fg(t.warn),
                ));
            }
            let uri = fit_middle(&r.label, room(&spans));
            spans.push(Span::styled(uri.trim_end().to_string(), t.muted()));
            Line::from(spans)
        }
        Row::Template(tp) => {
            let name = if tp.name.is_empty() {
                &tp.label
            } else {
                &tp.name
            };
            let mut spans = vec![
                Span::styled(" ◇", t.muted()),
                Span::styled(format!("{} ", fit_middle(name, 22)), t.fg(t.json_key)),
            ];
            let uri = fit_middle(&tp.label, room(&spans));
            spans.push(Span::styled(uri.trim_end().to_string(), t.muted()));
            Line::from(spans)
        }
    }
}

fn resource_info(st: &View, d: &mut Vec<Line<'static>>) {
    let t = &st.shell.theme;
    let b = &st.panes.tools.browse;
    let key = |a: Action| {
        st.shell
            .keymap
            .keys_for(Context::Resources, a)
            .first()
            .map(|k| k.to_string())
            .unwrap_or_default()
    };
    match b.resources.selected() {
        Some(Row::Resource(r)) => {
            d.push(Line::styled(
                r.label.clone(),
                t.fg(t.fg).add_modifier(Modifier::BOLD),
            ));
            let mut facts = Vec::new();
            if !r.mime.is_empty() {
                facts.push(r.mime.clone());
            }
            if let Some(s) = r.size {
                facts.push(format!("{s} bytes"));
            }
            if r.subscribed {
                facts.push("subscribed".into());
            }
            if r.updates > 0 {
                facts.push(format!(
                    "{}, last {}",
                    crate::tui::format::count(r.updates, "update", "updates"),
                    r.last_update_us.map(|u| ago(st, u)).unwrap_or_default()
                ));
            }
            if !facts.is_empty() {
                d.push(Line::styled(facts.join(" · "), t.muted()));
            }
            for l in r.description.lines().take(6) {
                d.push(Line::styled(safe_row(l), t.fg(t.fg)));
            }
            let mut hint = format!("{} read", key(Action::Open));
            if b.caps.subscribe {
                hint.push_str(&format!(
                    " · {} {}",
                    key(Action::Subscribe),
                    if r.subscribed {
                        "unsubscribe"
                    } else {
                        "subscribe"
                    }
                ));
            }
            d.push(Line::styled(hint, t.muted()));
        }
        Some(Row::Template(tp)) => {
            d.push(Line::styled(
                tp.label.clone(),
                t.fg(t.fg).add_modifier(Modifier::BOLD),
            ));
            if !tp.mime.is_empty() {
                d.push(Line::styled(tp.mime.clone(), t.muted()));
            }
            for l in tp.description.lines().take(6) {
                d.push(Line::styled(safe_row(l), t.fg(t.fg)));
            }
            d.push(Line::styled(
                format!("{} fill its variables and read", key(Action::Open)),
                t.muted(),
            ));
        }
        None => {}
    }
}

fn prompt_info(st: &View, d: &mut Vec<Line<'static>>) {
    let t = &st.shell.theme;
    let Some(p) = st.panes.tools.browse.prompts.selected() else {
        return;
    };
    d.push(Line::styled(
        p.label.clone(),
        t.fg(t.fg).add_modifier(Modifier::BOLD),
    ));
    for l in p.description.lines().take(6) {
        d.push(Line::styled(safe_row(l), t.fg(t.fg)));
    }
    d.push(Line::styled(
        "arguments:",
        t.muted().add_modifier(Modifier::BOLD),
    ));
    if p.args.is_empty() {
        d.push(Line::styled("  (none)", t.muted()));
    }
    for a in &p.args {
        d.push(Line::from(vec![
            Span::styled(
                if a.required { " * " } else { "   " },
                Style::default().fg(t.warn),
            ),
            Span::styled(safe_row(&a.name), Style::default().fg(t.json_key)),
            Span::styled(format!("  {}", safe_row(&a.description)), t.muted()),
        ]));
    }
}

fn draw_detail(f: &mut Frame, inner: Rect, st: &View, detail: Option<&Detail>) {
    let t = &st.shell.theme;
    let Some(d) = detail else {
        f.render_widget(
            Paragraph::new(Line::styled(" waiting for the result…", t.muted())).style(t.base()),
            inner,
        );
        return;
    };
    let (w, h) = (
        inner.width.max(1) as usize,
        inner.height.saturating_sub(1) as usize,
    );
    let end = (d.scroll + d.fit_from(d.scroll, w, h)).min(d.lines.len());
    // Where the view is comes first: a long title is cut at the right.
    let mut head = format!(
        "{}–{}/{} {}",
        (d.scroll + 1).min(end),
        end,
        d.lines.len(),
        d.title
    );
    if d.cut {
        head = format!("truncated · {head}");
    }
    let mut lines = vec![Line::styled(
        fit(&head, w),
        t.fg(t.fg).add_modifier(Modifier::BOLD),
    )];
    'rows: for (tone, text) in d.lines.iter().skip(d.scroll) {
        let style = match tone {
            Tone::Head => t.fg(t.accent).add_modifier(Modifier::BOLD),
            Tone::Text => t.fg(t.fg),
            Tone::Muted => t.muted(),
            Tone::Error => Style::default().fg(t.error),
        };
        // Hard wrapped at the pane's width, as `fit_from` counts rows.
        let chars: Vec<char> = text.chars().collect();
        for chunk in chars.chunks(w).chain(chars.is_empty().then_some(&[][..])) {
            if lines.len() > h {
                break 'rows;
            }
            lines.push(Line::styled(chunk.iter().collect::<String>(), style));
        }
    }
    f.render_widget(Paragraph::new(lines).style(t.base()), inner);
}
