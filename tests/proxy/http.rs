//! `mcpscope proxy --listen --url`: the demo server over Streamable HTTP
//! behind the HTTP proxy, on loopback ports the processes bind themselves.
//! A host (mcpscope's own client) gets the same through the proxy as
//! directly; SSE reaches it as the server writes it, not when the stream
//! ends; exchanges are recorded on the client's channels without header
//! values; Host and Origin are checked.

use crate::support;

use crate::support::BIN;
use crate::support::http::{Bg, Reply, raw_server, start_reporting};
use crate::support::proxy::assert_server_not_blamed;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn demo_http() -> (Bg, u16) {
    let mut c = Command::new(BIN);
    c.args(["demo-server", "--http", "127.0.0.1:0"]);
    start_reporting(c)
}

fn proxy(upstream: u16, trace: &Path, rt: &Path) -> (Bg, u16) {
    proxy_to(&format!("http://127.0.0.1:{upstream}/mcp"), trace, rt, &[])
}

/// The proxy for the server at `url`, recording to `trace`, with `env`.
fn proxy_to(url: &str, trace: &Path, rt: &Path, env: &[(&str, &str)]) -> (Bg, u16) {
    let mut c = Command::new(BIN);
    c.args(["proxy", "--listen", "127.0.0.1:0", "--url", url])
        .arg("--record")
        .arg(trace)
        .env("MCPSCOPE_RUNTIME_DIR", rt)
        .envs(env.iter().copied());
    start_reporting(c)
}

/// End the proxy as a host's user would (SIGTERM) and wait for it: its
/// trace is complete then.
fn stop(mut proxy: Bg) -> std::process::ExitStatus {
    // SAFETY: kill(2) on our own child, which has not been waited for.
    unsafe { libc::kill(proxy.0.id() as i32, libc::SIGTERM) };
    proxy.0.wait().unwrap()
}

fn call(port: u16, extra: &[&str]) -> support::Output {
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut args = vec![
        "call",
        "--url",
        &url,
        "--tool",
        "upload_file",
        "--args",
        r#"{"size_bytes": 1048576, "chunk_bytes": 262144, "delay_ms": 10}"#,
    ];
    args.extend_from_slice(extra);
    support::run(&args)
}

/// One raw HTTP/1.1 request; what came back within the read timeout.
fn raw(port: u16, head: &str, body: &str, until: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "{head}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    read_until(&mut s, until).0
}

/// What `s` sent until `until` arrived, and whether it did (or the stream
/// ended or timed out first).
fn read_until(s: &mut TcpStream, until: &str) -> (String, bool) {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains(until) {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => return (String::from_utf8_lossy(&got).into_owned(), false),
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    (String::from_utf8_lossy(&got).into_owned(), true)
}

/// In both eras: a handshake session (with its `Mcp-Session-Id`) and a
/// stateless one (none).
#[test]
fn a_host_gets_the_same_through_the_http_proxy_and_exchanges_are_recorded() {
    for era in ["legacy", "auto"] {
        the_same_through_the_http_proxy(era);
    }
}

fn the_same_through_the_http_proxy(era: &str) {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, sport) = demo_http();
    let (_proxy, pport) = proxy(sport, &trace, d.path());
    let direct = call(sport, &["--protocol", era]);
    let through = call(
        pport,
        &[
            "--protocol",
            era,
            "-H",
            "Authorization: Bearer s3cret-token",
        ],
    );
    assert_eq!(direct.code, 0, "{}", direct.stderr);
    assert_eq!(through.code, 0, "{}", through.stderr);
    // The upload's path is random; everything else is the same.
    let strip = |s: &str| -> String {
        s.lines()
            .filter(|l| !l.contains("/uploads/"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&direct.stdout), strip(&through.stdout));
    assert!(
        !through.lines("[progress]").is_empty(),
        "{}",
        through.stderr
    );

    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(!text.contains("s3cret"), "a header value reached the trace");
    let lines = support::trace_lines(&trace);
    let ev = |l: &serde_json::Value| l["json"]["event"].as_str().map(str::to_string);
    let posts: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l["dir"] == "meta" && ev(l).as_deref() == Some("http"))
        .collect();
    assert!(
        posts
            .iter()
            .any(|l| l["ch"] == "post:1" && l["json"]["status"] == 200)
    );
    let sessions = posts.iter().any(|l| l["json"]["session"].is_string());
    assert_eq!(
        sessions,
        era == "legacy",
        "{era}: sessions are the handshake era's"
    );
    let seq = |dir: &str, pred: &dyn Fn(&serde_json::Value) -> bool| {
        lines
            .iter()
            .filter(|l| l["dir"] == dir && pred(&l["json"]))
            .map(|l| l["seq"].as_u64().unwrap())
            .collect::<Vec<_>>()
    };
    let call_seq = seq("out", &|j| j["method"] == "tools/call");
    let progress = seq("in", &|j| j["method"] == "notifications/progress");
    let response = seq("in", &|j| j["result"]["content"].is_array());
    // The demo server coalesces progress at this pace; the host saw every
    // notification the proxy recorded, and the proxy recorded every one the
    // host saw.
    assert_eq!(progress.len(), through.lines("[progress]").len());
    assert_eq!((call_seq.len(), response.len()), (1, 1));
    assert!(!progress.is_empty());
    assert!(call_seq[0] < progress[0] && progress[progress.len() - 1] < response[0]);
    let ch = |s: u64| lines.iter().find(|l| l["seq"] == s).unwrap()["ch"].clone();
    assert_eq!(ch(call_seq[0]), ch(response[0]));
}

