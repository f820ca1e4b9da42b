//! End to end against a real authorization server from a registry: the
//! official TypeScript SDK's example Streamable HTTP server with its demo
//! OAuth provider (`@modelcontextprotocol/sdk`, `simpleStreamableHttp.js
//! --oauth`; a separate authorization server on its own port, dynamic
//! registration, PKCE, `resource`), through the real binary. The demo
//! provider approves without a person, so the redirects are followed over
//! HTTP (`--auth-agent fetch`) to mcpscope's loopback listener.
//!
//! The demo provider issues no refresh tokens and keeps everything in
//! memory: restarting it makes the cached token and the cached client
//! registration unknown, which is what an expired token and a forgetful
//! authorization server look like — mcpscope must register and authorize
//! again on its own.

use crate::support::auth::mcpscope;
use crate::support::http::Bg;
use crate::support::{peer, trace_lines};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

fn free_port() -> u16 {
    // The server takes fixed ports from its environment; this one was free
    // a moment ago (the demo cannot report a port it chose itself).
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Start the SDK example with OAuth on `mcp`/`auth` ports; return once it listens.
fn start(mcp: u16, auth: u16) -> Bg {
    let node = peer("node/node_modules/node/bin/node");
    let entry = peer(
        "node/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js",
    );
    let mut child = Command::new(node)
        .arg(entry)
        .arg("--oauth")
        .env("MCP_PORT", mcp.to_string())
        .env("MCP_AUTH_PORT", auth.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the SDK example server");
    let stdout = child.stdout.take().unwrap();
    let bg = Bg(child);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut told = false;
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if !told && line.contains(&format!("listening on port {mcp}")) {
                told = true;
                let _ = tx.send(());
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(30))
        .expect("the SDK example server did not start");
    bg
}

fn auth_events(trace: &std::path::Path) -> Vec<serde_json::Value> {
    trace_lines(trace)
        .into_iter()
        .filter_map(|l| l.get("json").cloned())
        .filter(|j| matches!(j["event"].as_str(), Some("auth" | "auth-http")))
        .collect()
}

fn states(events: &[serde_json::Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["event"] == "auth")
        .map(|e| e["state"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn the_sdk_example_server_with_its_demo_authorization_server() {
    let (mcp, auth) = (free_port(), free_port());
    let mut server = start(mcp, auth);
    let url = format!("http://localhost:{mcp}/mcp");
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();

    // First contact: 401, discovery, registration, authorization, token.
    let t1 = dir.path().join("first.jsonl");
    let out = mcpscope(
        data.path(),
        &[
            "call",
            "--url",
            &url,
            "--tool",
            "greet",
            "-a",
            "name=scope",
            "--auth-agent",
            "fetch",
            "--record",
            t1.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Hello, scope!"), "{}", out.stdout);
    let ev = auth_events(&t1);
    let steps: Vec<&str> = ev
        .iter()
        .filter(|e| e["event"] == "auth-http")
        .filter_map(|e| e["step"].as_str())
        .collect();
    for want in [
        "resource-metadata",
        "server-metadata",
        "register",
        "authorize",
        "token",
    ] {
        assert!(steps.contains(&want), "no {want} step in {steps:?}");
    }
    assert_eq!(states(&ev), ["authorizing", "authorized"]);
    let cache = std::fs::read_to_string(data.path().join("auth.json")).unwrap();
    let cached: serde_json::Value = serde_json::from_str(&cache).unwrap();
    let token = cached["entries"][0]["tokens"]["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        cached["entries"][0]["issuer"],
        format!("http://localhost:{auth}/")
    );
    let recorded = std::fs::read_to_string(&t1).unwrap();
    assert!(
        !recorded.contains(&token),
        "the access token is in the trace"
    );
    assert!(!out.stderr.contains(&token) && !out.stdout.contains(&token));

    // The cached token serves the next run: no flow at all.
    let t2 = dir.path().join("second.jsonl");
    let out = mcpscope(
        data.path(),
        &[
            "call",
            "--url",
            &url,
            "--tool",
            "greet",
            "-a",
            "name=cache",
            "--record",
            t2.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Hello, cache!"), "{}", out.stdout);
    assert!(auth_events(&t2).is_empty(), "{:?}", auth_events(&t2));

    // The server forgets every token and client. (This demo answers an
    // unknown token with 500, not 401, so no client can tell that it has to
    // authorize again; `auth login` is the way.) The cached registration is
    // rejected, and mcpscope registers and authorizes again by itself.
    drop(std::mem::replace(
        &mut server,
        Bg(Command::new("true").spawn().unwrap()),
    ));
    let _server = start(mcp, auth);
    let login = mcpscope(
        data.path(),
        &["auth", "login", "--url", &url, "--auth-agent", "fetch"],
    );
    assert_eq!(login.code, 0, "{}", login.stderr);
    assert!(
        login.stdout.starts_with("authorized http://localhost"),
        "{}",
        login.stdout
    );
    assert!(
        login.stderr.contains("[auth] client-rejected:"),
        "{}",
        login.stderr
    );
    assert!(
        login.stderr.contains("[auth] register: POST"),
        "{}",
        login.stderr
    );
    let t3 = dir.path().join("third.jsonl");
    let out = mcpscope(
        data.path(),
        &[
            "call",
            "--url",
            &url,
            "--tool",
            "greet",
            "-a",
            "name=again",
            "--record",
            t3.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("Hello, again!"), "{}", out.stdout);
    assert!(auth_events(&t3).is_empty());

    // Status, then logout: the cache no longer holds the server.
    let status = mcpscope(data.path(), &["auth", "status", "--url", &url, "--json"]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    let line: serde_json::Value = serde_json::from_str(status.stdout.trim()).unwrap();
    assert_eq!(line["registration"], "dynamic");
    assert_eq!(line["expired"], false);
    let logout = mcpscope(data.path(), &["auth", "logout", "--url", &url]);
    assert_eq!(logout.code, 0, "{}", logout.stderr);
    let status = mcpscope(data.path(), &["auth", "status", "--url", &url]);
    assert_eq!(status.code, 1, "{}", status.stdout);
    // Without the cache and without a terminal: exit 3, and what to run.
    let out = mcpscope(data.path(), &["tools", "--url", &url]);
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(
        out.stderr.contains("mcpscope auth login --url"),
        "{}",
        out.stderr
    );
}
