//! `mcpscope proxy --listen … --url … --intercept` between a raw HTTP host
//! (HTTP/1.1 written here by hand) and the demo server over Streamable
//! HTTP, driven by a raw controller on its control connection (as in
//! `intercept.rs`): a held host request reaches the server only when
//! forwarded; a held server response reaches the host edited; a dropped
//! server notification never does while the next one does; forged
//! messages reach the host on its GET stream, and the server's answer to
//! one forged to it never reaches the host (over legacy HTTP+SSE too,
//! where it comes on the host's event stream). The recording has each change
//! as an `injected` event, and the checks blame no one.

use super::intercept::{Controller, endpoint};
use crate::support::BIN;
use crate::support::http::{Bg, start_reporting};
use crate::support::proxy::{LIMIT, assert_no_findings, recorded};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;

fn demo_http() -> (Bg, u16) {
    let mut c = Command::new(BIN);
    c.args(["demo-server", "--http", "127.0.0.1:0"]);
    start_reporting(c)
}

fn proxy(upstream: u16, trace: &Path, rt: &Path) -> (Bg, u16) {
    proxy_to(&format!("http://127.0.0.1:{upstream}/mcp"), trace, rt)
}

fn proxy_to(url: &str, trace: &Path, rt: &Path) -> (Bg, u16) {
    let mut c = Command::new(BIN);
    c.args([
        "proxy",
        "--intercept",
        "--name",
        "web",
        "--listen",
        "127.0.0.1:0",
        "--url",
    ])
    .arg(url)
    .arg("--record")
    .arg(trace)
    .env("MCPSCOPE_RUNTIME_DIR", rt);
    start_reporting(c)
}

/// One exchange of the raw host: the response read as it comes, its
/// chunked body decoded.
struct Exchange {
    s: TcpStream,
    raw: Vec<u8>,
    head: Option<String>,
    body: Vec<u8>,
    ended: bool,
}

impl Exchange {
    fn send(port: u16, method: &str, session: Option<&str>, body: &str) -> Exchange {
        Exchange::send_to(port, method, "/mcp", session, body)
    }

    fn send_to(port: u16, method: &str, path: &str, session: Option<&str>, body: &str) -> Exchange {
        let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(LIMIT)).unwrap();
        let session = session
            .map(|id| format!("Mcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n"))
            .unwrap_or_default();
        write!(
            s,
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{session}Connection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        Exchange {
            s,
            raw: Vec::new(),
            head: None,
            body: Vec::new(),
            ended: false,
        }
    }

    fn post(port: u16, session: Option<&str>, body: &Value) -> Exchange {
        Exchange::send(port, "POST", session, &body.to_string())
    }

    /// Whatever has arrived is decoded into `head` and `body`.
    fn decode(&mut self) {
        if self.head.is_none() {
            let Some(end) = self.raw.windows(4).position(|w| w == b"\r\n\r\n") else {
                return;
            };
            self.head = Some(String::from_utf8_lossy(&self.raw[..end]).into_owned());
            self.raw.drain(..end + 4);
        }
        let chunked = self.head.as_deref().is_some_and(|h| {
            h.to_ascii_lowercase()
                .contains("transfer-encoding: chunked")
        });
        if !chunked {
            self.body.append(&mut self.raw);
            return;
        }
        while let Some(eol) = self.raw.windows(2).position(|w| w == b"\r\n") {
            let size = std::str::from_utf8(&self.raw[..eol]).unwrap().trim();
            let size = usize::from_str_radix(size, 16).unwrap();
            if self.raw.len() < eol + 2 + size + 2 {
                return;
            }
            if size == 0 {
                self.ended = true;
            }
            self.body
                .extend_from_slice(&self.raw[eol + 2..eol + 2 + size]);
            self.raw.drain(..eol + 2 + size + 2);
        }
    }

    /// Read once; false at the end of the response.
    fn read_more(&mut self) -> bool {
        let mut buf = [0u8; 8192];
        match self.s.read(&mut buf) {
            Ok(0) | Err(_) => {
                self.ended = true;
                false
            }
            Ok(n) => {
                self.raw.extend_from_slice(&buf[..n]);
                self.decode();
                !self.ended
            }
        }
    }

