//! What the HTTP proxy holds at a breakpoint. Over HTTP a message is not a
//! line on one stream but a POST body (the host's) or an SSE event or JSON
//! body on one response stream (the server's), each with its own exchange
//! waiting: so each held message keeps the way back to that exchange (its
//! [`Waiter`]), and the exchange does what the controller decided,
//! recording the `injected` event first, in order with its own frames.
//!
//! - A held host message's POST waits (the host's clock runs); forwarded,
//!   it goes upstream as it was or edited; dropped, the server never sees
//!   it (a request is then never answered, see `proxy::http::intercept`).
//! - A held server message waits while the rest of its stream goes on;
//!   the host's stream stays open until each of its held messages left the
//!   hold, so a forwarded one can still be written to it.
//! - Forged to the host: an SSE event on an open stream to the host (a GET
//!   stream first). Forged to the server: see `crate::proxy::http::intercept`.

use super::control::{Reports, parse_break, record};
use super::hold::Breakpoints;
use crate::event::Event;
use crate::intercept::protocol::{Command, MAX_HELD, Report, Side};
use crate::protocol::frame::{FrameKind, classify};
use crate::proxy::faults::Stream;
use crate::trace::{EventRef, Trace};
use bytes::Bytes;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::sync::{Mutex, MutexGuard};
use tokio::sync::{mpsc, oneshot, watch};

/// Requests forged to the host whose answers are awaited, at most (the
/// oldest is forgotten past it: its answer then goes to the server).
const MAX_FORGED: usize = 4096;
/// Messages forged to the server whose answers are still being read, at
/// most: each holds a connection to the server.
pub const MAX_FORGING: usize = 64;
/// How long the proxy's end waits for the answers to forged messages, so
/// that what was forged is in the trace with its answer.
const FORGED_AT_END: std::time::Duration = std::time::Duration::from_secs(2);
/// Requests followed at most, for the method of their responses.
const MAX_REQUESTS: usize = 65_536;
/// Streams to the host a forged message may be written to, at most.
const MAX_STREAMS: usize = 4096;
/// What a stream's queue takes besides its held messages' releases:
/// forged messages, which are refused when it is full.
const FORGE_ROOM: usize = 64;

/// What becomes of a held host message, told to its waiting POST.
pub enum ToServer {
    /// Record `event`, then send `body` upstream.
    Send { event: Event, body: Vec<u8> },
    /// Record `event`; the server never gets it.
    Drop { event: Event },
}

/// What an open response stream to the host is handed: record `event`,
/// then write `bytes` (nothing for a drop); `release`: it ends one of the
/// stream's holds.
pub struct ToHost {
    pub event: Event,
    pub bytes: Option<Bytes>,
    pub release: bool,
}

/// The way to an open response stream to the host.
pub type HostStream = mpsc::Sender<ToHost>;

/// A stream's queue: every release fits (a stream never has more than
/// `MAX_HELD` holds), forged messages take what is left.
pub fn host_stream() -> (HostStream, mpsc::Receiver<ToHost>) {
    mpsc::channel(MAX_HELD + FORGE_ROOM)
}

/// What waits for a held message.
pub enum Waiter {
    /// The host's POST.
    Host(oneshot::Sender<ToServer>),
    /// A response stream to the host; `block` the SSE event as the server
    /// wrote it (`None`: the message is a whole JSON body).
    Server {
        to: HostStream,
        block: Option<Vec<u8>>,
    },
}

struct State {
    b: Breakpoints<Waiter>,
    /// Messages tested so far (the matcher's sequence).
    seq: u64,
    /// Requests in flight, by the stream they went on and their id (JSON
    /// text): their method, a response's (`method == tools/call` selects
    /// results too, as on stdio).
    requests: std::collections::HashMap<(Stream, String), String>,
    request_order: VecDeque<(Stream, String)>,
    /// Open SSE streams to the host, by number: (a GET stream, its way).
    streams: BTreeMap<u64, (bool, HostStream)>,
    next_stream: u64,
    /// Ids (JSON text) of requests forged to the host, answers awaited.
    forged: Ids,
    /// The last host session seen, and its protocol revision: a message
    /// forged to the server goes in it.
    session: Option<String>,
    protocol: Option<String>,
    /// Where the host's last POST went (path and query): a message forged
    /// to the server goes there too (a legacy HTTP+SSE server takes POSTs
    /// at the endpoint its stream named, its session in the query).
    post_target: Option<String>,
    /// Ids (JSON text) of requests forged to the server: a legacy server
    /// answers them on the host's event stream, where they stop.
    asked: Ids,
    ended: bool,
}

