//! `mcpscope mock` with mcpscope itself as the host: a session recorded
//! against the real demo server (stdio or Streamable HTTP, either era) is
//! served back, over stdio and over HTTP, and `mcpscope call` prints the
//! same progress, log and notification lines and the same result as it did
//! live (and for sessions the HTTP proxy and the TUI recorded); requests the
//! recording lacks are refused naming what it has; a
//! trace that cannot be served is a usage error (exit 2); the HTTP
//! listener is loopback-only and refuses foreign origins.

use crate::support::http::{Bg, start_reporting};
use crate::support::{BIN, headless, run};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The lines of `call`'s stderr that come from the server's frames (not
/// its stderr, which the mock does not replay, nor findings, whose seq
/// numbers differ).
fn server_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| {
            ["[progress]", "[log]", "[notification]"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .collect()
}

fn mock_http(trace: &Path) -> (Bg, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(["mock", trace.to_str().unwrap(), "--http", "127.0.0.1:0"]);
    let (bg, port) = start_reporting(cmd);
    (bg, format!("http://127.0.0.1:{port}/mcp"))
}

fn demo_http() -> (Bg, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(["demo-server", "--http", "127.0.0.1:0"]);
    let (bg, port) = start_reporting(cmd);
    (bg, format!("http://127.0.0.1:{port}/mcp"))
}

/// Record `call ARGS` live into `dir`, then run the same call against the
/// mock over stdio and over HTTP: the same lines and result each time.
fn same_against_the_mock(dir: &Path, name: &str, live_server: &[&str], call: &[&str]) {
    let trace = dir.join(format!("{name}.jsonl"));
    let live = headless(["call"])
        .args(call)
        .args(live_server)
        .args(["--record", trace.to_str().unwrap()])
        .expect(0);
    let lines = server_lines(&live.stderr);
    assert!(
        !lines.is_empty(),
        "{name}: the live call printed progress: {}",
        live.stderr
    );
    let mock = [BIN, "mock", trace.to_str().unwrap()];
    let stdio = headless(["call"]).args(call).server(mock).expect(0);
    let (_bg, url) = mock_http(&trace);
    let http = headless(["call"])
        .args(call)
        .args(["--url", &url])
        .expect(0);
    for (how, o) in [("stdio", &stdio), ("http", &http)] {
        assert_eq!(
            server_lines(&o.stderr),
            lines,
            "{name} via the {how} mock:\n{}",
            o.stderr
        );
        assert_eq!(o.json(), live.json(), "{name} via the {how} mock");
    }
}

const REPORT: [&str; 6] = [
    "--tool",
    "build_report",
    "--args",
    r#"{"tasks":3,"delay_ms":20}"#,
    "--log-level",
    "debug",
];

#[test]
fn call_prints_against_the_mock_what_it_printed_live() {
    let dir = tempfile::tempdir().unwrap();
    same_against_the_mock(dir.path(), "stdio", &["--demo"], &REPORT);
    let modern: Vec<&str> = REPORT
        .iter()
        .copied()
        .chain(["--protocol", "modern"])
        .collect();
    same_against_the_mock(dir.path(), "modern", &["--demo"], &modern);
    let (_demo, url) = demo_http();
    same_against_the_mock(dir.path(), "http", &["--url", &url], &REPORT);
    let wizard = [
        "--tool",
        "interactive_wizard",
        "--args",
        r#"{"questions":2,"delay_ms":20}"#,
        "--elicit",
        "defaults",
    ];
    same_against_the_mock(dir.path(), "wizard", &["--demo"], &wizard);
}

fn recorded(dir: &Path) -> PathBuf {
    recorded_with(dir, &[])
}

/// `recorded`, with more options for the recording's session.
fn recorded_with(dir: &Path, extra: &[&str]) -> PathBuf {
    let trace = dir.join("t.jsonl");
    headless(["call", "--demo"])
        .args(REPORT)
        .args(extra)
        .args(["--record", trace.to_str().unwrap()])
        .expect(0);
    trace
}

#[test]
fn requests_the_recording_lacks_are_refused_saying_what_it_has() {
    let dir = tempfile::tempdir().unwrap();
    let trace = recorded(dir.path());
    let mock = [BIN, "mock", trace.to_str().unwrap()];
    let o = headless(["request", "resources/list"]).server(mock).run();
    assert_ne!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("-32601")
            && o.stderr.contains(
                "no resources/list was recorded (recorded requests: server/discover, tools/call)"
            ),
        "{}",
        o.stderr
    );
    let o = headless([
        "call",
        "--tool",
        "build_report",
        "--args",
        r#"{"tasks":3,"delay_ms":21}"#,
    ])
    .server(mock)
    .expect(1);
    assert!(
        o.stderr.contains("-32602") && o.stderr.contains("arguments.delay_ms: recorded 20, got 21"),
        "{}",
        o.stderr
    );
    // The mock says so on its own stderr too, which `call` shows.
    assert!(
        o.stderr
            .contains("[stderr] [mock] refused a request: no recorded tools/call"),
        "{}",
        o.stderr
    );
}

#[test]
fn a_trace_that_cannot_be_served_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(recorded(dir.path())).unwrap();
    let header = good.lines().next().unwrap();
    let cut = &good[..good.len() - 40];
    let cases = [
        (
            "garbage",
            "\u{1b}[31mnot a trace at all\n".to_string(),
            "header is not JSON",
        ),
        ("foreign", "{\"hello\":1}\n".into(), "not an mcpscope trace"),
        (
            "bad-line",
            format!("{header}\n{{\"seq\":0}}\n"),
            "t.jsonl:2: ",
        ),
        ("cut", cut.to_string(), "trace ends mid-line after event"),
        ("empty", String::new(), "empty file"),
        ("no-client", format!("{header}\n"), "nothing to serve"),
    ];
    for (name, text, want) in cases {
        let path = dir.path().join(format!("{name}.t.jsonl"));
        std::fs::write(&path, text).unwrap();
        let o = run(&["mock", path.to_str().unwrap()]);
        assert_eq!(o.code, 2, "{name}: {}", o.stderr);
        assert!(
            o.stderr.starts_with("[error] ") && o.stderr.contains(want),
            "{name}: {}",
            o.stderr
        );
        assert!(!o.stderr.contains('\u{1b}'), "{name}: {}", o.stderr);
    }
    let o = run(&["mock", "/nonexistent/t.jsonl"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("cannot read trace /nonexistent/t.jsonl"),
        "{}",
        o.stderr
    );
    let trace = dir.path().join("t.jsonl");
    let t = trace.to_str().unwrap();
    for (args, want) in [
        (
            vec!["--speed", "-1"],
            "expected 0 (at once) or 0.01 to 1000",
        ),
        (vec!["--speed", "fast"], "is not a number"),
        (vec!["--http", "0.0.0.0:0"], "not a loopback address"),
    ] {
        let o = run(&[&["mock", t][..], &args].concat());
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains(want), "{args:?}: {}", o.stderr);
    }
}

