//! What the detail view shows: a read resource's contents (text as
//! written, a blob as its size, type and a hex preview) and a prompt's
//! messages (role and text; images, audio and resources summarised), as
//! lines kept to `MAX_LINES`, the cut said.

use super::{HEX_PREVIEW, MAX_LINES, MAX_PARTS};
use crate::tui::format::{safe, safe_row};
use base64::Engine as _;
use serde_json::Value;

fn text(v: &Value, k: &str, n: usize) -> String {
    v.get(k)
        .and_then(Value::as_str)
        .map(|s| safe(s, n))
        .unwrap_or_default()
}

/// How a detail line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Head,
    Text,
    Muted,
    Error,
}

/// A read resource or a got prompt, as lines to scroll through.
#[derive(Debug, Clone, Default)]
pub struct Detail {
    pub title: String,
    pub lines: Vec<(Tone, String)>,
    pub scroll: usize,
    /// Lines the server sent past `MAX_LINES` (or parts past `MAX_PARTS`).
    pub cut: bool,
}

impl Detail {
    fn new(title: String) -> Detail {
        Detail {
            title,
            ..Detail::default()
        }
    }

    fn push(&mut self, tone: Tone, text: impl Into<String>) {
        if self.lines.len() < MAX_LINES {
            self.lines.push((tone, text.into()));
        } else {
            self.cut = true;
        }
    }

    fn text(&mut self, text: &str) {
        for l in text.lines() {
            if self.lines.len() >= MAX_LINES {
                self.cut = true;
                return;
            }
            self.push(Tone::Text, safe_row(l));
        }
    }

    pub(super) fn error(title: String, e: &str) -> Detail {
        let mut d = Detail::new(title);
        d.push(Tone::Error, format!("failed: {}", safe_row(e)));
        d
    }

    /// Lines from `from` shown in `h` rows of `w` columns (long lines wrap;
    /// at least one is shown).
    pub fn fit_from(&self, from: usize, w: usize, h: usize) -> usize {
        let (mut rows, mut n) = (0, 0);
        for (_, l) in self.lines.iter().skip(from) {
            let r = rows_of(l, w);
            if n > 0 && rows + r > h {
                break;
            }
            rows += r;
            n += 1;
            if rows >= h {
                break;
            }
        }
        n
    }

    /// The first line of the view that shows the last line at its bottom.
    fn last_top(&self, w: usize, h: usize) -> usize {
        let (mut rows, mut top) = (0, self.lines.len());
        while top > 0 {
            let r = rows_of(&self.lines[top - 1].1, w);
            if rows + r > h && rows > 0 {
                break;
            }
            rows += r;
            top -= 1;
        }
        top
    }

    /// Scroll for a key: a line or three (the wheel) at a time, a page (as
    /// many lines as the view shows), or to either end.
    pub fn scroll_by(&mut self, delta: isize, w: usize, h: usize) {
        let (w, h) = (w.max(1), h.max(1));
        let max = self.last_top(w, h);
        let s = self.scroll.min(max);
        self.scroll = match delta {
            d if d.unsigned_abs() <= 3 => s.saturating_add_signed(d).min(max),
            d if d.unsigned_abs() >= 1 << 20 => {
                if d > 0 {
                    max
                } else {
                    0
                }
            }
            d if d > 0 => (s + self.fit_from(s, w, h).max(1)).min(max),
            _ => {
                // Back by a page: the lines that fill the view above the top.
                let (mut rows, mut top) = (0, s);
                while top > 0 {
                    let r = rows_of(&self.lines[top - 1].1, w);
                    if rows + r > h && rows > 0 {
                        break;
                    }
                    rows += r;
                    top -= 1;
                }
                top
            }
        };
    }
}

/// Screen rows a line of text takes at width `w` (hard wrapped by chars).
pub fn rows_of(text: &str, w: usize) -> usize {
    text.chars().count().max(1).div_ceil(w.max(1))
}

