//! The server-request overlay: the first waiting request, as a form (one
//! row per field: label, required mark, value; the focused field's
//! description and format below it), a URL to confirm, or a sampling request
//! with the reply being typed. Problems of a refused accept are listed at
//! the bottom. All server text is sanitised when the request is read.

use crate::protocol::elicit::{Field, Format, Kind};
use crate::tui::format::count;
use crate::tui::overlays::asks::{Ask, AskKind, Form, Input, Route};
use crate::tui::screen::View;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

fn frame(area: Rect) -> Rect {
    super::super::frame(area, 90)
}

pub fn draw(f: &mut Frame, area: Rect, st: &View) {
    let Some(ask) = st.overlays.asks.waiting.first() else {
        return;
    };
    let t = &st.shell.theme;
    let r = frame(area);
    if r.width < 10 || r.height < 5 {
        return;
    }
    let age = st.shell.now_us.saturating_sub(ask.arrived_us) / 1_000_000;
    let more = st.overlays.asks.waiting.len() - 1;
    let whose = match (&ask.route, &ask.task) {
        (Route::Input { call, key }, _) => {
            format!(" · input {key:?} for id {call}")
        }
        (_, Some(task)) if task.chars().count() > 10 => {
            format!(" · task {}…", task.chars().take(8).collect::<String>())
        }
        (_, Some(task)) => format!(" · task {task}"),
        _ => String::new(),
    };
    let title = format!(
        " {} #{}{whose} · {age}s{} ",
        ask.method,
        ask.seq,
        if more > 0 {
            format!(" · {more} more waiting")
        } else {
            String::new()
        }
    );
    let block = crate::tui::chrome::overlay_block(st, title);
    f.render_widget(Clear, r);
    f.render_widget(block, r);
    let inner = crate::tui::chrome::inner(r);
    let keys = keys_line(st, ask);
    let (body, foot) = crate::tui::chrome::body_and_foot(inner);
    f.render_widget(Paragraph::new(keys), foot);
    match &ask.kind {
        AskKind::Form(form) => {
            let (lines, focus) = form_lines(st, form, body.width as usize);
            let h = body.height as usize;
            let scroll = focus.saturating_sub(h.saturating_sub(3));
            f.render_widget(Paragraph::new(lines).scroll((scroll as u16, 0)), body);
        }
        AskKind::Url { url, message } => {
            let lines = vec![
                Line::from(Span::styled(message.clone(), t.fg(t.fg))),
                Line::default(),
                Line::from(vec![
                    Span::styled("URL  ", t.muted()),
                    Span::styled(
                        url.clone(),
                        t.fg(t.accent).add_modifier(Modifier::UNDERLINED),
                    ),
                ]),
                Line::default(),
                Line::from(Span::styled(
                    "Open it (o), do what it asks, then accept to tell the server you did.",
                    t.muted(),
                )),
            ];
            f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
        }
        AskKind::Sampling(s) => {
            let mut lines: Vec<Line> = s
                .shown
                .iter()
                .map(|l| Line::from(Span::styled(l.clone(), t.fg(t.fg))))
                .collect();
            lines.push(Line::default());
            lines.push(Line::from(Span::styled(
                "Your reply (the assistant's message):",
                t.fg(t.accent).add_modifier(Modifier::BOLD),
            )));
            let top = (lines.len() as u16).min(body.height.saturating_sub(3));
            f.render_widget(
                Paragraph::new(lines).wrap(Wrap { trim: false }),
                Rect {
                    height: top,
                    ..body
                },
            );
            let reply = Rect {
                y: body.y + top,
                height: body.height.saturating_sub(top),
                ..body
            };
            f.render_widget(&s.reply, reply);
        }
        AskKind::Roots => {
            let mut lines = vec![
                Line::from(Span::styled(
                    "The server asks for the roots (roots/list) to finish the call.",
                    t.fg(t.fg).add_modifier(Modifier::BOLD),
                )),
                Line::default(),
            ];
            if st.overlays.asks.roots.is_empty() {
                lines.push(Line::from(Span::styled("(no roots)", t.muted())));
            }
            for r in &st.overlays.asks.roots {
                lines.push(Line::from(Span::styled(
                    format!("  {}", crate::tui::format::safe_row(r)),
                    t.fg(t.accent),
                )));
            }
            lines.push(Line::default());
            lines.push(Line::from(Span::styled(
                "Accept sends these; decline sends none. To change them: Esc, Ctrl-R, then A.",
                t.muted(),
            )));
            f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
        }
        AskKind::Unusable { message, why } => {
            let lines = vec![
                Line::from(Span::styled(message.clone(), t.fg(t.fg))),
                Line::default(),
                Line::from(Span::styled(
                    format!("This form cannot be shown: {why}"),
                    t.fg(t.error),
                )),
                Line::from(Span::styled("Decline or cancel it.", t.muted())),
            ];
            f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
        }
    }
}

