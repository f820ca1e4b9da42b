//! `attach --intercept`: the breakpoint in force and the messages the
//! proxy holds for it, each waiting for the user to forward it (as it is
//! or edited), or drop it; and the editor that forges a message to either
//! side. The state follows the proxy's reports: a message is a row from
//! its `held` report until its `released` one, whatever was asked in
//! between, so the screen never claims what the proxy did not do.

pub mod update;
pub mod view;

use crate::intercept::protocol::{MAX_HELD, Report, Side};
use crate::tui::format::safe;
use ratatui_textarea::TextArea;

/// What a forge starts from: a log line the host shows, harmless anywhere.
pub const FORGE_TEMPLATE: &str = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"forged"}}"#;

/// One held message.
#[derive(Debug, Clone)]
pub struct Held {
    pub id: u64,
    pub to: Side,
    /// The message as the proxy holds it (one line of JSON, as read).
    pub message: String,
    /// Its method and id, safe for a row.
    pub head: String,
    /// When it was held, on the trace's clock (microseconds).
    pub held_at_us: u64,
    /// Asked for and not yet released (the row stays until it is).
    pub asked: Option<&'static str>,
    /// The host's call it holds up: its request on the way to the server,
    /// or its response on the way to the host (the Progress row says so:
    /// the recording has it, the host does not).
    pub call: Option<(crate::protocol::id::IdKey, HeldPart)>,
}

/// Which part of a call a held message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeldPart {
    Request,
    Response,
}

/// The call `message` (going `to`) is part of: a request to the server,
/// or a response to the host (a server's own requests to the host and
/// the host's answers to them are no call of the host's).
fn call_of(to: Side, message: &str) -> Option<(crate::protocol::id::IdKey, HeldPart)> {
    use crate::protocol::frame::{FrameKind, classify};
    let f = classify(message.as_bytes());
    match (to, f.kind) {
        (Side::Server, FrameKind::Request) => Some((f.id?, HeldPart::Request)),
        (Side::Host, FrameKind::Response | FrameKind::ErrorResponse) => {
            Some((f.id?, HeldPart::Response))
        }
        _ => None,
    }
}

/// What the editor sends on submit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Editing {
    /// Held message `id`, forwarded as edited.
    Forward(u64),
    /// A new message to this side.
    Forge(Side),
}

pub struct Editor {
    pub kind: Editing,
    pub text: Box<TextArea<'static>>,
    /// Why the text cannot be sent (it is no JSON), shown under it.
    pub error: Option<String>,
}

/// The breakpoint filter being typed; its parse error is shown (with a
/// caret under the column) before anything is sent.
#[derive(Debug, Clone, Default)]
pub struct BreakInput {
    pub text: String,
    pub error: Option<crate::filter::ParseError>,
}

#[derive(Default)]
pub struct Intercept {
    /// The overlay is showing (the status line's indicator always is).
    pub open: bool,
    /// The breakpoint the proxy last said is in force.
    pub filter: Option<String>,
    /// In the order they were held.
    pub held: Vec<Held>,
    pub selected: usize,
    pub editor: Option<Editor>,
    pub input: Option<BreakInput>,
    /// Why the control connection ended: nothing is held for us any more.
    pub lost: Option<String>,
}

impl Intercept {
    pub fn selected(&self) -> Option<&Held> {
        self.held.get(self.selected)
    }

    /// The oldest held message's age, in microseconds, at `now_us`.
    pub fn oldest_us(&self, now_us: u64) -> Option<u64> {
        self.held
            .iter()
            .map(|h| now_us.saturating_sub(h.held_at_us))
            .max()
    }

    /// The held message holding up the host's call `id`, if any: which
    /// part of it, and since when (trace clock, microseconds).
    pub fn holding(&self, id: &crate::protocol::id::IdKey) -> Option<(HeldPart, u64)> {
        self.held.iter().find_map(|h| match &h.call {
            Some((k, part)) if k == id => Some((*part, h.held_at_us)),
            _ => None,
        })
    }