#[test]
fn sse_reaches_the_host_as_it_is_written_and_rebinding_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, sport) = demo_http();
    let (_proxy, pport) = proxy(sport, &trace, d.path());
    let host = format!("Host: 127.0.0.1:{pport}\r\n");
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let head = format!(
        "POST /mcp HTTP/1.1\r\n{host}Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
    );
    let got = raw(pport, &head, init, "serverInfo");
    let session = got
        .lines()
        .find_map(|l| l.strip_prefix("mcp-session-id: "))
        .expect("the session id header comes through")
        .trim()
        .to_string();
    // fault_hang sends one progress notification and never answers: the
    // stream stays open, so a buffering proxy would deliver nothing.
    let hang = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fault_hang","arguments":{},"_meta":{"progressToken":"h"}}}"#;
    let head = format!(
        "POST /mcp HTTP/1.1\r\n{host}Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\nMcp-Session-Id: {session}\r\nMcp-Protocol-Version: 2025-06-18\r\n"
    );
    let got = raw(pport, &head, hang, "notifications/progress");
    assert!(got.contains("notifications/progress"), "{got}");
    assert!(
        got.to_ascii_lowercase()
            .contains("content-type: text/event-stream"),
        "{got}"
    );

    let evil = raw(
        pport,
        "POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\n",
        init,
        "}}",
    );
    assert!(evil.starts_with("HTTP/1.1 403"), "{evil}");
    let origin = raw(
        pport,
        &format!(
            "POST /mcp HTTP/1.1\r\n{host}Origin: http://evil.example\r\nContent-Type: application/json\r\n"
        ),
        init,
        "}}",
    );
    assert!(origin.starts_with("HTTP/1.1 403"), "{origin}");
}

/// The body of a response read to its end (HTTP/1.0: neither chunked
/// nor kept alive, so the bytes after the head are the body as sent).
fn body_of(port: u16, body: &str) -> (String, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "POST /mcp HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut got = Vec::new();
    s.read_to_end(&mut got).unwrap();
    let at = got
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a response head");
    (
        String::from_utf8_lossy(&got[..at]).into_owned(),
        got[at + 4..].to_vec(),
    )
}

#[test]
fn a_byte_order_mark_reaches_the_host_and_is_not_in_the_recorded_events() {
    let answer = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
    let sse = format!("\u{FEFF}data: {answer}\n\n");
    let sent = sse.clone();
    let sport = raw_server(move |_| Reply::Sse(sent.clone()));
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (proxy, pport) = proxy(sport, &trace, d.path());
    let (head, body) = body_of(pport, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert!(head.starts_with("HTTP/1.0 200"), "{head}");
    assert_eq!(body, sse.as_bytes(), "the host gets the bytes as sent");
    assert_eq!(stop(proxy).code(), Some(143));
    let lines = support::trace_lines(&trace);
    let answers: Vec<&serde_json::Value> = lines.iter().filter(|l| l["dir"] == "in").collect();
    assert_eq!(answers.len(), 1, "{lines:?}");
    assert_eq!(answers[0]["json"]["id"], 1, "{lines:?}");
}

/// The proxy with `env`, its stderr kept: the port it reports, and
/// what else it says, whole once it has ended.
fn proxy_saying(
    upstream: u16,
    trace: &Path,
    rt: &Path,
    env: &[(&str, &str)],
) -> (Bg, u16, std::thread::JoinHandle<String>) {
    use std::io::BufRead;
    let mut child = Command::new(BIN)
        .args(["proxy", "--listen", "127.0.0.1:0", "--url"])
        .arg(format!("http://127.0.0.1:{upstream}/mcp"))
        .arg("--record")
        .arg(trace)
        .env("MCPSCOPE_RUNTIME_DIR", rt)
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let bg = Bg(child);
    let first = lines
        .next()
        .expect("the proxy says where it listens")
        .unwrap();
    let port = first
        .split_once("http://127.0.0.1:")
        .and_then(|(_, rest)| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .unwrap_or_else(|| panic!("no port in {first:?}"));
    let rest =
        std::thread::spawn(move || lines.map_while(Result::ok).collect::<Vec<_>>().join("\n"));
    (bg, port, rest)
}

#[test]
fn an_observer_that_cannot_keep_up_costs_the_host_nothing_and_says_so() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, sport) = demo_http();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let (_, direct) = body_of(sport, init);
    // A queue of one byte: the observer keeps nothing but the exchanges' heads.
    let (proxy, pport, said) =
        proxy_saying(sport, &trace, d.path(), &[("MCPSCOPE_PROXY_QUEUE", "1")]);
    let mut sent = 0;
    let mut got = 0;
    for _ in 0..3 {
        let (head, body) = body_of(pport, init);
        assert!(head.starts_with("HTTP/1.0 200"), "{head}");
        assert_eq!(body, direct, "the host gets what it gets directly");
        sent += init.len() as u64;
        got += body.len() as u64;
    }
    assert_eq!(stop(proxy).code(), Some(143));
    let said = said.join().unwrap();
    assert!(
        said.contains(&format!(
            "the observer fell behind: {} bytes were forwarded but are missing from the trace",
            sent + got
        )),
        "{said}"
    );
    let lines = support::trace_lines(&trace);
    let behind = |stream: &str| -> u64 {
        lines
            .iter()
            .filter(|l| l["json"]["event"] == "observer-behind" && l["json"]["stream"] == stream)
            .map(|l| l["json"]["bytes"].as_u64().unwrap())
            .sum()
    };
    assert_eq!((behind("host→server"), behind("server→host")), (sent, got));
    assert!(!lines.iter().any(|l| l["dir"] == "in" || l["dir"] == "out"));
    let heads = lines
        .iter()
        .filter(|l| l["json"]["event"] == "http")
        .count();
    assert_eq!(heads, 3, "an exchange's head is never dropped");
}

