//! The demo server over Streamable HTTP (`mcpscope demo-server --http ADDR`):
//! one endpoint `/mcp`, sessions by `Mcp-Session-Id` in the handshake era,
//! stateless requests in the 2026-07-28 era, every request answered on its
//! own SSE stream (progress and logs first, then the response), resumable
//! with `Last-Event-ID`, plus a standalone GET stream.
//!
//! `--progress buffered` holds a stream's events until the response (like the
//! Ruby SDK's bundled transport) and `--progress wrong-stream` sends progress
//! on the GET stream, so clients can see what those mistakes look like.
//! `--sse-close-after N` ends each request stream after N events once, so
//! clients must resume it.
//!
//! Every request first passes the listener's [`ListenGuard`] (Host and
//! Origin checks against DNS rebinding); a refused one gets `403`.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Map, Value, json};
use tokio::net::TcpListener;
use tokio::sync::watch;

use super::out;
use super::session::Session;
use super::stateless;
use crate::listen_guard::{self, ListenGuard};
use crate::protocol::Revision;

const SESSION_HEADER: &str = "mcp-session-id";
const MAX_BODY: usize = 16 << 20;
const RETRY_MS: u64 = 200;

/// How request streams deliver progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProgressMode {
    /// As it happens, on the request's own stream.
    #[default]
    Live,
    /// Held back and flushed together with the response.
    Buffered,
    /// On the standalone GET stream instead of the request's stream.
    WrongStream,
}

#[derive(Debug, Clone, Default)]
pub struct HttpOptions {
    pub progress: ProgressMode,
    /// End each request stream after this many events, once (forces resumption).
    pub close_after: Option<usize>,
    /// `--allow-origin`s, already normalised by [`listen_guard::parse_origin`].
    pub allowed_origins: Vec<String>,
    pub demo: super::Options,
}

pub(crate) type Body = BoxBody<Bytes, Infallible>;

/// The events of one SSE stream, kept so a client can resume it.
struct StreamBuf {
    state: Mutex<(Vec<Bytes>, bool)>,
    changed: watch::Sender<usize>,
}

impl StreamBuf {
    fn new() -> Arc<StreamBuf> {
        Arc::new(StreamBuf {
            state: Mutex::new((Vec::new(), false)),
            changed: watch::channel(0).0,
        })
    }
    fn push(&self, data: Bytes, done: bool) {
        let n = {
            let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
            st.0.push(data);
            st.1 |= done;
            st.0.len()
        };
        self.changed.send_replace(n);
    }
    fn finish(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).1 = true;
        self.changed.send_modify(|_| {});
    }
    /// Events from `from` on, and whether the stream is complete.
    fn since(&self, from: usize) -> (Vec<Bytes>, bool) {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        (
            st.0.get(from..).map(<[Bytes]>::to_vec).unwrap_or_default(),
            st.1,
        )
    }
}

/// One MCP session (handshake era) or one stateless request's context.
struct HttpSession {
    demo: Arc<Session>,
    /// Stream 0 is the standalone GET stream; request streams follow.
    streams: Mutex<Vec<Arc<StreamBuf>>>,
    priming: bool,
    /// The first GET gets what was queued before it connected; later ones
    /// without `Last-Event-ID` start at the live end (no repeats).
    get_seen: std::sync::atomic::AtomicBool,
}

struct Server {
    opts: HttpOptions,
    guard: ListenGuard,
    sessions: Mutex<HashMap<String, Arc<HttpSession>>>,
    next_session: AtomicU64,
    /// Tasks of the tasks extension and listen streams outlive the
    /// stateless requests that create, follow and touch them.
    shared: super::session::Shared,
}

/// `demo-server` has both: its refusals may suggest them.
pub const DEMO_SERVER_FLAGS: listen_guard::Flags = listen_guard::Flags {
    allow_origin: true,
    allow_remote: true,
};

/// Serve until the process is stopped, on the first of `addrs` that binds
/// (the caller has vetted them with [`listen_guard::check_bind_with`]).
pub async fn serve(addrs: &[std::net::SocketAddr], opts: HttpOptions) -> anyhow::Result<()> {
    let listener = TcpListener::bind(addrs).await?;
    let bound = listener.local_addr()?;
    eprintln!("mcpscope-demo: serving Streamable HTTP on http://{bound}/mcp");
    let server = Arc::new(Server {
        guard: ListenGuard::new(bound, opts.allowed_origins.clone()).with_flags(DEMO_SERVER_FLAGS),
        opts,
        sessions: Mutex::new(HashMap::new()),
        next_session: AtomicU64::new(1),
        shared: Default::default(),
    });
    Ok(serve_connections(listener, move |req| server.clone().handle(req)).await?)
}

