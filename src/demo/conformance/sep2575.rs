//! The diagnostics of the suite's `server-stateless` scenario (SEP-2575)
//! that are not `input_required` fixtures: `test_logging_tool`, which logs
//! only when the request asked for a log level, and `subscriptions/listen`,
//! the 2026-07-28 change stream; plus `test_header_param`, whose argument
//! travels in an `Mcp-Param-*` header too (SEP-2243). They exist only for
//! stateless requests.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::super::era::Modern;
use super::super::out::{Link, Out, notification_line};
use super::super::session::{Level, Session, id_key};
use super::super::{INVALID_PARAMS, INVALID_REQUEST};
use super::watch;

pub const LOGGING_TOOL: &str = "test_logging_tool";
/// A tool with an `x-mcp-header` argument, for the suite's
/// `http-custom-header-server-validation`.
pub const HEADER_TOOL: &str = "test_header_param";
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

pub fn logging_tool_descriptor() -> Value {
    json!({
        "name": LOGGING_TOOL,
        "title": "Conformance: stateless logging",
        "description": "Logs three messages, which a request without _meta logLevel must not receive",
        "inputSchema": {"type": "object", "properties": {}},
    })
}

pub fn header_tool_descriptor() -> Value {
    json!({
            "name": HEADER_TOOL,
            "title": "Conformance: Mcp-Param header",
            "description": "Echoes its region, which the HTTP transport mirrors into the Mcp-Param-Region header (SEP-2243)",
            "inputSchema": {
                "type": "object",
                "properties": {"region": {
                    "type": "string",
                    "description": "Any text; sent again as the Mcp-Param-Region header",
                    "x-mcp-header": "Region",
                }},
                "required": ["region"],
            },
    })
}

/// `test_header_param`: the headers were checked before the call (over
/// HTTP); the call itself only says what it got.
pub fn header_tool(params: &Map<String, Value>) -> Value {
    let region = params
        .get("arguments")
        .and_then(|a| a.get("region"))
        .and_then(Value::as_str)
        .unwrap_or("");
    json!({
        "content": [{"type": "text", "text": format!("Region: {region}")}],
        "isError": false,
    })
}

/// `test_logging_tool`: its logs go out before the result, and only at or
/// above the level the request named (none when it named none).
pub fn logging_tool(out: &Out, modern: &Modern) -> Value {
    let wanted = modern
        .log_level
        .is_some_and(|min| Level::Info as u8 >= min as u8);
    if wanted {
        for message in [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ] {
            out.send(notification_line(
                "notifications/message",
                json!({"level": Level::Info.as_str(), "logger": "conformance", "data": message}),
            ));
        }
    }
    json!({
        "content": [{"type": "text", "text": "Tool with logging executed successfully"}],
        "isError": false,
    })
}

/// `subscriptions/listen`: acknowledge at once, then keep the stream open
/// (as a cancellable call of its own) until the client goes away. Of the
/// notification types the fixtures announce only resource subscriptions
/// apply: the stream carries the acknowledgement, then
/// `notifications/resources/updated` for the URIs it asked for whenever
/// `test_touch_resource` marks one changed, and nothing the client did not ask for.
pub fn listen(session: &Session, out: &Out, id: &Value, params: &Map<String, Value>) {
    let requested = params.get("notifications").and_then(Value::as_object);
    let uris: Option<HashSet<String>> = requested
        .and_then(|r| r.get("resourceSubscriptions"))
        .and_then(Value::as_array)
        .map(|u| {
            u.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        });
    if uris.as_ref().is_some_and(|u| u.len() > watch::MAX_URIS) {
        return out.error(
            id,
            INVALID_PARAMS,
            &format!(
                "too many resourceSubscriptions: at most {}",
                watch::MAX_URIS
            ),
        );
    }
    let mut granted = Map::new();
    if let Some(uris) = &uris {
        let mut list: Vec<&String> = uris.iter().collect();
        list.sort();
        granted.insert("resourceSubscriptions".into(), json!(list));
    }
    let key = id_key(id);
    let Some(gate) = session.begin_call(&key) else {
        return out.error(
            id,
            INVALID_REQUEST,
            "request id is already in use by a running call",
        );
    };
    let link = Link::new(out.clone(), gate.clone());
    if let Some(uris) = uris.filter(|u| !u.is_empty())
        && !session.watchers.add(
            Link::new(out.clone(), gate.clone()),
            out.clone(),
            id.clone(),
            uris,
        )
    {
        session.end_call(&key, &gate);
        return out.error(
            id,
            INVALID_REQUEST,
            &format!(
                "too many listen streams open: at most {}",
                watch::MAX_LISTENERS
            ),
        );
    }
    // The request's id names the subscription: it is what the client can
    // match its notifications against.
    link.send(notification_line(
        "notifications/subscriptions/acknowledged",
        json!({"notifications": granted, "_meta": {SUBSCRIPTION_ID: id}}),
    ));
    let task = tokio::spawn(async move {
        let _open = link;
        std::future::pending::<()>().await;
    });
    session.attach_task(&key, &gate, task.abort_handle());
}
