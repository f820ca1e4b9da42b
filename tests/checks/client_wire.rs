//! The client-side rules on real sessions: this file plays a misbehaving
//! host against a real server process (`mcpscope demo-server`, or the
//! Python SDK peer), writes the violating frames over real pipes, records
//! every frame it writes and reads in a trace, then runs `mcpscope check
//! --trace` on the recording. Timestamps come from a `ManualClock`, so a
//! scenario that needs time to pass (a cancel long after a response)
//! advances the clock instead of sleeping.

use crate::support::{BIN, python_server, watchdog};
use mcpscope::checks::{Party, Rule, Severity};
use mcpscope::cli::check::Report;
use mcpscope::trace::record::Recorder;
use mcpscope::trace::{Dir, ManualClock, Store, Trace};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

/// A host written by hand: every frame it sends or receives is recorded.
struct Host {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    trace: Trace,
    clock: Arc<ManualClock>,
    path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Host {
    fn spawn(argv: &[String]) -> Host {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn server");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("host.jsonl");
        let header =
            json!({"mcpscope_trace": 1, "version": "test", "started": "now", "server": {}});
        let mut store = Store::default();
        store.set_recorder(Recorder::create(&path, &header).unwrap());
        let clock = ManualClock::new();
        let trace = Trace::new(store, clock.clone());
        Host {
            child,
            stdin,
            lines,
            trace,
            clock,
            path,
            _dir: dir,
        }
    }

    fn demo() -> Host {
        Host::spawn(&[BIN.to_string(), "demo-server".to_string()])
    }

    fn tick(&self, ms: u64) {
        self.clock.advance_us(ms * 1000);
    }

    /// Write one frame; returns its seq.
    fn send(&mut self, frame: Value) -> u64 {
        self.tick(1);
        let bytes = frame.to_string();
        writeln!(self.stdin, "{bytes}").unwrap();
        self.stdin.flush().unwrap();
        self.trace.append(|s, now| {
            s.append_frame(Dir::Out, "stdio", now, bytes.as_bytes(), &mut Vec::new())
        })
    }

    /// Read frames until one matches; returns it and its seq.
    fn until(&mut self, want: impl Fn(&Value) -> bool) -> (Value, u64) {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .expect("the server said nothing for 60 s");
            self.tick(1);
            let seq = self.trace.append(|s, now| {
                s.append_frame(Dir::In, "stdio", now, line.as_bytes(), &mut Vec::new())
            });
            let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if want(&v) {
                return (v, seq);
            }
        }
    }

    fn response(&mut self, id: Value) -> u64 {
        self.until(|v| v["id"] == id && v.get("method").is_none()).1
    }

    fn request(&mut self, id: Value, method: &str, params: Value) -> u64 {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
    }

    fn call(&mut self, id: i64, tool: &str, args: Value, token: Option<&str>) -> u64 {
        let mut params = json!({"name": tool, "arguments": args});
        if let Some(t) = token {
            params["_meta"] = json!({"progressToken": t});
        }
        self.request(json!(id), "tools/call", params)
    }

    /// Answer every `elicitation/create` with its own id until the
    /// response to request `id` arrives.
    fn answer_until_done(&mut self, id: i64) {
        loop {
            let (v, _) = self.until(|v| v["method"] == "elicitation/create" || v["id"] == id);
            if v["id"] == id && v.get("method").is_none() {
                return;
            }
            self.send(json!({"jsonrpc": "2.0", "id": v["id"], "result": {"action": "decline"}}));
        }
    }

    fn cancel(&mut self, id: Value) -> u64 {
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "test"}}))
    }

    /// `initialize` (declaring elicitation) and `notifications/initialized`.
    fn handshake(&mut self) {
        self.request(
            json!(0),
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "host", "version": "1"}}),
        );
        self.response(json!(0));
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    /// Stop the server, close the recording, and check it with the binary.
    fn check(self) -> Report {
        self.check_each(&[&[]]).remove(0)
    }

    /// Like `check`, once per set of extra `check` flags.
    fn check_each(mut self, variants: &[&[&str]]) -> Vec<Report> {
        let dog = watchdog(&self.child, Duration::from_secs(30));
        drop(self.stdin);
        let _ = self.child.kill();
        let _ = self.child.wait();
        dog.disarm();
        assert_eq!(self.trace.finish_recording(), None);
        let run = |extra: &[&str]| -> Report {
            let out = Command::new(BIN)
                .args(["check", "--trace"])
                .arg(&self.path)
                .args(["--format", "json"])
                .args(extra)
                .output()
                .expect("run check");
            serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
        };
        variants.iter().map(|v| run(v)).collect()
    }
}

fn client_findings(r: &Report) -> Vec<(Rule, Vec<u64>)> {
    r.findings
        .iter()
        .filter(|f| f.party == Party::Client)
        .map(|f| (f.rule, f.seqs.clone()))
        .collect()
}

#[test]
fn a_clean_host_raises_no_client_finding() {
    let mut h = Host::demo();
    h.handshake();
    h.request(json!(1), "logging/setLevel", json!({"level": "debug"}));
    h.response(json!(1));
    h.call(2, "echo", json!({"text": "hi"}), Some("a"));
    h.response(json!(2));
    // The same token again once its request finished is fine.
    h.call(3, "sleep", json!({"ms": 300}), Some("a"));
    h.response(json!(3));
    // A server request answered with its own id.
    h.call(
        4,
        "interactive_wizard",
        json!({"questions": 2, "delay_ms": 0}),
        Some("w"),
    );
    h.answer_until_done(4);
    // A cancel that raced the response (within the 250 ms grace).
    h.call(5, "echo", json!({"text": "x"}), Some("b"));
    h.response(json!(5));
    h.tick(100);
    h.cancel(json!(5));
    let r = h.check();
    assert_eq!(client_findings(&r), vec![], "{:#?}", r.findings);
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert_eq!(r.summary.client.total(), 0);
}