/// The roots editor: one path or URI per line.
pub fn draw_roots(f: &mut Frame, area: Rect, st: &View) {
    let Some(editor) = &st.overlays.asks.roots_editor else {
        return;
    };
    let t = &st.shell.theme;
    let r = frame(area);
    if r.width < 10 || r.height < 5 {
        return;
    }
    let block = crate::tui::chrome::overlay_block(
        st,
        " Roots (roots/list): one path or file:// URI per line ".to_string(),
    );
    f.render_widget(Clear, r);
    f.render_widget(block, r);
    let inner = crate::tui::chrome::inner(r);
    let body = Rect {
        height: inner.height.saturating_sub(1),
        ..inner
    };
    f.render_widget(&**editor, body);
    let k = |s: &str| Span::styled(s.to_string(), t.fg(t.key).add_modifier(Modifier::BOLD));
    let d = |s: &str| Span::styled(s.to_string(), t.muted());
    f.render_widget(
        Paragraph::new(Line::from(vec![
            k("Ctrl-S"),
            d(" offer these (the server is told)  "),
            k("Esc"),
            d(" discard"),
        ])),
        crate::tui::chrome::body_and_foot(inner).1,
    );
}

fn keys_line(st: &View, ask: &Ask) -> Line<'static> {
    let t = &st.shell.theme;
    let k = |s: &str| Span::styled(s.to_string(), t.fg(t.key).add_modifier(Modifier::BOLD));
    let d = |s: &str| Span::styled(s.to_string(), t.muted());
    let accept = match ask.kind {
        AskKind::Sampling(_) => "Ctrl-S",
        _ => "Enter",
    };
    let mut spans = vec![k(accept), d(" accept  ")];
    if matches!(ask.kind, AskKind::Unusable { .. }) {
        spans.clear();
    }
    spans.extend([k("Ctrl-N"), d(" decline  "), k("Ctrl-X"), d(" cancel  ")]);
    spans.extend([k("Esc"), d(" later")]);
    if matches!(ask.kind, AskKind::Form(_)) {
        spans.extend([d("  "), k("↑↓"), d(" field  "), k("Space ←→"), d(" choose")]);
    }
    Line::from(spans)
}

/// The form's lines and the line of the focused field.
pub(crate) fn form_lines(st: &View, form: &Form, width: usize) -> (Vec<Line<'static>>, usize) {
    let t = &st.shell.theme;
    let mut lines = Vec::new();
    if !form.message.is_empty() {
        for part in crate::tui::chrome::wrap_words(&form.message, width, width) {
            lines.push(Line::from(Span::styled(
                part,
                t.fg(t.fg).add_modifier(Modifier::BOLD),
            )));
        }
        lines.push(Line::default());
    }
    let label_w = form
        .fields
        .iter()
        .map(|f| f.label().width() + 2)
        .max()
        .unwrap_or(0)
        .min(width / 3);
    let mut focus = 0;
    for (i, (field, input)) in form.fields.iter().zip(&form.inputs).enumerate() {
        let here = i == form.cursor;
        if here {
            focus = lines.len();
        }
        let mark = if here { "▶ " } else { "  " };
        let req = if field.required { "*" } else { " " };
        let label = crate::tui::chrome::fit(&crate::tui::format::safe_row(field.label()), label_w);
        let style = if here {
            t.fg(t.accent).add_modifier(Modifier::BOLD)
        } else {
            t.fg(t.fg)
        };
        let head = vec![
            Span::styled(mark.to_string(), style),
            Span::styled(label, style),
            Span::styled(format!("{req} "), t.fg(t.error)),
        ];
        lines.extend(pack(head, value_spans(st, field, input, here), width));
        if here && let Some(help) = help_line(field) {
            lines.push(Line::from(Span::styled(format!("    {help}"), t.muted())));
        }
    }
    if !form.problems.is_empty() {
        lines.push(Line::default());
        for p in &form.problems {
            lines.push(Line::from(Span::styled(
                format!("✗ {}", crate::tui::format::safe_row(p)),
                t.fg(t.error),
            )));
        }
    }
    (lines, focus)
}