/// Accept connections on `listener` until it fails, each served as HTTP/1.1
/// by `handle` on a task of its own (also `mcpscope mock`'s listener).
pub(crate) async fn serve_connections<F, Fut>(
    listener: TcpListener,
    handle: F,
) -> std::io::Result<()>
where
    F: Fn(Request<Incoming>) -> Fut + Clone + Send + Sync + 'static,
    Fut: std::future::Future<Output = Response<Body>> + Send + 'static,
{
    loop {
        let (stream, _) = listener.accept().await?;
        let handle = handle.clone();
        tokio::spawn(async move {
            let svc = service_fn(move |req| {
                let fut = handle(req);
                async move { Ok::<_, Infallible>(fut.await) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
}

pub(crate) fn full(status: StatusCode, ctype: &str, body: impl Into<Bytes>) -> Response<Body> {
    let mut r = Response::new(Full::new(body.into()).boxed());
    *r.status_mut() = status;
    if let Ok(v) = ctype.parse() {
        r.headers_mut().insert(hyper::header::CONTENT_TYPE, v);
    }
    r
}

pub(crate) fn rpc_error(status: StatusCode, code: i64, message: &str) -> Response<Body> {
    let body = json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}});
    full(status, "application/json", body.to_string())
}

fn json_response(status: StatusCode, body: &Value) -> Response<Body> {
    full(status, "application/json", body.to_string())
}

/// `Some` HTTP answer when `line` is the error response to `id` whose code
/// the stateless transport maps to a status of its own.
fn refused(line: &[u8], id: &Value) -> Option<Response<Body>> {
    let v: Value = serde_json::from_slice(line.trim_ascii()).ok()?;
    if v.get("id") != Some(id) {
        return None;
    }
    let status = stateless::status_of(v.pointer("/error/code")?.as_i64()?)?;
    Some(json_response(status, &v))
}

/// Cancels what still runs in a session when dropped.
struct CancelOnDrop(Arc<Session>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel_all();
    }
}

pub(crate) fn header<'a>(req: &'a Request<Incoming>, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// One JSON-RPC message object from a POST body of at most 16 MiB, or the
/// error response that refuses it (too large, not JSON, not one object).
pub(crate) async fn read_message(body: Incoming) -> Result<Map<String, Value>, Response<Body>> {
    let body = match http_body_util::Limited::new(body, MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return Err(rpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                -32600,
                "request body too large",
            ));
        }
    };
    match serde_json::from_slice(&body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(rpc_error(
            StatusCode::BAD_REQUEST,
            -32600,
            "expected one JSON-RPC message",
        )),
        Err(e) => Err(rpc_error(
            StatusCode::BAD_REQUEST,
            -32700,
            &format!("Parse error: {e}"),
        )),
    }
}

/// What a request to a local listener gets before anything else (even the
/// 404: a rebound page must learn nothing): the guard's refusal, or 404
/// off the `/mcp` endpoint; `None` lets it through.
pub(crate) fn gate(guard: &ListenGuard, req: &Request<Incoming>) -> Option<Response<Body>> {
    if let Err(refusal) = guard.admit(req.headers()) {
        return Some(refusal.response().map(BodyExt::boxed));
    }
    (req.uri().path() != "/mcp").then(|| {
        full(
            StatusCode::NOT_FOUND,
            "text/plain",
            "not found: the endpoint is /mcp",
        )
    })
}

