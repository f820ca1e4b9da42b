//! One-line descriptions of stored events for the timeline (and the lane):
//! direction, kind, method, the call the event belongs to (`#12 slow_task`,
//! see `label`) and what the event says. Handshake and `_meta`-only frames
//! say what they are (`initialize → 2025-11-25`, `server/discover
//! 2026-07-28`, `notifications/initialized`); a `_meta` member is never
//! what a row shows. Works from the raw frame of one visible row at a time;
//! never scans the store.

use super::format::{safe, safe_row};
use super::label::Labels;
use crate::protocol::frame::FrameKind;
use crate::protocol::meta;
use crate::protocol::methods;
use crate::protocol::views::{CancelledView, LogView, ProgressView};
use crate::trace::store::flags;
use crate::trace::{Dir, EventRef};
use serde_json::Value;

/// How a row is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Request,
    Response,
    Notification,
    Error,
    Problem,
    Stderr,
    Meta,
}

#[derive(Debug, Clone)]
pub struct Summary {
    pub kind: &'static str,
    pub method: String,
    /// The call it belongs to (`#12 slow_task`); where that is not known,
    /// the id or token it names (`id=5`, `tok="x"`), or nothing.
    pub call: String,
    pub text: String,
    pub class: Class,
}

pub fn dir_glyph(d: Dir) -> &'static str {
    match d {
        Dir::Out => "→",
        Dir::In => "←",
        Dir::Stderr => "!",
        Dir::Meta => "·",
    }
}

/// What an event is, in a word: a stderr line or something mcpscope
/// observed is not a frame, whatever kind its bytes were stored with (meta
/// events are stored as notification-shaped JSON).
pub fn event_label(dir: Dir, kind: FrameKind) -> &'static str {
    match dir {
        Dir::Stderr => "stderr",
        Dir::Meta => "meta",
        Dir::In | Dir::Out => kind.label(),
    }
}

/// Summarise one event, naming its call from `labels`. Cost is
/// proportional to that event's bytes.
pub fn summarize(ev: &EventRef<'_>, labels: &Labels) -> Summary {
    let mut s = summarize_frame(ev);
    if let Some(l) = labels.of(ev) {
        s.call = l;
    }
    s
}

fn summarize_frame(ev: &EventRef<'_>) -> Summary {
    match ev.dir {
        Dir::Stderr => Summary {
            kind: "stderr",
            method: String::new(),
            call: String::new(),
            text: safe_row(&ev.text()),
            class: Class::Stderr,
        },
        Dir::Meta => Summary {
            kind: "meta",
            method: ev.method.unwrap_or("meta").to_string(),
            call: String::new(),
            text: meta_text(ev),
            class: Class::Meta,
        },
        Dir::In | Dir::Out => message(ev),
    }
}

fn meta_text(ev: &EventRef<'_>) -> String {
    if let Some(line) = ev.event().and_then(|e| e.injected_line()) {
        return safe_row(&line);
    }
    let Ok(Value::Object(mut m)) = serde_json::from_slice::<Value>(ev.bytes) else {
        return safe_row(&ev.text());
    };
    m.remove("event");
    // Capabilities and server info are long; the header shows them already.
    if let Some(v) = m.remove("capabilities") {
        let keys: Vec<String> = v
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        m.insert("capabilities".into(), Value::from(keys.join(",")));
    }
    let parts: Vec<String> = m
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect();
    safe_row(&parts.join(" "))
}

