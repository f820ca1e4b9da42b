//! The diagnostics of the suite's `server-stateless` scenario (SEP-2575)
//! that are not `input_required` fixtures: `test_logging_tool`, which logs
//! only when the request asked for a log level (`subscriptions/listen`, the
//! 2026-07-28 change stream, is the server's own: `demo::listen`); plus
//! `test_header_param`, whose argument
//! travels in an `Mcp-Param-*` header too (SEP-2243). They exist only for
//! stateless requests.

use serde_json::{Map, Value, json};

use super::super::era::Modern;
use super::super::out::{Out, notification_line};
use super::super::session::Level;

pub const LOGGING_TOOL: &str = "test_logging_tool";
/// A tool with an `x-mcp-header` argument, for the suite's
/// `http-custom-header-server-validation`.
pub const HEADER_TOOL: &str = "test_header_param";

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
