//! What every pane and overlay is framed and fitted with: borders and
//! titles in the focus colour, the tab label, rows padded to full width,
//! text cut to a number of columns.

use super::pane::Pane;
use super::screen::{Body, View};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Paragraph};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Draw a prepared pane: no store needed.
pub fn paint(f: &mut Frame, area: Rect, st: &View, pane: Pane, body: Body) {
    f.render_widget(block(st, pane, body.info), area);
    f.render_widget(
        Paragraph::new(body.lines).style(st.shell.theme.base()),
        inner(area),
    );
}

/// A pane's frame: number and title, extra info, focus colour.
pub fn block<'a>(st: &View, pane: Pane, info: String) -> Block<'a> {
    framed(st, pane, info, |title| {
        vec![Span::styled(
            format!(" {} {} ", pane.number(), pane.title()),
            title,
        )]
    })
}

/// The frame of an overlay (a form, help): thick, in the focus colour,
/// its title in bold.
pub fn overlay_block<'a>(st: &View, title: String) -> Block<'a> {
    let t = &st.shell.theme;
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
    st: &View,
    pane: Pane,
    info: String,
    title_spans: impl FnOnce(Style) -> Vec<Span<'a>>,
) -> Block<'a> {
    let focused = st.shell.focus == pane;
    let t = &st.shell.theme;
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
        // The info fits the top border whole or by whole parts: never a word cut.
        let width =
            crate::tui::layout::compute(Rect::new(0, 0, st.shell.width, st.shell.height), st)
                .rect(pane)
                .map_or(usize::MAX, |r| r.width as usize);
        let used: usize = spans.iter().map(|s| s.width()).sum();
        let room = width.saturating_sub(used + 2 + 1);
        let info = fit_parts(&info, room);
        if !info.is_empty() {
            spans.push(Span::styled(format!("{info} "), t.muted()));
        }
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