#[test]
fn reused_ids_and_tokens_in_flight() {
    let mut h = Host::demo();
    h.handshake();
    // Both sent before anything is read: the first is surely in flight.
    let a = h.call(1, "echo", json!({"text": "a"}), Some("t1"));
    let b = h.call(1, "echo", json!({"text": "b"}), Some("t2"));
    let c = h.call(2, "echo", json!({"text": "c"}), Some("dup"));
    let d = h.call(3, "echo", json!({"text": "d"}), Some("dup"));
    h.response(json!(3));
    let r = h.check();
    assert_eq!(
        client_findings(&r),
        vec![
            (Rule::ClientRequestIdReused, vec![a, b]),
            (Rule::ClientDuplicateProgressToken, vec![c, d]),
        ],
        "{:#?}",
        r.findings
    );
    assert_eq!(r.summary.client.error, 2);
    assert!(!r.summary.passed);
    let f = r
        .findings
        .iter()
        .find(|f| f.rule == Rule::ClientDuplicateProgressToken)
        .unwrap();
    assert_eq!(f.severity, Severity::Error);
    assert!(f.message.contains("dup"), "{}", f.message);
}

#[test]
fn cancels_of_initialize_unknown_and_finished_requests() {
    let mut h = Host::demo();
    let init = h.request(
        json!(0),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}),
    );
    let cancel_init = h.cancel(json!(0));
    h.response(json!(0));
    h.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let never = h.cancel(json!(42));
    h.call(1, "echo", json!({"text": "x"}), Some("a"));
    let done = h.response(json!(1));
    h.tick(1000);
    let late = h.cancel(json!(1));
    let mut r = h.check_each(&[&[], &["--cancel-race-ms", "2000"]]);
    let slow = r.pop().unwrap();
    let r = r.pop().unwrap();
    // A host given 2 s for the race: the late cancel is no longer reported.
    assert_eq!(
        client_findings(&slow),
        vec![
            (Rule::ClientCancelInitialize, vec![init, cancel_init]),
            (Rule::ClientCancelUnknownRequest, vec![never]),
        ]
    );
    assert_eq!(
        client_findings(&r),
        vec![
            (Rule::ClientCancelInitialize, vec![init, cancel_init]),
            (Rule::ClientCancelUnknownRequest, vec![never]),
            (Rule::ClientCancelUnknownRequest, vec![done, late]),
        ],
        "{:#?}",
        r.findings
    );
}

#[test]
fn a_cancel_while_progress_flows() {
    let mut h = Host::demo();
    h.handshake();
    h.call(1, "sleep", json!({"ms": 60000}), Some("s1"));
    let (_, note) = h.until(|v| v["params"]["progressToken"] == "s1");
    h.tick(500);
    let cancel = h.cancel(json!(1));
    // Progress last seen 3 s before the cancel: the request looked dead.
    h.call(2, "sleep", json!({"ms": 60000}), Some("s2"));
    h.until(|v| v["params"]["progressToken"] == "s2");
    h.tick(3000);
    h.cancel(json!(2));
    let mut r = h.check_each(&[&[], &["--cancel-progress-secs", "5"]]);
    let wide = r.pop().unwrap();
    let r = r.pop().unwrap();
    assert_eq!(
        client_findings(&wide).len(),
        2,
        "a 5 s window takes in both: {:#?}",
        wide.findings
    );
    assert_eq!(
        client_findings(&r),
        vec![(Rule::ClientCancelledDuringProgress, vec![note, cancel])],
        "{:#?}",
        r.findings
    );
}

#[test]
fn a_call_without_a_progress_token() {
    let mut h = Host::demo();
    h.handshake();
    let call = h.call(1, "echo", json!({"text": "x"}), None);
    h.response(json!(1));
    let r = h.check();
    assert_eq!(
        client_findings(&r),
        vec![(Rule::ClientNoProgressToken, vec![call])]
    );
    // Info only: the session still passes.
    assert!(r.summary.passed);
    assert_eq!(r.summary.client.info, 1);
}

#[test]
fn an_answer_to_a_server_request_never_sent() {
    let mut h = Host::demo();
    h.handshake();
    h.call(
        1,
        "interactive_wizard",
        json!({"questions": 1, "delay_ms": 0}),
        Some("w"),
    );
    let (ask, _) = h.until(|v| v["method"] == "elicitation/create");
    let wrong =
        h.send(json!({"jsonrpc": "2.0", "id": "no-such-request", "result": {"action": "decline"}}));
    // Answered properly too: a wrong id alone would leave the server waiting.
    h.send(json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}}));
    h.answer_until_done(1);
    let r = h.check();
    assert_eq!(
        client_findings(&r),
        vec![(Rule::ClientResponseUnknownId, vec![wrong])],
        "{:#?}",
        r.findings
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn set_level_to_a_server_without_logging() {
    // The Python SDK's server declares no `logging` capability.
    let mut h = Host::spawn(&python_server());
    h.request(
        json!(0),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "host", "version": "1"}}),
    );
    let init = h.response(json!(0));
    h.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let set = h.request(json!(1), "logging/setLevel", json!({"level": "debug"}));
    h.response(json!(1));
    let r = h.check();
    assert_eq!(
        client_findings(&r),
        vec![(Rule::ClientSetlevelWithoutCapability, vec![init, set])],
        "{:#?}",
        r.findings
    );
}
