//! What mcpscope forwards and how it reports over HTTP when the server
//! redirects, refuses, or answers with the wrong kind of body: real loopback
//! servers on their own ports (so: their own origins).

use crate::support::http::*;
use crate::support::*;
use std::sync::{Arc, Mutex};

/// A well-behaved minimal Streamable HTTP server: initialize, 202 for
/// notifications, no GET stream, and an empty successful result for any call.
fn answer(req: &Req) -> Reply {
    let id = req.json()["id"].clone();
    match req.json()["method"].as_str() {
        Some("initialize") => {
            let mut v: serde_json::Value = serde_json::from_str(INIT_RESULT).unwrap();
            v["id"] = id;
            Reply::Body(200, "application/json", v.to_string())
        }
        Some(m) if m.starts_with("notifications/") => Reply::Body(202, "text/plain", String::new()),
        Some(_) => Reply::Body(
            200,
            "application/json",
            serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"content": [], "isError": false}})
                .to_string(),
        ),
        None if req.method == "DELETE" => Reply::Body(200, "text/plain", String::new()),
        None => Reply::Body(405, "text/plain", String::new()),
    }
}

fn redirect(to: String) -> Reply {
    Reply::With(307, vec![("location".into(), to)], String::new())
}

/// A server that answers every request and remembers what it received.
fn recording_server() -> (u16, Arc<Mutex<Vec<Req>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let port = raw_server(move |req| {
        log.lock().unwrap().push(req.clone());
        answer(req)
    });
    (port, seen)
}

const SECRETS: [&str; 4] = [
    "Authorization: Bearer tok-1",
    "X-Api-Key: key-2",
    "Cookie: sid=cookie-3",
    "X-Auth-User: user-4",
];

fn call_with_headers(url: &str) -> Run {
    // The recording server answers as the handshake era does.
    headless([
        "call",
        "--protocol",
        "legacy",
        "--url",
        url,
        "--transport",
        "http",
        "--tool",
        "t",
    ])
    .args(SECRETS.iter().flat_map(|h| ["-H", h]))
    .args(["-H", "X-Trace: keep-5"])
    .expect(0)
}

#[test]
fn a_cross_origin_redirect_forwards_no_secret_header_and_no_referer() {
    let (target, seen) = recording_server();
    let origin = raw_server(move |_| redirect(format!("http://127.0.0.1:{target}/mcp")));
    let o = call_with_headers(&format!("http://127.0.0.1:{origin}/mcp"));
    let seen = seen.lock().unwrap();
    assert!(
        seen.len() >= 3,
        "initialize, initialized, the call: {seen:?}"
    );
    for req in seen.iter() {
        for name in [
            "authorization",
            "x-api-key",
            "cookie",
            "x-auth-user",
            "mcp-session-id",
            "referer",
        ] {
            assert_eq!(
                req.header(name),
                None,
                "{name} reached another origin: {req:?}"
            );
        }
        assert_eq!(
            req.header("x-trace"),
            Some("keep-5"),
            "other headers still go"
        );
    }
    assert!(
        o.stderr.contains("[http]") && o.stderr.contains("not forwarded"),
        "the user learns why credentials went missing: {}",
        o.stderr
    );
}

#[test]
fn a_same_origin_redirect_keeps_the_credentials() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let port = raw_server(move |req| {
        if req.path == "/old" {
            return redirect("/mcp".into());
        }
        log.lock().unwrap().push(req.clone());
        answer(req)
    });
    call_with_headers(&format!("http://127.0.0.1:{port}/old"));
    let seen = seen.lock().unwrap();
    assert!(seen.len() >= 3, "{seen:?}");
    for req in seen.iter() {
        assert_eq!(req.header("x-api-key"), Some("key-2"), "{req:?}");
        assert_eq!(req.header("authorization"), Some("Bearer tok-1"));
        assert_eq!(req.header("referer"), None);
    }
}

