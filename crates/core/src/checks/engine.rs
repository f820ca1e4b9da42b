//! The incremental rule engine: `observe` each event once, in trace order;
//! `tick` for the time-based rule; `finish` at the end of a recorded trace.
//!
//! State is per client request and per progress token, never per event
//! (except a bounded flood window), so the cost of an event does not grow
//! with the history; finished requests are retired past a window
//! (`retire.rs`), so neither does the memory of a long session. Progress
//! notifications — the only high-rate frames — take a fast path that reads
//! three fields without a second JSON parse.

use super::config::CheckConfig;
use super::finding::Finding;
use super::rules::Rule;
use super::shape::{self, preview, secs};
use crate::event::Event;
use crate::format::num;
use crate::protocol::frame::FrameKind;
use crate::protocol::views::{LogLevel, ProgressView};
use crate::protocol::{Era, IdKey, Revision, meta, methods};
use crate::trace::store::flags;
use crate::trace::{Dir, EventRef};
use serde_json::Value;
use std::collections::HashMap;
use std::collections::VecDeque;
use tokens::{SlotCache, Tok};

mod capabilities;
mod client;
mod injected;
mod logs;
mod progress;
mod responses;
mod retire;
mod spans;
mod tasks;
mod tokens;
mod tools;
mod trace_context;

pub use retire::{KEEP_FINISHED, MAX_OPEN};

#[derive(Debug, Clone, Copy, PartialEq)]
enum ReqKind {
    Initialize,
    Discover,
    SetLevel(Option<LogLevel>),
    /// `page`: it asked for a later page (a cursor), not a listing anew.
    ToolsList {
        page: bool,
    },
    ToolsCall,
    Other,
}

impl ReqKind {
    /// Not part of the session's setup (a call, a read, a listing): the
    /// requests a request-bound message may be about.
    fn is_plain(self) -> bool {
        matches!(
            self,
            ReqKind::ToolsList { .. } | ReqKind::ToolsCall | ReqKind::Other
        )
    }
}

/// Where a request is in its life (see `retire.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stage {
    /// In flight, or answered with a task still running.
    Open,
    /// Finished: retired in turn, once enough requests finished after it.
    Finished,
    /// No longer kept: its slot is free, or holds a later request.
    Retired,
}

/// One request we (the client) sent.
struct Req {
    /// Which request this is (slots are reused; serials never are).
    serial: u64,
    stage: Stage,
    id: IdKey,
    seq: u64,
    t_us: u64,
    kind: ReqKind,
    channel: Box<str>,
    token: Option<u32>,
    /// `_meta` logLevel (stateless era): `Some(None)` when present but unparseable.
    log_level: Option<Option<LogLevel>>,
    response: Option<(u64, u64)>,
    cancel: Option<(u64, u64)>,
    /// The client gave up on it without a response (its own timeout, a
    /// transport failure, a lost session): no longer awaited.
    gone: bool,
    /// The task its answer created (an index into the task table).
    task: Option<usize>,
    /// `tasks/get` or `tasks/cancel`: answered with a task's status.
    task_query: Option<tasks::Query>,
    /// It asked to run as a task (2025-11-25 `params.task`): its messages
    /// may come on any stream.
    augmented: bool,
    /// The client capabilities its `_meta` declared (2026-07-28).
    caps: Option<capabilities::ClientCaps>,
    /// The tool a `tools/call` named.
    tool: Option<Box<str>>,
    /// What `proxy --faults` changed about it on the way.
    changed: injected::Changed,
}

impl Req {
    fn active(&self) -> bool {
        self.response.is_none() && self.cancel.is_none()
    }

    /// The server never got it (`proxy --faults` dropped it, broke it, or
    /// had closed the server's input): nothing of it is the server's.
    fn lost(&self) -> bool {
        self.changed.to_server == injected::ToServer::Lost
    }
}

