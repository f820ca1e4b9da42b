//! Lenient classification of one frame from its raw bytes.
//!
//! The fast path deserialises a borrowed envelope (no allocation for the common
//! case); anything unusual falls back to a `serde_json::Value` parse so the
//! classification can explain what is wrong. Classification never fails: every
//! input, including invalid UTF-8 and NUL bytes, gets a `FrameKind`.

use super::id::IdKey;
use super::views::ObjectOnly;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// What a frame is. Stored as one byte per event in the trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum FrameKind {
    Request = 0,
    Notification = 1,
    Response = 2,
    ErrorResponse = 3,
    /// A JSON array of messages (2025-03-26 batches); elements are classified separately.
    Batch = 4,
    /// Valid JSON that is not a valid JSON-RPC 2.0 message.
    NotJsonRpc = 5,
    /// Valid UTF-8 that is not JSON.
    NotJson = 6,
    /// Bytes that are not UTF-8 (and therefore not JSON).
    InvalidUtf8 = 7,
    /// An empty or whitespace-only line.
    Empty = 8,
}

impl FrameKind {
    pub fn from_u8(v: u8) -> FrameKind {
        match v {
            0 => FrameKind::Request,
            1 => FrameKind::Notification,
            2 => FrameKind::Response,
            3 => FrameKind::ErrorResponse,
            4 => FrameKind::Batch,
            5 => FrameKind::NotJsonRpc,
            6 => FrameKind::NotJson,
            7 => FrameKind::InvalidUtf8,
            _ => FrameKind::Empty,
        }
    }

    /// The frame parsed as JSON (so a recording can embed it verbatim).
    pub fn is_json(self) -> bool {
        !matches!(
            self,
            FrameKind::NotJson | FrameKind::InvalidUtf8 | FrameKind::Empty
        )
    }

    /// A well-formed JSON-RPC message.
    pub fn is_message(self) -> bool {
        matches!(
            self,
            FrameKind::Request
                | FrameKind::Notification
                | FrameKind::Response
                | FrameKind::ErrorResponse
        )
    }

    pub fn label(self) -> &'static str {
        match self {
            FrameKind::Request => "request",
            FrameKind::Notification => "notification",
            FrameKind::Response => "response",
            FrameKind::ErrorResponse => "error",
            FrameKind::Batch => "batch",
            FrameKind::NotJsonRpc => "not-jsonrpc",
            FrameKind::NotJson => "not-json",
            FrameKind::InvalidUtf8 => "invalid-utf8",
            FrameKind::Empty => "empty",
        }
    }
}

/// A classified frame, borrowing from the raw bytes where it can.
#[derive(Debug, Clone)]
pub struct Frame<'a> {
    pub kind: FrameKind,
    pub method: Option<Cow<'a, str>>,
    pub id: Option<IdKey>,
    pub params: Option<&'a RawValue>,
    pub result: Option<&'a RawValue>,
    pub error: Option<&'a RawValue>,
    /// Why a frame is not a valid message (for `NotJsonRpc`, `NotJson`, `InvalidUtf8`).
    pub problem: Option<String>,
    /// Elements of a batch, each as raw JSON text.
    pub batch: Vec<&'a RawValue>,
}

impl<'a> Frame<'a> {
    fn new(kind: FrameKind) -> Frame<'a> {
        Frame {
            kind,
            method: None,
            id: None,
            params: None,
            result: None,
            error: None,
            problem: None,
            batch: Vec::new(),
        }
    }

    fn invalid(kind: FrameKind, problem: impl Into<String>) -> Frame<'a> {
        let mut f = Frame::new(kind);
        f.problem = Some(problem.into());
        f
    }

    /// The `_meta.progressToken` of a request's params, as raw JSON.
    pub fn progress_token(&self) -> Option<&'a RawValue> {
        #[derive(Deserialize)]
        struct Meta<'b> {
            #[serde(borrow, rename = "progressToken")]
            token: Option<&'b RawValue>,
        }
        #[derive(Deserialize)]
        struct P<'b> {
            #[serde(borrow, rename = "_meta")]
            meta: Option<Meta<'b>>,
        }
        let params = self.params?;
        serde_json::from_str::<P<'a>>(params.get())
            .ok()?
            .meta?
            .token
    }
}