#[test]
fn the_http_mock_refuses_foreign_origins() {
    let dir = tempfile::tempdir().unwrap();
    // A handshake session: the raw requests below are `initialize`.
    let trace = recorded_with(dir.path(), &["--protocol", "legacy"]);
    let (_bg, url) = mock_http(&trace);
    let port: u16 = url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let post = |origin: &str| {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            s,
            "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\norigin: {origin}\r\ncontent-type: application/json\r\n\
             accept: application/json, text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut resp = String::new();
        s.read_to_string(&mut resp).unwrap();
        resp
    };
    let refused = post("http://evil.example.com");
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");
    let served = post(&format!("http://127.0.0.1:{port}"));
    assert!(served.starts_with("HTTP/1.1 200"), "{served}");
    assert!(
        served.contains("mcp-session-id: mock-") && served.contains("\"protocolVersion\""),
        "{served}"
    );
}

#[test]
fn a_session_recorded_by_the_http_proxy_is_served_too() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("proxy.jsonl");
    let (_demo, url) = demo_http();
    let mut proxy = Command::new(BIN);
    proxy
        .args([
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--url",
            &url,
            "--record",
        ])
        .arg(&trace)
        .env("MCPSCOPE_RUNTIME_DIR", dir.path());
    let (mut proxy, port) = start_reporting(proxy);
    let via_proxy = format!("http://127.0.0.1:{port}/mcp");
    let live = headless(["call"])
        .args(REPORT)
        .args(["--url", &via_proxy])
        .expect(0);
    // SIGTERM: the proxy completes its recording before it exits.
    // SAFETY: kill(2) on our own child, which has not been waited for.
    unsafe { libc::kill(proxy.0.id() as libc::pid_t, libc::SIGTERM) };
    let _ = proxy.0.wait();
    let header = &crate::support::trace_lines(&trace)[0];
    assert!(header["proxy"].is_object(), "a proxy's recording: {header}");
    let mock = [BIN, "mock", trace.to_str().unwrap()];
    let o = headless(["call"]).args(REPORT).server(mock).expect(0);
    assert_eq!(
        server_lines(&o.stderr),
        server_lines(&live.stderr),
        "{}",
        o.stderr
    );
    assert_eq!(o.json(), live.json());
}

