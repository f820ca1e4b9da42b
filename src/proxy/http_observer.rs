//! The HTTP proxy's observer: what the forwarding path hands over for each
//! exchange (the request body, the response's head, its chunks, its end)
//! and the task that turns it into the trace, beside the forwarding path.
//!
//! Everything held for it is bounded, and forwarding never waits for it:
//! every hand-over is a `try_`. What a bound refuses is counted (the proxy
//! lists the counts in `sessions --json` and says them on stderr at its
//! end) and said in the trace, in order, as `observer-behind`:
//! - bytes waiting in the queue or held in unfinished bodies, at most
//!   `max_held` (a quarter of `--max-store`, as for stdio): a piece that
//!   does not fit is dropped, and the exchange's next piece tells the gap
//!   (the SSE event or JSON body it cut through is not stored);
//! - exchanges followed at once, at most `MAX_OPEN`: each keeps room in the
//!   queue for its head and its end, so neither is ever dropped and the
//!   observer's state for it always goes. One beyond is forwarded but not
//!   observed; the next time the observer runs it says how many and their
//!   bytes;
//! - pieces in the queue, at most `QUEUE_PIECES`.

use super::resumed::{Resumptions, Seen};
use crate::event::Event;
use crate::trace::{Dir, Trace};
use bytes::Bytes;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::mpsc::{self, OwnedPermit};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore, oneshot};

/// Pieces waiting for the observer, at most.
const QUEUE_PIECES: usize = 16_384;
/// Exchanges observed at once, at most (a host rarely has more than a few
/// requests open; each holds two places in the queue and a body's state).
pub const MAX_OPEN: usize = 1024;
/// A JSON response body is recorded up to this size (the host gets all of it).
const MAX_JSON_BODY: usize = 64 << 20;
/// The trace channel of what concerns no one exchange.
pub const CHANNEL: &str = "http";

/// The two directions of an exchange, as `observer-behind` names them.
const OUT: usize = 0;
const IN: usize = 1;
const LABELS: [&str; 2] = ["host→server", "server→host"];

/// What the observer could not keep.
#[derive(Default)]
pub struct Lost {
    /// Bytes forwarded but missing from the trace.
    bytes: AtomicU64,
    /// Exchanges forwarded but not observed at all.
    exchanges: AtomicU64,
    /// Of those, what the trace has not been told yet: exchanges, and
    /// their bytes per direction.
    untold: [AtomicU64; 3],
    /// Wakes the observer to tell them.
    wake: Notify,
}

impl Lost {
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }
    pub fn exchanges(&self) -> u64 {
        self.exchanges.load(Ordering::Relaxed)
    }
}

/// What an `injected` event is counted as while queued.
const INJECTED_BYTES: usize = 512;

/// One piece for the observer; `gap`: bytes of the exchange dropped since
/// its previous piece, per direction.
enum Obs {
    /// The exchange began: its `host-request` event, recorded before anything of it.
    Start {
        id: u64,
        ch: Arc<str>,
        ev: Event,
    },
    Request {
        id: u64,
        ch: Arc<str>,
        body: Bytes,
    },
    /// A change `--faults` made (`injected`), where it happened.
    Injected {
        id: u64,
        ch: Arc<str>,
        ev: Event,
    },
    /// The response's head (or why there is none); `sse`: its body is an
    /// event stream.
    Head {
        id: u64,
        ch: Arc<str>,
        ev: Event,
        sse: bool,
        gap: [u64; 2],
    },
    Chunk {
        id: u64,
        ch: Arc<str>,
        bytes: Bytes,
        gap: [u64; 2],
        gap_at_event: bool,
    },
    End {
        id: u64,
        ch: Arc<str>,
        gap: [u64; 2],
        error: Option<String>,
        /// The host closed the response stream of this request before the
        /// server ended it: at 2026-07-28 that is how a host cancels.
        cancelled: Option<serde_json::Value>,
        /// Released once the observer has forgotten the exchange.
        _open: OwnedSemaphorePermit,
    },
    /// Tell what is untold, then answer: everything queued before is in
    /// the trace.
    Sync(oneshot::Sender<()>),
}