    /// Take in one report; returns a line for the status bar, if any.
    pub fn on_report(&mut self, r: Report, now_us: u64) -> Option<String> {
        match r {
            // The status line's indicator says it: no notice repeats it.
            Report::Breakpoint { filter } => {
                self.filter = filter;
                None
            }
            Report::Held {
                id,
                to,
                message,
                age_ms,
            } => {
                let h = Held {
                    id,
                    to,
                    call: call_of(to, &message),
                    head: head(&message),
                    message,
                    held_at_us: now_us.saturating_sub(age_ms.saturating_mul(1000)),
                    asked: None,
                };
                if let Some(old) = self.held.iter_mut().find(|o| o.id == id) {
                    *old = h;
                } else if self.held.len() < MAX_HELD {
                    self.held.push(h);
                } else {
                    // The proxy keeps to the same bound; past it, a row
                    // could only grow this list without limit.
                    return Some(format!("held #{id} not listed: {MAX_HELD} are listed"));
                }
                None
            }
            Report::Released { id, how } => {
                let at = self.held.iter().position(|h| h.id == id)?;
                self.held.remove(at);
                if at < self.selected || self.selected >= self.held.len() {
                    self.selected = self.selected.saturating_sub(1);
                }
                let editing_it = self
                    .editor
                    .as_ref()
                    .is_some_and(|e| e.kind == Editing::Forward(id));
                let how = safe(&how, 40);
                if editing_it {
                    self.editor = None;
                    return Some(format!(
                        "held #{id} was {how} meanwhile: the edit is dropped"
                    ));
                }
                Some(format!("held #{id} {how}"))
            }
            Report::Forged { to } => Some(format!("forged → {}", to.name())),
            Report::Error { message } => {
                // A refusal names no row: what was asked and not released
                // is asked no more.
                for h in &mut self.held {
                    h.asked = None;
                }
                Some(format!("intercept: {}", safe(&message, 300)))
            }
        }
    }

    /// The control connection ended: the proxy forwards what it held as
    /// it was, so no row stays.
    pub fn on_closed(&mut self, why: &str) -> String {
        let why = safe(why, 200);
        self.lost = Some(why.clone());
        self.held.clear();
        self.selected = 0;
        self.editor = None;
        self.input = None;
        format!("intercept: {why}; nothing is held any more")
    }
}

/// A message's method and id, or what kind of answer it is: one safe row.
pub fn head(message: &str) -> String {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(message) else {
        return format!("not JSON: {}", safe(message, 40));
    };
    let id = v.get("id").map(|id| match id {
        serde_json::Value::String(s) => format!("#{}", safe(s, 24)),
        other => format!("#{}", safe(&other.to_string(), 24)),
    });
    let what = match v.get("method").and_then(|m| m.as_str()) {
        Some(m) => safe(m, 60),
        None if v.get("error").is_some() => "error".into(),
        None if v.get("result").is_some() => "response".into(),
        None => "message".into(),
    };
    match id {
        Some(id) => format!("{what} {id}"),
        None => what,
    }
}

