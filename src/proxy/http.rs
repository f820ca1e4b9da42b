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
//! What is observed reaches the observer (`http_observer`) through bounded
//! hand-overs that forwarding never waits for. Header values are never
//! recorded, so `Authorization` and cookies stay out of the trace; the URL
//! in the trace header is redacted. Every request first passes the listener's Host and
//! Origin checks (DNS rebinding).
//!
//! With `--intercept`, each message also passes the breakpoint first
//! (`intercept`): a host's POST waits there before going upstream, a
//! server's message waits while the rest of its stream goes on. The
//! response body's way to the host, tested message by message under
//! `--faults` or `--intercept`, is `relay`.

mod intercept;
mod relay;

use super::ProxyError;
use super::breakpoints::http::Holds;
use super::faults::http::{HttpFaults, Verdict};
use super::http_observer::Observer;
use crate::checks::LiveChecks;
use crate::event::{Event, Status};
use crate::listen_guard::{self, ListenGuard};
use crate::session::live::{Notice, Observed, Plan};
use crate::session::registry::{Entry, Registration};
use crate::trace::Trace;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

pub(super) type Body = BoxBody<Bytes, std::io::Error>;

/// Request bodies are read whole before forwarding (to record them); at most this.
const MAX_REQUEST: usize = 64 << 20;
/// Request bodies being read or forwarded at once hold at most this many
/// KiB together; a host sending more waits (its TCP window fills) until
/// earlier bodies have gone upstream. `MCPSCOPE_PROXY_REQUEST_KIB` sets it,
/// for tests.
const REQUEST_BUDGET_KIB: usize = 256 << 10;

fn request_budget_kib() -> usize {
    std::env::var("MCPSCOPE_PROXY_REQUEST_KIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(REQUEST_BUDGET_KIB)
}

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

/// Bind the proxy's listener: before anything else is made (its
/// recording), so a busy port leaves nothing behind. Its error, said.
pub async fn bind(listen: SocketAddr) -> Result<tokio::net::TcpListener, ProxyError> {
    listen_guard::check_bind(&[listen], false).map_err(|why| ProxyError::Listen { listen, why })?;
    tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|source| ProxyError::Bind { listen, source })
}

pub struct HttpProxy {
    pub name: String,
    pub listen: SocketAddr,
    /// Bound by [`bind`].
    pub listener: tokio::net::TcpListener,
    pub url: reqwest::Url,
    pub trace: Trace,
    pub check: bool,
    pub checks: crate::checks::CheckConfig,
    pub verbose: bool,
    pub trace_path: std::path::PathBuf,
    pub owned_trace: bool,
    /// Bytes waiting for the observer or held by it, at most
    /// (`observer::max_queued`).
    pub max_queued: usize,
    /// Send the session to an OpenTelemetry backend (`--otlp`).
    pub otlp: Option<crate::otel::export::Config>,
    /// Start the OTLP receiver for the server's spans and logs: mcpscope
    /// cannot set an HTTP server's environment, so its address is said.
    pub otel_receiver: crate::otel::ReceiverAt,
    /// `--faults`: messages delayed, answered or streams ended on purpose.
    pub faults: Option<HttpFaults>,
    /// `--intercept`: breakpoints, for `attach --intercept`.
    pub intercept: bool,
    /// The trace's frame cap: an `injected` event keeps at most this of a
    /// message.
    pub max_frame: usize,
}

pub(super) struct Shared {
    guard: ListenGuard,
    pub(super) upstream: reqwest::Url,
    pub(super) client: reqwest::Client,
    posts: AtomicU64,
    gets: AtomicU64,
    /// Everything observed goes through it in the order it was forwarded:
    /// a request body before it goes upstream, a response chunk before it
    /// goes to the host — so the trace never has an answer before what it
    /// answers, across exchanges either.
    pub(super) obs: Arc<Observer>,
    /// KiB of request bodies held ([`REQUEST_BUDGET_KIB`]), its size, and
    /// how many requests had to wait for it.
    request_budget: Arc<tokio::sync::Semaphore>,
    request_budget_kib: usize,
    requests_waited: AtomicU64,
    /// `--faults`, and the trace's clock for the messages they test.
    faults: Option<Arc<HttpFaults>>,
    pub(super) trace: Trace,
    /// `--intercept`: what the breakpoint holds.
    pub(super) holds: Option<Arc<Holds>>,
}

