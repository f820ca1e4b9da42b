//! Pretty-printing of raw JSON for the Raw and Logs panes: re-indents the
//! exact text (key order and number spelling kept, unlike a `Value` round
//! trip) and tags each piece for colouring. Also the exact-bytes view.

use crate::protocol::sanitize::one_line;
use unicode_width::UnicodeWidthStr;

/// What a piece of text is, for colouring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok {
    Key,
    Str,
    Num,
    Lit,
    Punct,
    Plain,
    /// A byte that is not valid UTF-8, or an elision marker.
    Odd,
    /// The mark opening a wrapped line's continuation.
    Wrap,
}

pub type Seg = (Tok, String);
pub type Lines = Vec<Vec<Seg>>;

/// One string longer than this is cut on screen: the Raw pane must stay fast
/// on a 10 MB frame. Copy (OSC 52) still takes the whole frame.
const MAX_SEG_CHARS: usize = 4000;

struct Out {
    lines: Lines,
    cur: Vec<Seg>,
    indent: usize,
    max_lines: usize,
}

impl Out {
    fn push(&mut self, t: Tok, s: impl Into<String>) {
        if self.cur.is_empty() && self.indent > 0 {
            self.cur
                .push((Tok::Plain, "  ".repeat(self.indent.min(40))));
        }
        self.cur.push((t, s.into()));
    }
    fn newline(&mut self) {
        if !self.cur.is_empty() {
            self.lines.push(std::mem::take(&mut self.cur));
        }
    }
    fn full(&self) -> bool {
        self.lines.len() >= self.max_lines
    }
}

fn clip(s: &str) -> String {
    match s.char_indices().nth(MAX_SEG_CHARS) {
        None => one_line(s).into_owned(),
        Some((i, _)) => format!("{}…(+{} bytes)", one_line(&s[..i]), s.len() - i),
    }
}

/// Re-indent JSON text. Returns the lines and whether `max_lines` cut it short.
/// Invalid JSON is laid out as far as it goes; nothing is dropped silently.
pub fn pretty(raw: &str, max_lines: usize) -> (Lines, bool) {
    let b = raw.as_bytes();
    let mut o = Out {
        lines: Vec::new(),
        cur: Vec::new(),
        indent: 0,
        max_lines,
    };
    let mut i = 0;
    let skip_ws = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        j
    };
    while i < b.len() {
        if o.full() {
            return (o.lines, true);
        }
        let c = b[i];
        match c {
            c if c.is_ascii_whitespace() => i += 1,
            b'{' | b'[' => {
                let close = if c == b'{' { b'}' } else { b']' };
                let j = skip_ws(i + 1);
                if j < b.len() && b[j] == close {
                    o.push(Tok::Punct, if c == b'{' { "{}" } else { "[]" });
                    i = j + 1;
                } else {
                    o.push(Tok::Punct, (c as char).to_string());
                    o.newline();
                    o.indent += 1;
                    i += 1;
                }
            }
            b'}' | b']' => {
                o.newline();
                o.indent = o.indent.saturating_sub(1);
                o.push(Tok::Punct, (c as char).to_string());
                i += 1;
            }
            b',' => {
                o.push(Tok::Punct, ",");
                o.newline();
                i += 1;
            }
            b':' => {
                o.push(Tok::Punct, ": ");
                i += 1;
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                let text = &raw[start..i];
                let j = skip_ws(i);
                let t = if j < b.len() && b[j] == b':' {
                    Tok::Key
                } else {
                    Tok::Str
                };
                o.push(t, clip(text));
            }
            _ => {
                let start = i;
                while i < b.len() && !b",:{}[]\" \t\r\n".contains(&b[i]) {
                    i += 1;
                }
                if i == start {
                    i += 1;
                }
                // Slicing on ASCII delimiters keeps UTF-8 boundaries intact.
                let text = raw.get(start..i).unwrap_or("");
                let t = match text.as_bytes().first() {
                    Some(b'-' | b'0'..=b'9') => Tok::Num,
                    _ if matches!(text, "true" | "false" | "null") => Tok::Lit,
                    _ => Tok::Plain,
                };
                o.push(t, clip(text));
            }
        }
    }
    o.newline();
    (o.lines, false)
}