    /// The messages of the body so far: each SSE event's data, or the
    /// JSON body whole.
    fn messages(&self) -> Vec<Value> {
        let text = String::from_utf8_lossy(&self.body);
        let sse = self
            .head
            .as_deref()
            .is_some_and(|h| h.to_ascii_lowercase().contains("text/event-stream"));
        if !sse {
            return serde_json::from_str(text.trim()).into_iter().collect();
        }
        text.replace("\r\n", "\n")
            .split("\n\n")
            .filter_map(|ev| {
                let data: Vec<&str> = ev
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                serde_json::from_str(&data.join("\n")).ok()
            })
            .collect()
    }

    /// The first message `pred` selects, waiting for it.
    fn wait(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            if let Some(v) = self.messages().into_iter().find(&pred) {
                return v;
            }
            let more = self.read_more();
            if let Some(v) = self.messages().into_iter().find(&pred) {
                return v;
            }
            assert!(
                more,
                "the response ended first: {:?} {}",
                self.head,
                String::from_utf8_lossy(&self.body)
            );
        }
    }

    /// Everything until the response ends.
    fn finish(&mut self) -> Vec<Value> {
        while self.read_more() {}
        self.messages()
    }

    /// Nothing at all has arrived (read without waiting).
    fn nothing_yet(&mut self) -> bool {
        self.s.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 1];
        let r = self.s.read(&mut buf);
        self.s.set_nonblocking(false).unwrap();
        matches!(r, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
    }
}

fn initialize(port: u16) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}});
    let mut e = Exchange::post(port, None, &init);
    e.wait(|v| v["id"] == 1);
    let head = e.head.clone().unwrap();
    let session = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("mcp-session-id")
                .then(|| v.trim().to_string())
        })
        .unwrap_or_else(|| panic!("no session id: {head}"));
    let inited = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let mut e = Exchange::post(port, Some(&session), &inited);
    e.finish();
    assert!(e.head.unwrap().contains(" 202"), "initialized not accepted");
    session
}

fn echo(id: u64, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text},
            "_meta": {"progressToken": format!("t{id}")}}})
}

fn ping(port: u16, session: &str, id: u64) {
    let mut e = Exchange::post(
        port,
        Some(session),
        &json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
    );
    e.wait(|v| v["id"] == id && v.get("result").is_some());
}

