//! The stateless 2026-07-28 era against the official Python SDK (which speaks
//! it), over stdio and Streamable HTTP; `--protocol auto` falling back to the
//! handshake for a server that does not.

use crate::support::http::*;
use crate::support::*;
use serde_json::Value;
use std::process::Command;

const ENVELOPE: [&str; 3] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/clientInfo",
];

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn modern_stdio_discover_envelope_and_per_request_log_level() {
    let argv = python_server();
    let o = headless(["call"])
        .args([
            "--protocol",
            "modern",
            "--tool",
            "slow_task",
            "-a",
            "steps=2",
            "-a",
            "delay_ms=1",
            "--log-level",
            "warning",
        ])
        .server(&argv)
        .record()
        .expect(0);
    let lines = o.trace();
    assert_eq!(
        frames(&lines, "out", "initialize").count(),
        0,
        "no handshake in the stateless era"
    );
    assert_eq!(frames(&lines, "out", "server/discover").count(), 1);
    let call = frames(&lines, "out", "tools/call").next().unwrap();
    for key in ENVELOPE {
        assert!(call["params"]["_meta"].get(key).is_some(), "{key} missing");
    }
    assert_eq!(
        call["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(
        call["params"]["_meta"]["io.modelcontextprotocol/logLevel"],
        "warning"
    );
    assert_eq!(frames(&lines, "out", "logging/setLevel").count(), 0);
    // The server honours the per-request level: nothing below warning.
    let logs = o.lines("[log]");
    assert_eq!(logs.len(), 2, "{logs:?}");
    assert!(
        logs.iter()
            .all(|l| l.starts_with("[log] warning") || l.starts_with("[log] error"))
    );
    assert_eq!(o.lines("[progress]").len(), 2);
    let result: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(result["resultType"], "complete");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn modern_without_log_level_gets_no_logs() {
    let argv = python_server();
    let o = headless(["call"])
        .args([
            "--protocol",
            "modern",
            "--tool",
            "slow_task",
            "-a",
            "steps=1",
            "-a",
            "delay_ms=1",
        ])
        .server(&argv)
        .expect(0);
    assert!(
        o.lines("[log]").is_empty(),
        "a 2026 server must not log for a request without a level: {}",
        o.stderr
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn input_required_is_answered_and_retried() {
    let argv = python_server();
    let o = headless(["call"])
        .args([
            "--protocol",
            "modern",
            "--tool",
            "greet",
            "--elicit",
            "defaults",
        ])
        .server(&argv)
        .record()
        .expect(0);
    assert!(o.stdout.contains("Hello, world!"), "{}", o.stdout);
    let lines = o.trace();
    let calls: Vec<&Value> = frames(&lines, "out", "tools/call").collect();
    assert_eq!(calls.len(), 2, "the original call and its retry");
    assert_ne!(calls[0]["id"], calls[1]["id"], "a retry is a new request");
    let first = lines
        .iter()
        .find(|l| l["dir"] == "in" && l["json"]["id"] == calls[0]["id"])
        .unwrap();
    assert_eq!(first["json"]["result"]["resultType"], "input_required");
    assert_eq!(
        calls[1]["params"]["requestState"],
        first["json"]["result"]["requestState"]
    );
    let responses = calls[1]["params"]["inputResponses"].as_object().unwrap();
    assert_eq!(responses.len(), 1);
    assert_eq!(responses.values().next().unwrap()["action"], "accept");

    // The same tool in the handshake era asks mid-call instead.
    let o = headless(["call"])
        .args(["--tool", "greet", "--elicit", "defaults"])
        .server(&argv)
        .expect(0);
    assert!(o.stdout.contains("Hello, world!"));
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn auto_probes_then_falls_back_to_the_handshake() {
    let bin = everything();
    let argv = vec![bin.display().to_string(), "stdio".into()];
    let o = headless(["call"])
        .args(["--protocol", "auto", "--tool", "echo", "-a", "message=hi"])
        .server(&argv)
        .record()
        .expect(0);
    let lines = o.trace();
    assert_eq!(
        frames(&lines, "out", "server/discover").count(),
        1,
        "the probe is in the trace"
    );
    assert_eq!(frames(&lines, "out", "initialize").count(), 1);
    assert!(
        lines
            .iter()
            .any(|l| l["json"]["event"] == "era" && l["json"]["era"] == "handshake")
    );
    // The era auto chose is the first line of the run; why the probe fell
    // back (refused with -32601, the handshake era's normal answer) is said
    // with -v only.
    let said = o.lines("[session]");
    assert_eq!(said.len(), 1, "{}", o.stderr);
    assert!(
        said[0].contains("protocol 2025-11-25 (initialize handshake)"),
        "{}",
        said[0]
    );
    let o = headless(["call", "-v"])
        .args(["--protocol", "auto", "--tool", "echo", "-a", "message=hi"])
        .server(&argv)
        .expect(0);
    let said = o.lines("[session]");
    assert_eq!(said.len(), 2, "{}", o.stderr);
    assert!(
        said[0].contains("server/discover") && said[0].contains("-32601"),
        "{}",
        said[0]
    );
    assert!(
        said[1].contains("protocol 2025-11-25 (initialize handshake)"),
        "{}",
        said[1]
    );

    let py = python_server();
    let o = headless(["call"])
        .args([
            "--protocol",
            "auto",
            "--tool",
            "echo",
            "-a",
            "text=x",
            "--json",
        ])
        .server(&py)
        .expect(0);
    assert!(
        o.stdout.contains("\"resultType\":\"complete\""),
        "a modern server stays modern: {}",
        o.stdout
    );
    assert!(
        o.stderr.contains("protocol 2026-07-28 (stateless)"),
        "{}",
        o.stderr
    );
    // A server that declares logging sends none at 2026-07-28 unless asked.
    let mut logging = py.clone();
    logging.push("--logging".into());
    let o = headless([
        "call",
        "--protocol",
        "auto",
        "--tool",
        "echo",
        "-a",
        "text=x",
    ])
    .server(&logging)
    .expect(0);
    assert!(
        o.stderr
            .contains("none is asked: --log-level LEVEL shows its logs"),
        "{}",
        o.stderr
    );
    // Chosen by the user, the era is not announced.
    let o = headless([
        "call",
        "--protocol",
        "legacy",
        "--tool",
        "echo",
        "-a",
        "text=x",
    ])
    .server(&py)
    .expect(0);
    assert!(!o.stderr.contains("[session]"), "{}", o.stderr);
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn modern_over_http_headers_and_cancel_by_closing_the_stream() {
    let argv = python_server();
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]).args(["--http", "0"]);
    let (_srv, port) = start_reporting(cmd);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let o = headless([
        "call",
        "--url",
        &url,
        "--protocol",
        "modern",
        "--tool",
        "slow_task",
        "-a",
        "steps=2",
        "-a",
        "delay_ms=1",
        "--log-level",
        "debug",
    ])
    .expect(0);
    assert_eq!(o.lines("[progress]").len(), 2);
    assert_eq!(o.lines("[log]").len(), 4);
    let o = headless([
        "call",
        "--url",
        &url,
        "--protocol",
        "modern",
        "--tool",
        "slow_task",
        "-a",
        "steps=100",
        "-a",
        "delay_ms=100",
        "--max-timeout",
        "0.5",
    ])
    .record()
    .expect(4);
    let lines = o.trace();
    assert!(lines.iter().any(
        |l| l["json"]["event"] == "cancel" && l["json"]["how"] == "closed the response stream"
    ));
    assert_eq!(
        frames(&lines, "out", "notifications/cancelled").count(),
        0,
        "HTTP cancels by closing, not by notification"
    );
}

#[test]
fn modern_http_sends_method_and_name_headers() {
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<Req>::new()));
    let log = seen.clone();
    let port = raw_server(move |req| {
        log.lock().unwrap().push(req.clone());
        let v = req.json();
        let id = v["id"].clone();
        let result = match v["method"].as_str() {
            Some("server/discover") => {
                serde_json::json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
                                                          "resultType": "complete"})
            }
            _ => serde_json::json!({"content": [], "resultType": "complete"}),
        };
        Reply::Body(
            200,
            "application/json",
            serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
        )
    });
    headless([
        "call",
        "--url",
        &format!("http://127.0.0.1:{port}/mcp"),
        "--protocol",
        "modern",
        "--tool",
        "my_tool",
    ])
    .expect(0);
    let reqs = seen.lock().unwrap();
    let call = reqs
        .iter()
        .find(|r| r.json()["method"] == "tools/call")
        .unwrap();
    assert_eq!(call.header("mcp-method"), Some("tools/call"));
    assert_eq!(call.header("mcp-name"), Some("my_tool"));
    assert_eq!(call.header("mcp-protocol-version"), Some("2026-07-28"));
    assert!(call.header("mcp-session-id").is_none());
    let discover = reqs
        .iter()
        .find(|r| r.json()["method"] == "server/discover")
        .unwrap();
    assert_eq!(discover.header("mcp-method"), Some("server/discover"));
    assert!(discover.header("mcp-name").is_none());
    assert!(
        !reqs.iter().any(|r| r.method == "GET"),
        "no standalone GET stream in the stateless era"
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn listen_opens_the_change_stream_on_its_own_channel() {
    let argv = python_server();
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..]).args(["--http", "0"]);
    let (_srv, port) = start_reporting(cmd);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let o = headless([
        "call",
        "--url",
        &url,
        "--protocol",
        "modern",
        "--listen",
        "--tool",
        "echo",
        "-a",
        "text=x",
    ])
    .record()
    .expect(0);
    let lines = o.trace();
    let listen = frames(&lines, "out", "subscriptions/listen")
        .next()
        .expect("a listen request");
    assert_eq!(listen["params"]["notifications"]["toolsListChanged"], true);
    let out = lines
        .iter()
        .find(|l| l["json"]["method"] == "subscriptions/listen")
        .unwrap();
    let ch = out["ch"].as_str().unwrap();
    assert!(ch.starts_with("listen:"), "{ch}");
    let ack = lines
        .iter()
        .find(|l| l["json"]["method"] == "notifications/subscriptions/acknowledged")
        .expect("acknowledged");
    assert_eq!(
        ack["ch"], ch,
        "the stream's notifications arrive on its own channel"
    );
    assert_eq!(
        ack["json"]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        listen["id"]
    );
}

/// A stateless-only server slower to answer than the probe's limit: the
/// probe gives up, `initialize` is refused with -32022, and discovery runs
/// again instead of failing the session; its late answer to the probe is
/// not held against it.
#[test]
fn auto_discovers_again_a_server_slower_than_the_probe() {
    let server = [
        "python3",
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/servers/late_discover.py"
        ),
    ];
    let o = headless([
        "call",
        "--protocol",
        "auto",
        "--probe-timeout",
        "0.2",
        "--tool",
        "echo",
    ])
    .server(server)
    .record()
    .expect(0);
    assert!(
        o.stdout.contains("\"resultType\": \"complete\""),
        "{}",
        o.stdout
    );
    assert!(
        o.stderr.contains("initialize refused with -32022")
            && o.stderr.contains("protocol 2026-07-28 (stateless)"),
        "{}",
        o.stderr
    );
    assert!(!o.stderr.contains("[finding]"), "{}", o.stderr);
    let lines = o.trace();
    assert_eq!(frames(&lines, "out", "server/discover").count(), 2);
    assert_eq!(frames(&lines, "out", "initialize").count(), 1);
    let rec = o.trace_path();
    let check = run(&["check", "--trace", rec.to_str().unwrap(), "--strict"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
}