/// Deserialise a field that may be `null` but whose presence matters
/// (`"id": null`, `"result": null`).
fn present<'de, D>(d: D) -> Result<Option<&'de RawValue>, D::Error>
where
    D: Deserializer<'de>,
{
    <&RawValue>::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// The hot path of a flood: a frame that is exactly a well-formed
/// `notifications/progress` is recognised and its params read in one parse.
/// `None` means "classify it the general way" — never "it is invalid".
pub fn well_formed_progress(bytes: &[u8]) -> Option<super::views::ProgressView<'_>> {
    #[derive(Deserialize)]
    struct Wire<'a> {
        #[serde(borrow)]
        jsonrpc: &'a str,
        #[serde(borrow)]
        method: &'a str,
        #[serde(borrow)]
        params: ObjectOnly<ProgressParams<'a>>,
        #[serde(borrow, default, deserialize_with = "present")]
        id: Option<&'a RawValue>,
        #[serde(borrow, default, deserialize_with = "present")]
        result: Option<&'a RawValue>,
        #[serde(borrow, default, deserialize_with = "present")]
        error: Option<&'a RawValue>,
    }
    // What most servers write, byte for byte: the envelope's keys and values
    // are known, so only the params are parsed, and the frame must end right
    // after them (no further key). Anything else takes the general parse.
    let text = std::str::from_utf8(bytes).ok()?;
    if let Some(rest) = text.strip_prefix(COMPACT_PROGRESS) {
        let inner = rest.trim_end_matches(JSON_WS).strip_suffix('}')?;
        let mut de = serde_json::Deserializer::from_str(inner);
        let ObjectOnly(params) = ObjectOnly::<ProgressParams<'_>>::deserialize(&mut de).ok()?;
        de.end().ok()?;
        return valid_token(params);
    }
    let ObjectOnly(w): ObjectOnly<Wire<'_>> = serde_json::from_str(text).ok()?;
    let ObjectOnly(params) = w.params;
    if w.jsonrpc != "2.0"
        || w.method != super::methods::PROGRESS
        || w.id.is_some()
        || w.result.is_some()
        || w.error.is_some()
    {
        return None;
    }
    valid_token(params)
}

/// How a progress notification starts when written compactly in the usual
/// key order, as most servers write it.
pub const COMPACT_PROGRESS: &str =
    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":"#;

/// JSON's insignificant whitespace (RFC 8259 `ws`).
const JSON_WS: &[char] = &[' ', '\t', '\n', '\r'];

/// The params as a view, if their token is a valid one.
fn valid_token(params: ProgressParams<'_>) -> Option<super::views::ProgressView<'_>> {
    if !IdKey::raw_is_valid(params.token.get()) {
        return None;
    }
    Some(super::views::ProgressView {
        token: params.token,
        progress: params.progress,
        total: params.total,
        message: params.message,
    })
}

#[derive(Deserialize)]
struct ProgressParams<'a> {
    #[serde(borrow, rename = "progressToken")]
    token: &'a RawValue,
    progress: f64,
    #[serde(default)]
    total: Option<f64>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
}

/// Classify one frame (a line without its terminator).
pub fn classify(bytes: &[u8]) -> Frame<'_> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Frame::new(FrameKind::Empty);
    }
    // Checked up front: serde_json skips over the raw parts of a message
    // (params, result) without validating their UTF-8.
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            return Frame::invalid(
                FrameKind::InvalidUtf8,
                format!("invalid UTF-8 at byte {}", e.valid_up_to()),
            );
        }
    };
    if let Some(rest) = text.strip_prefix('\u{FEFF}') {
        return after_bom(rest);
    }
    match serde_json::from_str::<ObjectOnly<Envelope<'_>>>(text) {
        Ok(ObjectOnly(env)) => classify_envelope(env),
        Err(_) => classify_slow(text),
    }
}

/// JSON text must not start with a byte order mark (RFC 8259 §8.1), so the
/// frame is not JSON; what follows the mark is still read for its id and
/// method, so an answer to a pending request can be recognised and reported.
fn after_bom(rest: &str) -> Frame<'_> {
    let inner = classify(rest.as_bytes());
    let mut why = "a byte order mark (U+FEFF) precedes the JSON".to_string();
    if let Some(p) = &inner.problem {
        why.push_str("; then: ");
        why.push_str(p);
    }
    let mut f = Frame::invalid(FrameKind::NotJson, why);
    f.id = inner.id;
    f.method = inner.method;
    f
}