/// 202 Accepted with no body: a server's answer to a notification or a
/// response.
pub(super) fn accepted() -> Response<Body> {
    let mut r = Response::new(
        Full::new(Bytes::new())
            .map_err(|never| match never {})
            .boxed(),
    );
    *r.status_mut() = StatusCode::ACCEPTED;
    r
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

pub(super) fn rpc_error(status: StatusCode, message: &str) -> Response<Body> {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null,
        "error": {"code": -32000, "message": message}});
    text(status, body.to_string())
}

impl HttpProxy {
    /// Serve until SIGINT, SIGTERM or SIGHUP; returns the exit code.
    pub async fn run(mut self) -> i32 {
        let say = |msg: &str| {
            if self.verbose {
                eprintln!("[mcpscope] {}", crate::protocol::sanitize::one_line(msg));
            }
        };
        let bound = self.listener.local_addr().unwrap_or(self.listen);
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
            posts: AtomicU64::new(0),
            gets: AtomicU64::new(0),
            obs: Arc::new(Observer::start(self.trace.clone(), self.max_queued)),
            request_budget: Arc::new(tokio::sync::Semaphore::new(request_budget_kib())),
            request_budget_kib: request_budget_kib(),
            requests_waited: AtomicU64::new(0),
            faults: self.faults.take().map(Arc::new),
            trace: self.trace.clone(),
            holds: self
                .intercept
                .then(|| Arc::new(Holds::new(self.trace.clone(), self.max_frame))),
        });
        let mut registration = self.register(&say);
        if shared.holds.is_some() {
            let control = intercept::HttpControl(shared.clone());
            match crate::proxy::breakpoints::control::start(Arc::new(control)).await {
                Ok(at) => {
                    say(&format!("intercept: controller at {}", at.addr));
                    if let Some(r) = registration.as_mut() {
                        r.update(|entry| entry.intercept = Some(at));
                    }
                }
                Err(e) => say(&format!("intercept: cannot listen for a controller: {e}")),
            }
        }
        // Said whether asked or not: the host needs the address.
        eprintln!(
            "[mcpscope] proxying http://{bound}{} -> {}",
            self.url.path(),
            crate::session::spec::redact_url(self.url.as_str())
        );
        // Held until the end: what the server exports goes into the trace.
        let Some(observed) = self.observe(&say).await else {
            return 2;
        };
        let checks = observed.checks().cloned();
        let mut signals = crate::signals::Caught::stopping();
        let mut refresh = tokio::time::interval(std::time::Duration::from_millis(500));
        let listener = self.listener;
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
                sig = signals.recv() => break crate::signals::exit_code(sig),
                _ = refresh.tick() => {
                    refresh_entry(&mut registration, &self.trace, checks.as_ref(), &shared);
                }
            }
        };
        if let Some(h) = &shared.holds {
            h.answers_read().await;
        }
        // What was forwarded before the end is in the trace before it is
        // checked and closed.
        shared.obs.close();
        shared.obs.sync().await;
        // What is still held never goes: recorded so, and its waiters let go.
        if let Some(h) = &shared.holds {
            h.end();
        }
        let ended = observed.end(std::future::pending()).await;
        super::say_export(ended.export.as_ref(), say);
        if let Some(c) = &checks
            && self.verbose
        {
            for f in c.findings() {
                say(&format!("[finding] {f}"));
            }
        }
        say_incomplete(&shared, ended.recording_error);
        drop(registration);
        code
    }

    /// List the session in the registry (`mcpscope sessions`), when it can be.
    fn register(&self, say: &dyn Fn(&str)) -> Option<Registration> {
        Registration::register(Entry::starting(
            self.name.clone(),
            std::process::id(),
            "http",
            vec![crate::session::spec::redact_url(self.url.as_str())],
            self.trace_path.clone(),
            self.owned_trace,
            self.check,
        ))
        .map_err(|e| say(&format!("not listed in `mcpscope sessions`: {e}")))
        .ok()
    }

    /// Start observing the session (checks, OTLP receiver and export);
    /// `None` once the failure is said.
    async fn observe(&self, say: &dyn Fn(&str)) -> Option<Observed> {
        let plan = Plan {
            receiver: self.otel_receiver,
            // An address the user gave is one a server is pointed at.
            receiver_strict: true,
            checks: self.check.then(|| self.checks.clone()),
            export: self.otlp.clone(),
        };
        let server_json = serde_json::json!({"transport": "http", "url": self.url.as_str()});
        let observed = Observed::start(self.trace.clone(), plan, None, server_json, true).await;
        match observed {
            Ok((o, notices)) => {
                for n in notices {
                    match n {
                        // Said whether asked or not: the server must be pointed here.
                        Notice::ReceiverAt(at) => eprintln!(
                            "[mcpscope] OTLP receiver at {at} (point the server's OTEL_EXPORTER_OTLP_ENDPOINT here)"
                        ),
                        Notice::NoReceiver(e) => say(&format!("no OTLP receiver: {e}")),
                    }
                }
                Some(o)
            }
            Err(e) => {
                eprintln!("[mcpscope] error: {}", e.0);
                None
            }
        }
    }
}

