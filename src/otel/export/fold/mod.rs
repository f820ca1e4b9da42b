//! The session's requests as OTLP spans, folded over the store's events in
//! order (OpenTelemetry semantic conventions for MCP):
//! - a request the client sent is a CLIENT span named
//!   `{mcp.method.name} {target}` (the tool or prompt), from the request to
//!   its response, with `mcp.method.name`, `jsonrpc.request.id`,
//!   `mcp.protocol.version`, `mcp.session.id` (not at 2026-07-28),
//!   `gen_ai.tool.name`, `error.type` (`tool_error` for `isError`),
//!   `rpc.response.status_code` and `network.transport`;
//! - a request the server sent (sampling, elicitation, roots) is a SERVER
//!   span from mcpscope's side, to the answer;
//! - the request's `traceparent` gives the ids: mcpscope's own requests
//!   carry the span's id; a host's (through the proxy) and a server's are
//!   the parent of the span;
//! - progress notifications and findings are span events (bounded per span;
//!   the rest counted in `dropped_events_count`); a finding made after its
//!   span left is a child span carrying it;
//! - spans the server exported to the receiver are forwarded with their
//!   own service name, so the backend shows the whole trace; so are its log
//!   records, beside the trace they name.
//!
//! Everything here is bounded: open spans, events per span, the finished
//! spans waiting for late findings, and the ids remembered after.

use super::Context;
use super::attrs;
use super::ids;
use super::metrics::Durations;
use crate::calls::scope::Scopes;
use crate::checks::Finding;
use crate::event::Event;
use crate::protocol::frame::FrameKind;
use crate::protocol::meta::{META, PROGRESS_TOKEN};
use crate::protocol::methods;
use crate::protocol::trace_context::{TRACEPARENT, TraceParent};
use crate::protocol::views::{CancelledView, result_is_error};
use crate::protocol::{Era, IdKey, Revision};
use crate::trace::{Dir, EventRef, Store};
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::trace::v1::span::{Event as SpanEvent, SpanKind};
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use opentelemetry_proto::tonic::trace::v1::{Span, Status};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

/// Spans open at once, at most; a request past it gets none (counted).
pub const MAX_OPEN: usize = 4096;
/// Events kept per span (progress and findings); the rest are counted.
pub const MAX_EVENTS: usize = 128;
/// Spans handed off whose ids are kept for late findings.
const MAX_RECENT: usize = 4096;
/// Finding events kept on the session span.
const MAX_SESSION_EVENTS: usize = 256;

/// The session span's name (not one the conventions define: it holds the
/// findings that concern no request, and the session's attributes).
pub const SESSION_SPAN: &str = "mcpscope session";

/// A span ready to leave, with the service that made it (`None`:
/// mcpscope; a name: a span the server exported to the receiver).
#[derive(Debug, Clone)]
pub struct Ready {
    pub service: Option<String>,
    pub span: Span,
}

/// Which way a request went: the client's (ours, or the host's through
/// the proxy) or the server's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Side {
    Client,
    Server,
}

type Key = (u64, Side, IdKey);

#[derive(Debug)]
struct Open {
    span: Span,
    method: String,
    tool: Option<String>,
}

/// The call whose span is full of events, and what it was not given since:
/// the rest of a flood costs a comparison each, not a lookup (the
/// dropped count joins the span when it ends).
#[derive(Debug)]
struct Full {
    slot: u32,
    serial: u64,
    key: Key,
    dropped: u32,
}

/// What the fold counted rather than kept.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Spans made (own and forwarded).
    pub spans: u64,
    /// Requests that got no span: too many open at once.
    pub not_opened: u64,
    /// Span events not kept (past [`MAX_EVENTS`] on a span).
    pub events_dropped: u64,
    /// Log records not kept (past [`MAX_LOGS`] waiting).
    pub logs_dropped: u64,
}