/// The forwarding side's handle.
pub struct Observer {
    tx: mpsc::Sender<Obs>,
    open: Arc<Semaphore>,
    /// Bytes queued or held in unfinished bodies.
    held: Arc<AtomicUsize>,
    max_held: usize,
    pub lost: Arc<Lost>,
    next_id: AtomicU64,
    /// The proxy is stopping: streams it drops now were not closed by a host.
    closing: std::sync::atomic::AtomicBool,
}

impl Observer {
    /// Start the observer task, recording into `trace`.
    pub fn start(trace: Trace, max_held: usize) -> Observer {
        Observer::with_limits(trace, max_held, QUEUE_PIECES, MAX_OPEN)
    }

    fn with_limits(trace: Trace, max_held: usize, pieces: usize, open: usize) -> Observer {
        let (tx, rx) = mpsc::channel(pieces);
        let held = Arc::new(AtomicUsize::new(0));
        let lost = Arc::new(Lost::default());
        tokio::spawn(observe(trace, rx, held.clone(), lost.clone()));
        Observer {
            tx,
            open: Arc::new(Semaphore::new(open)),
            held,
            max_held,
            lost,
            next_id: AtomicU64::new(0),
            closing: Default::default(),
        }
    }

    /// An exchange begins, on trace channel `ch`, with its `host-request`
    /// event `start`: observed if there is room for it (it is then sure to
    /// have its start, head and end recorded).
    pub fn exchange(self: &Arc<Self>, ch: &str, start: Event) -> Exchange {
        let ch: Arc<str> = ch.into();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let room = self.open.clone().try_acquire_owned().ok().and_then(|open| {
            let first = self.tx.clone().try_reserve_owned().ok()?;
            let head = self.tx.clone().try_reserve_owned().ok()?;
            let end = self.tx.clone().try_reserve_owned().ok()?;
            first.send(Obs::Start {
                id,
                ch: ch.clone(),
                ev: start,
            });
            Some((head, end, open))
        });
        if room.is_none() {
            self.lost.exchanges.fetch_add(1, Ordering::Relaxed);
            self.lost.untold[2].fetch_add(1, Ordering::Relaxed);
            self.lost.wake.notify_one();
        }
        let observed = room.is_some();
        let (head, end) = match room {
            Some((head, end, open)) => (Some(head), Some((end, open))),
            None => (None, None),
        };
        Exchange {
            obs: self.clone(),
            id,
            ch,
            head,
            end,
            observed,
            gap: [0; 2],
            gap_at_event: false,
            error: None,
            cancels_on_close: None,
            ended: false,
        }
    }

    /// The proxy stops: what it drops from now on, the host did not close.
    pub fn close(&self) {
        self.closing.store(true, Ordering::Relaxed);
    }

    /// Wait until everything handed over so far is in the trace.
    pub async fn sync(&self) {
        let (tx, rx) = oneshot::channel();
        if self.tx.send(Obs::Sync(tx)).await.is_ok() {
            let _ = rx.await;
        }
    }

    /// Queue `o` carrying `n` bytes if they fit; false when dropped.
    fn offer(&self, o: Obs, n: usize) -> bool {
        if self.held.load(Ordering::Relaxed) + n > self.max_held {
            return false;
        }
        self.held.fetch_add(n, Ordering::Relaxed);
        match self.tx.try_send(o) {
            Ok(()) => true,
            Err(TrySendError::Full(_) | TrySendError::Closed(_)) => {
                self.held.fetch_sub(n, Ordering::Relaxed);
                false
            }
        }
    }
}

