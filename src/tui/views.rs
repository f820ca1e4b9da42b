//! Incremental views over the store: the timeline (optionally filtered by
//! kind and text, or narrowed to one request's lane or one HTTP channel)
//! and the logs list.
//! Each keeps the seqs that match and how far it has scanned; new events
//! extend it, a filter change rebuilds it in bounded batches. Nothing here
//! scans the whole store per frame.

use super::format::contains_ci;
use crate::protocol::IdKey;
use crate::protocol::frame::FrameKind;
use crate::protocol::methods;
use crate::protocol::views::{LogLevel, LogView};
use crate::trace::{Dir, EventRef, Origin, Store};

/// Timeline kind filters, cycled with a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindFilter {
    All,
    /// Requests, responses and errors (either side).
    Calls,
    Notifications,
    Progress,
    Logs,
    /// Notifications whose method MCP does not define (custom progress…).
    Custom,
    Stderr,
    Meta,
    Problems,
}

impl KindFilter {
    pub const ORDER: [KindFilter; 9] = [
        KindFilter::All,
        KindFilter::Calls,
        KindFilter::Notifications,
        KindFilter::Progress,
        KindFilter::Logs,
        KindFilter::Custom,
        KindFilter::Stderr,
        KindFilter::Meta,
        KindFilter::Problems,
    ];

    pub fn label(self) -> &'static str {
        match self {
            KindFilter::All => "all",
            KindFilter::Calls => "requests+responses",
            KindFilter::Notifications => "notifications",
            KindFilter::Progress => "progress",
            KindFilter::Logs => "logs",
            KindFilter::Custom => "custom methods",
            KindFilter::Stderr => "stderr",
            KindFilter::Meta => "transport",
            KindFilter::Problems => "problems",
        }
    }

    pub fn step(self, forward: bool) -> KindFilter {
        let i = KindFilter::ORDER
            .iter()
            .position(|k| *k == self)
            .unwrap_or(0);
        let n = KindFilter::ORDER.len();
        KindFilter::ORDER[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }

    pub fn matches(self, ev: &EventRef<'_>) -> bool {
        let msg = matches!(ev.dir, Dir::In | Dir::Out);
        match self {
            KindFilter::All => true,
            KindFilter::Calls => {
                msg && matches!(
                    ev.kind,
                    FrameKind::Request | FrameKind::Response | FrameKind::ErrorResponse
                )
            }
            KindFilter::Notifications => msg && ev.kind == FrameKind::Notification,
            KindFilter::Progress => msg && ev.method == Some(methods::PROGRESS),
            KindFilter::Logs => msg && ev.method == Some(methods::MESSAGE),
            KindFilter::Custom => {
                msg && ev.kind == FrameKind::Notification
                    && !ev.method.is_some_and(|m| {
                        matches!(
                            m,
                            methods::PROGRESS
                                | methods::MESSAGE
                                | methods::CANCELLED
                                | methods::INITIALIZED
                        ) || m.starts_with("notifications/")
                    })
            }
            KindFilter::Stderr => ev.dir == Dir::Stderr,
            KindFilter::Meta => ev.dir == Dir::Meta,
            KindFilter::Problems => {
                msg && (!ev.kind.is_message() && ev.kind != FrameKind::Batch
                    || ev.flags & crate::trace::store::flags::PROBLEMS != 0)
            }
        }
    }
}

/// One request's lane: the request, its progress, its cancellation and
/// responses (late ones included), merged from the store's indexes.
#[derive(Debug, Clone)]
pub struct Lane {
    pub id: IdKey,
    pub token: Option<IdKey>,
    pub seqs: Vec<u64>,
    scanned_to: u64,
}

impl Lane {
    pub fn new(id: IdKey, token: Option<IdKey>) -> Lane {
        Lane {
            id,
            token,
            seqs: Vec::new(),
            scanned_to: 0,
        }
    }

    /// Merge the tails of both indexes that arrived since the last sync.
    fn sync(&mut self, store: &Store) {
        let from = self.scanned_to;
        let tail = |v: &[u64]| -> Vec<u64> { v[v.partition_point(|s| *s < from)..].to_vec() };
        let a = store
            .request(Origin::Client, &self.id)
            .map(|r| tail(&r.seqs))
            .unwrap_or_default();
        let b = self
            .token
            .as_ref()
            .and_then(|t| store.token(t))
            .map(|t| t.seqs.from(from).collect::<Vec<u64>>())
            .unwrap_or_default();
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let next = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if x <= y => {
                    i += 1;
                    if x == y {
                        j += 1;
                    }
                    *x
                }
                (Some(_), Some(y)) => {
                    j += 1;
                    *y
                }
                (Some(x), None) => {
                    i += 1;
                    *x
                }
                (None, Some(y)) => {
                    j += 1;
                    *y
                }
                (None, None) => break,
            };
            if self.seqs.last().is_none_or(|l| *l < next) {
                self.seqs.push(next);
            }
        }
        self.scanned_to = store.next_seq();
    }

    /// The lane's response seq, after which anything in the lane is late.
    pub fn response_seq(&self, store: &Store) -> Option<u64> {
        store
            .request(Origin::Client, &self.id)
            .and_then(|r| r.response_seq)
    }
}