#[test]
fn listening_beyond_loopback_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let out = Command::new(BIN)
        .args([
            "proxy",
            "--listen",
            "0.0.0.0:0",
            "--url",
            "http://127.0.0.1:9/mcp",
        ])
        .env("MCPSCOPE_RUNTIME_DIR", d.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a loopback address"));
}

/// A legacy HTTP+SSE server whose `endpoint` event is an absolute URL on
/// its own origin: through the proxy, the host's POSTs must come to the
/// proxy too (the event is rewritten to a path on the proxy), or the proxy
/// would see only one side of the session.
#[test]
fn a_legacy_absolute_endpoint_keeps_the_host_on_the_proxy() {
    let mut c = Command::new("python3");
    c.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/servers/legacy_absolute_endpoint.py"
    ));
    let (_srv, upstream) = start_reporting(c);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("p.jsonl");
    let upstream_url = format!("http://127.0.0.1:{upstream}/sse");
    let (p, port) = proxy_to(&upstream_url, &trace, dir.path(), &[]);
    let url = format!("http://127.0.0.1:{port}/sse");
    let o = support::run(&[
        "call",
        "--url",
        &url,
        "--transport",
        "sse",
        "--tool",
        "echo",
        "-a",
        "text=through",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("through"), "{}", o.stdout);
    stop(p);
    let lines = support::trace_lines(&trace);
    let sent: Vec<&str> = lines
        .iter()
        .filter(|l| l["dir"] == "out")
        .filter_map(|l| l["json"]["method"].as_str())
        .collect();
    assert!(
        sent.contains(&"initialize") && sent.contains(&"tools/call"),
        "the host's requests came through the proxy: {sent:?}"
    );
    // The endpoint is recorded as the server named it, as the client
    // records it: a meta event, not a frame; and the session checks clean.
    let endpoint = lines
        .iter()
        .find(|l| l["json"]["event"] == "endpoint")
        .expect("the endpoint event");
    assert_eq!(
        endpoint["json"]["url"],
        format!("http://127.0.0.1:{upstream}/messages?sessionId=1")
    );
    let check = support::run(&["check", "--trace", trace.to_str().unwrap()]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);
}

