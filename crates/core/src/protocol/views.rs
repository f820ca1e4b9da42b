//! Typed views of the params and results mcpscope interprets. Views borrow from
//! the frame where the hot path (progress) needs it, and report what is wrong
//! instead of failing when a server sends something malformed.

use super::id::IdKey;
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

// Kept under this name for the checks that print numbers from views; the
// definition lives with the rest of the number formatting.

/// Deserialises `T` from a JSON object only. serde's derived structs also
/// accept an array of their fields in order (`["tok", 1, 2]` would read as a
/// token, a progress and a total), which MCP params never are.
pub(crate) struct ObjectOnly<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for V<T> {
            type Value = T;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
            .map(ObjectOnly)
    }
}

/// `notifications/progress` params.
#[derive(Debug, Clone)]
pub struct ProgressView<'a> {
    /// The token as raw JSON text (compare by bytes on the hot path).
    pub token: &'a RawValue,
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
struct ProgressWire<'a> {
    #[serde(borrow, rename = "progressToken")]
    token: &'a RawValue,
    progress: f64,
    #[serde(default)]
    total: Option<f64>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
}

/// Why the params of a progress or log notification cannot be read: which
/// member is missing or malformed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ViewError {
    #[error("progress notification without params")]
    NoProgressParams,
    #[error("progress params are not an object")]
    ProgressNotObject,
    #[error("progress params lack {0}")]
    ProgressLacks(&'static str),
    /// The token as it was written.
    #[error("progressToken {0} is not a string or an integer")]
    ProgressToken(String),
    #[error("{member} {value} is not a number")]
    NotANumber { member: &'static str, value: Value },
    #[error("message {0} is not a string")]
    MessageNotString(Value),
    #[error("progress params are malformed")]
    ProgressMalformed,
    #[error("log message without params")]
    NoLogParams,
    #[error("log params need a string \"level\" (and optional string \"logger\")")]
    LogMalformed,
}

impl<'a> ProgressView<'a> {
    /// Parse progress params; `Err` explains which field is malformed.
    pub fn parse(params: Option<&'a RawValue>) -> Result<ProgressView<'a>, ViewError> {
        let params = params.ok_or(ViewError::NoProgressParams)?;
        match serde_json::from_str::<ObjectOnly<ProgressWire<'a>>>(params.get()) {
            Ok(ObjectOnly(w)) => {
                let key = IdKey::from_raw(w.token.get());
                if !key.is_valid() {
                    return Err(ViewError::ProgressToken(key.to_string()));
                }
                Ok(ProgressView {
                    token: w.token,
                    progress: w.progress,
                    total: w.total,
                    message: w.message,
                })
            }
            Err(_) => Err(explain_progress(params.get())),
        }
    }

    pub fn token_key(&self) -> IdKey {
        IdKey::from_raw(self.token.get())
    }
}

fn explain_progress(raw: &str) -> ViewError {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(raw) else {
        return ViewError::ProgressNotObject;
    };
    match map.get("progressToken") {
        None => return ViewError::ProgressLacks("progressToken"),
        Some(Value::String(_)) => {}
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => {}
        Some(other) => return ViewError::ProgressToken(other.to_string()),
    }
    match map.get("progress") {
        None => return ViewError::ProgressLacks("progress"),
        Some(Value::Number(_)) => {}
        Some(value) => {
            return ViewError::NotANumber {
                member: "progress",
                value: value.clone(),
            };
        }
    }
    match map.get("total") {
        None | Some(Value::Number(_)) => {}
        Some(value) => {
            return ViewError::NotANumber {
                member: "total",
                value: value.clone(),
            };
        }
    }
    match map.get("message") {
        None | Some(Value::String(_)) => {}
        Some(other) => return ViewError::MessageNotString(other.clone()),
    }
    ViewError::ProgressMalformed
}

/// RFC 5424 levels as MCP uses them, in increasing severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum LogLevel {
    Debug = 0,
    Info = 1,
    Notice = 2,
    Warning = 3,
    Error = 4,
    Critical = 5,
    Alert = 6,
    Emergency = 7,
}

impl LogLevel {
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for LogLevel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        LogLevel::ALL
            .into_iter()
            .find(|l| l.as_str() == s)
            .ok_or_else(|| {
                format!("unknown log level {s:?} (debug, info, notice, warning, error, critical, alert, emergency)")
            })
    }
}

/// `notifications/message` params.
#[derive(Debug, Clone)]
pub struct LogView<'a> {
    /// `Err(raw)` when the level is not one of the eight RFC 5424 names.
    pub level: Result<LogLevel, Cow<'a, str>>,
    pub logger: Option<Cow<'a, str>>,
    pub data: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct LogWire<'a> {
    #[serde(borrow)]
    level: Cow<'a, str>,
    #[serde(borrow, default)]
    logger: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    data: Option<&'a RawValue>,
}

