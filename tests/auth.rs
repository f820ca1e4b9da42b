//! Authorization of HTTP servers through the real binary against a real
//! loopback server that is both the MCP server and its authorization
//! server, and misbehaves on request: the whole flow, the token cache
//! (file mode, reuse, refresh when the server refuses a token, logout), the
//! headless refusal without a terminal, and bad input — an authorization
//! server answering HTML, a wrong issuer, a redirect to another host, a
//! token endpoint that hangs, a refused registration, a state that does
//! not match. Each failure is one clear line, exit 3, and nothing cached.

mod common;

use common::http::{Reply, Req, raw_server};
use common::{BIN, finish};
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fault {
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
}

/// What the fixture saw and what it accepts.
#[derive(Default)]
struct Seen {
    authorizations: AtomicU32,
    registrations: AtomicU32,
    refreshes: AtomicU32,
    /// The access token the MCP endpoint accepts now.
    valid: Mutex<Option<String>>,
    issued: AtomicU32,
    /// Every Authorization header the MCP endpoint got.
    bearers: Mutex<Vec<String>>,
    /// The last authorization request's client_id and redirect_uri.
    authorized: Mutex<(String, String)>,
}

fn base(r: &Req) -> String {
    format!("http://{}", r.header("host").unwrap_or("127.0.0.1"))
}