/// A redirect to the server's own origin stays on the proxy (its Location
/// becomes a path); one to another origin passes as written.
#[test]
fn a_redirect_to_the_servers_origin_stays_on_the_proxy() {
    let port_cell = std::sync::Arc::new(std::sync::OnceLock::<u16>::new());
    let cell = port_cell.clone();
    let sport = raw_server(move |req| {
        let me = *cell.get().unwrap();
        let to = if req.body.contains("elsewhere") {
            "http://elsewhere.example/mcp".to_string()
        } else {
            format!("http://127.0.0.1:{me}/moved?x=1")
        };
        Reply::With(307, vec![("location".into(), to)], String::new())
    });
    port_cell.set(sport).unwrap();
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (proxy, pport) = proxy(sport, &trace, d.path());
    let (head, _) = body_of(pport, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
    assert!(head.starts_with("HTTP/1.0 307"), "{head}");
    assert!(
        head.to_ascii_lowercase().contains("location: /moved?x=1\r"),
        "{head}"
    );
    let (head, _) = body_of(pport, r#"{"jsonrpc":"2.0","id":2,"method":"elsewhere"}"#);
    assert!(
        head.to_ascii_lowercase()
            .contains("location: http://elsewhere.example/mcp"),
        "{head}"
    );
    stop(proxy);
}

/// Request bodies held at once are bounded: with room for 4 KiB, two
/// requests declaring 4 KiB each cannot be held together: whichever comes
/// second waits (counted in `sessions --json`) until the first has gone
/// upstream, even while the first is still arriving; both get through.
#[test]
fn request_bodies_held_at_once_are_bounded() {
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let tx = std::sync::Mutex::new(tx);
    let sport = raw_server(move |req| {
        let _ = tx.lock().unwrap().send(req.body.clone());
        Reply::Body(
            200,
            "application/json",
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.into(),
        )
    });
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (proxy, pport) = proxy_to(
        &format!("http://127.0.0.1:{sport}/mcp"),
        &trace,
        d.path(),
        &[("MCPSCOPE_PROXY_REQUEST_KIB", "4")],
    );
    let body = |id: u32| {
        let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"pad":""#);
        let pad = "x".repeat(4096 - head.len() - 3);
        format!("{head}{pad}\"}}}}")
    };
    let (one, two) = (body(1), body(2));
    assert_eq!((one.len(), two.len()), (4096, 4096));
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{pport}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 4096\r\n\r\n"
    );
    // The first still arriving, the second whole.
    let mut a = TcpStream::connect(("127.0.0.1", pport)).unwrap();
    a.write_all(head.as_bytes()).unwrap();
    a.write_all(&one.as_bytes()[..100]).unwrap();
    let mut b = TcpStream::connect(("127.0.0.1", pport)).unwrap();
    b.write_all(format!("{head}{two}").as_bytes()).unwrap();
    let waited = || {
        let out = Command::new(BIN)
            .args(["sessions", "--json"])
            .env("MCPSCOPE_RUNTIME_DIR", d.path())
            .output()
            .unwrap();
        let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        list[0]["requests_waited"].as_u64().unwrap_or(0)
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while waited() < 1 {
        assert!(
            std::time::Instant::now() < deadline,
            "neither request waited"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    a.write_all(&one.as_bytes()[100..]).unwrap();
    let mut got = [
        rx.recv_timeout(Duration::from_secs(30)).unwrap(),
        rx.recv_timeout(Duration::from_secs(30)).unwrap(),
    ];
    got.sort();
    assert_eq!(got, [one, two]);
    assert_eq!(waited(), 1);
    stop(proxy);
}

/// `check --trace FILE --format json`, parsed.
fn check_json(trace: &Path) -> serde_json::Value {
    let out = support::run(&[
        "check",
        "--trace",
        trace.to_str().unwrap(),
        "--format",
        "json",
    ]);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

fn rules_of(report: &serde_json::Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

/// A raw Streamable HTTP host: initialize, then the session id.
fn initialize(port: u16) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
    );
    let got = raw(port, &head, body, "\"result\"");
    got.lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("mcp-session-id:")
                .map(|_| l.split_once(':').unwrap().1.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session id: {got}"))
}

/// Send a request in `session` and keep its response stream open until
/// `until` has arrived on it; the stream is returned still open.
fn hold(port: u16, session: &str, body: &str, until: &str) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let (got, arrived) = read_until(&mut s, until);
    assert!(arrived, "the stream ended before {until}: {got}");
    s
}

const SLOW_CALL: &str = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"upload_file","arguments":{"size_bytes":1048576,"chunk_bytes":16384,"delay_ms":1000},"_meta":{"progressToken":"tk"}}}"#;

#[test]
fn two_host_sessions_with_the_same_ids_are_judged_each_on_its_own() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, sport) = demo_http();
    let (proxy, pport) = proxy(sport, &trace, d.path());
    let (a, b) = (initialize(pport), initialize(pport));
    assert_ne!(a, b);
    // Both hosts use id 5 and token "tk" at once, each in its own session:
    // correct, and nothing may be said about it.
    let held_a = hold(pport, &a, SLOW_CALL, "notifications/progress");
    let held_b = hold(pport, &b, SLOW_CALL, "notifications/progress");
    drop((held_a, held_b));
    stop(proxy);
    let report = check_json(&trace);
    let rules = rules_of(&report);
    for wrong in [
        "client-request-id-reused",
        "client-duplicate-progress-token",
        "notification-wrong-stream",
        "progress-not-increasing",
    ] {
        assert!(!rules.iter().any(|r| r == wrong), "{wrong}: {report:#}");
    }
    // Each call's statistics count its own host's progress only.
    let lines = support::trace_lines(&trace);
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2, "{report:#}");
    for c in calls {
        let seq = c["request_seq"].as_u64().unwrap();
        let ch = lines.iter().find(|l| l["seq"] == seq).unwrap()["ch"].clone();
        let own = lines
            .iter()
            .filter(|l| l["ch"] == ch && l["json"]["method"] == "notifications/progress")
            .count();
        assert!(own > 0);
        assert_eq!(c["notifications"], own, "{c}");
    }
    // The same session as a proxy recorded it before it told host sessions
    // apart: the rules that keep a session's ids and tokens are not judged
    // once a second host began, and the report says so — never a false error.
    let old = recorded_before_host_sessions(&trace, d.path());
    let report = check_json(&old);
    let rules = rules_of(&report);
    assert!(
        !report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["severity"] == "error" || f["severity"] == "warning"),
        "{report:#}"
    );
    let unknown = &report["summary"]["sessions_unknown"];
    assert!(unknown["from_seq"].as_u64().is_some(), "{report:#}");
    assert!(!rules.iter().any(|r| r == "client-request-id-reused"));
    let text = support::run(&["check", "--trace", old.to_str().unwrap()]);
    assert!(
        text.stdout.contains(": 0 error(s), 0 warning(s)"),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("does not tell host sessions apart"),
        "{}",
        text.stdout
    );
}

