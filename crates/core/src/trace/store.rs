//! The append-only event store: every frame, stderr line and transport event of
//! a session, in arrival order, with its exact bytes.
//!
//! Layout: events live in chunks (a byte arena plus fixed-size metadata), so a
//! stored event costs its bytes plus 24 bytes, and eviction under a memory bound
//! drops whole chunks from the front. Indexes (request id, progress token, log
//! level) hold sequence numbers, never copies.

use super::index::{Indexes, push_seq};
pub use super::index::{RequestEntry, TokenEntry};
use super::intern::{self, Interner};
use super::record::Recorder;
use super::spare::Spare;
pub use super::stored::{Dir, EventRef, Origin, ProgressInfo, flags};
use crate::protocol::frame::{COMPACT_PROGRESS, Frame, FrameKind, classify};
use crate::protocol::id::IdKey;
use crate::protocol::methods;
use crate::protocol::views::{LogLevel, LogView, ProgressView};
use held::Held;
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy)]
struct EventMeta {
    t_us: u64,
    /// Valid progress notifications only (NaN otherwise, which JSON cannot
    /// carry): the parsed values, so no consumer has to parse the frame again.
    progress: f64,
    /// NaN when the notification has no total.
    total: f64,
    /// Where the frame's bytes end in its chunk; they start where the
    /// previous event's end (a chunk's first event at 0).
    end: u32,
    channel: u32,
    /// The token's slot for a progress notification (whose method is
    /// implied), the interned method otherwise.
    aux: u32,
    dir: Dir,
    kind: FrameKind,
    flags: u8,
}

impl EventMeta {
    fn is_progress(&self) -> bool {
        !self.progress.is_nan()
    }
}

// The memory budget (≤ 1.3× the raw bytes of a flood) rests on this size.
const _: () = assert!(std::mem::size_of::<EventMeta>() == 40);

const CHUNK_BYTES: usize = 4 << 20;

struct Chunk {
    first_seq: u64,
    bytes: Vec<u8>,
    events: Vec<EventMeta>,
}

impl Chunk {
    fn new(first_seq: u64, bytes: Vec<u8>, events: usize) -> Chunk {
        Chunk {
            first_seq,
            bytes,
            events: Vec::with_capacity(events.max(64)),
        }
    }
    fn mem(&self) -> usize {
        self.bytes.capacity() + self.events.capacity() * std::mem::size_of::<EventMeta>()
    }
}

/// What the session engine must act on after an append.
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// A response (or error response) to one of our requests.
    Response { id: IdKey, seq: u64 },
    /// The server asks us something; answer it.
    ServerRequest { id: IdKey, seq: u64 },
    /// A frame that is not a valid response but plainly answers a request of
    /// ours still awaiting its response (its id, or an integral float of it):
    /// the request is failed at once with `why` instead of waiting it out.
    Malformed { id: IdKey, seq: u64, why: String },
}

/// Bounds and options of a store.
#[derive(Debug, Clone)]
pub struct StoreLimits {
    /// Evict the oldest events when stored bytes exceed this.
    pub max_bytes: usize,
}

impl Default for StoreLimits {
    fn default() -> Self {
        StoreLimits { max_bytes: 2 << 30 }
    }
}

pub struct Store {
    chunks: VecDeque<Chunk>,
    next_seq: u64,
    evicted: u64,
    mem: usize,
    limits: StoreLimits,
    methods: Interner,
    channels: Interner,
    idx: Indexes,
    recorder: Option<Recorder>,
    spare: Spare,
}

impl Default for Store {
    fn default() -> Self {
        Store::new(StoreLimits::default())
    }
}

impl Store {
    pub fn new(limits: StoreLimits) -> Store {
        Store {
            chunks: VecDeque::new(),
            next_seq: 0,
            evicted: 0,
            mem: 0,
            limits,
            methods: Interner::default(),
            channels: Interner::default(),
            idx: Indexes::default(),
            recorder: None,
            spare: Spare::default(),
        }
    }

    /// An empty store with the same bounds, recording nothing.
    pub fn emptied(&self) -> Store {
        Store::new(self.limits.clone())
    }

