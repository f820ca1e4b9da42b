//! `mcpscope proxy --intercept` between a raw host and the demo server,
//! driven by a raw controller on its control connection (the protocol of
//! src/intercept/protocol.rs, as `attach --intercept` speaks it): a held
//! message waits while the rest of the traffic goes on, then is forwarded
//! as it was or edited, or dropped; forged messages reach either side, and
//! the answers to forged requests go no further. The recording has each
//! change as an `injected` event, and the checks blame no one for them.

use crate::support::proxy::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;

/// The proxy's registry entry once it lists its control connection.
pub(crate) fn endpoint(rt: &Path) -> (String, String) {
    let limit = std::time::Instant::now() + LIMIT;
    loop {
        let dir = rt.join("sessions");
        for f in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let Ok(text) = std::fs::read_to_string(f.path()) else {
                continue;
            };
            if let Ok(v) = serde_json::from_str::<Value>(&text)
                && let Some(i) = v.get("intercept")
            {
                return (
                    i["addr"].as_str().unwrap().into(),
                    i["token"].as_str().unwrap().into(),
                );
            }
        }
        assert!(std::time::Instant::now() < limit, "no intercept endpoint");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

pub(crate) struct Controller {
    w: TcpStream,
    r: BufReader<TcpStream>,
}

impl Controller {
    pub(crate) fn connect(addr: &str, token: &str) -> Controller {
        let w = TcpStream::connect(addr).unwrap();
        w.set_read_timeout(Some(LIMIT)).unwrap();
        let r = BufReader::new(w.try_clone().unwrap());
        let mut c = Controller { w, r };
        c.send(json!({"op": "hello", "token": token}));
        c
    }
    pub(crate) fn send(&mut self, v: Value) {
        writeln!(self.w, "{v}").unwrap();
    }
    fn report(&mut self) -> Value {
        let mut l = String::new();
        assert!(self.r.read_line(&mut l).unwrap() > 0, "the proxy closed");
        serde_json::from_str(&l).unwrap()
    }
    /// The message of the next error report (others skipped).
    pub(crate) fn expect_error(&mut self) -> String {
        loop {
            let r = self.report();
            if r["report"] == "error" {
                return r["message"].as_str().unwrap().to_string();
            }
        }
    }
    /// The next report, whatever it is.
    pub(crate) fn next(&mut self) -> Value {
        self.report()
    }
    /// The next report of kind `kind` (others skipped).
    pub(crate) fn expect(&mut self, kind: &str) -> Value {
        loop {
            let r = self.report();
            if r["report"] == kind {
                return r;
            }
            assert_ne!(r["report"], "error", "{r}");
        }
    }
}

fn call(id: u64, text: &str) -> String {
    format!(
        "{}\n",
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text},
                "_meta": {"progressToken": format!("t{id}")}}})
    )
}

/// A ping of the host's answered: everything the server sent before the
/// answer has reached the host (one stream, in order) unless held.
fn ping(h: &mut Host, id: u64) {
    h.write(
        format!(
            "{}\n",
            json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
        )
        .as_bytes(),
    );
    h.wait_line(|v| v["id"] == id && v.get("result").is_some());
}

