//! Streamable HTTP (2025-03-26 … 2025-11-25) and legacy HTTP+SSE (2024-11-05).
//!
//! Every POST is its own channel (`post:N`); the standalone GET stream is
//! `get`; the legacy SSE stream is `sse`. HTTP status, content type and the
//! session id become `http` meta events, so the timeline shows each exchange.
//! Frames are handed to the sink exactly as the server sent them, on the
//! channel they arrived on.
//!
//! A frame may come with extra request headers (the session's SEP-2243
//! `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`): they are sent as given, so what
//! they mean stays with the session.

mod body;
pub mod redirect;
pub mod report;

use super::Sink;
use super::sse::{SseEvent, SseParser};
use crate::protocol::IdKey;
use crate::protocol::frame::{FrameKind, classify};
use futures_util::StreamExt;
use report::{error_chain, failure, trim_body};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use reqwest::{Response, StatusCode, Url};
use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};

pub const SESSION_HEADER: &str = "mcp-session-id";
pub const VERSION_HEADER: &str = "mcp-protocol-version";
const RESUME_ATTEMPTS: u32 = 5;
/// Why a request failed when the server forgot the session (HTTP 404).
pub const SESSION_EXPIRED: &str = "session expired (HTTP 404)";
const DEFAULT_RETRY_MS: u64 = 1000;
/// How long a notification's POST may hold up the frames queued after it;
/// `MCPSCOPE_DELIVERY_WAIT_MS` shortens it for tests of a stalled server.
fn delivery_wait() -> Duration {
    static WAIT: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *WAIT.get_or_init(|| {
        std::env::var("MCPSCOPE_DELIVERY_WAIT_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(Duration::from_secs(10), Duration::from_millis)
    })
}
/// The GET stream is never reopened faster than this.
const MIN_RECONNECT_MS: u64 = 250;

/// Which HTTP transport to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// Streamable HTTP first; fall back to HTTP+SSE if the POST is refused
    /// with 400/404/405 (the spec's back-compat rule).
    Auto,
    Streamable,
    Legacy,
}

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("bad URL {0:?}: {1}")]
    Url(String, String),
    #[error("bad header {0:?}")]
    Header(String),
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    #[error("{0}")]
    Connect(String),
}

pub struct HttpTransport {
    inner: Arc<Inner>,
    queue: mpsc::UnboundedSender<Queued>,
}

struct Inner {
    client: reqwest::Client,
    url: Url,
    headers: HeaderMap,
    sink: Arc<dyn Sink>,
    state: Mutex<State>,
    next_post: AtomicU64,
    shutdown: watch::Sender<bool>,
    /// The legacy `endpoint` URL once the SSE stream announced it.
    endpoint: watch::Sender<Option<Url>>,
}

/// A frame as the session handed it over: its channel, its bytes, and the
/// extra headers its POST carries.
type Queued = (String, Vec<u8>, Vec<(String, String)>);

struct State {
    flavor: Flavor,
    /// Running request POSTs, so a stateless-era cancel can close their stream.
    running: std::collections::HashMap<IdKey, tokio::task::AbortHandle>,
    session_id: Option<String>,
    protocol_version: Option<String>,
    get_task: Option<tokio::task::JoinHandle<()>>,
    sse_task: Option<tokio::task::JoinHandle<()>>,
}