pub struct SpanFold {
    ctx: Context,
    scopes: Scopes,
    protocol: Option<String>,
    session_id: Option<String>,
    stateless: bool,
    open: HashMap<Key, Open>,
    /// Ended spans not taken yet, oldest first, with their end (trace µs).
    done: VecDeque<(u64, Ready, Option<IdKey>)>,
    /// Request id → (trace id, span id) of spans already taken.
    recent: VecDeque<(IdKey, Vec<u8>, Vec<u8>)>,
    /// Findings given before their request was seen (a recording's), by
    /// request id and by progress token (a finding about progress may
    /// name the token only).
    waiting: HashMap<IdKey, Vec<SpanEvent>>,
    waiting_token: HashMap<IdKey, Vec<SpanEvent>>,
    /// Progress token → the request that carried it, the latest
    /// [`MAX_RECENT`].
    tokens: HashMap<IdKey, IdKey>,
    token_order: VecDeque<IdKey>,
    session_events: Vec<SpanEvent>,
    session_dropped: u32,
    findings: u64,
    first_us: Option<u64>,
    last_us: u64,
    full: Option<Full>,
    logs: VecDeque<ReadyLog>,
    pub durations: Durations,
    pub counts: Counts,
}

impl SpanFold {
    pub fn new(ctx: Context) -> SpanFold {
        SpanFold {
            durations: Durations::new(ctx.transport),
            ctx,
            scopes: Scopes::default(),
            protocol: None,
            session_id: None,
            stateless: false,
            open: HashMap::new(),
            done: VecDeque::new(),
            recent: VecDeque::new(),
            waiting: HashMap::new(),
            waiting_token: HashMap::new(),
            tokens: HashMap::new(),
            token_order: VecDeque::new(),
            session_events: Vec::new(),
            session_dropped: 0,
            findings: 0,
            first_us: None,
            last_us: 0,
            full: None,
            logs: VecDeque::new(),
            counts: Counts::default(),
        }
    }

    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The session's start and end so far (trace µs).
    pub fn extent(&self) -> Option<(u64, u64)> {
        self.first_us.map(|f| (f, self.last_us))
    }

    /// Take in one event (in trace order).
    pub fn observe(&mut self, ev: &EventRef<'_>, store: &Store) {
        self.first_us.get_or_insert(ev.t_us);
        self.last_us = self.last_us.max(ev.t_us);
        let Some(scope) = self.scopes.route(ev) else {
            return;
        };
        match (ev.dir, ev.kind) {
            (Dir::Out, FrameKind::Request) => self.request(ev, scope, Side::Client),
            (Dir::In, FrameKind::Request) => self.request(ev, scope, Side::Server),
            (Dir::In, FrameKind::Response | FrameKind::ErrorResponse) => {
                self.response(ev, scope, Side::Client)
            }
            (Dir::Out, FrameKind::Response | FrameKind::ErrorResponse) => {
                self.response(ev, scope, Side::Server)
            }
            (Dir::In, FrameKind::Notification) => {
                if let Some(p) = ev.progress {
                    self.progress(ev, scope, store, p);
                }
            }
            (Dir::Out, FrameKind::Notification) if ev.method == Some(methods::CANCELLED) => {
                if let Some(c) = CancelledView::parse(ev.frame().params) {
                    let key = (scope, Side::Client, c.request_id);
                    let reason = c.reason.unwrap_or_default();
                    if let Some(o) = self.open.get_mut(&key) {
                        let mut attrs = vec![attrs::string("mcp.method.name", methods::CANCELLED)];
                        if !reason.is_empty() {
                            attrs.push(attrs::string("mcpscope.cancel.reason", &one_line(&reason)));
                        }
                        push_event(
                            &mut o.span,
                            self.ctx.unix_ns(ev.t_us),
                            methods::CANCELLED,
                            attrs,
                        );
                    }
                    self.end(key, ev.t_us, failed("cancelled", "cancelled by the client"));
                }
            }
            (Dir::Meta, _) => self.meta(ev, scope),
            _ => {}
        }
        // Scopes retire only in a trace that names host sessions.
        if !self.scopes.routing() {
            return;
        }
        for retired in self.scopes.take_retired() {
            let keys: Vec<Key> = self
                .open
                .keys()
                .filter(|k| k.0 == retired)
                .cloned()
                .collect();
            for k in keys {
                self.end(
                    k,
                    ev.t_us,
                    failed("no_response", "the host session was retired"),
                );
            }
        }
    }

