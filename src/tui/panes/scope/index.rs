//! The Scope's index: per lane and per kind of mark, the arrival times (and
//! seqs) in arrival order, appended by the sync step from what the store
//! gained. Times only grow within a track, so the marks in any time range
//! are found by two binary searches: a column's count never scans events.
//!
//! Bounded like everything fed from outside: at most `MAX_MARKS` marks
//! (16 bytes each) and `MAX_CALL_LANES` call lanes (later calls go to the
//! session lane), `MAX_STREAMS` stream lanes (later streams share the
//! last one). Marks past the bound are counted, never silently lost;
//! marks of evicted events are dropped with them.
//!
//! A call and its input rounds (2026-07-28: `input_required`, then a retry
//! with `inputResponses`) are one lane, the first request's: the core's
//! [`Asking`] says which call a retry answers. Its rounds are steps on it:
//! the `input_required` result an ask mark, the retry an answer mark, and
//! the server resuming whatever it sends next.

use crate::calls::input::{Asking, Retry, asked_state};
use crate::protocol::IdKey;
use crate::protocol::frame::FrameKind;
use crate::protocol::methods;
use crate::protocol::views::{CancelledView, LogLevel, LogView};
use crate::trace::{Dir, EventRef, Origin, Store};
use crate::tui::format::safe;
use std::collections::HashMap;

/// Marks kept at most (about 64 MiB).
pub const MAX_MARKS: usize = 4_000_000;
/// Call lanes at most; later calls are marked on the session lane.
pub const MAX_CALL_LANES: usize = 4096;
/// Stream lanes at most; later streams share the last one.
pub const MAX_STREAMS: usize = 256;
/// Server spans kept per call lane; the rest are counted.
pub const MAX_SPANS_PER_LANE: usize = 64;
/// Traces remembered to place late spans (one per call lane at most).
const MAX_TRACES: usize = MAX_CALL_LANES;
/// Request ids (a call's first and its retries) tied to call lanes at most.
pub const MAX_CALL_IDS: usize = 4 * MAX_CALL_LANES;

/// A span the server exported in a call's trace: its times are the
/// server's wall clock (placed on the session's axis when drawn).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanBar {
    pub name: String,
    pub start_ns: u64,
    pub end_ns: u64,
    pub error: bool,
}

/// What a mark shows: the kind of event at that time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    /// A request sent (ours, or the host's in a proxied session).
    Request,
    Response,
    /// An error response, or a result with `isError: true`; a frame that
    /// is not a valid message.
    Failure,
    Cancel,
    /// A request from the server (elicitation, sampling, roots…).
    Ask,
    /// The answer to a server request.
    Answer,
    Progress,
    /// Any other notification, stderr line or transport event.
    Note,
    Log(LogLevel),
}

/// Tracks per lane: the eight plain marks and one per log level.
pub const TRACKS: usize = 8 + 8;

impl Mark {
    pub fn track(self) -> usize {
        match self {
            Mark::Request => 0,
            Mark::Response => 1,
            Mark::Failure => 2,
            Mark::Cancel => 3,
            Mark::Ask => 4,
            Mark::Answer => 5,
            Mark::Progress => 6,
            Mark::Note => 7,
            Mark::Log(l) => 8 + l.index(),
        }
    }

    pub fn from_track(i: usize) -> Mark {
        match i {
            0 => Mark::Request,
            1 => Mark::Response,
            2 => Mark::Failure,
            3 => Mark::Cancel,
            4 => Mark::Ask,
            5 => Mark::Answer,
            6 => Mark::Progress,
            7 => Mark::Note,
            i => Mark::Log(LogLevel::ALL[(i - 8).min(7)]),
        }
    }

    /// Which mark a column shows when it holds several, first wins: the
    /// ends of a call before its start, rare marks before dense ones, the
    /// worst log level before milder ones.
    pub const PRIORITY: [usize; TRACKS] = [2, 3, 1, 0, 4, 5, 15, 14, 13, 12, 11, 10, 9, 8, 6, 7];

    /// Dense marks are drawn as a height (how many in the column); the
    /// others as a symbol.
    pub fn is_dense(self) -> bool {
        matches!(self, Mark::Progress | Mark::Note | Mark::Log(_))
    }
}

