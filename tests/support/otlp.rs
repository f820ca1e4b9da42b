//! OTLP backends for the export tests: a loopback OTLP/HTTP sink that
//! keeps every export's bytes and answers as a test scripts it (for what
//! no real backend does on demand: refusing, then taking), and Arize
//! Phoenix, a real backend installed by tests/peers/install.sh, started on
//! ports of its own choosing and read back through its REST API.
#![allow(dead_code)]

use super::http::Bg;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// One export the sink received.
#[derive(Debug, Clone)]
pub struct Got {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Got {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the sink answers the `n`th request (0-based): status and headers.
pub type Script = dyn Fn(usize, &Got) -> (u16, Vec<(String, String)>) + Send + Sync;

pub struct Sink {
    pub port: u16,
    got: Arc<Mutex<Vec<Got>>>,
}

impl Sink {
    /// Every request answered 200.
    pub fn accepting() -> Sink {
        Sink::scripted(|_, _| (200, Vec::new()))
    }

    pub fn scripted(
        script: impl Fn(usize, &Got) -> (u16, Vec<(String, String)>) + Send + Sync + 'static,
    ) -> Sink {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let got = Arc::new(Mutex::new(Vec::new()));
        let script: Arc<Script> = Arc::new(script);
        let count = Arc::new(AtomicUsize::new(0));
        let g = got.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (g, script, count) = (g.clone(), script.clone(), count.clone());
                std::thread::spawn(move || serve(stream, &g, &*script, &count));
            }
        });
        Sink { port, got }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> Vec<Got> {
        self.got.lock().unwrap().clone()
    }

    /// The spans of every `/v1/traces` export answered 200, with their
    /// service name.
    pub fn spans(&self) -> Vec<(String, Span)> {
        let mut out = Vec::new();
        for g in self.requests().iter().filter(|g| g.path == "/v1/traces") {
            let req = ExportTraceServiceRequest::decode(&g.body[..]).expect("a protobuf export");
            for rs in req.resource_spans {
                let service = rs
                    .resource
                    .as_ref()
                    .and_then(|r| str_attr(&r.attributes, "service.name"))
                    .unwrap_or_default()
                    .to_string();
                for ss in rs.scope_spans {
                    out.extend(ss.spans.into_iter().map(|s| (service.clone(), s)));
                }
            }
        }
        out
    }
}

fn serve(stream: TcpStream, got: &Mutex<Vec<Got>>, script: &Script, count: &AtomicUsize) {
    let mut w = stream.try_clone().unwrap();
    let mut r = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
        let len = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse::<usize>().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        let g = Got {
            path,
            headers,
            body,
        };
        let n = count.fetch_add(1, Ordering::SeqCst);
        let (status, extra) = script(n, &g);
        if status == 200 {
            got.lock().unwrap().push(g);
        }
        let mut head = format!("HTTP/1.1 {status} X\r\nContent-Length: 0\r\n");
        for (k, v) in extra {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        if w.write_all(head.as_bytes()).is_err() {
            return;
        }
    }
}

/// A recorded demo call whose progress goes backwards: its
/// `progress-not-increasing` finding names the call.
pub fn recording_with_a_finding() -> super::Run {
    super::headless(["call", "--demo", "--tool", "fault_not_increasing"])
        .args(["--protocol", "legacy"])
        .record()
        .run()
}

pub fn str_attr<'a>(attrs: &'a [KeyValue], key: &str) -> Option<&'a str> {
    attrs.iter().find(|kv| kv.key == key).and_then(|kv| {
        match kv.value.as_ref()?.value.as_ref()? {
            any_value::Value::StringValue(s) => Some(s.as_str()),
            _ => None,
        }
    })
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Arize Phoenix, running in a temporary directory of its own, offline.
pub struct Phoenix {
    pub port: u16,
    _bg: Bg,
    _dir: tempfile::TempDir,
}