/// Refresh the registry entry's counts: events, findings (per host
/// session too) and what the observer missed.
fn refresh_entry(
    registration: &mut Option<Registration>,
    trace: &Trace,
    checks: Option<&LiveChecks>,
    shared: &Shared,
) {
    let events = trace.read().next_seq();
    let findings = checks.map(|c| {
        let n = c.counts_by_severity();
        [n.error as u64, n.warning as u64, n.info as u64]
    });
    let hosts: Vec<crate::session::registry::HostFindings> = checks
        .map(|c| c.counts_by_session())
        .unwrap_or_default()
        .into_iter()
        .map(|(session, n)| crate::session::registry::HostFindings {
            session,
            findings: [n.error as u64, n.warning as u64, n.info as u64],
        })
        .collect();
    if let Some(r) = registration {
        r.update(|e| {
            e.events = events;
            e.findings = findings;
            e.hosts = hosts;
            e.unobserved_bytes = shared.obs.lost.bytes();
            e.unobserved_exchanges = shared.obs.lost.exchanges();
            e.requests_waited = shared.requests_waited.load(Ordering::Relaxed);
        });
    }
}

/// What the trace is missing, said whether asked or not.
fn say_incomplete(shared: &Shared, recording_error: Option<String>) {
    let (lost, unobserved) = (shared.obs.lost.bytes(), shared.obs.lost.exchanges());
    if lost > 0 || unobserved > 0 {
        let exchanges = match unobserved {
            0 => String::new(),
            n => format!(
                " ({n} exchange{} not observed at all)",
                if n == 1 { "" } else { "s" }
            ),
        };
        eprintln!(
            "[mcpscope] the observer fell behind: {lost} bytes were forwarded but are missing from the trace{exchanges}"
        );
    }
    if let Some(e) = recording_error {
        eprintln!("[mcpscope] {}", crate::protocol::sanitize::one_line(&e));
    }
}

fn header<'a>(req: &'a Request<Incoming>, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// The host session a request belongs to: its `Mcp-Session-Id`, or the
/// legacy HTTP+SSE transport's session query parameter.
fn host_session(req: &Request<Incoming>) -> Option<String> {
    if let Some(s) = header(req, "mcp-session-id") {
        return Some(s.to_string());
    }
    session_in_query(req.uri().query()?)
}

/// The legacy HTTP+SSE transport's session in a POST's `query`.
fn session_in_query(query: &str) -> Option<String> {
    let url = reqwest::Url::parse(&format!("http://proxy/?{query}")).ok()?;
    url.query_pairs()
        .find(|(k, _)| k == "sessionId" || k == "session_id")
        .map(|(_, v)| v.into_owned())
}