/// Three hosts at once through the HTTP proxy, the same call with the same
/// ids and progress token: the mock serves each host session's recording,
/// each call with its own four progress notifications (not 0, 0 and 12) —
/// host sessions of the handshake era, and the 2026-07-28 era's exchanges.
#[test]
fn each_host_session_of_a_proxy_recording_is_served_its_own_progress() {
    for era in ["2025-11-25", "2026-07-28"] {
        served_its_own_progress(era);
    }
}

fn served_its_own_progress(era: &str) {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("proxy.jsonl");
    let (_demo, url) = demo_http();
    let mut proxy = Command::new(BIN);
    proxy
        .args([
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--url",
            &url,
            "--record",
        ])
        .arg(&trace)
        .env("MCPSCOPE_RUNTIME_DIR", dir.path());
    let (mut proxy, port) = start_reporting(proxy);
    let via_proxy = format!("http://127.0.0.1:{port}/mcp");
    let upload = [
        "--tool",
        "upload_file",
        "--args",
        r#"{"size_bytes":1048576,"chunk_bytes":262144,"delay_ms":150}"#,
        "--token",
        "tk",
        "--protocol",
        era,
    ];
    // Started together, the calls overlap: each lasts over half a second.
    let hosts: Vec<_> = (0..3)
        .map(|_| {
            Command::new(BIN)
                .args(["call", "--url", &via_proxy])
                .args(upload)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for h in hosts {
        let o = h.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{era}: {err}");
        assert_eq!(err.matches("[progress]").count(), 4, "{era}: {err}");
    }
    // SAFETY: kill(2) on our own child, which has not been waited for.
    unsafe { libc::kill(proxy.0.id() as libc::pid_t, libc::SIGTERM) };
    let _ = proxy.0.wait();
    let mock = [BIN, "mock", trace.to_str().unwrap()];
    for _ in 0..3 {
        let o = headless(["call"]).args(upload).server(mock).expect(0);
        let n = o.stderr.matches("[progress]").count();
        assert_eq!(n, 4, "{era} stdio: {}", o.stderr);
    }
    let (_bg, mock_url) = mock_http(&trace);
    for _ in 0..3 {
        let o = headless(["call"])
            .args(upload)
            .args(["--url", &mock_url])
            .expect(0);
        let n = o.stderr.matches("[progress]").count();
        assert_eq!(n, 4, "{era} http: {}", o.stderr);
    }
}

#[test]
#[ignore = "needs tmux"]
fn a_session_recorded_by_the_tui_is_served_too() {
    use crate::support::tmux::{Tmux, require_tmux};
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("tui.jsonl");
    let t = Tmux::start_sized(
        "mock-tui",
        &format!(
            r#"demo --record '{}' --run 'build_report {{"tasks": 2, "delay_ms": 20}}'"#,
            trace.display()
        ),
        120,
        40,
    );
    t.wait_for("the call done", 30, |s| s.contains("done in"));
    t.keys(&["q"]);
    // mcpscope completes its recording before it exits (the script then
    // prints its exit code).
    t.wait_for("mcpscope's exit", 20, |s| s.contains("EXIT=0"));
    let lines = crate::support::trace_lines(&trace);
    let call = lines
        .iter()
        .find(|l| l["dir"] == "out" && l["json"]["method"] == "tools/call")
        .expect("the TUI's call");
    let args = call["json"]["params"]["arguments"].to_string();
    let progress: Vec<&str> = lines
        .iter()
        .filter(|l| l["dir"] == "in" && l["json"]["method"] == "notifications/progress")
        .filter_map(|l| l["json"]["params"]["message"].as_str())
        .collect();
    assert_eq!(progress.len(), 2, "{lines:?}");
    let mock = [BIN, "mock", trace.to_str().unwrap()];
    let o = headless(["call", "--tool", "build_report", "--args", &args])
        .server(mock)
        .expect(0);
    let printed = o.lines("[progress]");
    assert_eq!(printed.len(), progress.len(), "{}", o.stderr);
    for (line, message) in printed.iter().zip(&progress) {
        assert!(line.ends_with(message), "{line} / {message}");
    }
    assert_eq!(o.json()["structuredContent"]["tasks"], 2, "{}", o.stdout);
}

/// `call`'s stderr without the server's own stderr lines, seq numbers
/// (`#12`) masked (the mock does not replay stderr, so seqs shift), sorted
/// (a finding's line and a progress line of one batch may print in either
/// order).
fn masked(stderr: &str) -> Vec<String> {
    let mut lines: Vec<String> = stderr
        .lines()
        .filter(|l| !l.starts_with("[stderr]"))
        .map(|l| {
            let mut out = String::new();
            let mut after_hash = false;
            for c in l.chars() {
                if after_hash && c.is_ascii_digit() {
                    continue;
                }
                after_hash = c == '#';
                out.push(c);
            }
            out
        })
        .collect();
    lines.sort();
    lines
}

/// (Not `fault_duplicate_response` nor `fault_after_response`: whether
/// `call` reads what comes after the response before it stops is a race
/// live already, and on a loaded machine against the mock too.)
#[test]
fn a_faulty_server_is_replayed_with_its_faults() {
    let dir = tempfile::tempdir().unwrap();
    for tool in ["fault_stdout_garbage", "fault_not_increasing"] {
        let trace = dir.path().join(format!("{tool}.jsonl"));
        let live = headless([
            "call",
            "--demo",
            "--tool",
            tool,
            "--record",
            trace.to_str().unwrap(),
        ])
        .run();
        let mock = [BIN, "mock", trace.to_str().unwrap()];
        let o = headless(["call", "--tool", tool]).server(mock).run();
        assert_eq!(o.code, live.code, "{tool}: {}", o.stderr);
        assert!(
            live.stderr.contains("[finding] "),
            "{tool}: {}",
            live.stderr
        );
        assert_eq!(masked(&o.stderr), masked(&live.stderr), "{tool}");
    }
}

/// `mcpscope mock TRACE` over stdio with pipes, as a host runs it.
fn mock_stdio_child(trace: &Path) -> std::process::Child {
    Command::new(BIN)
        .args(["mock", trace.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_request_whose_id_is_an_object_is_refused_with_id_null() {
    let dir = tempfile::tempdir().unwrap();
    let trace = recorded(dir.path());
    let mut mock = mock_stdio_child(&trace);
    mock.stdin
        .take()
        .unwrap()
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"tools/list\"}\n")
        .unwrap();
    let o = mock.wait_with_output().unwrap();
    let line = String::from_utf8_lossy(&o.stdout);
    let v: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(v["id"], serde_json::Value::Null, "{line}");
    assert_eq!(v["error"]["code"], -32600, "{line}");
    assert!(v.get("result").is_none(), "{line}");
}

#[test]
fn a_host_that_stops_reading_ends_the_mock_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let trace = recorded(dir.path());
    let mut mock = mock_stdio_child(&trace);
    drop(mock.stdout.take());
    let mut stdin = mock.stdin.take().unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .unwrap();
    // Stdin stays open: the mock must notice on its own that its answer
    // cannot reach the host (a deadline, not a pause, bounds the wait).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(s) = mock.try_wait().unwrap() {
            break s;
        }
        if std::time::Instant::now() > deadline {
            let _ = mock.kill();
            panic!("the mock kept running with no one reading its answers");
        }
        std::thread::yield_now();
    };
    drop(stdin);
    let mut err = String::new();
    mock.stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(3), "{err}");
    assert!(err.contains("cannot write to the host"), "{err}");
}