/// The rule engine. Feed it every event of one session, in order.
pub struct Checker {
    cfg: CheckConfig,
    flood_limit: usize,
    era: Era,
    /// Requests by slot; a retired request's slot is reused.
    reqs: Vec<Req>,
    window: retire::Window,
    req_ids: HashMap<IdKey, usize>,
    /// Requests sent on a per-request stream (`post:N`), by channel.
    req_channels: HashMap<Box<str>, usize>,
    toks: Vec<Tok>,
    tok_ids: HashMap<IdKey, u32>,
    /// Token slots free for reuse (their request was retired).
    free_toks: Vec<u32>,
    /// Raw token text of the last progress notification and its slot: a
    /// flood repeats one token, so this skips hashing on the hot path.
    last_tok: Option<(Vec<u8>, u32)>,
    /// Whether the server declared `logging`; `None` until we know.
    logging_declared: Option<bool>,
    session_level: Option<(LogLevel, u64)>,
    emitted: HashMap<(Rule, Option<IdKey>), u32>,
    /// Findings reported per rule, whatever the key.
    per_rule: HashMap<Rule, u32>,
    suppressed: HashMap<Rule, u64>,
    last_t_us: u64,
    last_answered: Option<usize>,
    /// What the store's token slots meant when last seen, by slot.
    store_slots: Vec<SlotCache>,
    /// Bumped whenever a token is added: a cached "no such token" is only
    /// good while it has not changed.
    tok_epoch: u32,
    /// The protocolVersion the last initialize request offered.
    offered_version: Option<String>,
    http: crate::calls::http::HttpExchanges,
    client: client::ClientSide,
    tasks: tasks::Tasks,
    /// The revision the session speaks, once known.
    revision: Option<Revision>,
    /// What the client declared at `initialize`, and that frame's seq.
    client_caps: Option<(capabilities::ClientCaps, u64)>,
    told: capabilities::Told,
    tools: tools::Tools,
    /// How safe each tool of the last complete listing said it was.
    tool_safety: tools::ListedSafety,
    /// Requests sent with a `traceparent`, for judging the server's spans.
    traced: spans::TracedRequests,
    /// What `proxy --faults` changed on the way, beyond one request.
    faults: injected::Faults,
}

/// Findings reported per rule in one session; the rest are only counted.
pub const MAX_PER_RULE: u32 = 1000;

impl Checker {
    pub fn new(cfg: CheckConfig) -> Checker {
        Checker {
            flood_limit: cfg.flood_limit(),
            era: cfg.era.unwrap_or(Era::Handshake),
            cfg,
            reqs: Vec::new(),
            window: Default::default(),
            req_ids: HashMap::new(),
            req_channels: HashMap::new(),
            toks: Vec::new(),
            tok_ids: HashMap::new(),
            free_toks: Vec::new(),
            last_tok: None,
            logging_declared: None,
            session_level: None,
            emitted: HashMap::new(),
            per_rule: HashMap::new(),
            suppressed: HashMap::new(),
            last_t_us: 0,
            last_answered: None,
            store_slots: Vec::new(),
            offered_version: None,
            http: Default::default(),
            client: Default::default(),
            tasks: Default::default(),
            tok_epoch: 0,
            revision: None,
            client_caps: None,
            told: Default::default(),
            tools: Default::default(),
            tool_safety: Default::default(),
            traced: Default::default(),
            faults: Default::default(),
        }
    }

    pub fn config(&self) -> &CheckConfig {
        &self.cfg
    }

    /// The era the session is in (configured, or inferred so far).
    pub fn era(&self) -> Era {
        self.era
    }

    /// What a `server/discover` answer of this session declared for
    /// `logging`, and its frame: in the stateless era it holds for every
    /// exchange with the server, whichever host session asked.
    pub fn server_logging(&self) -> Option<(bool, u64)> {
        if self.era != Era::Stateless {
            return None;
        }
        Some((self.logging_declared?, self.client.caps_seq?))
    }

    /// Takes what another exchange's `server/discover` answer declared
    /// (`server_logging`), when this stateless session has seen none: the
    /// HTTP proxy records each 2026-07-28 request as an exchange of its
    /// own, and the answer that declares sits in one of them.
    pub fn adopt_server_logging(&mut self, (declared, seq): (bool, u64)) {
        if self.era == Era::Stateless && self.logging_declared.is_none() {
            self.logging_declared = Some(declared);
            self.client.caps_seq.get_or_insert(seq);
        }
    }

    /// Whether a rule can fire in this session (the stateless-only rules are
    /// off in the handshake era).
    pub fn applies(&self, rule: Rule) -> bool {
        !rule.stateless_only() || self.era == Era::Stateless
    }

    /// Tokens with state: those our requests carried. Progress for any
    /// other token is judged (unknown) and kept nowhere, so a server cannot
    /// grow this.
    pub fn tracked_tokens(&self) -> usize {
        self.toks.len() - self.free_toks.len()
    }

    /// Findings beyond `max_per_key` that were counted but not reported.
    pub fn suppressed(&self) -> &HashMap<Rule, u64> {
        &self.suppressed
    }