/// The id of the request in `body` when closing its response stream
/// cancels it: the 2026-07-28 era, whose hosts cancel that way over HTTP
/// (earlier revisions say a disconnect is not a cancel).
fn cancelled_by_closing(protocol: Option<&str>, body: &[u8]) -> Option<serde_json::Value> {
    if !stateless(protocol) {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    v.get("method")?;
    v.get("id").filter(|id| !id.is_null()).cloned()
}

/// Whether a request's `MCP-Protocol-Version` is of the 2026-07-28 era,
/// which has no resumption (closing a request's stream cancels it).
fn stateless(protocol: Option<&str>) -> bool {
    protocol
        .and_then(|p| p.trim().parse::<crate::protocol::Revision>().ok())
        .is_some_and(|r| r.era() == crate::protocol::Era::Stateless)
}

impl Shared {
    /// A request body, whole (at most [`MAX_REQUEST`]), and its share of
    /// the budget of all bodies held at once. The share is taken whole
    /// before reading, never piecemeal (two bodies each holding part and
    /// waiting for more would wait forever): its `Content-Length`, or the
    /// most a body may be when it has none (chunked uploads are rare).
    async fn read_body(
        &self,
        declared: Option<u64>,
        body: Incoming,
    ) -> Result<(Bytes, Option<tokio::sync::OwnedSemaphorePermit>), ProxyError> {
        let size = declared.unwrap_or(MAX_REQUEST as u64);
        if size > MAX_REQUEST as u64 {
            return Err(ProxyError::TooLarge { limit: MAX_REQUEST });
        }
        // A body bigger than the whole budget takes all of it.
        let kib = size.div_ceil(1024).min(self.request_budget_kib as u64);
        let kib = u32::try_from(kib).unwrap_or(u32::MAX);
        let share = match kib {
            0 => None,
            n => Some(
                match self.request_budget.clone().try_acquire_many_owned(n) {
                    Ok(p) => p,
                    Err(_) => {
                        self.requests_waited.fetch_add(1, Ordering::Relaxed);
                        self.request_budget
                            .clone()
                            .acquire_many_owned(n)
                            .await
                            .map_err(ProxyError::Budget)?
                    }
                },
            ),
        };
        let bytes = Limited::new(body, MAX_REQUEST)
            .collect()
            .await
            .map_err(ProxyError::Body)?
            .to_bytes();
        Ok((bytes, share))
    }

    async fn handle(self: Arc<Self>, req: Request<Incoming>) -> Response<Body> {
        // Every Host and Origin line is read: two of either are refused.
        if let Err(refusal) = self.guard.admit(req.headers()) {
            return refusal
                .response()
                .map(|b| b.map_err(|never| match never {}).boxed());
        }
        let method = req.method().clone();
        let ch = self.channel_of(&method);
        let protocol = header(&req, "mcp-protocol-version").map(str::to_string);
        if let Some(h) = &self.holds {
            h.seen_host(header(&req, "mcp-session-id"), protocol.as_deref());
            if method == hyper::Method::POST
                && let Some(t) = req.uri().path_and_query()
            {
                h.seen_post(t.as_str());
            }
        }
        let start = Event::HostRequest {
            method: method.to_string(),
            session: host_session(&req),
            target: (method == hyper::Method::POST)
                .then(|| {
                    req.uri()
                        .path_and_query()
                        .map(|p| crate::event::target_key(p.as_str()))
                })
                .flatten(),
            protocol: protocol.clone(),
            last_event_id: (method == hyper::Method::GET)
                .then(|| header(&req, "last-event-id").map(str::to_string))
                .flatten(),
        };
        // Dropped when the exchange is over, however it ends: the observer
        // is then told, and forgets it.
        let mut ex = self.obs.exchange(&ch, start);
        let mut url = self.upstream.clone();
        url.set_path(req.uri().path());
        url.set_query(req.uri().query());
        let mut headers = reqwest::header::HeaderMap::new();
        for (k, v) in req.headers() {
            if !HOP.contains(&k.as_str()) {
                headers.append(k.clone(), v.clone());
            }
        }
        // Held until the request has gone upstream (the end of this call).
        let declared = header(&req, hyper::header::CONTENT_LENGTH.as_str())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let (mut body, _budget) = match self.read_body(declared, req.into_body()).await {
            Ok(b) => b,
            Err(e) => {
                return rpc_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    &format!("request body refused by the proxy: {e}"),
                );
            }
        };
        if !body.is_empty() {
            ex.request(&body);
            if method == hyper::Method::POST
                && let Some(id) = cancelled_by_closing(protocol.as_deref(), &body)
            {
                ex.cancels_on_close(id);
            }
        }
        if let Some(h) = self.holds.clone()
            && method == hyper::Method::POST
            && !body.is_empty()
        {
            match intercept::held_host_message(&h, &body, &mut ex, &self.trace).await {
                Ok(Some(edited)) => body = edited,
                Ok(None) => {}
                Err(answer) => return answer,
            }
        }
        if let Some(f) = &self.faults
            && !body.is_empty()
        {
            let mut events = Vec::new();
            let verdict = f.host(&body, self.trace.now_us(), &mut events);
            for ev in events {
                ex.injected(ev);
            }
            match verdict {
                Verdict::Delay(d) => tokio::time::sleep(d).await,
                Verdict::Answer(code) => {
                    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_GATEWAY);
                    return text(status, String::new());
                }
                // Host messages are never closed (`HttpFaults::host`).
                Verdict::Pass | Verdict::Close => {}
            }
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
                ex.head(
                    Event::HttpError {
                        method: method.to_string(),
                        error: error.clone(),
                    },
                    false,
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
        let sse = ctype
            .as_deref()
            .is_some_and(|c| c.starts_with("text/event-stream"));
        ex.head(
            Event::Http {
                method: method.to_string(),
                status: Status::Code(status.as_u16()),
                content_type: ctype.clone(),
                session,
                ms: t0.elapsed().as_millis() as u64,
                challenge: None,
            },
            sse,
        );
        let out = self.answer_head(&resp);
        // A legacy server's event stream may name its POST endpoint by an
        // absolute URL: it is pointed at the proxy (see `endpoint`).
        let rewrite = (method == hyper::Method::GET && sse)
            .then(|| super::endpoint::EndpointRewrite::new(&self.upstream));
        // Only a POST's stream can be resumed by the host, and not at 2026-07-28.
        let closable = sse && method == hyper::Method::POST && !stateless(protocol.as_deref());
        let intercepted = self
            .holds
            .clone()
            .map(|h| intercept::Intercepted::new(h, sse, method == hyper::Method::GET));
        let faults = (self.faults.is_some() || intercepted.is_some()).then(|| {
            relay::Faulted::new(
                self.faults.clone(),
                intercepted,
                self.trace.clone(),
                sse,
                closable,
            )
        });
        out.body(relay::relayed_body(resp, ex, rewrite, faults))
            .unwrap_or_else(|e| rpc_error(StatusCode::BAD_GATEWAY, &e.to_string()))
    }

    /// The trace channel of a host request: each POST and each GET stream
    /// a channel of its own.
    pub(super) fn channel_of(&self, method: &hyper::Method) -> String {
        match method.as_str() {
            "POST" => format!("post:{}", self.posts.fetch_add(1, Ordering::Relaxed) + 1),
            // Each stream its own channel: two hosts (or one reconnecting)
            // hold GET streams at once. The first keeps the client's name.
            "GET" => match self.gets.fetch_add(1, Ordering::Relaxed) {
                0 => "get".to_string(),
                n => format!("get:{}", n + 1),
            },
            m => m.to_ascii_lowercase(),
        }
    }

    /// The host's answer's status and headers: the server's, less the
    /// hop-by-hop ones, a redirect to the server's origin kept on the proxy.
    fn answer_head(&self, resp: &reqwest::Response) -> hyper::http::response::Builder {
        let mut out = Response::builder().status(resp.status().as_u16());
        for (k, v) in resp.headers() {
            if HOP.contains(&k.as_str()) {
                continue;
            }
            // A redirect to the server's own origin stays on the proxy.
            let moved = (k == reqwest::header::LOCATION)
                .then(|| v.to_str().ok())
                .flatten()
                .and_then(|l| super::endpoint::on_proxy(&self.upstream, l))
                .and_then(|p| hyper::header::HeaderValue::from_str(&p).ok());
            out = out.header(k.clone(), moved.unwrap_or_else(|| v.clone()));
        }
        out
    }
}
