//! A host of the other era than the recording's. A recording made at
//! 2026-07-28 serves a host of the `initialize` handshake, and a recording
//! of the handshake era serves a 2026-07-28 host: the handshake is answered
//! from the other era's (an `initialize` result from the recorded
//! `server/discover`, and the reverse), and each recorded frame is carried
//! over as the host's era has it:
//!
//! - a result gains (2026-07-28 host) or loses (handshake host) its
//!   `resultType: "complete"` and the `serverInfo` its `_meta` carries, and
//!   a listing or a read gains the caching hints 2026-07-28 requires
//!   (`ttlMs: 0`, `cacheScope: "private"`: never reused, since a recording
//!   promises nothing about a later answer);
//! - logs follow the host's own rule: a 2026-07-28 host gets a request's
//!   logs only when the request carried `io.modelcontextprotocol/logLevel`,
//!   at or above it; a handshake host gets those at or above the level its
//!   `logging/setLevel` asked (every recorded one without it);
//! - what one era has and the other lacks is not invented: a recorded
//!   `input_required` result (2026-07-28's input rounds) cannot be given to
//!   a handshake host, which gets an error saying so.
//!
//! Progress, other notifications, server requests and the pace are played
//! as recorded in either direction.

use serde_json::{Map, Value, json};

use super::recording::Recording;
use crate::protocol::meta::{LOG_LEVEL, META, PROTOCOL_VERSION, ResultType, SERVER_INFO};
use crate::protocol::methods;
use crate::protocol::revision::{Era, Revision};
use crate::protocol::views::LogLevel;

/// The era a recording was made in: that of its first handshake message,
/// or of its first request's `_meta` (a 2026-07-28 request names its
/// revision in each request). `None` for a recording of neither (a proxy
/// trace that starts mid-session).
pub fn of_recording(rec: &Recording) -> Option<Era> {
    rec.exchanges.iter().find_map(|e| match e.method.as_str() {
        methods::INITIALIZE => Some(Era::Handshake),
        methods::SERVER_DISCOVER => Some(Era::Stateless),
        _ if e.is_request() => Some(of_request(e.params.as_ref())),
        _ => None,
    })
}

/// The era a host's request speaks: 2026-07-28 when it names its revision
/// in `_meta`, as every request of that era must.
pub fn of_request(params: Option<&Value>) -> Era {
    let named = params
        .and_then(|p| p.get(META))
        .and_then(|m| m.get(PROTOCOL_VERSION))
        .is_some();
    if named {
        Era::Stateless
    } else {
        Era::Handshake
    }
}

/// The level a 2026-07-28 request asked its logs at (`None`: no logs).
pub fn requested_level(params: Option<&Value>) -> Option<LogLevel> {
    params?.get(META)?.get(LOG_LEVEL)?.as_str()?.parse().ok()
}

/// The recorded answer to a handshake message, by method.
fn recorded_result<'a>(rec: &'a Recording, method: &str) -> Option<&'a Map<String, Value>> {
    rec.exchanges
        .iter()
        .filter(|e| e.method == method)
        .flat_map(|e| &e.steps)
        .find_map(|s| match &s.kind {
            super::recording::StepKind::Response(v) => v.get("result")?.as_object(),
            _ => None,
        })
}

/// The server's name and version as a recording of 2026-07-28 has it: in
/// the discover result's `_meta`, or any result's.
fn stateless_server_info(rec: &Recording) -> Value {
    let from = |r: &Map<String, Value>| r.get(META)?.get(SERVER_INFO).cloned();
    recorded_result(rec, methods::SERVER_DISCOVER)
        .and_then(from)
        .or_else(|| {
            rec.exchanges
                .iter()
                .flat_map(|e| &e.steps)
                .find_map(|s| match &s.kind {
                    super::recording::StepKind::Response(v) => from(v.get("result")?.as_object()?),
                    _ => None,
                })
        })
        .unwrap_or_else(|| json!({"name": "mcpscope-mock", "version": env!("CARGO_PKG_VERSION")}))
}

/// An `initialize` result for a handshake host, from a 2026-07-28
/// recording: the recorded capabilities, instructions and server, at the
/// revision the host asked for when it is one of the handshake era
/// (else the newest of it).
pub fn initialize_result(rec: &Recording, params: Option<&Value>) -> Value {
    let discover = recorded_result(rec, methods::SERVER_DISCOVER);
    let asked = params
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str)
        .and_then(Revision::of_handshake)
        .unwrap_or(Revision::LATEST_HANDSHAKE);
    let mut r = json!({
        "protocolVersion": asked.as_str(),
        "capabilities": discover
            .and_then(|d| d.get("capabilities").cloned())
            .unwrap_or_else(|| json!({})),
        "serverInfo": stateless_server_info(rec),
    });
    if let Some(i) = discover.and_then(|d| d.get("instructions")) {
        r["instructions"] = i.clone();
    }
    r
}

