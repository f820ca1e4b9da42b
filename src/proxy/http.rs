//! The HTTP proxy: a reverse proxy on a loopback address for a Streamable
//! HTTP (or legacy HTTP+SSE) server. Each request goes to the server's
//! origin with the same method, path, query and headers (hop-by-hop ones
//! aside, `Host` the server's); each response comes back with its status and
//! headers, its body streamed chunk by chunk as it arrives — an SSE stream
//! is never buffered.
//!
//! Observing runs beside: request bodies are recorded as `out` frames, the
//! exchange as an `http` event (status, content type, session id, time to
//! headers), response bodies as `in` frames (SSE events' data, or the JSON
//! body), on channels named like the client's (`post:N`, `get`, `delete`).
//! The response's chunks reach the observer through a bounded queue that
//! forwarding never waits for. Header values are never recorded, so
//! `Authorization` and cookies stay out of the trace; the URL in the trace
//! header is redacted. Every request first passes the listener's Host and
//! Origin checks (DNS rebinding).

use super::registry::{Entry, Registration};
use crate::checks::LiveChecks;
use crate::event::{Event, Status};
use crate::listen_guard::{self, ListenGuard};
use crate::trace::{Dir, Trace};
use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full, Limited, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

type Body = BoxBody<Bytes, std::io::Error>;

/// Request bodies are read whole before forwarding (to record them); at most this.
const MAX_REQUEST: usize = 64 << 20;
/// Pieces (request bodies, response chunks, events) waiting for the observer, at most.
const OBSERVER_QUEUE: usize = 16_384;
/// A JSON response body is recorded up to this size (the host gets all of it).
const MAX_JSON_BODY: usize = 64 << 20;

/// Headers that belong to one connection, not to the message.
const HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "content-length",
];

pub struct HttpProxy {
    pub name: String,
    pub listen: SocketAddr,
    pub url: reqwest::Url,
    pub trace: Trace,
    pub check: bool,
    pub checks: crate::checks::CheckConfig,
    pub verbose: bool,
    pub trace_path: std::path::PathBuf,
    pub owned_trace: bool,
}

struct Shared {
    guard: ListenGuard,
    upstream: reqwest::Url,
    client: reqwest::Client,
    trace: Trace,
    posts: AtomicU64,
    lost: AtomicU64,
    /// Everything observed goes through this one queue, in the order it was
    /// forwarded: a request body before it goes upstream, a response chunk
    /// before it goes to the host — so the trace never has an answer before
    /// what it answers, across exchanges either.
    obs: tokio::sync::mpsc::Sender<Obs>,
}

/// What the observer task records, in order.
enum Obs {
    Request { ch: String, body: Bytes },
    Meta { ch: String, ev: Event },
    Chunk { ch: String, sse: bool, bytes: Bytes },
    End { ch: String },
}

fn text(status: StatusCode, body: String) -> Response<Body> {
    let mut r = Response::new(
        Full::new(Bytes::from(body))
            .map_err(|never| match never {})
            .boxed(),
    );
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

fn rpc_error(status: StatusCode, message: &str) -> Response<Body> {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null,
        "error": {"code": -32000, "message": message}});
    text(status, body.to_string())
}