/// Ids (JSON text) of forged requests whose answers are awaited: at most
/// `MAX_FORGED`, the oldest forgotten first.
#[derive(Default)]
struct Ids {
    set: HashSet<String>,
    order: VecDeque<String>,
}

impl Ids {
    fn insert(&mut self, id: String) {
        if self.order.len() >= MAX_FORGED
            && let Some(old) = self.order.pop_front()
        {
            self.set.remove(&old);
        }
        if self.set.insert(id.clone()) {
            self.order.push_back(id);
        }
    }

    /// Whether `id` was awaited (it is not any more).
    fn take(&mut self, id: &str) -> bool {
        let had = self.set.remove(id);
        if had {
            self.order.retain(|i| i != id);
        }
        had
    }
}

/// The id (JSON text) of the response or error `body`, if it is one.
fn answered_id(body: &[u8]) -> Option<String> {
    let f = classify(body);
    if !matches!(f.kind, FrameKind::Response | FrameKind::ErrorResponse) {
        return None;
    }
    Some(f.id.as_ref()?.to_value().to_string())
}

/// The HTTP proxy's breakpoints, shared by every exchange.
pub struct Holds {
    state: Mutex<State>,
    trace: Trace,
    max_frame: usize,
    /// Set when the proxy ends: what waits on a dropped request, or for a
    /// held message, lets go.
    ended: watch::Sender<bool>,
    /// A permit per forged message to the server whose answer is read.
    forging: std::sync::Arc<tokio::sync::Semaphore>,
}

/// The `injected` event of a held message that never reached its
/// receiver: its exchange had ended.
fn lost(h: &super::hold::Held<Waiter>, why: &str, max_frame: usize) -> Event {
    h.released("drop", &format!("lost: {why}"), None, max_frame)
}

/// The `injected` event of a release that never reached its receiver
/// (its exchange ended first) in place of `ev`, which said it went.
pub fn lost_ev(mut ev: Event) -> Event {
    if let Event::Injected {
        rule,
        source,
        action,
        sent,
        detail,
        ..
    } = &mut ev
    {
        *rule = 0;
        *source = "intercept".into();
        *action = "drop".into();
        *sent = None;
        *detail = detail
            .take()
            .map(|d| format!("{d}; lost: its exchange had ended"));
    }
    ev
}

/// The `injected` event of a forged message that was never written, in
/// place of `ev`, which said it was.
fn never_sent(mut ev: Event) -> Event {
    if let Event::Injected { sent, detail, .. } = &mut ev {
        *sent = None;
        *detail = Some(format!(
            "{}; lost: its stream ended before it was written",
            detail.as_deref().unwrap_or("forged")
        ));
    }
    ev
}

/// A message the user typed, as it is sent: compact JSON when it is JSON,
/// else as typed (over HTTP a message need not be one line).
pub fn as_sent(message: &str) -> Vec<u8> {
    match serde_json::from_str::<serde_json::Value>(message) {
        Ok(v) => v.to_string().into_bytes(),
        Err(_) => message.as_bytes().to_vec(),
    }
}

/// An SSE event carrying `data`: one `data:` line per line of it.
pub fn sse_event(data: &[u8]) -> Vec<u8> {
    let mut out = b"event: message\n".to_vec();
    for line in data.split(|c| *c == b'\n') {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(line.strip_suffix(b"\r").unwrap_or(line));
        out.push(b'\n');
    }
    out.push(b'\n');
    out
}

