//! A session's HTTP exchanges: one row per exchange (a POST, GET or
//! DELETE and its response, or a request of the authorization flow), built
//! from the transport's `meta` events and the frames on each exchange's
//! channel, and where the authorization stands. The TUI's Network pane
//! lists the rows; HAR export writes the same exchanges as `Pair`s, a
//! request and its answer with where their events start and stop on the
//! channel (the bodies stay in the store). It only ever looks at events it has not seen (bounded per
//! `sync`, so a live view takes it in over frames), and it keeps, per HTTP
//! channel, the seqs of that channel's events so the timeline can be
//! narrowed to one stream without scanning the store again. Texts are kept
//! as shown: one line, bounded (a server chooses them).
//!
//! Over HTTP every POST is its own channel (`post:N`, `listen:N` for a
//! `subscriptions/listen` stream), the standalone GET stream is `get`, the
//! legacy SSE stream `sse`, and session-level events use `http`. A stdio
//! session only has `stdio`, so it never produces a row.

use crate::event::{Event, Status};
use crate::protocol::IdKey;
use crate::protocol::frame::FrameKind;
use crate::protocol::sanitize::one_line_max;
use crate::trace::store::flags;
use crate::trace::{Dir, EventRef, Store};
use serde_json::Value;
use std::collections::HashMap;

/// The channel every stdio event is on: nothing to show for it here.
const STDIO: &str = "stdio";

/// Characters of a server's text kept (an error, a stream's failure).
const TEXT_CHARS: usize = 400;

/// `s` on one line, at most `max_chars`.
fn safe(s: &str, max_chars: usize) -> String {
    one_line_max(s, max_chars)
}

fn safe_row(s: &str) -> String {
    safe(s, TEXT_CHARS)
}

/// What came back for an exchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpStatus {
    Code(u16),
    /// No HTTP status: the request failed (connection refused, timed out…).
    Error(String),
}

impl HttpStatus {
    pub fn label(&self) -> String {
        match self {
            HttpStatus::Code(c) => c.to_string(),
            HttpStatus::Error(_) => "ERR".into(),
        }
    }
}

/// How a response stream ended, as far as the transport said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamEnd {
    /// The server closed it.
    Ended,
    /// mcpscope closed it once the response had arrived (a resumed stream).
    Released,
    /// mcpscope closed it to cancel the request (2026-07-28 over HTTP).
    Cancelled,
}

/// Where the server's authorization stands (the latest `auth` event).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthState {
    /// authorizing, authorized, expired, refreshed, refresh-failed, failed, …
    pub state: String,
    pub detail: Option<String>,
}

impl AuthState {
    /// The header's words: `authorizing…`, `authorized as CLIENT`,
    /// `token expired`, `authorization failed`.
    pub fn label(&self) -> String {
        let client = || {
            self.detail
                .as_deref()
                .and_then(|d| d.strip_prefix("client "))
                .and_then(|d| d.split([' ', ',']).next())
                .unwrap_or("")
                .to_string()
        };
        match self.state.as_str() {
            "authorizing" | "client-rejected" => "authorizing…".into(),
            // The URL is in the timeline (and the browser, if it opened).
            "browser" => "authorizing in the browser…".into(),
            "authorized" | "refreshed" => format!("authorized as {}", client()),
            "expired" => "token expired".into(),
            "refresh-failed" => "token refresh failed".into(),
            "failed" => "authorization failed".into(),
            other => other.to_string(),
        }
    }
}