fn text_of(v: &Value) -> &str {
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

/// End the proxy as a user would (SIGTERM): its trace is complete then.
fn stop(mut proxy: Bg) {
    // SAFETY: kill(2) on our own child, which has not been waited for.
    unsafe { libc::kill(proxy.0.id() as i32, libc::SIGTERM) };
    proxy.0.wait().unwrap();
}

/// The recording's `injected` events' (action, stream), in order; each
/// the breakpoints' (no `--faults` here).
fn actions(trace: &Path) -> Vec<(String, String)> {
    injected(trace)
        .iter()
        .map(|v| {
            assert_eq!(v["source"], "intercept", "{v}");
            (
                v["action"].as_str().unwrap().into(),
                v["stream"].as_str().unwrap().into(),
            )
        })
        .collect()
}

/// The recording's `injected` events: (action, stream, detail).
fn injected(trace: &Path) -> Vec<Value> {
    recorded(trace)
        .iter()
        .filter(|r| r.dir == "meta")
        .filter_map(|r| serde_json::from_slice::<Value>(&r.bytes).ok())
        .filter(|v| v["event"] == "injected")
        .collect()
}

#[test]
fn over_http_held_messages_wait_then_go_on_edited_or_are_dropped() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, sport) = demo_http();
    let (proxy, port) = proxy(sport, &trace, d.path());
    let (addr, token) = endpoint(d.path());
    let mut c = Controller::connect(&addr, &token);
    assert_eq!(c.expect("breakpoint")["filter"], Value::Null);
    let session = initialize(port);

    // A host request held: the server answers only once it is forwarded;
    // meanwhile another exchange goes on.
    c.send(json!({"op": "break", "filter": "out && method == tools/call"}));
    c.expect("breakpoint");
    let mut held_call = Exchange::post(port, Some(&session), &echo(2, "first"));
    let held = c.expect("held");
    assert_eq!(held["to"], "server");
    assert!(
        held["message"].as_str().unwrap().contains("first"),
        "{held}"
    );
    ping(port, &session, 90);
    assert!(held_call.nothing_yet(), "a held request was answered");
    c.send(json!({"op": "forward", "id": held["id"]}));
    assert_eq!(c.expect("released")["how"], "forwarded");
    let got = held_call.wait(|v| v["id"] == 2);
    assert!(text_of(&got).contains("first"), "{got}");

    // A server response held, then edited: the host gets the edit.
    c.send(json!({"op": "break", "filter": "in && response && method == tools/call"}));
    c.expect("breakpoint");
    let mut call = Exchange::post(port, Some(&session), &echo(3, "second"));
    let held = c.expect("held");
    assert_eq!(held["to"], "host");
    assert!(
        held["message"].as_str().unwrap().contains("second"),
        "{held}"
    );
    let edited = json!({"jsonrpc": "2.0", "id": 3,
        "result": {"content": [{"type": "text", "text": "edited"}]}});
    c.send(json!({"op": "forward", "id": held["id"], "message": edited.to_string()}));
    assert_eq!(c.expect("released")["how"], "edited");
    let got = call.wait(|v| v["id"] == 3);
    assert_eq!(text_of(&got), "edited");
    assert!(
        !call
            .finish()
            .iter()
            .any(|v| v.to_string().contains("second")),
        "the server's own response reached the host too"
    );

    // Server notifications held: the first dropped never arrives, the next
    // one forwarded does; the stream stays open for it after the result.
    c.send(json!({"op": "break", "filter": "in && progress"}));
    c.expect("breakpoint");
    let upload = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "upload_file",
            "arguments": {"size_bytes": 2048, "chunk_bytes": 1024, "delay_ms": 1},
            "_meta": {"progressToken": "up"}}});
    let mut call = Exchange::post(port, Some(&session), &upload);
    call.wait(|v| v["id"] == 4);
    // Every progress before the result was held before the result went
    // on: their reports all come before the one of this `break`.
    c.send(json!({"op": "break", "filter": null}));
    let mut held = Vec::new();
    loop {
        let r = c.next();
        match r["report"].as_str().unwrap() {
            "held" => held.push(r),
            "breakpoint" => break,
            _ => panic!("{r}"),
        }
    }
    assert!(held.len() >= 2, "{held:?}");
    c.send(json!({"op": "drop", "id": held[0]["id"]}));
    assert_eq!(c.expect("released")["how"], "dropped");
    for h in &held[1..] {
        c.send(json!({"op": "forward", "id": h["id"]}));
        assert_eq!(c.expect("released")["how"], "forwarded");
    }
    let progress: Vec<Value> = call
        .finish()
        .into_iter()
        .filter(|v| v["method"] == "notifications/progress")
        .collect();
    let sent: Vec<Value> = held
        .iter()
        .map(|h| serde_json::from_str(h["message"].as_str().unwrap()).unwrap())
        .collect();
    assert_eq!(progress, sent[1..], "the first was dropped");

    drop(c);
    stop(proxy);
    let said = actions(&trace);
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        said,
        [
            s("hold", "host→server"),
            s("edit", "server→host"),
            s("drop", "server→host"),
        ]
        .into_iter()
        .chain((1..sent.len()).map(|_| s("hold", "server→host")))
        .collect::<Vec<_>>()
    );
    assert_no_findings(&trace);
}