fn message(ev: &EventRef<'_>) -> Summary {
    let f = ev.frame();
    let method = f
        .method
        .as_deref()
        .or(ev.method)
        .map(|m| safe(m, 60))
        .unwrap_or_default();
    let id =
        f.id.as_ref()
            .map(|i| format!("id={}", safe(&i.to_string(), 40)));
    let mut s = Summary {
        kind: "",
        method,
        call: id.clone().unwrap_or_default(),
        text: String::new(),
        class: Class::Notification,
    };
    let params = f.params.map(|p| p.get()).unwrap_or("");
    match f.kind {
        FrameKind::Request => {
            s.kind = "req";
            s.class = Class::Request;
            if let Some(t) = f.progress_token() {
                s.call.push_str(&format!(" tok={}", safe(t.get(), 40)));
            }
            let task = f
                .method
                .as_deref()
                .is_some_and(|m| m.starts_with("tasks/"))
                .then(|| crate::tui::tasks::summary(params))
                .flatten();
            s.text = if let Some(t) = task {
                t
            } else if let Some(t) = request_text(f.method.as_deref(), params) {
                t
            } else if f.method.as_deref() == Some(methods::TOOLS_CALL) {
                match serde_json::from_str::<Value>(params) {
                    Ok(v) => format!(
                        "{} {}",
                        safe(v.get("name").and_then(Value::as_str).unwrap_or("?"), 60),
                        safe_row(&v.get("arguments").map(Value::to_string).unwrap_or_default())
                    ),
                    Err(_) => safe_row(params),
                }
            } else {
                safe_row(&without_meta(params))
            };
        }
        FrameKind::Response => {
            s.kind = "res";
            s.class = Class::Response;
            let result = f.result.map(|r| r.get()).unwrap_or("");
            s.text = response_text(ev.method, result);
        }
        FrameKind::ErrorResponse => {
            s.kind = "err";
            s.class = Class::Error;
            let e: Value = f
                .error
                .and_then(|e| serde_json::from_str(e.get()).ok())
                .unwrap_or(Value::Null);
            s.text = format!(
                "{} {}",
                e.get("code").map(Value::to_string).unwrap_or_default(),
                safe_row(e.get("message").and_then(Value::as_str).unwrap_or(""))
            );
        }
        FrameKind::Notification => {
            s.kind = "ntf";
            s.text = notification_text(&f.method, f.params, &mut s);
        }
        FrameKind::Batch => {
            s.kind = "batch";
            s.text = format!("batch of {} messages", f.batch.len());
        }
        _ => {
            s.kind = "bad";
            s.class = Class::Problem;
            s.text = format!(
                "{}: {}",
                safe_row(f.problem.as_deref().unwrap_or(ev.kind.label())),
                safe(&ev.text(), 200)
            );
        }
    }
    if ev.flags & flags::LATE != 0 {
        s.text = format!("late (after cancel) · {}", s.text);
        s.class = Class::Problem;
    }
    if ev.flags & flags::DUPLICATE != 0 {
        s.text = format!("duplicate response · {}", s.text);
        s.class = Class::Problem;
    }
    if ev.flags & flags::UNKNOWN_ID != 0 {
        s.text = format!("unknown id · {}", s.text);
        s.class = Class::Problem;
    }
    s
}

fn response_text(method: Option<&str>, result: &str) -> String {
    if let Some(t) = handshake_response(method, result) {
        return t;
    }
    let tasky = method.is_some_and(|m| m.starts_with("tasks/") && m != methods::TASKS_RESULT);
    if (tasky || method == Some(methods::TOOLS_CALL))
        && let Some(t) = crate::tui::tasks::summary(result)
    {
        return t;
    }
    if method != Some(methods::TOOLS_CALL) {
        let rest = without_meta(result);
        return match method {
            Some(m) if is_empty_object(&rest) => format!("{} → ok", safe(m, 60)),
            _ => safe_row(&rest),
        };
    }
    let Ok(v) = serde_json::from_str::<Value>(result) else {
        return safe_row(result);
    };
    let is_error = v.get("isError").and_then(Value::as_bool) == Some(true);
    let text = v
        .get("content")
        .and_then(Value::as_array)
        .and_then(|c| c.iter().find_map(|i| i.get("text").and_then(Value::as_str)))
        .map(safe_row)
        .unwrap_or_else(|| safe_row(result));
    if is_error {
        format!("isError: {text}")
    } else {
        text
    }
}