/// One HTTP exchange and what happened on its response stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    /// The `http` (or `http-error`) meta event.
    pub seq: u64,
    pub t_us: u64,
    pub channel: String,
    /// POST, GET or DELETE.
    pub method: String,
    pub status: HttpStatus,
    /// Shortened: `sse`, `json`, or the media type without parameters.
    pub content_type: String,
    /// Time to the response headers.
    pub ms: Option<u64>,
    /// The session the exchange belongs to: the response's `Mcp-Session-Id`
    /// or, when it echoes none, the one in use.
    pub session: Option<String>,
    /// The JSON-RPC message that opened the channel (`tools/call upload_file #3`).
    pub rpc: String,
    /// Frames received on this response (batch elements not counted twice).
    pub frames: u64,
    /// SSE priming events (an id with empty data).
    pub priming: u32,
    /// The stream was resumed this many times (on the exchange that opened it).
    pub resumed: u32,
    /// This GET resumes a POST's stream: which attempt.
    pub resume_attempt: Option<u32>,
    pub reconnects: u32,
    /// The stream broke mid-event.
    pub cut: bool,
    pub end: Option<StreamEnd>,
    pub failed: Option<String>,
    /// 404 for a known session: mcpscope re-initializes.
    pub expired: bool,
    /// Legacy SSE: the POST endpoint the stream announced.
    pub endpoint: Option<String>,
    /// Legacy SSE detection from this exchange's answer.
    pub detected: Option<String>,
}

impl Exchange {
    pub fn is_stream(&self) -> bool {
        self.content_type == "sse"
    }

    /// The stream events as short words, in a fixed order.
    pub fn stream_events(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(d) = &self.detected {
            out.push(format!("→ {d}"));
        }
        if let Some(e) = &self.endpoint {
            out.push(format!("endpoint {e}"));
        }
        if let Some(a) = self.resume_attempt {
            out.push(format!("resume #{a}"));
        }
        if self.priming > 0 {
            out.push(if self.priming == 1 {
                "primed".into()
            } else {
                format!("primed ×{}", self.priming)
            });
        }
        if self.resumed > 0 {
            out.push(format!("resumed ×{}", self.resumed));
        }
        if self.reconnects > 0 {
            out.push(format!("reconnect ×{}", self.reconnects));
        }
        if self.cut {
            out.push("cut".into());
        }
        if self.expired {
            out.push("session expired".into());
        }
        match self.end {
            Some(StreamEnd::Ended) => out.push("ended".into()),
            Some(StreamEnd::Released) => out.push("released".into()),
            Some(StreamEnd::Cancelled) => out.push("cancelled (stream closed)".into()),
            None if self.is_stream() && self.failed.is_none() => out.push("open".into()),
            None => {}
        }
        if let Some(f) = &self.failed {
            out.push(format!("failed: {f}"));
        }
        out
    }
}

/// What is known about one HTTP channel.
#[derive(Debug, Default)]
struct Chan {
    /// The first message mcpscope sent on it.
    rpc: Option<String>,
    /// The exchange that opened it (the POST) and the latest one (a resume GET).
    first: Option<usize>,
    last: Option<usize>,
    /// A `resume` was announced: the next GET on the channel is attempt N.
    resume: Option<u32>,
}

#[derive(Debug, Default)]
pub struct Exchanges {
    pub rows: Vec<Exchange>,
    chans: HashMap<String, Chan>,
    /// Seqs of every event per HTTP channel, for the timeline's channel view.
    by_channel: HashMap<String, Vec<u64>>,
    /// Our request ids and the channel they went out on (for `cancel`).
    ids: HashMap<IdKey, String>,
    session: Option<String>,
    /// The authorization's latest state, for the header.
    pub auth: Option<AuthState>,
    /// The same exchanges as requests and their answers (HAR's entries).
    pairs: Pairs,
    scanned_to: u64,
}