/// A row cut to `width` columns, its last column `…` when anything was
/// cut (each span keeps its style): a row the frame would clip instead
/// ends mid-word with nothing to say so.
pub fn cut_line(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let mut out = Vec::with_capacity(line.spans.len());
    let mut used = 0;
    for span in line.spans {
        let w = span.content.width();
        if used + w < width {
            used += w;
            out.push(span);
            continue;
        }
        // This span reaches the edge: whole characters up to one column
        // short of it, then `…` (more follows even when the span fits).
        let room = width - used;
        if room > 0 {
            out.push(Span::styled(
                crate::tui::format::ellipsized(&span.content, room),
                span.style,
            ));
        }
        break;
    }
    Line { spans: out, ..line }
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

/// An overlay's inside split into its body and its last row (the keys).
pub fn body_and_foot(inner: Rect) -> (Rect, Rect) {
    let body = Rect {
        height: inner.height.saturating_sub(1),
        ..inner
    };
    let foot = Rect {
        y: inner.y + inner.height.saturating_sub(1),
        height: 1.min(inner.height),
        ..inner
    };
    (body, foot)
}

/// Fit text into `w` columns (by display width: a wide character takes two).
pub fn fit(s: &str, w: usize) -> String {
    let n = s.width();
    if n <= w {
        let mut out = String::with_capacity(s.len() + w - n);
        out.push_str(s);
        out.extend(std::iter::repeat_n(' ', w - n));
        out
    } else if w == 0 {
        String::new()
    } else {
        crate::tui::format::ellipsized(s, w)
    }
}

/// The first of `chars` that fit in `cols` columns (a wide character that
/// would straddle the edge stops it), and the columns they take.
pub fn take_cols(chars: impl Iterator<Item = char>, cols: usize) -> (Vec<char>, usize) {
    let mut out = Vec::new();
    let mut used = 0;
    for c in chars {
        let cw = c.width().unwrap_or(0);
        if used + cw > cols {
            break;
        }
        used += cw;
        out.push(c);
    }
    (out, used)
}

/// Text cut to at most `w` columns at a word boundary, an ellipsis marking
/// the cut (a word longer than the room is cut where it must). Not padded.
pub fn fit_words(s: &str, w: usize) -> String {
    if s.width() <= w {
        return s.to_string();
    }
    if w == 0 {
        return String::new();
    }
    let cut = fit(s, w);
    let kept = cut.trim_end_matches('…').trim_end();
    // The cut fell inside a word unless the next character is a space.
    let inside = s[kept.len()..].chars().next().is_some_and(|c| c != ' ');
    match kept.rfind(' ').filter(|_| inside) {
        Some(sp) if sp > 0 => format!("{}…", kept[..sp].trim_end()),
        _ => format!("{kept}…"),
    }
}

/// Info of `part · part · part` in at most `w` columns: whole parts from
/// the start while they fit; a first part alone too long is cut at a word.
pub fn fit_parts(s: &str, w: usize) -> String {
    if s.width() <= w {
        return s.to_string();
    }
    let mut out = String::new();
    for (i, part) in s.split(" · ").enumerate() {
        let sep = if i == 0 { "" } else { " · " };
        if out.width() + sep.width() + part.width() > w {
            if i == 0 {
                let joined = format!("{out}{sep}{part}");
                return fit_words(&joined, w);
            }
            break;
        }
        out.push_str(sep);
        out.push_str(part);
    }
    out
}

/// Fit text into `w` columns, cut in the middle when too long: names and
/// URIs that share a prefix (`trigger-elicitation-request` and its
/// `-async` twin) stay told apart by their ends.
pub fn fit_middle(s: &str, w: usize) -> String {
    if s.width() <= w || w < 5 {
        return fit(s, w);
    }
    // One column for the ellipsis; the end gets the odd one.
    let head_w = (w - 1) / 2;
    let tail_w = w - 1 - head_w;
    let (head, used) = take_cols(s.chars(), head_w);
    let (mut tail, tail_used) = take_cols(s.chars().rev(), tail_w);
    tail.reverse();
    let mut out: String = head.into_iter().collect();
    // A wide character that would straddle the cut leaves a space.
    out.extend(std::iter::repeat_n(' ', head_w - used));
    out.push('…');
    out.extend(std::iter::repeat_n(' ', tail_w - tail_used));
    out.extend(tail);
    out
}

/// `text` wrapped at spaces into lines of `width` columns (the first line
/// `first` columns); a word wider than a line is broken where it ends.
/// Nothing is lost: every character is on some line.
pub fn wrap_words(text: &str, first: usize, width: usize) -> Vec<String> {
    let (first, width) = (first.max(1), width.max(1));
    let mut out: Vec<String> = Vec::new();
    let mut line = String::new();
    let mut used = 0usize;
    let room = |out: &Vec<String>| if out.is_empty() { first } else { width };
    for word in text.split(' ') {
        let w = word.width();
        let gap = usize::from(used > 0);
        if used + gap + w <= room(&out) {
            if gap == 1 {
                line.push(' ');
            }
            line.push_str(word);
            used += gap + w;
            continue;
        }
        if used > 0 {
            out.push(std::mem::take(&mut line));
            used = 0;
        }
        for c in word.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > room(&out) && used > 0 {
                out.push(std::mem::take(&mut line));
                used = 0;
            }
            line.push(c);
            used += cw;
        }
    }
    if used > 0 || out.is_empty() {
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{cut_line, fit, fit_middle, fit_parts, fit_words};
    use ratatui::style::{Color, Style};
    use ratatui::text::{Line, Span};
    use unicode_width::UnicodeWidthStr;

    #[test]
    fn a_cut_row_ends_in_an_ellipsis_and_keeps_its_styles() {
        let red = Style::default().fg(Color::Red);
        let row = || Line::from(vec![Span::raw("⠼ upload"), Span::styled(" ✗ rule", red)]);
        let text = |l: &Line| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
        };
        assert_eq!(text(&cut_line(row(), 40)), "⠼ upload ✗ rule");
        let cut = cut_line(row(), 12);
        assert_eq!(text(&cut), "⠼ upload ✗ …");
        assert_eq!(cut.width(), 12);
        assert_eq!(cut.spans[1].style, red);
        // A span that ends at the edge with more after it is cut too.
        assert_eq!(text(&cut_line(row(), 8)), "⠼ uploa…");
    }

    #[test]
    fn fit_counts_columns_not_chars() {
        // Two columns per CJK character: padded and cut by what the terminal shows.
        assert_eq!(fit("日本", 6), "日本  ");
        assert_eq!(fit("日本語テキスト", 6), "日本 …");
        assert_eq!(fit("日本語テキスト", 6).width(), 6);
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("ab", 4), "ab  ");
        assert_eq!(fit("x", 0), "");
    }

    #[test]
    fn words_and_parts_are_never_cut_inside() {
        assert_eq!(fit_words("the server asks again", 14), "the server…");
        assert_eq!(fit_words("short", 14), "short");
        assert_eq!(fit_words("abcdefghij", 5), "abcd…");
        let info = "· #27 ← notification · notifications/progress · 231 B · pretty";
        assert_eq!(fit_parts(info, 24), "· #27 ← notification");
        assert_eq!(fit_parts(info, 200), info);
        assert_eq!(fit_parts("· 3 running · 5 total", 8), "· 3…");
    }

    #[test]
    fn fit_middle_keeps_both_ends() {
        let a = fit_middle("trigger-elicitation-request", 22);
        let b = fit_middle("trigger-elicitation-request-async", 22);
        assert_eq!(a, "trigger-el…ion-request");
        assert_eq!(b, "trigger-el…quest-async");
        assert_eq!(a.width(), 22);
        assert_eq!(fit_middle("short", 8), "short   ");
        assert_eq!(fit_middle("日本語テキスト", 8).width(), 8);
    }
}
