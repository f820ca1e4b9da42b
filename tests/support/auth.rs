//! The authorization fixture: one loopback server that is both an MCP
//! server and its authorization server, and misbehaves on request
//! ([`Fault`]), with what it saw; and running the real binary against it.
#![allow(dead_code)]

use super::http::{Reply, Req, raw_server};
use super::{Run, headless};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Fault {
    None,
    MetadataHtml,
    WrongIssuer,
    RedirectElsewhere,
    TokenHangs,
    RegistrationRefused,
    WrongState,
    NoS256,
    /// The token endpoint answers after a while (a person taking their time).
    SlowToken,
    /// Dynamic registration hands out [`HOSTILE`] as the client id.
    HostileClientId,
    /// The authorization redirect carries an `error` and an
    /// `error_description` that are [`HOSTILE`].
    HostileCallbackError,
    /// The token endpoint refuses with an OAuth error body of [`HOSTILE`] text.
    HostileTokenError,
    /// The registration endpoint refuses with an OAuth error body of
    /// [`HOSTILE`] text.
    HostileRegistrationError,
    /// The token endpoint answers 200 with this content type and body; a
    /// JSON string `access_token` in it is the token the MCP endpoint takes.
    TokenAnswer(&'static str, &'static str),
    /// The authorization server metadata names this endpoint
    /// (`authorization_endpoint`, `token_endpoint`, `registration_endpoint`)
    /// at [`REMOTE_HTTP`]; `issuer`: the resource metadata names an
    /// authorization server there.
    RemoteHttp(&'static str),
    /// The MCP endpoint refuses every token, the newly issued ones too.
    RefusesTokens,
}

/// What a hostile authorization server puts in its strings: OSC 52 (set
/// the clipboard), OSC 0 (set the window title), CSI 2J (clear the screen)
/// and U+202E (reverse what follows).
pub const HOSTILE: &str =
    "pwn\x1b]52;c;Y3VybCBldmlsLnNofHNo\x07\x1b]0;owned\x07\x1b[2J\u{202E}gnp.exe";

/// A plain-http host that is not loopback (TEST-NET-1, RFC 5737: nothing
/// answers there, and no name needs resolving).
pub const REMOTE_HTTP: &str = "http://192.0.2.1";

/// Fail if `text` holds a raw escape, bell, C1 control or bidi override.
pub fn assert_no_raw_controls(what: &str, text: &str) {
    for raw in ['\x1b', '\x07', '\u{9b}', '\u{202E}'] {
        assert!(
            !text.contains(raw),
            "{what}: {raw:?} reached the terminal raw in\n{text:?}"
        );
    }
}

/// Fail unless `text` shows [`HOSTILE`] as its visible stand-ins, with
/// none of its raw escapes, bells or bidi overrides.
pub fn assert_sanitised(what: &str, text: &str) {
    assert_no_raw_controls(what, text);
    assert!(
        text.contains("pwn␛]52;c;") && text.contains("<U+202E>gnp.exe"),
        "{what}: the hostile text is not shown, sanitised, in\n{text}"
    );
}

/// Percent-encode everything but unreserved characters (RFC 3986 §2.3).
pub fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// What the fixture saw and what it accepts.
#[derive(Default)]
pub struct Seen {
    pub authorizations: AtomicU32,
    pub registrations: AtomicU32,
    pub refreshes: AtomicU32,
    /// The access token the MCP endpoint accepts now.
    pub valid: Mutex<Option<String>>,
    pub issued: AtomicU32,
    /// Every Authorization header the MCP endpoint got.
    pub bearers: Mutex<Vec<String>>,
    /// The last authorization request's client_id and redirect_uri.
    pub authorized: Mutex<(String, String)>,
}

pub fn base(r: &Req) -> String {
    format!("http://{}", r.header("host").unwrap_or("127.0.0.1"))
}

/// `a=b&c=d` of a request target, percent-decoded.
pub fn query(path: &str) -> Vec<(String, String)> {
    let q = path.split_once('?').map_or("", |(_, q)| q);
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

pub fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b[i], hex) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub fn json_reply(status: u16, v: Value) -> Reply {
    Reply::Body(status, "application/json", v.to_string())
}

pub fn server(fault: Fault) -> (u16, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let s = seen.clone();
    let port = raw_server(move |r| handle(r, fault, &s));
    (port, seen)
}

pub fn handle(r: &Req, fault: Fault, seen: &Seen) -> Reply {
    let b = base(r);
    let path = r.path.split('?').next().unwrap_or("");
    match (r.method.as_str(), path) {
        ("POST", "/mcp") => mcp(r, &b, fault, seen),
        ("GET", "/.well-known/oauth-protected-resource/mcp") => {
            let issuer = if fault == Fault::RemoteHttp("issuer") {
                REMOTE_HTTP.to_string()
            } else {
                b.clone()
            };
            json_reply(
                200,
                json!({"resource": format!("{b}/mcp"), "authorization_servers": [issuer],
                       "scopes_supported": ["mcp:tools"]}),
            )
        }
        ("GET", "/.well-known/oauth-authorization-server") => match fault {
            Fault::MetadataHtml => Reply::Body(
                200,
                "text/html",
                "<html><body>Please log in</body></html>".into(),
            ),
            Fault::RedirectElsewhere => Reply::With(
                302,
                vec![(
                    "location".into(),
                    // Another host name for the same machine: another origin.
                    b.replace("127.0.0.1", "localhost") + "/.well-known/elsewhere",
                )],
                String::new(),
            ),
            _ => {
                let issuer = if fault == Fault::WrongIssuer {
                    "https://impostor.example".to_string()
                } else {
                    b.clone()
                };
                let methods = if fault == Fault::NoS256 {
                    json!(["plain"])
                } else {
                    json!(["S256"])
                };
                let at = |field: &str| match fault {
                    Fault::RemoteHttp(f) if f == field => REMOTE_HTTP,
                    _ => b.as_str(),
                };
                json_reply(
                    200,
                    json!({
                        "issuer": issuer,
                        "authorization_endpoint": format!("{}/authorize", at("authorization_endpoint")),
                        "token_endpoint": format!("{}/token", at("token_endpoint")),
                        "registration_endpoint": format!("{}/register", at("registration_endpoint")),
                        "response_types_supported": ["code"],
                        "code_challenge_methods_supported": methods,
                        "token_endpoint_auth_methods_supported": ["none"],
                    }),
                )
            }
        },
        ("POST", "/register") => {
            seen.registrations.fetch_add(1, Ordering::SeqCst);
            match fault {
                Fault::RegistrationRefused => json_reply(
                    400,
                    json!({"error": "invalid_client_metadata",
                           "error_description": "registration is closed"}),
                ),
                Fault::HostileRegistrationError => {
                    json_reply(400, json!({"error": HOSTILE, "error_description": HOSTILE}))
                }
                Fault::HostileClientId => json_reply(201, json!({"client_id": HOSTILE})),
                _ => json_reply(201, json!({"client_id": "fixture-client"})),
            }
        }
        ("GET", "/authorize") => {
            seen.authorizations.fetch_add(1, Ordering::SeqCst);
            let q = query(&r.path);
            let get = |k: &str| {
                q.iter()
                    .find(|(n, _)| n == k)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default()
            };
            *seen.authorized.lock().unwrap() = (get("client_id"), get("redirect_uri"));
            let state = if fault == Fault::WrongState {
                "forged".to_string()
            } else {
                get("state")
            };
            let to = if fault == Fault::HostileCallbackError {
                format!(
                    "{}?error={h}&error_description={h}&state={state}",
                    get("redirect_uri"),
                    h = encode(HOSTILE)
                )
            } else {
                format!("{}?code=the-code&state={state}", get("redirect_uri"))
            };
            Reply::With(302, vec![("location".into(), to)], String::new())
        }
        ("POST", "/token") => {
            if fault == Fault::TokenHangs {
                return Reply::Hang;
            }
            if fault == Fault::SlowToken {
                std::thread::sleep(std::time::Duration::from_millis(800));
            }
            if fault == Fault::HostileTokenError {
                return json_reply(400, json!({"error": HOSTILE, "error_description": HOSTILE}));
            }
            if let Fault::TokenAnswer(ctype, body) = fault {
                seen.issued.fetch_add(1, Ordering::SeqCst);
                let token = serde_json::from_str::<Value>(body)
                    .ok()
                    .and_then(|v| v["access_token"].as_str().map(str::to_string));
                *seen.valid.lock().unwrap() = token;
                return Reply::Body(200, ctype, body.to_string());
            }
            let grant = r.body.contains("grant_type=refresh_token");
            if grant {
                seen.refreshes.fetch_add(1, Ordering::SeqCst);
            } else if !r.body.contains("code=the-code") || !r.body.contains("code_verifier=") {
                return json_reply(400, json!({"error": "invalid_grant"}));
            }
            let n = seen.issued.fetch_add(1, Ordering::SeqCst);
            let token = format!("access-{n}");
            *seen.valid.lock().unwrap() = Some(token.clone());
            json_reply(
                200,
                json!({"access_token": token, "token_type": "Bearer", "expires_in": 3600,
                       "refresh_token": format!("refresh-{n}"), "scope": "mcp:tools"}),
            )
        }
        _ => Reply::Body(404, "text/plain", "not found".into()),
    }
}

pub fn mcp(r: &Req, b: &str, fault: Fault, seen: &Seen) -> Reply {
    let auth = r.header("authorization").unwrap_or("").to_string();
    seen.bearers.lock().unwrap().push(auth.clone());
    let valid = seen
        .valid
        .lock()
        .unwrap()
        .clone()
        .filter(|_| fault != Fault::RefusesTokens);
    if valid.is_none_or(|v| auth != format!("Bearer {v}")) {
        return Reply::With(
            401,
            vec![
                ("content-type".into(), "application/json".into()),
                (
                    "www-authenticate".into(),
                    format!(
                        r#"Bearer resource_metadata="{b}/.well-known/oauth-protected-resource/mcp""#
                    ),
                ),
            ],
            r#"{"error":"invalid_token"}"#.into(),
        );
    }
    let req = r.json();
    let id = req.get("id").cloned();
    match req["method"].as_str() {
        Some("initialize") => json_reply(
            200,
            json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-11-25",
                   "capabilities": {"tools": {}}, "serverInfo": {"name": "fixture", "version": "1"}}}),
        ),
        Some("tools/list") => json_reply(
            200,
            json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                {"name": "hello", "inputSchema": {"type": "object"}}]}}),
        ),
        _ if id.is_none() => Reply::Body(202, "application/json", String::new()),
        _ => json_reply(
            200,
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}}),
        ),
    }
}