fn classify_envelope(env: Envelope<'_>) -> Frame<'_> {
    let mut f = Frame::new(FrameKind::NotJsonRpc);
    if env.jsonrpc.as_deref() != Some("2.0") {
        f.problem = Some(match env.jsonrpc {
            None => "missing \"jsonrpc\": \"2.0\"".into(),
            Some(v) => format!("\"jsonrpc\" is {v:?}, expected \"2.0\""),
        });
        f.method = env.method;
        f.id = env.id.map(|r| IdKey::from_raw(r.get()));
        return f;
    }
    let id = env.id.map(|r| IdKey::from_raw(r.get()));
    f.params = env.params;
    f.result = env.result;
    f.error = env.error;
    match (env.method, id) {
        (Some(method), id) => {
            f.method = Some(method);
            if env.result.is_some() || env.error.is_some() {
                f.problem =
                    Some("a message with \"method\" must not carry \"result\" or \"error\"".into());
                f.id = id;
                return f;
            }
            match id {
                None => f.kind = FrameKind::Notification,
                Some(id) if id.is_valid() => {
                    f.kind = FrameKind::Request;
                    f.id = Some(id);
                }
                Some(id) => {
                    f.problem = Some(format!("request id {id} is not a string or an integer"));
                    f.id = Some(id);
                }
            }
        }
        (None, Some(id)) => {
            let valid_id = id.is_valid();
            let null_id = matches!(&id, IdKey::Other(raw) if raw.as_ref() == "null");
            f.id = Some(id);
            match (env.result.is_some(), env.error) {
                (true, None) if valid_id => f.kind = FrameKind::Response,
                (false, Some(err)) if valid_id || null_id => {
                    if error_object_ok(err) {
                        f.kind = FrameKind::ErrorResponse;
                    } else {
                        f.problem = Some("\"error\" must be an object with an integer \"code\" and a string \"message\"".into());
                    }
                }
                (true, Some(_)) => {
                    f.problem =
                        Some("a response must not carry both \"result\" and \"error\"".into())
                }
                (false, None) => {
                    f.problem = Some(
                        "a message with an id needs \"method\", \"result\" or \"error\"".into(),
                    )
                }
                _ => {
                    f.problem = Some(format!(
                        "response id {} is not a string or an integer",
                        f.id.as_ref().map(ToString::to_string).unwrap_or_default()
                    ))
                }
            }
        }
        (None, None) => {
            f.problem = Some(
                "neither \"method\" nor \"id\": not a request, notification or response".into(),
            );
        }
    }
    f
}

fn error_object_ok(err: &RawValue) -> bool {
    #[derive(Deserialize)]
    struct E<'a> {
        #[allow(dead_code)]
        code: i64,
        #[serde(borrow)]
        #[allow(dead_code)]
        message: Cow<'a, str>,
    }
    serde_json::from_str::<E<'_>>(err.get()).is_ok()
}

fn classify_slow(text: &str) -> Frame<'_> {
    if let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(text) {
        let mut f = Frame::new(FrameKind::Batch);
        if items.is_empty() {
            f.kind = FrameKind::NotJsonRpc;
            f.problem = Some("empty batch".into());
        }
        f.batch = items;
        return f;
    }
    match serde_json::from_str::<Value>(text) {
        Err(e) => Frame::invalid(FrameKind::NotJson, format!("not JSON: {e}")),
        Ok(Value::Object(map)) => {
            // The typed envelope failed on a field of the wrong type or a duplicate key.
            let mut f = Frame::new(FrameKind::NotJsonRpc);
            f.id = map.get("id").map(IdKey::from_value);
            let duplicate = duplicate_key(text);
            let problem = match map.get("method") {
                _ if duplicate.is_some() => {
                    f.method = map
                        .get("method")
                        .and_then(Value::as_str)
                        .map(|m| Cow::Owned(m.to_string()));
                    format!("duplicate key {:?}", duplicate.unwrap_or_default())
                }
                Some(Value::String(m)) => {
                    f.method = Some(Cow::Owned(m.clone()));
                    match map.get("jsonrpc") {
                        Some(Value::String(v)) if v == "2.0" => {
                            "a field has the wrong type or appears twice".to_string()
                        }
                        _ => "\"jsonrpc\" must be the string \"2.0\"".to_string(),
                    }
                }
                Some(other) => format!("\"method\" must be a string, got {}", json_type(other)),
                None => match map.get("jsonrpc") {
                    Some(Value::String(v)) if v == "2.0" => {
                        "a field has the wrong type or appears twice".to_string()
                    }
                    _ => "\"jsonrpc\" must be the string \"2.0\"".to_string(),
                },
            };
            f.problem = Some(problem);
            f
        }
        Ok(other) => Frame::invalid(
            FrameKind::NotJsonRpc,
            format!("JSON {} is not a JSON-RPC message", json_type(&other)),
        ),
    }
}