/// `check --trace FILE --format json`: the rule ids of the findings.
fn rules_in(trace: &std::path::Path) -> Vec<String> {
    let o = run(&[
        "check",
        "--trace",
        trace.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).expect(&o.stderr);
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_401_names_the_challenge_and_how_to_send_credentials() {
    let port = raw_server(|_| {
        Reply::With(
            401,
            vec![
                ("content-type".into(), "text/html".into()),
                (
                    "www-authenticate".into(),
                    r#"Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource""#.into(),
                ),
            ],
            "<html><body>Login required</body></html>".into(),
        )
    });
    // Exit 3: the authorization failed.
    let o = headless([
        "call",
        "--url",
        &format!("http://127.0.0.1:{port}/mcp"),
        "--transport",
        "http",
        "--tool",
        "t",
    ])
    .record()
    .expect(3);
    let http = o.lines("[http]");
    assert_eq!(http.len(), 1, "{}", o.stderr);
    assert!(
        http[0].contains(
            r#"HTTP 401 Unauthorized: the server wants credentials (WWW-Authenticate: Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource")"#
        ),
        "{}",
        http[0]
    );
    // Without a terminal the authorization flow is not started: the error
    // names the challenge and both ways to send credentials.
    let error = o.lines("[error]")[0];
    assert!(
        error.contains(
            r#"HTTP 401 Unauthorized (WWW-Authenticate: Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource")"#
        ) && error.contains(&format!("run `mcpscope auth login --url http://127.0.0.1:{port}/mcp` first")),
        "{error}"
    );
    for line in [http[0], error] {
        assert!(line.contains("-H 'Authorization: Bearer …'"), "{line}");
    }
    assert!(!o.stderr.contains("jsonrpc-invalid"), "{}", o.stderr);
    let lines = o.trace();
    assert!(
        lines.iter().any(|l| l["dir"] == "in"
            && l["text"]
                .as_str()
                .is_some_and(|t| t.contains("Login required"))),
        "the body is kept"
    );
    assert_eq!(
        rules_in(o.trace_path()),
        Vec::<String>::new(),
        "an HTTP error is not a protocol finding"
    );
}

#[test]
fn an_html_500_is_an_http_error_not_a_jsonrpc_finding() {
    let port = raw_server(|req| {
        if req.json()["method"] == "tools/call" {
            Reply::Body(500, "text/html", "<html>oops</html>".into())
        } else {
            answer(req)
        }
    });
    let o = headless([
        "call",
        "--url",
        &format!("http://127.0.0.1:{port}/mcp"),
        "--transport",
        "http",
        "--tool",
        "t",
    ])
    .record()
    .expect(3);
    assert!(
        o.lines("[http]")
            .iter()
            .any(|l| l.contains("POST") && l.contains("HTTP 500 Internal Server Error")),
        "{}",
        o.stderr
    );
    assert!(!o.stderr.contains("jsonrpc-invalid"), "{}", o.stderr);
    assert_eq!(rules_in(o.trace_path()), Vec::<String>::new());
}

#[test]
fn a_post_answered_as_text_plain_is_a_finding() {
    let port = raw_server(|req| match answer(req) {
        Reply::Body(200, "application/json", body) if req.json()["method"] == "tools/call" => {
            Reply::Body(200, "text/plain", body)
        }
        r => r,
    });
    let url = format!("http://127.0.0.1:{port}/mcp");
    let o = run(&["call", "--url", &url, "--transport", "http", "--tool", "t"]);
    assert_eq!(o.code, 0, "the answer is still used: {}", o.stderr);
    let found = o.lines("[finding] http-content-type (error)");
    assert_eq!(found.len(), 1, "{}", o.stderr);
    assert_eq!(
        o.lines("[finding] http-content-type ×1 first #").len(),
        1,
        "summed up once at the end: {}",
        o.stderr
    );
    assert!(
        found[0].contains("text/plain")
            && found[0].contains("application/json or text/event-stream"),
        "{}",
        found[0]
    );
    let c = run(&["check", "--url", &url, "--transport", "http", "--tool", "t"]);
    assert_eq!(
        c.code, 1,
        "an error-severity finding fails the check: {}",
        c.stdout
    );
    assert!(c.stdout.contains("http-content-type"), "{}", c.stdout);
}
