//! Loopback HTTP helpers: start real peers on ports they bind themselves, and
//! a raw HTTP/1.1 server for misbehaving-server scenarios no real server
//! produces on demand.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, mpsc};
use std::time::Duration;

/// A background peer, killed when dropped.
pub struct Bg(pub Child);

impl Drop for Bg {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start a server that binds port 0 itself and reports the port it got on
/// stderr (a line with `127.0.0.1:PORT`), and is listening by then. Choosing
/// a free port here and handing it over would leave a window for another
/// process to take it.
pub fn start_reporting(mut cmd: Command) -> (Bg, u16) {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start peer");
    let stderr = child.stderr.take().expect("stderr");
    let bg = Bg(child);
    let (tx, rx) = mpsc::channel();
    // Keeps draining stderr after the report, so the server never blocks on it.
    std::thread::spawn(move || {
        let mut before = String::new();
        let mut reported = false;
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if reported {
                continue;
            }
            match reported_port(&line) {
                Some(port) => {
                    reported = true;
                    let _ = tx.send(Ok(port));
                }
                None => before.push_str(&format!("{line}\n")),
            }
        }
        if !reported {
            let _ = tx.send(Err(before));
        }
    });
    match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(Ok(port)) => (bg, port),
        Ok(Err(stderr)) => panic!("the server exited without reporting its port:\n{stderr}"),
        Err(_) => panic!("the server reported no port within 30 s"),
    }
}

fn reported_port(line: &str) -> Option<u16> {
    let (_, rest) = line.split_once("127.0.0.1:")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok().filter(|&p| p != 0)
}

/// A loopback port nothing listens on, for as long as the returned socket
/// lives: bound but not listening, so a connection is refused and no other
/// process can take the port meanwhile.
pub fn refusing_port() -> (std::os::fd::OwnedFd, u16) {
    use std::os::fd::{FromRawFd, OwnedFd};
    // SAFETY: plain socket calls on a descriptor this function owns; the
    // address structs are fully initialised and their sizes passed along.
    unsafe {
        #[cfg(target_os = "linux")]
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        // No SOCK_CLOEXEC on macOS: set it right after (tests spawn no
        // child in between on this thread).
        #[cfg(not(target_os = "linux"))]
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
        assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        #[cfg(not(target_os = "linux"))]
        libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        let fd = OwnedFd::from_raw_fd(fd);
        let mut addr: libc::sockaddr_in = std::mem::zeroed();
        addr.sin_family = libc::AF_INET as libc::sa_family_t;
        addr.sin_addr.s_addr = u32::from(std::net::Ipv4Addr::LOCALHOST).to_be();
        let len = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
        let raw = std::os::fd::AsRawFd::as_raw_fd(&fd);
        let rc = libc::bind(raw, (&raw const addr).cast(), len);
        assert_eq!(rc, 0, "bind: {}", std::io::Error::last_os_error());
        let mut got: libc::sockaddr_in = std::mem::zeroed();
        let mut got_len = len;
        let rc = libc::getsockname(raw, (&raw mut got).cast(), &mut got_len);
        assert_eq!(rc, 0, "getsockname: {}", std::io::Error::last_os_error());
        (fd, u16::from_be(got.sin_port))
    }
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
    /// An SSE stream whose head is sent at once; each string received is
    /// written as it comes, and the connection closes when the sender drops.
    SseLater(mpsc::Receiver<String>),
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
            Reply::SseLater(events) => {
                let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
                if out
                    .write_all(head.as_bytes())
                    .and_then(|_| out.flush())
                    .is_err()
                {
                    return;
                }
                for e in events {
                    if out
                        .write_all(e.as_bytes())
                        .and_then(|_| out.flush())
                        .is_err()
                    {
                        return;
                    }
                }
                return;
            }
        }
    }
}

pub const INIT_RESULT: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"raw"}}}"#;