/// A `ReadResourceResult` as lines: each content's URI and type, text as
/// written, a blob as its size, type and a hex preview.
pub fn contents(title: String, v: &Value) -> Detail {
    let mut d = Detail::new(title);
    let parts = v.get("contents").and_then(Value::as_array);
    let Some(parts) = parts else {
        d.push(Tone::Error, "the result has no contents list");
        return d;
    };
    if parts.is_empty() {
        d.push(Tone::Muted, "(no contents)");
    }
    for (i, c) in parts.iter().enumerate() {
        if i == MAX_PARTS {
            d.cut = true;
            d.push(
                Tone::Muted,
                format!("… {} more contents not shown", parts.len() - i),
            );
            break;
        }
        let mime = text(c, "mimeType", 60);
        let uri = text(c, "uri", 160);
        if let Some(t) = c.get("text").and_then(Value::as_str) {
            d.push(
                Tone::Head,
                format!("text, {} bytes · {} · {uri}", t.len(), or_unknown(&mime)),
            );
            d.text(t);
        } else if let Some(b) = c.get("blob").and_then(Value::as_str) {
            blob(&mut d, &uri, &mime, b);
        } else {
            d.push(Tone::Error, format!("{uri}: neither text nor blob"));
        }
    }
    d
}

fn or_unknown(mime: &str) -> &str {
    if mime.is_empty() {
        "no MIME type"
    } else {
        mime
    }
}

fn blob(d: &mut Detail, uri: &str, mime: &str, b64: &str) {
    let bytes = match base64::engine::general_purpose::STANDARD.decode(b64.trim()) {
        Ok(b) => b,
        Err(e) => {
            d.push(Tone::Error, format!("{uri}: blob is not valid base64: {e}"));
            return;
        }
    };
    d.push(
        Tone::Head,
        format!(
            "binary, {} bytes · {} · {uri}",
            bytes.len(),
            or_unknown(mime)
        ),
    );
    for (i, chunk) in bytes.chunks(16).take(HEX_PREVIEW / 16).enumerate() {
        let hex: Vec<String> = chunk.iter().map(|b| format!("{b:02x}")).collect();
        let ascii: String = chunk
            .iter()
            .map(|b| {
                if b.is_ascii_graphic() || *b == b' ' {
                    *b as char
                } else {
                    '.'
                }
            })
            .collect();
        d.push(
            Tone::Text,
            format!("{:04x}  {:<47}  {ascii}", i * 16, hex.join(" ")),
        );
    }
    if bytes.len() > HEX_PREVIEW {
        d.push(
            Tone::Muted,
            format!("… first {HEX_PREVIEW} of {} bytes shown", bytes.len()),
        );
    }
}

/// A `GetPromptResult` as lines: its description, then each message's role
/// and content (text as written; images, audio and resources summarised).
pub fn messages(title: String, v: &Value) -> Detail {
    let mut d = Detail::new(title);
    let desc = v.get("description").and_then(Value::as_str).unwrap_or("");
    if !desc.is_empty() {
        d.push(Tone::Muted, safe_row(desc));
    }
    let Some(msgs) = v.get("messages").and_then(Value::as_array) else {
        d.push(Tone::Error, "the result has no messages list");
        return d;
    };
    d.push(
        Tone::Muted,
        crate::tui::format::count(msgs.len() as u64, "message", "messages"),
    );
    for (i, m) in msgs.iter().enumerate() {
        if i == MAX_PARTS {
            d.cut = true;
            d.push(
                Tone::Muted,
                format!("… {} more messages not shown", msgs.len() - i),
            );
            break;
        }
        d.push(Tone::Head, format!("{}:", or_q(&text(m, "role", 20))));
        match m.get("content") {
            Some(Value::Array(parts)) => {
                for p in parts.iter().take(MAX_PARTS) {
                    part(&mut d, p);
                }
            }
            Some(c) => part(&mut d, c),
            None => d.push(Tone::Error, "  (no content)"),
        }
    }
    d
}

fn or_q(s: &str) -> &str {
    if s.is_empty() { "?" } else { s }
}

/// Bytes a base64 text decodes to (without decoding it).
fn b64_len(s: &str) -> usize {
    let s = s.trim_end_matches('=');
    s.len() * 3 / 4
}