/// One HTTP channel's events (a POST's stream, `get`, `sse`…): seeded from
/// the Network view's per-channel index, then extended with new events.
#[derive(Debug, Clone)]
pub struct ChannelLane {
    pub name: String,
    pub seqs: Vec<u64>,
    scanned_to: u64,
}

impl ChannelLane {
    /// `seqs` are the channel's events before `scanned_to`, in order.
    pub fn new(name: &str, seqs: Vec<u64>, scanned_to: u64) -> ChannelLane {
        ChannelLane {
            name: name.to_string(),
            seqs,
            scanned_to,
        }
    }

    /// Scan at most `budget` new events. Returns true when caught up.
    fn sync(&mut self, store: &Store, budget: u64) -> bool {
        let from = self.scanned_to.max(store.first_seq());
        let to = store.next_seq().min(from + budget);
        for ev in store.range(from, to) {
            if ev.channel == self.name {
                self.seqs.push(ev.seq);
            }
        }
        self.scanned_to = to;
        let first = store.first_seq();
        if self.seqs.first().is_some_and(|s| *s < first) {
            let cut = self.seqs.partition_point(|s| *s < first);
            self.seqs.drain(..cut);
        }
        to >= store.next_seq()
    }
}

/// The timeline's rows.
#[derive(Debug, Clone)]
pub struct TimelineView {
    pub kind: KindFilter,
    /// Lowercase text filter.
    pub text: String,
    pub lane: Option<Lane>,
    /// One HTTP channel only (set from the Network pane). Like a lane it
    /// shows every event of the channel whatever the kind and text filters.
    pub channel: Option<ChannelLane>,
    /// A filter in the filter language (`crate::filter`), with the kind
    /// and text filters; it follows the calls, so it sees every event in
    /// order as the view is rebuilt.
    expr: Option<crate::filter::Matcher>,
    seqs: Vec<u64>,
    scanned_to: u64,
}

impl Default for TimelineView {
    fn default() -> Self {
        TimelineView {
            kind: KindFilter::All,
            text: String::new(),
            lane: None,
            channel: None,
            expr: None,
            seqs: Vec::new(),
            scanned_to: 0,
        }
    }
}

impl TimelineView {
    /// The rows of a lane or channel view, when one is set (a lane wins).
    fn narrowed(&self) -> Option<&[u64]> {
        match (&self.lane, &self.channel) {
            (Some(l), _) => Some(&l.seqs),
            (None, Some(c)) => Some(&c.seqs),
            (None, None) => None,
        }
    }

    fn unfiltered(&self) -> bool {
        self.kind == KindFilter::All && self.text.is_empty() && self.expr.is_none()
    }

    /// Change the filter; the matching seqs are rebuilt by later syncs.
    pub fn set_filter(&mut self, kind: KindFilter, text: &str) {
        self.kind = kind;
        self.text = text.to_lowercase();
        self.rebuild();
    }

    /// Set (or clear) the filter-language filter; rebuilt by later syncs.
    pub fn set_expr(&mut self, filter: Option<crate::filter::Filter>) {
        self.expr = filter.map(crate::filter::Matcher::new);
        self.rebuild();
    }

    /// The filter-language filter in use, as typed.
    pub fn expr(&self) -> Option<&str> {
        self.expr.as_ref().map(|m| m.filter.source())
    }

    fn rebuild(&mut self) {
        self.seqs.clear();
        self.scanned_to = 0;
        if let Some(m) = &mut self.expr {
            // Its call index starts again with the events it will see.
            *m = crate::filter::Matcher::new(m.filter.clone());
        }
    }

    pub fn len(&self, store: &Store) -> usize {
        match self.narrowed() {
            Some(l) => l.len(),
            None if self.unfiltered() => store.len() as usize,
            None => self.seqs.len(),
        }
    }

    pub fn seq_at(&self, i: usize, store: &Store) -> Option<u64> {
        match self.narrowed() {
            Some(l) => l.get(i).copied(),
            None if self.unfiltered() => {
                let s = store.first_seq() + i as u64;
                (s < store.next_seq()).then_some(s)
            }
            None => self.seqs.get(i).copied(),
        }
    }

    /// Position of a seq (or of the first row after it).
    pub fn position_of(&self, seq: u64, store: &Store) -> usize {
        match self.narrowed() {
            Some(l) => l.partition_point(|s| *s < seq),
            None if self.unfiltered() => seq.saturating_sub(store.first_seq()) as usize,
            None => self.seqs.partition_point(|s| *s < seq),
        }
    }