impl<'a> LogView<'a> {
    pub fn parse(params: Option<&'a RawValue>) -> Result<LogView<'a>, ViewError> {
        let params = params.ok_or(ViewError::NoLogParams)?;
        let ObjectOnly(w): ObjectOnly<LogWire<'a>> =
            serde_json::from_str(params.get()).map_err(|_| ViewError::LogMalformed)?;
        Ok(LogView {
            level: w.level.parse().map_err(|_| w.level),
            logger: w.logger,
            data: w.data,
        })
    }

    /// `data` on one line: strings bare, anything else as compact JSON.
    pub fn data_text(&self) -> String {
        match self.data {
            None => String::new(),
            Some(raw) => match serde_json::from_str::<Value>(raw.get()) {
                Ok(Value::String(s)) => s,
                Ok(v) => v.to_string(),
                Err(_) => raw.get().to_string(),
            },
        }
    }
}

/// `notifications/cancelled` params.
#[derive(Debug, Clone)]
pub struct CancelledView {
    pub request_id: IdKey,
    pub reason: Option<String>,
}

impl CancelledView {
    pub fn parse(params: Option<&RawValue>) -> Option<CancelledView> {
        let v: Value = serde_json::from_str(params?.get()).ok()?;
        Some(CancelledView {
            request_id: IdKey::from_value(v.get("requestId")?),
            reason: v.get("reason").and_then(Value::as_str).map(str::to_string),
        })
    }
}

/// What the server said about itself in `initialize` (or `server/discover`).
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize, PartialEq)]
pub struct InitializeResult {
    #[serde(rename = "protocolVersion", default)]
    pub protocol_version: String,
    #[serde(default)]
    pub capabilities: Value,
    #[serde(rename = "serverInfo", default)]
    pub server_info: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

impl InitializeResult {
    /// A 2026-07-28 `server/discover` result as the handshake's answer: the
    /// era's one revision, and the server's name in `_meta` (the result has
    /// no `serverInfo` field).
    pub fn from_discovery(r: &Value) -> InitializeResult {
        InitializeResult {
            protocol_version: super::Revision::V2026_07_28.to_string(),
            capabilities: r
                .get("capabilities")
                .cloned()
                .unwrap_or(serde_json::json!({})),
            server_info: r
                .get(super::meta::META)
                .and_then(|m| m.get(super::meta::SERVER_INFO))
                .cloned()
                .unwrap_or(serde_json::json!({})),
            instructions: r
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
        }
    }

    /// Whether the server named itself (`serverInfo.name`).
    pub fn names_server(&self) -> bool {
        self.server_info
            .get("name")
            .and_then(Value::as_str)
            .is_some()
    }

    pub fn has_capability(&self, name: &str) -> bool {
        self.capabilities.get(name).is_some_and(|v| !v.is_null())
    }

    pub fn server_name(&self) -> &str {
        self.server_info
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("?")
    }

    pub fn server_version(&self) -> &str {
        self.server_info
            .get("version")
            .and_then(Value::as_str)
            .unwrap_or("")
    }
}

/// One page of `tools/list`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ToolsPage {
    #[serde(default)]
    pub tools: Vec<Value>,
    #[serde(rename = "nextCursor", default)]
    pub next_cursor: Option<String>,
}

/// Whether a result says `isError: true`. Only that field is read: a
/// result can be large, and this is asked of every one.
pub fn result_is_error(result: &RawValue) -> bool {
    #[derive(Deserialize)]
    struct Outcome {
        #[serde(rename = "isError", default)]
        is_error: Option<Value>,
    }
    serde_json::from_str::<Outcome>(result.get())
        .ok()
        .and_then(|o| o.is_error)
        .and_then(|v| v.as_bool())
        == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_error_is_read_from_a_result_of_any_shape() {
        assert!(result_is_error(&raw(
            r#"{"content":[{"type":"text","text":"x"}],"isError":true}"#
        )));
        assert!(!result_is_error(&raw(r#"{"content":[],"isError":false}"#)));
        assert!(!result_is_error(&raw(r#"{"isError":"yes"}"#)));
        assert!(!result_is_error(&raw(r#"{"content":[]}"#)));
        assert!(!result_is_error(&raw("[1]")));
    }

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_string()).unwrap()
    }

    #[test]
    fn progress_views() {
        let p = raw(r#"{"progressToken":"t1","progress":2.5,"total":10,"message":"hi"}"#);
        let v = ProgressView::parse(Some(&p)).unwrap();
        assert_eq!(v.token.get(), "\"t1\"");
        assert_eq!(v.progress, 2.5);
        assert_eq!(v.total, Some(10.0));
        assert_eq!(v.message.as_deref(), Some("hi"));

        for (bad, why) in [
            (
                r#"{"progressToken":1.5,"progress":1}"#,
                "not a string or an integer",
            ),
            (r#"{"progressToken":"a","progress":"1"}"#, "not a number"),
            (r#"{"progressToken":"a","progress":1,"total":"9"}"#, "total"),
            (
                r#"{"progressToken":"a","progress":1,"message":3}"#,
                "message",
            ),
            (r#"{"progress":1}"#, "lack progressToken"),
            (r#"["a",1,2]"#, "not an object"),
            (r#"["a",1]"#, "not an object"),
        ] {
            let err = ProgressView::parse(Some(&raw(bad))).unwrap_err();
            assert!(err.to_string().contains(why), "{bad}: {err}");
        }
    }

    #[test]
    fn log_views() {
        let p = raw(r#"{"level":"warning","logger":"tracker","data":{"a":1}}"#);
        let v = LogView::parse(Some(&p)).unwrap();
        assert_eq!(v.level, Ok(LogLevel::Warning));
        assert_eq!(v.data_text(), r#"{"a":1}"#);
        let p = raw(r#"{"level":"verbose","data":"x"}"#);
        let v = LogView::parse(Some(&p)).unwrap();
        assert!(v.level.is_err());
        assert_eq!(v.data_text(), "x");
        assert!(LogView::parse(Some(&raw(r#"["info","l","d"]"#))).is_err());
        assert!(LogLevel::Debug < LogLevel::Emergency);
    }
}