impl HttpProxy {
    /// Serve until SIGINT, SIGTERM or SIGHUP; returns the exit code.
    pub async fn run(self) -> i32 {
        let say = |msg: &str| {
            if self.verbose {
                eprintln!("[mcpscope] {}", crate::protocol::sanitize::one_line(msg));
            }
        };
        if let Err(e) = listen_guard::check_bind(&[self.listen], false) {
            eprintln!("[mcpscope] error: --listen {}: {e}", self.listen);
            return 2;
        }
        let listener = match tokio::net::TcpListener::bind(self.listen).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("[mcpscope] error: cannot listen on {}: {e}", self.listen);
                return 2;
            }
        };
        let bound = listener.local_addr().unwrap_or(self.listen);
        let client = match reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
        {
            Ok(c) => c,
            Err(e) => {
                eprintln!("[mcpscope] error: {e}");
                return 3;
            }
        };
        let shared = Arc::new(Shared {
            guard: ListenGuard::new(bound, Vec::new()),
            upstream: self.url.clone(),
            client,
            trace: self.trace.clone(),
            posts: AtomicU64::new(0),
            lost: AtomicU64::new(0),
            obs: {
                let (tx, rx) = tokio::sync::mpsc::channel(OBSERVER_QUEUE);
                tokio::spawn(observe(self.trace.clone(), rx));
                tx
            },
        });
        let started_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let mut registration = Registration::register(Entry {
            name: self.name.clone(),
            pid: std::process::id(),
            transport: "http".into(),
            server: vec![crate::session::spec::redact_url(self.url.as_str())],
            trace: self.trace_path.clone(),
            owned_trace: self.owned_trace,
            started: crate::session::rfc3339_now(),
            started_ms,
            events: 0,
            findings: self.check.then_some([0; 3]),
            unobserved_bytes: 0,
            pid_start: None,
        })
        .map_err(|e| say(&format!("not listed in `mcpscope sessions`: {e}")))
        .ok();
        // Said whether asked or not: the host needs the address.
        eprintln!(
            "[mcpscope] proxying http://{bound}{} -> {}",
            self.url.path(),
            crate::session::spec::redact_url(self.url.as_str())
        );
        let checks = self
            .check
            .then(|| LiveChecks::spawn(self.trace.clone(), self.checks.clone()));
        let mut signals = super::stdio::Forwarded::catch_exit();
        let mut refresh = tokio::time::interval(std::time::Duration::from_millis(500));
        let code = loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((stream, _)) = accepted else { continue };
                    let shared = shared.clone();
                    tokio::spawn(async move {
                        let svc = service_fn(move |req| {
                            let shared = shared.clone();
                            async move { Ok::<_, std::convert::Infallible>(shared.handle(req).await) }
                        });
                        let _ = http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), svc)
                            .await;
                    });
                }
                sig = signals.recv() => break 128 + sig,
                _ = refresh.tick() => {
                    let events = self.trace.read().next_seq();
                    let findings = checks.as_ref().map(|c| {
                        let n = c.counts_by_severity();
                        [n.error as u64, n.warning as u64, n.info as u64]
                    });
                    if let Some(r) = &mut registration {
                        r.update(|e| {
                            e.events = events;
                            e.findings = findings;
                            e.unobserved_bytes = shared.lost.load(Ordering::Relaxed);
                        });
                    }
                }
            }
        };
        if let Some(c) = &checks {
            c.sync();
            if self.verbose {
                for f in c.findings() {
                    say(&format!("[finding] {f}"));
                }
            }
            c.stop();
        }
        let lost = shared.lost.load(Ordering::Relaxed);
        if lost > 0 {
            eprintln!(
                "[mcpscope] the observer fell behind: {lost} bytes were forwarded but are missing from the trace"
            );
        }
        if let Some(e) = self.trace.finish_recording() {
            eprintln!("[mcpscope] {}", crate::protocol::sanitize::one_line(&e));
        }
        drop(registration);
        code
    }
}

fn header<'a>(req: &'a Request<Incoming>, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

impl Shared {
    /// Queue `o` for the observer without waiting; what does not fit is
    /// counted and said in the trace.
    fn observe(&self, o: Obs) {
        if let Err(
            tokio::sync::mpsc::error::TrySendError::Full(o)
            | tokio::sync::mpsc::error::TrySendError::Closed(o),
        ) = self.obs.try_send(o)
        {
            let (ch, bytes) = match &o {
                Obs::Request { ch, body } => (ch.clone(), body.len()),
                Obs::Chunk { ch, bytes, .. } => (ch.clone(), bytes.len()),
                Obs::Meta { ch, .. } | Obs::End { ch } => (ch.clone(), 0),
            };
            self.lost.fetch_add(bytes as u64, Ordering::Relaxed);
            let ev = Event::ObserverBehind {
                stream: ch.clone(),
                bytes: bytes as u64,
            };
            self.trace.append(|s, now| s.append_event(&ch, now, &ev));
        }
    }

    fn meta(&self, ch: &str, ev: Event) {
        self.observe(Obs::Meta {
            ch: ch.to_string(),
            ev,
        });
    }