    fn request(&mut self, ev: &EventRef<'_>, scope: u64, side: Side) {
        let frame = ev.frame();
        let (Some(id), Some(method)) = (frame.id.clone(), frame.method.as_deref()) else {
            return;
        };
        if self.open.len() >= MAX_OPEN {
            self.counts.not_opened += 1;
            return;
        }
        let params: Value = frame
            .params
            .and_then(|p| serde_json::from_str(p.get()).ok())
            .unwrap_or(Value::Null);
        let target = match method {
            methods::TOOLS_CALL | "prompts/get" => params.get("name").and_then(Value::as_str),
            _ => None,
        };
        let tp = params
            .get(META)
            .and_then(|m| m.get(TRACEPARENT))
            .and_then(Value::as_str)
            .and_then(|s| TraceParent::parse(s).ok())
            .and_then(|tp| ids::of_traceparent(&tp));
        let (derived_trace, derived_span) = ids::derived(self.ctx.wall_start_us, ev.seq, 0);
        // mcpscope's own request names its own span; anyone else's is the parent.
        let own = side == Side::Client && !self.ctx.proxy;
        let (trace_id, span_id, parent) = match tp {
            Some((t, s)) if own => (t.to_vec(), s.to_vec(), Vec::new()),
            Some((t, s)) => (t.to_vec(), derived_span.to_vec(), s.to_vec()),
            None => (derived_trace.to_vec(), derived_span.to_vec(), Vec::new()),
        };
        let target = target.map(one_line);
        let name = match &target {
            Some(t) => format!("{method} {t}"),
            None => method.to_string(),
        };
        let mut a = vec![
            attrs::string("mcp.method.name", method),
            attrs::string("jsonrpc.request.id", &id_text(&id)),
            attrs::string("network.transport", self.ctx.transport),
            attrs::int("mcpscope.seq", ev.seq as i64),
        ];
        if let Some((host, port)) = &self.ctx.server {
            a.push(attrs::string("server.address", host));
            a.push(attrs::int("server.port", i64::from(*port)));
        }
        match (method, &target) {
            (methods::TOOLS_CALL, Some(t)) => {
                a.push(attrs::string("gen_ai.tool.name", t));
                a.push(attrs::string("gen_ai.operation.name", "execute_tool"));
            }
            ("prompts/get", Some(t)) => a.push(attrs::string("gen_ai.prompt.name", t)),
            _ => {}
        }
        if matches!(
            method,
            "resources/read" | "resources/subscribe" | "resources/unsubscribe"
        ) && let Some(uri) = params.get("uri").and_then(Value::as_str)
        {
            // A URI may carry credentials: the backend gets it redacted.
            let uri = crate::protocol::secrets::redact_url(uri);
            a.push(attrs::string("mcp.resource.uri", &one_line(&uri)));
        }
        let token = params
            .get(META)
            .and_then(|m| m.get(PROGRESS_TOKEN))
            .map(IdKey::from_value);
        if let Some(t) = &token {
            a.push(attrs::string("mcpscope.progress_token", &id_text(t)));
        }
        let mut span = Span {
            trace_id,
            span_id,
            parent_span_id: parent,
            name,
            kind: if side == Side::Client {
                SpanKind::Client
            } else {
                SpanKind::Server
            } as i32,
            start_time_unix_nano: self.ctx.unix_ns(ev.t_us),
            attributes: a,
            ..Default::default()
        };
        if side == Side::Client {
            let by_token = token.as_ref().and_then(|t| self.waiting_token.remove(t));
            for e in self
                .waiting
                .remove(&id)
                .into_iter()
                .chain(by_token)
                .flatten()
            {
                add_event(&mut span, e);
            }
            if let Some(t) = token {
                if self.token_order.len() >= MAX_RECENT
                    && let Some(old) = self.token_order.pop_front()
                {
                    self.tokens.remove(&old);
                }
                self.token_order.push_back(t.clone());
                self.tokens.insert(t, id.clone());
            }
        }
        // A reused id replaces the open span: the response answers the latest.
        let key = (scope, side, id);
        if self.full.as_ref().is_some_and(|f| f.key == key) {
            self.settle_full();
        }
        if let Some(old) = self.open.remove(&key) {
            self.finish(
                key.clone(),
                old,
                ev.t_us,
                failed("no_response", "its id was reused"),
            );
        }
        self.open.insert(
            key,
            Open {
                span,
                method: method.to_string(),
                tool: target,
            },
        );
    }