/// Every value of top-level `key` in a JSON object text, in order (more
/// than one when the key is written twice).
pub fn values_of_key(text: &str, key: &str) -> Vec<Value> {
    struct Values<'k>(&'k str, Vec<Value>);
    impl<'de> serde::de::Visitor<'de> for &mut Values<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(k) = map.next_key::<Cow<'de, str>>()? {
                if k == self.0 && self.1.len() < 16 {
                    self.1.push(map.next_value::<Value>()?);
                } else {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
            Ok(())
        }
    }
    let mut v = Values(key, Vec::new());
    let mut de = serde_json::Deserializer::from_str(text);
    let _ = serde::Deserializer::deserialize_map(&mut de, &mut v);
    v.1
}

/// The first top-level key that appears twice in a JSON object.
fn duplicate_key(text: &str) -> Option<String> {
    struct Keys(Option<String>);
    impl<'de> serde::de::Visitor<'de> for &mut Keys {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = std::collections::HashSet::new();
            while let Some(k) = map.next_key::<Cow<'de, str>>()? {
                map.next_value::<serde::de::IgnoredAny>()?;
                if self.0.is_none() && !seen.insert(k.clone()) {
                    self.0 = Some(k.into_owned());
                }
            }
            Ok(())
        }
    }
    let mut keys = Keys(None);
    let mut de = serde_json::Deserializer::from_str(text);
    serde::Deserializer::deserialize_map(&mut de, &mut keys).ok()?;
    keys.0
}

