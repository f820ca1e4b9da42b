//! Per-call timing statistics (time to first progress, inter-arrival spread,
//! notification rate), computed from a store's request and token indexes.
//! Used by `check` reports and available to the TUI's gauge details.

use crate::event::{EOF_RUNNING, Event, ExitInfo};
use crate::protocol::frame::FrameKind;
use crate::protocol::{IdKey, methods};
use crate::trace::{Dir, Origin, Store};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::collections::HashMap;

/// How a call ended.
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
    #[serde(serialize_with = "ser_key", deserialize_with = "de_key")]
    pub request_id: IdKey,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "ser_opt_key",
        deserialize_with = "de_opt_key"
    )]
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

fn ser_key<S: Serializer>(k: &IdKey, s: S) -> Result<S::Ok, S::Error> {
    k.to_value().serialize(s)
}
fn de_key<'de, D: Deserializer<'de>>(d: D) -> Result<IdKey, D::Error> {
    Ok(IdKey::from_value(&Value::deserialize(d)?))
}
fn ser_opt_key<S: Serializer>(k: &Option<IdKey>, s: S) -> Result<S::Ok, S::Error> {
    match k {
        Some(k) => k.to_value().serialize(s),
        None => s.serialize_none(),
    }
}
fn de_opt_key<'de, D: Deserializer<'de>>(d: D) -> Result<Option<IdKey>, D::Error> {
    Ok(Option::<Value>::deserialize(d)?.map(|v| IdKey::from_value(&v)))
}

fn ms(us: u64) -> f64 {
    (us as f64 / 1000.0 * 1000.0).round() / 1000.0
}

/// Statistics of every `tools/call` (and every other request that carried a
/// progress token) in the store, in request order.
pub fn call_stats(store: &Store) -> Vec<CallStats> {
    let mut calls = Vec::new();
    let mut timeouts: HashMap<IdKey, ()> = HashMap::new();
    let end_us = store
        .get(store.next_seq().saturating_sub(1))
        .map_or(0, |e| e.t_us);
    for ev in store.range(0, store.next_seq()) {
        match (ev.dir, ev.kind) {
            (Dir::Out, FrameKind::Request) => {
                let f = ev.frame();
                let token = f.progress_token().map(|t| IdKey::from_raw(t.get()));
                let method = f.method.as_deref().unwrap_or("").to_string();
                if method != methods::TOOLS_CALL && token.is_none() {
                    continue;
                }
                let Some(id) = f.id.clone() else { continue };
                let tool = f
                    .params
                    .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
                    .and_then(|v| v.get("name").and_then(Value::as_str).map(str::to_owned));
                calls.push((id, token, method, tool, ev.seq, ev.t_us));
            }
            (Dir::Meta, _) => {
                if let Some(Event::Timeout { request, .. }) = ev.event() {
                    timeouts.insert(IdKey::from_value(&request), ());
                }
            }
            _ => {}
        }
    }
    calls
        .into_iter()
        .map(|(id, token, method, tool, req_seq, req_us)| {
            let entry = store.request(Origin::Client, &id);
            let response_seq = entry.and_then(|r| r.response_seq);
            let response = response_seq.and_then(|s| store.get(s));
            let outcome = match &response {
                Some(r) if r.kind == FrameKind::ErrorResponse => CallOutcome::Error,
                Some(r) => {
                    let is_err = serde_json::from_slice::<Value>(r.bytes)
                        .ok()
                        .and_then(|v| v.pointer("/result/isError").and_then(Value::as_bool))
                        == Some(true);
                    if is_err {
                        CallOutcome::ToolError
                    } else {
                        CallOutcome::Ok
                    }
                }
                None if timeouts.contains_key(&id) => CallOutcome::Timeout,
                None if entry.is_some_and(|r| r.cancelled_seq.is_some()) => CallOutcome::Cancelled,
                None => CallOutcome::NoResponse,
            };
            // This call's notifications: after its request, before the next
            // request that reused the token.
            let mut times = Vec::new();
            if let Some(t) = &token {
                for &s in store.token_seqs(t) {
                    if s <= req_seq {
                        continue;
                    }
                    let Some(e) = store.get(s) else { continue };
                    if e.dir == Dir::Out {
                        break;
                    }
                    if e.dir == Dir::In && response_seq.is_none_or(|r| s < r) {
                        times.push(e.t_us);
                    }
                }
            }
            let end = response.as_ref().map_or_else(
                || times.last().copied().unwrap_or(end_us).max(req_us),
                |r| r.t_us,
            );
            let duration = end.saturating_sub(req_us);
            let mut gaps: Vec<u64> = times
                .windows(2)
                .map(|w| w[1].saturating_sub(w[0]))
                .collect();
            gaps.sort_unstable();
            let inter_arrival_ms = (!gaps.is_empty()).then(|| Spread {
                min: ms(gaps[0]),
                median: ms(if gaps.len() % 2 == 1 {
                    gaps[gaps.len() / 2]
                } else {
                    (gaps[gaps.len() / 2 - 1] + gaps[gaps.len() / 2]) / 2
                }),
                max: ms(gaps[gaps.len() - 1]),
            });
            let n = times.len() as u64;
            CallStats {
                request_id: id,
                token,
                method,
                tool,
                request_seq: req_seq,
                response_seq,
                outcome,
                duration_ms: ms(duration),
                notifications: n,
                first_progress_ms: times.first().map(|t| ms(t.saturating_sub(req_us))),
                inter_arrival_ms,
                per_second: (n > 1 && duration > 0)
                    .then(|| (n as f64 / (duration as f64 / 1e6) * 10.0).round() / 10.0),
            }
        })
        .collect()
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
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "ser_opt_key",
        deserialize_with = "de_opt_key"
    )]
    pub request_id: Option<IdKey>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