    fn response(&mut self, ev: &EventRef<'_>, scope: u64, side: Side) {
        let frame = ev.frame();
        let Some(id) = frame.id.clone() else {
            return;
        };
        let key = (scope, side, id);
        if !self.open.contains_key(&key) {
            return;
        }
        let err = if let Some(e) = frame
            .error
            .and_then(|e| serde_json::from_str::<Value>(e.get()).ok())
        {
            let code = e
                .get("code")
                .map(|c| c.to_string())
                .unwrap_or_else(|| "_OTHER".into());
            if let Some(o) = self.open.get_mut(&key) {
                o.span
                    .attributes
                    .push(attrs::string("rpc.response.status_code", &code));
            }
            let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
            failed(&code, one_line(msg))
        } else if frame.result.is_some_and(result_is_error) {
            failed("tool_error", "the tool reported an error")
        } else {
            None
        };
        self.end(key, ev.t_us, err);
    }

    fn progress(
        &mut self,
        ev: &EventRef<'_>,
        scope: u64,
        store: &Store,
        p: crate::trace::store::ProgressInfo,
    ) {
        if let Some(f) = &mut self.full
            && (f.slot, f.serial) == (p.slot, p.serial)
        {
            f.dropped = f.dropped.saturating_add(1);
            self.counts.events_dropped += 1;
            return;
        }
        let Some(entry) = store.token_by_slot(p.slot).filter(|e| e.serial == p.serial) else {
            return;
        };
        let Some(id) = entry.request.clone() else {
            return;
        };
        let key = (scope, Side::Client, id);
        let Some(o) = self.open.get(&key) else {
            return;
        };
        if o.span.events.len() >= MAX_EVENTS {
            self.settle_full();
            self.full = Some(Full {
                slot: p.slot,
                serial: p.serial,
                key,
                dropped: 1,
            });
            self.counts.events_dropped += 1;
            return;
        }
        let Some(o) = self.open.get_mut(&key) else {
            return;
        };
        let mut a = vec![attrs::double("mcpscope.progress", p.progress)];
        if let Some(t) = p.total {
            a.push(attrs::double("mcpscope.progress.total", t));
        }
        if let Some(m) = ev
            .frame()
            .params
            .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
            .and_then(|v| v.get("message").and_then(Value::as_str).map(one_line))
        {
            a.push(attrs::string("mcpscope.progress.message", &m));
        }
        a.push(attrs::int("mcpscope.seq", ev.seq as i64));
        push_event(&mut o.span, self.ctx.unix_ns(ev.t_us), methods::PROGRESS, a);
    }