/// One exchange as the forwarding path hands it over. Dropped when the
/// exchange is over (its body ended, or the host went away): the end is
/// then recorded.
pub struct Exchange {
    obs: Arc<Observer>,
    id: u64,
    ch: Arc<str>,
    head: Option<OwnedPermit<Obs>>,
    end: Option<(OwnedPermit<Obs>, OwnedSemaphorePermit)>,
    /// Not observed: what it forwards is counted, nothing more.
    observed: bool,
    gap: [u64; 2],
    /// The bytes dropped last ended an SSE event.
    gap_at_event: bool,
    /// The response body failed midway.
    error: Option<String>,
    /// The id of the request whose response stream this is, when closing
    /// it cancels the request (2026-07-28).
    cancels_on_close: Option<serde_json::Value>,
    /// The server's body ended (or failed): a close after it cancels nothing.
    ended: bool,
}

impl Exchange {
    /// The request body, about to go to the server.
    pub fn request(&mut self, body: &Bytes) {
        let n = body.len();
        let o = Obs::Request {
            id: self.id,
            ch: self.ch.clone(),
            body: body.clone(),
        };
        if !(self.observed && self.obs.offer(o, n)) {
            self.lose(OUT, body);
        }
    }

    /// The response's head arrived (`ev` is its `http` event), or the
    /// request failed (`http-error`); `sse`: the body is an event stream.
    pub fn head(&mut self, ev: Event, sse: bool) {
        if let Some(permit) = self.head.take() {
            permit.send(Obs::Head {
                id: self.id,
                ch: self.ch.clone(),
                ev,
                sse,
                gap: std::mem::take(&mut self.gap),
            });
        }
    }

    /// A chunk of the response body, about to go to the host.
    pub fn chunk(&mut self, bytes: &Bytes) {
        let o = Obs::Chunk {
            id: self.id,
            ch: self.ch.clone(),
            bytes: bytes.clone(),
            gap: self.gap,
            gap_at_event: self.gap_at_event,
        };
        if self.observed && self.obs.offer(o, bytes.len()) {
            self.gap = [0; 2];
        } else {
            self.lose(IN, bytes);
        }
    }

    /// A change `--faults` made to this exchange, recorded in order with
    /// its frames (counted as lost when the observer has no room).
    pub fn injected(&mut self, ev: Event) {
        let o = Obs::Injected {
            id: self.id,
            ch: self.ch.clone(),
            ev,
        };
        if !(self.observed && self.obs.offer(o, INJECTED_BYTES)) {
            self.obs.lost.untold[2].fetch_add(1, Ordering::Relaxed);
            self.obs.lost.wake.notify_one();
        }
    }

    /// The response body failed midway.
    pub fn error(&mut self, error: String) {
        self.error = Some(error);
        self.ended = true;
    }

    /// The server ended the response body.
    pub fn ended(&mut self) {
        self.ended = true;
    }

    /// `--faults` closed the response stream: its end is no host's cancel.
    pub fn closed_by_proxy(&mut self) {
        self.ended = true;
    }

    /// Closing this exchange's response stream before the server ends it
    /// cancels request `id` (the 2026-07-28 era over HTTP).
    pub fn cancels_on_close(&mut self, id: serde_json::Value) {
        self.cancels_on_close = Some(id);
    }

    fn lose(&mut self, dir: usize, bytes: &[u8]) {
        let n = bytes.len() as u64;
        if n == 0 {
            return;
        }
        self.obs.lost.bytes.fetch_add(n, Ordering::Relaxed);
        if self.observed {
            self.gap[dir] += n;
            if dir == IN {
                self.gap_at_event = [&b"\n\n"[..], b"\r\r", b"\r\n\r\n"]
                    .iter()
                    .any(|end| bytes.ends_with(end));
            }
        } else {
            self.obs.lost.untold[dir].fetch_add(n, Ordering::Relaxed);
            self.obs.lost.wake.notify_one();
        }
    }
}