    /// Check one event. Findings are appended to `out`.
    #[inline]
    pub fn observe(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        self.last_t_us = self.last_t_us.max(ev.t_us);
        // The flood's case first: the store marks every well-formed progress
        // frame, so no method name is compared for it.
        if ev.progress.is_some() && ev.dir == Dir::In {
            self.progress(ev, out);
        } else {
            self.other(ev, out);
        }
        // Between events, never within one: no request is half judged.
        if self.window.due() {
            self.evict();
        }
    }

    /// Every event but incoming progress.
    fn other(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        match ev.dir {
            Dir::In => {
                self.incoming(ev, out);
                self.trace_context(ev, out);
            }
            Dir::Out => {
                self.outgoing(ev, out);
                self.trace_context(ev, out);
                if ev.kind == FrameKind::Request {
                    self.traced.request(ev);
                }
            }
            Dir::Meta => {
                let event = ev.event();
                if let Some(span @ Event::OtelSpan { .. }) = &event {
                    self.server_span(ev, span, out);
                }
                if let Some(Event::Cancel { request, .. }) = &event {
                    self.cancel_request(ev, &IdKey::from_value(request), out);
                } else if let Some(e @ Event::Injected { .. }) = &event {
                    self.injected(e);
                } else if let Some(e) = &event {
                    self.client_meta(e);
                }
                if let Some(Event::Oversized {
                    bytes,
                    kept,
                    frame,
                    stream,
                }) = &event
                {
                    self.oversized(ev, *bytes, *kept, *frame, stream.as_deref(), out);
                } else if let Some(Event::ServerRequestDropped {
                    seq, count, total, ..
                }) = &event
                {
                    let message = format!(
                        "{count} server request{} went unanswered (from #{seq}; {total} in this session): more were waiting for answers than mcpscope keeps; send requests no faster than the client answers them",
                        if *count == 1 { "" } else { "s" }
                    );
                    self.emit(
                        out,
                        Rule::ServerRequestsUnanswered,
                        vec![*seq, ev.seq],
                        None,
                        None,
                        message,
                    );
                } else if let Some(Event::AuthProblem { rule, detail }) = &event
                    && let Ok(rule) = rule.parse::<Rule>()
                {
                    self.emit(out, rule, vec![ev.seq], None, None, detail.clone());
                } else if let Some(why) = self.http.meta(ev, event.as_ref())
                    && let Some(ri) = self.req_channels.get(ev.channel)
                {
                    let id = Some(self.reqs[*ri].id.clone());
                    self.emit(out, Rule::HttpContentType, vec![ev.seq], None, id, why);
                }
            }
            Dir::Stderr => {}
        }
    }

    /// A transport cut a frame at its size cap (the `oversized` event).
    fn oversized(
        &mut self,
        ev: &EventRef<'_>,
        bytes: u64,
        kept: u64,
        frame: Option<u64>,
        stream: Option<&str>,
        out: &mut Vec<Finding>,
    ) {
        let what = match stream {
            Some("stderr") => "a stderr line",
            _ => "a frame",
        };
        let mut seqs: Vec<u64> = frame.into_iter().collect();
        seqs.push(ev.seq);
        self.emit(
            out,
            Rule::FrameOversized,
            seqs,
            None,
            None,
            format!(
                "{what} of {bytes} bytes on {} is over mcpscope's cap of {kept} bytes: only its first {kept} bytes are kept{}; send smaller messages (page large results)",
                ev.channel,
                frame.map(|f| format!(" (#{f})")).unwrap_or_default()
            ),
        );
    }

    /// Time passed without events: report requests that went silent.
    pub fn tick(&mut self, now_us: u64, out: &mut Vec<Finding>) {
        self.unknown_task_statuses(now_us, false, out);
        // While the client has the server's question, silence is the client's;
        // once mcpscope closed the server's input, the server may stop.
        if self.waiting_on_client() || self.faults.server_input_closed {
            return;
        }
        for slot in 0..self.toks.len() {
            let t = &self.toks[slot];
            let Some(ri) = t.req else { continue };
            if t.stall_reported || !self.reqs[ri].active() || self.reqs[ri].lost() {
                continue;
            }
            let (since, seq) = t.activity;
            let gap = now_us.saturating_sub(since);
            if gap > self.cfg.stall_us {
                self.toks[slot].stall_reported = true;
                self.stalled(slot, ri, gap, vec![seq], "so far", out);
            }
        }
    }

    /// End of a recorded trace: silences still open at its last event count.
    pub fn finish(&mut self, out: &mut Vec<Finding>) {
        let end = self.last_t_us;
        self.unknown_task_statuses(end, true, out);
        self.tick(end, out);
    }

