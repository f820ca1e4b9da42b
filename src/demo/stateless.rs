//! The 2026-07-28 rules of the Streamable HTTP transport for stateless
//! requests, which every server must apply (with or without `--conformance`):
//! the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers must agree
//! with the body, the `_meta` envelope must be complete and name a version
//! the server speaks, and errors map to HTTP statuses (400 for a rejected
//! request, 404 for an unknown method), and a tool's `x-mcp-header`
//! arguments must arrive in their `Mcp-Param-*` headers. The handshake-era requests of the
//! same endpoint are not touched by any of this.

use hyper::StatusCode;
use hyper::header::HeaderMap;
use serde_json::{Map, Value, json};

use super::era::{self, MODERN};
use super::{INVALID_PARAMS, METHOD_NOT_FOUND};
use crate::protocol::Revision;
use crate::protocol::mcp_param;
use crate::protocol::meta::{self, PROTOCOL_VERSION as META_VERSION};

/// A header disagrees with the body, or a required header is missing.
pub const HEADER_MISMATCH: i64 = -32020;
/// The request needs a client capability its `_meta` did not declare.
pub const MISSING_CAPABILITY: i64 = -32021;
/// The requested protocol version is not one the server speaks.
pub const UNSUPPORTED_VERSION: i64 = -32022;

const VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";

/// Why a stateless request is refused before it is served.
#[derive(Debug)]
pub struct Rejection {
    pub status: StatusCode,
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl Rejection {
    fn bad(code: i64, message: impl Into<String>) -> Self {
        Rejection {
            status: StatusCode::BAD_REQUEST,
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The JSON-RPC error response, echoing the request's id.
    pub fn body(&self, id: &Value) -> Value {
        let mut error = json!({"code": self.code, "message": self.message});
        if let Some(data) = &self.data {
            error["data"] = data.clone();
        }
        json!({"jsonrpc": "2.0", "id": id, "error": error})
    }
}

/// A header's value without the optional whitespace around it (RFC 9110
/// §5.5: it is not part of the value).
fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim_matches([' ', '\t']))
}

/// Whether a POST belongs to the stateless era: its `_meta` names
/// 2026-07-28, or — with no session to belong to — its version header names
/// anything but a handshake-era revision. The latter catches stateless
/// requests whose envelope is missing or wrong, so they are rejected by the
/// rules of their era instead of being taken for a session-less legacy call.
pub fn is_stateless(
    headers: &HeaderMap,
    has_session: bool,
    params: Option<&Map<String, Value>>,
) -> bool {
    if params.is_some_and(|p| era::of_request(p).is_some()) {
        return true;
    }
    !has_session
        && header(headers, VERSION_HEADER).is_some_and(|v| Revision::of_handshake(v).is_none())
}

/// What `check` needs to know about the server: the `inputSchema`-carrying
/// descriptor of a tool, for its `x-mcp-header` parameters.
pub type ToolLookup<'a> = &'a dyn Fn(&str) -> Option<Value>;

/// The checks of a stateless request, in the order the reference mock server
/// of the conformance suite applies them: version header, envelope, version
/// agreement, supported version, then the method and name headers.
pub fn check(
    headers: &HeaderMap,
    method: &str,
    params: Option<&Map<String, Value>>,
    tool: ToolLookup,
) -> Result<(), Rejection> {
    let Some(version) = header(headers, VERSION_HEADER) else {
        return Err(Rejection::bad(
            HEADER_MISMATCH,
            "Header mismatch: missing MCP-Protocol-Version header",
        ));
    };
    let missing = era::missing_meta_keys(params);
    if !missing.is_empty() {
        return Err(Rejection::bad(
            INVALID_PARAMS,
            format!("Invalid params: _meta lacks {}", missing.join(", ")),
        ));
    }
    let in_envelope = |key: &str| params?.get(meta::META)?.get(key);
    let requested = match in_envelope(META_VERSION) {
        Some(Value::String(v)) => v.as_str(),
        _ => {
            return Err(Rejection::bad(
                INVALID_PARAMS,
                format!("Invalid params: _meta {META_VERSION} must be a string"),
            ));
        }
    };
    if requested != version {
        return Err(Rejection::bad(
            HEADER_MISMATCH,
            format!("Header mismatch: MCP-Protocol-Version {version} but _meta names {requested}"),
        ));
    }
    if requested.parse::<Revision>().ok() != Some(MODERN) {
        return Err(Rejection {
            data: Some(json!({"supported": [MODERN.as_str()], "requested": requested})),
            ..Rejection::bad(
                UNSUPPORTED_VERSION,
                format!(
                    "Unsupported protocol version {requested}: this endpoint speaks {MODERN} statelessly"
                ),
            )
        });
    }
    // Values are compared exactly: method names are case-sensitive.
    match header(headers, METHOD_HEADER) {
        Some(m) if m == method => {}
        Some(m) => {
            return Err(Rejection::bad(
                HEADER_MISMATCH,
                format!("Header mismatch: Mcp-Method {m} but the body's method is {method}"),
            ));
        }
        None => {
            return Err(Rejection::bad(
                HEADER_MISMATCH,
                "Header mismatch: missing Mcp-Method header",
            ));
        }
    }
    // The tasks extension: "When tasks/get, tasks/update, or tasks/cancel is
    // sent over the Streamable HTTP transport, the client MUST set the
    // Mcp-Name header to the value of params.taskId."
    let named = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    };
    if let Some(field) = named {
        let body = params.and_then(|p| p.get(field)).and_then(Value::as_str);
        let raw = header(headers, NAME_HEADER);
        let head = raw.map(decode_value).transpose().map_err(|()| {
            Rejection::bad(
                HEADER_MISMATCH,
                "Header mismatch: Mcp-Name is not valid =?base64?...?= encoding",
            )
        })?;
        if body != head.as_deref() {
            return Err(Rejection::bad(
                HEADER_MISMATCH,
                format!(
                    "Header mismatch: Mcp-Name {} but the body's {field} is {}",
                    raw.unwrap_or("(missing)"),
                    body.unwrap_or("(missing)")
                ),
            ));
        }
    }
    if method == "tools/call"
        && let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str)
        && let Some(descriptor) = tool(name)
    {
        check_params(
            headers,
            &descriptor,
            params.and_then(|p| p.get("arguments")),
        )?;
    }
    Ok(())
}