/// One kind of mark in one lane: times and seqs, in arrival order.
#[derive(Debug, Default, Clone)]
pub struct Track {
    pub t: Vec<u64>,
    pub seq: Vec<u64>,
}

impl Track {
    pub fn len(&self) -> usize {
        self.t.len()
    }

    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// Marks with `lo <= t < hi`.
    pub fn count(&self, lo: u64, hi: u64) -> usize {
        self.first_at(hi) - self.first_at(lo)
    }

    /// Position of the first mark at or after `t`.
    pub fn first_at(&self, t: u64) -> usize {
        self.t.partition_point(|x| *x < t)
    }

    /// Counts per column for columns bounded by `edges` (one more edge
    /// than columns, ascending). One binary search for the first edge,
    /// then a galloping search from where the last column ended: each
    /// step probes near the previous one, so a million marks cost about
    /// what a thousand do (a plain binary search per edge would touch
    /// memory all over the track, a cache miss per probe).
    pub fn bin(&self, edges: &[u64], out: &mut Vec<u32>) {
        out.clear();
        let t = &self.t;
        let len = t.len();
        let mut at = self.first_at(edges.first().copied().unwrap_or(0));
        for w in edges.windows(2) {
            let hi = w[1];
            // Every mark before `lo` is earlier than `hi`.
            let mut lo = at;
            let mut probe = at;
            let mut step = 1usize;
            while probe < len && t[probe] < hi {
                lo = probe + 1;
                probe = lo.saturating_add(step);
                step = step.saturating_mul(2);
            }
            let end = probe.min(len);
            let next = lo + t[lo..end].partition_point(|x| *x < hi);
            out.push((next - at).min(u32::MAX as usize) as u32);
            at = next;
        }
    }

    fn push(&mut self, t: u64, seq: u64) {
        // Arrival order is time order; a clock that stepped back (a
        // recorded trace edited by hand) is drawn at the latest time seen.
        let t = t.max(self.t.last().copied().unwrap_or(0));
        self.t.push(t);
        self.seq.push(seq);
    }