#[test]
fn held_messages_wait_then_go_on_edited_or_are_dropped_and_forged_ones_arrive() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let mut h = Host::start(&proxied(&demo(), &trace, &["--intercept"]), d.path());
    let (addr, token) = endpoint(d.path());
    let mut c = Controller::connect(&addr, &token);
    assert_eq!(c.expect("breakpoint")["filter"], Value::Null);
    c.send(json!({"op": "break", "filter": "in && response && method == tools/call"}));
    assert_eq!(
        c.expect("breakpoint")["filter"],
        "in && response && method == tools/call"
    );
    h.initialize();

    // Held: the host's ping is answered while the call's result waits.
    h.write(call(2, "first").as_bytes());
    let held = c.expect("held");
    assert_eq!(held["to"], "host");
    assert!(
        held["message"].as_str().unwrap().contains("first"),
        "{held}"
    );
    ping(&mut h, 90);
    assert!(
        !String::from_utf8_lossy(&h.stdout.lock().unwrap()).contains("first"),
        "the held result reached the host"
    );
    // Edited: the host gets what the controller wrote.
    let edited = json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "edited"}]}});
    c.send(json!({"op": "forward", "id": held["id"], "message": edited.to_string()}));
    let got = h.wait_line(|v| v["id"] == 2);
    assert_eq!(got["result"]["content"][0]["text"], "edited");
    assert_eq!(c.expect("released")["how"], "edited");

    // Dropped: the host never gets it.
    h.write(call(3, "second").as_bytes());
    let held = c.expect("held");
    c.send(json!({"op": "drop", "id": held["id"]}));
    assert_eq!(c.expect("released")["how"], "dropped");
    ping(&mut h, 91);
    // Forwarded as it was.
    h.write(call(4, "third").as_bytes());
    let held = c.expect("held");
    c.send(json!({"op": "forward", "id": held["id"]}));
    let got = h.wait_line(|v| v["id"] == 4);
    assert!(
        got["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("third"),
        "{got}"
    );

    // Forged to the host: it arrives. Forged to the server: its answer
    // stops at the proxy.
    let note = json!({"jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "data": "forged"}});
    c.send(json!({"op": "forge", "to": "host", "message": note.to_string()}));
    c.expect("forged");
    let got =
        h.wait_line(|v| v["method"] == "notifications/message" && v["params"]["data"] == "forged");
    assert_eq!(got["params"]["level"], "info");
    let forged_ping = json!({"jsonrpc": "2.0", "id": "asked-by-no-host", "method": "ping"});
    c.send(json!({"op": "forge", "to": "server", "message": forged_ping.to_string()}));
    c.expect("forged");
    ping(&mut h, 92);
    c.send(json!({"op": "drop", "id": 999}));
    assert!(
        c.expect("error")["message"]
            .as_str()
            .unwrap()
            .contains("no message 999")
    );
    c.send(json!({"op": "break", "filter": "in && (response"}));
    let e = c.expect("error");
    assert!(e["message"].as_str().unwrap().contains("column"), "{e}");
    drop(c);
    h.close_stdin();
    let (out, st, err) = h.finish();
    assert!(st.success(), "{st:?} {}", String::from_utf8_lossy(&err));
    let out = String::from_utf8_lossy(&out);
    assert!(
        !out.contains("second"),
        "the dropped result reached the host"
    );
    assert!(
        !out.contains("asked-by-no-host"),
        "the server's answer to a forged request reached the host"
    );

    let recs = recorded_when_ended(&trace);
    let injected: Vec<Value> = recs
        .iter()
        .filter(|r| r.dir == "meta")
        .filter_map(|r| serde_json::from_slice::<Value>(&r.bytes).ok())
        .filter(|v| v["event"] == "injected")
        .collect();
    let said: Vec<(&str, &str)> = injected
        .iter()
        .map(|v| (v["action"].as_str().unwrap(), v["stream"].as_str().unwrap()))
        .collect();
    assert_eq!(
        said,
        [
            ("edit", "server→host"),
            ("drop", "server→host"),
            ("hold", "server→host"),
            ("forge", "server→host"),
            ("forge", "host→server"),
            ("forge", "server→host"),
        ],
        "{injected:#?}"
    );
    assert!(injected.iter().all(|v| v["source"] == "intercept"));
    // The server really sent each result, the recording says so; the
    // checks blame no one for what the breakpoints changed.
    let sent = dir_frames(&recs, "in");
    assert!(
        sent.iter()
            .any(|b| String::from_utf8_lossy(b).contains("second"))
    );
    assert_no_findings(&trace);
}

/// Whatever is held when the controller goes is forwarded: a closed TUI
/// strands nothing.
#[test]
fn what_is_held_goes_on_when_the_controller_leaves() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let mut h = Host::start(&proxied(&demo(), &trace, &["--intercept"]), d.path());
    let (addr, token) = endpoint(d.path());
    // `sessions --json` names the control connection, never its token.
    let listed = std::process::Command::new(BIN)
        .args(["sessions", "--json"])
        .env("MCPSCOPE_RUNTIME_DIR", d.path())
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains(&addr), "{listed}");
    assert!(!listed.contains(&token), "the token was listed: {listed}");
    let mut c = Controller::connect(&addr, &token);
    c.expect("breakpoint");
    c.send(json!({"op": "break", "filter": "in && response && method == tools/call"}));
    c.expect("breakpoint");
    h.initialize();
    h.write(call(2, "kept").as_bytes());
    c.expect("held");
    // A second controller is refused while the first is connected.
    let mut other = Controller::connect(&addr, &token);
    assert!(
        other.expect("error")["message"]
            .as_str()
            .unwrap()
            .contains("another controller")
    );
    // A wrong token is refused, whoever is connected.
    let mut wrong = Controller::connect(&addr, "not-the-token");
    assert!(
        wrong.expect("error")["message"]
            .as_str()
            .unwrap()
            .contains("token")
    );
    drop(c);
    let got = h.wait_line(|v| v["id"] == 2);
    assert!(
        got["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("kept"),
        "{got}"
    );
    h.close_stdin();
    let (_, st, _) = h.finish();
    assert!(st.success());
}

/// A breakpoint set while a call is under way knows the call: its
/// matcher follows every request from the start, so `tool == echo`
/// selects the response of a call whose request passed before it was set.
#[test]
fn a_breakpoint_set_mid_call_knows_the_calls_tool() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let mut h = Host::start(&proxied(&demo(), &trace, &["--intercept"]), d.path());
    let (addr, token) = endpoint(d.path());
    let mut c = Controller::connect(&addr, &token);
    c.expect("breakpoint");
    h.initialize();
    set_mid_call(&mut c, || h.write(call(2, "mid-call").as_bytes()));
    h.wait_line(|v| v["id"] == 2);
}

/// A breakpoint set while the call `send` starts (an `echo` of
/// "mid-call") is under way: its request is held on its way (so the
/// response cannot come before the second breakpoint is in force), then
/// `tool == echo && response` is set, the request forwarded, and the
/// response, selected by the call's tool, held and forwarded.
pub(crate) fn set_mid_call<T>(c: &mut Controller, send: impl FnOnce() -> T) -> T {
    c.send(json!({"op": "break", "filter": "out && method == tools/call"}));
    c.expect("breakpoint");
    let sent = send();
    let request = c.expect("held");
    assert_eq!(request["to"], "server");
    c.send(json!({"op": "break", "filter": "tool == echo && response"}));
    assert_eq!(c.expect("breakpoint")["filter"], "tool == echo && response");
    c.send(json!({"op": "forward", "id": request["id"]}));
    assert_eq!(c.expect("released")["how"], "forwarded");
    let response = c.expect("held");
    assert_eq!(response["to"], "host");
    assert!(
        response["message"].as_str().unwrap().contains("mid-call"),
        "{response}"
    );
    c.send(json!({"op": "forward", "id": response["id"]}));
    sent
}
