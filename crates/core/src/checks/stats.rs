//! What `check --format json` reports of each call: its outcome, timing
//! statistics (time to first progress, inter-arrival spread, notification
//! rate) and, for calls that did not complete, why. The JSON vocabulary
//! lives here; the calls and how they ended come from `crate::calls`.

use crate::calls::waits::ClientWaits;
use crate::calls::{Call, End, Ending, Timing, Tracker};
use crate::event::EOF_RUNNING;
use crate::protocol::IdKey;
use crate::trace::Store;
use serde::{Deserialize, Serialize};

/// How a call ended, as the JSON reports it (a coarser view of
/// [`Ending`](crate::calls::Ending): see `outcome`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CallOutcome {
    /// A result without `isError`.
    Ok,
    /// A result with `isError: true`.
    ToolError,
    /// A JSON-RPC error response.
    Error,
    /// We cancelled it (timeout or user) and no response came.
    Cancelled,
    /// We gave up waiting (a `timeout` meta event).
    Timeout,
    /// No response by the end of the trace.
    NoResponse,
}

/// Minimum, median and maximum, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub min: f64,
    pub median: f64,
    pub max: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallStats {
    pub request_id: IdKey,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<IdKey>,
    pub method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    pub request_seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_seq: Option<u64>,
    pub outcome: CallOutcome,
    /// Request to response (or to the last event seen for it).
    pub duration_ms: f64,
    /// Progress notifications for this call's token.
    pub notifications: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_progress_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inter_arrival_ms: Option<Spread>,
    /// Notifications per second over the call's duration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_second: Option<f64>,
}

fn ms(us: u64) -> f64 {
    (us as f64 / 1000.0 * 1000.0).round() / 1000.0
}

/// Statistics of every `tools/call` (and every other request that carried a
/// progress token) in the store, in request order.
pub fn call_stats(store: &Store) -> Vec<CallStats> {
    call_stats_of(&Tracker::of(store), store)
}

/// [`call_stats`] of calls already tracked over the whole store.
pub fn call_stats_of(tracker: &Tracker, store: &Store) -> Vec<CallStats> {
    let end_us = store
        .get(store.next_seq().saturating_sub(1))
        .map_or(0, |e| e.t_us);
    let waits = ClientWaits::of(store);
    tracker
        .calls
        .iter()
        .map(|c| stats_of(c, store, end_us, &waits))
        .collect()
}

/// The JSON outcome of a call: its response if one came (even late), else
/// our timeout, else our `notifications/cancelled`, else none.
fn outcome(c: &Call) -> CallOutcome {
    match c.response().map(|e| &e.how) {
        Some(Ending::RpcError { .. }) => CallOutcome::Error,
        Some(Ending::ToolError | Ending::InputRequired { is_error: true }) => {
            CallOutcome::ToolError
        }
        Some(_) => CallOutcome::Ok,
        None if c.timeout().is_some() => CallOutcome::Timeout,
        // By notification or (2026-07-28 over HTTP) by closing the stream.
        None if c.cancel().is_some() => CallOutcome::Cancelled,
        None => CallOutcome::NoResponse,
    }
}

/// One call's statistics; the time the client was waited on (`waits`) is
/// not a gap of the server's.
fn stats_of(c: &Call, store: &Store, end_us: u64, waits: &ClientWaits) -> CallStats {
    let timing = Timing::of_excluding(c, store, Some(waits));
    let response = c.response();
    // A task handle is not the end: the task's end is, as far as the trace
    // shows it (else its last notification).
    let task = response
        .and_then(|r| store.get(r.seq))
        .and_then(|ev| crate::calls::task_end::created_task(&ev));
    let end = match (response, task) {
        (Some(r), Some(task)) => crate::calls::task_end::end_us(store, &task, r.seq)
            .or(timing.last_us)
            .unwrap_or(r.t_us)
            .max(r.t_us),
        (Some(r), None) => r.t_us,
        // Unanswered: it ended where the client gave up on it, else at its
        // last sign of life.
        (None, _) => c
            .timeout()
            .or_else(|| c.cancel())
            .map(|e| e.t_us)
            .or(timing.last_us)
            .unwrap_or(end_us)
            .max(c.sent_us),
    };
    let duration = end.saturating_sub(c.sent_us);
    let inter_arrival_ms = match (timing.min_gap_us, timing.median_gap_us(), timing.max_gap_us) {
        (Some(min), Some(median), Some(max)) => Some(Spread {
            min: ms(min),
            median: ms(median),
            max: ms(max),
        }),
        _ => None,
    };
    let n = timing.count;
    CallStats {
        request_id: c.id.clone(),
        token: c.token.clone(),
        method: c.method.clone(),
        tool: c.tool.clone(),
        request_seq: c.request_seq,
        response_seq: response.map(|r| r.seq),
        outcome: outcome(c),
        duration_ms: ms(duration),
        notifications: n,
        first_progress_ms: timing.first_after_us().map(ms),
        inter_arrival_ms,
        per_second: (n > 1 && duration > 0)
            .then(|| (n as f64 / (duration as f64 / 1e6) * 10.0).round() / 10.0),
    }
}

/// Why a call did not complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    /// The idle or maximum timeout expired.
    Timeout,
    /// The server exited, closed its output, or the transport failed.
    Connection,
    /// The handshake did not complete: no call could be made.
    Handshake,
    /// mcpscope cancelled it (the user, or a signal).
    Cancelled,
}

/// A call (or the session) that did not complete: a check that saw it can
/// never pass, whatever the rules say about the frames it did see.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Incomplete {
    pub kind: FailureKind,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<IdKey>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

/// The calls that did not complete, each with the reason the trace gives:
/// the timeout, our cancellation (before the connection ended), the
/// server's exit status or signal, a closed stdout, a transport failure.
pub fn incomplete_calls(tracker: &Tracker) -> Vec<Incomplete> {
    tracker
        .calls
        .iter()
        // What `proxy --faults` kept from the server is not its failure.
        .filter(|c| c.response().is_none() && !c.faulted)
        .map(|c| {
            let lost = c.lost();
            let cancel = c.cancel().filter(|k| lost.is_none_or(|l| k.seq < l.seq));
            let (kind, reason) = match (c.timeout(), cancel, lost) {
                (
                    Some(End {
                        how: Ending::TimedOut { limit, secs },
                        ..
                    }),
                    _,
                    _,
                ) => (
                    FailureKind::Timeout,
                    format!(
                        "timed out ({limit} timeout of {}s)",
                        crate::format::num(*secs)
                    ),
                ),
                (
                    _,
                    Some(End {
                        how: Ending::Cancelled { reason, .. },
                        ..
                    }),
                    _,
                ) => (
                    FailureKind::Cancelled,
                    format!("cancelled: {}", reason.as_deref().unwrap_or("cancelled")),
                ),
                (_, _, Some(l)) => (FailureKind::Connection, lost_reason(&l.how)),
                _ => (
                    FailureKind::Connection,
                    "no response by the end of the session".to_string(),
                ),
            };
            Incomplete {
                kind,
                reason,
                request_id: Some(c.id.clone()),
                tool: c.tool.clone(),
            }
        })
        .collect()
}

/// Why the connection ended, as `check` words it.
fn lost_reason(how: &Ending) -> String {
    match how {
        Ending::Exited(exit) => format!("the server {exit}"),
        Ending::Eof => EOF_RUNNING.to_string(),
        Ending::Failed { error } => error.clone(),
        // Not a lost connection: `Call::lost` never returns one.
        _ => String::new(),
    }
}