    fn meta(&mut self, ev: &EventRef<'_>, scope: u64) {
        // Only the kinds that matter are parsed.
        let Some(kind) = ev.method else { return };
        if !matches!(
            kind,
            "negotiated"
                | "http"
                | "timeout"
                | "cancel"
                | "exit"
                | "restart"
                | "otel-span"
                | "otel-log"
        ) {
            return;
        }
        match ev.event() {
            Some(Event::Negotiated {
                protocol_version,
                era,
                ..
            }) => {
                // The era as negotiated, else as the revision (or the newest
                // known one before a newer peer's) speaks.
                self.stateless = era.as_deref() == Some("stateless")
                    || Revision::floor_of(&protocol_version)
                        .is_some_and(|r| r.era() == Era::Stateless);
                self.protocol = Some(one_line(&protocol_version));
            }
            Some(Event::Http {
                session: Some(s), ..
            }) if !self.ctx.proxy => self.session_id = Some(one_line(&s)),
            Some(Event::Timeout { request, secs, .. }) => {
                let key = (scope, Side::Client, IdKey::from_value(&request));
                self.end(
                    key,
                    ev.t_us,
                    failed("timeout", format!("no response in {secs} s")),
                );
            }
            Some(Event::Cancel { request, how, .. }) => {
                let key = (scope, Side::Client, IdKey::from_value(&request));
                self.end(
                    key,
                    ev.t_us,
                    failed("cancelled", format!("cancelled ({})", one_line(&how))),
                );
            }
            Some(Event::Exit { .. }) => self.end_all(ev.t_us, "server_exited", "the server exited"),
            Some(Event::Restart { .. }) => {
                self.end_all(ev.t_us, "restarted", "the session was restarted")
            }
            Some(span @ Event::OtelSpan { .. }) => self.forward(span),
            Some(log @ Event::OtelLog { .. }) => self.forward_log(log),
            _ => {}
        }
    }

    /// The events a full span was not given join its dropped count.
    fn settle_full(&mut self) {
        if let Some(f) = self.full.take()
            && let Some(o) = self.open.get_mut(&f.key)
        {
            o.span.dropped_events_count = o.span.dropped_events_count.saturating_add(f.dropped);
        }
    }

    fn end(&mut self, key: Key, t_us: u64, err: Failure) {
        if self.full.as_ref().is_some_and(|f| f.key == key) {
            self.settle_full();
        }
        if let Some(o) = self.open.remove(&key) {
            self.finish(key, o, t_us, err);
        }
    }

    fn end_all(&mut self, t_us: u64, error_type: &str, why: &str) {
        let keys: Vec<Key> = self.open.keys().cloned().collect();
        for k in keys {
            self.end(k, t_us, failed(error_type, why));
        }
    }

    fn finish(&mut self, key: Key, mut o: Open, t_us: u64, err: Failure) {
        let span = &mut o.span;
        span.end_time_unix_nano = self.ctx.unix_ns(t_us).max(span.start_time_unix_nano);
        if let Some(v) = &self.protocol {
            span.attributes
                .push(attrs::string("mcp.protocol.version", v));
        }
        let session = if self.ctx.proxy {
            self.scopes.session(key.0).map(|s| one_line(s))
        } else {
            self.session_id.clone()
        };
        if let Some(s) = session.filter(|_| !self.stateless) {
            span.attributes
                .push(attrs::string("mcp.session.id", &session_digest(&s)));
        }
        span.status = Some(match &err {
            Some((t, msg)) => {
                span.attributes.push(attrs::string("error.type", t));
                Status {
                    message: msg.clone(),
                    code: StatusCode::Error as i32,
                }
            }
            None => Status::default(),
        });
        if key.1 == Side::Client {
            let secs = (span.end_time_unix_nano - span.start_time_unix_nano) as f64 / 1e9;
            self.durations.operation(
                &o.method,
                o.tool.as_deref(),
                err.as_ref().map(|(t, _)| t.as_str()),
                self.protocol.as_deref(),
                secs,
            );
        }
        self.counts.spans += 1;
        self.done.push_back((
            t_us,
            Ready {
                service: None,
                span: o.span,
            },
            (key.1 == Side::Client).then_some(key.2),
        ));
    }

