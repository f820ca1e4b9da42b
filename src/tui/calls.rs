//! The calls the Progress pane shows are the core's call fold
//! (`crate::calls::fold`: status and note, limits, input rounds, tasks —
//! built from the store, so a replayed trace shows them too); this module
//! keeps what only the pane draws of each: a gauge's numbers, read at draw
//! time from the token index (the last and first progress notifications
//! only, whatever the notification count), in the units chosen.

use super::format::safe_row;
use crate::protocol::frame::FrameKind;
use crate::protocol::views::ProgressView;
use crate::trace::Store;

pub use crate::calls::fold::{Request, ToolCall as Call};
pub use crate::calls::input::{InputAsk, InputNeeded};
pub use crate::calls::status::CallStatus;

use crate::calls::fold;
use crate::client::Limits;
use crate::protocol::IdKey;
use std::collections::{HashMap, VecDeque};

/// Limits remembered (by request id) at most; the oldest go first.
pub const MAX_LIMITS: usize = 4096;

/// The core's call fold, and what the trace does not hold: the limits
/// each request was sent with (the session says, before it is stored).
#[derive(Debug, Default)]
pub struct Calls {
    fold: fold::Calls,
    limits: HashMap<IdKey, Limits>,
    /// Ids in `limits`, oldest first (to bound it).
    order: VecDeque<IdKey>,
}

impl std::ops::Deref for Calls {
    type Target = fold::Calls;
    fn deref(&self) -> &fold::Calls {
        &self.fold
    }
}

impl std::ops::DerefMut for Calls {
    fn deref_mut(&mut self) -> &mut fold::Calls {
        &mut self.fold
    }
}

impl Calls {
    /// Limits of a request about to be sent (a call, or a retry).
    pub fn expect(&mut self, id: IdKey, limits: Limits) {
        if self.limits.insert(id.clone(), limits).is_none() {
            if self.order.len() >= MAX_LIMITS
                && let Some(old) = self.order.pop_front()
            {
                self.limits.remove(&old);
            }
            self.order.push_back(id);
        }
    }

    /// The limits the request carrying `c` now was sent with (its latest
    /// round's, else its first's).
    pub fn limits(&self, c: &Call) -> Option<Limits> {
        self.limits
            .get(&c.latest.id)
            .or_else(|| self.limits.get(&c.id))
            .copied()
    }
}

/// How progress values are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteMode {
    /// Bytes when the message talks about bytes.
    Auto,
    Bytes,
    Plain,
}

impl ByteMode {
    pub fn next(self) -> ByteMode {
        match self {
            ByteMode::Auto => ByteMode::Bytes,
            ByteMode::Bytes => ByteMode::Plain,
            ByteMode::Plain => ByteMode::Auto,
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            ByteMode::Auto => "auto",
            ByteMode::Bytes => "bytes",
            ByteMode::Plain => "plain",
        }
    }
}

/// A rate needs its notifications spread over at least this long: over
/// less it is a burst (a buffered server, a batch), and the units per
/// second it would give (and the ETA from them) say nothing about pace.
const MIN_RATE_SPAN_US: u64 = 250_000;

/// What a gauge shows, derived from the store for one call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gauge {
    pub notifications: u64,
    pub progress: Option<f64>,
    pub total: Option<f64>,
    pub message: Option<String>,
    pub first_us: Option<u64>,
    pub last_us: Option<u64>,
    /// Progress units per second between the first and last notification,
    /// when they are at least `MIN_RATE_SPAN_US` apart.
    pub rate: Option<f64>,
    pub bytes: bool,
    /// Step counters starting at 0 ("step 1 of 3" is progress 0).
    pub zero_based_steps: bool,
    pub malformed: bool,
}

/// One progress notification's values: progress, total, message, time.
type Point = (f64, Option<f64>, Option<String>, u64);

/// `None`: not a notification; `Some(Err)`: malformed progress params.
fn progress_at(store: &Store, seq: u64) -> Option<Result<Point, ()>> {
    let ev = store.get(seq)?;
    if ev.kind != FrameKind::Notification {
        return None;
    }
    let f = ev.frame();
    Some(
        ProgressView::parse(f.params)
            .map(|p| {
                (
                    p.progress,
                    p.total,
                    p.message.as_deref().map(safe_row),
                    ev.t_us,
                )
            })
            .map_err(|_| ()),
    )
}

fn mentions_bytes(msg: &str) -> bool {
    let m = msg.to_ascii_lowercase();
    m.contains("byte") || m.contains("kib") || m.contains("mib") || m.contains("gib")
}

impl Gauge {
    pub fn of(call: &Call, store: &Store, mode: ByteMode) -> Gauge {
        let mut g = Gauge::default();
        // The request carrying the call now: its latest round's.
        let now = &call.latest;
        let Some(entry) = now.token.as_ref().and_then(|t| store.token(t)) else {
            return g;
        };
        let seqs = &entry.seqs;
        // The request itself is in the token's index; notifications follow it.
        let after = now.request_seq + 1;
        g.notifications = seqs.count_from(after) as u64;
        let (Some(first), Some(last)) = (seqs.from(after).next(), seqs.last()) else {
            return g;
        };
        let first = progress_at(store, first);
        let last = progress_at(store, last);
        if let Some(Ok((p, total, msg, t))) = &last {
            g.progress = Some(*p);
            g.total = *total;
            g.message = msg.clone();
            g.last_us = Some(*t);
        } else {
            g.malformed = last.is_some();
        }
        if let Some(Ok((p0, total0, _, t0))) = first {
            g.first_us = Some(t0);
            if let (Some(p), Some(t)) = (g.progress, g.last_us)
                && t >= t0 + MIN_RATE_SPAN_US
            {
                g.rate = Some((p - p0) / ((t - t0) as f64 / 1e6));
            }
            g.zero_based_steps = p0 == 0.0
                && total0.is_some_and(|t| t.fract() == 0.0 && (1.0..=1000.0).contains(&t))
                && !g.message.as_deref().is_some_and(mentions_bytes);
        }
        g.bytes = match mode {
            ByteMode::Bytes => true,
            ByteMode::Plain => false,
            ByteMode::Auto => g.message.as_deref().is_some_and(mentions_bytes),
        };
        if g.bytes {
            g.zero_based_steps = false;
        }
        g
    }

    /// Fraction done, when a total is known.
    pub fn ratio(&self) -> Option<f64> {
        match (self.progress, self.total) {
            (Some(p), Some(t)) if t > 0.0 => Some((p / t).clamp(0.0, 1.0)),
            _ => None,
        }
    }

    /// Seconds left at the current rate.
    pub fn eta_us(&self) -> Option<u64> {
        let (p, t, r) = (self.progress?, self.total?, self.rate?);
        (r > 0.0 && t > p).then(|| ((t - p) / r * 1e6) as u64)
    }
}