/// A `server/discover` result for a 2026-07-28 host, from a recording of
/// the handshake: the recorded capabilities, instructions and server.
pub fn discover_result(rec: &Recording) -> Value {
    let init = recorded_result(rec, methods::INITIALIZE);
    let mut r = json!({
        "supportedVersions": [Revision::V2026_07_28.as_str()],
        "capabilities": init
            .and_then(|i| i.get("capabilities").cloned())
            .unwrap_or_else(|| json!({})),
        "resultType": "complete",
        "ttlMs": 0,
        "cacheScope": "private",
    });
    if let Some(i) = init.and_then(|i| i.get("instructions")) {
        r["instructions"] = i.clone();
    }
    if let Some(s) = init.and_then(|i| i.get("serverInfo")) {
        r[META] = json!({ SERVER_INFO: s });
    }
    r
}

/// The results 2026-07-28 requires caching hints on (SEP-2549).
fn cacheable(method: &str) -> bool {
    matches!(
        method,
        methods::SERVER_DISCOVER
            | methods::TOOLS_LIST
            | methods::RESOURCES_LIST
            | methods::RESOURCE_TEMPLATES_LIST
            | methods::PROMPTS_LIST
            | "resources/read"
    )
}

/// The server's name and version, as a result of the host's era carries
/// it (2026-07-28: in each result's `_meta`).
pub fn server_info(rec: &Recording) -> Value {
    recorded_result(rec, methods::INITIALIZE)
        .and_then(|i| i.get("serverInfo").cloned())
        .unwrap_or_else(|| stateless_server_info(rec))
}

/// A result for `method` as a host of era `to` must get it; `Err` with
/// why it cannot be given.
pub fn shape(
    to: Era,
    method: &str,
    result: &mut Map<String, Value>,
    server: &Value,
) -> Result<(), &'static str> {
    match to {
        Era::Handshake => {
            match result
                .get(ResultType::KEY)
                .and_then(Value::as_str)
                .map(ResultType::parse)
            {
                None | Some(ResultType::Complete) => {}
                Some(_) => return Err(INPUT_REQUIRED),
            }
            result.remove(ResultType::KEY);
            if let Some(Value::Object(meta)) = result.get_mut(META) {
                meta.remove(SERVER_INFO);
                if meta.is_empty() {
                    result.remove(META);
                }
            }
        }
        Era::Stateless => {
            result
                .entry(ResultType::KEY)
                .or_insert_with(|| json!("complete"));
            if cacheable(method) {
                result.entry("ttlMs").or_insert_with(|| json!(0));
                result
                    .entry("cacheScope")
                    .or_insert_with(|| json!("private"));
            }
            if let Value::Object(meta) = result.entry(META).or_insert_with(|| json!({})) {
                meta.entry(SERVER_INFO).or_insert_with(|| server.clone());
            }
        }
    }
    Ok(())
}

/// How one request's recorded frames reach a host of the other era.
#[derive(Debug, Clone)]
pub struct Carry {
    /// The host's era.
    pub to: Era,
    /// The request's method (its result's shape depends on it).
    pub method: String,
    /// The server as the host's era names it in results.
    pub server: std::sync::Arc<Value>,
    /// The least level of log the host gets; `None` with `all_logs` false:
    /// none.
    pub level: Option<LogLevel>,
    /// Every recorded log (a handshake host that asked no level).
    pub all_logs: bool,
}

/// Why a recorded response cannot be carried to a handshake host.
pub const INPUT_REQUIRED: &str = "mcpscope mock: the recorded result asks for input (resultType input_required, 2026-07-28), which a host of the initialize handshake cannot be given";