#[test]
fn over_http_forged_messages_reach_the_host_and_answers_to_them_go_no_further() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, sport) = demo_http();
    let (proxy, port) = proxy(sport, &trace, d.path());
    let (addr, token) = endpoint(d.path());
    let mut c = Controller::connect(&addr, &token);
    c.expect("breakpoint");
    let session = initialize(port);

    // No stream to the host yet: a forge to it is refused, said.
    let note = json!({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "data": "forged"}});
    c.send(json!({"op": "forge", "to": "host", "message": note.to_string()}));
    let e = c.expect_error();
    assert!(e.contains("no stream to the host"), "{e}");

    // The host's GET stream takes forged messages: a notification, and a
    // request whose answer (POSTed by the host) stops at the proxy.
    let mut get = Exchange::send(port, "GET", Some(&session), "");
    get.s.set_read_timeout(Some(LIMIT)).unwrap();
    while get.head.is_none() {
        assert!(get.read_more(), "the GET stream ended");
    }
    assert!(
        get.head.as_deref().unwrap().contains(" 200"),
        "{:?}",
        get.head
    );
    c.send(json!({"op": "forge", "to": "host", "message": note.to_string()}));
    c.expect("forged");
    let got = get.wait(|v| v["params"]["data"] == "forged");
    assert_eq!(got["params"]["level"], "info");
    let asked = json!({"jsonrpc": "2.0", "id": "forged-ping", "method": "ping"});
    c.send(json!({"op": "forge", "to": "host", "message": asked.to_string()}));
    c.expect("forged");
    get.wait(|v| v["id"] == "forged-ping");
    let mut answer = Exchange::post(
        port,
        Some(&session),
        &json!({"jsonrpc": "2.0", "id": "forged-ping", "result": {}}),
    );
    answer.finish();
    assert!(
        answer.head.as_deref().unwrap().contains(" 202"),
        "{:?}",
        answer.head
    );

    // Forged to the server: it answers, the host never gets it.
    let forged = json!({"jsonrpc": "2.0", "id": "asked-by-no-host", "method": "ping"});
    c.send(json!({"op": "forge", "to": "server", "message": forged.to_string()}));
    c.expect("forged");
    ping(port, &session, 91);
    drop(c);
    stop(proxy);
    let got = get.finish();
    assert!(
        !got.iter()
            .any(|v| v.to_string().contains("asked-by-no-host")),
        "the server's answer to a forged request reached the host: {got:?}"
    );
    // The server's answer is recorded (the proxy's end waits for it).
    assert!(
        recorded(&trace).iter().any(
            |r| r.dir == "in" && String::from_utf8_lossy(&r.bytes).contains("asked-by-no-host")
        ),
        "the server's answer to the forged request was not recorded"
    );

    let said = actions(&trace);
    let f = |s: &str| ("forge".to_string(), s.to_string());
    assert_eq!(
        said,
        [
            f("server→host"),
            f("server→host"),
            f("host→server"),
            f("host→server"),
            f("server→host"),
        ]
    );
    assert_no_findings(&trace);
}

/// A dropped request is never answered, a dropped notification is
/// accepted as a server would; what is held when the controller goes is
/// forwarded as it was.
#[test]
fn over_http_dropped_requests_stay_unanswered_and_the_held_go_on_when_the_controller_leaves() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, sport) = demo_http();
    let (proxy, port) = proxy(sport, &trace, d.path());
    let (addr, token) = endpoint(d.path());
    let mut c = Controller::connect(&addr, &token);
    c.expect("breakpoint");
    let session = initialize(port);
    let filter = "method == tools/call || method == notifications/roots/list_changed";
    c.send(json!({"op": "break", "filter": filter}));
    c.expect("breakpoint");

    let mut dropped = Exchange::post(port, Some(&session), &echo(2, "dropped-call"));
    let held = c.expect("held");
    c.send(json!({"op": "drop", "id": held["id"]}));
    assert_eq!(c.expect("released")["how"], "dropped");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"});
    let mut accepted = Exchange::post(port, Some(&session), &note);
    let held = c.expect("held");
    assert_eq!(held["to"], "server");
    c.send(json!({"op": "drop", "id": held["id"]}));
    assert_eq!(c.expect("released")["how"], "dropped");
    accepted.finish();
    assert!(
        accepted.head.as_deref().unwrap().contains(" 202"),
        "{:?}",
        accepted.head
    );
    ping(port, &session, 90);
    assert!(dropped.nothing_yet(), "a dropped request was answered");

    // Held both ways: forwarded to the server by the controller, its
    // result held, then forwarded as it was when the controller goes.
    let mut kept = Exchange::post(port, Some(&session), &echo(3, "kept"));
    let held = c.expect("held");
    assert_eq!(held["to"], "server");
    c.send(json!({"op": "forward", "id": held["id"]}));
    let held = c.expect("held");
    assert_eq!(held["to"], "host");
    assert!(held["message"].as_str().unwrap().contains("kept"), "{held}");
    drop(c);
    let got = kept.wait(|v| v["id"] == 3);
    assert!(text_of(&got).contains("kept"), "{got}");

    stop(proxy);
    let answered = dropped.finish();
    assert!(
        !answered.iter().any(|v| v["id"] == 2),
        "a dropped request was answered: {answered:?}"
    );
    let said = actions(&trace);
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        said,
        [
            s("drop", "host→server"),
            s("drop", "host→server"),
            s("hold", "host→server"),
            s("hold", "server→host"),
        ]
    );
    assert_no_findings(&trace);
}