impl Phoenix {
    pub fn start() -> Phoenix {
        let py = super::peer("phoenix-venv/bin/python");
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let mut cmd = Command::new(py);
        cmd.args(["-m", "phoenix.server.main", "serve"])
            .env("TMPDIR", dir.path())
            .env("HOME", &home)
            .env("PHOENIX_WORKING_DIR", dir.path())
            .env("PHOENIX_HOST", "127.0.0.1")
            // Ports of its own choosing: the HTTP one is read from its log.
            .env("PHOENIX_PORT", "0")
            .env("PHOENIX_GRPC_PORT", "0")
            .env("PHOENIX_TELEMETRY_ENABLED", "false")
            .env("PHOENIX_ALLOW_EXTERNAL_RESOURCES", "false")
            .env("PHOENIX_ENABLE_MCP_SERVER", "false")
            .env("PHOENIX_DISABLE_AGENT_ASSISTANT", "true")
            .env("PHOENIX_LOG_MIGRATIONS", "false")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("start phoenix");
        let stderr = child.stderr.take().unwrap();
        let bg = Bg(child);
        let (tx, rx) = mpsc::channel();
        // Keeps draining its log, so it never blocks on the pipe.
        std::thread::spawn(move || {
            let mut seen = String::new();
            let mut told = false;
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if !told
                    && let Some(rest) = line.split("Uvicorn running on http://127.0.0.1:").nth(1)
                {
                    let port: String = rest.chars().take_while(char::is_ascii_digit).collect();
                    told = true;
                    let _ = tx.send(Ok(port.parse::<u16>().unwrap_or(0)));
                } else if !told {
                    seen.push_str(&line);
                    seen.push('\n');
                }
            }
            if !told {
                let _ = tx.send(Err(seen));
            }
        });
        // It imports for a while (about 15 s on a loaded 2-core machine).
        let port = match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(Ok(p)) if p != 0 => p,
            Ok(Ok(_)) => panic!("phoenix reported port 0"),
            Ok(Err(log)) => panic!("phoenix exited before listening:\n{log}"),
            Err(_) => panic!("phoenix did not listen within 120 s"),
        };
        Phoenix {
            port,
            _bg: bg,
            _dir: dir,
        }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `GET /v1/projects/default/spans?{query}`: its `data`.
    pub fn spans(&self, query: &str) -> Vec<Value> {
        let body = get(
            self.port,
            &format!("/v1/projects/default/spans?limit=1000&{query}"),
        );
        let v: Value = serde_json::from_str(&body)
            .unwrap_or_else(|e| panic!("phoenix answered no JSON ({e}): {body}"));
        v["data"].as_array().cloned().unwrap_or_default()
    }

    /// The spans of a trace once `n` of them are stored (Phoenix stores
    /// what it took a moment later, in the background).
    pub fn trace(&self, trace_id: &str, n: usize) -> Vec<Value> {
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let spans = self.spans(&format!("trace_id={trace_id}"));
            if spans.len() >= n || Instant::now() > until {
                return spans;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// A plain HTTP/1.1 GET on loopback; the body (chunked or not).
pub fn get(port: u16, path: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    if !head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        return body.to_string();
    }
    let mut out = String::new();
    let mut rest = body;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&after[..n.min(after.len())]);
        rest = after.get(n + 2..).unwrap_or("");
    }
    out
}

/// A hostile backend that accepts every connection, reads what comes and
/// never answers. `arrived` gets one message per request head read, so a
/// test knows the exporter is waiting on it.
pub struct Silent {
    pub port: u16,
    pub arrived: mpsc::Receiver<()>,
}

impl Silent {
    pub fn start() -> Silent {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (tx, arrived) = mpsc::channel();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut s) = stream else { continue };
                let tx = tx.clone();
                std::thread::spawn(move || {
                    let mut buf = [0u8; 16 * 1024];
                    let mut told = false;
                    // Held open until the exporter goes away.
                    while let Ok(n) = s.read(&mut buf) {
                        if n == 0 {
                            return;
                        }
                        if !told {
                            told = true;
                            let _ = tx.send(());
                        }
                    }
                });
            }
        });
        Silent { port, arrived }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// A recording of a stdio session with `calls` calls of one tool, each
/// answered: `calls` + 2 spans (the handshake and the session span).
pub fn many_calls_trace(dir: &std::path::Path, calls: usize) -> std::path::PathBuf {
    let path = dir.join("many.jsonl");
    let mut out = String::from(
        r#"{"mcpscope_trace":1,"version":"0.1.0","started":"2026-01-01T00:00:00Z","recorded_as":"client","server":{"name":"flood","transport":"stdio","argv":["flood"]}}
{"seq":0,"t":0.0001,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcpscope","version":"0.1.0"}}}}
{"seq":1,"t":0.001,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"flood","version":"1"}}}}
{"seq":2,"t":0.002,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","method":"notifications/initialized"}}
"#,
    );
    let mut seq = 3;
    for i in 1..=calls {
        let t = 0.01 + i as f64 * 0.001;
        out.push_str(&format!(
            "{{\"seq\":{seq},\"t\":{t:.4},\"dir\":\"out\",\"ch\":\"stdio\",\"json\":{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"work\",\"arguments\":{{}}}}}}}}\n{{\"seq\":{},\"t\":{:.4},\"dir\":\"in\",\"ch\":\"stdio\",\"json\":{{\"jsonrpc\":\"2.0\",\"id\":{i},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"done\"}}],\"isError\":false}}}}}}\n",
            seq + 1,
            t + 0.0005
        ));
        seq += 2;
    }
    std::fs::write(&path, out).unwrap();
    path
}

/// The count of the `[otel] N span(s) not delivered` line, if there is one.
pub fn not_delivered(stderr: &str) -> Option<u64> {
    stderr.lines().find_map(|l| {
        let (n, rest) = l.strip_prefix("[otel] ")?.split_once(' ')?;
        rest.starts_with("span(s) not delivered")
            .then(|| n.parse().ok())
            .flatten()
    })
}