/// The calls of `calls` that did not complete, each with the reason the
/// trace gives: the timeout, the server's exit status or signal, a closed
/// stdout, a transport failure, or our cancellation.
pub fn incomplete_calls(store: &Store, calls: &[CallStats]) -> Vec<Incomplete> {
    if calls.iter().all(|c| c.response_seq.is_some()) {
        return Vec::new();
    }
    // Events that end requests, in order: (seq, request they name or None for all, reason).
    let mut ends: Vec<(u64, Option<IdKey>, String)> = Vec::new();
    let mut timeouts: HashMap<IdKey, String> = HashMap::new();
    let mut cancels: HashMap<IdKey, (u64, String)> = HashMap::new();
    for ev in store.range(0, store.next_seq()) {
        match ev.dir {
            Dir::Meta => match ev.event() {
                Some(Event::Exit { code, signal }) => {
                    let exit = ExitInfo { code, signal };
                    ends.push((ev.seq, None, format!("the server {exit}")));
                }
                Some(Event::Eof { .. }) => ends.push((ev.seq, None, EOF_RUNNING.to_string())),
                Some(Event::Failed { request, error }) => ends.push((
                    ev.seq,
                    request
                        .filter(|r| !r.is_null())
                        .map(|r| IdKey::from_value(&r)),
                    error,
                )),
                Some(Event::Timeout {
                    request,
                    limit,
                    secs,
                    ..
                }) => {
                    timeouts.insert(
                        IdKey::from_value(&request),
                        format!(
                            "timed out ({limit} timeout of {}s)",
                            crate::protocol::views::num(secs)
                        ),
                    );
                }
                Some(Event::Cancel {
                    request, reason, ..
                }) => {
                    cancels
                        .entry(IdKey::from_value(&request))
                        .or_insert((ev.seq, reason));
                }
                _ => {}
            },
            Dir::Out if ev.method == Some(methods::CANCELLED) => {
                if let Ok(v) = serde_json::from_slice::<Value>(ev.bytes)
                    && let Some(r) = v.pointer("/params/requestId")
                {
                    let why = v
                        .pointer("/params/reason")
                        .and_then(Value::as_str)
                        .unwrap_or("cancelled");
                    cancels
                        .entry(IdKey::from_value(r))
                        .or_insert((ev.seq, why.to_string()));
                }
            }
            _ => {}
        }
    }
    calls
        .iter()
        .filter(|c| c.response_seq.is_none())
        .map(|c| {
            let id = &c.request_id;
            let end = ends
                .iter()
                .find(|(s, r, _)| *s > c.request_seq && r.as_ref().is_none_or(|r| r == id));
            let cancel = cancels.get(id).filter(|(s, _)| *s > c.request_seq);
            let (kind, reason) = if let Some(t) = timeouts.get(id) {
                (FailureKind::Timeout, t.clone())
            } else if let Some((_, why)) = cancel.filter(|(s, _)| end.is_none_or(|(e, _, _)| s < e))
            {
                (FailureKind::Cancelled, format!("cancelled: {why}"))
            } else if let Some((_, _, why)) = end {
                (FailureKind::Connection, why.clone())
            } else {
                (
                    FailureKind::Connection,
                    "no response by the end of the session".to_string(),
                )
            };
            Incomplete {
                kind,
                reason,
                request_id: Some(id.clone()),
                tool: c.tool.clone(),
            }
        })
        .collect()
}
