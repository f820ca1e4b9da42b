//! A raw host for the proxy tests: it runs a server command (directly, or
//! through `mcpscope proxy`), writes what it is given, keeps every byte it
//! receives, and can wait for a response or a line. Plus reading a trace's
//! frames back as their exact bytes.
#![allow(dead_code)]

use base64::Engine as _;
use serde_json::value::RawValue;
use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use super::BIN;

/// The longest a test waits for anything before failing (a hang is a failure).
pub const LIMIT: Duration = Duration::from_secs(60);

/// `mcpscope proxy --record TRACE [extra] -- argv` with its sessions in `rt`.
pub fn proxied(argv: &[String], trace: &Path, extra: &[&str]) -> Vec<String> {
    let mut v = vec![
        BIN.to_string(),
        "proxy".into(),
        "--record".into(),
        trace.display().to_string(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v.push("--".into());
    v.extend(argv.iter().cloned());
    v
}

pub fn demo() -> Vec<String> {
    vec![BIN.to_string(), "demo-server".into()]
}

pub struct Host {
    pub child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    pub stdout: Arc<Mutex<Vec<u8>>>,
    pub stderr: Arc<Mutex<Vec<u8>>>,
    out_done: Receiver<()>,
    err_done: Receiver<()>,
    pub sent: Vec<u8>,
}

impl Host {
    pub fn start(argv: &[String], rt: &Path) -> Host {
        let mut child = Command::new(&argv[0])
            .args(&argv[1..])
            .env("MCPSCOPE_RUNTIME_DIR", rt)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let (tx, lines) = channel();
        let stdout = Arc::new(Mutex::new(Vec::new()));
        let (done_tx, out_done) = channel();
        let mut out = child.stdout.take().unwrap();
        let keep = stdout.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 65536];
            let mut line = Vec::new();
            loop {
                let n = match out.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                keep.lock().unwrap().extend_from_slice(&buf[..n]);
                for &b in &buf[..n] {
                    if b == b'\n' {
                        let _ = tx.send(std::mem::take(&mut line));
                    } else {
                        line.push(b);
                    }
                }
            }
            let _ = done_tx.send(());
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut err = child.stderr.take().unwrap();
        let keep = stderr.clone();
        let (err_tx, err_done) = channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 65536];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                keep.lock().unwrap().extend_from_slice(&buf[..n]);
            }
            let _ = err_tx.send(());
        });
        Host {
            stdin: child.stdin.take(),
            child,
            lines,
            stdout,
            stderr,
            out_done,
            err_done,
            sent: Vec::new(),
        }
    }

    pub fn write(&mut self, bytes: &[u8]) {
        let s = self.stdin.as_mut().expect("stdin open");
        s.write_all(bytes).expect("write to the server");
        s.flush().unwrap();
        self.sent.extend_from_slice(bytes);
    }

    /// Send a request (a line) and wait for the response with its id.
    pub fn request(
        &mut self,
        id: u64,
        method: &str,
        params: serde_json::Value,
    ) -> serde_json::Value {
        let msg =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.write(format!("{msg}\n").as_bytes());
        self.wait_line(|v| v.get("id") == Some(&serde_json::json!(id)) && v.get("method").is_none())
    }

    pub fn notify(&mut self, method: &str) {
        let msg = serde_json::json!({"jsonrpc": "2.0", "method": method});
        self.write(format!("{msg}\n").as_bytes());
    }

    pub fn initialize(&mut self) {
        let r = self.request(
            1,
            "initialize",
            serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "raw-host", "version": "1"}}),
        );
        assert!(r.get("result").is_some(), "{r}");
        self.notify("notifications/initialized");
    }

    /// Wait for a line (JSON) that `pred` accepts; lines that are not JSON
    /// are skipped.
    pub fn wait_line(&mut self, pred: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
        loop {
            let l = self
                .lines
                .recv_timeout(LIMIT)
                .expect("the host waited too long for a line");
            if let Ok(v) = serde_json::from_slice::<serde_json::Value>(&l)
                && pred(&v)
            {
                return v;
            }
        }
    }

    /// Wait until stdout ends (the proxy closed it), keeping the lines
    /// that came before, stdin still open.
    pub fn wait_eof(&mut self) -> Vec<Vec<u8>> {
        let mut got = Vec::new();
        loop {
            match self.lines.recv_timeout(LIMIT) {
                Ok(l) => got.push(l),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return got,
                Err(e) => panic!("stdout never ended: {e}"),
            }
        }
    }

    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Close stdin, read stdout to its end, wait for the process.
    pub fn finish(mut self) -> (Vec<u8>, ExitStatus, Vec<u8>) {
        self.close_stdin();
        self.wait_stdin_open()
    }

    /// Read stdout to its end and wait for the process, stdin still open
    /// (a host that keeps writing, or simply never closes it).
    pub fn wait_stdin_open(mut self) -> (Vec<u8>, ExitStatus, Vec<u8>) {
        self.out_done
            .recv_timeout(LIMIT)
            .expect("stdout never ended");
        let dog = super::watchdog(&self.child, LIMIT);
        let st = self.child.wait().unwrap();
        dog.disarm();
        self.err_done
            .recv_timeout(LIMIT)
            .expect("stderr never ended");
        let out = self.stdout.lock().unwrap().clone();
        let err = self.stderr.lock().unwrap().clone();
        (out, st, err)
    }
}

