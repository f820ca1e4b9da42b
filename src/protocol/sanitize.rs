//! Server-provided text must never reach a terminal raw: escape sequences and
//! control characters become visible stand-ins.

use std::borrow::Cow;

/// Replace control characters with Unicode control pictures (`ESC` → `␛`),
/// newlines and tabs with visible marks, so one server string stays one line
/// and cannot move the cursor or change colours.
pub fn one_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    Cow::Owned(s.chars().map(replacement).collect())
}

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn replacement(c: char) -> char {
    match c {
        '\n' => '⏎',
        '\t' => ' ',
        '\u{7f}' => '␡',
        c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('�'),
        c if needs_escape(c) => '�',
        c => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_neutralised() {
        assert!(matches!(one_line("plain text"), Cow::Borrowed(_)));
        assert_eq!(one_line("\x1b[31mred\x1b[0m"), "␛[31mred␛[0m");
        assert_eq!(one_line("a\nb\tc\0"), "a⏎b c␀");
        assert_eq!(one_line("\u{9b}x\u{202E}"), "�x�");
    }
}