impl Drop for Exchange {
    fn drop(&mut self) {
        if let Some((permit, open)) = self.end.take() {
            // Only a stream that reached the host can be closed by it.
            let by_host = !self.obs.closing.load(Ordering::Relaxed);
            let cancelled = (by_host && !self.ended && self.head.is_none())
                .then(|| self.cancels_on_close.take())
                .flatten();
            permit.send(Obs::End {
                id: self.id,
                ch: self.ch.clone(),
                gap: self.gap,
                error: self.error.take(),
                cancelled,
                _open: open,
            });
        }
    }
}

/// A response body being observed: an SSE parser, or a JSON body so far
/// (`None` once bytes of it were lost: it is not stored).
enum Body {
    Sse(crate::transport::sse::SseParser),
    Json { body: Option<Vec<u8>>, total: u64 },
}

impl Body {
    fn held(&self) -> usize {
        match self {
            Body::Sse(p) => p.held(),
            Body::Json { body, .. } => body.as_ref().map_or(0, Vec::len),
        }
    }
}

/// The observer task: records what `rx` brings, in its order. SSE events'
/// data become frames as they complete; a JSON body is one frame at its end.
async fn observe(
    trace: Trace,
    mut rx: mpsc::Receiver<Obs>,
    held: Arc<AtomicUsize>,
    lost: Arc<Lost>,
) {
    // Exchanges with a body in progress: one per place `MAX_OPEN` allows.
    let mut bodies: HashMap<u64, Body> = HashMap::new();
    // Streams the host resumes: on the channel they continue.
    let mut resumed = Resumptions::default();
    loop {
        let o = tokio::select! {
            biased;
            o = rx.recv() => o,
            () = lost.wake.notified() => {
                tell_untold(&trace, &lost);
                continue;
            }
        };
        let Some(o) = o else { break };
        match o {
            Obs::Start { id, ch, ev } => {
                let (session, last) = match &ev {
                    Event::HostRequest {
                        session,
                        last_event_id,
                        ..
                    } => (session.as_deref(), last_event_id.as_deref()),
                    _ => (None, None),
                };
                let start = resumed.start(id, ch, session, last);
                trace.append(|s, now| {
                    if let (Some(attempt), Some(last)) = (start.resume, last) {
                        // What the host waited before resuming is not seen here.
                        let resume = Event::Resume {
                            last_event_id: last.to_string(),
                            after_ms: 0,
                            attempt,
                        };
                        s.append_event(&start.ch, now, &resume);
                    }
                    s.append_event(&start.ch, now, &ev);
                });
            }
            Obs::Injected { id, ch, ev } => {
                let ch = resumed.channel(id).unwrap_or(ch);
                trace.append(|s, now| {
                    s.append_event(&ch, now, &ev);
                });
                held.fetch_sub(INJECTED_BYTES, Ordering::Relaxed);
            }
            Obs::Request { id, ch, body } => {
                let ch = resumed.channel(id).unwrap_or(ch);
                trace.append(|s, now| {
                    s.append_frame(Dir::Out, &ch, now, body.trim_ascii(), &mut Vec::new());
                });
                held.fetch_sub(body.len(), Ordering::Relaxed);
            }
            Obs::Head {
                id,
                ch,
                ev,
                sse,
                gap,
            } => {
                let ch = resumed.channel(id).unwrap_or(ch);
                bodies.insert(
                    id,
                    if sse {
                        Body::Sse(crate::transport::sse::SseParser::new())
                    } else {
                        Body::Json {
                            body: Some(Vec::new()),
                            total: 0,
                        }
                    },
                );
                trace.append(|s, now| {
                    tell_gap(s, &ch, now, gap);
                    s.append_event(&ch, now, &ev);
                });
            }
            Obs::Chunk {
                id,
                ch,
                bytes,
                gap,
                gap_at_event,
            } => {
                let Some(body) = bodies.get_mut(&id) else {
                    held.fetch_sub(bytes.len(), Ordering::Relaxed);
                    continue;
                };
                let ch = resumed.channel(id).unwrap_or(ch);
                let before = body.held();
                let frames = take_chunk(body, &bytes, gap[IN] > 0, gap_at_event);
                // The chunk leaves the queue; what its body keeps of it stays held.
                let after = body.held();
                held.fetch_add(after, Ordering::Relaxed);
                held.fetch_sub(before + bytes.len(), Ordering::Relaxed);
                if gap != [0; 2] || !frames.is_empty() {
                    trace.append(|s, now| {
                        tell_gap(s, &ch, now, gap);
                        for f in &frames {
                            match f {
                                Piece::Frame { data, event_id } => {
                                    let eid = event_id.as_deref();
                                    match resumed.seen(id, eid, Some(data)) {
                                        Seen::Replay(of) => {
                                            let id = eid.unwrap_or_default().to_string();
                                            s.append_event(&ch, now, &Event::SseReplay { id, of });
                                        }
                                        Seen::New => {
                                            let seq = s.append_frame(
                                                Dir::In,
                                                &ch,
                                                now,
                                                data.as_bytes(),
                                                &mut Vec::new(),
                                            );
                                            if let Some(eid) = eid {
                                                resumed.recorded(id, eid, Some((seq, data)));
                                            }
                                        }
                                    }
                                }
                                Piece::Priming(eid) => resumed.recorded(id, eid, None),
                                // As the client records it: a meta event, not a frame.
                                Piece::Endpoint(url) => {
                                    let url = url.trim().to_string();
                                    s.append_event(&ch, now, &Event::Endpoint { url });
                                }
                            }
                        }
                    });
                }
            }
            Obs::End {
                id,
                ch,
                gap,
                error,
                cancelled,
                ..
            } => {
                let ch = resumed.channel(id).unwrap_or(ch);
                resumed.end(id);
                let body = bodies.remove(&id);
                if let Some(b) = &body {
                    held.fetch_sub(b.held(), Ordering::Relaxed);
                }
                trace.append(|s, now| {
                    tell_gap(s, &ch, now, gap);
                    if let Some(Body::Json {
                        body: Some(body),
                        total,
                    }) = &body
                        && gap[IN] == 0
                        && !body.is_empty()
                    {
                        if *total > body.len() as u64 {
                            let seq = s.append_cut(Dir::In, &ch, now, body);
                            s.append_event(
                                &ch,
                                now,
                                &Event::oversized(body.len(), *total, Some(seq)),
                            );
                        } else {
                            s.append_frame(Dir::In, &ch, now, body.trim_ascii(), &mut Vec::new());
                        }
                    }
                    if let Some(error) = error {
                        s.append_event(&ch, now, &Event::StreamError { error });
                    }
                    if let Some(request) = cancelled {
                        let ev = Event::Cancel {
                            request,
                            how: "closed the response stream".into(),
                            reason: "the host closed the request's response stream before the server ended it".into(),
                        };
                        s.append_event(&ch, now, &ev);
                    }
                });
            }
            Obs::Sync(done) => {
                tell_untold(&trace, &lost);
                let _ = done.send(());
            }
        }
    }
}