    /// Record every appended event to `rec` from now on.
    pub fn set_recorder(&mut self, rec: Recorder) {
        self.recorder = Some(rec);
    }

    /// The recorder's batches waiting for the disk, if it records.
    pub fn recorder_backlog(&self) -> Option<super::record::Backlog> {
        self.recorder.as_ref().map(Recorder::backlog)
    }

    pub fn recorder_error(&self) -> Option<&str> {
        self.recorder.as_ref().and_then(Recorder::error)
    }

    /// Hand the batch's lines to the recording's writer (called at the end
    /// of each ingest batch; never waits for the disk).
    pub fn end_batch(&mut self) {
        if let Some(r) = &mut self.recorder {
            r.hand_off();
        }
    }

    /// Wait until the recording has written every event so far.
    pub fn flush(&mut self) {
        if let Some(r) = &mut self.recorder {
            r.flush();
        }
    }

    /// Write the rest of the recording and close it; why it stopped short,
    /// if it did.
    pub fn finish_recording(&mut self) -> Option<String> {
        let r = self.recorder.as_mut()?;
        r.finish();
        r.error().map(str::to_string)
    }

    /// Sequence number the next event will get.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }
    /// Oldest sequence number still stored.
    pub fn first_seq(&self) -> u64 {
        self.chunks.front().map_or(self.next_seq, |c| c.first_seq)
    }
    pub fn len(&self) -> u64 {
        self.next_seq - self.first_seq()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Events dropped by the memory bound (still in the recording, if any).
    pub fn evicted(&self) -> u64 {
        self.evicted
    }
    /// Bytes held by the event arena and metadata (indexes excluded).
    pub fn mem_bytes(&self) -> usize {
        self.mem
    }

    /// Bytes held by the indexes (request, token, level, stderr, problem
    /// lists). Counted against the bound with `mem_bytes`.
    pub fn index_bytes(&self) -> usize {
        self.idx.mem()
    }

    /// Everything the bound counts: events and indexes.
    pub fn total_bytes(&self) -> usize {
        self.mem + self.idx.mem()
    }

    /// The memory bound this store keeps to.
    pub fn max_bytes(&self) -> usize {
        self.limits.max_bytes
    }

    /// Tokens and requests forgotten because all their events were evicted.
    pub fn pruned(&self) -> (u64, u64) {
        self.idx.pruned()
    }

    pub fn get(&self, seq: u64) -> Option<EventRef<'_>> {
        let first = self.first_seq();
        if seq < first || seq >= self.next_seq {
            return None;
        }
        // Consumers mostly ask for what was just appended: the last chunk.
        let chunk = match self.chunks.back() {
            Some(c) if seq >= c.first_seq => c,
            _ => &self.chunks[self.chunks.partition_point(|c| c.first_seq <= seq) - 1],
        };
        Some(self.event_ref(chunk, (seq - chunk.first_seq) as usize))
    }

    #[inline]
    fn event_ref<'a>(&'a self, chunk: &'a Chunk, i: usize) -> EventRef<'a> {
        let m = chunk.events[i];
        let start = if i == 0 { 0 } else { chunk.events[i - 1].end };
        let (method, progress) = if m.is_progress() {
            let info = self.idx.token(m.aux).map(|t| ProgressInfo {
                slot: m.aux,
                serial: t.serial,
                progress: m.progress,
                total: (!m.total.is_nan()).then_some(m.total),
            });
            (Some(methods::PROGRESS), info)
        } else {
            (self.methods.get(m.aux), None)
        };
        EventRef {
            seq: chunk.first_seq + i as u64,
            t_us: m.t_us,
            dir: m.dir,
            kind: m.kind,
            channel: self.channels.get(m.channel).unwrap_or("?"),
            method,
            flags: m.flags,
            bytes: &chunk.bytes[start as usize..m.end as usize],
            progress,
        }
    }