/// A field's line: its head (mark, label), then its value's spans — a
/// choice and the gap after it are one item — packed into lines of
/// `width`, the next line starting under the first value. A choice is
/// never split across lines; one wider than a whole line is cut with `…`.
fn pack(head: Vec<Span<'static>>, items: Vec<Span<'static>>, width: usize) -> Vec<Line<'static>> {
    let indent: usize = head.iter().map(Span::width).sum();
    let room = width.saturating_sub(indent).max(4);
    let mut out = Vec::new();
    let mut line = head;
    let mut used = 0usize;
    let mut items = items.into_iter().peekable();
    while let Some(mut item) = items.next() {
        // A choice's gap goes with it.
        let gap = match items.peek() {
            Some(g) if g.content.trim().is_empty() => items.next(),
            _ => None,
        };
        let w = item.width();
        if used > 0 && used + w > room {
            out.push(Line::from(std::mem::take(&mut line)));
            line.push(Span::raw(" ".repeat(indent)));
            used = 0;
        }
        if w > room {
            item.content = crate::tui::chrome::fit(&item.content, room).into();
        }
        used += item.width();
        line.push(item);
        if let Some(g) = gap {
            used += g.width();
            line.push(g);
        }
    }
    out.push(Line::from(line));
    out
}

fn value_spans(st: &View, field: &Field, input: &Input, here: bool) -> Vec<Span<'static>> {
    let t = &st.shell.theme;
    let on = t.fg(t.accent).add_modifier(Modifier::BOLD);
    let off = t.muted();
    match (input, &field.kind) {
        (Input::Typed(_), _) => {
            let text = input.typed().unwrap_or_default();
            let mut v = vec![Span::styled(
                crate::tui::format::safe_row(&text),
                t.fg(t.fg),
            )];
            if here {
                v.push(Span::styled("█", t.fg(t.accent)));
            } else if text.is_empty() {
                v.push(Span::styled("(empty)", off));
            }
            v
        }
        (Input::Bool(b), _) => vec![Span::styled(
            if *b { "[x] yes" } else { "[ ] no" },
            if *b { on } else { t.fg(t.fg) },
        )],
        (Input::Choice(sel), Kind::Select(choices)) => choices
            .iter()
            .enumerate()
            .flat_map(|(i, c)| {
                let chosen = *sel == Some(i);
                [
                    Span::styled(
                        format!(
                            "{} {}",
                            if chosen { "◉" } else { "○" },
                            crate::tui::format::safe_row(&c.title)
                        ),
                        if chosen { on } else { off },
                    ),
                    Span::raw("  "),
                ]
            })
            .collect(),
        (Input::Multi(flags, at), Kind::MultiSelect { choices, .. }) => choices
            .iter()
            .zip(flags)
            .enumerate()
            .flat_map(|(i, (c, f))| {
                let style = if here && i == *at {
                    on.add_modifier(Modifier::UNDERLINED)
                } else if *f {
                    on
                } else {
                    off
                };
                [
                    Span::styled(
                        format!(
                            "{} {}",
                            if *f { "☑" } else { "☐" },
                            crate::tui::format::safe_row(&c.title)
                        ),
                        style,
                    ),
                    Span::raw("  "),
                ]
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// What the focused field expects: its description, format and bounds.
fn help_line(f: &Field) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(d) = &f.description {
        parts.push(crate::tui::format::safe_row(d));
    }
    match &f.kind {
        Kind::Text {
            min_len,
            max_len,
            format,
        } => {
            if let Some(fm) = format {
                parts.push(match fm {
                    Format::Email => "an e-mail address".into(),
                    Format::Uri => "a URI".into(),
                    Format::Date => "a date, YYYY-MM-DD".into(),
                    Format::DateTime => "a date and time, RFC 3339".into(),
                });
            }
            match (min_len, max_len) {
                (Some(a), Some(b)) => parts.push(format!("{a}–{b} characters")),
                (Some(a), None) => {
                    parts.push(format!("at least {}", count(*a, "character", "characters")))
                }
                (None, Some(b)) => {
                    parts.push(format!("at most {}", count(*b, "character", "characters")))
                }
                _ => {}
            }
        }
        Kind::Number { integer, min, max } => {
            let what = if *integer { "an integer" } else { "a number" };
            parts.push(match (min, max) {
                (Some(a), Some(b)) => format!("{what} from {a} to {b}"),
                (Some(a), None) => format!("{what} ≥ {a}"),
                (None, Some(b)) => format!("{what} ≤ {b}"),
                _ => what.to_string(),
            });
        }
        _ => {}
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}
