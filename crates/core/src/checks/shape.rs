//! What a response must look like beyond JSON-RPC's envelope: an MCP result
//! is an object, an error names its request, and the initialize result names
//! a protocol version the client can speak. Also the small wording helpers
//! every finding message shares.

use crate::protocol::Revision;
use crate::protocol::frame::json_type_article;
use crate::protocol::sanitize::one_line;
use serde_json::Value;
use serde_json::value::RawValue;

/// Why a response's `result` is not an MCP result, if it is not.
pub fn result_not_object(result: Option<&RawValue>) -> Option<String> {
    let raw = result?.get();
    if raw.starts_with('{') {
        return None;
    }
    let what = serde_json::from_str::<Value>(raw)
        .map(|v| json_type_article(&v))
        .unwrap_or("not JSON a client can read");
    Some(format!(
        "the result is {what}, not an object; every MCP result is a JSON object"
    ))
}

/// The finding message for an error response with `id: null`.
pub fn null_id_error(error: Option<&RawValue>) -> String {
    let err: Value = error
        .and_then(|e| serde_json::from_str(e.get()).ok())
        .unwrap_or(Value::Null);
    let code = err.get("code").map_or("?".into(), Value::to_string);
    let message = err.get("message").and_then(Value::as_str).unwrap_or("");
    format!(
        "an error response with id null (code {code}: {:?}): the server could not tell which request it answers, which JSON-RPC allows only for a request it could not parse",
        one_line(message)
    )
}

/// An error response's `code`, when it has an integer one.
pub(super) fn error_code(error: Option<&RawValue>) -> Option<i64> {
    let err: Value = serde_json::from_str(error?.get()).ok()?;
    err.get("code")?.as_i64()
}

/// The `protocolVersion` an initialize request offered.
pub(super) fn offered_version(params: Option<&RawValue>) -> Option<String> {
    let v: Value = serde_json::from_str(params?.get()).ok()?;
    v.get("protocolVersion")?.as_str().map(str::to_owned)
}

/// Why an initialize result's `protocolVersion` cannot be spoken, if it cannot:
/// it must be the version offered, or another the client supports.
pub(super) fn unsupported_version(offered: Option<&str>, result: &Value) -> Option<String> {
    let Some(got) = result.get("protocolVersion") else {
        return Some("the initialize result names no protocolVersion".into());
    };
    let Some(got) = got.as_str() else {
        return Some(format!(
            "the initialize result's protocolVersion {} is not a string",
            one_line(&got.to_string())
        ));
    };
    if Some(got) == offered || got.parse::<Revision>().is_ok() || Revision::is_newer_than_known(got)
    {
        return None;
    }
    let offered = offered.map_or(String::new(), |o| format!(" (the client offered {o})"));
    Some(format!(
        "the server answered initialize with protocolVersion {:?}, which the client did not offer and does not support{offered}; the session goes on at the offered revision",
        one_line(got)
    ))
}

/// An initialize result naming a revision newer than mcpscope knows: not
/// wrong (a newer server), but what it adds cannot be judged.
pub(super) fn newer_version(offered: Option<&str>, result: &Value) -> Option<String> {
    let got = result.get("protocolVersion")?.as_str()?;
    if Some(got) == offered || !Revision::is_newer_than_known(got) {
        return None;
    }
    let at = offered.map_or(String::new(), |o| {
        format!(" at {o}, the revision it offered")
    });
    Some(format!(
        "the server answered initialize with protocolVersion {:?}, newer than any revision mcpscope knows (the newest is {}): what that revision adds is not judged, and the session goes on{at}",
        one_line(got),
        Revision::ALL[Revision::ALL.len() - 1].as_str()
    ))
}

// Durations in findings read as prose; the checks name it `secs`.
pub(super) use crate::format::duration_prose as secs;

pub(super) fn article(l: crate::protocol::views::LogLevel) -> &'static str {
    use crate::protocol::views::LogLevel;
    match l {
        LogLevel::Info | LogLevel::Error | LogLevel::Alert | LogLevel::Emergency => "an",
        _ => "a",
    }
}

pub(super) fn preview(bytes: &[u8]) -> String {
    let t = String::from_utf8_lossy(bytes);
    let mut s: String = t.chars().take(60).collect();
    if t.chars().count() > 60 {
        s.push('…');
    }
    format!("{:?}", one_line(&s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.into()).unwrap()
    }

    #[test]
    fn shapes() {
        assert_eq!(result_not_object(Some(&raw("{}"))), None);
        assert!(
            result_not_object(Some(&raw("5")))
                .unwrap()
                .contains("a number")
        );
        assert!(
            result_not_object(Some(&raw("null")))
                .unwrap()
                .contains("null")
        );
        assert!(result_not_object(Some(&raw("[1e999]"))).is_some());
        let m = null_id_error(Some(&raw(
            r#"{"code":-32700,"message":"Parse\u001b error"}"#,
        )));
        assert!(m.contains("-32700") && m.contains("Parse␛ error"), "{m}");
        let v = |p: &str| json!({"protocolVersion": p});
        let offered = Some("2025-11-25");
        assert_eq!(unsupported_version(offered, &v("2025-11-25")), None);
        assert_eq!(unsupported_version(offered, &v("2025-03-26")), None);
        assert_eq!(
            unsupported_version(Some("2099-01-01"), &v("2099-01-01")),
            None
        );
        assert!(
            unsupported_version(offered, &v("1999-01-01"))
                .unwrap()
                .contains("1999-01-01")
        );
        assert!(unsupported_version(offered, &json!({})).is_some());
        assert!(unsupported_version(offered, &json!({"protocolVersion": 3})).is_some());
    }
}