fn text(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// `text/event-stream` → `sse`, `application/json; charset=utf-8` → `json`,
/// `text/html` → `html`: the part that tells types apart in a narrow column.
pub fn short_type(ct: &str) -> String {
    let base = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match base.as_str() {
        "text/event-stream" => "sse".into(),
        "text/plain" => "text".into(),
        "" => "—".into(),
        other => safe(other.rsplit('/').next().unwrap_or(other), 24),
    }
}

impl Exchanges {
    /// Anything HTTP seen yet? (The pane is offered from then on.)
    pub fn is_http(&self) -> bool {
        !self.rows.is_empty()
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The seqs of a channel's events seen so far, and up to where.
    pub fn channel_seqs(&self, channel: &str) -> (&[u64], u64) {
        (
            self.by_channel.get(channel).map_or(&[][..], Vec::as_slice),
            self.scanned_to,
        )
    }

    /// The exchanges as requests and their answers, in the order they
    /// started.
    pub fn pairs(&self) -> &[Pair] {
        &self.pairs.list
    }

    /// The events of `pair` still in `store`, in order: those on its
    /// channel from its first up to where it stopped, but a batch's
    /// elements, the authorization's own requests and states, and meta
    /// lines that do not parse (they belong to no exchange).
    pub fn events_of<'s>(&self, pair: &Pair, store: &'s Store) -> Vec<EventRef<'s>> {
        if pair.auth_step.is_some() {
            return store.get(pair.first_seq).into_iter().collect();
        }
        let (seqs, _) = self.channel_seqs(&pair.channel);
        let from = seqs.partition_point(|s| *s < pair.first_seq);
        let until = pair.until.unwrap_or(u64::MAX);
        seqs[from..]
            .iter()
            .take_while(|s| **s < until)
            .filter_map(|s| store.get(*s))
            .filter(|ev| match ev.dir {
                Dir::Out | Dir::In => ev.flags & flags::IN_BATCH == 0,
                Dir::Meta => ev
                    .event()
                    .is_some_and(|e| !matches!(e, Event::Auth { .. } | Event::AuthHttp { .. })),
                Dir::Stderr => false,
            })
            .collect()
    }

    /// Look at new events (at most `budget`). Returns true when caught up.
    pub fn sync(&mut self, store: &Store, budget: u64) -> bool {
        let from = self.scanned_to.max(store.first_seq());
        let to = store.next_seq().min(from + budget);
        for ev in store.range(from, to) {
            if ev.channel != STDIO {
                self.event(&ev);
            }
        }
        self.scanned_to = to;
        to >= store.next_seq()
    }

    fn current(&mut self, channel: &str) -> Option<&mut Exchange> {
        let i = self.chans.get(channel)?.last?;
        self.rows.get_mut(i)
    }

    fn event(&mut self, ev: &EventRef<'_>) {
        let channel = ev.channel;
        match self.by_channel.get_mut(channel) {
            Some(v) => v.push(ev.seq),
            None => {
                self.by_channel.insert(channel.to_string(), vec![ev.seq]);
            }
        }
        match ev.dir {
            Dir::Out => {
                if ev.flags & flags::IN_BATCH == 0 {
                    self.pairs.body(ev);
                }
                let chan = self.chans.entry(channel.to_string()).or_default();
                if chan.rpc.is_some() || ev.flags & flags::IN_BATCH != 0 {
                    return;
                }
                let f = ev.frame();
                let mut label = match (f.kind, f.method.as_deref()) {
                    (FrameKind::Batch, _) => format!("batch of {}", f.batch.len()),
                    (_, Some(m)) => safe(m, 40),
                    (FrameKind::Response | FrameKind::ErrorResponse, None) => "response".into(),
                    _ => "?".into(),
                };
                if f.method.as_deref() == Some(crate::protocol::methods::TOOLS_CALL)
                    && let Some(name) = f
                        .params
                        .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                        .and_then(|p| text(&p, "name"))
                {
                    label.push(' ');
                    label.push_str(&safe(&name, 30));
                }
                if let Some(id) = &f.id {
                    label.push_str(&format!(" #{}", safe(&id.to_string(), 20)));
                    if f.kind == FrameKind::Request {
                        self.ids.insert(id.clone(), channel.to_string());
                    }
                }
                chan.rpc = Some(label);
            }
            Dir::In => {
                if ev.flags & flags::IN_BATCH == 0
                    && let Some(x) = self.current(channel)
                {
                    x.frames += 1;
                }
            }
            Dir::Meta => {
                if let Some(event) = ev.event() {
                    self.pairs.meta(ev, &event);
                    self.meta(ev, event);
                }
            }
            Dir::Stderr => {}
        }
    }

    fn meta(&mut self, ev: &EventRef<'_>, event: Event) {
        let http_status = |status| match status {
            Status::Code(c) => HttpStatus::Code(c),
            Status::Failed(why) => HttpStatus::Error(safe_row(&why)),
        };
        let channel = ev.channel;
        match event {
            Event::Http {
                method,
                status,
                content_type,
                session,
                ms,
                ..
            } => self.exchange(
                ev,
                safe(&method, 8),
                http_status(status),
                content_type,
                session,
                Some(ms),
                None,
            ),
            Event::HttpError { method, error } => self.exchange(
                ev,
                safe(&method, 8),
                HttpStatus::Error(safe_row(&error)),
                None,
                None,
                None,
                Some(safe_row(&error)),
            ),
            Event::AuthHttp {
                step,
                method,
                url,
                status,
                ms,
            } => {
                self.exchange(
                    ev,
                    safe(&method, 8),
                    http_status(status),
                    None,
                    None,
                    Some(ms),
                    None,
                );
                // An authorization step: what it was for, where it went (no query).
                if let Some(x) = self.rows.last_mut() {
                    x.rpc = safe_row(&format!("auth {step} {url}"));
                }
            }
            Event::AuthProblem { .. } => {}
            Event::Auth { state, detail } => {
                self.auth = Some(AuthState {
                    state: safe(&state, 24),
                    detail: detail.map(|d| safe_row(&d)),
                });
            }
            other => self.stream_meta(channel, other),
        }
    }

    /// What a stream or the session did (primed, resumed, ended, cut,
    /// expired), marked on the exchange that carries it.
    fn stream_meta(&mut self, channel: &str, event: Event) {
        match event {
            Event::SsePriming { .. } => {
                if let Some(x) = self.current(channel) {
                    x.priming += 1;
                }
            }
            Event::Resume { attempt, .. } => {
                let chan = self.chans.entry(channel.to_string()).or_default();
                chan.resume = Some(attempt);
                if let Some(x) = chan.first.and_then(|i| self.rows.get_mut(i)) {
                    x.resumed = x.resumed.max(attempt);
                }
            }
            Event::Reconnect { .. } => {
                if let Some(x) = self.current(channel) {
                    x.reconnects += 1;
                }
            }
            Event::StreamEnd => {
                if let Some(x) = self.current(channel) {
                    x.end.get_or_insert(StreamEnd::Ended);
                }
            }
            Event::StreamReleased { .. } => {
                if let Some(x) = self.current(channel) {
                    x.end = Some(StreamEnd::Released);
                }
            }
            Event::StreamCut { .. } => {
                if let Some(x) = self.current(channel) {
                    x.cut = true;
                }
            }
            Event::StreamError { error } => self.fail_exchange(channel, None, safe_row(&error)),
            Event::Failed { request, error } => {
                self.fail_exchange(channel, request.as_ref(), safe_row(&error))
            }
            Event::SessionExpired { .. } => {
                self.session = None;
                if let Some(x) = self.current(channel) {
                    x.expired = true;
                }
            }
            Event::Cancel { request, .. } => {
                let Some(ch) = self.ids.get(&IdKey::from_value(&request)).cloned() else {
                    return;
                };
                if let Some(x) = self.current(&ch) {
                    x.end = Some(StreamEnd::Cancelled);
                }
            }
            Event::Endpoint { url } => {
                if let Some(x) = self.current(channel) {
                    x.endpoint = Some(safe(&url, 60));
                }
            }
            Event::TransportDetect { flavor, .. } => {
                if let Some(x) = self.current(channel) {
                    x.detected = Some(match flavor.as_str() {
                        "sse" => "legacy HTTP+SSE".into(),
                        other => safe(other, 20),
                    });
                }
            }
            // The rest says nothing about one exchange.
            Event::Http { .. }
            | Event::HttpError { .. }
            | Event::AuthHttp { .. }
            | Event::AuthProblem { .. }
            | Event::Auth { .. }
            | Event::Spawn { .. }
            | Event::Exit { .. }
            | Event::ReadError { .. }
            | Event::Eof { .. }
            | Event::Oversized { .. }
            | Event::Redirect { .. }
            | Event::SlowDelivery { .. }
            | Event::McpParamHeaders { .. }
            | Event::EndpointInvalid { .. }
            | Event::SendFailed { .. }
            | Event::Reinitialize { .. }
            | Event::Restart { .. }
            | Event::Timeout { .. }
            | Event::Negotiated { .. }
            | Event::ToolRejected { .. }
            | Event::ServerRequestDropped { .. }
            | Event::AnswerRefused { .. }
            | Event::Era { .. }
            | Event::ListenEnd { .. }
            | Event::VersionRetry { .. }
            | Event::HostRequest { .. }
            | Event::ObserverBehind { .. }
            | Event::OtelSpan { .. }
            | Event::OtelLog { .. }
            | Event::OtelMetrics { .. }
            | Event::OtelDropped { .. }
            | Event::OtelForeign { .. }
            | Event::SseReplay { .. }
            | Event::Injected { .. } => {}
        }
    }

    /// A new row: one HTTP exchange (or one that got no response).
    #[allow(clippy::too_many_arguments)]
    fn exchange(
        &mut self,
        ev: &EventRef<'_>,
        method: String,
        status: HttpStatus,
        content_type: Option<String>,
        session: Option<String>,
        ms: Option<u64>,
        failed: Option<String>,
    ) {
        let channel = ev.channel;
        let session = session.map(|s| safe(&s, 80));
        if session.is_some() {
            self.session = session.clone();
        }
        let session = session.or_else(|| self.session.clone());
        if method == "DELETE" {
            // The session is over once it was deleted.
            self.session = None;
        }
        let chan = self.chans.entry(channel.to_string()).or_default();
        let resume_attempt = if method == "GET" {
            chan.resume.take()
        } else {
            None
        };
        let idx = self.rows.len();
        chan.first.get_or_insert(idx);
        chan.last = Some(idx);
        let rpc = chan.rpc.clone().unwrap_or_else(|| match channel {
            c if c == "get" || c.starts_with("get:") => "(server stream)".into(),
            "sse" => "(legacy SSE stream)".into(),
            "http" if method == "DELETE" => "(end session)".into(),
            _ => "—".into(),
        });
        self.rows.push(Exchange {
            seq: ev.seq,
            t_us: ev.t_us,
            channel: safe(channel, 40),
            method,
            status,
            content_type: content_type.map_or_else(|| "—".into(), |c| short_type(&c)),
            ms,
            session,
            rpc,
            frames: 0,
            priming: 0,
            resumed: 0,
            resume_attempt,
            reconnects: 0,
            cut: false,
            end: None,
            failed,
            expired: false,
            endpoint: None,
            detected: None,
        });
    }

    /// A stream broke or a request failed: `failed` names the request when it
    /// knows it; the channel says which exchange otherwise.
    fn fail_exchange(&mut self, channel: &str, request: Option<&Value>, why: String) {
        let by_id = request
            .filter(|r| !r.is_null())
            .map(IdKey::from_value)
            .and_then(|id| self.ids.get(&id).cloned());
        let ch = by_id.unwrap_or_else(|| channel.to_string());
        if let Some(x) = self.current(&ch)
            && x.failed.is_none()
        {
            x.failed = Some(why);
        }
    }
}