impl HttpTransport {
    pub fn new(
        url: &str,
        headers: &[(String, String)],
        flavor: Flavor,
        sink: Arc<dyn Sink>,
    ) -> Result<HttpTransport, HttpError> {
        let url = Url::parse(url).map_err(|e| HttpError::Url(url.to_string(), e.to_string()))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(HttpError::Url(
                url.to_string(),
                "only http and https are supported".into(),
            ));
        }
        let mut map = HeaderMap::new();
        for (k, v) in headers {
            let name =
                HeaderName::from_bytes(k.as_bytes()).map_err(|_| HttpError::Header(k.clone()))?;
            let value = HeaderValue::from_str(v).map_err(|_| HttpError::Header(k.clone()))?;
            map.append(name, value);
        }
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            // Redirects are followed by `redirect::send`, which decides what
            // another origin may see; a Referer would tell it where we came from.
            .redirect(reqwest::redirect::Policy::none())
            .referer(false)
            .build()
            .map_err(|e| HttpError::Client(e.to_string()))?;
        let (shutdown, _) = watch::channel(false);
        let (endpoint, _) = watch::channel(None);
        let inner = Arc::new(Inner {
            client,
            url,
            headers: map,
            sink,
            state: Mutex::new(State {
                flavor,
                running: std::collections::HashMap::new(),
                session_id: None,
                protocol_version: None,
                get_task: None,
                sse_task: None,
            }),
            next_post: AtomicU64::new(1),
            shutdown,
            endpoint,
        });
        let (queue, rx) = mpsc::unbounded_channel();
        tokio::spawn(dispatch(inner.clone(), rx));
        if flavor == Flavor::Legacy {
            inner.start_legacy_stream();
        }
        Ok(HttpTransport { inner, queue })
    }

    /// The channel the next frame will travel on (recorded with the frame).
    /// A `subscriptions/listen` stream is named `listen:N`, any other POST `post:N`.
    pub fn reserve_channel(&self, method: Option<&str>) -> String {
        let kind = if method == Some("subscriptions/listen") {
            "listen"
        } else {
            "post"
        };
        format!(
            "{kind}:{}",
            self.inner.next_post.fetch_add(1, Ordering::Relaxed)
        )
    }

    /// POST one frame on a reserved channel, with `headers` besides the usual ones.
    pub fn send(
        &self,
        channel: String,
        frame: Vec<u8>,
        headers: Vec<(String, String)>,
    ) -> Result<(), super::TransportError> {
        self.queue
            .send((channel, frame, headers))
            .map_err(|_| super::TransportError::Closed)
    }

    /// The negotiated revision, sent as `MCP-Protocol-Version` from now on.
    pub fn set_protocol_version(&self, v: &str) {
        self.inner.lock().protocol_version = Some(v.to_string());
    }

    pub fn clear_protocol_version(&self) {
        self.inner.lock().protocol_version = None;
    }

    /// Close a running request's response stream (the 2026-07-28 way to cancel).
    pub fn abort(&self, id: &IdKey) {
        if let Some(h) = self.inner.lock().running.remove(id) {
            h.abort();
        }
    }

    pub fn flavor(&self) -> Flavor {
        self.inner.lock().flavor
    }

    /// Forget the session (after a 404) so the next initialize starts a new one.
    pub fn reset_session(&self) {
        self.inner.lock().session_id = None;
    }

    /// Open the standalone GET stream (Streamable HTTP, after initialization).
    ///
    /// Resolves once the server has answered the GET (or `limit` passed):
    /// a server may send its requests on this stream as soon as the next
    /// call arrives, and would have nowhere to send them before.
    pub async fn open_get_stream(&self, limit: Duration) {
        let (ready_tx, mut ready) = watch::channel(false);
        {
            let inner = self.inner.clone();
            let mut st = self.inner.lock();
            if st.flavor == Flavor::Legacy || st.get_task.is_some() {
                return;
            }
            st.get_task = Some(tokio::spawn(
                async move { inner.get_stream(ready_tx).await },
            ));
        }
        let _ = tokio::time::timeout(limit, ready.wait_for(|r| *r)).await;
    }

    /// End the session: stop streams, DELETE the session if there is one.
    pub async fn shutdown(&self) {
        self.inner.shutdown.send_replace(true);
        let (session, tasks) = {
            let mut st = self.inner.lock();
            (
                st.session_id.clone(),
                [st.get_task.take(), st.sse_task.take()],
            )
        };
        for t in tasks.into_iter().flatten() {
            t.abort();
        }
        if let Some(sid) = session {
            let started = Instant::now();
            let req = self
                .inner
                .client
                .delete(self.inner.url.clone())
                .headers(self.inner.headers.clone())
                .header(SESSION_HEADER, &sid);
            let r =
                tokio::time::timeout(Duration::from_secs(5), self.inner.send("http", req)).await;
            let status = match r {
                Ok(Ok(resp)) => json!(resp.status().as_u16()),
                Ok(Err(e)) => json!(e.to_string()),
                Err(_) => json!("timed out"),
            };
            self.inner.meta(
                "http",
                json!({"event": "http", "method": "DELETE", "status": status,
                       "session": sid, "ms": started.elapsed().as_millis() as u64}),
            );
        }
    }
}

