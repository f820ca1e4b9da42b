//! The demo server over Streamable HTTP, in both eras, driven by the real
//! client: progress on the request's own stream in real time, sessions,
//! resumption after a forced disconnect, and the two delivery faults.

use crate::support::http::*;
use crate::support::*;
use serde_json::Value;
use std::io::{Read, Write};
use std::process::Command;

fn demo_http(extra: &[&str]) -> (Bg, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(["demo-server", "--http", "127.0.0.1:0"])
        .args(extra);
    let (srv, port) = start_reporting(cmd);
    (srv, format!("http://127.0.0.1:{port}/mcp"))
}

/// `mcpscope call --url URL EXTRA...`, recorded: the run and its trace.
fn record(url: &str, extra: &[&str]) -> (Run, Vec<Value>) {
    let run = headless(["call", "--url", url]).args(extra).record().run();
    let lines = run.trace();
    (run, lines)
}

/// The incoming frames on the tools/call request's own channel.
fn call_stream(lines: &[Value]) -> Vec<&Value> {
    let call = lines
        .iter()
        .find(|l| l["dir"] == "out" && l["json"]["method"] == "tools/call")
        .unwrap();
    lines
        .iter()
        .filter(|l| l["dir"] == "in" && l["ch"] == call["ch"])
        .collect()
}

const UPLOAD: [&str; 8] = [
    "--tool",
    "upload_file",
    "-a",
    "size_bytes=4000",
    "-a",
    "chunk_bytes=1000",
    "-a",
    "delay_ms=60",
];

#[test]
fn progress_streams_live_before_the_response_in_both_eras() {
    let (_srv, url) = demo_http(&[]);
    for era in ["legacy", "modern"] {
        let mut extra = UPLOAD.to_vec();
        extra.extend(["--protocol", era]);
        let (o, lines) = record(&url, &extra);
        assert_eq!(o.code, 0, "{era}: {}", o.stderr);
        let stream = call_stream(&lines);
        assert_eq!(
            stream.len(),
            5,
            "{era}: 4 progress then the response on the POST's stream"
        );
        assert!(
            stream[..4]
                .iter()
                .all(|l| l["json"]["method"] == "notifications/progress")
        );
        assert!(stream[4]["json"]["result"].is_object());
        // Live, not buffered: the first progress is well ahead of the response.
        let t = |l: &Value| l["t"].as_f64().unwrap();
        assert!(
            t(stream[4]) - t(stream[0]) > 0.1,
            "{era}: progress arrived with the response"
        );
        if era == "modern" {
            assert_eq!(stream[4]["json"]["result"]["resultType"], "complete");
            assert!(
                !lines
                    .iter()
                    .any(|l| l["json"]["session"].as_str().is_some_and(|s| !s.is_empty())),
                "stateless: no session"
            );
        }
    }
}

#[test]
fn sessions_are_created_echoed_and_deleted() {
    // Sessions are the handshake era's (2026-07-28 has none).
    let (_srv, url) = demo_http(&[]);
    let (o, lines) = record(
        &url,
        &["--protocol", "legacy", "--tool", "echo", "-a", "x=1"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let sid = lines
        .iter()
        .find_map(|l| l["json"]["session"].as_str())
        .expect("a session id")
        .to_string();
    assert!(
        lines
            .iter()
            .any(|l| l["json"]["method"] == "DELETE" && l["json"]["status"] == 200)
    );
    // After DELETE the session is gone: a request naming it gets 404.
    let port: u16 = url
        .trim_start_matches("http://127.0.0.1:")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let body = r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#;
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(s, "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-session-id: {sid}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}", body.len()).unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    assert!(resp.starts_with("HTTP/1.1 404"), "{resp}");
}

#[test]
fn a_forced_disconnect_is_resumed_without_loss_or_duplicates() {
    // Resumption (GET + Last-Event-ID) is the handshake era's.
    let (_srv, url) = demo_http(&["--sse-close-after", "2"]);
    let (o, lines) = record(
        &url,
        &[
            "--protocol",
            "legacy",
            "--tool",
            "upload_file",
            "-a",
            "size_bytes=6000",
            "-a",
            "chunk_bytes=1000",
            "-a",
            "delay_ms=30",
        ],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        lines.iter().any(|l| l["json"]["event"] == "resume"),
        "the stream was resumed"
    );
    let progress: Vec<i64> = frames(&lines, "in", "notifications/progress")
        .map(|p| p["params"]["progress"].as_i64().unwrap())
        .collect();
    assert_eq!(progress, vec![1000, 2000, 3000, 4000, 5000, 6000]);
    assert_eq!(o.lines("[progress]").len(), 6);
}

/// At 2026-07-28 there is nothing to resume: a response stream that closes
/// ends its request, said as such, and no GET is tried.
#[test]
fn a_closed_response_stream_ends_a_stateless_call_without_resuming() {
    let (_srv, url) = demo_http(&["--sse-close-after", "2"]);
    let (o, lines) = record(
        &url,
        &[
            "--tool",
            "upload_file",
            "-a",
            "size_bytes=6000",
            "-a",
            "chunk_bytes=1000",
            "-a",
            "delay_ms=30",
        ],
    );
    assert!(o.stderr.contains("(stateless)"), "{}", o.stderr);
    assert_ne!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("2026-07-28 has no resumption"),
        "{}",
        o.stderr
    );
    assert!(
        !lines.iter().any(|l| l["json"]["event"] == "resume"
            || (l["json"]["method"] == "GET" && l["dir"] == "meta")),
        "nothing was resumed"
    );
}

#[test]
fn buffered_and_wrong_stream_delivery_are_findings() {
    for (mode, rule) in [
        ("buffered", "progress-buffered"),
        ("wrong-stream", "notification-wrong-stream"),
    ] {
        // The GET stream that wrong-stream progress takes is the handshake era's.
        let (_srv, url) = demo_http(&["--progress", mode]);
        let o = run(&[
            "check",
            "--protocol",
            "legacy",
            "--url",
            &url,
            "--tool",
            "upload_file",
            "-a",
            "size_bytes=5000",
            "-a",
            "chunk_bytes=1000",
            "-a",
            "delay_ms=250",
            "--format",
            "json",
        ]);
        let report: Value = serde_json::from_str(&o.stdout).unwrap();
        let rules: Vec<&str> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap())
            .collect();
        assert!(rules.contains(&rule), "{mode}: {rules:?}");
        if mode == "buffered" {
            assert_eq!(o.code, 0, "buffering is a warning only: {}", o.stdout);
        } else {
            // Progress sent on another stream can also land after the
            // response (an error of its own); nothing else may show up.
            assert!(
                rules
                    .iter()
                    .all(|r| *r == rule || *r == "progress-after-response"),
                "{rules:?}"
            );
        }
    }
    let (_srv, url) = demo_http(&[]);
    let o = run(&[
        "check",
        "--url",
        &url,
        "--tool",
        "upload_file",
        "-a",
        "size_bytes=5000",
        "-a",
        "chunk_bytes=1000",
        "-a",
        "delay_ms=250",
        "--format",
        "json",
        "--strict",
    ]);
    assert_eq!(o.code, 0, "live delivery is clean: {}", o.stdout);
}

