//! The mock over Streamable HTTP: one endpoint `/mcp`; an `initialize`
//! starts a session (`Mcp-Session-Id`) with its own place in the
//! recording, requests without a session (the 2026-07-28 era) share one;
//! each request is answered on its own SSE stream (its progress, logs and
//! server requests, then its response), a session's GET opens its
//! standalone stream (frames recorded there, and those after a response),
//! DELETE ends the session. No resumption (`Last-Event-ID`): the mock
//! replays a recording, it does not test reconnects.
//!
//! Every request first passes the listener's [`ListenGuard`] (Host and
//! Origin against DNS rebinding), as the demo server's and the proxy's do.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use super::conn::{Conn, Handled, Out, Pace, Standalone, Wire};
use super::recording::Recording;
use crate::demo::http::{Body, full, gate, header, read_message, rpc_error, serve_connections};
use crate::listen_guard::ListenGuard;
use crate::protocol::methods;

const SESSION_HEADER: &str = "mcp-session-id";
/// Sessions at once, at most; the oldest goes beyond.
const MAX_SESSIONS: usize = 256;

struct Session {
    conn: Arc<Conn>,
    get: Arc<Standalone>,
}

struct Server {
    rec: Arc<Recording>,
    pace: Pace,
    guard: ListenGuard,
    sessions: Mutex<HashMap<String, (u64, Arc<Session>)>>,
    stateless: Arc<Conn>,
    next: AtomicU64,
    /// The recording holds an `initialize` to answer, or a 2026-07-28
    /// handshake to answer one from.
    has_initialize: bool,
}

/// Serve `rec` on `listener` until the process is stopped.
pub async fn serve(listener: TcpListener, rec: Arc<Recording>, pace: Pace) -> std::io::Result<()> {
    let bound = listener.local_addr()?;
    // A 2026-07-28 recording answers one from its `server/discover`.
    let has_initialize = rec
        .exchanges
        .iter()
        .any(|e| e.is_request() && e.method == methods::INITIALIZE)
        || super::era::of_recording(&rec) == Some(crate::protocol::revision::Era::Stateless);
    let server = Arc::new(Server {
        stateless: Conn::new(rec.clone(), pace, Out::Standalone(Arc::default())),
        rec,
        pace,
        guard: ListenGuard::new(bound, Vec::new()),
        sessions: Mutex::new(HashMap::new()),
        next: AtomicU64::new(1),
        has_initialize,
    });
    serve_connections(listener, move |req| server.clone().handle(req)).await
}

