//! The demo server's side of the 2026-07-28 stateless era: a request that
//! carries the `_meta` envelope is answered without any handshake, logs only
//! at the level that request asked for, and its results say `resultType`.

use crate::protocol::Revision;
use crate::protocol::meta::{self, ResultType};
use serde_json::{Map, Value, json};

use super::session::Level;

pub const MODERN: Revision = Revision::V2026_07_28;

/// What a stateless request said about itself.
#[derive(Debug, Clone)]
pub struct Modern {
    pub capabilities: Option<Value>,
    /// `None`: the request asked for no logs, so it gets none.
    pub log_level: Option<Level>,
    /// A retry after `input_required`: the client's answers by key, and the
    /// state the server handed out (as sent; a tool verifies it).
    pub input_responses: Option<Value>,
    pub request_state: Option<Value>,
}

/// `Some` when the request's `_meta` names the 2026-07-28 revision.
pub fn of_request(params: &Map<String, Value>) -> Option<Modern> {
    let envelope = params.get(meta::META)?;
    let version = envelope.get(meta::PROTOCOL_VERSION).and_then(Value::as_str);
    if version.and_then(|v| v.parse::<Revision>().ok()) != Some(MODERN) {
        return None;
    }
    Some(Modern {
        capabilities: envelope.get(meta::CLIENT_CAPABILITIES).cloned(),
        log_level: envelope
            .get(meta::LOG_LEVEL)
            .and_then(Value::as_str)
            .and_then(|s| s.parse().ok()),
        input_responses: params.get("inputResponses").cloned(),
        request_state: params.get("requestState").cloned(),
    })
}

/// Methods of the handshake era that 2026-07-28 removed: a stateless request
/// for one of them is "method not found", however the older eras answer it.
const REMOVED: [&str; 5] = [
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
];

pub fn removed(method: &str) -> bool {
    REMOVED.contains(&method)
}

/// The `_meta` keys every stateless request must carry that `params` lacks
/// (`clientInfo` is only a SHOULD, so it is never required).
pub fn missing_meta_keys(params: Option<&Map<String, Value>>) -> Vec<&'static str> {
    let envelope = params.and_then(|p| p.get(meta::META));
    [meta::PROTOCOL_VERSION, meta::CLIENT_CAPABILITIES]
        .into_iter()
        .filter(|k| envelope.and_then(|m| m.get(*k)).is_none_or(Value::is_null))
        .collect()
}

/// Mark a result of a stateless request as complete (and say who answered).
pub fn complete(era: &Option<Modern>, mut result: Value) -> Value {
    if era.is_some()
        && let Value::Object(map) = &mut result
    {
        // A result that already says what it is (`input_required`) keeps it.
        map.entry(ResultType::KEY)
            .or_insert_with(|| json!(ResultType::Complete.as_str()));
        let envelope = map.entry(meta::META).or_insert_with(|| json!({}));
        if let Value::Object(envelope) = envelope {
            envelope.insert(meta::SERVER_INFO.into(), server_info());
        }
    }
    result
}

/// Caching hints (SEP-2549) that 2026-07-28 requires on list and read
/// results: `ttlMs: 0` and `private`, i.e. "do not reuse", because the demo
/// makes no promise that a later answer is the same.
pub fn cacheable(era: &Option<Modern>, mut result: Value) -> Value {
    if era.is_some()
        && let Value::Object(map) = &mut result
    {
        map.entry("ttlMs").or_insert_with(|| json!(0));
        map.entry("cacheScope").or_insert_with(|| json!("private"));
    }
    result
}

pub fn server_info() -> Value {
    json!({"name": "mcpscope-demo", "version": env!("CARGO_PKG_VERSION")})
}

/// `server/discover`: what `initialize` says in the handshake era.
pub fn discover_result(instructions: &str, capabilities: Value) -> Value {
    json!({
        "supportedVersions": [MODERN.as_str()],
        "capabilities": capabilities,
        "instructions": instructions,
        ResultType::KEY: ResultType::Complete.as_str(),
        meta::META: {meta::SERVER_INFO: server_info()},
    })
}
