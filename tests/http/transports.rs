//! HTTP transports end to end: real peers (server-everything over Streamable
//! HTTP and HTTP+SSE, the Python SDK over Streamable HTTP) and a raw loopback
//! server for the failures real servers only produce by accident.

use crate::support::http::*;
use crate::support::*;
use std::process::Command;

/// `mcpscope call --url URL EXTRA...`, in the handshake era unless EXTRA
/// names one: its transport (sessions, the GET stream, resumption,
/// HTTP+SSE) is what these tests are about, and the raw servers here answer
/// the first POST as if it were `initialize`.
fn call_url(url: &str, extra: &[&str]) -> Headless {
    let era: &[&str] = if extra.contains(&"--protocol") {
        &[]
    } else {
        &["--protocol", "legacy"]
    };
    headless(["call", "--url", url]).args(era).args(extra)
}

fn everything_http(mode: &str) -> (Bg, u16) {
    let bin = everything();
    let preload = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/report_port.cjs");
    let mut cmd = Command::new(bin);
    cmd.arg(mode)
        .env("PORT", "0")
        .env("NODE_OPTIONS", format!("--require {preload}"));
    start_reporting(cmd)
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn everything_streamable_http_progress_and_session() {
    let (_srv, port) = everything_http("streamableHttp");
    let url = format!("http://127.0.0.1:{port}/mcp");
    let o = call_url(
        &url,
        &[
            "--tool",
            "trigger-long-running-operation",
            "-a",
            "duration=0.6",
            "-a",
            "steps=3",
        ],
    )
    .record()
    .expect(0);
    assert_eq!(o.lines("[progress]").len(), 3, "{}", o.stderr);
    let lines = o.trace();
    // Progress travels on the tools/call POST's own stream, before its response.
    let call = lines
        .iter()
        .find(|l| l["dir"] == "out" && l["json"]["method"] == "tools/call")
        .unwrap();
    let ch = call["ch"].as_str().unwrap().to_string();
    assert!(ch.starts_with("post:"));
    let on_ch: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["dir"] == "in" && l["ch"] == ch.as_str())
        .collect();
    assert_eq!(on_ch.len(), 4);
    assert!(
        on_ch[..3]
            .iter()
            .all(|l| l["json"]["method"] == "notifications/progress")
    );
    // The call's own response (server-everything declares tasks for
    // tools/call, so the tools are listed first to read the tool's taskSupport).
    assert_eq!(on_ch[3]["json"]["id"], call["json"]["id"]);
    // The session id from initialize is echoed, and the session is deleted at the end.
    let session = lines
        .iter()
        .find_map(|l| l["json"]["session"].as_str().filter(|s| !s.is_empty()))
        .unwrap();
    assert!(
        lines
            .iter()
            .any(|l| l["json"]["method"] == "DELETE" && l["json"]["session"] == session)
    );
    assert!(
        lines
            .iter()
            .any(|l| l["ch"] == "get" && l["json"]["event"] == "http"),
        "standalone GET stream opened"
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn everything_legacy_sse_is_detected() {
    let (_srv, port) = everything_http("sse");
    let url = format!("http://127.0.0.1:{port}/sse");
    let o = call_url(
        &url,
        &[
            "--tool",
            "trigger-long-running-operation",
            "-a",
            "duration=0.4",
            "-a",
            "steps=2",
        ],
    )
    .record()
    .expect(0);
    assert_eq!(o.lines("[progress]").len(), 2, "{}", o.stderr);
    let lines = o.trace();
    assert!(
        lines
            .iter()
            .any(|l| l["json"]["event"] == "transport-detect" && l["json"]["flavor"] == "sse")
    );
    assert!(lines.iter().any(|l| l["json"]["event"] == "endpoint"));
    assert!(
        o.lines("[finding]").is_empty(),
        "a legacy server answering on its SSE stream is correct: {}",
        o.stderr
    );
    assert!(frames(&lines, "in", "notifications/progress").all(|_| true));
    assert!(
        lines
            .iter()
            .filter(|l| l["dir"] == "in")
            .all(|l| l["ch"] == "sse")
    );

    // Forced: --transport sse goes straight to the SSE stream.
    let o = call_url(
        &url,
        &[
            "--transport",
            "sse",
            "--tool",
            "echo",
            "-a",
            "message=hi",
            "--json",
        ],
    )
    .expect(0);
    assert!(o.stdout.contains("Echo: hi"));
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn python_sdk_over_streamable_http() {
    let argv = python_server();
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]).args(["--http", "0"]);
    let (_srv, port) = start_reporting(cmd);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let o = call_url(
        &url,
        &["--tool", "slow_task", "-a", "steps=2", "-a", "delay_ms=10"],
    )
    .expect(0);
    assert_eq!(
        o.lines("[progress]"),
        vec![
            "[progress] slow_task 1/2 (50%) step 1 of 2",
            "[progress] slow_task 2/2 (100%) step 2 of 2"
        ]
    );
    assert_eq!(o.lines("[log]").len(), 4, "{}", o.stderr);
    let o = call_url(
        &url,
        &[
            "--tool",
            "echo",
            "-a",
            "text=x",
            "--protocol",
            "2024-11-05",
            "--json",
        ],
    )
    .run();
    assert_eq!(o.code, 0, "older revisions over HTTP: {}", o.stderr);
}

fn init_or(req: &Req, then: impl Fn(&Req) -> Reply) -> Reply {
    match req.json()["method"].as_str() {
        Some("initialize") => {
            let mut v: serde_json::Value = serde_json::from_str(INIT_RESULT).unwrap();
            v["id"] = req.json()["id"].clone();
            Reply::Body(200, "application/json", v.to_string())
        }
        Some("notifications/initialized") | Some("notifications/cancelled") => {
            Reply::Body(202, "text/plain", String::new())
        }
        _ if req.method == "GET" && req.header("last-event-id").is_none() => {
            Reply::Body(405, "text/plain", String::new())
        }
        _ if req.method == "DELETE" => Reply::Body(200, "text/plain", String::new()),
        _ => then(req),
    }
}

fn progress(p: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"mcpscope-1","progress":{p},"total":3}}}}"#
    )
}