/// An SSE response carrying what arrives on `rx`, ending when every sender is gone.
fn sse(rx: mpsc::Receiver<Wire>) -> Response<Body> {
    use futures_util::StreamExt;
    let body = futures_util::stream::unfold(rx, |mut rx| async move {
        let wire = rx.recv().await?;
        let chunks = match wire {
            // What went before is handed on before what comes after: the
            // HTTP hosts read events one by one.
            Wire::Barrier(done) => {
                let _ = done.send(());
                Vec::new()
            }
            // A large frame of one line (never joined to others) is one
            // event written around its parts, not copied.
            w if w.len() >= super::recording::BATCH_BYTES
                && !w.parts().iter().any(|p| memchr::memchr(b'\n', p).is_some()) =>
            {
                let mut c = vec![Bytes::from_static(b"data: ")];
                c.extend(w.parts().iter().cloned());
                c.push(Bytes::from_static(b"\n\n"));
                c
            }
            w => {
                // One event per frame (a message may join several by '\n').
                let data = w.to_vec();
                let mut ev = Vec::with_capacity(data.len() + 16);
                for line in data.split(|b| *b == b'\n') {
                    ev.extend_from_slice(b"data: ");
                    ev.extend_from_slice(line);
                    ev.extend_from_slice(b"\n\n");
                }
                vec![Bytes::from(ev)]
            }
        };
        let frames = chunks
            .into_iter()
            .map(|c| Ok::<_, Infallible>(Frame::data(c)));
        Some((futures_util::stream::iter(frames), rx))
    })
    .flatten();
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

impl Server {
    async fn handle(self: Arc<Self>, req: Request<Incoming>) -> Response<Body> {
        if let Some(refused) = gate(&self.guard, &req) {
            return refused;
        }
        match *req.method() {
            Method::POST => self.post(req).await,
            Method::GET => self.get(&req),
            Method::DELETE => {
                let sid = header(&req, SESSION_HEADER).unwrap_or_default();
                match self.lock().remove(sid) {
                    Some((_, s)) => {
                        s.conn.stop();
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

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (u64, Arc<Session>)>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn post(self: Arc<Self>, req: Request<Incoming>) -> Response<Body> {
        let sid = header(&req, SESSION_HEADER).map(str::to_string);
        let msg = match read_message(req.into_body()).await {
            Ok(m) => Value::Object(m),
            Err(refused) => return refused,
        };
        let initialize = msg.get("method").and_then(Value::as_str) == Some(methods::INITIALIZE);
        let mut new_sid = None;
        let conn = match sid {
            Some(sid) => match self.lock().get(&sid) {
                Some((_, s)) => s.conn.clone(),
                None => return rpc_error(StatusCode::NOT_FOUND, -32001, "session not found"),
            },
            // A recording with nothing to answer an `initialize` from
            // refuses it: no session is opened for a refusal.
            None if initialize && !self.has_initialize => self.stateless.clone(),
            None if initialize => {
                let (sid, s) = self.new_session();
                new_sid = Some(sid);
                s.conn.clone()
            }
            None => self.stateless.clone(),
        };
        let (tx, rx) = mpsc::channel(1024);
        let mut resp = match conn.handle(msg, Out::Stream(tx)).await {
            Handled::Request => sse(rx),
            Handled::Accepted => full(StatusCode::ACCEPTED, "text/plain", ""),
        };
        if let Some(sid) = new_sid
            && let Ok(v) = sid.parse()
        {
            resp.headers_mut().insert(SESSION_HEADER, v);
        }
        resp
    }

    fn new_session(&self) -> (String, Arc<Session>) {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let get = Arc::new(Standalone::default());
        let s = Arc::new(Session {
            // Sessions are numbered from 1; the first host gets the first
            // recorded session.
            conn: Conn::for_host(
                self.rec.clone(),
                self.pace,
                Out::Standalone(get.clone()),
                n.saturating_sub(1) as usize,
            ),
            get,
        });
        let sid = format!("mock-{n:08x}");
        let mut sessions = self.lock();
        if sessions.len() >= MAX_SESSIONS
            && let Some(oldest) = sessions
                .iter()
                .min_by_key(|(_, (n, _))| *n)
                .map(|(k, _)| k.clone())
            && let Some((_, old)) = sessions.remove(&oldest)
        {
            old.conn.stop();
        }
        sessions.insert(sid.clone(), (n, s.clone()));
        (sid, s)
    }

    fn get(&self, req: &Request<Incoming>) -> Response<Body> {
        if !header(req, "accept")
            .unwrap_or("")
            .contains("text/event-stream")
        {
            return full(
                StatusCode::NOT_ACCEPTABLE,
                "text/plain",
                "GET needs Accept: text/event-stream",
            );
        }
        let Some(session) =
            header(req, SESSION_HEADER).and_then(|s| self.lock().get(s).map(|(_, s)| s.clone()))
        else {
            return full(
                StatusCode::METHOD_NOT_ALLOWED,
                "text/plain",
                "no standalone stream without a session",
            );
        };
        let (tx, rx) = mpsc::channel(1024);
        session.get.attach(tx);
        sse(rx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_sse_event_per_frame_and_a_large_one_written_around_its_parts() {
        let big = Bytes::from(vec![b'z'; super::super::recording::BATCH_BYTES]);
        let (tx, rx) = mpsc::channel(8);
        tx.send(Wire::Frame(Bytes::from_static(b"{\"a\":1}\n{\"b\":2}")))
            .await
            .unwrap();
        tx.send(Wire::Parts(vec![
            big.slice(..3),
            Bytes::from_static(b"\"id\""),
            big.slice(3..),
        ]))
        .await
        .unwrap();
        drop(tx);
        let body = sse(rx).into_body().collect().await.unwrap().to_bytes();
        let mut want = b"data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: zzz\"id\"".to_vec();
        want.extend_from_slice(&big[3..]);
        want.extend_from_slice(b"\n\n");
        assert!(body == want, "two events, then the parts as one event");
    }
}
