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
//!
//! This file is the transport's face; each concern has its own module:
//! `queue` (send order), `post` (a POST and its response, the HTTP+SSE
//! fallback), `stream` (SSE bodies, resumption), `listen` (the standalone
//! GET stream), `legacy` (the HTTP+SSE endpoint handshake), `state`
//! (session, version, running requests), `exchange` (requests on the wire
//! and as trace events).

mod body;
mod exchange;
mod legacy;
mod listen;
mod post;
mod queue;
pub mod redirect;
pub mod report;
mod state;
mod stream;

pub use state::{SESSION_EXPIRED, SESSION_HEADER, VERSION_HEADER};

use super::Sink;
use crate::protocol::IdKey;
use queue::Queued;
use reqwest::Url;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use state::State;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

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

/// Credentials for the requests, renewed when the server refuses them. The
/// authorization flow itself lives in `crate::auth`; the transport only
/// asks for a header, and says when the server refused it.
pub trait Authorize: Send + Sync + 'static {
    /// The `Authorization` header value to send now, if any.
    fn header(&self) -> Option<String>;
    /// Where the authorization's own events go (the session's trace).
    fn attach(&self, emit: std::sync::Arc<dyn Fn(crate::event::Event) + Send + Sync>);
    /// Renew credentials about to expire; called before each POST.
    fn ready(&self) -> futures_util::future::BoxFuture<'_, ()>;
    /// Whether a refusal is one to authorize for: `status` with these
    /// `WWW-Authenticate` values, after `attempts` authorizations of the
    /// same request. What a challenge means and how often to try again is
    /// the authorizer's to know.
    fn wants(&self, status: u16, challenges: &[String], attempts: u32) -> bool;
    /// The server answered `status` (401, or 403 asking for more scope)
    /// with these `WWW-Authenticate` values to a request sent with `sent`:
    /// get credentials worth retrying with, or say why there are none.
    fn refused<'a>(
        &'a self,
        status: u16,
        challenges: &'a [String],
        sent: Option<&'a str>,
    ) -> futures_util::future::BoxFuture<'a, Result<(), String>>;
    /// How long authorizations have taken so far (a running one included):
    /// time a person spends in the browser is not a server being slow.
    fn paused(&self) -> Duration {
        Duration::ZERO
    }
}

pub struct HttpTransport {
    inner: Arc<Inner>,
    queue: mpsc::UnboundedSender<Queued>,
}

/// Shared by the queue and every POST and stream task.
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
    /// OAuth, unless the user sends an `Authorization` header of their own.
    auth: Option<Arc<dyn Authorize>>,
}

impl HttpTransport {
    pub fn new(
        url: &str,
        headers: &[(String, String)],
        flavor: Flavor,
        sink: Arc<dyn Sink>,
        auth: Option<Arc<dyn Authorize>>,
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
        let auth = auth.filter(|_| !map.contains_key(reqwest::header::AUTHORIZATION));
        if let Some(a) = &auth {
            let sink = sink.clone();
            a.attach(Arc::new(move |ev| sink.event("auth", ev)));
        }
        let inner = Arc::new(Inner {
            client,
            url,
            headers: map,
            sink,
            state: Mutex::new(State::new(flavor)),
            next_post: AtomicU64::new(1),
            shutdown,
            endpoint,
            auth,
        });
        let (queue, rx) = mpsc::unbounded_channel();
        tokio::spawn(queue::dispatch(inner.clone(), rx));
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

    /// Time spent authorizing so far (see [`Authorize::paused`]).
    pub fn auth_paused(&self) -> Duration {
        self.inner
            .auth
            .as_ref()
            .map_or(Duration::ZERO, |a| a.paused())
    }

    pub fn flavor(&self) -> Flavor {
        self.inner.lock().flavor
    }

    /// Forget the session (after a 404) so the next initialize starts a new one.
    pub fn reset_session(&self) {
        self.inner.lock().session_id = None;
    }

    /// Whether the server keeps a standalone GET stream open: what it sends
    /// there has no order relative to a request's own stream.
    pub fn has_standalone_stream(&self) -> bool {
        let st = self.inner.lock();
        st.get_task.as_ref().is_some_and(|t| !t.is_finished())
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
            self.inner.delete_session(sid).await;
        }
    }
}

impl Inner {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}
