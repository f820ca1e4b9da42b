//! DNS-rebinding protection of `demo-server --http`, against the real binary
//! on a loopback port it picks itself, with raw HTTP requests (so every Host
//! and Origin header is exactly what the test says): foreign names are
//! refused with 403 and a JSON-RPC error, loopback ones and `--allow-origin`
//! ones pass, and binding beyond loopback needs `--allow-remote`.

use crate::support::http::*;
use crate::support::*;
use serde_json::Value;
use std::io::{Read, Write};
use std::process::Command;

fn demo_http(extra: &[&str]) -> (Bg, u16) {
    let mut cmd = Command::new(BIN);
    cmd.args(["demo-server", "--http", "127.0.0.1:0"])
        .args(extra);
    start_reporting(cmd)
}

/// POST a `ping` with these headers; the status code and the body.
fn post(port: u16, host: &str, origin: Option<&str>) -> (u16, String) {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"origin-test","version":"0"}}}"#;
    let origin = origin
        .map(|o| format!("origin: {o}\r\n"))
        .unwrap_or_default();
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nhost: {host}\r\n{origin}content-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    let status = resp
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {resp}"));
    let body = resp
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// The refusal is a 403 whose JSON-RPC error says what was refused and how
/// to allow it.
fn assert_refused(port: u16, host: &str, origin: Option<&str>, what: &str) {
    let (status, body) = post(port, host, origin);
    assert_eq!(status, 403, "{host} / {origin:?}: {body}");
    let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    assert_eq!(v["jsonrpc"], "2.0", "{body}");
    assert!(v["id"].is_null(), "{body}");
    assert_eq!(v["error"]["code"], -32000, "{body}");
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(what), "{message}");
    assert!(message.contains("--allow-origin"), "{message}");
}

fn assert_accepted(port: u16, host: &str, origin: Option<&str>) {
    let (status, body) = post(port, host, origin);
    assert_eq!(status, 200, "{host} / {origin:?}: {body}");
    assert!(body.contains("\"protocolVersion\""), "{body}");
}

#[test]
fn a_foreign_host_is_refused() {
    let (_srv, port) = demo_http(&[]);
    assert_refused(port, &format!("evil.example.com:{port}"), None, "Host");
    // A loopback name on another port is not this listener either.
    assert_refused(port, &format!("localhost:{}", port ^ 1), None, "Host");
}

#[test]
fn a_foreign_origin_is_refused() {
    let (_srv, port) = demo_http(&[]);
    let host = format!("127.0.0.1:{port}");
    assert_refused(port, &host, Some("http://evil.example.com"), "Origin");
    assert_refused(port, &host, Some("null"), "Origin");
}

#[test]
fn loopback_hosts_and_origins_are_accepted() {
    let (_srv, port) = demo_http(&[]);
    for host in ["127.0.0.1", "localhost", "[::1]"] {
        let host = format!("{host}:{port}");
        assert_accepted(port, &host, None);
        assert_accepted(port, &host, Some(&format!("http://{host}")));
    }
    assert_accepted(
        port,
        &format!("localhost:{port}"),
        Some("http://localhost:3000"),
    );
}

#[test]
fn allow_origin_widens_the_rules() {
    let (_srv, port) = demo_http(&["--allow-origin", "https://app.example"]);
    let host = format!("127.0.0.1:{port}");
    assert_accepted(port, &host, Some("https://app.example"));
    assert_accepted(port, &host, Some("https://APP.example/"));
    assert_refused(port, &host, Some("http://app.example"), "Origin");
}

#[test]
fn an_allowed_origin_also_allows_its_host() {
    // As behind a reverse proxy: the page and the Host name the proxy, on a
    // port that is not the listener's.
    let (_srv, port) = demo_http(&["--allow-origin", "http://mcp.test"]);
    assert_accepted(port, "mcp.test", Some("http://mcp.test"));
    assert_accepted(port, "mcp.test:80", None);
    assert_refused(port, &format!("other.test:{port}"), None, "Host");
}

#[test]
fn binding_beyond_loopback_needs_allow_remote() {
    let o = run(&["demo-server", "--http", "0.0.0.0:0"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("--allow-remote"), "{}", o.stderr);
    assert!(o.stderr.contains("0.0.0.0"), "{}", o.stderr);
}

#[test]
fn a_malformed_allow_origin_is_a_usage_error() {
    let o = run(&[
        "demo-server",
        "--http",
        "127.0.0.1:0",
        "--allow-origin",
        "app.example",
    ]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("not an origin"), "{}", o.stderr);
}

#[test]
fn allow_remote_serves_with_a_warning_and_checks_origins_only() {
    let mut cmd = Command::new(BIN);
    cmd.args(["demo-server", "--http", "0.0.0.0:0", "--allow-remote"]);
    // The warning comes first; the port report follows ("0.0.0.0:PORT" has no
    // 127.0.0.1 in it, so the warning line is the only thing skipped).
    let (_srv, port) = start_reporting_any(cmd);
    assert_accepted(port, &format!("server.lan:{port}"), None);
    assert_refused(
        port,
        &format!("server.lan:{port}"),
        Some("http://evil.example"),
        "Origin",
    );
}

/// Like `start_reporting`, for a server that reports `0.0.0.0:PORT`; also
/// asserts the `--allow-remote` warning came before.
fn start_reporting_any(mut cmd: Command) -> (Bg, u16) {
    use std::io::BufRead;
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("start demo-server");
    let stderr = child.stderr.take().unwrap();
    let bg = Bg(child);
    let (tx, rx) = std::sync::mpsc::channel();
    // Keeps draining stderr after the report, so the server never blocks on it.
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    let mut seen = String::new();
    while let Ok(line) = rx.recv_timeout(std::time::Duration::from_secs(30)) {
        if let Some((_, rest)) = line.split_once("http://0.0.0.0:") {
            assert!(
                seen.contains("warning") && seen.contains("--allow-remote"),
                "no warning before serving:\n{seen}"
            );
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            return (bg, digits.parse().unwrap());
        }
        seen.push_str(&line);
        seen.push('\n');
    }
    panic!("the server reported no port:\n{seen}");
}