/// Sends frames in order. A notification or response waits for its 202 so the
/// next frame cannot overtake it; a request's stream is read in its own task.
async fn dispatch(inner: Arc<Inner>, mut rx: mpsc::UnboundedReceiver<Queued>) {
    while let Some((channel, frame, headers)) = rx.recv().await {
        let (request_id, method) = {
            let f = classify(&frame);
            (
                (f.kind == FrameKind::Request)
                    .then(|| f.id.clone())
                    .flatten(),
                f.method.as_deref().map(str::to_string),
            )
        };
        let out = Outgoing {
            channel,
            frame,
            request_id,
            method,
            headers,
            delivered: None,
        };
        match out.request_id.clone() {
            Some(id) => {
                let task_inner = inner.clone();
                let handle = tokio::spawn(async move {
                    let done = out.request_id.clone();
                    let me = task_inner.clone();
                    task_inner.post(out).await;
                    if let Some(id) = done {
                        me.lock().running.remove(&id);
                    }
                });
                inner.lock().running.insert(id, handle.abort_handle());
            }
            None => {
                // Order matters (initialized before the first call, a cancel
                // after its request): wait until the server has this one —
                // its response headers — but never on its body, and not forever.
                let delivered = Arc::new(tokio::sync::Notify::new());
                let out = Outgoing {
                    delivered: Some(delivered.clone()),
                    ..out
                };
                let channel = out.channel.clone();
                tokio::spawn(inner.clone().post(out));
                let wait = delivery_wait();
                if tokio::time::timeout(wait, delivered.notified())
                    .await
                    .is_err()
                {
                    inner.meta(
                        &channel,
                        json!({"event": "slow-delivery", "waited_ms": wait.as_millis() as u64}),
                    );
                }
            }
        }
    }
}

/// One frame on its way out, with what the headers need to know about it.
#[derive(Clone)]
struct Outgoing {
    channel: String,
    frame: Vec<u8>,
    request_id: Option<IdKey>,
    method: Option<String>,
    /// Sent besides the usual headers, as the session gave them.
    headers: Vec<(String, String)>,
    /// Told when the server has answered the POST (headers or failure).
    delivered: Option<Arc<tokio::sync::Notify>>,
}

impl Inner {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn meta(&self, channel: &str, event: serde_json::Value) {
        self.sink.event(channel, event);
    }

    fn common_headers(&self, mut req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        req = req.headers(self.headers.clone());
        let st = self.lock();
        if let Some(sid) = &st.session_id {
            req = req.header(SESSION_HEADER, sid);
        }
        if let Some(v) = &st.protocol_version
            && v.as_str() >= "2025-06-18"
        {
            req = req.header(VERSION_HEADER, v);
        }
        req
    }

    /// Send a request, following redirects (each one a trace event).
    async fn send(
        &self,
        channel: &str,
        req: reqwest::RequestBuilder,
    ) -> Result<Response, reqwest::Error> {
        let mut hops = Vec::new();
        let r = redirect::send(&self.client, req.build()?, &mut hops).await;
        for hop in &hops {
            self.meta(channel, hop.to_json());
        }
        r
    }

    fn exchange_meta(&self, channel: &str, method: &str, resp: &Response, started: Instant) {
        let h = resp.headers();
        let text = |n: &str| h.get(n).and_then(|v| v.to_str().ok()).map(str::to_string);
        let mut ev = json!({"event": "http", "method": method, "status": resp.status().as_u16(),
                   "content_type": text("content-type"), "session": text(SESSION_HEADER),
                   "ms": started.elapsed().as_millis() as u64});
        if let Some(c) = report::challenge(h) {
            ev["challenge"] = c.into();
        }
        self.meta(channel, ev);
    }

