//! Server-provided text must never reach a terminal raw: escape sequences,
//! control characters and invisible characters become visible stand-ins.
//!
//! Invisible characters matter as much as escapes: a zero-width space makes
//! two tool names look identical, and a bidi override (U+202E) makes
//! `evil\u{202E}txt.exe` read as `evilexe.txt`. Every sanitised place shows
//! them the same way, as `<U+XXXX>`.

use std::borrow::Cow;

/// Replace control characters with Unicode control pictures (`ESC` → `␛`),
/// newlines and tabs with visible marks, and invisible or direction-changing
/// characters with `<U+XXXX>`, so one server string stays one line, cannot
/// move the cursor or change colours, and looks like what it is.
pub fn one_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push('⏎'),
            '\t' => out.push(' '),
            '\u{7f}' => out.push('␡'),
            c if (c as u32) < 0x20 => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?')),
            c if needs_escape(c) => push_code_point(&mut out, c),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `<U+200B>`: how an invisible character is shown everywhere.
/// [`one_line`] of at most `max_chars` characters (an ellipsis marks the
/// cut). Clipping comes first: a 10 MB string costs no more than the part
/// that is kept.
pub fn one_line_max(s: &str, max_chars: usize) -> String {
    let cut = match s.char_indices().nth(max_chars) {
        Some((i, _)) => &s[..i],
        None => s,
    };
    let mut out = one_line(cut).into_owned();
    if cut.len() < s.len() {
        out.push('…');
    }
    out
}

pub fn push_code_point(out: &mut String, c: char) {
    use std::fmt::Write;
    let _ = write!(out, "<U+{:04X}>", c as u32);
}

fn needs_escape(c: char) -> bool {
    c.is_control() || is_invisible(c)
}

/// Characters that draw nothing (or reorder what follows) yet change what a
/// string is: format characters, zero-width spaces and joiners, bidi
/// controls, line separators, fillers and tag characters. Variation
/// selectors are left alone: they only pick a glyph style.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}'
        | '\u{17B4}' | '\u{17B5}' | '\u{180B}'..='\u{180F}'
        | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FEFF}' | '\u{FFA0}'
        | '\u{FFF9}'..='\u{FFFB}' | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E007F}')
}

/// Whether JSON text meant for a terminal should carry `c` as a `\u` escape
/// rather than raw: the escape keeps the value identical and makes it visible.
pub fn escape_in_json(c: char) -> bool {
    needs_escape(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_neutralised() {
        assert!(matches!(one_line("plain text"), Cow::Borrowed(_)));
        assert_eq!(one_line("\x1b[31mred\x1b[0m"), "␛[31mred␛[0m");
        assert_eq!(one_line("a\nb\tc\0"), "a⏎b c␀");
        assert_eq!(one_line("\u{9b}x\u{202E}"), "<U+009B>x<U+202E>");
    }

    #[test]
    fn invisible_characters_are_named() {
        for (c, shown) in [
            ('\u{200B}', "<U+200B>"),
            ('\u{200D}', "<U+200D>"),
            ('\u{200E}', "<U+200E>"),
            ('\u{200F}', "<U+200F>"),
            ('\u{FEFF}', "<U+FEFF>"),
            ('\u{202E}', "<U+202E>"),
            ('\u{2066}', "<U+2066>"),
            ('\u{2069}', "<U+2069>"),
            ('\u{2028}', "<U+2028>"),
            ('\u{E0041}', "<U+E0041>"),
        ] {
            assert_eq!(one_line(&format!("a{c}b")), format!("a{shown}b"));
        }
        // Two names that differ only by a zero-width space no longer look alike.
        assert_ne!(one_line("echo"), one_line("ec\u{200B}ho"));
        // Ordinary text, including emoji with a variation selector, is untouched.
        assert!(matches!(one_line("héllo ❤\u{FE0F} 日本"), Cow::Borrowed(_)));
    }
}