    /// Forget marks of events before `first_seq`; returns how many.
    fn prune(&mut self, first_seq: u64) -> usize {
        let n = self.seq.partition_point(|s| *s < first_seq);
        if n > 0 {
            self.t.drain(..n);
            self.seq.drain(..n);
        }
        n
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneKind {
    Call,
    Logs,
    Notifications,
    /// The server's requests and our answers.
    Asks,
    /// The session's other requests and responses (initialize, lists…).
    Session,
    /// Stderr lines and what mcpscope observed about the connection.
    Transport,
    /// One HTTP stream (channel).
    Stream,
}

#[derive(Debug, Clone)]
pub struct Lane {
    pub kind: LaneKind,
    pub label: String,
    /// A call lane's request id.
    pub id: Option<IdKey>,
    pub tracks: Vec<Track>,
    /// A call lane: when its request was sent, and its first response.
    pub sent_us: Option<u64>,
    pub response_us: Option<u64>,
    /// A call lane: the server's spans in the call's trace, by arrival.
    pub spans: Vec<SpanBar>,
    pub spans_dropped: u64,
    /// A call lane: its tool, as sent (a retry of the same tool may answer
    /// its round).
    tool: Option<String>,
}

impl Lane {
    fn new(kind: LaneKind, label: String) -> Lane {
        Lane {
            kind,
            label,
            id: None,
            tracks: vec![Track::default(); TRACKS],
            sent_us: None,
            response_us: None,
            spans: Vec::new(),
            spans_dropped: 0,
            tool: None,
        }
    }

    pub fn track(&self, m: Mark) -> &Track {
        &self.tracks[m.track()]
    }

    pub fn is_empty(&self) -> bool {
        self.tracks.iter().all(Track::is_empty)
    }

    pub fn marks(&self) -> usize {
        self.tracks.iter().map(Track::len).sum()
    }

    /// The mark a column `[lo, hi)` shows first (see `Mark::PRIORITY`),
    /// with its seq and time.
    pub fn top_in(&self, lo: u64, hi: u64) -> Option<(Mark, u64, u64)> {
        for i in Mark::PRIORITY {
            let tr = &self.tracks[i];
            let at = tr.first_at(lo);
            if at < tr.len() && tr.t[at] < hi {
                return Some((Mark::from_track(i), tr.seq[at], tr.t[at]));
            }
        }
        None
    }

    /// The time of the first mark at or after `t`, in any track.
    pub fn next_from(&self, t: u64) -> Option<u64> {
        self.tracks
            .iter()
            .filter_map(|tr| tr.t.get(tr.first_at(t)).copied())
            .min()
    }

    /// The time of the last mark before `t`, in any track.
    pub fn prev_before(&self, t: u64) -> Option<u64> {
        self.tracks
            .iter()
            .filter_map(|tr| tr.first_at(t).checked_sub(1).map(|i| tr.t[i]))
            .max()
    }

    /// The mark nearest to `t` in any track (ties go to the earlier one).
    pub fn nearest(&self, t: u64) -> Option<(Mark, u64, u64)> {
        let mut best: Option<(u64, Mark, u64, u64)> = None;
        for (i, tr) in self.tracks.iter().enumerate() {
            let at = tr.first_at(t);
            for j in [at.checked_sub(1), Some(at)].into_iter().flatten() {
                if j < tr.len() {
                    let d = tr.t[j].abs_diff(t);
                    if best.is_none_or(|b| d < b.0 || (d == b.0 && tr.seq[j] < b.3)) {
                        best = Some((d, Mark::from_track(i), tr.t[j], tr.seq[j]));
                    }
                }
            }
        }
        best.map(|(_, m, t, s)| (m, s, t))
    }
}

/// The fixed lanes, in the order they are drawn below the calls.
const FIXED: [(LaneKind, &str); 5] = [
    (LaneKind::Logs, "logs"),
    (LaneKind::Notifications, "notifications"),
    (LaneKind::Asks, "server requests"),
    (LaneKind::Session, "session"),
    (LaneKind::Transport, "stderr · transport"),
];

#[derive(Debug)]
pub struct ScopeIndex {
    /// One lane per call, in the order the calls started.
    pub calls: Vec<Lane>,
    /// Logs, notifications, server requests, session, transport.
    pub fixed: Vec<Lane>,
    /// HTTP: one lane per stream, in the order they first carried an event.
    pub streams: Vec<Lane>,
    call_ids: HashMap<IdKey, usize>,
    /// The trace a call's `traceparent` started → its lane.
    traces: HashMap<String, usize>,
    /// Token slot → (its serial, the call lane).
    tokens: HashMap<u32, (u64, usize)>,
    stream_ids: HashMap<String, usize>,
    /// Call lanes whose last answer asked for input, waiting for the retry.
    asking: Asking,
    scanned_to: u64,
    first_seq: u64,
    marks: usize,
    /// Marks not kept (the bound was reached).
    pub dropped: u64,
    /// Retries not tied to their call's lane (`MAX_CALL_IDS` reached):
    /// their marks go to the session lane.
    pub ids_dropped: u64,
    last_us: u64,
}

impl Default for ScopeIndex {
    fn default() -> Self {
        ScopeIndex {
            calls: Vec::new(),
            fixed: FIXED
                .iter()
                .map(|(k, l)| Lane::new(*k, (*l).to_string()))
                .collect(),
            streams: Vec::new(),
            call_ids: HashMap::new(),
            traces: HashMap::new(),
            tokens: HashMap::new(),
            stream_ids: HashMap::new(),
            asking: Asking::default(),
            scanned_to: 0,
            first_seq: 0,
            marks: 0,
            dropped: 0,
            ids_dropped: 0,
            last_us: 0,
        }
    }
}

#[derive(serde::Deserialize)]
struct CallParams {
    name: Option<String>,
    #[serde(rename = "inputResponses", default)]
    input_responses: Option<serde::de::IgnoredAny>,
    #[serde(rename = "requestState", default)]
    request_state: Option<serde_json::Value>,
}

impl ScopeIndex {
    /// The latest time marked.
    pub fn last_us(&self) -> u64 {
        self.last_us
    }

    /// Marks kept now.
    pub fn marks(&self) -> usize {
        self.marks
    }

    /// Bytes the index holds (its tracks; the lane maps are small).
    pub fn mem_bytes(&self) -> usize {
        self.lanes_all()
            .flat_map(|l| l.tracks.iter())
            .map(|t| (t.t.capacity() + t.seq.capacity()) * 8)
            .sum()
    }

    fn lanes_all(&self) -> impl Iterator<Item = &Lane> {
        self.calls
            .iter()
            .chain(self.fixed.iter())
            .chain(self.streams.iter())
    }

    /// The lanes drawn, in order: every call, the fixed lanes that have
    /// marks, and (when asked) the streams.
    pub fn shown(&self, streams: bool) -> Vec<&Lane> {
        let mut out: Vec<&Lane> = self.calls.iter().collect();
        out.extend(self.fixed.iter().filter(|l| !l.is_empty()));
        if streams {
            out.extend(self.streams.iter());
        }
        out
    }

    /// Take in what the store gained, at most `budget` events per call.
    /// Returns true when caught up.
    pub fn sync(&mut self, store: &Store, budget: u64) -> bool {
        let first = store.first_seq();
        if first > self.first_seq {
            self.prune(first);
        }
        let from = self.scanned_to.max(first);
        let to = store.next_seq().min(from.saturating_add(budget));
        for ev in store.range(from, to) {
            self.add(store, &ev);
        }
        self.scanned_to = to;
        to >= store.next_seq()
    }

    fn prune(&mut self, first_seq: u64) {
        self.first_seq = first_seq;
        let mut gone = 0;
        for l in self
            .calls
            .iter_mut()
            .chain(self.fixed.iter_mut())
            .chain(self.streams.iter_mut())
        {
            for t in &mut l.tracks {
                gone += t.prune(first_seq);
            }
        }
        self.marks -= gone.min(self.marks);
    }

    fn mark(&mut self, lane: LaneRef, m: Mark, ev: &EventRef<'_>) {
        if self.marks >= MAX_MARKS {
            self.dropped += 1;
            return;
        }
        let l = match lane {
            LaneRef::Call(i) => &mut self.calls[i],
            LaneRef::Fixed(k) => &mut self.fixed[k],
            LaneRef::Stream(i) => &mut self.streams[i],
        };
        l.tracks[m.track()].push(ev.t_us, ev.seq);
        self.marks += 1;
        self.last_us = self.last_us.max(ev.t_us);
    }

    fn fixed_lane(kind: LaneKind) -> LaneRef {
        LaneRef::Fixed(FIXED.iter().position(|(k, _)| *k == kind).unwrap_or(0))
    }

    /// Classify one event and mark it on its lane (and its stream's).
    fn add(&mut self, store: &Store, ev: &EventRef<'_>) {
        if ev.kind == FrameKind::Batch {
            // Its elements follow, each an event of its own.
            return;
        }
        if ev.dir == Dir::Meta && ev.method == Some("otel-span") {
            self.span(ev);
        }
        let (lane, mark) = self.classify(store, ev);
        self.mark(lane, mark, ev);
        if matches!(ev.dir, Dir::In | Dir::Out | Dir::Meta) && ev.channel != "stdio" {
            let s = self.stream(ev.channel);
            self.mark(LaneRef::Stream(s), mark, ev);
        }
    }

    fn stream(&mut self, channel: &str) -> usize {
        if let Some(i) = self.stream_ids.get(channel) {
            return *i;
        }
        if self.streams.len() >= MAX_STREAMS {
            let last = self.streams.len() - 1;
            self.streams[last].label = "other streams".into();
            return last;
        }
        self.streams
            .push(Lane::new(LaneKind::Stream, safe(channel, 40)));
        let i = self.streams.len() - 1;
        self.stream_ids.insert(channel.to_string(), i);
        i
    }

    fn classify(&mut self, store: &Store, ev: &EventRef<'_>) -> (LaneRef, Mark) {
        use LaneKind::*;
        match ev.dir {
            Dir::Stderr | Dir::Meta => return (Self::fixed_lane(Transport), Mark::Note),
            Dir::In | Dir::Out => {}
        }
        // Progress is most of a flood: its token slot, parsed at ingest,
        // names the call without looking at the bytes.
        if let Some(p) = ev.progress {
            return match self.tokens.get(&p.slot) {
                Some((serial, lane)) if *serial == p.serial => {
                    (LaneRef::Call(*lane), Mark::Progress)
                }
                _ => (Self::fixed_lane(Notifications), Mark::Progress),
            };
        }
        let out = ev.dir == Dir::Out;
        match ev.kind {
            FrameKind::Request if out => {
                let f = ev.frame();
                let lane = match (ev.method, f.id) {
                    (Some(methods::TOOLS_CALL), Some(id)) => self.open_call(store, ev, id),
                    _ => None,
                };
                match lane {
                    Some((lane, mark)) => (LaneRef::Call(lane), mark),
                    None => (Self::fixed_lane(Session), Mark::Request),
                }
            }
            FrameKind::Request => (Self::fixed_lane(Asks), Mark::Ask),
            FrameKind::Response | FrameKind::ErrorResponse if out => {
                (Self::fixed_lane(Asks), Mark::Answer)
            }
            FrameKind::Response | FrameKind::ErrorResponse => {
                let f = ev.frame();
                let failed = ev.kind == FrameKind::ErrorResponse
                    || f.result
                        .is_some_and(crate::protocol::views::result_is_error);
                let mark = if failed {
                    Mark::Failure
                } else {
                    Mark::Response
                };
                match f.id.and_then(|id| self.call_ids.get(&id).copied()) {
                    Some(i) => {
                        let l = &mut self.calls[i];
                        // A round asking for input: the call goes on.
                        if let Some(state) = f.result.and_then(|r| asked_state(r.get())) {
                            let tool = l.tool.clone();
                            self.asking.asked(i, tool.as_deref(), state);
                            return (LaneRef::Call(i), Mark::Ask);
                        }
                        l.response_us.get_or_insert(ev.t_us);
                        (LaneRef::Call(i), mark)
                    }
                    None => (Self::fixed_lane(Session), mark),
                }
            }
            FrameKind::Notification if ev.method == Some(methods::CANCELLED) => {
                let f = ev.frame();
                let lane = CancelledView::parse(f.params)
                    .and_then(|c| self.call_ids.get(&c.request_id).copied());
                match lane {
                    Some(i) => (LaneRef::Call(i), Mark::Cancel),
                    None => (Self::fixed_lane(Session), Mark::Cancel),
                }
            }
            FrameKind::Notification if ev.method == Some(methods::MESSAGE) && !out => {
                let f = ev.frame();
                let level = LogView::parse(f.params)
                    .ok()
                    .and_then(|l| l.level.ok())
                    .unwrap_or(LogLevel::Error);
                (Self::fixed_lane(Logs), Mark::Log(level))
            }
            FrameKind::Notification if out => (Self::fixed_lane(Session), Mark::Note),
            FrameKind::Notification => (Self::fixed_lane(Notifications), Mark::Note),
            // Not a valid message: a problem, drawn where the session is.
            _ => (Self::fixed_lane(Session), Mark::Failure),
        }
    }

    /// A span the server exported: a bar on the lane of the call whose
    /// trace it is in (late ones too: spans come when exporters flush).
    fn span(&mut self, ev: &EventRef<'_>) {
        let Some(crate::event::Event::OtelSpan {
            name,
            trace_id,
            start_ns,
            end_ns,
            status,
            ..
        }) = ev.event()
        else {
            return;
        };
        let Some(&i) = self.traces.get(&trace_id) else {
            return;
        };
        let lane = &mut self.calls[i];
        if lane.spans.len() >= MAX_SPANS_PER_LANE {
            lane.spans_dropped += 1;
            return;
        }
        lane.spans.push(SpanBar {
            name: safe(&name, 60),
            start_ns,
            end_ns: end_ns.max(start_ns),
            error: status == "error",
        });
    }

    /// The call lane for the `tools/call` request `ev` and its mark: a
    /// resent id reuses its lane, a retry answering a round joins the
    /// lane of the call it answers (an answer mark), any other call opens
    /// a lane while there is room.
    fn open_call(&mut self, store: &Store, ev: &EventRef<'_>, id: IdKey) -> Option<(usize, Mark)> {
        if let Some(i) = self.call_ids.get(&id) {
            return Some((*i, Mark::Request));
        }
        let f = ev.frame();
        let params = f
            .params
            .and_then(|p| serde_json::from_str::<CallParams>(p.get()).ok());
        let tool = params.as_ref().and_then(|p| p.name.clone());
        let retry = params
            .filter(|p| p.input_responses.is_some())
            .map(|p| Retry {
                tool: tool.clone(),
                state: p.request_state,
            });
        if let Some(i) = retry.and_then(|r| self.asking.answer(&r)) {
            if self.call_ids.len() >= MAX_CALL_IDS {
                self.ids_dropped += 1;
                return None;
            }
            self.link(store, ev, id, i);
            return Some((i, Mark::Answer));
        }
        if self.calls.len() >= MAX_CALL_LANES {
            return None;
        }
        let name = tool.as_deref().unwrap_or("tools/call");
        let mut lane = Lane::new(LaneKind::Call, format!("{} #{id}", safe(name, 40)));
        lane.id = Some(id.clone());
        lane.sent_us = Some(ev.t_us);
        lane.tool = tool;
        self.calls.push(lane);
        let i = self.calls.len() - 1;
        self.link(store, ev, id, i);
        Some((i, Mark::Request))
    }

    /// The request `ev` (id `id`) is call lane `i`'s: its answers, its
    /// progress and the server's spans of its trace land there.
    fn link(&mut self, store: &Store, ev: &EventRef<'_>, id: IdKey, i: usize) {
        if self.traces.len() < MAX_TRACES
            && let Some(tp) = crate::protocol::trace_context::traceparent_of(ev.bytes)
        {
            self.traces.insert(tp.trace_id, i);
        }
        if let Some(slot) = store.request(Origin::Client, &id).and_then(|r| r.token)
            && let Some(t) = store.token_by_slot(slot)
        {
            self.tokens.insert(slot, (t.serial, i));
        }
        self.call_ids.insert(id, i);
    }
}

#[derive(Debug, Clone, Copy)]
enum LaneRef {
    Call(usize),
    Fixed(usize),
    Stream(usize),
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::trace::{ManualClock, Trace};
    use serde_json::json;

    /// An index of stderr lines at `times` (µs).
    pub(crate) fn indexed(times: &[u64]) -> ScopeIndex {
        let (tr, _) = trace();
        for t in times {
            tr.append(|s, _| s.append_stderr("stdio", *t, b"line"));
        }
        let mut ix = ScopeIndex::default();
        ix.sync(&tr.read(), 1000);
        ix
    }

    fn trace() -> (Trace, std::sync::Arc<ManualClock>) {
        let clock = ManualClock::new();
        (
            Trace::new(crate::trace::Store::default(), clock.clone()),
            clock,
        )
    }

    fn out(tr: &Trace, t: u64, v: serde_json::Value) {
        let b = v.to_string();
        tr.append(|s, _| s.append_frame(Dir::Out, "stdio", t, b.as_bytes(), &mut Vec::new()));
    }

    fn inn(tr: &Trace, t: u64, v: serde_json::Value) {
        let b = v.to_string();
        tr.append(|s, _| s.append_frame(Dir::In, "stdio", t, b.as_bytes(), &mut Vec::new()));
    }

    fn call(tr: &Trace, t: u64, id: i64, tool: &str) {
        out(
            tr,
            t,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": {}, "_meta": {"progressToken": format!("tok-{id}")}}}),
        );
    }

    fn progress(tr: &Trace, t: u64, id: i64, p: u64) {
        inn(
            tr,
            t,
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": format!("tok-{id}"), "progress": p}}),
        );
    }

    #[test]
    fn events_land_on_their_lanes() {
        let (tr, _) = trace();
        call(&tr, 10, 1, "upload_file");
        call(&tr, 20, 2, "flood");
        progress(&tr, 30, 1, 1);
        progress(&tr, 40, 2, 1);
        progress(&tr, 50, 9, 1);
        inn(
            &tr,
            60,
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "warning", "data": "w"}}),
        );
        inn(
            &tr,
            70,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": true}}),
        );
        inn(&tr, 80, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
        out(
            &tr,
            90,
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2}}),
        );
        tr.append(|s, _| s.append_stderr("stdio", 95, b"hello"));
        let mut ix = ScopeIndex::default();
        assert!(ix.sync(&tr.read(), 1000));
        let labels: Vec<&str> = ix.shown(false).iter().map(|l| l.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "upload_file #1",
                "flood #2",
                "logs",
                "notifications",
                "stderr · transport"
            ]
        );
        let a = &ix.calls[0];
        assert_eq!(a.track(Mark::Request).t, [10]);
        assert_eq!(a.track(Mark::Progress).t, [30]);
        assert_eq!(a.track(Mark::Failure).t, [70]);
        assert_eq!(a.response_us, Some(70));
        let b = &ix.calls[1];
        assert_eq!(b.track(Mark::Progress).t, [40]);
        assert_eq!(b.track(Mark::Response).t, [80]);
        assert_eq!(b.track(Mark::Cancel).t, [90]);
        assert_eq!(
            ix.fixed[0].track(Mark::Log(LogLevel::Warning)).t,
            [60],
            "logs by level"
        );
        assert_eq!(ix.fixed[1].track(Mark::Progress).t, [50], "unknown token");
        assert_eq!(ix.marks(), 10);
    }

    #[test]
    fn a_columns_counts_equal_the_events_in_its_range() {
        let (tr, _) = trace();
        call(&tr, 0, 1, "flood");
        // Irregular times: bursts, gaps, repeats.
        let mut times = Vec::new();
        let mut t = 5u64;
        for i in 0..5000u64 {
            t += match i % 7 {
                0 => 0,
                1 => 1,
                2 => 13,
                3 => 400,
                _ => 3,
            };
            times.push(t);
            progress(&tr, t, 1, i + 1);
        }
        let mut ix = ScopeIndex::default();
        // In small batches, as a live session's syncs take them.
        while !ix.sync(&tr.read(), 333) {}
        let track = ix.calls[0].track(Mark::Progress);
        assert_eq!(track.len(), 5000);
        for (start, span, cols) in [(0u64, 100_000u64, 160usize), (1000, 777, 77), (t, 50, 3)] {
            let edges: Vec<u64> = (0..=cols)
                .map(|c| start + (span as u128 * c as u128 / cols as u128) as u64)
                .collect();
            let mut bins = Vec::new();
            track.bin(&edges, &mut bins);
            assert_eq!(bins.len(), cols);
            for c in 0..cols {
                let want = times
                    .iter()
                    .filter(|x| **x >= edges[c] && **x < edges[c + 1])
                    .count();
                assert_eq!(bins[c] as usize, want, "column {c} of {start}+{span}");
                assert_eq!(track.count(edges[c], edges[c + 1]), want);
            }
        }
    }

    #[test]
    fn evicted_events_leave_the_index() {
        let (tr, _) = trace();
        call(&tr, 0, 1, "flood");
        for i in 0..10 {
            progress(&tr, 10 + i, 1, i + 1);
        }
        let mut ix = ScopeIndex::default();
        ix.sync(&tr.read(), 1000);
        assert_eq!(ix.marks(), 11);
        for t in &mut ix.calls[0].tracks {
            // As if the first six events were evicted.
            let _ = t.prune(6);
        }
        ix.marks = ix.calls[0].marks();
        assert_eq!(ix.calls[0].track(Mark::Progress).t.first(), Some(&15));
        assert_eq!(ix.marks(), 5);
    }

    #[test]
    fn the_cursor_reads_the_top_mark_or_the_nearest() {
        let (tr, _) = trace();
        call(&tr, 100, 1, "flood");
        progress(&tr, 150, 1, 1);
        progress(&tr, 160, 1, 2);
        inn(&tr, 170, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
        let mut ix = ScopeIndex::default();
        ix.sync(&tr.read(), 1000);
        let l = &ix.calls[0];
        assert_eq!(l.top_in(140, 200).map(|m| m.0), Some(Mark::Response));
        assert_eq!(
            l.top_in(140, 165).map(|m| (m.0, m.1)),
            Some((Mark::Progress, 1))
        );
        assert_eq!(l.top_in(0, 100), None);
        assert_eq!(l.nearest(10).map(|m| m.0), Some(Mark::Request));
        assert_eq!(l.nearest(158).map(|m| m.2), Some(160));
    }
}
