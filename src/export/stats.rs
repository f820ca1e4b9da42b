//! The `json` export: latency percentiles and counts per tool and per
//! method, errors by kind, progress counts and findings by rule.
//!
//! Tools are the `tools/call`s of the calls model (`crate::calls`), timed
//! as `check` times them (a task's call lasts until its task ends).
//! Methods are every request either side sent, timed from the request to
//! the response the store's request index paired with it; a request
//! without one counts as `no-response` and is left out of the latencies.
//!
//! Document: `{"mcpscope_export": 1, "events", "tools": {NAME: Group},
//! "methods": {METHOD: Group}, "errors": {KIND: n}, "error_codes": {CODE: n},
//! "progress": {"notifications", "tokens"}, "findings": {RULE: {severity,
//! count}}}`, Group = `{count, ok, errors: {KIND: n}, progress,
//! latency_ms: {p50, p95, p99, max}}`.

use super::{Session, percentile};
use crate::calls::Tracker;
use crate::checks::stats::{CallOutcome, call_stats_of};
use crate::protocol::frame::FrameKind;
use crate::trace::store::{Origin, flags};
use crate::trace::{Dir, EventRef};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

#[derive(Default)]
struct Group {
    latencies_ms: Vec<f64>,
    count: u64,
    ok: u64,
    errors: BTreeMap<&'static str, u64>,
    progress: u64,
}

impl Group {
    fn json(mut self) -> Value {
        crate::sort::by(&mut self.latencies_ms, f64::total_cmp);
        let p = |q| percentile(&self.latencies_ms, q).map(round3);
        let mut v = json!({
            "count": self.count,
            "ok": self.ok,
            "errors": self.errors,
            "progress": self.progress,
        });
        if !self.latencies_ms.is_empty() {
            v["latency_ms"] = json!({
                "p50": p(50.0), "p95": p(95.0), "p99": p(99.0),
                "max": self.latencies_ms.last().copied().map(round3),
            });
        }
        v
    }
}

fn round3(v: f64) -> f64 {
    (v * 1000.0).round() / 1000.0
}

/// The name `load`, `check` and this export give an outcome.
pub fn outcome_kind(o: CallOutcome) -> &'static str {
    match o {
        CallOutcome::Ok => "ok",
        CallOutcome::ToolError => "tool-error",
        CallOutcome::Error => "rpc-error",
        CallOutcome::Cancelled => "cancelled",
        CallOutcome::Timeout => "timeout",
        CallOutcome::NoResponse => "no-response",
    }
}

pub fn stats(s: &Session<'_>) -> Value {
    let store = s.store;
    let tracker = Tracker::of(store);
    let mut tools: BTreeMap<String, Group> = BTreeMap::new();
    let mut errors: BTreeMap<&'static str, u64> = BTreeMap::new();
    for c in call_stats_of(&tracker, store) {
        let Some(name) = c.tool.clone() else { continue };
        let g = tools.entry(name).or_default();
        g.count += 1;
        g.progress += c.notifications;
        match c.outcome {
            CallOutcome::Ok => {
                g.ok += 1;
                g.latencies_ms.push(c.duration_ms);
            }
            o => {
                if matches!(o, CallOutcome::ToolError | CallOutcome::Error) {
                    g.latencies_ms.push(c.duration_ms);
                }
                *g.errors.entry(outcome_kind(o)).or_default() += 1;
            }
        }
    }
    let mut methods: BTreeMap<String, Group> = BTreeMap::new();
    let mut codes: BTreeMap<String, u64> = BTreeMap::new();
    let mut notifications = 0u64;
    for ev in store.range(0, store.next_seq()) {
        if ev.progress.is_some() {
            notifications += 1;
        }
        if ev.kind != FrameKind::Request || !matches!(ev.dir, Dir::In | Dir::Out) {
            continue;
        }
        let Some(method) = ev.method else { continue };
        let g = methods.entry(method.to_string()).or_default();
        g.count += 1;
        match answer(s, &ev) {
            Some(resp) => {
                g.latencies_ms
                    .push(resp.t_us.saturating_sub(ev.t_us) as f64 / 1000.0);
                if resp.kind == FrameKind::ErrorResponse {
                    *g.errors.entry("rpc-error").or_default() += 1;
                    let code = resp
                        .frame()
                        .error
                        .and_then(|e| serde_json::from_str::<Value>(e.get()).ok())
                        .and_then(|e| e.get("code").cloned())
                        .map_or_else(|| "?".to_string(), |c| c.to_string());
                    *codes.entry(code).or_default() += 1;
                } else {
                    g.ok += 1;
                }
            }
            None => *g.errors.entry("no-response").or_default() += 1,
        }
    }
    for c in &tracker.calls {
        if c.tool.is_none()
            && let Some(g) = methods.get_mut(&c.method)
        {
            g.progress += store
                .token(c.token.as_ref().unwrap_or(&c.id))
                .map_or(0, |t| t.notifications);
        }
    }
    // Every request's JSON-RPC outcome, and the tool errors its results carried.
    for g in methods.values() {
        for (k, n) in &g.errors {
            *errors.entry(k).or_default() += n;
        }
    }
    let tool_errors: u64 = tools
        .values()
        .filter_map(|g| g.errors.get("tool-error"))
        .sum();
    if tool_errors > 0 {
        errors.insert("tool-error", tool_errors);
    }
    let mut findings: BTreeMap<&str, Value> = BTreeMap::new();
    for f in s.findings {
        let e = findings
            .entry(f.rule.id())
            .or_insert_with(|| json!({"severity": f.severity.to_string(), "count": 0}));
        e["count"] = json!(e["count"].as_u64().unwrap_or(0) + 1);
    }
    let group_map = |m: BTreeMap<String, Group>| -> Map<String, Value> {
        m.into_iter().map(|(k, g)| (k, g.json())).collect()
    };
    json!({
        "mcpscope_export": 1,
        "events": store.len(),
        "tools": group_map(tools),
        "methods": group_map(methods),
        "errors": errors,
        "error_codes": codes,
        "progress": {"notifications": notifications, "tokens": store.token_count()},
        "findings": findings,
    })
}

/// The response the store paired with this request, if any (the first one).
fn answer<'a>(s: &Session<'a>, req: &EventRef<'_>) -> Option<EventRef<'a>> {
    let origin = if req.dir == Dir::Out {
        Origin::Client
    } else {
        Origin::Server
    };
    let id = req.frame().id?;
    let entry = s.store.request(origin, &id)?;
    if entry.request_seq != req.seq {
        return None;
    }
    let resp = s.store.get(entry.response_seq?)?;
    (resp.flags & flags::DUPLICATE == 0).then_some(resp)
}