    async fn post(self: Arc<Self>, out: Outgoing) {
        let Outgoing {
            channel,
            frame,
            request_id,
            method,
            headers,
            ..
        } = out.clone();
        let is_initialize = request_id.is_some() && method.as_deref() == Some("initialize");
        let flavor = self.lock().flavor;
        let target = match flavor {
            Flavor::Legacy => match self.wait_endpoint().await {
                Some(u) => u,
                None => {
                    self.sink.failed(
                        &channel,
                        request_id,
                        "the legacy SSE stream announced no endpoint".into(),
                    );
                    return;
                }
            },
            _ => self.url.clone(),
        };
        let started = Instant::now();
        let mut req = self
            .common_headers(self.client.post(target))
            .header(ACCEPT, "application/json, text/event-stream")
            .header(CONTENT_TYPE, "application/json");
        for (k, v) in headers {
            req = req.header(k, v);
        }
        let req = req.body(frame.clone());
        let sent = self.send(&channel, req).await;
        if let Some(d) = &out.delivered {
            d.notify_one();
        }
        let resp = match sent {
            Ok(r) => r,
            Err(e) => {
                let why = format!("POST failed: {}", error_chain(&e));
                self.meta(
                    &channel,
                    json!({"event": "http-error", "method": "POST", "error": why}),
                );
                self.sink.failed(&channel, request_id, why);
                return;
            }
        };
        self.exchange_meta(&channel, "POST", &resp, started);
        let status = resp.status();
        if is_initialize
            && let Some(sid) = resp
                .headers()
                .get(SESSION_HEADER)
                .and_then(|v| v.to_str().ok())
        {
            self.lock().session_id = Some(sid.to_string());
        }
        if flavor == Flavor::Auto
            && is_initialize
            && matches!(
                status,
                StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
            )
        {
            // Back-compat: a server that refuses the POST may speak HTTP+SSE.
            self.meta(&channel, json!({"event": "transport-detect", "flavor": "sse",
                                       "reason": format!("POST initialize answered {}", status.as_u16())}));
            self.lock().flavor = Flavor::Legacy;
            self.start_legacy_stream();
            Box::pin(self.clone().post(out)).await;
            return;
        }
        if flavor == Flavor::Auto && is_initialize && status.is_success() {
            self.lock().flavor = Flavor::Streamable;
        }
        if status == StatusCode::NOT_FOUND && self.lock().session_id.is_some() && !is_initialize {
            self.meta(&channel, json!({"event": "session-expired", "status": 404}));
            self.sink
                .failed(&channel, request_id, SESSION_EXPIRED.into());
            return;
        }
        let content_type = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if flavor == Flavor::Legacy || self.lock().flavor == Flavor::Legacy {
            // Legacy POSTs are acknowledged; answers come on the SSE stream.
            let challenge = report::challenge(resp.headers());
            let (body, _) = body::read_capped(resp).await.unwrap_or_default();
            if !status.is_success() {
                let why = failure(status.as_u16(), challenge.as_deref(), &body);
                self.sink.failed(&channel, request_id, why);
            }
            return;
        }
        if content_type.starts_with("text/event-stream") && status.is_success() {
            self.consume_post_stream(channel, resp, request_id).await;
            return;
        }
        let challenge = report::challenge(resp.headers());
        let (body, total) = match body::read_capped(resp).await {
            Ok(b) => b,
            Err(e) => {
                self.sink.failed(
                    &channel,
                    request_id,
                    format!("reading the response failed: {}", error_chain(&e)),
                );
                return;
            }
        };
        if status == StatusCode::ACCEPTED || (body.is_empty() && status.is_success()) {
            if request_id.is_some() {
                self.sink.failed(
                    &channel,
                    request_id,
                    format!("HTTP {status} without a response body"),
                );
            }
            return;
        }
        // Whatever the body is (JSON-RPC, an HTML error page), it is kept;
        // one over the cap is kept cut, and said to be.
        if total > body.len() as u64 {
            self.sink.oversized(&channel, &body, total);
            if !status.is_success() || request_id.is_some() {
                let why = format!(
                    "the response body ({total} bytes) is over the size cap of {} bytes",
                    body.len()
                );
                self.sink.failed(&channel, request_id, why);
            }
            return;
        }
        let answered = self.sink.frames(&channel, &[trim_body(&body)]);
        let answered = request_id.as_ref().is_some_and(|id| answered.contains(id));
        if !status.is_success() && !answered {
            self.sink.failed(
                &channel,
                request_id,
                failure(status.as_u16(), challenge.as_deref(), &body),
            );
        } else if status.is_success() && !answered && request_id.is_some() {
            self.sink.failed(
                &channel,
                request_id,
                "the HTTP response did not answer the request".into(),
            );
        }
    }