/// SEP-2243: every argument the tool's schema mirrors into an
/// `Mcp-Param-{Name}` header must arrive in that header too, with the same
/// value, and a header must not carry a value the body does not have.
fn check_params(
    headers: &HeaderMap,
    descriptor: &Value,
    args: Option<&Value>,
) -> Result<(), Rejection> {
    // A tool whose annotations are invalid has no headers a client could send.
    let Ok(decls) = mcp_param::tool_headers(descriptor) else {
        return Ok(());
    };
    let empty = json!({});
    let args = args.unwrap_or(&empty);
    for decl in &decls {
        // What the body holds, as the header would spell it (decoded back,
        // because a client may or may not Base64-wrap a plain value).
        let body = mcp_param::headers_for(std::slice::from_ref(decl), args)
            .pop()
            .map(|(_, encoded)| decode_value(&encoded).unwrap_or(encoded));
        let header_name = format!("{}{}", mcp_param::PREFIX, decl.name);
        let raw = header(headers, &header_name.to_ascii_lowercase());
        let sent = raw.map(decode_value).transpose().map_err(|()| {
            Rejection::bad(
                HEADER_MISMATCH,
                format!("Header mismatch: {header_name} is not valid =?base64?...?= encoding"),
            )
        })?;
        if sent != body {
            return Err(Rejection::bad(
                HEADER_MISMATCH,
                format!(
                    "Header mismatch: {header_name} {} but the argument is {}",
                    raw.unwrap_or("(missing)"),
                    body.as_deref().unwrap_or("(missing)")
                ),
            ));
        }
    }
    Ok(())
}

/// A header value as sent: `=?base64?…?=` is UTF-8 in canonical Base64
/// (anything else in that wrapper is an error, not a literal); without the
/// whole wrapper the value is taken literally.
fn decode_value(raw: &str) -> Result<String, ()> {
    use base64::Engine as _;
    let Some(inner) = raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    else {
        return Ok(raw.to_string());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(inner)
        .map_err(|_| ())?;
    String::from_utf8(bytes).map_err(|_| ())
}

/// The HTTP status a stateless request's error response must carry, for
/// the errors whose status the transport fixes; `None` keeps it on its
/// `200` stream like any other answer.
pub fn status_of(code: i64) -> Option<StatusCode> {
    match code {
        METHOD_NOT_FOUND => Some(StatusCode::NOT_FOUND),
        HEADER_MISMATCH | MISSING_CAPABILITY | UNSUPPORTED_VERSION => Some(StatusCode::BAD_REQUEST),
        _ => None,
    }
}