    async fn handle(self: Arc<Self>, req: Request<Incoming>) -> Response<Body> {
        if let Err(refusal) = self.guard.check(
            header(&req, hyper::header::HOST.as_str()),
            header(&req, hyper::header::ORIGIN.as_str()),
        ) {
            let status =
                StatusCode::from_u16(listen_guard::REFUSED_STATUS).unwrap_or(StatusCode::FORBIDDEN);
            return text(status, refusal.body());
        }
        let method = req.method().clone();
        let ch = match method.as_str() {
            "POST" => format!("post:{}", self.posts.fetch_add(1, Ordering::Relaxed) + 1),
            m => m.to_ascii_lowercase(),
        };
        let mut url = self.upstream.clone();
        url.set_path(req.uri().path());
        url.set_query(req.uri().query());
        let mut headers = reqwest::header::HeaderMap::new();
        for (k, v) in req.headers() {
            if !HOP.contains(&k.as_str()) {
                headers.append(k.clone(), v.clone());
            }
        }
        let body = match Limited::new(req.into_body(), MAX_REQUEST).collect().await {
            Ok(b) => b.to_bytes(),
            Err(e) => {
                return rpc_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &format!("request body refused by the proxy: {e}"),
                );
            }
        };
        if !body.is_empty() {
            self.observe(Obs::Request {
                ch: ch.clone(),
                body: body.clone(),
            });
        }
        let t0 = Instant::now();
        let sent = self
            .client
            .request(method.clone(), url)
            .headers(headers)
            .body(body)
            .send()
            .await;
        let resp = match sent {
            Ok(r) => r,
            Err(e) => {
                let error = crate::protocol::sanitize::one_line(&e.to_string()).into_owned();
                self.meta(
                    &ch,
                    Event::HttpError {
                        method: method.to_string(),
                        error: error.clone(),
                    },
                );
                return rpc_error(
                    StatusCode::BAD_GATEWAY,
                    &format!("the proxy could not reach the server: {error}"),
                );
            }
        };
        let status = resp.status();
        let ctype = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let session = resp
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        self.meta(
            &ch,
            Event::Http {
                method: method.to_string(),
                status: Status::Code(status.as_u16()),
                content_type: ctype.clone(),
                session,
                ms: t0.elapsed().as_millis() as u64,
                challenge: None,
            },
        );
        let mut out = Response::builder().status(status.as_u16());
        for (k, v) in resp.headers() {
            if !HOP.contains(&k.as_str()) {
                out = out.header(k.clone(), v.clone());
            }
        }
        let sse = ctype
            .as_deref()
            .is_some_and(|c| c.starts_with("text/event-stream"));
        let me = self.clone();
        // Tells the observer the body is over when the stream is dropped:
        // at its end, or when the host went away in the middle.
        let guard = EndOnDrop {
            shared: self.clone(),
            ch: ch.clone(),
        };
        let chunks = resp.bytes_stream().map(move |chunk| {
            let _ = &guard;
            match chunk {
                Ok(b) => {
                    me.observe(Obs::Chunk {
                        ch: ch.clone(),
                        sse,
                        bytes: b.clone(),
                    });
                    Ok(Frame::data(b))
                }
                Err(e) => {
                    me.meta(
                        &ch,
                        Event::StreamError {
                            error: crate::protocol::sanitize::one_line(&e.to_string()).into_owned(),
                        },
                    );
                    Err(std::io::Error::other(e))
                }
            }
        });
        out.body(BodyExt::boxed(StreamBody::new(chunks)))
            .unwrap_or_else(|e| rpc_error(StatusCode::BAD_GATEWAY, &e.to_string()))
    }
}

struct EndOnDrop {
    shared: Arc<Shared>,
    ch: String,
}

impl Drop for EndOnDrop {
    fn drop(&mut self) {
        self.shared.observe(Obs::End {
            ch: std::mem::take(&mut self.ch),
        });
    }
}

/// Response bodies being observed: an SSE parser, or a JSON body so far.
enum Pending {
    Sse(crate::transport::sse::SseParser),
    Json { body: Vec<u8>, total: u64 },
}

/// The observer task: records what `rx` brings, in its order. SSE events'
/// data become frames as they complete; a JSON body is one frame at its end.
async fn observe(trace: Trace, mut rx: tokio::sync::mpsc::Receiver<Obs>) {
    let mut bodies: std::collections::HashMap<String, Pending> = std::collections::HashMap::new();
    while let Some(o) = rx.recv().await {
        match o {
            Obs::Request { ch, body } => trace.append(|s, now| {
                s.append_frame(Dir::Out, &ch, now, body.trim_ascii(), &mut Vec::new());
            }),
            Obs::Meta { ch, ev } => trace.append(|s, now| {
                s.append_event(&ch, now, &ev);
            }),
            Obs::Chunk { ch, sse, bytes } => {
                let b = bodies.entry(ch.clone()).or_insert_with(|| {
                    if sse {
                        Pending::Sse(crate::transport::sse::SseParser::new())
                    } else {
                        Pending::Json {
                            body: Vec::new(),
                            total: 0,
                        }
                    }
                });
                match b {
                    Pending::Sse(parser) => {
                        // Priming events (an id, no data) carry no message.
                        let frames: Vec<String> = parser
                            .feed(&bytes)
                            .into_iter()
                            .filter_map(|e| e.data)
                            .filter(|d| !d.is_empty())
                            .collect();
                        if !frames.is_empty() {
                            trace.append(|s, now| {
                                for f in &frames {
                                    s.append_frame(
                                        Dir::In,
                                        &ch,
                                        now,
                                        f.as_bytes(),
                                        &mut Vec::new(),
                                    );
                                }
                            });
                        }
                    }
                    Pending::Json { body, total } => {
                        *total += bytes.len() as u64;
                        let room = MAX_JSON_BODY.saturating_sub(body.len());
                        body.extend_from_slice(&bytes[..bytes.len().min(room)]);
                    }
                }
            }
            Obs::End { ch } => {
                if let Some(Pending::Json { body, total }) = bodies.remove(&ch)
                    && !body.is_empty()
                {
                    trace.append(|s, now| {
                        if total > body.len() as u64 {
                            let seq = s.append_cut(Dir::In, &ch, now, &body);
                            s.append_event(
                                &ch,
                                now,
                                &Event::oversized(body.len(), total, Some(seq)),
                            );
                        } else {
                            s.append_frame(Dir::In, &ch, now, body.trim_ascii(), &mut Vec::new());
                        }
                    });
                }
            }
        }
    }
}