/// `a number`, `an array`: a JSON type in a sentence.
pub fn json_type_article(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_of_inputs() {
        let big = {
            let mut v = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":""#.to_vec();
            v.extend(std::iter::repeat_n(b'x', 10 * 1024 * 1024));
            v.extend_from_slice(br#""}}"#);
            v
        };
        let cases: Vec<(&[u8], FrameKind)> = vec![
            (b"", FrameKind::Empty),
            (b"   \t", FrameKind::Empty),
            (
                br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
                FrameKind::Request,
            ),
            (
                br#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#,
                FrameKind::Request,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                FrameKind::NotJsonRpc,
            ),
            (
                br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                FrameKind::NotJsonRpc,
            ),
            (
                br#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
                FrameKind::NotJsonRpc,
            ),
            (
                br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
                FrameKind::NotJsonRpc,
            ),
            (
                br#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
                FrameKind::NotJsonRpc,
            ),
            (
                br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#,
                FrameKind::Notification,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
                FrameKind::Response,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1,"result":null}"#,
                FrameKind::Response,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"x"}}"#,
                FrameKind::ErrorResponse,
            ),
            (
                br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}"#,
                FrameKind::ErrorResponse,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}"#,
                FrameKind::NotJsonRpc,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}"#,
                FrameKind::NotJsonRpc,
            ),
            (br#"{"jsonrpc":"2.0","id":1}"#, FrameKind::NotJsonRpc),
            (br#"{"id":1,"method":"ping"}"#, FrameKind::NotJsonRpc),
            (
                br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
                FrameKind::NotJsonRpc,
            ),
            (
                br#"{"jsonrpc":2,"id":1,"method":"ping"}"#,
                FrameKind::NotJsonRpc,
            ),
            (br#"{"jsonrpc":"2.0","method":5}"#, FrameKind::NotJsonRpc),
            (
                br#"{"jsonrpc":"2.0","jsonrpc":"2.0","method":"x"}"#,
                FrameKind::NotJsonRpc,
            ),
            (
                br#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":2,"result":{}}]"#,
                FrameKind::Batch,
            ),
            (b"[]", FrameKind::NotJsonRpc),
            (b"42", FrameKind::NotJsonRpc),
            (b"\"hello\"", FrameKind::NotJsonRpc),
            (b"null", FrameKind::NotJsonRpc),
            (br#"{"jsonrpc":"2.0","id":1,"resu"#, FrameKind::NotJson),
            (b"Starting server on port 3000...", FrameKind::NotJson),
            (b"\x1b[31mred\x1b[0m", FrameKind::NotJson),
            (b"\0\0\0", FrameKind::NotJson),
            (
                b"{\"jsonrpc\":\"2.0\",\"method\":\"a\0\"}",
                FrameKind::NotJson,
            ),
            (b"\xff\xfe{}", FrameKind::InvalidUtf8),
            (
                b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
                FrameKind::NotJson,
            ),
            (br#"["2.0",1,"ping"]"#, FrameKind::Batch),
            (
                br#"{"jsonrpc":"2.0","id":1,"result":{},"result":{}}"#,
                FrameKind::NotJsonRpc,
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"method\":\"\xc3\x28\"}",
                FrameKind::InvalidUtf8,
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{\"data\":\"\xff\"}}",
                FrameKind::InvalidUtf8,
            ),
            (&big, FrameKind::Notification),
        ];
        for (input, want) in cases {
            let f = classify(input);
            assert_eq!(
                f.kind,
                want,
                "input {:?}",
                String::from_utf8_lossy(&input[..input.len().min(80)])
            );
            if !f.kind.is_message() && !matches!(f.kind, FrameKind::Empty | FrameKind::Batch) {
                assert!(
                    f.problem.is_some(),
                    "no problem text for {:?}",
                    String::from_utf8_lossy(input)
                );
            }
        }
    }

    #[test]
    fn batch_elements_and_fields() {
        let f =
            classify(br#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":2,"result":{}}]"#);
        assert_eq!(f.batch.len(), 2);
        assert_eq!(
            classify(f.batch[0].get().as_bytes()).kind,
            FrameKind::Notification
        );
        assert_eq!(
            classify(f.batch[1].get().as_bytes()).id,
            Some(IdKey::Int(2))
        );

        let r = classify(br#"{"jsonrpc":"2.0","id":"x\"y","method":"tools/call","params":{"_meta":{"progressToken":7}}}"#);
        assert_eq!(r.id, Some(IdKey::Str("x\"y".into())));
        assert_eq!(r.method.as_deref(), Some("tools/call"));
        assert_eq!(r.progress_token().map(|t| t.get()), Some("7"));
    }

    #[test]
    fn damaged_answers_still_name_their_id_and_what_is_wrong() {
        let bom = classify(b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
        assert_eq!(bom.id, Some(IdKey::Int(1)));
        assert!(bom.problem.unwrap().contains("byte order mark"));
        let dup = classify(br#"{"jsonrpc":"2.0","id":1,"result":{},"result":{"a":1}}"#);
        assert_eq!(dup.id, Some(IdKey::Int(1)));
        assert_eq!(dup.problem.as_deref(), Some("duplicate key \"result\""));
        let dup = classify(br#"{"jsonrpc":"2.0","jsonrpc":"2.0","method":"x"}"#);
        assert_eq!(dup.method.as_deref(), Some("x"));
        assert_eq!(dup.problem.as_deref(), Some("duplicate key \"jsonrpc\""));
        // An array is a batch, never a message whose fields are read in order.
        let arr = classify(br#"["2.0",1,"ping"]"#);
        assert_eq!((arr.kind, arr.method), (FrameKind::Batch, None));
    }

    #[test]
    fn the_progress_fast_path_agrees_with_the_general_path() {
        let cases: &[(&[u8], bool)] = &[
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2,"message":"m"}}"#, true),
            (br#"{"method":"notifications/progress","jsonrpc":"2.0","params":{"progress":1.5,"progressToken":7}}"#, true),
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1},"id":3}"#, false),
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1.5,"progress":1}}"#, false),
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":"1"}}"#, false),
            (br#"{"jsonrpc":"1.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#, false),
            (br#"{"jsonrpc":"2.0","method":"notifications/message","params":{"progressToken":"t","progress":1}}"#, false),
            (br#"{"jsonrpc":"2.0","jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#, false),
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":["t",1,2]}"#, false),
            (b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":1,\"message\":\"\xff\"}}", false),
            // The compact envelope, and what may or may not follow its params.
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"message":"a}b"} }  "#, true),
            (b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":1}}\r", true),
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}}"#, false),
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}} x"#, false),
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1},"id":null}"#, false),
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1},}"#, false),
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"progress":2}}"#, false),
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":["t",1]}"#, false),
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}"#, false),
            (br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":null,"progress":1}}"#, false),
        ];
        for (bytes, fast) in cases {
            let got = well_formed_progress(bytes);
            assert_eq!(got.is_some(), *fast, "{}", String::from_utf8_lossy(bytes));
            if let Some(p) = got {
                let f = classify(bytes);
                assert_eq!(f.kind, FrameKind::Notification);
                assert_eq!(f.method.as_deref(), Some("notifications/progress"));
                let q = crate::protocol::views::ProgressView::parse(f.params).unwrap();
                assert_eq!(
                    (p.token.get(), p.progress, p.total, p.message),
                    (q.token.get(), q.progress, q.total, q.message)
                );
            }
        }
    }
}