fn notification_text(
    method: &Option<std::borrow::Cow<'_, str>>,
    params: Option<&serde_json::value::RawValue>,
    s: &mut Summary,
) -> String {
    match method.as_deref() {
        Some(methods::PROGRESS) => match ProgressView::parse(params) {
            Ok(p) => {
                s.call = format!("tok={}", safe(p.token.get(), 40));
                let message = p.message.as_deref().map(safe_row);
                crate::format::progress(p.progress, p.total, message.as_deref())
            }
            Err(why) => {
                s.class = Class::Problem;
                format!("invalid progress: {}", safe_row(&why.to_string()))
            }
        },
        Some(methods::MESSAGE) => match LogView::parse(params) {
            Ok(l) => {
                let level = match &l.level {
                    Ok(lv) => lv.as_str().to_string(),
                    Err(raw) => {
                        s.class = Class::Problem;
                        format!("{}(invalid)", safe(raw, 20))
                    }
                };
                let logger = l
                    .logger
                    .as_deref()
                    .map(|g| format!(" {}:", safe(g, 40)))
                    .unwrap_or_default();
                format!("{level}{logger} {}", data_one_line(&l))
            }
            Err(why) => {
                s.class = Class::Problem;
                format!("invalid log: {}", safe_row(&why.to_string()))
            }
        },
        Some(methods::CANCELLED) => match CancelledView::parse(params) {
            Some(c) => {
                s.call = format!("id={}", safe(&c.request_id.to_string(), 40));
                c.reason.map(|r| safe_row(&r)).unwrap_or_default()
            }
            None => safe_row(params.map(|p| p.get()).unwrap_or("")),
        },
        Some(methods::TASKS_STATUS | methods::TASKS_NOTIFY) => {
            let p = params.map(|p| p.get()).unwrap_or("");
            crate::tui::tasks::summary(p).unwrap_or_else(|| safe_row(p))
        }
        m => {
            let rest = without_meta(params.map(|p| p.get()).unwrap_or(""));
            if is_empty_object(&rest) {
                // `notifications/initialized`, `…/list_changed`: the method says it all.
                m.map(|m| safe(m, 60)).unwrap_or_default()
            } else {
                safe_row(&rest)
            }
        }
    }
}

/// A log's `data` on one line without parsing huge payloads on every frame.
pub fn data_one_line(l: &LogView<'_>) -> String {
    match l.data {
        Some(raw) if raw.get().len() > 64 * 1024 => safe_row(raw.get()),
        _ => safe_row(&l.data_text()),
    }
}

/// A request's text where it is best said by what it is: the handshake
/// (`initialize asks for 2025-11-25 · mcpscope 0.1.0`, `server/discover
/// 2026-07-28 · mcpscope 0.1.0`), or one whose params are only `_meta`
/// (`tools/list 2026-07-28`: the method, and the revision it speaks).
fn request_text(method: Option<&str>, params: &str) -> Option<String> {
    let method = method?;
    let handshake = matches!(method, methods::INITIALIZE | methods::SERVER_DISCOVER);
    let rest = without_meta(params);
    if !handshake && !is_empty_object(&rest) {
        return None;
    }
    let v: Value = serde_json::from_str(params).unwrap_or(Value::Null);
    let envelope = v.get(meta::META);
    let revision = match method {
        methods::INITIALIZE => v.get("protocolVersion"),
        _ => envelope.and_then(|m| m.get(meta::PROTOCOL_VERSION)),
    }
    .and_then(Value::as_str);
    let client = v
        .get("clientInfo")
        .or_else(|| envelope.and_then(|m| m.get(meta::CLIENT_INFO)));
    let mut out = safe(method, 60);
    if let Some(r) = revision {
        if method == methods::INITIALIZE {
            out.push_str(" asks for");
        }
        out.push(' ');
        out.push_str(&safe(r, 40));
    }
    if handshake && let Some(who) = client.and_then(software) {
        out.push_str(" · ");
        out.push_str(&who);
    }
    Some(out)
}

/// The handshake's answers: `initialize → 2025-11-25 · mcpscope-demo 0.1.0`
/// (the revision agreed on), `server/discover → 2026-07-28 · …` (the
/// revisions the server speaks).
fn handshake_response(method: Option<&str>, result: &str) -> Option<String> {
    let method = method.filter(|m| matches!(*m, methods::INITIALIZE | methods::SERVER_DISCOVER))?;
    let v: Value = serde_json::from_str(result).ok()?;
    let revision = match method {
        methods::INITIALIZE => v
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(|r| safe(r, 40)),
        _ => v
            .get("supportedVersions")
            .and_then(Value::as_array)
            .map(|a| {
                let all: Vec<&str> = a.iter().filter_map(Value::as_str).collect();
                safe(&all.join(", "), 80)
            }),
    };
    let server = v
        .get("serverInfo")
        .or_else(|| v.get(meta::META).and_then(|m| m.get(meta::SERVER_INFO)))
        .and_then(software);
    let mut out = format!("{method} →");
    out.push(' ');
    out.push_str(revision.as_deref().unwrap_or("?"));
    if let Some(s) = server {
        out.push_str(" · ");
        out.push_str(&s);
    }
    Some(out)
}

