//! The HTTP proxy over a long session: COUNT exchanges (a host's POSTs,
//! each answered with a small JSON body by a loopback server in this
//! process) through the real `mcpscope proxy --listen --url --max-store
//! 16MiB`, at two session lengths side by side: exchanges per second, and
//! the proxy's peak RSS. Observing and recording must not grow with the
//! session (what the observer holds is bounded, and each `post:N` channel
//! goes with its events once they are evicted), nor must checking (the
//! rule engine retires finished requests past a window).
//!
//! Run: `cargo build --release && cargo run --release --example http_proxy_bench [COUNT]`
//! (default 800,000; the short session is a quarter of it).

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

#[path = "support/release_bin.rs"]
mod release_bin;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

/// Host connections sending at once.
const HOSTS: u64 = 4;

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(800_000);
    let bin = release_bin::release_bin();
    let upstream = serve();
    let rt = std::env::temp_dir().join(format!("mcpscope-http-bench-{}", std::process::id()));
    std::fs::create_dir_all(&rt).expect("temp dir");
    println!("{HOSTS} hosts, POST + JSON answer per exchange, --max-store 16MiB");
    for (args, what) in [
        (&["--no-check"][..], "observing and recording (--no-check)"),
        (&[][..], "observing, recording and checking"),
    ] {
        println!("{what}:");
        let mut rss = Vec::new();
        for n in [count / 4, count] {
            let (proxy, port) = proxy(&bin, upstream, &rt, args);
            let t0 = Instant::now();
            let hosts: Vec<_> = (0..HOSTS)
                .map(|h| std::thread::spawn(move || host(port, h, n / HOSTS)))
                .collect();
            for h in hosts {
                h.join().expect("host");
            }
            let dt = t0.elapsed().as_secs_f64();
            let peak = stop(proxy);
            println!(
                "  {n:>9} exchanges  {:>7.0} /s  proxy peak RSS {:6.1} MB",
                n as f64 / dt,
                peak as f64 / 1024.0
            );
            rss.push(peak as f64);
        }
        println!(
            "  peak RSS, long session / short session: {:.2}x (4x the exchanges)",
            rss[1] / rss[0]
        );
    }
    let _ = std::fs::remove_dir_all(&rt);
}

/// A loopback server answering every request with a small JSON body; its port.
fn serve() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = l.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for conn in l.incoming().flatten() {
            std::thread::spawn(move || {
                let mut r = BufReader::new(conn.try_clone().expect("clone"));
                let mut w = conn;
                while let Some(len) = head(&mut r) {
                    let mut body = vec![0; len];
                    if r.read_exact(&mut body).is_err() {
                        return;
                    }
                    // The request's own id: an answer to no request would
                    // keep requests in flight in the store's indexes.
                    let body = String::from_utf8_lossy(&body);
                    let id: String = body
                        .split_once("\"id\":")
                        .map(|(_, rest)| rest.chars().take_while(char::is_ascii_digit).collect())
                        .unwrap_or_default();
                    let answer = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
                    let out = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
                        answer.len()
                    );
                    if w.write_all(out.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    port
}

/// Read a message head; its content length, `None` at the end.
fn head(r: &mut impl BufRead) -> Option<usize> {
    let mut len = 0;
    let mut chunked = false;
    let mut first = true;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() && !first {
            return Some(if chunked { usize::MAX } else { len });
        }
        first = false;
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            len = v.trim().parse().ok()?;
        }
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
    }
}

/// One host: `n` POSTs on one kept-alive connection, each answer read whole.
fn host(port: u16, h: u64, n: u64) {
    let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_nodelay(true).expect("nodelay");
    let mut r = BufReader::new(s.try_clone().expect("clone"));
    let mut w = s;
    for i in 0..n {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{},"method":"ping"}}"#, h * n + i);
        write!(
            w,
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .expect("send");
        match head(&mut r).expect("an answer") {
            usize::MAX => loop {
                // Chunked (the proxy streams bodies): size line, data, CRLF.
                let mut size = String::new();
                r.read_line(&mut size).expect("chunk size");
                let size = usize::from_str_radix(size.trim(), 16).expect("hex size");
                let mut data = vec![0; size + 2];
                r.read_exact(&mut data).expect("chunk");
                if size == 0 {
                    break;
                }
            },
            len => {
                let mut data = vec![0; len];
                r.read_exact(&mut data).expect("body");
            }
        }
    }
}

/// The proxy on a port of its own choosing, as a host would start it.
fn proxy(
    bin: &std::path::Path,
    upstream: u16,
    rt: &std::path::Path,
    args: &[&str],
) -> (Child, u16) {
    let mut child = Command::new(bin)
        .args(["proxy", "--listen", "127.0.0.1:0", "--max-store", "16MiB"])
        .arg("--url")
        .arg(format!("http://127.0.0.1:{upstream}/mcp"))
        .args(args)
        .env("MCPSCOPE_RUNTIME_DIR", rt)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the proxy");
    let mut err = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    err.read_line(&mut line)
        .expect("the proxy says its address");
    let port = line
        .split_once("http://127.0.0.1:")
        .and_then(|(_, rest)| {
            let d: String = rest.chars().take_while(char::is_ascii_digit).collect();
            d.parse().ok()
        })
        .unwrap_or_else(|| panic!("no port in {line:?}"));
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    (child, port)
}

/// SIGTERM the proxy, wait for it; its peak RSS in KiB.
// The child is reaped by `wait4`, which also gives its rusage.
#[allow(clippy::zombie_processes)]
fn stop(child: Child) -> u64 {
    let pid = child.id() as libc::pid_t;
    // SAFETY: kill(2) on our own child, not yet reaped.
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let mut status = 0;
    // SAFETY: rusage is plain data; all zeroes is a valid value.
    // SAFETY: `rusage` is plain integers, for which all zeroes is a value.
    let mut usage = unsafe { std::mem::zeroed::<libc::rusage>() };
    // SAFETY: pid is our child, not yet reaped; both are valid out-pointers.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    usage.ru_maxrss as u64
}
