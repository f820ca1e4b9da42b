//! `auth login`'s last step: the new token shown to the MCP server in one
//! `initialize` before anyone is told it works. The MCP spec has a server
//! answer a token it does not take with 401 (403 when its scope is too
//! small); any other answer got past authorization, whatever the server
//! made of the rest, so only the status is read (the body may be an SSE
//! stream that does not end). A session the server opened for the request
//! is closed again.

use super::challenge::Challenge;
use super::fetch::{FetchError, Fetcher};
use reqwest::header::{
    ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, WWW_AUTHENTICATE,
};
use reqwest::{Method, Url};
use serde_json::json;

const SESSION_ID: &str = "mcp-session-id";
const PROTOCOL_VERSION: &str = "mcp-protocol-version";

/// What the server made of the token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It answered with this status, past authorization.
    Accepted(u16),
    /// It refused the token: the status (401 or 403) and the challenge's
    /// `error`, if it named one.
    Refused(u16, Option<String>),
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Accepted(status) => {
                write!(f, "the server took the token (HTTP {status} to initialize)")
            }
            Verdict::Refused(status, None) => {
                write!(f, "the server refused the token (HTTP {status})")
            }
            Verdict::Refused(status, Some(error)) => write!(
                f,
                "the server refused the token (HTTP {status}, {})",
                crate::protocol::sanitize::one_line(error)
            ),
        }
    }
}

/// Send `initialize` to `server` with `authorization` (and the user's own
/// `extra` headers, which the server may need as much).
pub async fn check(
    f: &Fetcher,
    server: &Url,
    authorization: &str,
    extra: &[(String, String)],
) -> Result<Verdict, FetchError> {
    let revision = crate::protocol::revision::Revision::LATEST_HANDSHAKE.as_str();
    let body = json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": revision,
            "capabilities": {},
            "clientInfo": {"name": "mcpscope", "version": env!("CARGO_PKG_VERSION")},
        },
    });
    let mut h = headers(extra, authorization);
    h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    h.insert(
        ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    let a = f
        .status_only(
            "check",
            Method::POST,
            server.clone(),
            h,
            Some(body.to_string().into_bytes()),
        )
        .await?;
    let status = a.status.as_u16();
    if matches!(status, 401 | 403) {
        let challenges = a
            .headers
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok());
        return Ok(Verdict::Refused(status, Challenge::parse(challenges).error));
    }
    if let Some(id) = a.headers.get(SESSION_ID) {
        close_session(f, server, authorization, extra, id.clone(), revision).await;
    }
    Ok(Verdict::Accepted(status))
}

/// DELETE the session the check opened; whatever the answer, the check is done.
async fn close_session(
    f: &Fetcher,
    server: &Url,
    authorization: &str,
    extra: &[(String, String)],
    id: HeaderValue,
    revision: &'static str,
) {
    let mut h = headers(extra, authorization);
    h.insert(SESSION_ID, id);
    h.insert(PROTOCOL_VERSION, HeaderValue::from_static(revision));
    let _ = f
        .status_only("check", Method::DELETE, server.clone(), h, None)
        .await;
}

/// The user's headers that are valid HTTP, then the token (which wins over
/// an `Authorization` among them).
fn headers(extra: &[(String, String)], authorization: &str) -> HeaderMap {
    let mut h = HeaderMap::new();
    for (k, v) in extra {
        if let (Ok(k), Ok(v)) = (
            HeaderName::from_bytes(k.as_bytes()),
            HeaderValue::from_str(v),
        ) {
            h.insert(k, v);
        }
    }
    if let Ok(mut v) = HeaderValue::from_str(authorization) {
        v.set_sensitive(true);
        h.insert(AUTHORIZATION, v);
    }
    h
}