/// `a=b&c=d` of a request target, percent-decoded.
fn query(path: &str) -> Vec<(String, String)> {
    let q = path.split_once('?').map_or("", |(_, q)| q);
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(s: &str) -> String {
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

fn json_reply(status: u16, v: Value) -> Reply {
    Reply::Body(status, "application/json", v.to_string())
}

fn server(fault: Fault) -> (u16, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let s = seen.clone();
    let port = raw_server(move |r| handle(r, fault, &s));
    (port, seen)
}

fn handle(r: &Req, fault: Fault, seen: &Seen) -> Reply {
    let b = base(r);
    let path = r.path.split('?').next().unwrap_or("");
    match (r.method.as_str(), path) {
        ("POST", "/mcp") => mcp(r, &b, seen),
        ("GET", "/.well-known/oauth-protected-resource/mcp") => json_reply(
            200,
            json!({"resource": format!("{b}/mcp"), "authorization_servers": [b],
                   "scopes_supported": ["mcp:tools"]}),
        ),
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
                json_reply(
                    200,
                    json!({
                        "issuer": issuer,
                        "authorization_endpoint": format!("{b}/authorize"),
                        "token_endpoint": format!("{b}/token"),
                        "registration_endpoint": format!("{b}/register"),
                        "response_types_supported": ["code"],
                        "code_challenge_methods_supported": methods,
                        "token_endpoint_auth_methods_supported": ["none"],
                    }),
                )
            }
        },
        ("POST", "/register") => {
            seen.registrations.fetch_add(1, Ordering::SeqCst);
            if fault == Fault::RegistrationRefused {
                return json_reply(
                    400,
                    json!({"error": "invalid_client_metadata",
                           "error_description": "registration is closed"}),
                );
            }
            json_reply(201, json!({"client_id": "fixture-client"}))
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
            let to = format!("{}?code=the-code&state={state}", get("redirect_uri"));
            Reply::With(302, vec![("location".into(), to)], String::new())
        }
        ("POST", "/token") => {
            if fault == Fault::TokenHangs {
                return Reply::Hang;
            }
            if fault == Fault::SlowToken {
                std::thread::sleep(std::time::Duration::from_millis(800));
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

fn mcp(r: &Req, b: &str, seen: &Seen) -> Reply {
    let auth = r.header("authorization").unwrap_or("").to_string();
    seen.bearers.lock().unwrap().push(auth.clone());
    let valid = seen.valid.lock().unwrap().clone();
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
fn mcpscope(data: &std::path::Path, args: &[&str]) -> common::Output {
    let child = Command::new(BIN)
        .args(args)
        .env("MCPSCOPE_DATA_DIR", data)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcpscope");
    finish(child)
}

fn url(port: u16) -> String {
    format!("http://127.0.0.1:{port}/mcp")
}

#[test]
fn the_flow_runs_caches_refreshes_and_logs_out() {
    let (port, seen) = server(Fault::None);
    let data = tempfile::tempdir().unwrap();
    let u = url(port);
    let out = mcpscope(
        data.path(),
        &["tools", "--url", &u, "--auth-agent", "fetch", "--json"],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("hello"), "{}", out.stdout);
    assert_eq!(seen.authorizations.load(Ordering::SeqCst), 1);
    assert_eq!(seen.registrations.load(Ordering::SeqCst), 1);
    // Nothing secret on screen.
    for text in [&out.stdout, &out.stderr] {
        assert!(
            !text.contains("access-0") && !text.contains("refresh-0"),
            "{text}"
        );
    }

    // The cache: one file, owner-only.
    let file = data.path().join("auth.json");
    let mode = std::fs::metadata(&file).unwrap().permissions();
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(mode.mode() & 0o777, 0o600);
    let cached: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(cached["entries"][0]["server"], u);
    assert_eq!(
        cached["entries"][0]["client"]["client_id"],
        "fixture-client"
    );

    // A second run uses the cached token: no new authorization.
    let again = mcpscope(data.path(), &["tools", "--url", &u, "--json"]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(seen.authorizations.load(Ordering::SeqCst), 1);

    // The server stops taking the token: the refresh token gets a new one.
    *seen.valid.lock().unwrap() = Some("revoked".into());
    let refreshed = mcpscope(data.path(), &["tools", "--url", &u, "--json"]);
    assert_eq!(refreshed.code, 0, "{}", refreshed.stderr);
    assert_eq!(seen.refreshes.load(Ordering::SeqCst), 1);
    assert_eq!(seen.authorizations.load(Ordering::SeqCst), 1);
    assert!(
        seen.bearers
            .lock()
            .unwrap()
            .last()
            .is_some_and(|b| b == "Bearer access-1")
    );

    let status = mcpscope(data.path(), &["auth", "status", "--url", &u]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    assert!(status.stdout.contains("authorized"), "{}", status.stdout);
    assert!(status.stdout.contains("client fixture-client (dynamic)"));
    assert!(!status.stdout.contains("access-1") && !status.stdout.contains("refresh-"));

    let logout = mcpscope(data.path(), &["auth", "logout", "--url", &u]);
    assert_eq!(logout.code, 0, "{}", logout.stderr);
    assert!(logout.stdout.contains("logged out"), "{}", logout.stdout);
    let status = mcpscope(data.path(), &["auth", "status", "--url", &u]);
    assert_eq!(status.code, 1);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains("access-"), "{text}");
}

#[test]
fn without_a_terminal_the_flow_is_not_started_and_the_way_out_is_named() {
    let (port, seen) = server(Fault::None);
    let data = tempfile::tempdir().unwrap();
    let u = url(port);
    let out = mcpscope(data.path(), &["tools", "--url", &u]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr
            .contains(&format!("run `mcpscope auth login --url {u}` first")),
        "{}",
        out.stderr
    );
    assert_eq!(seen.authorizations.load(Ordering::SeqCst), 0);
    assert!(!data.path().join("auth.json").exists());
}

#[test]
fn no_auth_cache_keeps_nothing() {
    let (port, _) = server(Fault::None);
    let data = tempfile::tempdir().unwrap();
    let u = url(port);
    let out = mcpscope(
        data.path(),
        &[
            "tools",
            "--url",
            &u,
            "--auth-agent",
            "fetch",
            "--no-auth-cache",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!data.path().join("auth.json").exists());
}

/// Run `tools` against a faulty server: exit 3, `want` in the error, no
/// token issued, nothing cached; and when the server broke the
/// authorization spec, the finding that says so.
fn refused(fault: Fault, want: &str) {
    refused_with(fault, want, None);
}

fn refused_with(fault: Fault, want: &str, finding: Option<&str>) {
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
}

#[test]
fn metadata_that_is_html_is_refused() {
    refused(
        Fault::MetadataHtml,
        "is text/html, not JSON: <html><body>Please log in",
    );
}

#[test]
fn a_wrong_issuer_is_refused() {
    refused_with(
        Fault::WrongIssuer,
        r#"names issuer "https://impostor.example""#,
        Some("auth-issuer-mismatch"),
    );
}

#[test]
fn a_redirect_to_another_host_is_not_followed() {
    refused(Fault::RedirectElsewhere, "redirected to another host");
}

#[test]
fn a_hanging_token_endpoint_times_out() {
    refused(Fault::TokenHangs, "timed out after 0.5s");
}

#[test]
fn a_refused_registration_is_reported() {
    refused(
        Fault::RegistrationRefused,
        "was refused: HTTP 400 invalid_client_metadata: registration is closed",
    );
}

#[test]
fn a_state_mismatch_stops_the_flow() {
    refused(Fault::WrongState, "state does not match");
}

#[test]
fn a_server_without_pkce_s256_is_refused() {
    refused_with(
        Fault::NoS256,
        "does not advertise PKCE S256",
        Some("auth-pkce-unsupported"),
    );
}

#[test]
fn time_spent_authorizing_does_not_count_against_the_request() {
    // The flow takes 0.8 s, longer than the handshake's 0.3 s idle limit:
    // the wait is for the authorization, not for the server.
    let (port, seen) = server(Fault::SlowToken);
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
            "--timeout",
            "0.3",
        ],
    );
    assert_eq!(seen.issued.load(Ordering::SeqCst), 1, "{}", out.stderr);
    assert!(!out.stderr.contains("timed out"), "{}", out.stderr);
    assert!(out.stderr.contains("[auth] authorized"), "{}", out.stderr);
}

#[test]
fn a_config_entry_names_a_pre_registered_client_and_its_callback_port() {
    let (port, seen) = server(Fault::None);
    let data = tempfile::tempdir().unwrap();
    let u = url(port);
    // A port that was free a moment ago, as a registered redirect URI's would be.
    let callback = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = data.path().join("mcp.json");
    std::fs::write(
        &config,
        json!({"mcpServers": {"fixture": {"url": u,
            "oauth": {"clientId": "registered-by-hand", "callbackPort": callback}}}})
        .to_string(),
    )
    .unwrap();
    let out = mcpscope(
        data.path(),
        &[
            "tools",
            "--config",
            config.to_str().unwrap(),
            "--auth-agent",
            "fetch",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        seen.registrations.load(Ordering::SeqCst),
        0,
        "no registration"
    );
    let (client, redirect) = seen.authorized.lock().unwrap().clone();
    assert_eq!(client, "registered-by-hand");
    assert_eq!(redirect, format!("http://127.0.0.1:{callback}/callback"));
    let status = mcpscope(data.path(), &["auth", "status", "--json"]);
    let line: Value = serde_json::from_str(status.stdout.trim()).unwrap();
    assert_eq!(line["registration"], "pre-registered");
    assert_eq!(line["client_id"], "registered-by-hand");
}

/// One GET over a plain TCP connection: status and Location.
fn get(url: &str) -> (u16, Option<String>) {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://").expect("http URL");
    let (hostport, path) = rest.split_once('/').map_or((rest, ""), |(h, p)| (h, p));
    let mut sock = std::net::TcpStream::connect(hostport).unwrap();
    write!(
        sock,
        "GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    // The head only: the fixture keeps connections open.
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") && sock.read(&mut byte).unwrap_or(0) == 1 {
        buf.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let location = text
        .lines()
        .find_map(|l| {
            l.strip_prefix("location: ")
                .or_else(|| l.strip_prefix("Location: "))
        })
        .map(|l| l.trim().to_string());
    (status, location)
}

#[test]
fn auth_login_prints_the_url_and_takes_the_browser_redirect() {
    use std::io::BufRead;
    let (port, seen) = server(Fault::None);
    let data = tempfile::tempdir().unwrap();
    let u = url(port);
    let mut child = Command::new(BIN)
        .args(["auth", "login", "--url", &u, "--no-browser"])
        .env("MCPSCOPE_DATA_DIR", data.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let dog = common::watchdog(&child, std::time::Duration::from_secs(30));
    let stderr = child.stderr.take().unwrap();
    let mut lines = std::io::BufReader::new(stderr).lines();
    // The person: reads the URL mcpscope prints, and "signs in".
    let url = lines
        .by_ref()
        .map_while(Result::ok)
        .find_map(|l| {
            l.trim()
                .strip_prefix("http://")
                .map(|r| format!("http://{r}"))
        })
        .expect("no authorization URL printed");
    assert!(url.contains("/authorize?") && url.contains("code_challenge_method=S256"));
    let (status, to) = get(&url);
    assert_eq!(status, 302);
    let (status, _) = get(&to.expect("a redirect to the callback"));
    assert_eq!(status, 200, "the callback listener took the redirect");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let mut stdout = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    let code = child.wait().unwrap().code();
    assert!(!dog.disarm(), "auth login hung");
    assert_eq!(code, Some(0), "{rest:?}");
    assert!(
        stdout.starts_with("authorized http://127.0.0.1:"),
        "{stdout}"
    );
    assert_eq!(seen.issued.load(Ordering::SeqCst), 1);
    assert!(data.path().join("auth.json").exists());
}