/// The SSE event `block` with its data replaced by `data`: its other
/// fields (`id:`, `event:`) kept, in their order.
pub fn with_data(block: &[u8], data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut placed = false;
    for line in block.split(|c| *c == b'\n' || *c == b'\r') {
        if line.is_empty() {
            continue;
        }
        if line == b"data" || line.starts_with(b"data:") {
            if !placed {
                placed = true;
                for l in data.split(|c| *c == b'\n') {
                    out.extend_from_slice(b"data: ");
                    out.extend_from_slice(l.strip_suffix(b"\r").unwrap_or(l));
                    out.push(b'\n');
                }
            }
            continue;
        }
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out.push(b'\n');
    out
}

impl State {
    /// A request in flight on `stream`: the oldest forgotten past the bound.
    fn follow(&mut self, stream: Stream, id: String, method: &str) {
        if self.request_order.len() >= MAX_REQUESTS
            && let Some(old) = self.request_order.pop_front()
        {
            self.requests.remove(&old);
        }
        let key = (stream, id);
        if self
            .requests
            .insert(key.clone(), method.to_string())
            .is_none()
        {
            self.request_order.push_back(key);
        }
    }
}

impl Holds {
    pub fn new(trace: Trace, max_frame: usize) -> Holds {
        Holds {
            state: Mutex::new(State {
                b: Breakpoints::default(),
                seq: 0,
                requests: Default::default(),
                request_order: VecDeque::new(),
                streams: BTreeMap::new(),
                next_stream: 0,
                forged: Ids::default(),
                session: None,
                protocol: None,
                post_target: None,
                asked: Ids::default(),
                ended: false,
            }),
            trace,
            max_frame,
            ended: watch::Sender::new(false),
            forging: std::sync::Arc::new(tokio::sync::Semaphore::new(MAX_FORGING)),
        }
    }

    /// Room to read the answer to one more forged message, if there is.
    pub fn forging(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        self.forging.clone().try_acquire_owned().ok()
    }

    /// The proxy is ending: let the answers to forged messages being read
    /// reach the trace (for a short while: a call may answer much later).
    pub async fn answers_read(&self) {
        let all = self.forging.acquire_many(MAX_FORGING as u32);
        let _ = tokio::time::timeout(FORGED_AT_END, all).await;
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether the breakpoint selects `body`, read from `stream` at `t_us`;
    /// then it is held for `waiter`.
    fn test(
        &self,
        stream: Stream,
        body: &[u8],
        t_us: u64,
        waiter: impl FnOnce() -> Waiter,
    ) -> bool {
        let mut st = self.lock();
        if st.ended {
            return false;
        }
        // Tested with or without a breakpoint: the requests are followed
        // from the start (for `tool`, and a response's method), so a
        // breakpoint set during a call knows it.
        let f = classify(body);
        let id = f.id.as_ref().map(|i| i.to_value().to_string());
        let answered = match (f.kind, id) {
            (FrameKind::Request, Some(id)) => {
                st.follow(stream, id, f.method.as_deref().unwrap_or_default());
                None
            }
            (FrameKind::Response | FrameKind::ErrorResponse, Some(id)) => {
                st.requests.remove(&(stream.other(), id))
            }
            _ => None,
        };
        let method = match f.kind {
            FrameKind::Request | FrameKind::Notification => f.method.as_deref(),
            _ => answered.as_deref(),
        };
        let ev = EventRef {
            seq: st.seq,
            t_us,
            dir: stream.dir(),
            kind: f.kind,
            channel: crate::proxy::http_observer::CHANNEL,
            method,
            flags: 0,
            bytes: body,
            progress: None,
        };
        st.seq += 1;
        if !st.b.selects(&ev) {
            return false;
        }
        st.b.hold_with(stream, body, waiter());
        true
    }

    /// The host's message `body` (a POST's): what its exchange waits on
    /// when the breakpoint holds it.
    pub fn host(&self, body: &[u8], t_us: u64) -> Option<oneshot::Receiver<ToServer>> {
        let (tx, rx) = oneshot::channel();
        self.test(Stream::HostToServer, body, t_us, || Waiter::Host(tx))
            .then_some(rx)
    }

    /// A server's message `data` on its way to the host over `to` (`block`
    /// its SSE event, `None` for a JSON body): `true` when it is held.
    pub fn server(&self, data: &[u8], t_us: u64, to: &HostStream, block: Option<&[u8]>) -> bool {
        self.test(Stream::ServerToHost, data, t_us, || Waiter::Server {
            to: to.clone(),
            block: block.map(<[u8]>::to_vec),
        })
    }

    /// A host request in `session` at `protocol`: where a forged message
    /// to the server goes.
    pub fn seen_host(&self, session: Option<&str>, protocol: Option<&str>) {
        let Some(session) = session else { return };
        let mut st = self.lock();
        if st.session.as_deref() != Some(session) {
            st.session = Some(session.to_string());
        }
        if let Some(p) = protocol {
            st.protocol = Some(p.to_string());
        }
    }

    /// The host session and revision a forged message to the server goes in.
    pub fn host_session(&self) -> (Option<String>, Option<String>) {
        let st = self.lock();
        (st.session.clone(), st.protocol.clone())
    }

    /// A host POST to `target` (its path and query).
    pub fn seen_post(&self, target: &str) {
        let mut st = self.lock();
        if st.post_target.as_deref() != Some(target) {
            st.post_target = Some(target.to_string());
        }
    }

    /// Where a message forged to the server is POSTed: where the host's
    /// last POST went, if it sent one.
    pub fn post_target(&self) -> Option<String> {
        self.lock().post_target.clone()
    }

    /// A request forged to the server, `id` its id (JSON text): its answer
    /// is kept from the host wherever it comes.
    pub fn asked_server(&self, id: String) {
        self.lock().asked.insert(id);
    }

    /// The server answered the forged request `id` (on its own exchange).
    pub fn server_answered(&self, id: &str) {
        self.lock().asked.take(id);
    }

    /// When the server's message `data`, on a stream to the host, answers
    /// a request forged to it (a legacy server answers on its event
    /// stream): the `injected` event keeping it from the host, which never
    /// asked.
    pub fn answer_from_server(&self, data: &[u8]) -> Option<Event> {
        let id = answered_id(data)?;
        if !self.lock().asked.take(&id) {
            return None;
        }
        Some(self.forged_answer(data))
    }

    /// When `body` is the host's answer to a request forged to it: the
    /// `injected` event keeping it from the server (it never asked).
    pub fn answer_to_forged(&self, body: &[u8]) -> Option<Event> {
        let id = answered_id(body)?;
        if !self.lock().forged.take(&id) {
            return None;
        }
        Some(super::injected(
            "forge",
            Stream::HostToServer,
            body,
            None,
            "the host's answer to a forged request, kept from the server".into(),
            self.max_frame,
        ))
    }

    /// An SSE stream to the host opened (`get`: a GET's): its number, to
    /// close it with, when a forged message may go to it.
    pub fn open_stream(&self, get: bool, to: &HostStream) -> Option<u64> {
        let mut st = self.lock();
        if st.ended || st.streams.len() >= MAX_STREAMS {
            return None;
        }
        st.next_stream += 1;
        let n = st.next_stream;
        st.streams.insert(n, (get, to.clone()));
        Some(n)
    }

    pub fn close_stream(&self, n: u64) {
        self.lock().streams.remove(&n);
    }

    /// The response stream `to` ended before the messages held from it
    /// left the hold (the host went, or `--faults` closed it): they can
    /// never reach the host; the controller is told, the trace says so.
    /// `unsent`: releases it was sent but never wrote.
    pub fn stream_gone(&self, to: &HostStream, unsent: Vec<Event>) {
        let mut events: Vec<Event> = unsent.into_iter().map(lost_ev).collect();
        {
            let mut st = self.lock();
            let gone = st.b.take_if(
                |h| matches!(&h.waiter, Waiter::Server { to: t, .. } if t.same_channel(to)),
            );
            for (id, h) in gone {
                events.push(lost(
                    &h,
                    "the host's stream ended while it was held",
                    self.max_frame,
                ));
                st.b.tell(Report::Released {
                    id,
                    how: "gone".into(),
                });
                st.b.tell(Report::Error {
                    message: format!("message {id} will not reach the host: its stream ended"),
                });
            }
        }
        record(&self.trace, crate::proxy::http_observer::CHANNEL, &events);
    }

    /// Messages forged to the host whose stream ended before they were
    /// written: they never reach it. Each is recorded as forged but never
    /// sent (`sent` none, so no party is judged on it), and the controller
    /// is told.
    pub fn forged_gone(&self, forged: Vec<Event>) {
        let n = forged.len();
        let events: Vec<Event> = forged.into_iter().map(never_sent).collect();
        self.lock().b.tell(Report::Error {
            message: format!(
                "{n} forged message{} will not reach the host: its stream ended first",
                if n == 1 { "" } else { "s" }
            ),
        });
        record(&self.trace, crate::proxy::http_observer::CHANNEL, &events);
    }

    /// Wait until the proxy ends.
    pub async fn until_ended(&self) {
        let mut rx = self.ended.subscribe();
        let _ = rx.wait_for(|e| *e).await;
    }

    /// The proxy ends: the breakpoint goes, what is held is never sent
    /// (each recorded as dropped), and whatever waits lets go.
    pub fn end(&self) {
        let events: Vec<Event> = {
            let mut st = self.lock();
            st.ended = true;
            st.b.set(None);
            st.streams.clear();
            st.b.take_all()
                .into_iter()
                .map(|(_, h)| lost(&h, "the proxy ended while it was held", self.max_frame))
                .collect()
        };
        record(&self.trace, crate::proxy::http_observer::CHANNEL, &events);
        self.ended.send_replace(true);
    }

    /// A controller connected.
    pub fn connect(&self, reports: Reports) {
        self.lock().b.connect(reports);
    }

    /// The controller went: the breakpoint is cleared, what is held is
    /// forwarded as it was.
    pub fn left(&self) {
        let mut st = self.lock();
        st.b.disconnect();
        st.b.set(None);
        let mut events = Vec::new();
        for (_, h) in st.b.take_all() {
            let ev = h.released(
                "hold",
                "forwarded when the controller left",
                None,
                self.max_frame,
            );
            events.extend(Self::send_on(h.waiter, ev, None, h.raw));
        }
        drop(st);
        record(&self.trace, crate::proxy::http_observer::CHANNEL, &events);
    }

    /// Tell `waiter` to send its message (`edited`, or `raw` as it was)
    /// after recording `ev`; the event to record in its place when its
    /// exchange has ended (the receiver never got it).
    fn send_on(waiter: Waiter, ev: Event, edited: Option<&[u8]>, raw: Vec<u8>) -> Option<Event> {
        match waiter {
            Waiter::Host(tx) => {
                let body = edited.map_or(raw, <[u8]>::to_vec);
                tx.send(ToServer::Send { event: ev, body })
                    .err()
                    .map(|t| match t {
                        ToServer::Send { event, .. } | ToServer::Drop { event } => lost_ev(event),
                    })
            }
            Waiter::Server { to, block } => {
                let bytes = match (&block, edited) {
                    (Some(b), Some(e)) => with_data(b, e),
                    (Some(b), None) => b.clone(),
                    (None, Some(e)) => e.to_vec(),
                    (None, None) => raw,
                };
                let t = ToHost {
                    event: ev,
                    bytes: Some(bytes.into()),
                    release: true,
                };
                to.try_send(t).err().map(|e| lost_ev(e.into_inner().event))
            }
        }
    }

    /// Carry out `cmd` (all but a forge to the server, which the proxy
    /// sends itself).
    pub fn act(&self, cmd: Command) -> Option<Report> {
        let error = |message: String| Some(Report::Error { message });
        let mut events = Vec::new();
        let report = {
            let mut st = self.lock();
            match cmd {
                Command::Hello { .. } => error("hello is said once".into()),
                Command::Break { filter } => match parse_break(filter) {
                    Ok(f) => {
                        st.b.set(f);
                        Some(Report::Breakpoint {
                            filter: st.b.filter(),
                        })
                    }
                    Err(r) => Some(r),
                },
                Command::Forward { id, message } => {
                    let Some(h) = st.b.take(id) else {
                        return error(format!("no message {id} is held"));
                    };
                    let edited = message.as_deref().map(as_sent);
                    let (action, how, then) = match &edited {
                        Some(_) => ("edit", "edited", "edited and forwarded"),
                        None => ("hold", "forwarded", "forwarded"),
                    };
                    let ev = h.released(action, then, edited.as_deref(), self.max_frame);
                    let stream = h.stream.label();
                    match Self::send_on(h.waiter, ev, edited.as_deref(), h.raw) {
                        None => {
                            st.b.tell(Report::Released {
                                id,
                                how: how.into(),
                            });
                            None
                        }
                        Some(ev) => {
                            events.push(ev);
                            st.b.tell(Report::Released {
                                id,
                                how: "gone".into(),
                            });
                            error(format!(
                                "message {id} not forwarded: its exchange ({stream}) has ended, \
                                 the host went"
                            ))
                        }
                    }
                }
                Command::Drop { id } => {
                    let Some(h) = st.b.take(id) else {
                        return error(format!("no message {id} is held"));
                    };
                    let event = h.released("drop", "dropped", None, self.max_frame);
                    // Its exchange records the drop, or, gone, the proxy.
                    let undelivered = match h.waiter {
                        Waiter::Host(tx) => {
                            tx.send(ToServer::Drop { event }).err().map(|t| match t {
                                ToServer::Send { event, .. } | ToServer::Drop { event } => event,
                            })
                        }
                        Waiter::Server { to, .. } => to
                            .try_send(ToHost {
                                event,
                                bytes: None,
                                release: true,
                            })
                            .err()
                            .map(|e| e.into_inner().event),
                    };
                    events.extend(undelivered);
                    st.b.tell(Report::Released {
                        id,
                        how: "dropped".into(),
                    });
                    None
                }
                Command::Forge {
                    to: Side::Host,
                    message,
                } => Some(self.forge_to_host(&mut st, &message)),
                Command::Forge {
                    to: Side::Server, ..
                } => error("a forge to the server is the proxy's to send".into()),
            }
        };
        record(&self.trace, crate::proxy::http_observer::CHANNEL, &events);
        report
    }

    /// Write `message` as an SSE event on an open stream to the host: a
    /// GET stream if there is one (where a server's own messages go), else
    /// a POST's response stream.
    fn forge_to_host(&self, st: &mut State, message: &str) -> Report {
        let bytes = as_sent(message);
        let event = super::injected(
            "forge",
            Stream::ServerToHost,
            &bytes,
            Some(&bytes),
            "forged at a breakpoint".into(),
            self.max_frame,
        );
        // Forged messages leave room for every release in the queue.
        let open = |(_, tx): &&(bool, HostStream)| !tx.is_closed() && tx.capacity() > MAX_HELD;
        let to = st
            .streams
            .values()
            .filter(|(get, _)| *get)
            .find(open)
            .or_else(|| st.streams.values().find(open))
            .map(|(_, tx)| tx.clone());
        let Some(to) = to else {
            return Report::Error {
                message: "not forged: no stream to the host is open (no GET stream, no POST \
                          response stream)"
                    .into(),
            };
        };
        let f = classify(&bytes);
        let id = (f.kind == FrameKind::Request)
            .then(|| f.id.as_ref().map(|i| i.to_value().to_string()))
            .flatten();
        let t = ToHost {
            event,
            bytes: Some(sse_event(&bytes).into()),
            release: false,
        };
        if to.try_send(t).is_err() {
            return Report::Error {
                message: "not forged: the stream to the host has ended".into(),
            };
        }
        if let Some(id) = id {
            // Its answer stops at the proxy: the server never asked.
            st.forged.insert(id);
        }
        Report::Forged { to: Side::Host }
    }

    /// The `injected` event of a message forged to the server, and the
    /// message as sent.
    pub fn forged_to_server(&self, message: &str) -> (Vec<u8>, Event) {
        let bytes = as_sent(message);
        let ev = super::injected(
            "forge",
            Stream::HostToServer,
            &bytes,
            Some(&bytes),
            "forged at a breakpoint".into(),
            self.max_frame,
        );
        (bytes, ev)
    }

    /// The `injected` event of the server's answer to a forged request,
    /// kept from the host.
    pub fn forged_answer(&self, body: &[u8]) -> Event {
        super::injected(
            "forge",
            Stream::ServerToHost,
            body,
            None,
            "the server's answer to a forged request, kept from the host".into(),
            self.max_frame,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edited_event_keeps_its_other_fields_and_a_forged_one_is_whole() {
        let block = b"id: 7\r\nevent: message\r\ndata: {\"a\":1}\r\n\r\n";
        assert_eq!(
            with_data(block, b"{\"b\":2}"),
            b"id: 7\nevent: message\ndata: {\"b\":2}\n\n"
        );
        assert_eq!(
            sse_event(b"x\ny"),
            b"event: message\ndata: x\ndata: y\n\n".to_vec()
        );
        assert_eq!(as_sent("{ \"a\" : 1 }"), b"{\"a\":1}");
        assert_eq!(as_sent("not json\n"), b"not json\n");
    }

    /// A request that passed before any breakpoint was set is followed: a
    /// breakpoint set during its call selects its response by its tool.
    #[test]
    fn requests_are_followed_before_any_breakpoint() {
        let trace = Trace::new(
            crate::trace::Store::default(),
            crate::trace::ManualClock::new(),
        );
        let holds = Holds::new(trace, 1 << 20);
        let request = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}"#;
        assert!(holds.host(request, 0).is_none());
        let report = holds.act(Command::Break {
            filter: Some("tool == echo && response".into()),
        });
        assert!(!matches!(report, Some(Report::Error { .. })), "{report:?}");
        let (to, _rx) = host_stream();
        let other = br#"{"jsonrpc":"2.0","id":8,"result":{}}"#;
        assert!(!holds.server(other, 1, &to, None), "no call of echo");
        let response = br#"{"jsonrpc":"2.0","id":7,"result":{}}"#;
        assert!(holds.server(response, 2, &to, None), "echo's response");
    }
}