/// A raw `initialize` POSTed to the HTTP mock of `trace`: the whole answer.
fn post_initialize(trace: &Path) -> String {
    let (_bg, url) = mock_http(trace);
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut got = String::new();
    let _ = s.read_to_string(&mut got);
    got
}

#[test]
fn an_initialize_is_answered_from_a_2026_recording_and_refused_by_one_with_no_handshake() {
    let dir = tempfile::tempdir().unwrap();
    // 2026-07-28: answered from the recorded server/discover, at the
    // revision the host asked, in a session of its own.
    let trace = recorded_with(dir.path(), &["--protocol", "2026-07-28"]);
    let got = post_initialize(&trace);
    assert!(
        got.to_ascii_lowercase().contains("mcp-session-id: mock-"),
        "{got}"
    );
    let data = got
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap_or_else(|| panic!("{got}"));
    let v: serde_json::Value = serde_json::from_str(data).unwrap();
    assert_eq!(v["result"]["protocolVersion"], "2025-06-18", "{v}");
    assert_eq!(v["result"]["serverInfo"]["name"], "mcpscope-demo", "{v}");
    assert!(v["result"]["capabilities"]["tools"].is_object(), "{v}");
    // A handshake-era recording that starts after its handshake (its
    // initialize cut off) has nothing to answer one from.
    let legacy = recorded_with(dir.path(), &["--protocol", "legacy"]);
    let text = std::fs::read_to_string(&legacy).unwrap();
    let cut: Vec<&str> = text
        .lines()
        .filter(|l| {
            let e: serde_json::Value = serde_json::from_str(l).unwrap();
            e["json"]["method"] != "initialize" && e["json"]["id"] != 0
        })
        .collect();
    let cut_path = dir.path().join("cut.jsonl");
    std::fs::write(&cut_path, cut.join("\n") + "\n").unwrap();
    let got = post_initialize(&cut_path);
    assert!(got.contains("no initialize was recorded"), "{got}");
    assert!(
        !got.to_ascii_lowercase().contains("mcp-session-id"),
        "a session opened for a refusal: {got}"
    );
}