    /// Read a POST's SSE stream; if it ends before the response, resume it
    /// with GET + `Last-Event-ID` (honouring `retry`).
    async fn consume_post_stream(
        &self,
        channel: String,
        resp: Response,
        request_id: Option<IdKey>,
    ) {
        let mut parser = SseParser::new();
        let mut retry_ms = DEFAULT_RETRY_MS;
        let mut answered = self
            .read_stream(
                &channel,
                resp,
                &mut parser,
                &mut retry_ms,
                request_id.as_ref(),
                false,
            )
            .await;
        let mut attempts = 0;
        while !answered && request_id.is_some() {
            let Some(last) = parser.last_event_id.clone() else {
                self.sink.failed(
                    &channel,
                    request_id,
                    "the response stream closed before the response (no event id to resume from)"
                        .into(),
                );
                return;
            };
            attempts += 1;
            if attempts > RESUME_ATTEMPTS || *self.shutdown.borrow() {
                self.sink.failed(
                    &channel,
                    request_id,
                    format!("the response stream closed {attempts} times before the response"),
                );
                return;
            }
            self.meta(&channel, json!({"event": "resume", "last_event_id": last, "after_ms": retry_ms, "attempt": attempts}));
            tokio::time::sleep(Duration::from_millis(retry_ms)).await;
            let started = Instant::now();
            let req = self
                .common_headers(self.client.get(self.url.clone()))
                .header(ACCEPT, "text/event-stream")
                .header("last-event-id", &last);
            match self.send(&channel, req).await {
                Ok(r) => {
                    self.exchange_meta(&channel, "GET", &r, started);
                    if !r.status().is_success() {
                        let why = format!("resuming the stream failed: HTTP {}", r.status());
                        self.sink.failed(&channel, request_id, why);
                        return;
                    }
                    // A resumed stream replays what this request missed; the
                    // server may keep it open afterwards (some use the GET
                    // for everything), so it is released once answered.
                    answered = self
                        .read_stream(
                            &channel,
                            r,
                            &mut parser,
                            &mut retry_ms,
                            request_id.as_ref(),
                            true,
                        )
                        .await;
                }
                Err(e) => {
                    self.meta(
                        &channel,
                        json!({"event": "http-error", "method": "GET", "error": error_chain(&e)}),
                    );
                }
            }
        }
    }

    /// Read one SSE response body; true when it carried the response to `id`.
    /// With `until_answered`, stop reading (and close the stream) as soon as
    /// it has.
    async fn read_stream(
        &self,
        channel: &str,
        resp: Response,
        parser: &mut SseParser,
        retry_ms: &mut u64,
        id: Option<&IdKey>,
        until_answered: bool,
    ) -> bool {
        let mut answered = false;
        let mut body = resp.bytes_stream();
        let mut shutdown = self.shutdown.subscribe();
        loop {
            let chunk = tokio::select! {
                c = body.next() => c,
                _ = shutdown.wait_for(|s| *s) => None,
            };
            match chunk {
                Some(Ok(bytes)) => {
                    for ev in parser.feed(&bytes) {
                        answered |= self.deliver(channel, &ev, retry_ms, id);
                    }
                    if answered && until_answered {
                        self.meta(
                            channel,
                            json!({"event": "stream-released", "reason": "the response arrived"}),
                        );
                        return true;
                    }
                }
                Some(Err(e)) => {
                    self.meta(
                        channel,
                        json!({"event": "stream-error", "error": error_chain(&e)}),
                    );
                    break;
                }
                None => break,
            }
        }
        if let Some(partial) = parser.finish() {
            // An event cut mid-way: never dispatched, still kept.
            self.meta(channel, json!({"event": "stream-cut", "partial": partial}));
        }
        self.meta(channel, json!({"event": "stream-end"}));
        answered
    }

    fn deliver(
        &self,
        channel: &str,
        ev: &SseEvent,
        retry_ms: &mut u64,
        id: Option<&IdKey>,
    ) -> bool {
        if let Some(r) = ev.retry_ms {
            *retry_ms = r;
        }
        match ev.data.as_deref() {
            Some(data) if ev.oversized.is_some() => {
                let total = ev.oversized.unwrap_or_default();
                self.sink.oversized(channel, data.as_bytes(), total);
                false
            }
            Some(data) if !data.is_empty() => {
                if ev.event == "endpoint" {
                    self.set_endpoint(channel, data);
                    return false;
                }
                let answered = self.sink.frames(channel, &[data.as_bytes()]);
                id.is_some_and(|id| answered.contains(id))
            }
            _ => {
                self.meta(
                    channel,
                    json!({"event": "sse-priming", "id": ev.id, "retry_ms": ev.retry_ms}),
                );
                false
            }
        }
    }