/// A server message held on a stream the host closed can never reach it:
/// the controller is told (`released` `gone`, and an error), and the trace
/// says the host never got it.
#[test]
fn over_http_a_message_held_for_a_host_that_went_is_said_gone() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, sport) = demo_http();
    let (proxy, port) = proxy(sport, &trace, d.path());
    let (addr, token) = endpoint(d.path());
    let mut c = Controller::connect(&addr, &token);
    c.expect("breakpoint");
    let session = initialize(port);
    c.send(json!({"op": "break", "filter": "in && response && method == tools/call"}));
    c.expect("breakpoint");
    let call = Exchange::post(port, Some(&session), &echo(2, "never-seen"));
    let held = c.expect("held");
    drop(call);
    let gone = c.expect("released");
    assert_eq!(
        (gone["id"].clone(), gone["how"].clone()),
        (held["id"].clone(), json!("gone"))
    );
    let e = c.expect_error();
    assert!(e.contains("will not reach the host"), "{e}");
    c.send(json!({"op": "forward", "id": held["id"]}));
    let e = c.expect_error();
    assert!(e.contains("is held"), "{e}");
    drop(c);
    stop(proxy);
    let said = actions(&trace);
    assert_eq!(said, [("drop".to_string(), "server→host".to_string())]);
    assert_no_findings(&trace);
}

/// Over HTTP too, a breakpoint set while a call is under way knows the
/// call's tool (and a response's method): the requests are followed from
/// the proxy's start, not from the breakpoint's.
#[test]
fn over_http_a_breakpoint_set_mid_call_knows_the_calls_tool() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, sport) = demo_http();
    let (proxy, port) = proxy(sport, &trace, d.path());
    let (addr, token) = endpoint(d.path());
    let mut c = Controller::connect(&addr, &token);
    c.expect("breakpoint");
    let session = initialize(port);
    let mut call = super::intercept::set_mid_call(&mut c, || {
        Exchange::post(port, Some(&session), &echo(2, "mid-call"))
    });
    let got = call.wait(|v| v["id"] == 2);
    assert!(text_of(&got).contains("mid-call"), "{got}");
    stop(proxy);
}