    /// A finding: an event on the span of the request it names (open, or
    /// ended and not taken yet), a child span of one already taken, or an
    /// event of the session span.
    pub fn finding(&mut self, f: &Finding) {
        self.findings += 1;
        // The checks run behind the events: the latest event is when it was made.
        let t_ns = self.ctx.unix_ns(self.last_us);
        let event = finding_event(f, t_ns);
        let by_token = f.token.as_ref().and_then(|t| self.tokens.get(t)).cloned();
        let Some(id) = f.request_id.as_ref().or(by_token.as_ref()) else {
            self.session_event(event);
            return;
        };
        if let Some(o) = self
            .open
            .iter_mut()
            .find(|(k, _)| k.1 == Side::Client && &k.2 == id)
        {
            add_counted(&mut o.1.span, event, &mut self.counts.events_dropped);
            return;
        }
        if let Some((_, r, _)) = self
            .done
            .iter_mut()
            .rev()
            .find(|(_, _, k)| k.as_ref() == Some(id))
        {
            add_counted(&mut r.span, event, &mut self.counts.events_dropped);
            return;
        }
        if let Some((_, t, s)) = self.recent.iter().rev().find(|(k, _, _)| k == id) {
            let (_, span_id) = ids::derived(
                self.ctx.wall_start_us,
                f.seqs.first().copied().unwrap_or(0),
                1 + self.findings,
            );
            let mut span = Span {
                trace_id: t.clone(),
                span_id: span_id.to_vec(),
                parent_span_id: s.clone(),
                name: format!("mcpscope finding {}", f.rule),
                kind: SpanKind::Internal as i32,
                start_time_unix_nano: t_ns,
                end_time_unix_nano: t_ns,
                ..Default::default()
            };
            add_event(&mut span, event);
            self.counts.spans += 1;
            self.done.push_back((
                self.last_us,
                Ready {
                    service: None,
                    span,
                },
                None,
            ));
            return;
        }
        self.session_event(event);
    }

    /// Findings of a recording, given before its events: each joins its
    /// request's span when that opens.
    pub fn preload(&mut self, findings: &[Finding]) {
        for f in findings {
            self.findings += 1;
            let event = finding_event(f, 0);
            match (&f.request_id, &f.token) {
                (Some(id), _) => self.waiting.entry(id.clone()).or_default().push(event),
                (None, Some(t)) => self.waiting_token.entry(t.clone()).or_default().push(event),
                (None, None) => self.session_event(event),
            }
        }
    }

    fn session_event(&mut self, e: SpanEvent) {
        if self.session_events.len() < MAX_SESSION_EVENTS {
            self.session_events.push(e);
        } else {
            self.session_dropped += 1;
            self.counts.events_dropped += 1;
        }
    }

    /// Ended spans that ended at least `linger_us` before `now_us` (all of
    /// them with 0 and `u64::MAX`), oldest first.
    pub fn take_ready(&mut self, now_us: u64, linger_us: u64) -> Vec<Ready> {
        let mut out = Vec::new();
        while let Some((end, _, _)) = self.done.front() {
            if now_us != u64::MAX && end.saturating_add(linger_us) > now_us {
                break;
            }
            let Some((_, r, id)) = self.done.pop_front() else {
                break;
            };
            if let Some(id) = id {
                if self.recent.len() >= MAX_RECENT {
                    self.recent.pop_front();
                }
                self.recent
                    .push_back((id, r.span.trace_id.clone(), r.span.span_id.clone()));
            }
            out.push(r);
        }
        out
    }