/// `trace` as the HTTP proxy recorded it before it told host sessions
/// apart: no `host-request` events, every GET stream on channel `get`.
fn recorded_before_host_sessions(trace: &Path, dir: &Path) -> std::path::PathBuf {
    let old = dir.join("old.jsonl");
    let text = std::fs::read_to_string(trace).unwrap();
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["json"]["event"] == "host-request" {
                continue;
            }
            if v["ch"].as_str().is_some_and(|c| c.starts_with("get:")) {
                v["ch"] = "get".into();
            }
            out.push_str(&v.to_string());
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    assert!(out.len() < text.len(), "no host-request event to remove");
    std::fs::write(&old, out).unwrap();
    old
}

#[test]
fn one_host_reusing_an_id_in_its_session_is_still_found() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, sport) = demo_http();
    let (proxy, pport) = proxy(sport, &trace, d.path());
    let a = initialize(pport);
    let first = hold(pport, &a, SLOW_CALL, "notifications/progress");
    // The server may refuse it at once: what matters is that it was sent.
    let second = hold(pport, &a, SLOW_CALL, "data:");
    // Live, `sessions --json` counts the finding under its host session.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let hosts = loop {
        let o = Command::new(BIN)
            .args(["sessions", "--json"])
            .env("MCPSCOPE_RUNTIME_DIR", d.path())
            .output()
            .unwrap();
        let list: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let hosts = list[0]["hosts"].clone();
        if hosts.as_array().is_some_and(|h| !h.is_empty()) {
            break hosts;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no host sessions listed: {list}"
        );
    };
    assert_eq!(hosts[0]["session"], a.as_str(), "{hosts}");
    // The id and the token both reused while in flight: two errors.
    assert_eq!(hosts[0]["findings"][0], 2, "{hosts}");
    drop((first, second));
    stop(proxy);
    let report = check_json(&trace);
    let found: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "client-request-id-reused")
        .collect();
    assert_eq!(found.len(), 1, "{report:#}");
    assert_eq!(
        found[0]["session"],
        a.as_str(),
        "the finding names its session"
    );
    // Recorded before host sessions were told apart, one host is still one
    // session: its reused id is found all the same.
    let old = recorded_before_host_sessions(&trace, d.path());
    let report = check_json(&old);
    assert!(
        rules_of(&report)
            .iter()
            .any(|r| r == "client-request-id-reused"),
        "{report:#}"
    );
    assert!(
        report["summary"]["sessions_unknown"].is_null(),
        "{report:#}"
    );
}

