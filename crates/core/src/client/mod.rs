//! The session engine: handshake, request ids, progress-token policy, pending
//! requests, timeouts, cancellation and answers to server→client requests,
//! and over HTTP the headers that depend on what a frame says (SEP-2243).
//! Everything it sends is appended to the trace and queued in one step, so
//! the trace order is the wire order.

mod answer;
mod answer_text;
pub mod client_tasks;
mod era;
mod error;
pub mod ext_tasks;
mod http_headers;
mod ingest;
mod link;
mod listen;
pub mod pages;
// Shared with the demo server, which checks the headers this module builds.
pub mod options;
mod pending;
pub mod tasks;
pub mod timeout;
pub mod trace_context;
pub mod user_wait;

pub use answer::ServerAsk;
pub use ingest::SERVER_REQUEST_BACKLOG;

/// Server requests waiting for the user at once; more are refused.
pub fn answer_limit() -> usize {
    answer::MAX_ASKS
}

/// A `roots/list` result for these roots (paths or URIs), as the session
/// answers it.
pub fn roots_result(roots: &[String]) -> Value {
    answer::roots(roots)
}
/// `initialize` answered with a JSON-RPC error: the handshake failed.
fn initialize_rejected(code: i64, message: &str) -> ClientError {
    ClientError::Handshake(format!(
        "the server rejected initialize: JSON-RPC error {code}: {message}"
    ))
}

pub use error::ClientError;
pub use options::{ClientOptions, ElicitMode, EraChoice, Limits, SampleMode, TokenPolicy};
pub use pending::Gone;
pub use timeout::Expiry;

use crate::event::{Event, Loss};
use crate::protocol::json_text::{RangeReport, lenient_value};
use crate::protocol::methods;
use crate::protocol::views::{InitializeResult, LogLevel, ToolsPage};
use crate::protocol::{IdKey, Revision, meta};
use crate::trace::{Dir, Trace};
use crate::transport::http::{Flavor, HttpTransport};
use crate::transport::stdio::{CommandSpec, StdioTransport};
use crate::transport::{ExitInfo, Sink, TransportError};
use http_headers::{FrameHeaders, ToolHeaders};
use ingest::Ingest;
use link::Link;
use pending::Pending;
use serde_json::{Value, json};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// How [`Session::set_level`] asked for a log level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelAsked {
    /// `logging/setLevel`, to a server that declared `logging`.
    Sent,
    /// `logging/setLevel`, which the server accepted though it did not
    /// declare `logging` (had it refused, the error says so).
    Undeclared,
    /// In each later request's `_meta` (2026-07-28).
    PerRequest,
}

/// A response, as parsed from the trace.
#[derive(Debug, Clone)]
pub struct Reply {
    pub seq: u64,
    /// The result as a value; numbers no f64 can hold are strings of their text.
    pub result: Value,
    /// The result exactly as the server wrote it.
    pub raw: Box<str>,
    /// Numbers of the result beyond a 64-bit float, with where they are.
    pub out_of_range: RangeReport,
}

/// A finished `tools/call`.
#[derive(Debug, Clone)]
pub struct CallOutcome {
    pub id: IdKey,
    pub token: Option<IdKey>,
    pub reply: Reply,
}

impl CallOutcome {
    pub fn is_error(&self) -> bool {
        self.reply.result.get("isError").and_then(Value::as_bool) == Some(true)
    }
}

