//! Text formatting shared by the panes: durations, byte counts, numbers, and
//! the one place where server text is clipped and sanitised for the screen.

use crate::protocol::sanitize::one_line;
pub use crate::protocol::views::num;

/// Longest server string a single row ever needs; clipping before sanitising
/// keeps a 10 MB log line from costing 10 MB of work per frame.
pub const ROW_CHARS: usize = 400;

/// Server-provided text made safe for one terminal row: at most `max_chars`
/// characters (an ellipsis marks the cut), control characters and escapes
/// replaced by visible stand-ins.
pub fn safe(s: &str, max_chars: usize) -> String {
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

/// Like [`safe`] with the default row budget.
pub fn safe_row(s: &str) -> String {
    safe(s, ROW_CHARS)
}

/// Milliseconds relative to the session start, fixed width for columns.
pub fn rel_ms(t_us: u64) -> String {
    format!("{:>10.1}", t_us as f64 / 1000.0)
}

/// A duration for people: `850ms`, `4.2s`, `3m07s`, `1h02m`.
pub fn duration(us: u64) -> String {
    let ms = us / 1000;
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", ms as f64 / 1000.0)
    } else if ms < 3_600_000 {
        format!("{}m{:02}s", ms / 60_000, (ms / 1000) % 60)
    } else {
        format!("{}h{:02}m", ms / 3_600_000, (ms / 60_000) % 60)
    }
}

/// Byte counts in binary units: `512 B`, `1.5 KiB`, `50.0 MiB`.
pub fn bytes(v: f64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if !v.is_finite() || v.abs() < 1024.0 {
        return format!("{} B", num(v.trunc()));
    }
    let mut x = v / 1024.0;
    let mut unit = UNITS[0];
    for u in &UNITS[1..] {
        if x.abs() < 1024.0 {
            break;
        }
        x /= 1024.0;
        unit = u;
    }
    format!("{x:.1} {unit}")
}

/// A rate per second with a sensible precision.
pub fn rate(v: f64) -> String {
    if !v.is_finite() {
        "–".into()
    } else if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

pub use crate::session::spec::shell_quote;

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
        assert_eq!(duration(850_000), "850ms");
        assert_eq!(duration(4_200_000), "4.2s");
        assert_eq!(duration(187_000_000), "3m07s");
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(bytes(1536.0), "1.5 KiB");
        assert_eq!(bytes(52_428_800.0), "50.0 MiB");
        assert_eq!(shell_quote("upload_file"), "upload_file");
        assert_eq!(shell_quote(r#"{"a": 'b'}"#), r#"'{"a": '\''b'\''}'"#);
        assert_eq!(safe("a\x1b[2Jb", 10), "a␛[2Jb");
        assert_eq!(safe("abcdef", 3), "abc…");
        assert!(contains_ci(b"Hello World", b"world"));
        assert!(contains_ci(b"xxWORLD", b"world"));
        assert!(!contains_ci(b"word", b"world"));
        assert!(contains_ci(b"anything", b""));
    }
}