    /// Scan at most `budget` new events. Returns true when caught up.
    pub fn sync(&mut self, store: &Store, budget: u64) -> bool {
        if let Some(l) = &mut self.lane {
            l.sync(store);
        }
        let channel_done = self.channel.as_mut().is_none_or(|c| c.sync(store, budget));
        if self.unfiltered() {
            self.scanned_to = store.next_seq();
            return channel_done;
        }
        let from = self.scanned_to.max(store.first_seq());
        let to = store.next_seq().min(from + budget);
        let needle = self.text.as_bytes();
        for ev in store.range(from, to) {
            // The filter-language filter sees every event (its call index
            // needs the requests), the others only decide with it.
            let expr = self.expr.as_mut().is_none_or(|m| m.test(&ev));
            if expr && self.kind.matches(&ev) && contains_ci(ev.bytes, needle) {
                self.seqs.push(ev.seq);
            }
        }
        self.scanned_to = to;
        // Evicted events leave the front of the list.
        let first = store.first_seq();
        if self.seqs.first().is_some_and(|s| *s < first) {
            let cut = self.seqs.partition_point(|s| *s < first);
            self.seqs.drain(..cut);
        }
        channel_done && to >= store.next_seq()
    }

    /// How far a rebuild has got, for the "filtering…" indicator.
    pub fn scanned_to(&self) -> u64 {
        self.scanned_to
    }
}

/// The Logs pane's rows from three sources: `notifications/message` (mcp)
/// and OTel log records (otel) at or above a level, and optionally server
/// stderr, with a text filter.
#[derive(Debug, Clone)]
pub struct LogsView {
    pub min: LogLevel,
    pub text: String,
    pub stderr: bool,
    seqs: Vec<u64>,
    scanned_to: u64,
}

impl Default for LogsView {
    fn default() -> Self {
        LogsView {
            min: LogLevel::Debug,
            text: String::new(),
            stderr: true,
            seqs: Vec::new(),
            scanned_to: 0,
        }
    }
}

/// The MCP level an `otel-log` event's severity was mapped to (the
/// receiver maps it when it takes the record in).
pub fn otel_log_level(ev: &EventRef<'_>) -> Option<LogLevel> {
    #[derive(serde::Deserialize)]
    struct Level<'a> {
        #[serde(borrow)]
        level: std::borrow::Cow<'a, str>,
    }
    serde_json::from_slice::<Level>(ev.bytes)
        .ok()
        .and_then(|l| l.level.parse().ok())
}

impl LogsView {
    pub fn set_filter(&mut self, min: LogLevel, text: &str, stderr: bool) {
        self.min = min;
        self.text = text.to_lowercase();
        self.stderr = stderr;
        self.seqs.clear();
        self.scanned_to = 0;
    }

    pub fn len(&self) -> usize {
        self.seqs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seqs.is_empty()
    }

    pub fn seq_at(&self, i: usize) -> Option<u64> {
        self.seqs.get(i).copied()
    }

    pub fn position_of(&self, seq: u64) -> usize {
        self.seqs.partition_point(|s| *s < seq)
    }

    fn keep(&self, ev: &EventRef<'_>) -> bool {
        if !contains_ci(ev.bytes, self.text.as_bytes()) {
            return false;
        }
        if ev.dir == Dir::Stderr {
            return self.stderr;
        }
        if self.min == LogLevel::Debug {
            return true;
        }
        if ev.dir == Dir::Meta {
            return otel_log_level(ev).is_none_or(|l| l >= self.min);
        }
        let f = ev.frame();
        match LogView::parse(f.params) {
            Ok(LogView { level: Ok(l), .. }) => l >= self.min,
            // Invalid levels are always shown: they are what a debugger looks for.
            _ => true,
        }
    }

    /// Merge new log, OTel log and stderr events, at most `budget` of them.
    pub fn sync(&mut self, store: &Store, budget: usize) -> bool {
        let from = self.scanned_to;
        let after = |v: &'_ [u64]| v.partition_point(|s| *s < from);
        let logs = store.logs();
        let otel = store.otel_logs();
        let err: &[u64] = if self.stderr {
            store.stderr_lines()
        } else {
            &[]
        };
        let mut sources = [
            &logs[after(logs)..],
            &otel[after(otel)..],
            &err[after(err)..],
        ];
        let mut n = 0;
        let mut last = None;
        while n < budget {
            // The source whose next seq is lowest.
            let Some(k) = (0..sources.len())
                .filter(|k| !sources[*k].is_empty())
                .min_by_key(|k| sources[*k][0])
            else {
                break;
            };
            let seq = sources[k][0];
            sources[k] = &sources[k][1..];
            n += 1;
            last = Some(seq);
            if let Some(ev) = store.get(seq)
                && self.keep(&ev)
            {
                self.seqs.push(seq);
            }
        }
        let done = sources.iter().all(|s| s.is_empty());
        self.scanned_to = if done {
            store.next_seq()
        } else {
            last.map_or(from, |s| s + 1)
        };
        let first = store.first_seq();
        if self.seqs.first().is_some_and(|s| *s < first) {
            let cut = self.seqs.partition_point(|s| *s < first);
            self.seqs.drain(..cut);
        }
        done
    }
}
