//! Loopback HTTP helpers: start real peers on free ports, and a raw HTTP/1.1
//! server for misbehaving-server scenarios no real server produces on demand.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Poll until something listens on the port (the peer is ready), or panic.
pub fn wait_port(port: u16, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        if let Ok(Some(st)) = child.try_wait() {
            panic!("peer exited before listening: {st}");
        }
        std::thread::yield_now();
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("nothing listens on port {port}");
}

/// A background peer, killed when dropped.
pub struct Bg(pub Child);

impl Drop for Bg {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn start(mut cmd: Command, port: u16) -> Bg {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().expect("start peer");
    wait_port(port, &mut child);
    Bg(child)
}

/// One request as the raw server saw it.
#[derive(Debug, Clone)]
pub struct Req {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Req {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// What the raw server answers.
pub enum Reply {
    /// Status, content type, body (sent with Content-Length).
    Body(u16, &'static str, String),
    /// An SSE stream: these raw bytes, then the connection closes.
    Sse(String),
    /// Keep the connection open and never answer.
    Hang,
    /// Status, every header but Content-Length (which is added), body.
    With(u16, Vec<(String, String)>, String),
}

/// Serve HTTP/1.1 on a free port; `handler` answers each request. Returns the port.
pub fn raw_server(handler: impl Fn(&Req) -> Reply + Send + Sync + 'static) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handler = Arc::new(handler);
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { return };
            let h = handler.clone();
            std::thread::spawn(move || serve_conn(conn, &*h));
        }
    });
    port
}

fn serve_conn(conn: TcpStream, handler: &dyn Fn(&Req) -> Reply) {
    let mut reader = BufReader::new(conn.try_clone().unwrap());
    let mut out = conn;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or("").to_string();
        let path = parts.next().unwrap_or("").to_string();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 {
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
        let len: usize = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let req = Req {
            method,
            path,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        };
        match handler(&req) {
            Reply::Body(status, ctype, body) => {
                let head = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: {ctype}\r\ncontent-length: {}\r\nmcp-session-id: sess-1\r\n\r\n",
                    body.len()
                );
                if out
                    .write_all(head.as_bytes())
                    .and_then(|_| out.write_all(body.as_bytes()))
                    .is_err()
                {
                    return;
                }
            }
            Reply::Sse(events) => {
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
                let _ = out.write_all(head.as_bytes());
                let _ = out.write_all(events.as_bytes());
                let _ = out.flush();
                return;
            }
            Reply::With(status, headers, body) => {
                let mut head = format!("HTTP/1.1 {status} X\r\ncontent-length: {}\r\n", body.len());
                for (k, v) in headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str("\r\n");
                if out
                    .write_all(head.as_bytes())
                    .and_then(|_| out.write_all(body.as_bytes()))
                    .is_err()
                {
                    return;
                }
            }
            Reply::Hang => {
                let _ = reader.read(&mut [0u8; 1]);
                return;
            }
        }
    }
}

pub const INIT_RESULT: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"raw"}}}"#;