/// An exchange as a request and its answer, as HAR lists them. A POST's
/// body opens one on its channel and the response head that follows
/// answers it; a head that answers no open request (a GET stream, a
/// DELETE, a second head on a channel) opens one of its own, and a body on
/// a channel whose request was sent opens the next. It ends at its
/// stream's end, at a failure, or at a head with no stream to follow
/// unless a POST's body may still come. Each request of the authorization
/// flow is one of its own. Texts are as the trace has them.
#[derive(Debug, Clone, Default)]
pub struct Pair {
    pub channel: String,
    pub method: String,
    pub start_us: u64,
    pub end_us: Option<u64>,
    /// A request body went out on it.
    pub requested: bool,
    pub status: Option<u16>,
    /// The transport's failure, instead of a status.
    pub error: Option<String>,
    pub content_type: Option<String>,
    /// The response named a session.
    pub session: bool,
    /// Time to the response headers.
    pub wait_ms: u64,
    /// The session was authorized when the request went.
    pub authorized: bool,
    /// A request of the authorization flow: its step, and the URL it went
    /// to instead of the server's.
    pub auth_step: Option<(String, String)>,
    /// Its events are its channel's from this one...
    pub first_seq: u64,
    /// ...up to this one, not included (None while it is open).
    pub until: Option<u64>,
}