/// A recorded event: direction and exact bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct Rec {
    pub seq: u64,
    pub dir: String,
    pub bytes: Vec<u8>,
}

/// A proxy's recording once the proxy has ended it. A host that exited may
/// leave the proxy it spawned still writing (it forwards the host's stop to
/// the server, waits for it, then records its `exit`, the last event):
/// reading before that would race the recorder, so this waits for it.
pub fn recorded_when_ended(path: &Path) -> Vec<Rec> {
    let limit = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if text
            .lines()
            .last()
            .is_some_and(|l| l.contains(r#""json":{"event":"exit""#))
        {
            return recorded(path);
        }
        assert!(
            std::time::Instant::now() < limit,
            "the proxy never ended its recording; its last line: {:?}",
            text.lines().last()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Every event of a trace file, with the bytes exactly as they were seen.
pub fn recorded(path: &Path) -> Vec<Rec> {
    let text = std::fs::read_to_string(path).expect("trace");
    text.lines()
        .skip(1)
        .map(|l| serde_json::from_str::<HashMap<String, Box<RawValue>>>(l).expect("event line"))
        // A batch's elements follow it as events of their own.
        .filter(|m| m.get("batch").is_none_or(|b| b.get() != "true"))
        .map(|m| {
            let s = |k: &str| -> String { serde_json::from_str(m[k].get()).unwrap() };
            let bytes = if let Some(b) = m.get("b64") {
                let b: String = serde_json::from_str(b.get()).unwrap();
                base64::engine::general_purpose::STANDARD.decode(b).unwrap()
            } else if let Some(j) = m.get("json") {
                j.get().as_bytes().to_vec()
            } else {
                s("text").into_bytes()
            };
            Rec {
                seq: serde_json::from_str(m["seq"].get()).unwrap(),
                dir: s("dir"),
                bytes,
            }
        })
        .collect()
}

/// The frames of one direction, in order.
pub fn dir_frames(recs: &[Rec], dir: &str) -> Vec<Vec<u8>> {
    recs.iter()
        .filter(|r| r.dir == dir)
        .map(|r| r.bytes.clone())
        .collect()
}

/// Split a byte stream into frames as the trace stores them: by `\n`,
/// a CR before it dropped, a last line without terminator kept.
pub fn split_lines(b: &[u8]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = b
        .split(|c| *c == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
        .collect();
    if b.last() == Some(&b'\n') || b.is_empty() {
        v.pop();
    }
    v
}

/// `check --trace` on a proxy's recording finds nothing against the
/// server (what `--faults` changed on the way is not its doing).
pub fn assert_server_not_blamed(trace: &Path) {
    let v = check_report(trace);
    let against: Vec<&serde_json::Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["party"] == "server")
        .collect();
    assert!(against.is_empty(), "{against:#?}");
}

/// `check --trace` on a proxy's recording finds nothing against either
/// party.
pub fn assert_no_findings(trace: &Path) {
    let report = check_report(trace);
    assert!(
        report["findings"].as_array().unwrap().is_empty(),
        "{report:#}"
    );
}

/// `check --trace TRACE --format json`, parsed.
pub fn check_report(trace: &Path) -> serde_json::Value {
    let out = Command::new(BIN)
        .args(["check", "--trace"])
        .arg(trace)
        .args(["--format", "json"])
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}