/// A connection to one server.
pub struct Session {
    trace: Trace,
    transport: Link,
    pending: Arc<Pending>,
    next_id: AtomicI64,
    next_token: AtomicI64,
    opts: ClientOptions,
    server: Mutex<Option<InitializeResult>>,
    responder: tokio::task::JoinHandle<()>,
    /// The session speaks the stateless 2026-07-28 revision.
    modern: std::sync::atomic::AtomicBool,
    /// Stateless era: the log level every request asks for in `_meta`.
    log_level: Mutex<Option<LogLevel>>,
    /// Background work (the listen stream) holds the session only while it lives.
    weak: std::sync::Weak<Session>,
    /// Held from recording a frame until it is queued on the transport.
    send_lock: Mutex<()>,
    /// What the transport reports goes here; so do the session's own events
    /// about a channel, recorded the same way.
    sink: Arc<Ingest>,
    /// SEP-2243: the per-tool headers learnt from listings (HTTP only).
    tool_headers: Arc<ToolHeaders>,
    /// Server requests answered otherwise than the options said (content
    /// that did not fit): a headless run that needed them did not succeed.
    refused: std::sync::atomic::AtomicUsize,
    /// The tasks calls are waiting on, oldest first (what an interrupt or
    /// quitting cancels).
    task: Mutex<Vec<String>>,
    /// Server requests run here as tasks, kept for the server to fetch.
    client_tasks: client_tasks::ClientTasks,
    /// Server requests for the user (`ask_user`), and their receiving end
    /// until the UI takes it.
    asks_tx: Option<mpsc::Sender<answer::ServerAsk>>,
    asks_rx: Mutex<Option<mpsc::Receiver<answer::ServerAsk>>>,
    /// How long requests have waited for the user's answers: not counted
    /// against the calls' timeouts.
    user_wait: Mutex<user_wait::UserWait>,
    /// The roots `roots/list` answers with (`--root`, then the user's edits).
    roots: Mutex<Vec<String>>,
    /// Stateless era: the listen stream watching the subscribed resources.
    resource_stream: tokio::sync::Mutex<Option<listen::ResourceStream>>,
}

impl Session {
    /// Start a stdio server. The handshake is a separate step (`initialize`).
    pub fn spawn_stdio(
        spec: &CommandSpec,
        opts: ClientOptions,
        trace: Trace,
    ) -> Result<Arc<Session>, ClientError> {
        Session::with_link(opts, trace, |sink| {
            Ok(Link::Stdio(StdioTransport::spawn(spec, sink)?))
        })
    }

    /// Connect to an HTTP server (Streamable HTTP or HTTP+SSE).
    pub fn connect_http(
        url: &str,
        headers: &[(String, String)],
        flavor: Flavor,
        opts: ClientOptions,
        trace: Trace,
        auth: Option<Arc<dyn crate::transport::http::Authorize>>,
    ) -> Result<Arc<Session>, ClientError> {
        Session::with_link(opts, trace, |sink| {
            HttpTransport::new(url, headers, flavor, sink, auth)
                .map(Link::Http)
                .map_err(|e| ClientError::Protocol(e.to_string()))
        })
    }

    fn with_link(
        opts: ClientOptions,
        trace: Trace,
        make: impl FnOnce(Arc<dyn crate::transport::Sink>) -> Result<Link, ClientError>,
    ) -> Result<Arc<Session>, ClientError> {
        let pending = Arc::new(Pending::default());
        let (srv_tx, srv_rx) = mpsc::channel(ingest::SERVER_REQUEST_BACKLOG);
        let tool_headers = Arc::new(ToolHeaders::default());
        let max_frame = crate::transport::lines::max_frame_within(trace.read().max_bytes());
        let ingest = Arc::new(Ingest {
            trace: trace.clone(),
            pending: pending.clone(),
            server_requests: srv_tx,
            redact: opts.redact,
            tool_headers: tool_headers.clone(),
            dropped: Default::default(),
            max_frame,
        });
        let transport = make(ingest.clone())?;
        let roots = opts.roots.clone();
        let (asks_tx, asks_rx) = if opts.ask_user {
            let (tx, rx) = mpsc::channel(answer::MAX_ASKS);
            (Some(tx), Some(rx))
        } else {
            (None, None)
        };
        Ok(Arc::new_cyclic(|weak: &std::sync::Weak<Session>| {
            let responder = tokio::spawn(answer::serve(weak.clone(), srv_rx));
            Session {
                trace,
                transport,
                pending,
                next_id: AtomicI64::new(0),
                next_token: AtomicI64::new(1),
                opts,
                server: Mutex::new(None),
                responder,
                modern: std::sync::atomic::AtomicBool::new(false),
                log_level: Mutex::new(None),
                weak: weak.clone(),
                send_lock: Mutex::new(()),
                sink: ingest,
                tool_headers,
                refused: std::sync::atomic::AtomicUsize::new(0),
                task: Mutex::new(Vec::new()),
                client_tasks: Default::default(),
                asks_tx,
                asks_rx: Mutex::new(asks_rx),
                user_wait: Mutex::default(),
                roots: Mutex::new(roots),
                resource_stream: tokio::sync::Mutex::new(None),
            }
        }))
    }

