//! `proxy --listen … --url … --intercept`: the HTTP proxy's side of the
//! breakpoints (what is held is in `breakpoints::http`). Here are the
//! exchanges' parts:
//!
//! - a host's POST whose message is held waits for the controller, then
//!   goes upstream as it was or edited, or is not sent: a dropped
//!   notification or response is answered 202 Accepted, as a server would;
//!   a dropped request gets no answer at all (it was lost on the way), so
//!   its exchange stays open until the host gives up or the proxy ends;
//! - a response stream to the host ([`Intercepted`]) holds the server's
//!   messages the breakpoint selects while the rest of it goes on, and
//!   stays open after the server ended it until each left the hold;
//! - a message forged to the server is POSTed by the proxy in the last
//!   host session seen, where the host's last POST went (a legacy
//!   server's endpoint), recorded as an exchange of its own; the server's
//!   answer (in the POST's response, or on a legacy server's event
//!   stream) is recorded, and kept from the host, which never asked.

use super::{Body, Shared, accepted, rpc_error};
use crate::event::{Event, Status};
use crate::intercept::protocol::{Command, Report, Side};
use crate::protocol::frame::{FrameKind, classify};
use crate::proxy::breakpoints::control::{Reports, Target};
use crate::proxy::breakpoints::http::{
    Holds, HostStream, MAX_FORGING, ToHost, ToServer, host_stream,
};
use crate::proxy::http_observer::Exchange;
use crate::trace::Trace;
use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use hyper::{Response, StatusCode};
use std::sync::Arc;
use tokio::sync::mpsc;

/// The HTTP proxy as the control connection's target.
pub(super) struct HttpControl(pub(super) Arc<Shared>);

impl Target for HttpControl {
    fn connect(&self, reports: Reports) {
        if let Some(h) = &self.0.holds {
            h.connect(reports);
        }
    }

    fn act(&self, cmd: Command) -> BoxFuture<'_, Option<Report>> {
        Box::pin(async move {
            let h = self.0.holds.as_ref()?;
            match cmd {
                Command::Forge {
                    to: Side::Server,
                    message,
                } => Some(self.forge_to_server(h, &message).await),
                cmd => h.act(cmd),
            }
        })
    }

    fn left(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Some(h) = &self.0.holds {
                h.left();
            }
        })
    }
}

impl HttpControl {
    /// POST `message` to the server in the last host session seen: its
    /// `injected` event recorded first, on an exchange of its own; the
    /// answer read (and recorded) beside, kept from the host.
    async fn forge_to_server(&self, h: &Arc<Holds>, message: &str) -> Report {
        let Some(permit) = h.forging() else {
            return Report::Error {
                message: format!(
                    "not forged: {MAX_FORGING} forged messages still await the server's answer"
                ),
            };
        };
        let s = &self.0;
        let (bytes, event) = h.forged_to_server(message);
        let (session, protocol) = h.host_session();
        // Where the host's last POST went (a legacy server's endpoint, its
        // session in the query), else the server's URL.
        let post_target = h.post_target();
        let start = Event::HostRequest {
            method: "POST".into(),
            // As the host's POSTs are recorded: a legacy session is in the
            // query.
            session: session.clone().or_else(|| {
                post_target
                    .as_deref()
                    .and_then(|t| t.split_once('?'))
                    .and_then(|(_, q)| super::session_in_query(q))
            }),
            target: Some(crate::event::target_key(
                post_target.as_deref().unwrap_or(s.upstream.path()),
            )),
            protocol: protocol.clone(),
            last_event_id: None,
        };
        let mut ex = s.obs.exchange(&s.channel_of(&hyper::Method::POST), start);
        ex.injected(event);
        let f = classify(&bytes);
        let asked = (f.kind == FrameKind::Request)
            .then(|| f.id.as_ref().map(|i| i.to_value().to_string()))
            .flatten();
        let mut url = s.upstream.clone();
        if let Some(t) = &post_target {
            let (path, query) = t
                .split_once('?')
                .map_or((t.as_str(), None), |(p, q)| (p, Some(q)));
            url.set_path(path);
            url.set_query(query);
        }
        if let Some(id) = &asked {
            h.asked_server(id.clone());
        }
        let mut req = s
            .client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(
                reqwest::header::ACCEPT,
                "application/json, text/event-stream",
            )
            .body(bytes);
        if let Some(id) = &session {
            req = req.header("mcp-session-id", id);
        }
        if let Some(p) = &protocol {
            req = req.header("mcp-protocol-version", p);
        }
        let t0 = std::time::Instant::now();
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => {
                let error = crate::protocol::sanitize::one_line(&e.to_string()).into_owned();
                let ev = Event::HttpError {
                    method: "POST".into(),
                    error: error.clone(),
                };
                ex.head(ev, false);
                return Report::Error {
                    message: format!("forged, but the server could not be reached: {error}"),
                };
            }
        };
        let ctype = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let sse = ctype
            .as_deref()
            .is_some_and(|c| c.starts_with("text/event-stream"));
        let head = Event::Http {
            method: "POST".into(),
            status: Status::Code(resp.status().as_u16()),
            content_type: ctype,
            session: resp
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
                .map(str::to_string),
            ms: t0.elapsed().as_millis() as u64,
            challenge: None,
        };
        ex.head(head, sse);
        // A call may answer late: read beside, the controller goes on.
        let h = h.clone();
        tokio::spawn(async move {
            read_answer(resp, ex, sse, asked, &h).await;
            drop(permit);
        });
        Report::Forged { to: Side::Server }
    }
}