#[test]
fn a_2026_host_closing_a_response_stream_cancels_the_call() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, sport) = demo_http();
    let (proxy, pport) = proxy(sport, &trace, d.path());
    let body = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"upload_file","arguments":{"size_bytes":1048576,"chunk_bytes":16384,"delay_ms":100},"_meta":{"progressToken":"tk","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let mut s = TcpStream::connect(("127.0.0.1", pport)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{pport}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: upload_file\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let (got, arrived) = read_until(&mut s, "notifications/progress");
    assert!(arrived, "{got}");
    // The host cancels as that era does: it closes the stream.
    drop(s);
    // The proxy records the close once the server's next write fails to
    // reach the host; wait for it in the live trace, not for a time.
    let lines = || support::trace_lines(&trace);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !lines().iter().any(|l| l["json"]["event"] == "cancel") {
        assert!(std::time::Instant::now() < deadline, "no cancel recorded");
        std::thread::yield_now();
    }
    stop(proxy);
    let cancel = lines()
        .into_iter()
        .find(|l| l["json"]["event"] == "cancel")
        .unwrap();
    assert_eq!(cancel["json"]["request"], 7);
    let report = check_json(&trace);
    let rules = rules_of(&report);
    assert!(
        rules
            .iter()
            .any(|r| r == "client-cancelled-during-progress"),
        "{report:#}"
    );
    let text = support::run(&["check", "--trace", trace.to_str().unwrap()]);
    assert!(
        !text
            .stdout
            .contains("no response by the end of the session"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("cancelled"), "{}", text.stdout);
}

/// The official Python SDK client as a host over HTTP (`sdk_http_host.py`).
fn py_http_host(url: &str, tool: &str, args: &str) -> Command {
    let py = support::peer("venv/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/sdk_http_host.py");
    let mut c = Command::new(py);
    c.arg(script).args([url, tool, args]);
    c
}

#[test]
#[ignore = "needs peers (tests/peers/install.sh): Python SDK"]
fn two_python_sdk_hosts_at_once_through_the_proxy_are_each_correct() {
    use std::io::BufRead;
    use std::process::Stdio;
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let mut server = Command::new(&support::python_server()[0]);
    server
        .args(&support::python_server()[1..])
        .args(["--http", "0", "--logging"]);
    let (_server, sport) = start_reporting(server);
    let (proxy, pport) = proxy(sport, &trace, d.path());
    let url = format!("http://127.0.0.1:{pport}/mcp");
    // Host A's call waits in its elicitation while host B runs a whole
    // session: both use request id 1..3 and progress token = id, in flight
    // at once.
    let mut a = py_http_host(&url, "greet", "{}")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut a_out = std::io::BufReader::new(a.stdout.take().unwrap());
    let mut line = String::new();
    a_out.read_line(&mut line).unwrap();
    assert!(line.contains("elicited"), "{line}");
    let b = py_http_host(&url, "slow_task", r#"{"steps": 3, "delay_ms": 10}"#)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let b = support::finish(b);
    assert_eq!(b.code, 0, "{}", b.stderr);
    assert!(b.stdout.contains("step 3 of 3"), "{}", b.stdout);
    a.stdin.take().unwrap().write_all(b"go\n").unwrap();
    let mut rest = String::new();
    a_out.read_to_string(&mut rest).unwrap();
    assert!(a.wait().unwrap().success());
    assert!(rest.contains("Hello, proxy!"), "{rest}");
    stop(proxy);
    let report = check_json(&trace);
    assert_eq!(report["findings"], serde_json::json!([]), "{report:#}");
    assert_eq!(report["summary"]["passed"], true, "{report:#}");
    let sessions: std::collections::BTreeSet<String> = support::trace_lines(&trace)
        .iter()
        .filter(|l| l["json"]["event"] == "host-request")
        .filter_map(|l| l["json"]["session"].as_str().map(str::to_string))
        .collect();
    assert_eq!(sessions.len(), 2, "{sessions:?}");
}

/// At 2026-07-28 every request is an exchange of its own, and the server's
/// `server/discover` answer says what the server declares for all of them:
/// a server that logs without declaring `logging` is found through the
/// proxy as it is by a direct `check`; one that declares it is not.
#[test]
#[ignore = "needs peers (tests/peers/install.sh): Python SDK"]
fn a_2026_server_logging_undeclared_is_found_through_the_proxy() {
    for (declares, found) in [(false, 2), (true, 0)] {
        let d = tempfile::tempdir().unwrap();
        let trace = d.path().join("t.jsonl");
        let mut server = Command::new(&support::python_server()[0]);
        server
            .args(&support::python_server()[1..])
            .args(["--http", "0"]);
        if declares {
            server.arg("--logging");
        }
        let (_server, sport) = start_reporting(server);
        let (proxy, pport) = proxy(sport, &trace, d.path());
        let url = format!("http://127.0.0.1:{pport}/mcp");
        let o = support::run(&[
            "call",
            "--url",
            &url,
            "--protocol",
            "modern",
            "--tool",
            "log_only",
            "--log-level",
            "debug",
        ]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert_eq!(o.lines("[log]").len(), 2, "{}", o.stderr);
        stop(proxy);
        let report = check_json(&trace);
        assert_eq!(report["era"], "stateless", "{report:#}");
        let undeclared = rules_of(&report)
            .iter()
            .filter(|r| *r == "log-without-capability")
            .count();
        assert_eq!(
            undeclared, found,
            "declares logging: {declares}: {report:#}"
        );
    }
}

/// The HTTP proxy to the demo server with `--faults` (each value), a
/// recording, and the call the host then made through it.
fn faulted_call(faults: &[&str], dir: &Path) -> (support::Output, std::path::PathBuf, Duration) {
    let trace = dir.join(format!("t{}.jsonl", faults.len()));
    let (_server, sport) = demo_http();
    let url = format!("http://127.0.0.1:{sport}/mcp");
    let mut c = Command::new(BIN);
    c.args(["proxy", "--listen", "127.0.0.1:0", "--url", &url])
        .arg("--record")
        .arg(&trace)
        .env("MCPSCOPE_RUNTIME_DIR", dir);
    for f in faults {
        c.args(["--faults", f]);
    }
    let (proxy, pport) = start_reporting(c);
    let started = std::time::Instant::now();
    let out = call(pport, &["--protocol", "2025-11-25"]);
    let took = started.elapsed();
    assert_eq!(stop(proxy).code(), Some(143));
    (out, trace, took)
}

fn injected(trace: &Path) -> Vec<serde_json::Value> {
    support::trace_lines(trace)
        .into_iter()
        .filter(|l| l["json"]["event"] == "injected")
        .map(|l| l["json"].clone())
        .collect()
}

/// `slow-server` over HTTP: each of the server's messages (the JSON
/// answers and every SSE event) reaches the host 300 ms late, in order;
/// the recording has them as the server sent them, with a `delay` each.
#[test]
fn slow_server_delays_every_server_message_over_http() {
    let d = tempfile::tempdir().unwrap();
    let (out, trace, took) = faulted_call(&["slow-server:300ms"], d.path());
    assert_eq!(out.code, 0, "{}", out.stderr);
    // initialize's answer, the call's progress and its result: each late.
    assert!(took >= Duration::from_millis(600), "{took:?}");
    let progress = out.lines("[progress]");
    assert!(progress.len() >= 2, "{}", out.stderr);
    let inj = injected(&trace);
    assert!(inj.len() > progress.len(), "{inj:#?}");
    assert!(inj.iter().all(|e| e["action"] == "delay"
        && e["stream"] == "server→host"
        && e["detail"] == "300 ms"));
    let recorded = support::trace_lines(&trace)
        .iter()
        .filter(|l| l["dir"] == "in" && l["json"]["method"] == "notifications/progress")
        .count();
    assert_eq!(recorded, progress.len());
    assert_server_not_blamed(&trace);
}

/// `status`: the host's tools/call is answered 503 by the proxy and never
/// reaches the server; a host's message delayed goes on later. Neither is
/// held against the server.
#[test]
fn status_answers_for_the_server_and_delay_holds_a_host_message_over_http() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("faults.toml");
    std::fs::write(
        &file,
        "[[rule]]\nmatch = \"out && method == tools/call\"\naction = \"status\"\ncode = 503\n\n\
         [[rule]]\nmatch = \"out && method == initialize\"\naction = \"delay\"\nms = 250\n",
    )
    .unwrap();
    let (out, trace, took) = faulted_call(&[file.to_str().unwrap()], d.path());
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("503"), "{}", out.stderr);
    assert!(took >= Duration::from_millis(250), "{took:?}");
    let inj = injected(&trace);
    let actions: Vec<&str> = inj.iter().filter_map(|e| e["action"].as_str()).collect();
    assert_eq!(actions, ["delay", "status"], "{inj:#?}");
    assert_eq!(inj[1]["detail"], "answered HTTP 503 in the server's place");
    assert!(
        inj[1]["original"]
            .as_str()
            .is_some_and(|o| o.contains("tools/call"))
    );
    // The host sent it (recorded), the server answered nothing to it.
    let lines = support::trace_lines(&trace);
    assert!(
        lines
            .iter()
            .any(|l| l["dir"] == "out" && l["json"]["method"] == "tools/call")
    );
    assert!(
        !lines
            .iter()
            .any(|l| l["dir"] == "in" && l["json"]["result"]["content"].is_array())
    );
    assert_server_not_blamed(&trace);
}

/// `drop-sse-stream`: each call's response stream is closed before its
/// first progress. The host resumes it with GET + `Last-Event-ID`; the
/// server replays that progress there, and the call completes with all of
/// it. The recording has each progress once, on the call's own stream, the
/// `close-stream` change, the resume and the replay; nothing is blamed on
/// the server.
#[test]
fn drop_sse_stream_makes_the_host_resume_and_the_server_is_not_blamed() {
    let d = tempfile::tempdir().unwrap();
    let (out, trace, _) = faulted_call(&["drop-sse-stream"], d.path());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines = support::trace_lines(&trace);
    let progress = frames_in(&lines, &|j| j["method"] == "notifications/progress");
    // The host got every progress the server sent, each once.
    assert_eq!(
        progress.len(),
        out.lines("[progress]").len(),
        "{}",
        out.stderr
    );
    assert!(progress.len() >= 2, "{}", out.stderr);
    let call_ch = lines
        .iter()
        .find(|l| l["dir"] == "out" && l["json"]["method"] == "tools/call")
        .unwrap()["ch"]
        .clone();
    assert!(
        progress.iter().all(|(_, ch)| *ch == call_ch),
        "{progress:?}"
    );
    let inj = injected(&trace);
    assert_eq!(inj.len(), 1, "one call, one stream closed: {inj:#?}");
    assert_eq!(inj[0]["action"], "close-stream");
    assert!(
        inj[0]["original"]
            .as_str()
            .is_some_and(|o| o.contains("notifications/progress"))
    );
    assert_eq!(metas(&lines, "resume").len(), 1);
    let replays = metas(&lines, "sse-replay");
    assert_eq!(replays.len(), 1, "the first progress, replayed");
    assert_eq!(replays[0]["json"]["of"].as_u64(), Some(progress[0].0));
    assert_server_not_blamed(&trace);
    let report = check_json(&trace);
    assert!(rules_of(&report).is_empty(), "{report:#}");
}

/// What cannot act over HTTP is refused with its reason (exit 2).
#[test]
fn faults_the_http_proxy_cannot_apply_are_refused() {
    let d = tempfile::tempdir().unwrap();
    for (faults, says) in [
        ("reorder-progress", "works with the stdio proxy only"),
        ("lose-progress:50%", "works with the stdio proxy only"),
    ] {
        let out = Command::new(BIN)
            .args([
                "proxy",
                "--listen",
                "127.0.0.1:0",
                "--url",
                "http://127.0.0.1:9/mcp",
            ])
            .args(["--faults", faults])
            .env("MCPSCOPE_RUNTIME_DIR", d.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{faults}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{faults}: {err}");
    }
}

/// The trace's `(seq, channel)` of frames from the server matching `pred`,
/// and the meta events of type `kind`.
fn frames_in(
    lines: &[serde_json::Value],
    pred: &dyn Fn(&serde_json::Value) -> bool,
) -> Vec<(u64, String)> {
    lines
        .iter()
        .filter(|l| l["dir"] == "in" && pred(&l["json"]))
        .map(|l| (l["seq"].as_u64().unwrap(), l["ch"].as_str().unwrap().into()))
        .collect()
}

fn metas<'a>(lines: &'a [serde_json::Value], kind: &str) -> Vec<&'a serde_json::Value> {
    lines
        .iter()
        .filter(|l| l["dir"] == "meta" && l["json"]["event"] == kind)
        .collect()
}

