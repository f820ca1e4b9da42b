//! What mcpscope forwards and how it reports over HTTP when the server
//! redirects, refuses, or answers with the wrong kind of body: real loopback
//! servers on their own ports (so: their own origins).

mod common;

use common::http::*;
use common::*;
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

fn call_with_headers(url: &str) -> Output {
    let mut args = vec!["call", "--url", url, "--transport", "http", "--tool", "t"];
    for h in SECRETS {
        args.extend(["-H", h]);
    }
    args.extend(["-H", "X-Trace: keep-5"]);
    run(&args)
}

#[test]
fn a_cross_origin_redirect_forwards_no_secret_header_and_no_referer() {
    let (target, seen) = recording_server();
    let origin = raw_server(move |_| redirect(format!("http://127.0.0.1:{target}/mcp")));
    let o = call_with_headers(&format!("http://127.0.0.1:{origin}/mcp"));
    assert_eq!(o.code, 0, "{}", o.stderr);
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
    let o = call_with_headers(&format!("http://127.0.0.1:{port}/old"));
    assert_eq!(o.code, 0, "{}", o.stderr);
    let seen = seen.lock().unwrap();
    assert!(seen.len() >= 3, "{seen:?}");
    for req in seen.iter() {
        assert_eq!(req.header("x-api-key"), Some("key-2"), "{req:?}");
        assert_eq!(req.header("authorization"), Some("Bearer tok-1"));
        assert_eq!(req.header("referer"), None);
    }
}