/// Streamable HTTP orders nothing between streams: a log the server sends on
/// its standalone GET stream can arrive after the response on the POST
/// stream (rmcp sends its logs there). `call` keeps listening a moment after
/// the response, so that log is printed and recorded, not lost.
#[test]
fn log_on_the_get_stream_after_the_response_is_kept() {
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let get = std::sync::Mutex::new(Some(rx));
    let tx = std::sync::Mutex::new(tx);
    let port = raw_server(move |req| match req.json()["method"].as_str() {
        Some("initialize" | "notifications/initialized") => init_or(req, |_| Reply::Hang),
        Some("tools/call") => {
            let tx = tx.lock().unwrap().clone();
            // The server's log leaves 50 ms after its response: what the
            // client sees when the two streams are scheduled that way.
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(50));
                let log = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"raw","data":"late on GET"}}"#;
                let _ = tx.send(format!("data: {log}\n\n"));
            });
            Reply::Body(
                200,
                "application/json",
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}"#.into(),
            )
        }
        _ if req.method == "GET" => match get.lock().unwrap().take() {
            Some(rx) => Reply::SseLater(rx),
            None => Reply::Hang,
        },
        _ => init_or(req, |_| Reply::Body(400, "text/plain", "unexpected".into())),
    });
    let o = call_url(&format!("http://127.0.0.1:{port}/mcp"), &["--tool", "t"])
        .record()
        .expect(0);
    assert_eq!(
        o.lines("[log]"),
        vec!["[log] warning raw: late on GET"],
        "{}",
        o.stderr
    );
    let lines = o.trace();
    assert!(
        lines
            .iter()
            .any(|l| l["ch"] == "get" && l["json"]["params"]["data"] == "late on GET"),
        "and recorded"
    );
}

#[test]
fn dropped_stream_is_resumed_without_loss_or_duplicates() {
    let port = raw_server(|req| {
        init_or(req, |req| {
            match (req.method.as_str(), req.header("last-event-id")) {
                ("POST", _) => Reply::Sse(format!(
                    "id: e0\nretry: 10\ndata:\n\nid: e1\ndata: {}\n\nid: e2\ndata: {}\n\n",
                    progress(1),
                    progress(2)
                )),
                ("GET", Some("e2")) => Reply::Sse(format!(
                    "id: e3\ndata: {}\n\nid: e4\ndata: {}\n\n",
                    progress(3),
                    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}"#
                )),
                _ => Reply::Body(400, "text/plain", "unexpected".into()),
            }
        })
    });
    let o = call_url(&format!("http://127.0.0.1:{port}/mcp"), &["--tool", "t"])
        .record()
        .expect(0);
    assert_eq!(
        o.lines("[progress]"),
        vec![
            "[progress] t 1/3 (33%)",
            "[progress] t 2/3 (66%)",
            "[progress] t 3/3 (100%)"
        ]
    );
    let lines = o.trace();
    let resume = lines
        .iter()
        .find(|l| l["json"]["event"] == "resume")
        .expect("the resumption is in the trace");
    assert_eq!(resume["json"]["last_event_id"], "e2");
    assert_eq!(resume["json"]["after_ms"], 10, "retry is honoured");
    assert!(lines.iter().any(|l| l["json"]["event"] == "sse-priming"));
}