    /// Seqs in an index that are still stored (indexes outlive evicted events).
    fn live<'a>(&self, seqs: &'a [u64]) -> &'a [u64] {
        let first = self.first_seq();
        &seqs[seqs.partition_point(|s| *s < first)..]
    }

    pub fn request(&self, origin: Origin, id: &IdKey) -> Option<&RequestEntry> {
        self.idx.requests.get(&(origin, id.clone()))
    }
    pub fn token(&self, key: &IdKey) -> Option<&TokenEntry> {
        self.token_slot_of(key).and_then(|i| self.idx.token(i))
    }
    pub fn token_slot_of(&self, key: &IdKey) -> Option<u32> {
        self.idx.token_ids.get(key).copied()
    }
    pub fn token_by_slot(&self, slot: u32) -> Option<&TokenEntry> {
        self.idx.token(slot)
    }
    /// Tokens still indexed (those whose events were all evicted are not).
    pub fn tokens(&self) -> impl Iterator<Item = &TokenEntry> {
        self.idx.tokens.iter().flatten()
    }
    pub fn token_count(&self) -> usize {
        self.idx.live_tokens()
    }
    /// The token's request (if any) and progress notifications still stored.
    pub fn token_seqs(&self, key: &IdKey) -> impl Iterator<Item = u64> + '_ {
        self.token_seqs_from(key, 0)
    }
    /// Like `token_seqs`, from `from` on.
    pub fn token_seqs_from(&self, key: &IdKey, from: u64) -> impl Iterator<Item = u64> + '_ {
        let from = from.max(self.first_seq());
        self.token(key)
            .into_iter()
            .flat_map(move |t| t.seqs.from(from))
    }
    /// `notifications/message` events at exactly `level`.
    pub fn by_level(&self, level: LogLevel) -> &[u64] {
        self.live(&self.idx.by_level[level.index()])
    }
    /// Every `notifications/message` event (any level, valid or not).
    pub fn logs(&self) -> &[u64] {
        self.live(&self.idx.logs)
    }
    pub fn stderr_lines(&self) -> &[u64] {
        self.live(&self.idx.stderr)
    }
    /// Log records the OTLP receiver took in (`otel-log` meta events).
    pub fn otel_logs(&self) -> &[u64] {
        self.live(&self.idx.otel_logs)
    }
    /// Spans the OTLP receiver took in (`otel-span` meta events).
    pub fn otel_spans(&self) -> &[u64] {
        self.live(&self.idx.otel_spans)
    }
    /// Frames that are not valid messages, and malformed progress/log params.
    pub fn problems(&self) -> &[u64] {
        self.live(&self.idx.problems)
    }

    /// Append a frame from the wire, classify and index it. Batches are
    /// followed by their elements, each an event of its own.
    pub fn append_frame(
        &mut self,
        dir: Dir,
        channel: &str,
        t_us: u64,
        bytes: &[u8],
        routes: &mut Vec<Route>,
    ) -> u64 {
        // Only frames that mention the method are worth the fast attempt;
        // anything else would be parsed twice. The usual envelope says so in
        // its first bytes, before any search.
        static PROGRESS: std::sync::OnceLock<memchr::memmem::Finder<'static>> =
            std::sync::OnceLock::new();
        let finder = PROGRESS.get_or_init(|| memchr::memmem::Finder::new(methods::PROGRESS));
        if (bytes.starts_with(COMPACT_PROGRESS.as_bytes()) || finder.find(bytes).is_some())
            && let Some(p) = crate::protocol::frame::well_formed_progress(bytes)
        {
            let seq = self.next_seq;
            let info = self.index_progress(seq, t_us, &p);
            let method = self.methods.intern(methods::PROGRESS);
            let kind = FrameKind::Notification;
            let fl = if p.message.is_some() {
                flags::PROGRESS_MESSAGE
            } else {
                0
            };
            return self.push(
                dir,
                channel,
                t_us,
                bytes.into(),
                kind,
                method,
                fl,
                Some(info),
            );
        }
        let frame = classify(bytes);
        let seq = self.append_classified(dir, channel, t_us, bytes, &frame, 0, routes);
        if frame.kind == FrameKind::Batch {
            for el in &frame.batch {
                let el_bytes = el.get().as_bytes();
                let el_frame = classify(el_bytes);
                self.append_classified(
                    dir,
                    channel,
                    t_us,
                    el_bytes,
                    &el_frame,
                    flags::IN_BATCH,
                    routes,
                );
            }
        }
        seq
    }

    /// Append the kept start of a frame that was over the size cap.
    pub fn append_cut(&mut self, dir: Dir, channel: &str, t_us: u64, bytes: &[u8]) -> u64 {
        let frame = classify(bytes);
        self.append_classified(
            dir,
            channel,
            t_us,
            bytes,
            &frame,
            flags::CUT,
            &mut Vec::new(),
        )
    }

    /// Append a recorded frame as it was recorded (batch elements are their own
    /// recorded events, so no expansion here).
    pub fn append_recorded(
        &mut self,
        dir: Dir,
        channel: &str,
        t_us: u64,
        bytes: &[u8],
        in_batch: bool,
    ) -> u64 {
        self.append_recorded_held(dir, channel, t_us, Held::Borrowed(bytes), in_batch)
    }

    /// `append_recorded` taking the frame's buffer: a large frame is kept
    /// in it rather than copied (a trace's huge line is held once).
    pub fn append_recorded_owned(
        &mut self,
        dir: Dir,
        channel: &str,
        t_us: u64,
        bytes: Vec<u8>,
        in_batch: bool,
    ) -> u64 {
        self.append_recorded_held(dir, channel, t_us, Held::Owned(bytes), in_batch)
    }

    fn append_recorded_held(
        &mut self,
        dir: Dir,
        channel: &str,
        t_us: u64,
        held: Held<'_>,
        in_batch: bool,
    ) -> u64 {
        let bytes = held.bytes();
        let (kind, method, fl, progress) = match dir {
            Dir::In | Dir::Out => {
                let frame = classify(bytes);
                let fl = if in_batch { flags::IN_BATCH } else { 0 };
                self.index_classified(dir, t_us, bytes, &frame, fl, &mut Vec::new())
            }
            Dir::Stderr => return self.push_stderr(channel, t_us, held),
            Dir::Meta => {
                let kind = serde_json::from_slice::<serde_json::Value>(bytes)
                    .ok()
                    .and_then(|v| v.get("event").and_then(|e| e.as_str()).map(str::to_string));
                let m = kind
                    .as_deref()
                    .map_or(intern::NONE, |k| self.methods.intern(k));
                let seq = self.push(
                    Dir::Meta,
                    channel,
                    t_us,
                    held,
                    FrameKind::Notification,
                    m,
                    0,
                    None,
                );
                self.index_meta(seq, kind.as_deref().unwrap_or(""));
                return seq;
            }
        };
        self.push(dir, channel, t_us, held, kind, method, fl, progress)
    }

    /// A line the server wrote to stderr (without its terminator).
    pub fn append_stderr(&mut self, channel: &str, t_us: u64, line: &[u8]) -> u64 {
        self.push_stderr(channel, t_us, line.into())
    }

    fn push_stderr(&mut self, channel: &str, t_us: u64, line: Held<'_>) -> u64 {
        let kind = if std::str::from_utf8(line.bytes()).is_ok() {
            FrameKind::NotJson
        } else {
            FrameKind::InvalidUtf8
        };
        let seq = self.push(
            Dir::Stderr,
            channel,
            t_us,
            line,
            kind,
            intern::NONE,
            0,
            None,
        );
        self.idx.stderr.push(seq);
        seq
    }

    /// Something mcpscope observed.
    pub fn append_event(&mut self, channel: &str, t_us: u64, event: &crate::event::Event) -> u64 {
        let bytes = serde_json::to_vec(event).unwrap_or_default();
        self.push_meta(channel, t_us, event.kind(), &bytes)
    }

    /// An event as JSON, `{"event": TYPE, ...}` (redacted, or read from a
    /// trace).
    pub fn append_meta(&mut self, channel: &str, t_us: u64, event: &serde_json::Value) -> u64 {
        let kind = event
            .get("event")
            .and_then(|e| e.as_str())
            .unwrap_or("meta");
        let bytes = serde_json::to_vec(event).unwrap_or_default();
        self.push_meta(channel, t_us, kind, &bytes)
    }

    /// A meta event, its kind interned as its method.
    fn push_meta(&mut self, channel: &str, t_us: u64, kind: &str, bytes: &[u8]) -> u64 {
        let m = self.methods.intern(kind);
        let seq = self.push(
            Dir::Meta,
            channel,
            t_us,
            bytes.into(),
            FrameKind::Notification,
            m,
            0,
            None,
        );
        self.index_meta(seq, kind);
        seq
    }

    /// Index the meta events panes look up by kind.
    fn index_meta(&mut self, seq: u64, kind: &str) {
        match kind {
            "otel-log" => self.idx.otel_logs.push(seq),
            "otel-span" => self.idx.otel_spans.push(seq),
            _ => {}
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn append_classified(
        &mut self,
        dir: Dir,
        channel: &str,
        t_us: u64,
        bytes: &[u8],
        frame: &Frame<'_>,
        fl: u8,
        routes: &mut Vec<Route>,
    ) -> u64 {
        let (kind, method, fl, progress) =
            self.index_classified(dir, t_us, bytes, frame, fl, routes);
        self.push(dir, channel, t_us, bytes.into(), kind, method, fl, progress)
    }

    /// Index a classified frame under the seq it is about to get: its
    /// kind, interned method, flags and progress, for `push`.
    fn index_classified(
        &mut self,
        dir: Dir,
        t_us: u64,
        bytes: &[u8],
        frame: &Frame<'_>,
        mut fl: u8,
        routes: &mut Vec<Route>,
    ) -> (FrameKind, u32, u8, Option<ProgressInfo>) {
        let seq = self.next_seq;
        let mut progress = None;
        let mut method = match &frame.method {
            Some(m) => self.methods.intern(m),
            None => intern::NONE,
        };
        let origin_of_request = if dir == Dir::Out {
            Origin::Client
        } else {
            Origin::Server
        };
        let origin_of_response = if dir == Dir::In {
            Origin::Client
        } else {
            Origin::Server
        };
        match frame.kind {
            FrameKind::Notification if dir == Dir::In || dir == Dir::Out => {
                match frame.method.as_deref() {
                    Some(methods::PROGRESS) => match ProgressView::parse(frame.params) {
                        Ok(p) => {
                            if p.message.is_some() {
                                fl |= flags::PROGRESS_MESSAGE;
                            }
                            progress = Some(self.index_progress(seq, t_us, &p));
                        }
                        Err(_) => {
                            fl |= flags::MALFORMED;
                            self.idx.problems.push(seq);
                        }
                    },
                    Some(methods::MESSAGE) => {
                        self.idx.logs.push(seq);
                        match LogView::parse(frame.params) {
                            Ok(LogView { level: Ok(l), .. }) => {
                                self.idx.by_level[l.index()].push(seq)
                            }
                            _ => {
                                fl |= flags::MALFORMED;
                                self.idx.problems.push(seq);
                            }
                        }
                    }
                    Some(methods::CANCELLED) => {
                        if let Some(c) = crate::protocol::views::CancelledView::parse(frame.params)
                        {
                            // A cancellation names a request of the other side.
                            let origin = if dir == Dir::Out {
                                Origin::Client
                            } else {
                                Origin::Server
                            };
                            let idx = &mut self.idx;
                            if let Some(r) = idx.requests.get_mut(&(origin, c.request_id)) {
                                r.cancelled_seq.get_or_insert(seq);
                                push_seq(&mut r.seqs, seq, &mut idx.heap);
                            }
                        }
                    }
                    _ => {}
                }
            }
            FrameKind::Request => {
                let id = frame.id.clone().unwrap_or(IdKey::Int(0));
                let token = frame.progress_token().map(|raw| {
                    let slot = self.token_slot_raw(raw.get(), seq);
                    if origin_of_request == Origin::Client {
                        self.idx.bind_request(slot, &id);
                    }
                    self.push_token_seq(slot, seq);
                    slot
                });
                self.idx.insert_request(
                    origin_of_request,
                    id.clone(),
                    RequestEntry {
                        request_seq: seq,
                        method,
                        token,
                        response_seq: None,
                        cancelled_seq: None,
                        seqs: vec![seq],
                    },
                );
                if dir == Dir::In {
                    routes.push(Route::ServerRequest { id, seq });
                }
            }
            FrameKind::Response | FrameKind::ErrorResponse => {
                let id = frame.id.clone().unwrap_or(IdKey::Int(0));
                let idx = &mut self.idx;
                match idx.requests.get_mut(&(origin_of_response, id.clone())) {
                    Some(r) => {
                        method = r.method;
                        push_seq(&mut r.seqs, seq, &mut idx.heap);
                        if r.response_seq.is_some() {
                            fl |= flags::DUPLICATE;
                        } else {
                            r.response_seq = Some(seq);
                            if r.cancelled_seq.is_some() {
                                fl |= flags::LATE;
                            }
                        }
                    }
                    None => fl |= flags::UNKNOWN_ID,
                }
                if dir == Dir::In {
                    routes.push(Route::Response { id, seq });
                }
            }
            FrameKind::NotJsonRpc | FrameKind::NotJson | FrameKind::InvalidUtf8 => {
                self.idx.problems.push(seq);
                if dir == Dir::In
                    && let Some(id) = self.malformed_answer(frame, bytes)
                {
                    let why = frame.problem.clone().unwrap_or_default();
                    routes.push(Route::Malformed { id, seq, why });
                }
            }
            _ => {}
        }
        (frame.kind, method, fl, progress)
    }

    /// The id of our pending request that a malformed frame answers, if
    /// any. With `"id"` written twice, any of its values may be the one
    /// meant (readers disagree on which counts).
    fn malformed_answer(&self, frame: &Frame<'_>, bytes: &[u8]) -> Option<IdKey> {
        if frame.method.is_some() {
            return None;
        }
        let pending = |id: &IdKey| {
            let id = if id.is_valid() {
                id.clone()
            } else {
                id.integral()?
            };
            let r = self.idx.requests.get(&(Origin::Client, id.clone()))?;
            r.response_seq.is_none().then_some(id)
        };
        if frame.problem.as_deref() == Some("duplicate key \"id\"")
            && let Ok(text) = std::str::from_utf8(bytes)
        {
            return crate::protocol::frame::values_of_key(text, "id")
                .iter()
                .find_map(|v| pending(&IdKey::from_value(v)));
        }
        pending(frame.id.as_ref()?)
    }

    /// Index a well-formed progress notification under its token.
    fn index_progress(&mut self, seq: u64, t_us: u64, p: &ProgressView<'_>) -> ProgressInfo {
        let slot = self.token_slot_raw(p.token.get(), seq);
        let idx = &mut self.idx;
        let Some(Some(t)) = idx.tokens.get_mut(slot as usize) else {
            unreachable!("token_slot_raw returns a live slot")
        };
        idx.heap += t.seqs.push(seq);
        t.last_us = t_us;
        t.notifications += 1;
        ProgressInfo {
            slot,
            serial: t.serial,
            progress: p.progress,
            total: p.total,
        }
    }

    fn push_token_seq(&mut self, slot: u32, seq: u64) {
        let idx = &mut self.idx;
        if let Some(Some(t)) = idx.tokens.get_mut(slot as usize) {
            idx.heap += t.seqs.push(seq);
        }
    }

    /// Slot of a token given as raw JSON text, creating it on first sight.
    fn token_slot_raw(&mut self, raw: &str, seq: u64) -> u32 {
        if let Some(i) = self.idx.last_token
            && self.idx.token(i).is_some_and(|t| *t.raw == *raw)
        {
            return i;
        }
        let key = IdKey::from_raw(raw);
        let slot = self.idx.token_slot(&key, seq);
        self.idx.last_token = Some(slot);
        slot
    }

    /// Slot of a token, creating it on first sight.
    pub fn token_slot(&mut self, key: &IdKey) -> u32 {
        let seq = self.next_seq;
        self.idx.token_slot(key, seq)
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        dir: Dir,
        channel: &str,
        t_us: u64,
        mut bytes: Held<'_>,
        kind: FrameKind,
        method: u32,
        fl: u8,
        progress: Option<ProgressInfo>,
    ) -> u64 {
        let seq = self.next_seq;
        let channel = self.channels.hold(channel);
        // Held before anything is evicted, which could release the name.
        if progress.is_none() {
            self.methods.retain(method);
        }
        let len = bytes.len();
        // A large owned frame becomes a chunk of its own, uncopied.
        let adopt = matches!(bytes, Held::Owned(_)) && len >= CHUNK_BYTES;
        let mut adopted = false;
        let need_new = match self.chunks.back() {
            None => true,
            Some(c) => {
                !c.events.is_empty()
                    && (adopt
                        || c.bytes.len() + len > c.bytes.capacity()
                        || c.bytes.len() + len > u32::MAX as usize)
            }
        };
        if need_new {
            // A sealed chunk gives back its spare event slots, and the next
            // one expects as many events as it held: a flood's frames are
            // alike, and a doubling vector would leave a third unused.
            let expect = match self.chunks.back_mut() {
                Some(c) => {
                    let before = c.mem();
                    c.events.shrink_to_fit();
                    self.mem -= before - c.mem();
                    c.events.len() + c.events.len() / 16
                }
                None => CHUNK_BYTES / 128,
            };
            // Past the first chunk, the next is prepared while this one
            // fills, if the bound has room for both.
            let room = self.mem + self.idx.mem() + 2 * CHUNK_BYTES <= self.limits.max_bytes;
            let buf = match &mut bytes {
                Held::Owned(v) if adopt => {
                    adopted = true;
                    std::mem::take(v)
                }
                _ => {
                    let ahead = (!self.chunks.is_empty() && room).then_some(CHUNK_BYTES);
                    self.spare.take(len.max(CHUNK_BYTES), ahead)
                }
            };
            let c = Chunk::new(seq, buf, expect);
            self.mem += c.mem();
            self.chunks.push_back(c);
            self.evict();
        } else if self.mem + self.idx.mem() > self.limits.max_bytes {
            // Indexes can outgrow the events (a new token per small frame):
            // the bound is kept at every append, not only per chunk.
            self.evict();
        }
        let Some(chunk) = self.chunks.back_mut() else {
            unreachable!("a chunk was just ensured")
        };
        let before = chunk.mem();
        match bytes {
            // Already the chunk's buffer.
            _ if adopted => {}
            Held::Owned(v) => chunk.bytes.extend_from_slice(&v),
            Held::Borrowed(b) => chunk.bytes.extend_from_slice(b),
        }
        let start = chunk.bytes.len() - len;
        debug_assert!(progress.is_none_or(|p| !p.progress.is_nan()));
        chunk.events.push(EventMeta {
            t_us,
            progress: progress.map_or(f64::NAN, |p| p.progress),
            total: progress.and_then(|p| p.total).unwrap_or(f64::NAN),
            end: chunk.bytes.len() as u32,
            channel,
            aux: progress.map_or(method, |p| p.slot),
            dir,
            kind,
            flags: fl,
        });
        self.mem = self.mem + chunk.mem() - before;
        self.next_seq += 1;
        if let Some(rec) = &mut self.recorder {
            let bytes = self.chunks.back().map_or(&[][..], |c| &c.bytes[start..]);
            let ev = EventRef {
                seq,
                t_us,
                dir,
                kind,
                channel: self.channels.get(channel).unwrap_or("?"),
                method: None,
                flags: fl,
                bytes,
                progress,
            };
            rec.write_event(&ev);
        }
        seq
    }

    /// Drop the oldest chunks while events and indexes exceed the bound;
    /// index entries that only pointed at them go too.
    fn evict(&mut self) {
        while self.mem + self.idx.mem() > self.limits.max_bytes && self.chunks.len() > 1 {
            if let Some(c) = self.chunks.pop_front() {
                for m in &c.events {
                    self.channels.release(m.channel);
                    if !m.is_progress() {
                        self.methods.release(m.aux);
                    }
                }
                self.mem -= c.mem();
                self.evicted += c.events.len() as u64;
            }
            self.idx.prune(self.first_seq(), self.next_seq);
        }
    }
}

mod held;
mod range;
#[cfg(test)]
mod tests;

pub use range::Range;