/// What an SSE event completed by a chunk carries.
enum Piece {
    /// A message, with the event's id if it had one.
    Frame {
        data: String,
        event_id: Option<String>,
    },
    /// An event with an id and no data: a point to resume from.
    Priming(String),
    /// A legacy server's `endpoint` event: where the host is to POST.
    Endpoint(String),
}

/// Feed a chunk to its body; the SSE events it completed.
fn take_chunk(body: &mut Body, bytes: &[u8], after_gap: bool, gap_at_event: bool) -> Vec<Piece> {
    match body {
        Body::Sse(parser) => {
            if after_gap {
                parser.lose(gap_at_event);
            }
            // Priming events (an id, no data) carry no message.
            parser
                .feed(bytes)
                .into_iter()
                .filter_map(|e| {
                    let Some(data) = e.data.filter(|d| !d.is_empty()) else {
                        return e.id.map(Piece::Priming);
                    };
                    Some(if e.event == "endpoint" {
                        Piece::Endpoint(data)
                    } else {
                        Piece::Frame {
                            data,
                            event_id: e.id,
                        }
                    })
                })
                .collect()
        }
        Body::Json { body, total } => {
            if after_gap {
                *body = None;
            }
            *total += bytes.len() as u64;
            if let Some(body) = body {
                let room = MAX_JSON_BODY.saturating_sub(body.len());
                body.extend_from_slice(&bytes[..bytes.len().min(room)]);
            }
            Vec::new()
        }
    }
}