/// The server's answer to a forged message: recorded as it comes, and the
/// response to the forged request said kept from the host.
async fn read_answer(
    resp: reqwest::Response,
    mut ex: Exchange,
    sse: bool,
    asked: Option<String>,
    h: &Holds,
) {
    let answers = |data: &[u8]| {
        let f = classify(data);
        matches!(f.kind, FrameKind::Response | FrameKind::ErrorResponse)
            && asked.is_some()
            && f.id.as_ref().map(|i| i.to_value().to_string()) == asked
    };
    let max = crate::transport::lines::max_frame();
    let mut parser = crate::transport::sse::SseParser::new();
    let mut json = Vec::new();
    let mut body = resp.bytes_stream();
    while let Some(chunk) = body.next().await {
        match chunk {
            Ok(b) => {
                ex.chunk(&b);
                if sse {
                    for ev in parser.feed(&b) {
                        if let Some(d) = ev.data.filter(|d| answers(d.as_bytes())) {
                            ex.injected(h.forged_answer(d.as_bytes()));
                            h.server_answered(asked.as_deref().unwrap_or_default());
                        }
                    }
                } else if json.len() + b.len() <= max {
                    json.extend_from_slice(&b);
                }
            }
            Err(e) => {
                ex.error(crate::protocol::sanitize::one_line(&e.to_string()).into_owned());
                return;
            }
        }
    }
    ex.ended();
    if !sse && answers(json.trim_ascii()) {
        ex.injected(h.forged_answer(json.trim_ascii()));
        h.server_answered(asked.as_deref().unwrap_or_default());
    }
}

/// The host's POST body `body` through the breakpoint. `Ok(None)`: send
/// it as it is; `Ok(Some(b))`: send `b` (it was held, maybe edited);
/// `Err`: the host's answer, the server never getting it.
pub async fn held_host_message(
    h: &Holds,
    body: &Bytes,
    ex: &mut Exchange,
    trace: &Trace,
) -> Result<Option<Bytes>, Response<Body>> {
    if let Some(ev) = h.answer_to_forged(body) {
        // The host's answer to a request the server never sent.
        ex.injected(ev);
        return Err(accepted());
    }
    let Some(rx) = h.host(body, trace.now_us()) else {
        return Ok(None);
    };
    match rx.await {
        Ok(ToServer::Send { event, body }) => {
            ex.injected(event);
            Ok(Some(body.into()))
        }
        Ok(ToServer::Drop { event }) => {
            ex.injected(event);
            if classify(body).kind != FrameKind::Request {
                return Err(accepted());
            }
            // A request lost on the way is never answered: the host waits
            // until it gives up (dropping this), or the proxy ends.
            h.until_ended().await;
            Err(rpc_error(
                StatusCode::SERVICE_UNAVAILABLE,
                "the proxy ended; this request was dropped at a breakpoint",
            ))
        }
        Err(_) => Err(rpc_error(
            StatusCode::SERVICE_UNAVAILABLE,
            "the proxy ended while this message was held at a breakpoint",
        )),
    }
}

/// One response stream to the host under the breakpoint: the server's
/// messages it holds, and what the controller sends to it.
pub struct Intercepted {
    holds: Arc<Holds>,
    tx: HostStream,
    rx: mpsc::Receiver<ToHost>,
    /// Its messages held: the host's stream stays open until they left.
    holding: usize,
    /// Its number among the streams a forged message may go to.
    stream: Option<u64>,
}