    /// `stdio`, `streamable-http` or `http+sse`.
    pub fn transport_name(&self) -> &'static str {
        self.transport.name()
    }

    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// Over Streamable HTTP, whether a server-to-client stream besides each
    /// request's own is open (see `HttpTransport::has_standalone_stream`).
    pub fn has_standalone_stream(&self) -> bool {
        matches!(&self.transport, Link::Http(h) if h.has_standalone_stream())
    }

    pub fn options(&self) -> &ClientOptions {
        &self.opts
    }

    /// What the server said in `initialize`.
    pub fn server(&self) -> Option<InitializeResult> {
        self.server
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn revision(&self) -> Revision {
        self.server()
            .and_then(|s| s.protocol_version.parse().ok())
            .unwrap_or(self.opts.revision)
    }

    /// The roots `roots/list` is answered with.
    pub fn roots(&self) -> Vec<String> {
        self.roots.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Replace the roots; a session that declared `roots.listChanged` (one
    /// whose user edits them) sends `notifications/roots/list_changed`.
    pub fn set_roots(&self, roots: Vec<String>) -> Result<(), ClientError> {
        *self.roots.lock().unwrap_or_else(|e| e.into_inner()) = roots;
        if self.opts.ask_user {
            self.notify(methods::ROOTS_LIST_CHANGED, None)?;
        }
        Ok(())
    }

    /// How many server requests could not be answered as the options said.
    pub fn refused_answers(&self) -> usize {
        self.refused.load(Ordering::Relaxed)
    }

    /// How many server requests were dropped unanswered because too many
    /// already waited (each drop is in the trace as well).
    pub fn dropped_server_requests(&self) -> u64 {
        self.sink.dropped.load(Ordering::Relaxed)
    }

    pub fn in_flight(&self) -> usize {
        self.pending.in_flight()
    }

    pub fn exit_info(&self) -> Option<ExitInfo> {
        self.transport.exit_info()
    }

    /// Append `msg` to the trace and queue it for writing, as one step:
    /// concurrent senders cannot get between the two, so the trace order is
    /// the wire order (each transport writes its queue in order).
    fn send_frame(&self, msg: &Value) -> Result<u64, ClientError> {
        let bytes = serde_json::to_vec(msg).unwrap_or_default();
        let _one_at_a_time = self.send_lock.lock().unwrap_or_else(|e| e.into_inner());
        let channel = self
            .transport
            .reserve_channel(msg.get("method").and_then(Value::as_str));
        let http = matches!(self.transport, Link::Http(_));
        let extra = if http && self.is_modern() {
            self.tool_headers.for_frame(msg)
        } else {
            FrameHeaders::default()
        };
        if http {
            self.tool_headers.sent(&bytes);
        }
        let seq = self
            .trace
            .append(|s, now| s.append_frame(Dir::Out, &channel, now, &bytes, &mut Vec::new()));
        if let Some(ev) = extra.event {
            self.sink.event(&channel, ev);
        }
        if let Err(e) = self.transport.send(channel, bytes, extra.headers) {
            if let TransportError::Backlog { .. } = e {
                // The frame is in the trace; say that it never left.
                self.meta(Event::SendFailed {
                    seq,
                    error: e.to_string(),
                });
            }
            return Err(e.into());
        }
        Ok(seq)
    }

    pub fn notify(&self, method: &str, params: Option<Value>) -> Result<u64, ClientError> {
        let mut msg = json!({"jsonrpc": "2.0", "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        self.send_frame(&msg)
    }

    fn meta(&self, event: Event) -> u64 {
        tracing::debug!(event = %event.to_json(), "session event");
        let ch = self.transport.meta_channel();
        self.trace.append(|s, now| s.append_event(ch, now, &event))
    }

    /// Go on from `before`, the session this one replaces in the same
    /// trace (a restart): request ids and automatic progress tokens continue
    /// its numbering, so no id or token is used twice in the trace, and the
    /// roots are the ones the user last set. Call it before the handshake.
    pub fn continue_from(&self, before: &Session) {
        self.next_id
            .fetch_max(before.next_id.load(Ordering::Relaxed), Ordering::Relaxed);
        self.next_token
            .fetch_max(before.next_token.load(Ordering::Relaxed), Ordering::Relaxed);
        *self.roots.lock().unwrap_or_else(|e| e.into_inner()) = before.roots();
    }

    /// Record a session event on this session's meta channel (the restart
    /// marker, written by the session it ends).
    pub fn record_event(&self, event: Event) -> u64 {
        self.meta(event)
    }

    pub fn fresh_id(&self) -> IdKey {
        IdKey::Int(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// Resolve a token policy to the token a request will carry.
    pub fn token_for(&self, policy: &TokenPolicy) -> Option<IdKey> {
        match policy {
            TokenPolicy::None => None,
            TokenPolicy::AutoString => Some(IdKey::Str(
                format!(
                    "mcpscope-{}",
                    self.next_token.fetch_add(1, Ordering::Relaxed)
                )
                .into(),
            )),
            TokenPolicy::AutoInt => {
                Some(IdKey::Int(self.next_token.fetch_add(1, Ordering::Relaxed)))
            }
            TokenPolicy::Explicit(k) => Some(k.clone()),
        }
    }

    /// Send a request and wait for its response within `limits`; on expiry
    /// the request is cancelled (`notifications/cancelled`) and a timeout is
    /// recorded. A JSON-RPC error becomes `ClientError::Rpc`.
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
        limits: Limits,
    ) -> Result<Reply, ClientError> {
        let id = self.fresh_id();
        self.request_with_id(id, method, params, limits).await
    }

    pub async fn request_with_id(
        &self,
        id: IdKey,
        method: &str,
        params: Option<Value>,
        limits: Limits,
    ) -> Result<Reply, ClientError> {
        match self.request_once(id, method, params.clone(), limits).await {
            Err(ClientError::Gone(Gone::Transport(Loss::SessionExpired)))
                if method != methods::INITIALIZE && !self.is_modern() =>
            {
                // The server forgot the session: start a new one, then retry once.
                self.meta(Event::Reinitialize {
                    reason: Loss::SessionExpired.to_string(),
                });
                if let Link::Http(h) = &self.transport {
                    h.reset_session();
                }
                Box::pin(self.initialize()).await?;
                let id = self.fresh_id();
                self.request_once(id, method, params, limits).await
            }
            other => other,
        }
    }

    /// [`Session::request_inner`], told in mcpscope's own log: every
    /// request's end, with its time, under a span naming it.
    async fn request_once(
        &self,
        id: IdKey,
        method: &str,
        params: Option<Value>,
        limits: Limits,
    ) -> Result<Reply, ClientError> {
        use tracing::Instrument;
        let span = tracing::info_span!("request", id = %id, method);
        let started = std::time::Instant::now();
        let r = self
            .request_inner(id, method, params, limits)
            .instrument(span.clone())
            .await;
        let ms = started.elapsed().as_millis() as u64;
        span.in_scope(|| match &r {
            Ok(_) => tracing::debug!(ms, "answered"),
            Err(ClientError::Rpc { code, .. }) => {
                tracing::info!(ms, code, "answered with an error")
            }
            Err(e) => tracing::info!(ms, error = %e, "ended without an answer"),
        });
        r
    }

    async fn request_inner(
        &self,
        id: IdKey,
        method: &str,
        params: Option<Value>,
        limits: Limits,
    ) -> Result<Reply, ClientError> {
        let token = params
            .as_ref()
            .and_then(|p| p.pointer("/_meta/progressToken"))
            .map(IdKey::from_value);
        let params = self.with_trace_context(self.with_envelope(params));
        let mut msg = json!({"jsonrpc": "2.0", "id": id.to_value(), "method": method});
        if let Some(p) = params {
            msg["params"] = p;
        }
        let rx = self.pending.register(id.clone());
        let paused_at_send = self.transport.auth_paused();
        let user_at_send = self.user_paused_us();
        let sent_seq = self.send_frame(&msg)?;
        let sent_us = self.trace.read().get(sent_seq).map_or(0, |e| e.t_us);
        // Time spent authorizing after the request left (a person at the
        // browser), or with a server request waiting for the user's answer
        // (a person at a form), does not count against its limits.
        let paused = || {
            let d = self.transport.auth_paused().saturating_sub(paused_at_send);
            let user = self.user_paused_us().saturating_sub(user_at_send);
            u64::try_from(d.as_micros())
                .unwrap_or(u64::MAX)
                .saturating_add(user)
        };
        // Sending the request indexed its token; look its slot up.
        let slot = token.and_then(|t| self.trace.read().token_slot_of(&t));
        let mut rx = rx;
        loop {
            let last_progress = slot
                .and_then(|sl| self.trace.read().token_by_slot(sl).map(|t| t.last_us))
                .unwrap_or(0);
            let deadline =
                timeout::next_deadline(limits, sent_us.saturating_add(paused()), last_progress);
            let outcome = match deadline {
                None => Some((&mut rx).await),
                Some((at_us, _)) => {
                    let wait = at_us.saturating_sub(self.trace.now_us());
                    tokio::time::timeout(std::time::Duration::from_micros(wait), &mut rx)
                        .await
                        .ok()
                }
            };
            match outcome {
                Some(Ok(Ok(answer))) => return self.reply(method, answer),
                Some(Ok(Err(Gone::Malformed { seq, why }))) => {
                    return Err(ClientError::Protocol(format!(
                        "{method}: the answer to request {id} (#{seq}) is malformed: {why}"
                    )));
                }
                Some(Ok(Err(Gone::Oversized { seq, bytes, cap }))) => {
                    return Err(ClientError::Protocol(format!(
                        "{method}: the answer to request {id} (#{seq}) is {bytes} bytes, over the frame cap of {cap} bytes{}: only its first {cap} bytes are kept",
                        if cap < crate::transport::lines::max_frame() {
                            " (a quarter of --max-store)"
                        } else {
                            ""
                        }
                    )));
                }
                Some(Ok(Err(gone))) => return Err(ClientError::Gone(gone)),
                Some(Err(_)) => {
                    return Err(ClientError::Gone(self.pending.gone().unwrap_or(
                        Gone::Transport(Loss::Other("the session ended".into())),
                    )));
                }
                None => {
                    // Progress may have moved the idle deadline while we slept.
                    let last = slot
                        .and_then(|sl| self.trace.read().token_by_slot(sl).map(|t| t.last_us))
                        .unwrap_or(0);
                    let now = self.trace.now_us();
                    if let Some((at, expiry)) =
                        timeout::next_deadline(limits, sent_us.saturating_add(paused()), last)
                        && now >= at
                    {
                        let secs = match expiry {
                            Expiry::Idle => limits.idle,
                            Expiry::Max => limits.max,
                        }
                        .map_or(0.0, |d| d.as_secs_f64());
                        self.meta(Event::Timeout {
                            request: id.to_value(),
                            method: method.to_string(),
                            limit: expiry.as_str().to_string(),
                            secs,
                        });
                        if method == methods::INITIALIZE {
                            // A client MUST NOT cancel initialize: stop waiting only.
                            self.pending.forget(&id);
                        } else {
                            let _ = self.cancel(
                                &id,
                                &format!("timed out ({} timeout of {secs}s)", expiry.as_str()),
                            );
                        }
                        return Err(ClientError::Timeout {
                            method: method.to_string(),
                            expiry,
                            secs,
                        });
                    }
                }
            }
        }
    }

    /// Read response `seq` from the trace. The frame was classified as a
    /// response already; what is read here is its result or error, leniently
    /// (a number beyond f64 does not fail the call), and an MCP result must
    /// be an object.
    fn reply(&self, method: &str, answer: pending::Answer) -> Result<Reply, ClientError> {
        let seq = answer.seq;
        let store;
        let bytes: &[u8] = match &answer.bytes {
            Some(b) => b,
            None => {
                store = self.trace.read();
                store
                    .get(seq)
                    .ok_or_else(|| ClientError::Protocol(format!("response #{seq} was evicted")))?
                    .bytes
            }
        };
        let f = crate::protocol::classify(bytes);
        let unreadable = |e: crate::protocol::json_text::JsonTextError| {
            ClientError::Protocol(format!("{method}: the response #{seq} cannot be read: {e}"))
        };
        for (member, raw) in [("result", f.result), ("error", f.error)] {
            if let Some((at, key)) = raw.and_then(|r| answer_text::first_duplicate_key(r.get())) {
                // Readers disagree on which of the two values counts: the
                // answer says nothing for certain.
                let id =
                    f.id.as_ref()
                        .map_or_else(String::new, |id| format!(" to request {id}"));
                return Err(ClientError::Protocol(format!(
                    "{method}: the answer{id} (#{seq}) is malformed: duplicate key {key:?} at /{member}{at}"
                )));
            }
        }
        if let Some(err) = f.error {
            let (err, _) = lenient_value(err.get()).map_err(unreadable)?;
            let mut message = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            if f.id.as_ref().is_some_and(|id| !id.is_valid()) {
                message.push_str(" (the error carried id null: the server could not tell which request it answers)");
            }
            return Err(ClientError::Rpc {
                method: method.to_string(),
                code: err.get("code").and_then(Value::as_i64).unwrap_or(0),
                message,
                data: err.get("data").cloned(),
            });
        }
        let raw = f.result.map_or("null", |r| r.get());
        let (result, out_of_range) = lenient_value(raw).map_err(unreadable)?;
        if !result.is_object() {
            return Err(ClientError::Protocol(format!(
                "{method}: the result (#{seq}) is {}, not an object",
                crate::protocol::frame::json_type_article(&result)
            )));
        }
        Ok(Reply {
            seq,
            result,
            raw: raw.into(),
            out_of_range,
        })
    }

    /// Cancel a request of ours. Its response, if it still comes, is kept
    /// in the trace and flagged late.
    pub fn cancel(&self, id: &IdKey, reason: &str) -> Result<u64, ClientError> {
        self.pending.forget(id);
        if self.is_modern()
            && let Link::Http(h) = &self.transport
        {
            // 2026-07-28 over HTTP: cancelling is closing the response stream.
            h.abort(id);
            self.tool_headers.forget(id);
            return Ok(self.meta(Event::Cancel {
                request: id.to_value(),
                how: "closed the response stream".into(),
                reason: reason.to_string(),
            }));
        }
        self.notify(
            methods::CANCELLED,
            Some(json!({"requestId": id.to_value(), "reason": reason})),
        )
    }

    /// Limits for the short requests around calls (handshake, setLevel, listing).
    fn setup_limits(&self) -> Limits {
        self.opts.handshake
    }

    /// The handshake: `initialize`, then `notifications/initialized`.
    pub async fn initialize(&self) -> Result<InitializeResult, ClientError> {
        let caps = self.client_capabilities();
        let requested = self.opts.revision.as_str();
        let params = json!({
            "protocolVersion": requested,
            "capabilities": caps,
            "clientInfo": {"name": self.opts.client_name, "version": env!("CARGO_PKG_VERSION")},
        });
        let limits = self.setup_limits();
        let reply = match self
            .request(methods::INITIALIZE, Some(params), limits)
            .await
        {
            Ok(r) => r,
            // Kept as it came: `--protocol auto` returns to discovery on it.
            Err(
                e @ ClientError::Rpc {
                    code: era::UNSUPPORTED_VERSION,
                    ..
                },
            ) if self.opts.era == EraChoice::Auto => return Err(e),
            Err(ClientError::Rpc { code, message, .. }) => {
                return Err(initialize_rejected(code, &message));
            }
            Err(ClientError::Timeout { expiry, secs, .. }) => {
                return Err(ClientError::HandshakeTimeout { expiry, secs });
            }
            Err(e) => return Err(ClientError::Handshake(e.to_string())),
        };
        let init: InitializeResult = serde_json::from_value(reply.result.clone())
            .map_err(|e| ClientError::Handshake(format!("malformed initialize result: {e}")))?;
        let supported = init.protocol_version.parse::<Revision>().is_ok();
        self.meta(Event::Negotiated {
            era: None,
            requested: Some(requested.to_string()),
            protocol_version: init.protocol_version.clone(),
            supported: Some(supported),
            supported_versions: None,
            server_info: json!(init.server_info),
            capabilities: json!(init.capabilities),
        });
        *self.server.lock().unwrap_or_else(|e| e.into_inner()) = Some(init.clone());
        if let Link::Http(h) = &self.transport {
            h.set_protocol_version(&init.protocol_version);
        }
        self.notify(methods::INITIALIZED, None)?;
        if let Link::Http(h) = &self.transport {
            h.open_get_stream(std::time::Duration::from_secs(2)).await;
        }
        Ok(init)
    }

    /// Asks for logs at `level` and above: `logging/setLevel` in the
    /// handshake era, the request's `_meta` at 2026-07-28. Asked for by the
    /// user, so asked in both eras, even of a server that did not declare
    /// `logging` (the caller says so); the checks know mcpscope's own
    /// setLevel as deliberate.
    pub async fn set_level(&self, level: LogLevel) -> Result<LevelAsked, ClientError> {
        if self.is_modern() || !self.revision().has_set_level() {
            // Stateless era: every later request asks for this level in its `_meta`.
            *self.log_level.lock().unwrap_or_else(|e| e.into_inner()) = Some(level);
            return Ok(LevelAsked::PerRequest);
        }
        self.request(
            methods::SET_LEVEL,
            Some(json!({"level": level.as_str()})),
            self.setup_limits(),
        )
        .await?;
        Ok(if self.declares_logging() {
            LevelAsked::Sent
        } else {
            LevelAsked::Undeclared
        })
    }

    /// Whether the server declared the `logging` capability.
    pub fn declares_logging(&self) -> bool {
        self.server().is_some_and(|s| s.has_capability("logging"))
    }

    /// Every tool, following `nextCursor` until the last page.
    pub async fn list_tools(&self) -> Result<Vec<Value>, ClientError> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let limits = self.setup_limits();
        for _ in 0..10_000 {
            let params = cursor.as_ref().map(|c| json!({"cursor": c}));
            let reply = self.request(methods::TOOLS_LIST, params, limits).await?;
            let page: ToolsPage = serde_json::from_value(reply.result)
                .map_err(|e| ClientError::Protocol(format!("malformed tools/list result: {e}")))?;
            tools.extend(page.tools.into_iter().filter(|t| self.keep_tool(t)));
            match page.next_cursor {
                Some(c) if Some(&c) != cursor.as_ref() => cursor = Some(c),
                Some(_) => {
                    return Err(ClientError::Protocol(
                        "tools/list returned the same cursor twice".into(),
                    ));
                }
                None => return Ok(tools),
            }
        }
        Err(ClientError::Protocol(
            "tools/list did not end after 10000 pages".into(),
        ))
    }

    /// SEP-2243 (2026-07-28 over HTTP): a tool whose `x-mcp-header`
    /// annotations are invalid is excluded from the listing, with the reason
    /// recorded; the frame itself stays in the trace.
    fn keep_tool(&self, tool: &Value) -> bool {
        if !self.is_modern() || !matches!(self.transport, Link::Http(_)) {
            return true;
        }
        match crate::protocol::mcp_param::tool_headers(tool) {
            Ok(_) => true,
            Err(reason) => {
                let name = tool.get("name").cloned().unwrap_or(Value::Null);
                self.meta(Event::ToolRejected {
                    tool: name,
                    reason: reason.to_string(),
                });
                false
            }
        }
    }

    /// Build `tools/call` params with the policy's token.
    pub fn call_params(&self, name: &str, args: &Value, token: Option<&IdKey>) -> Value {
        let mut params = json!({"name": name, "arguments": args});
        if let Some(t) = token {
            params[meta::META] = json!({meta::PROGRESS_TOKEN: t.to_value()});
        }
        params
    }

    pub async fn call_tool(
        &self,
        name: &str,
        args: &Value,
        policy: &TokenPolicy,
        limits: Limits,
    ) -> Result<CallOutcome, ClientError> {
        let (id, token) = self.prepare_call(policy);
        self.call_prepared(id, token, name, args, limits).await
    }

    /// Choose the id and token of a call before sending it, so a UI can show
    /// and cancel it while it runs.
    pub fn prepare_call(&self, policy: &TokenPolicy) -> (IdKey, Option<IdKey>) {
        (self.fresh_id(), self.token_for(policy))
    }

    pub async fn call_prepared(
        &self,
        id: IdKey,
        token: Option<IdKey>,
        name: &str,
        args: &Value,
        limits: Limits,
    ) -> Result<CallOutcome, ClientError> {
        if self.is_modern()
            && matches!(self.transport, Link::Http(_))
            && let Some(reason) = self.tool_headers.rejection(name)
        {
            return Err(ClientError::Protocol(format!(
                "{name} was rejected when listed, so it is not called: {reason}"
            )));
        }
        // The tool and its token, never its arguments (they may hold secrets).
        tracing::info!(id = %id, tool = name, token = ?token.as_ref().map(|t| t.to_string()), "tools/call");
        let params = self.call_params(name, args, token.as_ref());
        let reply = self
            .request_with_id(
                id.clone(),
                methods::TOOLS_CALL,
                Some(params.clone()),
                limits,
            )
            .await?;
        let reply = self
            .drive_input_required(methods::TOOLS_CALL, params, reply, limits)
            .await?;
        // "A client that has negotiated this extension MUST be prepared to
        // handle either CallToolResult or CreateTaskResult".
        let reply = if self.is_modern() && crate::protocol::task::is_handle(&reply.result) {
            self.follow_ext_task(&reply, limits).await?
        } else {
            reply
        };
        Ok(CallOutcome { id, token, reply })
    }

    /// Close stdin, wait, SIGTERM, wait, SIGKILL.
    pub async fn shutdown(&self) -> Option<ExitInfo> {
        tracing::info!(in_flight = self.in_flight(), "session shutdown");
        self.responder.abort();
        self.transport.shutdown(self.opts.shutdown_grace).await
    }
}