    /// The session is over: what is still open ends unanswered, the
    /// session span is made, and everything is ready.
    pub fn finish_session(&mut self) -> Vec<Ready> {
        let t = self.last_us;
        self.end_all(t, "no_response", "no response before the session ended");
        // Findings still waiting named requests that never came.
        let orphans: Vec<SpanEvent> = (self.waiting.drain().flat_map(|(_, v)| v))
            .chain(self.waiting_token.drain().flat_map(|(_, v)| v))
            .collect();
        for e in orphans {
            self.session_event(e);
        }
        let (first, last) = self.extent().unwrap_or((0, 0));
        let (trace, span_id) = ids::derived(self.ctx.wall_start_us, u64::MAX, 7);
        let mut a = vec![
            attrs::string("network.transport", self.ctx.transport),
            attrs::int("mcpscope.findings", self.findings as i64),
        ];
        if let Some(v) = &self.protocol {
            a.push(attrs::string("mcp.protocol.version", v));
        }
        if let Some(s) = self.session_id.as_ref().filter(|_| !self.stateless) {
            a.push(attrs::string("mcp.session.id", &session_digest(s)));
        }
        if let Some((host, port)) = &self.ctx.server {
            a.push(attrs::string("server.address", host));
            a.push(attrs::int("server.port", i64::from(*port)));
        }
        let mut span = Span {
            trace_id: trace.to_vec(),
            span_id: span_id.to_vec(),
            name: SESSION_SPAN.into(),
            kind: SpanKind::Internal as i32,
            start_time_unix_nano: self.ctx.unix_ns(first),
            end_time_unix_nano: self.ctx.unix_ns(last),
            attributes: a,
            dropped_events_count: self.session_dropped,
            ..Default::default()
        };
        for mut e in std::mem::take(&mut self.session_events) {
            if e.time_unix_nano == 0 {
                e.time_unix_nano = span.end_time_unix_nano;
            }
            span.events.push(e);
        }
        self.durations.session(
            (last.saturating_sub(first)) as f64 / 1e6,
            self.protocol.as_deref(),
        );
        self.counts.spans += 1;
        self.done.push_back((
            t,
            Ready {
                service: None,
                span,
            },
            None,
        ));
        self.take_ready(u64::MAX, 0)
    }
}

/// A finding as a span event (its time: `t_ns`, or the span's end when 0).
fn finding_event(f: &Finding, t_ns: u64) -> SpanEvent {
    let seqs: Vec<String> = f.seqs.iter().map(|s| s.to_string()).collect();
    SpanEvent {
        time_unix_nano: t_ns,
        name: "mcpscope.finding".into(),
        attributes: vec![
            attrs::string("mcpscope.rule.id", f.rule.id()),
            attrs::string("mcpscope.finding.severity", f.severity.as_str()),
            attrs::string("mcpscope.finding.party", f.party.as_str()),
            attrs::string("mcpscope.finding.message", &one_line(&f.message)),
            attrs::string("mcpscope.seq", &seqs.join(" ")),
        ],
        ..Default::default()
    }
}

fn push_event(span: &mut Span, t_ns: u64, name: &str, attributes: Vec<KeyValue>) {
    span.events.push(SpanEvent {
        time_unix_nano: t_ns,
        name: name.to_string(),
        attributes,
        ..Default::default()
    });
}

fn add_event(span: &mut Span, mut e: SpanEvent) {
    if e.time_unix_nano == 0 {
        e.time_unix_nano = span.start_time_unix_nano;
    }
    if span.events.len() < MAX_EVENTS {
        span.events.push(e);
    } else {
        span.dropped_events_count += 1;
    }
}

fn add_counted(span: &mut Span, e: SpanEvent, dropped: &mut u64) {
    if span.events.len() >= MAX_EVENTS {
        *dropped += 1;
    }
    add_event(span, e);
}

/// `mcp.session.id` as sent to a backend: an `Mcp-Session-Id` lets whoever
/// holds it speak in the session (mcpscope's exports redact it), so the
/// backend gets the first 16 hex digits of its SHA-256, which still tells
/// one session from another and ties a session's spans together.
pub fn session_digest(id: &str) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(id.as_bytes());
    d[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Why a span ended in error: its `error.type` and its status message.
type Failure = Option<(String, String)>;

fn failed(error_type: &str, why: impl Into<String>) -> Failure {
    Some((error_type.to_string(), why.into()))
}

/// `jsonrpc.request.id`: the id's string form (a string id unquoted).
fn id_text(id: &IdKey) -> String {
    match id {
        IdKey::Str(s) => one_line(s),
        other => other.to_string(),
    }
}

fn one_line(s: &str) -> String {
    crate::protocol::sanitize::one_line(s).into_owned()
}

mod forward;
pub use forward::{MAX_LOGS, ReadyLog};
#[cfg(test)]
mod tests;