#[test]
fn html_error_page_is_kept_and_fails_clearly() {
    let port = raw_server(|_| {
        Reply::Body(
            500,
            "text/html",
            "<html><body>Internal Server Error</body></html>".into(),
        )
    });
    let o = call_url(
        &format!("http://127.0.0.1:{port}/mcp"),
        &["--tool", "t", "--transport", "http"],
    )
    .record()
    .expect(3);
    assert!(o.stderr.contains("HTTP 500"), "{}", o.stderr);
    let lines = o.trace();
    assert!(
        lines
            .iter()
            .any(|l| l["dir"] == "in" && l["text"].as_str().is_some_and(|t| t.contains("<html>"))),
        "the body is kept"
    );
    assert!(
        o.stderr.contains("[protocol]"),
        "and reported: {}",
        o.stderr
    );
}

#[test]
fn stream_cut_mid_event_fails_the_call_and_keeps_the_partial() {
    let port = raw_server(|req| {
        init_or(req, |_| {
            Reply::Sse(format!(
                "data: {}\n\ndata: {{\"jsonrpc\":\"2.0\",\"id\":1,\"res",
                progress(1)
            ))
        })
    });
    let o = call_url(&format!("http://127.0.0.1:{port}/mcp"), &["--tool", "t"])
        .record()
        .expect(3);
    assert!(
        o.stderr.contains("closed before the response"),
        "{}",
        o.stderr
    );
    assert_eq!(o.lines("[progress]").len(), 1);
    let lines = o.trace();
    let cut = lines
        .iter()
        .find(|l| l["json"]["event"] == "stream-cut")
        .expect("partial event kept");
    assert!(cut["json"]["partial"].as_str().unwrap().contains("\"res"));
}

#[test]
fn a_byte_order_mark_opening_an_sse_stream_is_ignored() {
    // The POST's stream and the GET that resumes it each open with one.
    let port = raw_server(|req| {
        init_or(req, |req| match req.method.as_str() {
            "POST" => Reply::Sse(format!(
                "\u{FEFF}data: {}\nid: e1\nretry: 10\n\n",
                progress(1)
            )),
            _ => Reply::Sse(format!(
                "\u{FEFF}data: {}\nid: e2\n\n",
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}"#
            )),
        })
    });
    let o = call_url(&format!("http://127.0.0.1:{port}/mcp"), &["--tool", "t"]).expect(0);
    assert_eq!(o.lines("[progress]"), vec!["[progress] t 1/3 (33%)"]);
}

#[test]
fn a_server_that_never_answers_times_out() {
    let port = raw_server(|req| init_or(req, |_| Reply::Hang));
    let o = call_url(
        &format!("http://127.0.0.1:{port}/mcp"),
        &["--tool", "t", "--timeout", "0.5"],
    )
    .expect(4);
    assert!(o.stderr.contains("timed out"), "{}", o.stderr);
}

#[test]
fn connection_refused_is_a_connection_failure() {
    let (_bound, port) = refusing_port();
    let o = call_url(&format!("http://127.0.0.1:{port}/mcp"), &["--tool", "t"]).expect(3);
    assert!(o.stderr.to_lowercase().contains("connect"), "{}", o.stderr);
    // Not an http(s) URL: a usage error, known before connecting.
    call_url("ftp://127.0.0.1/x", &["--tool", "t"]).expect(2);
}

