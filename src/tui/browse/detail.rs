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

    pub fn scroll_by(&mut self, delta: isize, height: usize) {
        let max = self.lines.len().saturating_sub(height.max(1)) as isize;
        self.scroll = (self.scroll as isize + delta).clamp(0, max.max(0)) as usize;
    }
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
    d.push(Tone::Muted, format!("{} message(s)", msgs.len()));
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
                "3 message(s)",
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
