//! One-line descriptions of stored events for the timeline (and the lane):
//! direction, kind, method, id/token and what the event says. Works from the
//! raw frame of one visible row at a time; never scans the store.

use super::format::{safe, safe_row};
use crate::protocol::frame::FrameKind;
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
    pub ids: String,
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

/// Summarise one event. Cost is proportional to that event's bytes.
pub fn summarize(ev: &EventRef<'_>) -> Summary {
    match ev.dir {
        Dir::Stderr => Summary {
            kind: "stderr",
            method: String::new(),
            ids: String::new(),
            text: safe_row(&ev.text()),
            class: Class::Stderr,
        },
        Dir::Meta => Summary {
            kind: "meta",
            method: ev.method.unwrap_or("meta").to_string(),
            ids: String::new(),
            text: meta_text(ev),
            class: Class::Meta,
        },
        Dir::In | Dir::Out => message(ev),
    }
}

fn meta_text(ev: &EventRef<'_>) -> String {
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
        ids: id.clone().unwrap_or_default(),
        text: String::new(),
        class: Class::Notification,
    };
    let params = f.params.map(|p| p.get()).unwrap_or("");
    match f.kind {
        FrameKind::Request => {
            s.kind = "req";
            s.class = Class::Request;
            if let Some(t) = f.progress_token() {
                s.ids.push_str(&format!(" tok={}", safe(t.get(), 40)));
            }
            let task = f
                .method
                .as_deref()
                .is_some_and(|m| m.starts_with("tasks/"))
                .then(|| crate::tui::tasks::summary(params))
                .flatten();
            s.text = if let Some(t) = task {
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
                safe_row(params)
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
    let tasky = method.is_some_and(|m| m.starts_with("tasks/") && m != methods::TASKS_RESULT);
    if (tasky || method == Some(methods::TOOLS_CALL))
        && let Some(t) = crate::tui::tasks::summary(result)
    {
        return t;
    }
    if method != Some(methods::TOOLS_CALL) {
        return safe_row(result);
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
                s.ids = format!("tok={}", safe(p.token.get(), 40));
                let message = p.message.as_deref().map(safe_row);
                crate::format::progress(p.progress, p.total, message.as_deref())
            }
            Err(why) => {
                s.class = Class::Problem;
                format!("invalid progress: {}", safe_row(&why))
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
                format!("invalid log: {}", safe_row(&why))
            }
        },
        Some(methods::CANCELLED) => match CancelledView::parse(params) {
            Some(c) => {
                s.ids = format!("id={}", safe(&c.request_id.to_string(), 40));
                c.reason.map(|r| safe_row(&r)).unwrap_or_default()
            }
            None => safe_row(params.map(|p| p.get()).unwrap_or("")),
        },
        Some(methods::TASKS_STATUS | methods::TASKS_NOTIFY) => {
            let p = params.map(|p| p.get()).unwrap_or("");
            crate::tui::tasks::summary(p).unwrap_or_else(|| safe_row(p))
        }
        _ => safe_row(params.map(|p| p.get()).unwrap_or("")),
    }
}

/// A log's `data` on one line without parsing huge payloads on every frame.
pub fn data_one_line(l: &LogView<'_>) -> String {
    match l.data {
        Some(raw) if raw.get().len() > 64 * 1024 => safe_row(raw.get()),
        _ => safe_row(&l.data_text()),
    }
}