fn tell_gap(s: &mut crate::trace::Store, ch: &str, now: u64, gap: [u64; 2]) {
    for (dir, bytes) in gap.into_iter().enumerate() {
        if bytes > 0 {
            let ev = Event::ObserverBehind {
                stream: LABELS[dir].into(),
                bytes,
                exchanges: 0,
            };
            s.append_event(ch, now, &ev);
        }
    }
}

/// Say what exchanges were not observed since last said, and their bytes.
fn tell_untold(trace: &Trace, lost: &Lost) {
    let exchanges = lost.untold[2].swap(0, Ordering::Relaxed);
    let bytes = [OUT, IN].map(|d| lost.untold[d].swap(0, Ordering::Relaxed));
    if exchanges == 0 && bytes == [0; 2] {
        return;
    }
    trace.append(|s, now| {
        let mut exchanges = exchanges;
        for dir in [OUT, IN] {
            // The count of exchanges goes with the first event said.
            if bytes[dir] > 0 || (dir == IN && exchanges > 0) {
                let ev = Event::ObserverBehind {
                    stream: LABELS[dir].into(),
                    bytes: bytes[dir],
                    exchanges: std::mem::take(&mut exchanges),
                };
                s.append_event(CHANNEL, now, &ev);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trace() -> Trace {
        Trace::new(
            crate::trace::Store::default(),
            crate::trace::ManualClock::new(),
        )
    }

    /// `(channel, text)` of each recorded event but the exchanges' starts
    /// (`starts_come_first…` reads those).
    fn recorded(trace: &Trace) -> Vec<(String, String)> {
        let s = trace.read();
        s.range(0, s.next_seq())
            .map(|e| (e.channel.to_string(), e.text().into_owned()))
            .filter(|(_, t)| !t.contains("\"event\":\"host-request\""))
            .collect()
    }

    fn start() -> Event {
        Event::HostRequest {
            method: "POST".into(),
            session: Some("s1".into()),
            target: None,
            protocol: None,
            last_event_id: None,
        }
    }

    fn http(status: u16) -> Event {
        Event::Http {
            method: "POST".into(),
            status: crate::event::Status::Code(status),
            content_type: None,
            session: None,
            ms: 0,
            challenge: None,
        }
    }

    fn event(n: usize) -> Bytes {
        Bytes::from(format!("data: {{\"n\":{n:02}}}\n\n"))
    }

    // The observer task runs only when the test awaits (a current-thread
    // runtime): what is handed over before waits in the queue, as behind a
    // busy observer.

    #[tokio::test]
    async fn bytes_beyond_the_bound_are_dropped_counted_and_told_in_order() {
        let t = trace();
        let chunk = event(0).len();
        let obs = Arc::new(Observer::with_limits(t.clone(), 3 * chunk, 64, 8));
        let mut ex = obs.exchange("post:1", start());
        ex.head(http(200), true);
        for n in 0..10 {
            ex.chunk(&event(n));
        }
        // Three fit; seven are dropped, counted, and nothing waits.
        assert_eq!(obs.lost.bytes(), 7 * chunk as u64);
        assert_eq!(obs.held.load(Ordering::Relaxed), 3 * chunk);
        obs.sync().await;
        assert_eq!(obs.held.load(Ordering::Relaxed), 0);
        // Room again: the next chunk goes through and tells the gap first.
        ex.chunk(&event(10));
        drop(ex);
        obs.sync().await;
        let got = recorded(&t);
        let texts: Vec<&str> = got.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(texts.len(), 6, "{texts:?}");
        assert!(texts[0].contains("\"event\":\"http\""));
        assert_eq!(&texts[1..4], ["{\"n\":00}", "{\"n\":01}", "{\"n\":02}"]);
        assert!(
            texts[4].contains("observer-behind")
                && texts[4].contains("server→host")
                && texts[4].contains(&format!("\"bytes\":{}", 7 * chunk)),
            "{}",
            texts[4]
        );
        // The gap ended an event: the next one is whole.
        assert_eq!(texts[5], "{\"n\":10}");
        assert!(got.iter().all(|(ch, _)| ch == "post:1"));
        assert_eq!(obs.held.load(Ordering::Relaxed), 0);
        assert_eq!(obs.open.available_permits(), 8, "the exchange is forgotten");
    }

    #[tokio::test]
    async fn a_full_queue_never_loses_a_head_or_an_end() {
        let t = trace();
        // Five places: the exchange keeps three, its chunks get the other two.
        let obs = Arc::new(Observer::with_limits(t.clone(), 1 << 20, 5, 8));
        let mut ex = obs.exchange("get", start());
        ex.head(http(200), true);
        for n in 0..5 {
            ex.chunk(&event(n));
        }
        assert_eq!(obs.lost.bytes(), 3 * event(0).len() as u64);
        drop(ex);
        obs.sync().await;
        let texts: Vec<String> = recorded(&t).into_iter().map(|(_, t)| t).collect();
        assert_eq!(texts.len(), 4, "{texts:?}");
        assert!(texts[0].contains("\"event\":\"http\""), "{texts:?}");
        assert_eq!(&texts[1..3], ["{\"n\":00}", "{\"n\":01}"]);
        let lost = format!("\"bytes\":{}", 3 * event(0).len());
        assert!(texts[3].contains("observer-behind") && texts[3].contains(&lost));
        assert_eq!(obs.held.load(Ordering::Relaxed), 0);
        assert_eq!(obs.open.available_permits(), 8);
    }

    #[tokio::test]
    async fn a_body_held_counts_against_the_bound_and_one_missing_a_piece_is_not_stored() {
        let t = trace();
        let obs = Arc::new(Observer::with_limits(t.clone(), 6, 64, 8));
        let mut ex = obs.exchange("post:1", start());
        ex.head(http(200), false);
        ex.chunk(&Bytes::from_static(b"{\"a\":"));
        ex.chunk(&Bytes::from_static(b"1}"));
        obs.sync().await;
        // The body so far is held until its end: still 5 of the 6 bytes.
        assert_eq!(obs.held.load(Ordering::Relaxed), 5);
        ex.chunk(&Bytes::from_static(b"}"));
        drop(ex);
        obs.sync().await;
        let texts: Vec<String> = recorded(&t).into_iter().map(|(_, t)| t).collect();
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(texts[1].contains("observer-behind") && texts[1].contains("\"bytes\":2"));
        assert_eq!(obs.lost.bytes(), 2);
        assert_eq!(obs.held.load(Ordering::Relaxed), 0);
        // A whole body is stored.
        let mut ex = obs.exchange("post:2", start());
        ex.head(http(200), false);
        ex.chunk(&Bytes::from_static(b"{\"b\":"));
        obs.sync().await;
        ex.chunk(&Bytes::from_static(b"2}"));
        assert_eq!(obs.lost.bytes(), 4, "5 held + 2 > 6");
        drop(ex);
        obs.sync().await;
        let mut ex = obs.exchange("post:3", start());
        ex.head(http(200), false);
        ex.chunk(&Bytes::from_static(b"{}"));
        drop(ex);
        obs.sync().await;
        let got = recorded(&t);
        assert!(got.contains(&("post:3".into(), "{}".into())), "{got:?}");
        assert!(!got.iter().any(|(_, t)| t.contains("\"b\"")), "{got:?}");
    }

    #[tokio::test]
    async fn exchanges_beyond_the_bound_are_forwarded_unobserved_and_counted() {
        let t = trace();
        let obs = Arc::new(Observer::with_limits(t.clone(), 1 << 20, 64, 2));
        let mut a = obs.exchange("post:1", start());
        let b = obs.exchange("post:2", start());
        let mut c = obs.exchange("post:3", start());
        c.request(&Bytes::from_static(b"{\"jsonrpc\":\"2.0\",\"id\":3}"));
        c.head(http(200), false);
        c.chunk(&Bytes::from_static(b"{}"));
        drop(c);
        assert_eq!(obs.lost.exchanges(), 1);
        assert_eq!(obs.lost.bytes(), 26);
        a.head(http(202), false);
        drop((a, b));
        obs.sync().await;
        // Both places are free again.
        let mut d = obs.exchange("post:4", start());
        d.head(http(200), false);
        d.chunk(&Bytes::from_static(b"{\"id\":4}"));
        drop(d);
        obs.sync().await;
        assert_eq!(obs.lost.exchanges(), 1);
        let got = recorded(&t);
        let behind: Vec<&(String, String)> = got
            .iter()
            .filter(|(_, t)| t.contains("observer-behind"))
            .collect();
        assert_eq!(behind.len(), 2, "{got:?}");
        assert_eq!(behind[0].0, CHANNEL);
        assert!(behind[0].1.contains("host→server") && behind[0].1.contains("\"bytes\":24"));
        assert!(behind[0].1.contains("\"exchanges\":1"), "{}", behind[0].1);
        assert!(behind[1].1.contains("server→host") && behind[1].1.contains("\"bytes\":2"));
        assert!(!behind[1].1.contains("exchanges"), "said once");
        assert!(!got.iter().any(|(ch, _)| ch == "post:3"), "{got:?}");
        assert!(
            got.contains(&("post:4".into(), "{\"id\":4}".into())),
            "{got:?}"
        );
    }

    #[tokio::test]
    async fn an_exchange_starts_with_its_host_request_and_a_close_cancels_only_when_asked() {
        let t = trace();
        let obs = Arc::new(Observer::with_limits(t.clone(), 1 << 20, 64, 8));
        // Closed by the host before the server ended it: a cancel.
        let mut ex = obs.exchange("post:1", start());
        ex.cancels_on_close(serde_json::json!(7));
        ex.head(http(200), true);
        ex.chunk(&event(0));
        drop(ex);
        // Ended by the server first: no cancel.
        let mut ex = obs.exchange("post:2", start());
        ex.cancels_on_close(serde_json::json!(8));
        ex.head(http(200), true);
        ex.ended();
        drop(ex);
        obs.sync().await;
        let s = t.read();
        let all: Vec<(String, String)> = s
            .range(0, s.next_seq())
            .map(|e| (e.channel.to_string(), e.text().into_owned()))
            .collect();
        assert!(all[0].1.contains("\"event\":\"host-request\"") && all[0].1.contains("s1"));
        let cancels: Vec<&(String, String)> = all
            .iter()
            .filter(|(_, t)| t.contains("\"event\":\"cancel\""))
            .collect();
        assert_eq!(cancels.len(), 1, "{all:?}");
        assert_eq!(cancels[0].0, "post:1");
        assert!(cancels[0].1.contains("\"request\":7"), "{}", cancels[0].1);
    }
}