    fn emit(
        &mut self,
        out: &mut Vec<Finding>,
        rule: Rule,
        seqs: Vec<u64>,
        token: Option<IdKey>,
        request_id: Option<IdKey>,
        message: String,
    ) {
        // A server inventing a new token (or id) per frame must not grow the
        // findings, or this map, without bound either.
        let total = self.per_rule.entry(rule).or_insert(0);
        if *total >= MAX_PER_RULE {
            *self.suppressed.entry(rule).or_insert(0) += 1;
            return;
        }
        let key = token.clone().or_else(|| request_id.clone());
        let n = self.emitted.entry((rule, key)).or_insert(0);
        if *n >= self.cfg.max_per_key {
            *self.suppressed.entry(rule).or_insert(0) += 1;
            return;
        }
        *n += 1;
        *self.per_rule.entry(rule).or_insert(0) += 1;
        out.push(Finding {
            rule,
            party: rule.party(),
            severity: rule.severity(),
            seqs,
            token,
            request_id,
            message,
            session: None,
        });
    }

    // ---- client → server ------------------------------------------------

    fn outgoing(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        match ev.kind {
            FrameKind::Request => {
                self.client_request(ev, out);
                self.request(ev, out);
            }
            k if client::is_answer(k) => self.client_answer(ev, out),
            FrameKind::Notification if ev.method == Some(methods::CANCELLED) => {
                self.client_cancel(ev, out);
            }
            _ => {}
        }
    }