/// Valid JSON laid out for editing, key order and spelling kept; a
/// character that would act on the terminal (a control, an invisible one)
/// is written as its `\u` escape, which is the same JSON. Text that is no
/// JSON comes as it is, its unsafe characters shown as stand-ins.
pub fn for_editing(message: &str) -> Vec<String> {
    if serde_json::from_str::<serde::de::IgnoredAny>(message).is_err() {
        return vec![crate::protocol::sanitize::one_line(message).into_owned()];
    }
    let mut lines = Vec::new();
    let mut cur = String::new();
    let mut indent = 0usize;
    let mut in_str = false;
    let mut escaped = false;
    let mut chars = message.chars().peekable();
    let newline = |lines: &mut Vec<String>, cur: &mut String, indent: usize| {
        lines.push(std::mem::take(cur));
        cur.push_str(&"  ".repeat(indent.min(40)));
    };
    while let Some(c) = chars.next() {
        if in_str {
            if escaped {
                escaped = false;
                cur.push(c);
            } else if c == '\\' {
                escaped = true;
                cur.push(c);
            } else if c == '"' {
                in_str = false;
                cur.push(c);
            } else if c.is_control() || crate::protocol::sanitize::is_invisible(c) {
                for u in c.encode_utf16(&mut [0; 2]) {
                    cur.push_str(&format!("\\u{u:04x}"));
                }
            } else {
                cur.push(c);
            }
            continue;
        }
        match c {
            '"' => {
                in_str = true;
                cur.push(c);
            }
            '{' | '[' => {
                cur.push(c);
                // An empty object or array stays on its line.
                while chars.peek().is_some_and(|c| c.is_ascii_whitespace()) {
                    chars.next();
                }
                if matches!(chars.peek(), Some('}' | ']')) {
                    cur.extend(chars.next());
                } else {
                    indent += 1;
                    newline(&mut lines, &mut cur, indent);
                }
            }
            '}' | ']' => {
                indent = indent.saturating_sub(1);
                newline(&mut lines, &mut cur, indent);
                cur.push(c);
            }
            ',' => {
                cur.push(c);
                newline(&mut lines, &mut cur, indent);
            }
            ':' => cur.push_str(": "),
            c if c.is_ascii_whitespace() => {}
            c => cur.push(c),
        }
    }
    lines.push(cur);
    lines
}

/// The editor's text as one line of JSON (whitespace outside strings
/// dropped, key order and spelling kept), or the parser's word on why it
/// is no JSON. A
/// message must be one line: the peer reads newline-delimited JSON.
pub fn compact(text: &str) -> Result<String, String> {
    serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|e| e.to_string())?;
    let mut out = String::with_capacity(text.len());
    let mut in_str = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_str {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            out.push(c);
        } else if c == '"' {
            in_str = true;
            out.push(c);
        } else if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editing_keeps_the_message_and_escapes_what_would_reach_the_terminal() {
        let m = &format!(
            r#"{{"jsonrpc":"2.0","id":7,"result":{{"content":[],"text":"a\u001b[2Jb \"q\" {}x"}}}}"#,
            '\u{202e}'
        );
        let lines = for_editing(m);
        assert_eq!(lines[0], "{");
        assert!(lines.iter().all(|l| !l.chars().any(|c| c.is_control())));
        assert!(lines.iter().any(|l| l.contains(r"\u202e")), "{lines:?}");
        assert!(
            lines.iter().any(|l| l.contains("\"content\": []")),
            "{lines:?}"
        );
        let back = compact(&lines.join("\n")).unwrap();
        let a: serde_json::Value = serde_json::from_str(m).unwrap();
        let b: serde_json::Value = serde_json::from_str(&back).unwrap();
        assert_eq!(a, b);
        assert!(!back.contains('\n'));
        assert!(compact("{\"a\": ").is_err());
    }

    #[test]
    fn rows_follow_the_reports() {
        let mut ic = Intercept::default();
        let held = |id, m: &str| Report::Held {
            id,
            to: Side::Host,
            message: m.into(),
            age_ms: 1500,
        };
        ic.on_report(
            held(1, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            10_000_000,
        );
        ic.on_report(
            held(2, r#"{"jsonrpc":"2.0","method":"x/\u001by"}"#),
            10_000_000,
        );
        assert_eq!(ic.held[0].head, "response #1");
        assert!(!ic.held[1].head.contains('\u{1b}'));
        assert_eq!(ic.oldest_us(11_000_000), Some(2_500_000));
        ic.selected = 1;
        let n = ic.on_report(
            Report::Released {
                id: 2,
                how: "dropped".into(),
            },
            0,
        );
        assert_eq!(n.as_deref(), Some("held #2 dropped"));
        assert_eq!((ic.held.len(), ic.selected), (1, 0));
        ic.on_closed("gone");
        assert!(ic.held.is_empty() && ic.lost.is_some());
    }
}