impl Carry {
    /// The recorded response as the host's era has it; `Err` with why it
    /// cannot be carried over.
    pub fn response(&self, frame: &Value) -> Result<Value, &'static str> {
        let Some(result) = frame.get("result").and_then(Value::as_object) else {
            return Ok(frame.clone());
        };
        let mut result = result.clone();
        shape(self.to, &self.method, &mut result, &self.server)?;
        let mut out = frame.clone();
        out["result"] = Value::Object(result);
        Ok(out)
    }

    /// Whether a recorded frame (a log, or anything else) reaches the host.
    pub fn keeps(&self, frame: &Value) -> bool {
        if frame.get("method").and_then(Value::as_str) != Some(methods::MESSAGE) {
            return true;
        }
        if self.all_logs {
            return true;
        }
        let level = frame
            .get("params")
            .and_then(|p| p.get("level"))
            .and_then(Value::as_str)
            .and_then(|l| l.parse::<LogLevel>().ok());
        match (self.level, level) {
            (Some(least), Some(l)) => l >= least,
            // A level no revision defines: kept when logs were asked at all.
            (Some(_), None) => true,
            (None, _) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::recording::{Exchange, Step, StepKind};
    use super::*;

    fn ex(method: &str, params: Value, result: Value) -> Exchange {
        Exchange {
            seq: 1,
            line: 2,
            t_us: 0,
            method: method.into(),
            id: Some(json!(0)),
            params: Some(params),
            scope: 0,
            steps: vec![Step {
                t_us: 10,
                standalone: false,
                kind: StepKind::Response(json!({"jsonrpc": "2.0", "id": 0, "result": result})),
            }],
        }
    }

    fn stateless() -> Recording {
        Recording {
            exchanges: vec![ex(
                "server/discover",
                json!({"_meta": {PROTOCOL_VERSION: "2026-07-28"}}),
                json!({
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {}, "logging": {}},
                    "instructions": "hi",
                    "_meta": {SERVER_INFO: {"name": "s", "version": "1"}},
                    "resultType": "complete"
                }),
            )],
            ..Default::default()
        }
    }

    fn handshake() -> Recording {
        Recording {
            exchanges: vec![ex(
                "initialize",
                json!({"protocolVersion": "2025-06-18"}),
                json!({
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "h", "version": "2"}
                }),
            )],
            ..Default::default()
        }
    }

    #[test]
    fn each_era_is_told_by_its_handshake_or_its_requests() {
        assert_eq!(of_recording(&stateless()), Some(Era::Stateless));
        assert_eq!(of_recording(&handshake()), Some(Era::Handshake));
        let mut mid = handshake();
        mid.exchanges[0].method = "tools/call".into();
        assert_eq!(of_recording(&mid), Some(Era::Handshake));
        mid.exchanges[0].params = Some(json!({"_meta": {PROTOCOL_VERSION: "2026-07-28"}}));
        assert_eq!(of_recording(&mid), Some(Era::Stateless));
        assert_eq!(of_recording(&Recording::default()), None);
    }

    #[test]
    fn the_handshake_is_answered_from_the_other_eras() {
        let init = initialize_result(
            &stateless(),
            Some(&json!({"protocolVersion": "2025-03-26"})),
        );
        assert_eq!(
            init,
            json!({
                "protocolVersion": "2025-03-26",
                "capabilities": {"tools": {}, "logging": {}},
                "serverInfo": {"name": "s", "version": "1"},
                "instructions": "hi"
            })
        );
        // A revision the host asks that is not of the handshake era.
        let init = initialize_result(
            &stateless(),
            Some(&json!({"protocolVersion": "2030-01-01"})),
        );
        assert_eq!(init["protocolVersion"], "2025-11-25");
        let d = discover_result(&handshake());
        assert_eq!(
            d,
            json!({
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}},
                "resultType": "complete",
                "ttlMs": 0,
                "cacheScope": "private",
                "_meta": {SERVER_INFO: {"name": "h", "version": "2"}}
            })
        );
    }

    #[test]
    fn results_and_logs_are_carried_as_the_hosts_era_has_them() {
        let server = std::sync::Arc::new(json!({"name": "s"}));
        let to_old = Carry {
            to: Era::Handshake,
            method: "tools/call".into(),
            server: server.clone(),
            level: Some(LogLevel::Warning),
            all_logs: false,
        };
        let modern = json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [], "resultType": "complete",
            "_meta": {SERVER_INFO: {"name": "s"}}
        }});
        assert_eq!(
            to_old.response(&modern).unwrap(),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}})
        );
        let asks = json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "input_required", "inputRequests": {}}});
        assert_eq!(to_old.response(&asks), Err(INPUT_REQUIRED));
        let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "x"}});
        assert_eq!(to_old.response(&error).unwrap(), error);

        let to_new = Carry {
            to: Era::Stateless,
            method: "tools/call".into(),
            server: server.clone(),
            level: None,
            all_logs: false,
        };
        let old = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}});
        assert_eq!(
            to_new.response(&old).unwrap()["result"],
            json!({"content": [], "resultType": "complete", "_meta": {SERVER_INFO: {"name": "s"}}})
        );
        // A listing gains the caching hints 2026-07-28 requires.
        let listing = Carry {
            method: "tools/list".into(),
            ..to_new.clone()
        };
        let r = listing
            .response(&json!({"id": 1, "result": {"tools": []}}))
            .unwrap();
        assert_eq!(
            (&r["result"]["ttlMs"], &r["result"]["cacheScope"]),
            (&json!(0), &json!("private"))
        );
        let log = |level: &str| json!({"method": "notifications/message", "params": {"level": level, "data": 1}});
        let progress = json!({"method": "notifications/progress", "params": {}});
        // No level asked at 2026-07-28: no logs, progress still.
        assert!(!to_new.keeps(&log("error")));
        assert!(to_new.keeps(&progress));
        assert!(to_old.keeps(&log("error")) && !to_old.keeps(&log("info")));
        let all = Carry {
            all_logs: true,
            ..to_new.clone()
        };
        assert!(all.keeps(&log("debug")));
        assert_eq!(
            requested_level(Some(&json!({"_meta": {LOG_LEVEL: "notice"}}))),
            Some(LogLevel::Notice)
        );
    }
}
