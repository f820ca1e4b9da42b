//! Text formatting for the screen: the one place where server text is
//! clipped and sanitised for a terminal row, shell quoting for the copied
//! command, and filter matching. Numbers, durations and sizes are
//! `crate::format`'s, shared with the headless lines.

/// Longest server string a single row ever needs; clipping before sanitising
/// keeps a 10 MB log line from costing 10 MB of work per frame.
pub const ROW_CHARS: usize = 400;

/// Server-provided text made safe for one terminal row: at most `max_chars`
/// characters (an ellipsis marks the cut), control characters and escapes
/// replaced by visible stand-ins.
pub fn safe(s: &str, max_chars: usize) -> String {
    crate::protocol::sanitize::one_line_max(s, max_chars)
}

/// Like [`safe`] with the default row budget.
pub fn safe_row(s: &str) -> String {
    safe(s, ROW_CHARS)
}

/// The end of a row cut to the `room` columns left of it, an ellipsis
/// marking the cut (a row's last column is never cut silently by the
/// pane's border).
pub fn clip(s: String, room: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    if s.width() <= room {
        return s;
    }
    if room == 0 {
        return String::new();
    }
    ellipsized(&s, room)
}

/// `s` cut to `w` columns (at least 1), ending in `…` whatever its length:
/// whole characters up to one column short, then the ellipsis; a wide
/// character that would straddle the edge leaves a space. Every cut with
/// an ellipsis (`clip`, `chrome::fit`, `chrome::cut_line`) is this one.
pub fn ellipsized(s: &str, w: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let room = w.saturating_sub(1);
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let cw = c.width().unwrap_or(0);
        if used + cw > room {
            break;
        }
        used += cw;
        out.push(c);
    }
    out.extend(std::iter::repeat_n(' ', room - used));
    out.push('…');
    out
}

pub use crate::session::spec::shell_quote;

/// A count and its noun, singular for one: `1 row`, `1,234 rows`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!(
        "{} {}",
        crate::format::thousands(n),
        if n == 1 { one } else { many }
    )
}

/// A JSON number as a person reads it on screen: whole values with
/// thousands separators (`100,000`), others as `crate::format::num`.
pub fn amount(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        let digits = crate::format::thousands(v.abs() as u64);
        if v < 0.0 {
            format!("-{digits}")
        } else {
            digits
        }
    } else {
        crate::format::num(v)
    }
}

/// A rate per second: `crate::format::rate`, with thousands separators
/// from 1,000 on (`1,927,097`).
pub fn per_second(v: f64) -> String {
    if v.is_finite() && v >= 1000.0 {
        crate::format::thousands(v.round() as u64)
    } else {
        crate::format::rate(v)
    }
}

/// A time since the session started, to the millisecond, as a list column
/// reads it: `+12.345s`, `+12:34.567` past a minute, `+1:02:03.456` past
/// an hour.
pub fn since_start(t_us: u64) -> String {
    let ms = t_us / 1000;
    let (h, m, s, frac) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
    if h > 0 {
        format!("+{h}:{m:02}:{s:02}.{frac:03}")
    } else if m > 0 {
        format!("+{m}:{s:02}.{frac:03}")
    } else {
        format!("+{s}.{frac:03}s")
    }
}

/// How well a list entry matches a filter (`f` already lower case): by one
/// of its `names` — exactly (0), at the start (1), anywhere (2) — or only
/// by one of its `others`, a description (3). `None`: no match. Lists sort
/// by it, so the best match comes first and is selected.
pub fn match_rank(f: &str, names: &[&str], others: &[&str]) -> Option<u8> {
    if f.is_empty() {
        return Some(0);
    }
    let names = names.iter().map(|n| n.to_lowercase());
    let best = names
        .filter_map(|n| {
            if n == f {
                Some(0)
            } else if n.starts_with(f) {
                Some(1)
            } else {
                n.contains(f).then_some(2)
            }
        })
        .min();
    best.or_else(|| {
        others
            .iter()
            .any(|o| o.to_lowercase().contains(f))
            .then_some(3)
    })
}

/// Case-insensitive (ASCII) substring search over raw bytes; the needle must
/// already be lowercase. Filters run over stored frames without copying them.
pub fn contains_ci(hay: &[u8], needle_lower: &[u8]) -> bool {
    if needle_lower.is_empty() {
        return true;
    }
    if needle_lower.len() > hay.len() {
        return false;
    }
    let first = needle_lower[0];
    let upper = first.to_ascii_uppercase();
    let mut i = 0;
    while i + needle_lower.len() <= hay.len() {
        // Jump to the next possible first byte with memchr: filters scan whole stores.
        let rest = &hay[i..=hay.len() - needle_lower.len()];
        let Some(off) = memchr::memchr2(first, upper, rest) else {
            return false;
        };
        i += off;
        if hay[i..i + needle_lower.len()]
            .iter()
            .zip(needle_lower)
            .all(|(a, b)| a.to_ascii_lowercase() == *b)
        {
            return true;
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(shell_quote("upload_file"), "upload_file");
        assert_eq!(shell_quote(r#"{"a": 'b'}"#), r#"'{"a": '\''b'\''}'"#);
        assert_eq!(safe("a\x1b[2Jb", 10), "a␛[2Jb");
        assert_eq!(safe("abcdef", 3), "abc…");
        assert_eq!(clip("abcdef".into(), 4), "abc…");
        assert_eq!(clip("abc".into(), 4), "abc");
        assert!(contains_ci(b"Hello World", b"world"));
        assert!(contains_ci(b"xxWORLD", b"world"));
        assert!(!contains_ci(b"word", b"world"));
        assert!(contains_ci(b"anything", b""));
        assert_eq!(match_rank("echo", &["echo"], &[]), Some(0));
        assert_eq!(match_rank("ech", &["Echo"], &[]), Some(1));
        assert_eq!(match_rank("cho", &["echo"], &["say cho"]), Some(2));
        assert_eq!(match_rank("say", &["echo"], &["Say it"]), Some(3));
        assert_eq!(match_rank("zz", &["echo"], &["say"]), None);
        assert_eq!(count(1, "row", "rows"), "1 row");
        assert_eq!(count(1234, "row", "rows"), "1,234 rows");
        assert_eq!(amount(100_000.0), "100,000");
        assert_eq!(amount(-1500.0), "-1,500");
        assert_eq!(amount(2.5), "2.5");
        assert_eq!(per_second(1_927_096.6), "1,927,097");
        assert_eq!(per_second(2.33), "2.33");
        assert_eq!(since_start(0), "+0.000s");
        assert_eq!(since_start(12_345_678), "+12.345s");
        assert_eq!(since_start(754_567_000), "+12:34.567");
        assert_eq!(since_start(3_723_456_000), "+1:02:03.456");
    }
}