/// Run the binary with its token cache in `data`.
pub fn mcpscope(data: &std::path::Path, args: &[&str]) -> Run {
    headless(args).env("MCPSCOPE_DATA_DIR", data).run()
}

pub fn url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/mcp")
}

/// Run `call` against a faulty server: exit 3, `want` in the error, no
/// token issued, nothing cached; and when the server broke the
/// authorization spec, the finding that says so.
pub fn refused(fault: Fault, want: &str) -> String {
    refused_with(fault, want, None)
}

/// As [`refused`]; the `[error]` line is returned.
pub fn refused_with(fault: Fault, want: &str, finding: Option<&str>) -> String {
    let (port, seen) = server(fault);
    let data = tempfile::tempdir().unwrap();
    let u = url(port);
    let out = mcpscope(
        data.path(),
        &[
            "call",
            "--url",
            &u,
            "--tool",
            "hello",
            "--auth-agent",
            "fetch",
            "--auth-timeout",
            "0.5",
        ],
    );
    assert_eq!(out.code, 3, "{fault:?}: {}", out.stderr);
    let line = out
        .stderr
        .lines()
        .find(|l| l.starts_with("[error]") && l.contains(want))
        .unwrap_or_else(|| panic!("{fault:?}: no line with {want:?} in\n{}", out.stderr));
    assert!(line.contains("authorization failed"), "{line}");
    let findings = out.lines("[finding]");
    match finding {
        Some(rule) => assert!(
            findings
                .iter()
                .any(|l| l.starts_with(&format!("[finding] {rule} (error)"))),
            "{fault:?}: no {rule} finding in\n{}",
            out.stderr
        ),
        None => assert!(findings.is_empty(), "{fault:?}: {findings:?}"),
    }
    assert_eq!(seen.issued.load(Ordering::SeqCst), 0, "{fault:?}");
    assert!(
        !data.path().join("auth.json").exists(),
        "{fault:?}: something was cached"
    );
    line.to_string()
}