impl Intercepted {
    /// `sse`: an event stream (only those take forged messages); `get`: a
    /// GET's (preferred for them, as a server's own messages go there).
    pub fn new(holds: Arc<Holds>, sse: bool, get: bool) -> Intercepted {
        let (tx, rx) = host_stream();
        let stream = if sse {
            holds.open_stream(get, &tx)
        } else {
            None
        };
        Intercepted {
            holds,
            tx,
            rx,
            holding: 0,
            stream,
        }
    }

    /// When `data` answers a request forged to the server (a legacy server
    /// answers on its event stream): the event keeping it from the host.
    pub fn kept_answer(&self, data: &[u8]) -> Option<Event> {
        self.holds.answer_from_server(data)
    }

    /// Whether the breakpoint holds `data` (`block` its SSE event, `None`
    /// for a JSON body).
    pub fn hold(&mut self, data: &[u8], t_us: u64, block: Option<&[u8]>) -> bool {
        let held = self.holds.server(data, t_us, &self.tx, block);
        if held {
            self.holding += 1;
        }
        held
    }

    /// `t` was taken: one hold fewer when it releases one.
    pub fn done(&mut self, t: &ToHost) {
        if t.release {
            self.holding = self.holding.saturating_sub(1);
        }
    }

    pub fn holding(&self) -> bool {
        self.holding > 0
    }

    /// What the controller sends to this stream next (it keeps a sender
    /// itself, so this never ends).
    pub async fn recv(&mut self) -> ToHost {
        match self.rx.recv().await {
            Some(t) => t,
            None => std::future::pending().await,
        }
    }

    /// After the server ended the stream: the next release, or `None`
    /// when the proxy ends first.
    pub async fn after_end(&mut self) -> Option<ToHost> {
        let holds = self.holds.clone();
        tokio::select! {
            t = self.rx.recv() => t,
            () = holds.until_ended() => None,
        }
    }
}

impl Drop for Intercepted {
    fn drop(&mut self) {
        if let Some(n) = self.stream {
            self.holds.close_stream(n);
        }
        // Releases sent but never written, and what is still held from
        // this stream, will not reach the host: said and recorded so.
        self.rx.close();
        let mut unsent = Vec::new();
        let mut forged = Vec::new();
        while let Ok(t) = self.rx.try_recv() {
            if t.release {
                self.holding = self.holding.saturating_sub(1);
                unsent.push(t.event);
            } else if t.bytes.is_some() {
                forged.push(t.event);
            }
        }
        if self.holding > 0 || !unsent.is_empty() {
            self.holds.stream_gone(&self.tx, unsent);
        }
        if !forged.is_empty() {
            self.holds.forged_gone(forged);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{ManualClock, Store};

    /// A message forged to the host whose stream ends before it is
    /// written never reaches the host: the controller is told, and the
    /// trace has it as forged but never sent (no party judged on it).
    #[test]
    fn a_forged_message_whose_stream_ended_first_is_recorded_as_never_sent() {
        let trace = Trace::new(Store::default(), ManualClock::new());
        let holds = Arc::new(Holds::new(trace.clone(), 1 << 20));
        let (reports, mut told) = mpsc::unbounded_channel();
        holds.connect(reports);
        let stream = Intercepted::new(holds.clone(), true, true);
        let message = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"forged"}}"#;
        let report = holds.act(Command::Forge {
            to: Side::Host,
            message: message.into(),
        });
        assert!(matches!(report, Some(Report::Forged { .. })), "{report:?}");
        drop(stream);
        let store = trace.read();
        let events: Vec<String> = (0..store.len())
            .filter_map(|s| store.get(s))
            .map(|e| String::from_utf8_lossy(e.bytes).into_owned())
            .collect();
        assert_eq!(events.len(), 1, "{events:?}");
        let ev: serde_json::Value = serde_json::from_str(&events[0]).unwrap();
        assert_eq!(ev["action"], "forge", "{ev}");
        assert!(ev.get("sent").is_none_or(|s| s.is_null()), "{ev}");
        assert!(ev["detail"].as_str().unwrap().contains("lost"), "{ev}");
        let mut errors = Vec::new();
        while let Ok(r) = told.try_recv() {
            if let Report::Error { message } = r {
                errors.push(message);
            }
        }
        assert!(
            errors
                .iter()
                .any(|m| m.contains("forged") && m.contains("ended")),
            "{errors:?}"
        );
    }
}
