//! Authorization of HTTP servers through the real binary against a real
//! loopback server that is both the MCP server and its authorization
//! server, and misbehaves on request: the whole flow, the token cache
//! (file mode, reuse, refresh when the server refuses a token, logout), the
//! headless refusal without a terminal, and bad input — an authorization
//! server answering HTML, a wrong issuer, a redirect to another host, a
//! token endpoint that hangs, a refused registration, a state that does
//! not match. Each failure is one clear line, exit 3, and nothing cached.

use crate::support;

use crate::support::BIN;
use crate::support::auth::{Fault, mcpscope, refused_with, server, url};
use crate::support::rows::run_rows;
use serde_json::{Value, json};
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;

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

/// An authorization server that misbehaves, the reason the refusal must
/// give, and the finding it makes where it broke the authorization spec.
const REFUSALS: &[(Fault, &str, Option<&str>)] = &[
    (
        Fault::MetadataHtml,
        "is text/html, not JSON: <html><body>Please log in",
        None,
    ),
    (
        Fault::WrongIssuer,
        r#"names issuer "https://impostor.example""#,
        Some("auth-issuer-mismatch"),
    ),
    (Fault::RedirectElsewhere, "redirected to another host", None),
    (Fault::TokenHangs, "timed out after 0.5s", None),
    (
        Fault::RegistrationRefused,
        "was refused: HTTP 400 invalid_client_metadata: registration is closed",
        None,
    ),
    (Fault::WrongState, "state does not match", None),
    (
        Fault::NoS256,
        "does not advertise PKCE S256",
        Some("auth-pkce-unsupported"),
    ),
];

#[test]
fn a_misbehaving_authorization_server_is_refused_saying_why() {
    run_rows(
        REFUSALS,
        |(fault, _, _)| format!("{fault:?}"),
        |&(fault, why, finding)| {
            refused_with(fault, why, finding);
        },
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
    let dog = support::watchdog(&child, std::time::Duration::from_secs(30));
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
