//! The `html` export: one self-contained page of a recorded session that
//! any browser opens offline — the session's header, the Scope (a lane per
//! call on a time axis: progress as it arrived, logs by level, findings as
//! marks, the server's spans under their call), the Timeline in arrival
//! order with each frame's raw text, the findings grouped with each rule's
//! fix, and per-call statistics.
//!
//! The page itself is three real files beside this one (`html/page.html`,
//! `page.css`, `page.js`: no framework, nothing fetched); the session goes
//! in as data, never as markup: two gzip-compressed, base64-encoded blocks
//! (base64 cannot close the element that holds it) that the page inflates
//! with the browser's `DecompressionStream` and puts on screen with
//! `textContent` only. The Content-Security-Policy allows no source at all
//! but the page's own script and style, by their SHA-256: a server's text
//! can neither run nor load anything.
//!
//! The data: `index`, a JSON document (the session's summary, the calls
//! with their statistics and spans, the findings and their groups, and
//! the events as columns: time deltas, direction, kind, label, lane, log
//! level, byte length), and `raw`, every event's bytes one after the other
//! (what the Timeline opens). Columns rather than one object per event keep
//! a million events small to send and quick to read.
//!
//! Secrets: requests' `params` are redacted as HAR's bodies are, meta
//! events and the header as a trace redacts them, again (a `--no-redact`
//! recording exports redacted too); the server's answers are kept as sent.

use super::Session;
use crate::calls::Tracker;
use crate::calls::spans::CallSpans;
use crate::checks::Finding;
use crate::checks::groups::groups;
use crate::checks::stats::call_stats_of;
use crate::protocol::IdKey;
use crate::protocol::frame::FrameKind;
use crate::protocol::secrets::{redact_json, redact_params};
use crate::protocol::views::LogLevel;
use crate::trace::{Dir, EventRef, Store};
use base64::Engine;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::Write;

const PAGE: &str = include_str!("html/page.html");
const STYLE: &str = include_str!("html/page.css");
const SCRIPT: &str = include_str!("html/page.js");

/// Lanes before the calls' (a call `i` is lane `CALLS + i`).
const SESSION_LANE: u32 = 0;
const LOGS_LANE: u32 = 1;
const CALLS: u32 = 2;