/// `attach --intercept` in tmux against the HTTP proxy: a breakpoint typed
/// in the TUI holds the server's response (its row and the call's Progress
/// mark show while the host waits), Enter forwards it, and the host gets
/// it; the trace has the hold.
#[test]
#[ignore = "needs tmux"]
fn over_http_attach_intercept_holds_and_forwards_from_the_tui() {
    use super::intercept_tui::{attach, set_breakpoint, status_line};
    crate::support::tmux::require_tmux();
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, sport) = demo_http();
    let (proxy, port) = proxy(sport, &trace, d.path());
    let session = initialize(port);
    let t = attach(d.path(), "web", 120, 30);
    t.wait_for("the indicator", 30, |s| {
        status_line(s).contains("⏸ 0 held no breakpoint")
    });
    set_breakpoint(&t, "in && response");
    let mut call = Exchange::post(port, Some(&session), &echo(2, "over http"));
    let s = t.wait_for("the held response", 30, |s| {
        s.contains("→ host") && s.contains("response #2")
    });
    assert!(s.contains("Intercept: 1 held"), "{s}");
    t.keys(&["Escape"]);
    t.wait_for("the call's Progress row marked held", 30, |s| {
        s.contains("⏸ result held")
    });
    t.keys(&["I"]);
    t.wait_for("the overlay", 20, |s| s.contains("Intercept: 1 held"));
    t.keys(&["Enter"]);
    let got = call.wait(|v| v["id"] == 2);
    assert!(text_of(&got).contains("over http"), "{got}");
    t.wait_for("the row gone", 20, |s| s.contains("Intercept: 0 held"));
    drop(t);
    stop(proxy);
    let actions: Vec<String> = injected(&trace)
        .iter()
        .map(|v| v["action"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(actions, ["hold"], "{actions:?}");
}

/// A legacy HTTP+SSE server takes POSTs at the endpoint its event stream
/// named and answers on that stream: a request forged to it is POSTed
/// there, and its answer, arriving on the host's event stream, is kept
/// from the host (which never asked) and recorded as such.
#[test]
fn over_legacy_http_sse_a_request_forged_to_the_server_is_answered_off_the_hosts_stream() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let mut c = Command::new("python3");
    c.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/servers/legacy_absolute_endpoint.py"
    ));
    let (_server, sport) = start_reporting(c);
    let (proxy, port) = proxy_to(&format!("http://127.0.0.1:{sport}/sse"), &trace, d.path());
    let (addr, token) = endpoint(d.path());
    let mut ctl = Controller::connect(&addr, &token);
    ctl.expect("breakpoint");

    let mut sse = Exchange::send_to(port, "GET", "/sse", None, "");
    let path = loop {
        let text = String::from_utf8_lossy(&sse.body).replace("\r\n", "\n");
        if let Some(ev) = text.split("\n\n").find(|e| e.contains("event: endpoint"))
            && text.contains("event: endpoint")
            && text[text.find("event: endpoint").unwrap()..].contains("\n\n")
        {
            let data = ev
                .lines()
                .find_map(|l| l.strip_prefix("data:"))
                .expect("the endpoint's data")
                .trim();
            let at = data.find("/messages").expect("a path to post to");
            break data[at..].to_string();
        }
        assert!(sse.read_more(), "the stream ended before its endpoint");
    };
    let post = |body: &Value| {
        let mut e = Exchange::send_to(port, "POST", &path, None, &body.to_string());
        e.finish();
        let head = e.head.unwrap_or_default();
        assert!(head.contains(" 202"), "{head}");
    };
    post(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2024-11-05", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}}));
    sse.wait(|v| v["id"] == 1);
    post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let forged = json!({"jsonrpc": "2.0", "id": "asked-by-no-host", "method": "tools/list"});
    ctl.send(json!({"op": "forge", "to": "server", "message": forged.to_string()}));
    ctl.expect("forged");
    // The server queued its answer to the forged request before it
    // accepted it, so that answer comes first on the stream.
    post(&echo(5, "after"));
    let got = sse.wait(|v| v["id"] == 5);
    assert!(text_of(&got).contains("after"), "{got}");
    let seen = sse.messages();
    assert!(
        !seen.iter().any(|v| v["id"] == "asked-by-no-host"),
        "the answer to a forged request reached the host: {seen:?}"
    );
    drop(ctl);
    stop(proxy);
    let answered = recorded(&trace)
        .iter()
        .any(|r| r.dir == "in" && String::from_utf8_lossy(&r.bytes).contains("asked-by-no-host"));
    assert!(answered, "the server's answer is recorded");
    // The forged POST is recorded in the host's session, as its own are.
    let sessions: Vec<Value> = recorded(&trace)
        .iter()
        .filter(|r| r.dir == "meta")
        .filter_map(|r| serde_json::from_slice::<Value>(&r.bytes).ok())
        .filter(|v| v["event"] == "host-request" && v["method"] == "POST")
        .map(|v| v["session"].clone())
        .collect();
    assert!(sessions.len() >= 4, "{sessions:?}");
    assert!(sessions.iter().all(|s| s == "1"), "{sessions:?}");
    let said = actions(&trace);
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(said, [s("forge", "host→server"), s("forge", "server→host")]);
    assert_no_findings(&trace);
}