    /// The standalone GET stream: server-initiated messages. Reconnects with
    /// `Last-Event-ID` until shutdown; a 405 means the server offers none.
    async fn get_stream(self: Arc<Self>, ready: watch::Sender<bool>) {
        let channel = "get";
        let mut parser = SseParser::new();
        let mut retry_ms = DEFAULT_RETRY_MS;
        let mut failures = 0;
        // Streams that end at once are retried ever more slowly, whatever
        // `retry` says: a server closing immediately must not cause a GET storm.
        let mut backoff_ms = 0u64;
        while !*self.shutdown.borrow() && failures < RESUME_ATTEMPTS {
            let started = Instant::now();
            let mut req = self
                .common_headers(self.client.get(self.url.clone()))
                .header(ACCEPT, "text/event-stream");
            if let Some(last) = &parser.last_event_id {
                req = req.header("last-event-id", last);
            }
            let sent = self.send(channel, req).await;
            // Answered or refused: either way the caller need not wait longer.
            ready.send_replace(true);
            match sent {
                Ok(r) => {
                    self.exchange_meta(channel, "GET", &r, started);
                    if r.status() == StatusCode::METHOD_NOT_ALLOWED {
                        return;
                    }
                    if !r.status().is_success() {
                        failures += 1;
                    } else {
                        failures = 0;
                        self.read_stream(channel, r, &mut parser, &mut retry_ms, None, false)
                            .await;
                    }
                }
                Err(e) => {
                    failures += 1;
                    self.meta(
                        channel,
                        json!({"event": "http-error", "method": "GET", "error": error_chain(&e)}),
                    );
                }
            }
            if *self.shutdown.borrow() {
                return;
            }
            backoff_ms = if started.elapsed() < Duration::from_secs(1) {
                (backoff_ms * 2).clamp(MIN_RECONNECT_MS, 30_000)
            } else {
                0
            };
            let after_ms = retry_ms.max(backoff_ms).max(MIN_RECONNECT_MS);
            self.meta(channel, json!({"event": "reconnect", "after_ms": after_ms, "last_event_id": parser.last_event_id}));
            tokio::time::sleep(Duration::from_millis(after_ms)).await;
        }
    }

    fn start_legacy_stream(self: &Arc<Self>) {
        let inner = self.clone();
        let mut st = self.lock();
        if st.sse_task.is_none() {
            st.sse_task = Some(tokio::spawn(async move { inner.legacy_stream().await }));
        }
    }

    /// HTTP+SSE (2024-11-05): one GET stream; its first event names the POST URL.
    async fn legacy_stream(self: Arc<Self>) {
        let channel = "sse";
        let started = Instant::now();
        let req = self
            .client
            .get(self.url.clone())
            .headers(self.headers.clone())
            .header(ACCEPT, "text/event-stream");
        match self.send(channel, req).await {
            Ok(r) => {
                self.exchange_meta(channel, "GET", &r, started);
                if !r.status().is_success() {
                    self.endpoint.send_replace(None);
                    self.sink.failed(
                        channel,
                        None,
                        format!(
                            "the SSE stream was refused: {}",
                            report::describe(
                                r.status().as_u16(),
                                report::challenge(r.headers()).as_deref()
                            )
                        ),
                    );
                    return;
                }
                let mut parser = SseParser::new();
                let mut retry = DEFAULT_RETRY_MS;
                self.read_stream(channel, r, &mut parser, &mut retry, None, false)
                    .await;
                if !*self.shutdown.borrow() {
                    self.sink
                        .failed(channel, None, "the SSE stream closed".into());
                }
            }
            Err(e) => {
                let why = format!("GET (SSE) failed: {}", error_chain(&e));
                self.meta(
                    channel,
                    json!({"event": "http-error", "method": "GET", "error": why}),
                );
                self.sink.failed(channel, None, why);
            }
        }
    }

    fn set_endpoint(&self, channel: &str, data: &str) {
        match self.url.join(data.trim()) {
            Ok(u) => {
                self.meta(channel, json!({"event": "endpoint", "url": u.as_str()}));
                self.endpoint.send_replace(Some(u));
            }
            Err(e) => self.meta(
                channel,
                json!({"event": "endpoint-invalid", "data": data, "error": e.to_string()}),
            ),
        }
    }

    async fn wait_endpoint(&self) -> Option<Url> {
        let mut rx = self.endpoint.subscribe();
        let wait = rx.wait_for(Option::is_some);
        match tokio::time::timeout(Duration::from_secs(15), wait).await {
            Ok(Ok(u)) => u.clone(),
            _ => None,
        }
    }
}