#[test]
fn an_expired_session_is_reinitialized_and_the_call_retried() {
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let inits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (c, i) = (calls.clone(), inits.clone());
    let port = raw_server(move |req| {
        use std::sync::atomic::Ordering::SeqCst;
        if req.json()["method"] == "initialize" {
            i.fetch_add(1, SeqCst);
        }
        init_or(req, |req| {
            if c.fetch_add(1, SeqCst) == 0 {
                return Reply::Body(404, "text/plain", "no such session".into());
            }
            let id = req.json()["id"].clone();
            Reply::Body(
                200,
                "application/json",
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}})
                    .to_string(),
            )
        })
    });
    let o = call_url(&format!("http://127.0.0.1:{port}/mcp"), &["--tool", "t"])
        .record()
        .expect(0);
    assert_eq!(
        inits.load(std::sync::atomic::Ordering::SeqCst),
        2,
        "a new session was started"
    );
    let lines = o.trace();
    assert!(
        lines
            .iter()
            .any(|l| l["json"]["event"] == "session-expired")
    );
    assert!(lines.iter().any(|l| l["json"]["event"] == "reinitialize"));
    assert_eq!(frames(&lines, "out", "tools/call").count(), 2);
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn everything_simulated_logging_arrives_on_the_get_stream() {
    let (_srv, port) = everything_http("streamableHttp");
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("g.jsonl");
    let url = format!("http://127.0.0.1:{port}/mcp");
    // `check` keeps the session open a while after the call (--settle-ms),
    // long enough for the first simulated log, which is sent at once.
    let o = run(&[
        "check",
        "--url",
        &url,
        "--tool",
        "toggle-simulated-logging",
        "--settle-ms",
        "1500",
        "--record",
        rec.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let lines = trace_lines(&rec);
    let logs: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["dir"] == "in" && l["json"]["method"] == "notifications/message")
        .collect();
    assert!(!logs.is_empty(), "a simulated log arrived");
    assert!(
        logs.iter().all(|l| l["ch"] == "get"),
        "over HTTP, server-everything logs only on the GET stream"
    );
}

#[test]
fn a_notification_post_that_never_answers_delays_but_does_not_block_the_call() {
    let port = raw_server(|req| match req.json()["method"].as_str() {
        Some("notifications/initialized") => Reply::Hang,
        _ => init_or(req, |req| {
            let id = req.json()["id"].clone();
            Reply::Body(
                200,
                "application/json",
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}})
                    .to_string(),
            )
        }),
    });
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("d.jsonl");
    let url = format!("http://127.0.0.1:{port}/mcp");
    // The wait is shortened for the test; its length is what the event reports.
    let mut cmd = Command::new(BIN);
    cmd.args(["call", "--url", &url, "--tool", "t", "--timeout", "30"])
        .args(["--record", rec.to_str().unwrap()])
        .env("MCPSCOPE_DELIVERY_WAIT_MS", "300")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let o = finish(cmd.spawn().unwrap());
    assert_eq!(o.code, 0, "the call still reaches the server: {}", o.stderr);
    let lines = trace_lines(&rec);
    let stall = lines
        .iter()
        .find(|l| l["json"]["event"] == "slow-delivery")
        .expect("the stall is visible");
    assert_eq!(stall["json"]["waited_ms"], 300);
}

/// The TypeScript SDK's stock example server (`simpleStreamableHttp.js`,
/// without OAuth), on a port it chose.
fn ts_sdk_http() -> (Bg, u16) {
    let node = peer("node/node_modules/node/bin/node");
    let entry = peer(
        "node/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js",
    );
    let preload = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/report_port.cjs");
    let mut cmd = Command::new(node);
    cmd.arg(entry)
        .env("MCP_PORT", "0")
        .env("NODE_OPTIONS", format!("--require {preload}"));
    start_reporting(cmd)
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn the_answer_to_the_auto_probe_is_not_judged_against_a_stock_ts_sdk_server() {
    // It answers the session-less `server/discover` with HTTP 400 and
    // `id: null`: that refuses mcpscope's own probe, and breaks no rule.
    let (_srv, port) = ts_sdk_http();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("auto.jsonl");
    let o = run(&[
        "check",
        "--url",
        &url,
        "--protocol",
        "auto",
        "--tool",
        "greet",
        "-a",
        "name=probe",
        "--strict",
        "--record",
        rec.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(!o.stdout.contains("response-null-id"), "{}", o.stdout);
    // The probe was answered that way: the test shows what it claims.
    let lines = trace_lines(&rec);
    assert!(
        lines.iter().any(|l| l["dir"] == "meta"
            && l["json"]["event"] == "http"
            && l["json"]["status"] == 400),
        "the probe was not refused: {lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l["dir"] == "in" && l["json"]["id"].is_null())
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn the_probes_normal_answers_are_said_only_with_verbose() {
    // The stock TypeScript server refuses the era probe (HTTP 400): that is
    // how a server of the handshake era answers it, not something to fix.
    let (_srv, port) = ts_sdk_http();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let args = ["call", "--url", &url, "--tool", "greet", "-a", "name=probe"];
    let o = headless(args).expect(0);
    assert!(o.lines("[http]").is_empty(), "{}", o.stderr);
    assert!(o.lines("[protocol]").is_empty(), "{}", o.stderr);
    assert!(!o.stderr.contains("server/discover probe"), "{}", o.stderr);
    assert_eq!(o.lines("[session]").len(), 1, "{}", o.stderr);
    // With -v the probe's answer and the fallback are said.
    let o = headless(args).args(["-v"]).expect(0);
    assert!(
        o.stderr.contains("server/discover probe") && !o.lines("[http]").is_empty(),
        "{}",
        o.stderr
    );

    // A legacy HTTP+SSE server refuses the POST of `initialize` before its
    // stream is found: said with -v only.
    let (_srv, port) = everything_http("sse");
    let url = format!("http://127.0.0.1:{port}/sse");
    let args = ["call", "--url", &url, "--tool", "echo", "-a", "message=hi"];
    let o = headless(args).expect(0);
    assert!(o.lines("[http]").is_empty(), "{}", o.stderr);
    assert!(o.lines("[protocol]").is_empty(), "{}", o.stderr);
    let o = headless(args).args(["-v"]).expect(0);
    assert!(!o.lines("[http]").is_empty(), "{}", o.stderr);
}