/// The pairs and, per channel, the one open there.
#[derive(Debug, Default)]
struct Pairs {
    list: Vec<Pair>,
    open: HashMap<String, usize>,
    /// Authorized by the latest `auth` state.
    authorized: bool,
}

impl Pairs {
    fn start(&mut self, ev: &EventRef<'_>, method: &str, start_us: u64) -> usize {
        let i = self.list.len();
        self.list.push(Pair {
            channel: ev.channel.to_string(),
            method: method.to_string(),
            start_us,
            authorized: self.authorized,
            first_seq: ev.seq,
            ..Pair::default()
        });
        self.open.insert(ev.channel.to_string(), i);
        i
    }

    /// The channel's open pair stops before `until`.
    fn close(&mut self, channel: &str, until: u64) {
        if let Some(i) = self.open.remove(channel) {
            self.list[i].until = Some(until);
        }
    }

    /// A body we sent (not a batch's element).
    fn body(&mut self, ev: &EventRef<'_>) {
        let open = self.open.get(ev.channel).copied();
        let i = match open {
            Some(i) if !self.list[i].requested => i,
            _ => {
                self.close(ev.channel, ev.seq);
                self.start(ev, "POST", ev.t_us)
            }
        };
        self.list[i].requested = true;
    }

    fn meta(&mut self, ev: &EventRef<'_>, event: &Event) {
        let (method, status, error, content_type, session, ms) = match event {
            Event::Http {
                method,
                status,
                content_type,
                session,
                ms,
                ..
            } => (
                method,
                status.code(),
                None,
                content_type.clone(),
                session.is_some(),
                *ms,
            ),
            Event::HttpError { method, error } => {
                (method, None, Some(error.clone()), None, false, 0)
            }
            Event::Auth { state, .. } => {
                self.authorized = matches!(state.as_str(), "authorized" | "refreshed");
                return;
            }
            Event::AuthHttp {
                step,
                method,
                url,
                status,
                ms,
            } => {
                self.list.push(Pair {
                    channel: ev.channel.to_string(),
                    method: method.clone(),
                    start_us: ev.t_us.saturating_sub(ms * 1000),
                    end_us: Some(ev.t_us),
                    status: status.code(),
                    error: match status {
                        Status::Failed(why) => Some(why.clone()),
                        Status::Code(_) => None,
                    },
                    wait_ms: *ms,
                    auth_step: Some((step.clone(), url.clone())),
                    first_seq: ev.seq,
                    until: Some(ev.seq + 1),
                    ..Pair::default()
                });
                return;
            }
            Event::StreamEnd => {
                if let Some(&i) = self.open.get(ev.channel) {
                    self.list[i].end_us = Some(ev.t_us);
                    self.close(ev.channel, ev.seq + 1);
                }
                return;
            }
            _ => return,
        };
        let answers = self
            .open
            .get(ev.channel)
            .map(|&i| &self.list[i])
            .is_some_and(|p| p.status.is_none() && p.error.is_none() && p.method == *method);
        let i = match self.open.get(ev.channel) {
            Some(&i) if answers => i,
            _ => {
                self.close(ev.channel, ev.seq);
                self.start(ev, method, ev.t_us.saturating_sub(ms * 1000))
            }
        };
        let p = &mut self.list[i];
        p.status = status;
        p.error = error;
        p.content_type = content_type;
        p.session = session;
        p.wait_ms = ms;
        let streams = p
            .content_type
            .as_deref()
            .is_some_and(|c| c.starts_with("text/event-stream"));
        // A head without a stream to follow (an error, a 202, a JSON body
        // that comes next or not at all) still waits for what its channel
        // carries; a transport failure ends the exchange.
        if p.error.is_some() || (!streams && method != "POST") {
            p.end_us = Some(ev.t_us);
            self.close(ev.channel, ev.seq + 1);
        }
    }
}