fn part(d: &mut Detail, c: &Value) {
    let kind = c.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "text" => d.text(c.get("text").and_then(Value::as_str).unwrap_or("")),
        "image" | "audio" => {
            let data = c.get("data").and_then(Value::as_str).unwrap_or("");
            d.push(
                Tone::Muted,
                format!(
                    "[{kind}: {}, {} bytes]",
                    or_unknown(&text(c, "mimeType", 60)),
                    b64_len(data)
                ),
            );
        }
        "resource" => {
            let r = c.get("resource").unwrap_or(&Value::Null);
            let what = if let Some(t) = r.get("text").and_then(Value::as_str) {
                format!("text, {} bytes", t.len())
            } else if let Some(b) = r.get("blob").and_then(Value::as_str) {
                format!("binary, {} bytes", b64_len(b))
            } else {
                "no text or blob".into()
            };
            d.push(
                Tone::Muted,
                format!(
                    "[resource {} · {} · {what}]",
                    text(r, "uri", 160),
                    or_unknown(&text(r, "mimeType", 60))
                ),
            );
            if let Some(t) = r.get("text").and_then(Value::as_str) {
                d.text(t);
            }
        }
        "resource_link" => d.push(
            Tone::Muted,
            format!(
                "[link {} · {}]",
                text(c, "uri", 160),
                or_q(&text(c, "name", 80))
            ),
        ),
        other => d.push(Tone::Muted, format!("[{} content]", or_q(&safe(other, 30)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blobs_show_size_type_and_hex() {
        let b = base64::engine::general_purpose::STANDARD.encode([0u8, 1, 0x41, 0xff]);
        let d = contents(
            "t".into(),
            &json!({"contents": [{"uri": "x://b", "mimeType": "application/octet-stream", "blob": b}]}),
        );
        assert_eq!(
            d.lines[0].1,
            "binary, 4 bytes · application/octet-stream · x://b"
        );
        assert!(
            d.lines[1].1.starts_with("0000  00 01 41 ff"),
            "{:?}",
            d.lines
        );
        assert!(d.lines[1].1.ends_with("..A."));
        let bad = contents(
            "t".into(),
            &json!({"contents": [{"uri": "x", "blob": "!!"}]}),
        );
        assert_eq!(bad.lines[0].0, Tone::Error);
    }

    #[test]
    fn long_lines_wrap_and_pages_follow_what_is_shown() {
        let mut d = Detail::new("t".into());
        for i in 0..10 {
            // Lines 0, 2, 4… take two rows of 10 columns, the others one.
            let n = if i % 2 == 0 { 15 } else { 5 };
            d.push(Tone::Text, format!("{i}").repeat(n));
        }
        assert_eq!(d.fit_from(0, 10, 6), 4, "2 + 1 + 2 + 1 rows");
        assert_eq!(d.fit_from(0, 10, 5), 3);
        d.scroll_by(100, 10, 6);
        assert_eq!(d.scroll, 4, "a page: the 4 lines that were shown");
        d.scroll_by(isize::MAX / 2, 10, 6);
        assert_eq!(d.scroll, 6, "the last 4 lines fill the view");
        d.scroll_by(1, 10, 6);
        assert_eq!(d.scroll, 6, "not past the end");
        d.scroll_by(-100, 10, 6);
        assert_eq!(d.scroll, 2);
        d.scroll_by(-1, 10, 6);
        assert_eq!(d.scroll, 1);
        d.scroll_by(isize::MIN / 2, 10, 6);
        assert_eq!(d.scroll, 0);
    }

    #[test]
    fn long_texts_are_cut_and_say_so() {
        let long = "line\n".repeat(MAX_LINES + 10);
        let d = contents(
            "t".into(),
            &json!({"contents": [{"uri": "x", "text": long}]}),
        );
        assert_eq!(d.lines.len(), MAX_LINES);
        assert!(d.cut);
    }

    #[test]
    fn prompt_messages_are_summarised() {
        let d = messages(
            "t".into(),
            &json!({"messages": [
                {"role": "user", "content": {"type": "text", "text": "hi\nthere"}},
                {"role": "assistant", "content": {"type": "image", "mimeType": "image/png", "data": "AAAA"}},
                {"role": "user", "content": {"type": "resource", "resource": {"uri": "r://1", "text": "body"}}}
            ]}),
        );
        let text: Vec<&str> = d.lines.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(
            text,
            [
                "3 messages",
                "user:",
                "hi",
                "there",
                "assistant:",
                "[image: image/png, 3 bytes]",
                "user:",
                "[resource r://1 · no MIME type · text, 4 bytes]",
                "body"
            ]
        );
    }
}