/// The exact bytes, `width` characters per line: text as text, control
/// characters as visible pictures, bytes that are not UTF-8 as `\xNN`.
pub fn exact_bytes(bytes: &[u8], width: usize, max_lines: usize) -> (Lines, bool) {
    let width = width.max(8);
    let mut lines: Lines = Vec::new();
    let mut cur: Vec<Seg> = Vec::new();
    let mut col = 0;
    let mut push = |t: Tok, s: String, w: usize, lines: &mut Lines, cur: &mut Vec<Seg>| {
        if col + w > width {
            lines.push(std::mem::take(cur));
            col = 0;
        }
        match cur.last_mut() {
            Some((lt, ls)) if *lt == t => ls.push_str(&s),
            _ => cur.push((t, s)),
        }
        col += w;
    };
    let mut rest = bytes;
    while !rest.is_empty() {
        if lines.len() >= max_lines {
            return (lines, true);
        }
        match std::str::from_utf8(rest) {
            Ok(s) => {
                for ch in s.chars() {
                    let txt = one_line(ch.encode_utf8(&mut [0; 4])).into_owned();
                    // An invisible character is shown as `<U+XXXX>`: wider than one column.
                    let w = UnicodeWidthStr::width(txt.as_str());
                    push(Tok::Plain, txt, w, &mut lines, &mut cur);
                    if lines.len() >= max_lines {
                        return (lines, true);
                    }
                }
                rest = &[];
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                for ch in std::str::from_utf8(good).unwrap_or("").chars() {
                    let txt = one_line(ch.encode_utf8(&mut [0; 4])).into_owned();
                    // An invisible character is shown as `<U+XXXX>`: wider than one column.
                    let w = UnicodeWidthStr::width(txt.as_str());
                    push(Tok::Plain, txt, w, &mut lines, &mut cur);
                }
                let n = e.error_len().unwrap_or(bad.len()).max(1);
                for byte in &bad[..n] {
                    push(Tok::Odd, format!("\\x{byte:02x}"), 4, &mut lines, &mut cur);
                }
                rest = &bad[n..];
            }
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    (lines, false)
}

/// The mark a continuation row starts with, after the line's indent.
pub const WRAP_MARK: &str = "↪ ";

/// Lines wider than `width` columns continued on the rows below, each
/// continuation indented as its line and opened by [`WRAP_MARK`], so a long
/// string reads whole instead of being clipped at the pane's edge. Rows
/// break between JSON tokens (a token and the punctuation after it move
/// down whole when they fit on a row of their own); a token longer than a
/// row breaks after a space, `/`, `.`, `-`, `_` or `,` near the edge, else
/// anywhere. At most `max_lines` rows; the second value says whether that
/// cut it short.
pub fn wrap(lines: Lines, width: usize, max_lines: usize) -> (Lines, bool) {
    let mut out: Lines = Vec::with_capacity(lines.len());
    for line in lines {
        if out.len() >= max_lines {
            return (out, true);
        }
        let total: usize = line.iter().map(|(_, s)| s.width()).sum();
        if total <= width || width < 8 {
            out.push(line);
            continue;
        }
        if wrap_line(line, width, max_lines, &mut out) {
            return (out, true);
        }
    }
    (out, false)
}

/// One line wider than `width` onto `out`; true when `max_lines` cut it.
fn wrap_line(line: Vec<Seg>, width: usize, max_lines: usize, out: &mut Lines) -> bool {
    use unicode_width::UnicodeWidthChar;
    let indent = line
        .first()
        .filter(|(k, _)| *k == Tok::Plain)
        .map_or(0, |(_, s)| s.len() - s.trim_start().len())
        .min(width / 2);
    let lead = format!("{}{WRAP_MARK}", " ".repeat(indent));
    let lead_w = lead.width();
    let mut row: Vec<Seg> = Vec::new();
    let mut used = 0;
    // The row holds more than its indent or continuation mark.
    let mut has_text = false;
    for (i, (k, s)) in line.iter().enumerate() {
        // A token with the punctuation right after it (`"x",`) moves as one.
        let glued = line
            .get(i + 1)
            .filter(|(k, p)| *k == Tok::Punct && !p.contains(' '))
            .map_or(0, |(_, p)| p.width());
        let unit = s.width() + glued;
        if used + unit > width && has_text && moves_down(s, width - used, lead_w + unit <= width) {
            out.push(std::mem::take(&mut row));
            if out.len() >= max_lines {
                return true;
            }
            row.push((Tok::Wrap, lead.clone()));
            (used, has_text) = (lead_w, false);
        }
        let mut piece = String::new();
        for c in s.chars() {
            let cw = c.width().unwrap_or(0);
            if used + cw > width {
                let tail = match break_at(&piece) {
                    Some(at) if piece[at..].width() < width / 2 => piece.split_off(at),
                    _ => String::new(),
                };
                if !piece.is_empty() {
                    row.push((*k, std::mem::take(&mut piece)));
                }
                out.push(std::mem::take(&mut row));
                if out.len() >= max_lines {
                    return true;
                }
                row.push((Tok::Wrap, lead.clone()));
                used = lead_w + tail.width();
                piece = tail;
            }
            piece.push(c);
            used += cw;
        }
        if !piece.trim().is_empty() {
            has_text = true;
        }
        if !piece.is_empty() {
            row.push((*k, piece));
        }
    }
    if !row.is_empty() {
        out.push(row);
    }
    false
}

/// A token that does not fit in the `room` left on a row starts the next
/// one when it fits there whole, or when it can break at a separator
/// there but not in the room left (`"method": ` then
/// `↪ "notifications/` and `↪ progress",`).
fn moves_down(token: &str, room: usize, fits_whole: bool) -> bool {
    if fits_whole {
        return true;
    }
    let head: String = token.chars().take(room).collect();
    break_at(&head).is_none() && break_at(token).is_some()
}

/// Where a token longer than a row may break: after its last space or
/// path-like separator (not at its very start).
fn break_at(piece: &str) -> Option<usize> {
    piece
        .char_indices()
        .filter(|(i, c)| *i > 0 && matches!(c, ' ' | '/' | '.' | '-' | '_' | ','))
        .map(|(i, c)| i + c.len_utf8())
        .next_back()
        .filter(|at| *at < piece.len())
}

/// A line's plain text (search works on what is shown).
pub fn line_text(line: &[Seg]) -> String {
    line.iter().map(|(_, s)| s.as_str()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &Lines) -> String {
        lines
            .iter()
            .map(|l| line_text(l))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn keeps_order_and_numbers() {
        let (l, cut) = pretty(r#"{"z":1.0,"a":[true,null,{}],"s":"x\"y"}"#, 100);
        assert!(!cut);
        assert_eq!(
            text(&l),
            "{\n  \"z\": 1.0,\n  \"a\": [\n    true,\n    null,\n    {}\n  ],\n  \"s\": \"x\\\"y\"\n}"
        );
        assert_eq!(l[1][1], (Tok::Key, "\"z\"".into()));
        assert_eq!(l[1][3], (Tok::Num, "1.0".into()));
        let (_, cut) = pretty("[1,2,3,4]", 3);
        assert!(cut);
    }

    #[test]
    fn long_lines_continue_below_marked_and_indented() {
        let s = format!(r#"{{"message":"{}"}}"#, "x".repeat(50));
        let (l, _) = pretty(&s, 100);
        let (w, cut) = wrap(l, 20, 100);
        assert!(!cut);
        let rows: Vec<String> = w.iter().map(|l| line_text(l)).collect();
        assert!(rows.iter().all(|r| r.width() <= 20), "{rows:?}");
        assert_eq!(rows[1], "  \"message\": \"xxxxxx");
        assert_eq!(rows[2], format!("  ↪ {}", "x".repeat(16)));
        assert_eq!(w[2][0], (Tok::Wrap, "  ↪ ".into()));
        // Nothing is lost: the rows without their marks are the line.
        let joined: String = rows[1..rows.len() - 1]
            .iter()
            .map(|r| r.trim_start().trim_start_matches(WRAP_MARK))
            .collect();
        assert_eq!(joined, format!("\"message\": \"{}\"", "x".repeat(50)));
        let (_, cut) = wrap(pretty(&s, 100).0, 20, 3);
        assert!(cut);
    }

    #[test]
    fn rows_break_between_tokens_not_inside_words() {
        let s = r#"{"result":{"cacheScope":"private","resultType":"complete","name":"mcpscope-demo","text":"Read 2097152 of 5242880 bytes"}}"#;
        let (l, _) = pretty(s, 100);
        let (w, _) = wrap(l, 25, 100);
        let rows: Vec<String> = w.iter().map(|l| line_text(l)).collect();
        assert!(rows.iter().all(|r| r.width() <= 25), "{rows:?}");
        // Every token that fits on a row is on one row, whole.
        for token in [
            "\"cacheScope\": ",
            "\"private\",",
            "\"resultType\": ",
            "\"complete\",",
            "\"mcpscope-demo\",",
        ] {
            assert!(
                rows.iter().any(|r| r.contains(token)),
                "{token} cut: {rows:?}"
            );
        }
        // A string longer than a row breaks after a space.
        let text: Vec<&String> = rows
            .iter()
            .skip_while(|r| !r.contains("\"text\""))
            .collect();
        for pair in text.windows(2) {
            let Some(next) = pair[1].trim_start().strip_prefix(WRAP_MARK) else {
                continue;
            };
            assert!(
                pair[0].ends_with(' ') || next.starts_with('"'),
                "mid-word break: {rows:?}"
            );
        }
    }

    #[test]
    fn exact_bytes_shows_everything() {
        let (l, _) = exact_bytes(b"ab\x1b[\xffcd", 80, 10);
        assert_eq!(text(&l), "ab␛[\\xffcd");
        let (l, _) = exact_bytes(b"abcdefghij", 8, 10);
        assert_eq!(l.len(), 2);
    }
}