/// The page of session `s`; `generator` names the mcpscope that made it.
pub fn html(s: &Session<'_>, generator: &str) -> Result<String, super::ExportError> {
    let (index, raw) = data(s, generator)?;
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(index.as_bytes())?;
    let index = z.finish()?;
    let b64 = base64::engine::general_purpose::STANDARD;
    let title = escape(&format!(
        "{} — mcpscope session",
        server_name(s).unwrap_or_else(|| "server".into())
    ));
    let csp = format!(
        "default-src 'none'; script-src '{}'; style-src '{}'; img-src data:; base-uri 'none'; form-action 'none'",
        sha256(SCRIPT),
        sha256(STYLE)
    );
    let mut out = String::with_capacity(PAGE.len() + STYLE.len() + SCRIPT.len() + raw.len() * 2);
    // The template's slots, in the order they appear; each is replaced once.
    let mut rest = PAGE;
    for (slot, value) in [
        ("{{CSP}}", csp.as_str()),
        ("{{GENERATOR}}", &escape(generator)),
        ("{{TITLE}}", &title),
        ("{{STYLE}}", STYLE),
        ("{{GENERATOR}}", &escape(generator)),
        ("{{INDEX}}", &b64.encode(index)),
        ("{{RAW}}", &b64.encode(raw)),
        ("{{SCRIPT}}", SCRIPT),
    ] {
        let Some(at) = rest.find(slot) else {
            return Err(super::ExportError::Template(slot));
        };
        out.push_str(&rest[..at]);
        out.push_str(value);
        rest = &rest[at + slot.len()..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `sha256-BASE64` of an inline script or style, as a CSP source names it.
fn sha256(text: &str) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(text.as_bytes());
    format!(
        "sha256-{}",
        base64::engine::general_purpose::STANDARD.encode(d)
    )
}

/// Text made safe between tags and inside a quoted attribute.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The server's name: what it said of itself, else what the trace calls it.
fn server_name(s: &Session<'_>) -> Option<String> {
    negotiated(s)
        .and_then(|v| {
            v.pointer("/serverInfo/name")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .or_else(|| {
            s.header
                .pointer("/server/name")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
}

/// The first `negotiated` meta event (revision, serverInfo).
fn negotiated(s: &Session<'_>) -> Option<Value> {
    s.store
        .range(0, s.store.next_seq())
        .filter(|ev| ev.dir == Dir::Meta && ev.method == Some("negotiated"))
        .find_map(|ev| serde_json::from_slice(ev.bytes).ok())
}

/// The index document (JSON text) and the events' bytes (gzip-compressed).
fn data(s: &Session<'_>, generator: &str) -> Result<(String, Vec<u8>), super::ExportError> {
    let store = s.store;
    let tracker = Tracker::of(store);
    let lanes = Lanes::of(&tracker);
    let mut level: HashMap<u64, u8> = HashMap::new();
    for l in LogLevel::ALL {
        for &seq in store.by_level(l) {
            level.insert(seq, b'0' + l as u8);
        }
    }
    let mut labels: Vec<String> = vec![String::new()];
    let mut label_ix: HashMap<String, u32> = HashMap::new();
    let mut cols = Columns::default();
    let mut raw = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let (mut first_seq, mut last_seq, mut prev_seq) = (None, 0u64, 0u64);
    let (mut first_t, mut prev_t, mut last_t) = (0u64, 0u64, 0u64);
    let mut counts = Counts::default();
    for ev in store.range(0, store.next_seq()) {
        if first_seq.is_none() {
            first_seq = Some(ev.seq);
            first_t = ev.t_us;
            prev_seq = ev.seq;
            prev_t = ev.t_us;
        }
        counts.add(&ev);
        cols.dseq.push(ev.seq as i64 - prev_seq as i64);
        cols.dt.push(ev.t_us as i64 - prev_t as i64);
        prev_seq = ev.seq;
        prev_t = ev.t_us;
        last_seq = ev.seq;
        last_t = last_t.max(ev.t_us);
        cols.dir.push(match ev.dir {
            Dir::Out => 'o',
            Dir::In => 'i',
            Dir::Stderr => 'e',
            Dir::Meta => 'm',
        });
        cols.kind.push(kind_char(&ev));
        let label = match ev.dir {
            Dir::Stderr => "stderr",
            _ => ev.method.unwrap_or(""),
        };
        let li = match label_ix.get(label) {
            Some(i) => *i,
            None => {
                let i = labels.len() as u32;
                labels.push(label.to_string());
                label_ix.insert(label.to_string(), i);
                i
            }
        };
        cols.label.push(li);
        cols.lane.push(lanes.lane(store, &ev));
        cols.level.push(match (ev.dir, level.get(&ev.seq)) {
            (Dir::Stderr, _) => 's',
            (_, Some(l)) => *l as char,
            _ => '-',
        });
        let bytes = shown_bytes(&ev);
        cols.len.push(bytes.len() as i64);
        raw.write_all(&bytes)?;
    }
    let raw = raw.finish()?;

    let calls = calls_json(&tracker, store, first_t, last_t);
    let (findings, groups_json) = findings_json(s.findings);
    let neg = negotiated(s);
    let mut header = s.header.clone();
    redact_json(&mut header);
    let server = header.get("server").cloned().unwrap_or(Value::Null);
    let summary = json!({
        "server": server_name(s),
        "server_version": neg.as_ref().and_then(|v| v.pointer("/serverInfo/version")).and_then(Value::as_str),
        "revision": neg.as_ref().and_then(|v| v.get("protocolVersion")).and_then(Value::as_str),
        "era": neg.as_ref().and_then(|v| v.get("era")).and_then(Value::as_str),
        "transport": server.get("transport").and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| Some(if s.is_http() { "http" } else { "stdio" }.to_string())),
        "target": target_of(&server),
        "started": header.get("started").and_then(Value::as_str),
        "recorded_as": if s.is_proxy() { "proxy" } else { "client" },
        "duration_us": last_t.saturating_sub(first_t),
        "events": cols.dir.len(),
        "frames": counts.frames,
        "progress": counts.progress,
        "logs": counts.logs,
        "stderr": counts.stderr,
        "calls": tracker.calls.len(),
        "findings": s.findings.len(),
    });
    let mut out = String::with_capacity(cols.dir.len() * 16 + 4096);
    out.push('{');
    push_kv(&mut out, "format", &json!(1));
    push_kv(&mut out, "generator", &json!(generator));
    push_kv(&mut out, "session", &summary);
    push_kv(&mut out, "labels", &json!(labels));
    push_kv(&mut out, "calls", &Value::Array(calls));
    push_kv(&mut out, "findings", &Value::Array(findings));
    push_kv(&mut out, "groups", &Value::Array(groups_json));
    out.push_str("\"events\":{");
    push_kv(&mut out, "seq0", &json!(first_seq.unwrap_or(0)));
    push_kv(&mut out, "last_seq", &json!(last_seq));
    push_kv(&mut out, "t0_us", &json!(first_t));
    push_nums(&mut out, "dseq", &cols.dseq);
    push_nums(&mut out, "dt", &cols.dt);
    push_nums(&mut out, "len", &cols.len);
    push_nums(
        &mut out,
        "lane",
        &cols.lane.iter().map(|&l| i64::from(l)).collect::<Vec<_>>(),
    );
    push_nums(
        &mut out,
        "label",
        &cols.label.iter().map(|&l| i64::from(l)).collect::<Vec<_>>(),
    );
    push_kv(&mut out, "dir", &json!(cols.dir));
    push_kv(&mut out, "kind", &json!(cols.kind));
    out.push_str("\"level\":");
    out.push_str(&json!(cols.level).to_string());
    out.push_str("}}");
    Ok((out, raw))
}

/// Each call of the session, its timing relative to the first event.
fn calls_json(tracker: &Tracker, store: &Store, first_t: u64, last_t: u64) -> Vec<Value> {
    let stats = call_stats_of(tracker, store);
    let by_request: HashMap<u64, &crate::checks::stats::CallStats> =
        stats.iter().map(|c| (c.request_seq, c)).collect();
    let has_spans = !store.otel_spans().is_empty();
    tracker
        .calls
        .iter()
        .map(|c| {
            let st = by_request.get(&c.request_seq);
            let end_us = c.ended().map_or(last_t, |e| e.t_us);
            let mut v = json!({
                "id": c.id.to_string(),
                "tool": c.tool,
                "method": c.method,
                "token": c.token.as_ref().map(IdKey::to_string),
                "request_seq": c.request_seq,
                "start_us": c.sent_us.saturating_sub(first_t),
                "end_us": end_us.saturating_sub(first_t),
            });
            if let Some(st) = st {
                v["response_seq"] = json!(st.response_seq);
                v["outcome"] = json!(st.outcome);
                v["duration_ms"] = json!(st.duration_ms);
                v["notifications"] = json!(st.notifications);
                v["first_progress_ms"] = json!(st.first_progress_ms);
                v["gap_ms"] = json!(st.inter_arrival_ms.map(|s| s.max));
                v["per_second"] = json!(st.per_second);
            }
            if has_spans {
                v["spans"] = spans_of(store, c.request_seq, c.sent_us.saturating_sub(first_t));
            }
            v
        })
        .collect()
}

/// The findings (each with its group's index) and their groups.
fn findings_json(findings: &[Finding]) -> (Vec<Value>, Vec<Value>) {
    let grouped = groups(findings);
    let mut group_of = vec![0usize; findings.len()];
    for (g, gr) in grouped.iter().enumerate() {
        for &f in &gr.findings {
            if let Some(x) = group_of.get_mut(f) {
                *x = g;
            }
        }
    }
    let finding_json: Vec<Value> = findings
        .iter()
        .zip(&group_of)
        .map(|(f, g)| {
            json!({
                "rule": f.rule.to_string(),
                "severity": f.severity,
                "message": f.message,
                "seqs": f.seqs,
                "request_id": f.request_id.as_ref().map(IdKey::to_string),
                "group": g,
            })
        })
        .collect();
    let groups_json: Vec<Value> = grouped
        .iter()
        .map(|g| {
            json!({
                "rule": g.rule.to_string(),
                "severity": g.severity,
                "party": g.party,
                "count": g.count,
                "request_id": g.request_id.as_ref().map(IdKey::to_string),
                "first_seq": g.first_seq,
                "last_seq": g.last_seq,
                "message": g.message,
                "fix": g.fix,
                "spec": g.spec,
                "findings": g.findings,
            })
        })
        .collect();
    (finding_json, groups_json)
}

fn push_kv(out: &mut String, key: &str, v: &Value) {
    out.push('"');
    out.push_str(key);
    out.push_str("\":");
    out.push_str(&v.to_string());
    out.push(',');
}

fn push_nums(out: &mut String, key: &str, v: &[i64]) {
    out.push('"');
    out.push_str(key);
    out.push_str("\":[");
    let mut b = itoa::Buffer::new();
    for (i, n) in v.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(b.format(*n));
    }
    out.push_str("],");
}

#[derive(Default)]
struct Columns {
    dseq: Vec<i64>,
    dt: Vec<i64>,
    len: Vec<i64>,
    lane: Vec<u32>,
    label: Vec<u32>,
    dir: String,
    kind: String,
    level: String,
}

#[derive(Default)]
struct Counts {
    frames: u64,
    progress: u64,
    logs: u64,
    stderr: u64,
}

impl Counts {
    fn add(&mut self, ev: &EventRef<'_>) {
        match ev.dir {
            Dir::In | Dir::Out => {
                self.frames += 1;
                if ev.progress.is_some() {
                    self.progress += 1;
                }
                if ev.method == Some(crate::protocol::methods::MESSAGE) {
                    self.logs += 1;
                }
            }
            Dir::Stderr => self.stderr += 1,
            Dir::Meta => {}
        }
    }
}

/// One letter per kind of event: the page's Timeline and Scope read it.
fn kind_char(ev: &EventRef<'_>) -> char {
    if matches!(ev.dir, Dir::Stderr | Dir::Meta) {
        return '-';
    }
    match ev.kind {
        FrameKind::Request => 'q',
        FrameKind::Notification => 'n',
        FrameKind::Response => 'r',
        FrameKind::ErrorResponse => 'x',
        FrameKind::Batch => 'b',
        FrameKind::NotJsonRpc | FrameKind::NotJson | FrameKind::InvalidUtf8 | FrameKind::Empty => {
            '!'
        }
    }
}

/// What the page shows of an event: requests' `params` and meta events
/// redacted (see the module's comment), everything else as recorded.
fn shown_bytes<'a>(ev: &EventRef<'a>) -> std::borrow::Cow<'a, [u8]> {
    let redacted =
        match (ev.dir, ev.kind) {
            (Dir::Out, FrameKind::Request) => serde_json::from_slice::<Value>(ev.bytes)
                .ok()
                .and_then(|mut v| {
                    let before = v.get("params")?.clone();
                    let p = v.get_mut("params")?;
                    redact_params(p);
                    (*p != before).then(|| v.to_string())
                }),
            (Dir::Meta, _) => serde_json::from_slice::<Value>(ev.bytes)
                .ok()
                .and_then(|mut v| {
                    let before = v.clone();
                    redact_json(&mut v);
                    (v != before).then(|| v.to_string())
                }),
            _ => None,
        };
    match redacted {
        Some(t) => std::borrow::Cow::Owned(t.into_bytes()),
        None => std::borrow::Cow::Borrowed(ev.bytes),
    }
}

/// `command args…` or the URL, as the (redacted) header names the server.
fn target_of(server: &Value) -> Option<String> {
    if let Some(u) = server.get("url").and_then(Value::as_str) {
        return Some(crate::protocol::secrets::redact_url(u));
    }
    let argv: Vec<&str> = server
        .get("argv")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .collect();
    (!argv.is_empty()).then(|| argv.join(" "))
}

/// Which lane each event is drawn on: its call's (the request, its
/// response, its token's progress, its cancellation), the logs' (log
/// messages and stderr), or the session's (everything else).
struct Lanes {
    by_id: HashMap<IdKey, u32>,
    by_token: HashMap<IdKey, u32>,
}

impl Lanes {
    fn of(t: &Tracker) -> Lanes {
        let mut by_id = HashMap::new();
        let mut by_token = HashMap::new();
        for (i, c) in t.calls.iter().enumerate() {
            by_id.entry(c.id.clone()).or_insert(CALLS + i as u32);
            if let Some(tok) = &c.token {
                by_token.entry(tok.clone()).or_insert(CALLS + i as u32);
            }
        }
        Lanes { by_id, by_token }
    }

    fn of_event(&self, store: &crate::trace::Store, ev: &EventRef<'_>) -> Option<u32> {
        if let Some(p) = ev.progress {
            let tok = store.token_by_slot(p.slot)?;
            return self.by_token.get(&tok.key).copied();
        }
        match (ev.dir, ev.kind) {
            (Dir::Out, FrameKind::Request)
            | (Dir::In, FrameKind::Response | FrameKind::ErrorResponse) => {
                self.by_id.get(&ev.frame().id?).copied()
            }
            (Dir::Out, FrameKind::Notification)
                if ev.method == Some(crate::protocol::methods::CANCELLED) =>
            {
                let f = ev.frame();
                let p: Value = serde_json::from_str(f.params?.get()).ok()?;
                let id = IdKey::from_value(p.get("requestId")?);
                self.by_id.get(&id).copied()
            }
            _ => None,
        }
    }

    fn lane(&self, store: &crate::trace::Store, ev: &EventRef<'_>) -> u32 {
        if ev.dir == Dir::Stderr || ev.method == Some(crate::protocol::methods::MESSAGE) {
            return LOGS_LANE;
        }
        self.of_event(store, ev).unwrap_or(SESSION_LANE)
    }
}

/// The server's spans in the call's trace (the `traceparent` its request
/// carried), in waterfall order, on the session's axis: a recording knows
/// its start to the second only, so the earliest span starts with the
/// request (as the TUI's Scope places them in a replay).
fn spans_of(store: &crate::trace::Store, request_seq: u64, sent_us: u64) -> Value {
    let Some(tp) = store
        .get(request_seq)
        .and_then(|ev| crate::protocol::trace_context::traceparent_of(ev.bytes))
    else {
        return json!([]);
    };
    let mut spans = CallSpans::default();
    spans.sync(&tp.trace_id, store, usize::MAX);
    let Some(first) = spans.first_start_ns() else {
        return json!([]);
    };
    let at = |ns: u64| sent_us + ns.saturating_sub(first) / 1000;
    Value::Array(
        spans
            .waterfall()
            .iter()
            .map(|p| {
                json!({
                    "name": p.span.name,
                    "depth": p.depth,
                    "start_us": at(p.span.start_ns),
                    "end_us": at(p.span.end_ns.max(p.span.start_ns)),
                    "error": p.span.status == "error",
                    "kind": p.span.kind,
                    "attributes": p.span.attributes,
                })
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_the_title_is_escaped_and_the_policy_hashes_the_page() {
        assert_eq!(
            escape("<img src=x onerror=\"a()\">&'"),
            "&lt;img src=x onerror=&quot;a()&quot;&gt;&amp;&#39;"
        );
        assert!(sha256("x").starts_with("sha256-"));
        for slot in ["{{CSP}}", "{{STYLE}}", "{{SCRIPT}}", "{{INDEX}}", "{{RAW}}"] {
            assert!(PAGE.contains(slot), "{slot}");
        }
    }
}