/// A server that ends each request stream early makes the host resume it
/// with GET + `Last-Event-ID`: the GET continues the request's stream, so
/// the progress it carries is on the request's own stream.
#[test]
fn a_resumed_stream_is_recorded_on_the_stream_it_continues() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let mut c = Command::new(BIN);
    c.args([
        "demo-server",
        "--http",
        "127.0.0.1:0",
        "--sse-close-after",
        "1",
    ]);
    let (_server, sport) = start_reporting(c);
    let (proxy, pport) = proxy(sport, &trace, d.path());
    let out = call(pport, &["--protocol", "2025-11-25"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    stop(proxy);
    let lines = support::trace_lines(&trace);
    let call_ch = lines
        .iter()
        .find(|l| l["dir"] == "out" && l["json"]["method"] == "tools/call")
        .unwrap()["ch"]
        .clone();
    let progress = frames_in(&lines, &|j| j["method"] == "notifications/progress");
    assert_eq!(progress.len(), out.lines("[progress]").len());
    assert!(progress.len() > 1, "{progress:?}");
    for (seq, ch) in &progress {
        assert_eq!(ch, &call_ch, "progress #{seq} is on the request's stream");
    }
    let resumes = metas(&lines, "resume");
    assert!(!resumes.is_empty(), "the resume is said");
    assert!(resumes.iter().all(|r| r["ch"] == call_ch));
    assert_eq!(resumes[0]["json"]["attempt"], 1);
    assert_server_not_blamed(&trace);
    let report = check_json(&trace);
    assert!(rules_of(&report).is_empty(), "{report:#}");
}

/// A host that lost what the proxy relayed resumes from before it: the
/// server replays those events, the same messages. They are said once
/// (`sse-replay`, naming the frame recorded first), not recorded and
/// judged twice, and what follows them is recorded as it comes.
#[test]
fn events_a_resumed_stream_replays_are_not_recorded_twice() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, sport) = demo_http();
    let (proxy, pport) = proxy(sport, &trace, d.path());
    let session = initialize(pport);
    let body = r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"upload_file","arguments":{"size_bytes":1048576,"chunk_bytes":262144,"delay_ms":150},"_meta":{"progressToken":"tk"}}}"#;
    let mut s = TcpStream::connect(("127.0.0.1", pport)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{pport}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let (got, arrived) = read_until(&mut s, "\"progress\":524288");
    assert!(arrived, "{got}");
    // The priming event's id: the host resumes from there, as if the two
    // progress events after it never reached it.
    let first_id = got
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .unwrap_or_else(|| panic!("no event id: {got}"))
        .trim()
        .to_string();
    drop(s);
    let head = format!(
        "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{pport}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\nLast-Event-ID: {first_id}\r\n"
    );
    let resumed = raw(pport, &head, "", "\"result\"");
    assert!(resumed.contains("\"progress\":262144"), "{resumed}");
    assert!(resumed.contains("\"result\""), "{resumed}");
    stop(proxy);

    let lines = support::trace_lines(&trace);
    let progress = frames_in(&lines, &|j| j["params"]["progressToken"] == "tk");
    let values: Vec<u64> = progress
        .iter()
        .map(|(seq, _)| {
            lines.iter().find(|l| l["seq"] == *seq).unwrap()["json"]["params"]["progress"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(values, [262144, 524288, 786432, 1048576], "each once");
    let replays = metas(&lines, "sse-replay");
    let of: Vec<u64> = replays
        .iter()
        .map(|r| r["json"]["of"].as_u64().unwrap())
        .collect();
    assert_eq!(
        of,
        [progress[0].0, progress[1].0],
        "the two replays name their frames"
    );
    let ch = &progress[0].1;
    assert!(progress.iter().all(|(_, c)| c == ch), "{progress:?}");
    assert!(replays.iter().all(|r| r["ch"] == *ch.as_str()));
    assert_eq!(metas(&lines, "resume").len(), 1);
    let report = check_json(&trace);
    assert!(rules_of(&report).is_empty(), "{report:#}");
}