/// `name version` of a `clientInfo` / `serverInfo`.
fn software(info: &Value) -> Option<String> {
    let name = info.get("name").and_then(Value::as_str)?;
    Some(match info.get("version").and_then(Value::as_str) {
        Some(v) => format!("{} {}", safe(name, 40), safe(v, 20)),
        None => safe(name, 40),
    })
}

/// `{}`, or nothing at all.
fn is_empty_object(json: &str) -> bool {
    let t = json.trim();
    t.is_empty() || t == "null" || (t.starts_with('{') && t[1..].trim_start() == "}")
}

/// A JSON object's text without its top-level `_meta` member (the other
/// members as sent, in order); anything else unchanged. Only a frame that
/// mentions `_meta` is parsed.
pub fn without_meta(json: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    if !json.contains("\"_meta\"") {
        return Cow::Borrowed(json);
    }
    let Ok(Members(members)) = serde_json::from_str::<Members<'_>>(json) else {
        return Cow::Borrowed(json);
    };
    let kept: Vec<String> = members
        .iter()
        .filter(|(k, _)| k != meta::META)
        .map(|(k, v)| format!("{}:{}", Value::from(k.as_str()), v.get()))
        .collect();
    Cow::Owned(format!("{{{}}}", kept.join(",")))
}

/// A JSON object's members in the order sent, their values unparsed.
struct Members<'a>(Vec<(String, &'a serde_json::value::RawValue)>);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<Members<'de>, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) =
                    m.next_entry::<String, &'de serde_json::value::RawValue>()?
                {
                    out.push(entry);
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_is_never_what_a_row_shows() {
        assert_eq!(without_meta(r#"{"a":1}"#), r#"{"a":1}"#);
        assert_eq!(
            without_meta(r#"{"z": [1, 2], "_meta": {"x": "y"}, "a": "_meta"}"#),
            r#"{"z":[1, 2],"a":"_meta"}"#
        );
        assert_eq!(without_meta(r#"{"_meta":{}}"#), "{}");
        assert!(is_empty_object(&without_meta(r#"{ "_meta": {"k": 1} }"#)));
        assert_eq!(without_meta("not json \"_meta\""), "not json \"_meta\"");
    }

    #[test]
    fn an_injected_change_reads_as_a_sentence() {
        let ev = crate::event::Event::Injected {
            rule: 1,
            source: "lose-progress:50%".into(),
            action: "drop".into(),
            stream: "server→host".into(),
            original: r#"{"jsonrpc":"2.0"}"#.into(),
            original_bytes: None,
            sent: None,
            detail: None,
        };
        let bytes = serde_json::to_vec(&ev.to_json()).unwrap();
        let r = EventRef {
            seq: 3,
            t_us: 0,
            dir: Dir::Meta,
            kind: FrameKind::NotJsonRpc,
            channel: "stdio",
            method: Some("injected"),
            flags: 0,
            bytes: &bytes,
            progress: None,
        };
        let s = summarize_frame(&r);
        assert_eq!(s.method, "injected");
        assert_eq!(s.text, "drop by rule 1 (lose-progress:50%) server→host");
    }

    #[test]
    fn the_handshake_says_what_it_agreed() {
        let init = r#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpscope","version":"0.1.0"}}"#;
        assert_eq!(
            request_text(Some("initialize"), init).as_deref(),
            Some("initialize asks for 2025-11-25 · mcpscope 0.1.0")
        );
        let res = r#"{"_meta":{"x":1},"protocolVersion":"2025-06-18","serverInfo":{"name":"srv"}}"#;
        assert_eq!(
            response_text(Some("initialize"), res),
            "initialize → 2025-06-18 · srv"
        );
        assert_eq!(response_text(Some("ping"), "{}"), "ping → ok");
        assert_eq!(
            request_text(Some("tools/list"), r#"{"cursor":"2"}"#),
            None,
            "params besides _meta are shown"
        );
    }
}