impl Server {
    async fn handle(self: Arc<Self>, req: Request<Incoming>) -> Response<Body> {
        if let Some(refused) = gate(&self.guard, &req) {
            return refused;
        }
        match *req.method() {
            Method::POST => self.post(req).await,
            Method::GET => self.get(req),
            Method::DELETE => {
                let sid = header(&req, SESSION_HEADER).unwrap_or_default().to_string();
                match self.lock().remove(&sid) {
                    Some(s) => {
                        s.demo.cancel_all();
                        full(StatusCode::OK, "text/plain", "")
                    }
                    None => full(StatusCode::NOT_FOUND, "text/plain", "unknown session"),
                }
            }
            _ => full(
                StatusCode::METHOD_NOT_ALLOWED,
                "text/plain",
                "POST, GET or DELETE",
            ),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<HttpSession>>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn post(self: Arc<Self>, req: Request<Incoming>) -> Response<Body> {
        let sid = header(&req, SESSION_HEADER).map(str::to_string);
        let headers = req.headers().clone();
        let message = match read_message(req.into_body()).await {
            Ok(m) => m,
            Err(refused) => return refused,
        };
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        let id = message.get("id").cloned().filter(|i| !i.is_null());
        let params = message.get("params").and_then(Value::as_object);
        let modern = stateless::is_stateless(&headers, sid.is_some(), params);
        if modern
            && let (Some(method), Some(id)) = (&method, &id)
            && let Err(refusal) = stateless::check(&headers, method, params, &|name| {
                super::tool_descriptor(&self.opts.demo, name)
            })
        {
            return json_response(refusal.status, &refusal.body(id));
        }
        let mut new_session_id = None;
        let session = if modern {
            // Stateless: nothing outlives the request.
            self.new_session(false)
        } else if method.as_deref() == Some("initialize") && id.is_some() {
            let version = params
                .and_then(|p| p.get("protocolVersion"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let s = self.new_session(Revision::floor_of(version) >= Some(Revision::V2025_11_25));
            let sid = format!(
                "demo-{:08x}",
                self.next_session.fetch_add(1, Ordering::Relaxed)
            );
            self.lock().insert(sid.clone(), s.clone());
            new_session_id = Some(sid);
            s
        } else {
            match sid.as_deref().map(|s| self.lock().get(s).cloned()) {
                Some(Some(s)) => s,
                Some(None) => return rpc_error(StatusCode::NOT_FOUND, -32001, "session not found"),
                None => {
                    return rpc_error(StatusCode::BAD_REQUEST, -32000, "missing Mcp-Session-Id");
                }
            }
        };
        let (Some(_), Some(id)) = (&method, id) else {
            // Notifications and responses to our requests: accepted, no body.
            let out = session.demo.out.clone();
            super::handle_message(&session.demo, &out, message);
            return full(StatusCode::ACCEPTED, "text/plain", "");
        };
        let (out, mut stream) = out::channel();
        super::handle_message(&session.demo, &out, message);
        drop(out);
        // A stateless request refused by the dispatcher at once (unknown or
        // removed method, missing client capability) gets the HTTP status
        // the transport gives that error, as a plain JSON answer.
        let first = stream.try_next();
        if modern && let Some(refusal) = first.as_deref().and_then(|l| refused(l, &id)) {
            return refusal;
        }
        let (n, buf) = session.new_stream();
        tokio::spawn(pump(
            first,
            stream,
            buf.clone(),
            session.clone(),
            id,
            self.opts.progress,
        ));
        let close_after = self.opts.close_after;
        let mut resp = sse_response(
            buf,
            n,
            0,
            session.priming,
            self.opts.progress == ProgressMode::Buffered,
            close_after,
            // Nobody can resume a stateless stream: once its reader is gone,
            // what still runs for it (a listen stream, a call) is cancelled,
            // which is how 2026-07-28 clients cancel over HTTP.
            modern.then(|| CancelOnDrop(session.demo.clone())),
        );
        if let Some(sid) = new_session_id
            && let Ok(v) = sid.parse()
        {
            resp.headers_mut().insert(SESSION_HEADER, v);
        }
        resp
    }

    fn get(&self, req: Request<Incoming>) -> Response<Body> {
        let accept = header(&req, "accept").unwrap_or("");
        if !accept.contains("text/event-stream") {
            return full(
                StatusCode::NOT_ACCEPTABLE,
                "text/plain",
                "GET needs Accept: text/event-stream",
            );
        }
        let Some(session) = header(&req, SESSION_HEADER).and_then(|s| self.lock().get(s).cloned())
        else {
            // No session: stateless clients have no standalone stream.
            return full(
                StatusCode::METHOD_NOT_ALLOWED,
                "text/plain",
                "no standalone stream without a session",
            );
        };
        match header(&req, "last-event-id").and_then(parse_event_id) {
            Some((n, k)) => match session.stream(n) {
                Some(buf) => sse_response(buf, n, k, false, false, None, None),
                None => full(StatusCode::NOT_FOUND, "text/plain", "unknown stream"),
            },
            None => {
                let buf = session.stream(0).unwrap_or_else(StreamBuf::new);
                let from = if session.get_seen.swap(true, Ordering::Relaxed) {
                    buf.since(0).0.len()
                } else {
                    0
                };
                sse_response(buf, 0, from, false, false, None, None)
            }
        }
    }

    fn new_session(&self, priming: bool) -> Arc<HttpSession> {
        let (out, stream) = out::channel();
        let get = StreamBuf::new();
        let s = Arc::new(HttpSession {
            demo: Session::with_shared(out, self.opts.demo, self.shared.clone()),
            streams: Mutex::new(vec![get.clone()]),
            priming,
            get_seen: std::sync::atomic::AtomicBool::new(false),
        });
        tokio::spawn(pump_get(stream, get));
        s
    }
}

impl HttpSession {
    fn new_stream(&self) -> (usize, Arc<StreamBuf>) {
        let mut streams = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        let buf = StreamBuf::new();
        streams.push(buf.clone());
        (streams.len() - 1, buf)
    }
    fn stream(&self, n: usize) -> Option<Arc<StreamBuf>> {
        self.streams
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(n)
            .cloned()
    }
}

/// Event ids are `STREAM-INDEX`, so a `Last-Event-ID` names its stream.
fn parse_event_id(s: &str) -> Option<(usize, usize)> {
    let (n, k) = s.split_once('-')?;
    Some((n.parse().ok()?, k.parse().ok()?))
}

/// Lines a request's calls write become events of its stream; the stream is
/// complete once the response to `id` is in. Lines after that (a server bug
/// the fault tools reproduce) go to the GET stream so they are still seen.
async fn pump(
    first: Option<Vec<u8>>,
    mut stream: out::OutStream,
    buf: Arc<StreamBuf>,
    session: Arc<HttpSession>,
    id: Value,
    mode: ProgressMode,
) {
    let get = session.stream(0);
    let mut done = false;
    let mut first = first;
    loop {
        let chunk = match first.take() {
            Some(chunk) => chunk,
            None => match stream.next().await {
                Some(chunk) => chunk,
                None => break,
            },
        };
        for line in chunk.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let v: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
            let is_response =
                v.get("id") == Some(&id) && (v.get("result").is_some() || v.get("error").is_some());
            let is_progress =
                v.get("method").and_then(Value::as_str) == Some("notifications/progress");
            let data = Bytes::copy_from_slice(line);
            if done || (mode == ProgressMode::WrongStream && is_progress) {
                if let Some(g) = &get {
                    g.push(data, false);
                }
            } else {
                buf.push(data, is_response);
                done |= is_response;
            }
        }
    }
    buf.finish();
}

async fn pump_get(mut stream: out::OutStream, buf: Arc<StreamBuf>) {
    while let Some(chunk) = stream.next().await {
        for line in chunk.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            buf.push(Bytes::copy_from_slice(line), false);
        }
    }
}

/// An SSE response over `buf` from event `from`.
fn sse_response(
    buf: Arc<StreamBuf>,
    n: usize,
    from: usize,
    priming: bool,
    buffered: bool,
    close_after: Option<usize>,
    cancel: Option<CancelOnDrop>,
) -> Response<Body> {
    struct St {
        _cancel: Option<CancelOnDrop>,
        buf: Arc<StreamBuf>,
        rx: watch::Receiver<usize>,
        next: usize,
        sent: usize,
        prime: bool,
        buffered: bool,
        close_after: Option<usize>,
        finished: bool,
    }
    let st = St {
        _cancel: cancel,
        rx: buf.changed.subscribe(),
        buf,
        next: from,
        sent: 0,
        prime: priming,
        buffered,
        close_after,
        finished: false,
    };
    let body = futures_util::stream::unfold(st, move |mut st| async move {
        if st.finished {
            return None;
        }
        if st.prime {
            st.prime = false;
            let ev = format!("id: {n}-0\nretry: {RETRY_MS}\ndata:\n\n");
            return Some((Ok::<_, Infallible>(Frame::data(Bytes::from(ev))), st));
        }
        loop {
            let (events, done) = st.buf.since(st.next);
            if !events.is_empty() && (!st.buffered || done) {
                let mut out = Vec::new();
                for data in events {
                    if st.close_after.is_some_and(|c| st.sent >= c) {
                        st.finished = true;
                        break;
                    }
                    st.next += 1;
                    st.sent += 1;
                    out.extend_from_slice(format!("id: {n}-{}\ndata: ", st.next).as_bytes());
                    out.extend_from_slice(&data);
                    out.extend_from_slice(b"\n\n");
                }
                if out.is_empty() {
                    return None;
                }
                return Some((Ok(Frame::data(Bytes::from(out))), st));
            }
            if done && events.is_empty() {
                return None;
            }
            if st.rx.changed().await.is_err() {
                return None;
            }
        }
    });
    let mut r = Response::new(BodyExt::boxed(StreamBody::new(body)));
    let h = r.headers_mut();
    h.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/event-stream"),
    );
    h.insert(
        hyper::header::CACHE_CONTROL,
        hyper::header::HeaderValue::from_static("no-cache"),
    );
    r
}