/// One raw POST to `/mcp`; the status and the body of the answer.
fn post_raw(url: &str, headers: &[(&str, &str)], body: &Value) -> (u16, String) {
    let port: u16 = url
        .trim_end_matches("/mcp")
        .rsplit(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let body = body.to_string();
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let extra: String = headers
        .iter()
        .map(|(k, v)| format!("{k}: {v}\r\n"))
        .collect();
    write!(s, "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n{extra}content-length: {}\r\nconnection: close\r\n\r\n{body}", body.len()).unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    let status = resp[9..12].parse().unwrap();
    let body = resp.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    (status, body.to_string())
}

#[test]
fn stateless_transport_rules_apply_without_the_fixtures() {
    let (_srv, url) = demo_http(&[]);
    let meta = |version: &str| {
        serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientCapabilities": {},
        })
    };
    let request = |id: u64, method: &str, meta: Value| serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"_meta": meta}});
    let headers = |method: &'static str, version: &'static str| {
        vec![("mcp-protocol-version", version), ("mcp-method", method)]
    };
    let error = |(status, body): (u16, String)| -> (u16, Value) {
        let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
        (status, v)
    };

    // Removed in 2026-07-28: not found, with the transport's 404 and the id.
    let (status, v) = error(post_raw(
        &url,
        &headers("ping", "2026-07-28"),
        &request(7, "ping", meta("2026-07-28")),
    ));
    assert_eq!(
        (status, &v["error"]["code"], &v["id"]),
        (404, &(-32601).into(), &7.into()),
        "{v}"
    );

    let mut incomplete = meta("2026-07-28");
    incomplete
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let (status, v) = error(post_raw(
        &url,
        &headers("tools/list", "2026-07-28"),
        &request(8, "tools/list", incomplete),
    ));
    assert_eq!(
        (status, &v["error"]["code"], &v["id"]),
        (400, &(-32602).into(), &8.into()),
        "{v}"
    );

    let (status, v) = error(post_raw(
        &url,
        &headers("tools/list", "2026-07-28"),
        &request(9, "tools/list", meta("v999")),
    ));
    assert_eq!(
        (status, &v["error"]["code"]),
        (400, &(-32020).into()),
        "{v}"
    );

    let (status, v) = error(post_raw(
        &url,
        &headers("prompts/list", "2026-07-28"),
        &request(10, "tools/list", meta("2026-07-28")),
    ));
    assert_eq!(
        (status, &v["error"]["code"]),
        (400, &(-32020).into()),
        "{v}"
    );

    let (status, v) = error(post_raw(
        &url,
        &headers("tools/list", "v999"),
        &request(11, "tools/list", meta("v999")),
    ));
    assert_eq!(
        (status, &v["error"]["code"]),
        (400, &(-32022).into()),
        "{v}"
    );
    assert_eq!(
        v["error"]["data"]["supported"],
        serde_json::json!(["2026-07-28"])
    );
    assert_eq!(v["error"]["data"]["requested"], "v999");

    // A well-formed stateless request is served as before, on its stream.
    let (status, body) = post_raw(
        &url,
        &headers("tools/list", "2026-07-28"),
        &request(12, "tools/list", meta("2026-07-28")),
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"resultType\":\"complete\""), "{body}");
}