    fn request(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        let f = ev.frame();
        let Some(id) = f.id.clone() else { return };
        let params: Option<Value> = f
            .params
            .and_then(|p| serde_json::from_str::<Value>(p.get()).ok());
        let envelope = params.as_ref().and_then(|v| v.get(meta::META)).cloned();
        let augmented = params
            .as_ref()
            .is_some_and(|v| v.get("task").is_some_and(Value::is_object));
        if let Some(v) = envelope
            .as_ref()
            .and_then(|m| m.get(meta::PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .and_then(|s| s.parse::<Revision>().ok())
        {
            self.learn_revision(v);
        }
        let kind = match f.method.as_deref() {
            Some(methods::INITIALIZE) => ReqKind::Initialize,
            Some(methods::SERVER_DISCOVER) => ReqKind::Discover,
            Some(methods::SET_LEVEL) => ReqKind::SetLevel(
                params
                    .as_ref()
                    .and_then(|v| v.get("level").and_then(Value::as_str))
                    .and_then(|l| l.parse().ok()),
            ),
            Some(methods::TOOLS_LIST) => ReqKind::ToolsList {
                page: params
                    .as_ref()
                    .and_then(|v| v.get("cursor"))
                    .is_some_and(|c| !c.is_null()),
            },
            Some(methods::TOOLS_CALL) => ReqKind::ToolsCall,
            _ => ReqKind::Other,
        };
        if kind == ReqKind::Initialize {
            self.offered_version = shape::offered_version(f.params);
            if let Some(c) = params.as_ref().and_then(|p| p.get("capabilities")) {
                self.client_caps = Some((capabilities::ClientCaps::parse(c), ev.seq));
            }
        }
        let caps = envelope
            .as_ref()
            .and_then(|m| m.get(meta::CLIENT_CAPABILITIES))
            .map(capabilities::ClientCaps::parse);
        let tool = (kind == ReqKind::ToolsCall)
            .then(|| params.as_ref()?.get("name")?.as_str().map(Box::from))
            .flatten();
        let log_level = envelope
            .as_ref()
            .and_then(|m| m.get(meta::LOG_LEVEL))
            .map(|l| l.as_str().and_then(|s| s.parse().ok()));
        self.deprecated_by_client(ev, caps, log_level.is_some(), out);
        if let Some(p) = &params {
            self.tasks_mentioned(p);
        }
        let ri = self.next_req_slot();
        let token = f.progress_token().map(|raw| {
            let key = IdKey::from_raw(raw.get());
            let slot = self.tok_slot(key);
            self.toks[slot as usize].restart(ri, ev.t_us, ev.seq);
            slot
        });
        if ev.channel.starts_with("post") {
            self.req_channels.insert(ev.channel.into(), ri);
        }
        self.place(Req {
            serial: 0,
            stage: Stage::Open,
            id: id.clone(),
            seq: ev.seq,
            t_us: ev.t_us,
            kind,
            channel: ev.channel.into(),
            token,
            log_level,
            response: None,
            cancel: None,
            gone: false,
            task: None,
            task_query: tasks::query(f.method.as_deref()),
            augmented,
            caps,
            tool,
            changed: injected::Changed::after(&self.faults),
        });
        self.req_ids.insert(id, ri);
    }

    fn learn_revision(&mut self, r: Revision) {
        self.revision = Some(r);
        if self.cfg.era.is_none() {
            self.era = r.era();
        }
    }

    // ---- server → client ------------------------------------------------

    fn incoming(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        match ev.kind {
            FrameKind::Notification => match ev.method {
                Some(methods::PROGRESS) => self.progress(ev, out),
                Some(methods::MESSAGE) => self.log(ev, out),
                Some(methods::TOOLS_LIST_CHANGED) => self.tool_safety.announced(ev.seq),
                m if tasks::is_status_notification(m) => self.task_notification(ev, out),
                _ => {}
            },
            FrameKind::Response | FrameKind::ErrorResponse => self.response(ev, out),
            FrameKind::Request => {
                self.judge_server_request(ev, out);
                self.server_request(ev);
            }
            // A cut frame is judged by the `oversized` event after it.
            _ if ev.flags & flags::CUT != 0 => {}
            // The body of an HTTP error status is an HTTP error, reported as such.
            FrameKind::NotJsonRpc | FrameKind::NotJson | FrameKind::InvalidUtf8
                if self.http.error_body(ev.channel).is_some() => {}
            FrameKind::NotJsonRpc => {
                let f = ev.frame();
                let why = f
                    .problem
                    .unwrap_or_else(|| "not a JSON-RPC 2.0 message".into());
                self.emit(
                    out,
                    Rule::JsonrpcInvalid,
                    vec![ev.seq],
                    None,
                    None,
                    format!("the server sent JSON that is not a JSON-RPC 2.0 message: {why}"),
                );
            }
            FrameKind::NotJson | FrameKind::InvalidUtf8 => {
                let preview = preview(ev.bytes);
                if ev.channel == "stdio" {
                    self.emit(
                        out,
                        Rule::StdoutNotJsonrpc,
                        vec![ev.seq],
                        None,
                        None,
                        format!(
                            "the server wrote a line to stdout that is not JSON ({preview}); stdout must carry only MCP messages — log to stderr instead"
                        ),
                    );
                } else {
                    self.emit(
                        out,
                        Rule::JsonrpcInvalid,
                        vec![ev.seq],
                        None,
                        None,
                        format!("the server sent a frame that is not JSON ({preview})"),
                    );
                }
            }
            // Blank lines carry nothing; batches are checked element by element.
            FrameKind::Empty | FrameKind::Batch => {}
        }
    }

    /// A finding about token `slot` of request `ri`; the message is written
    /// with both in hand.
    fn emit_for(
        &mut self,
        out: &mut Vec<Finding>,
        rule: Rule,
        seqs: Vec<u64>,
        slot: usize,
        ri: usize,
        message: impl FnOnce(&IdKey, &IdKey) -> String,
    ) {
        let (key, rid) = (self.toks[slot].key.clone(), self.reqs[ri].id.clone());
        let message = message(&key, &rid);
        self.emit(out, rule, seqs, Some(key), Some(rid), message);
    }

    /// Something showed request `ri` alive at `t`: a silence before it that
    /// was longer than the threshold is a stall (unless `tick` saw it already).
    #[inline(always)]
    fn gap_ends(&mut self, slot: usize, ri: usize, t: u64, seq: u64, out: &mut Vec<Finding>) {
        let tok = &mut self.toks[slot];
        if tok.req != Some(ri) {
            return;
        }
        let (since, s0) = tok.activity;
        let reported = std::mem::replace(&mut tok.stall_reported, false);
        tok.activity = (t, seq);
        let gap = t.saturating_sub(since);
        if gap > self.cfg.stall_us && !reported && !self.waiting_on_client() {
            self.stalled(slot, ri, gap, vec![s0, seq], "", out);
        }
    }

    fn stalled(
        &mut self,
        slot: usize,
        ri: usize,
        gap: u64,
        seqs: Vec<u64>,
        so_far: &str,
        out: &mut Vec<Finding>,
    ) {
        let key = self.toks[slot].key.clone();
        let rid = self.reqs[ri].id.clone();
        let so_far = if so_far.is_empty() {
            String::new()
        } else {
            format!(" {so_far}")
        };
        self.emit(
            out,
            Rule::ProgressStalled,
            seqs,
            Some(key.clone()),
            Some(rid.clone()),
            format!(
                "request {rid} (token {key}) went {}{so_far} without a progress notification (threshold {}); send heartbeats during long silent phases",
                secs(gap),
                secs(self.cfg.stall_us)
            ),
        );
    }
}
