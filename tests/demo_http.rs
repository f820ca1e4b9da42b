//! The demo server over Streamable HTTP, in both eras, driven by the real
//! client: progress on the request's own stream in real time, sessions,
//! resumption after a forced disconnect, and the two delivery faults.

mod common;

use common::http::*;
use common::*;
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

fn record(url: &str, extra: &[&str]) -> (Output, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("t.jsonl");
    let mut args = vec!["call", "--url", url];
    args.extend_from_slice(extra);
    args.extend(["--record", rec.to_str().unwrap()]);
    let o = run(&args);
    let lines = trace_lines(&rec);
    (o, lines)
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
    let (_srv, url) = demo_http(&[]);
    let (o, lines) = record(&url, &["--tool", "echo", "-a", "x=1"]);
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

#[test]
fn buffered_and_wrong_stream_delivery_are_findings() {
    for (mode, rule) in [
        ("buffered", "progress-buffered"),
        ("wrong-stream", "notification-wrong-stream"),
    ] {
        let (_srv, url) = demo_http(&["--progress", mode]);
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
