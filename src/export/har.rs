//! HAR 1.2 of an HTTP session: one entry per HTTP exchange.
//!
//! The exchanges are the pairs of `calls::exchanges`, the model the
//! Network pane reads too. An exchange is what the trace's channels
//! already separate (see docs/traces.md): a POST is its own channel `post:N` (its request body,
//! its `http` event, the SSE events or JSON body that answered it, its
//! `stream-end`); each `http` event on `get` opens a GET stream; a DELETE
//! is an `http` event on its own; each `auth-http` event is an exchange of
//! the authorization flow (its URL without the query, its status, its step
//! as the entry's `comment`). A trace records no header values, so the
//! request headers are the session's configured ones (`-H`, from the trace
//! header) and those the transport always sends, the response headers
//! those the trace names (`Content-Type`, `Mcp-Session-Id`); every value
//! whose name is a secret's is `[redacted]`.
//!
//! Beside HAR's fields each entry has `_channel` (the trace channel),
//! `_seq` (the trace seq numbers of its events) and `_sseEvents` (each event
//! of an event stream: `time`, ms after the request, and `data`); the
//! response's `content.text` of an event stream is the stream as
//! `data: …` blocks.

use super::Session;
use crate::calls::exchanges::{Exchanges, Pair};
use crate::format::civil_from_days;
use crate::protocol::secrets::{REDACTED, is_secret_name, redact_pair};
use crate::trace::{Dir, EventRef};
use serde_json::{Value, json};

/// Why a stdio session has no HAR.
pub const NOT_HTTP: &str =
    "HAR needs an HTTP session: this trace was recorded over stdio (export it as mermaid or json)";

struct Exchange {
    channel: String,
    method: String,
    start_us: u64,
    end_us: Option<u64>,
    request: Option<String>,
    status: Option<u16>,
    error: Option<String>,
    content_type: Option<String>,
    session: bool,
    wait_ms: u64,
    /// JSON bodies or SSE events that arrived on the channel.
    events: Vec<(u64, String)>,
    seqs: Vec<u64>,
    /// The session was authorized when the request went.
    authorized: bool,
    /// An exchange of the authorization flow: its step, and the URL it
    /// went to (without its query) instead of the server's.
    auth_step: Option<(String, String)>,
}

/// The HAR document of an HTTP session; `Err` for a stdio one.
pub fn har(s: &Session<'_>) -> Result<Value, super::ExportError> {
    if !s.is_http() {
        return Err(super::ExportError::NotHttp);
    }
    let mut model = Exchanges::default();
    model.sync(s.store, s.store.next_seq());
    let mut done: Vec<Exchange> = model
        .pairs()
        .iter()
        .map(|p| exchange(p, &model.events_of(p, s.store)))
        .collect();
    crate::sort::by_key(&mut done, |x| (x.start_us, x.seqs.first().copied()));
    let started = s.header.get("started").and_then(Value::as_str);
    let url = s
        .header
        .pointer("/server/url")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let configured: Vec<String> = s
        .header
        .pointer("/server/headers")
        .and_then(Value::as_array)
        .map(|hs| {
            hs.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let entries: Vec<Value> = done
        .iter()
        .map(|x| entry(x, started, &url, &configured))
        .collect();
    Ok(json!({"log": {
        "version": "1.2",
        "creator": {"name": "mcpscope", "version": env!("CARGO_PKG_VERSION")},
        "comment": "header values are not recorded in mcpscope traces: request headers are the configured ones and those the transport sends; secrets are [redacted]",
        "pages": [],
        "entries": entries,
    }}))
}

/// A pair as an entry is written: its request body (secret-named
/// arguments redacted) and the bodies that answered it, from the store.
fn exchange(p: &Pair, events: &[EventRef<'_>]) -> Exchange {
    let mut x = Exchange {
        channel: p.channel.clone(),
        method: p.method.clone(),
        start_us: p.start_us,
        end_us: p.end_us,
        request: None,
        status: p.status,
        error: p.error.clone(),
        content_type: p.content_type.clone(),
        session: p.session,
        wait_ms: p.wait_ms,
        events: Vec::new(),
        seqs: events.iter().map(|ev| ev.seq).collect(),
        authorized: p.authorized,
        auth_step: p.auth_step.clone(),
    };
    if p.auth_step.is_none() {
        for ev in events {
            match ev.dir {
                Dir::Out => x.request = Some(redact_arguments(&ev.text())),
                Dir::In => x.events.push((ev.t_us, ev.text().into_owned())),
                Dir::Meta | Dir::Stderr => {}
            }
        }
    }
    x
}

fn header(name: &str, value: &str) -> Value {
    let value = if is_secret_name(name) {
        REDACTED
    } else {
        value
    };
    json!({"name": name, "value": value})
}

fn entry(x: &Exchange, started: Option<&str>, url: &str, configured: &[String]) -> Value {
    let sse = x
        .content_type
        .as_deref()
        .is_some_and(|c| c.starts_with("text/event-stream"));
    // A trace recorded with --no-redact keeps the URL as given; an export
    // redacts anyway (its password, its secret-named query values).
    let url =
        crate::protocol::secrets::redact_url(x.auth_step.as_ref().map_or(url, |(_, u)| u.as_str()));
    let mut req_headers = Vec::new();
    // What the authorization flow sent is not recorded, only that it went.
    if x.auth_step.is_none() {
        if x.request.is_some() {
            req_headers.push(header("Content-Type", "application/json"));
        }
        let accept = if x.method == "GET" {
            "text/event-stream"
        } else {
            "application/json, text/event-stream"
        };
        req_headers.push(header("Accept", accept));
        for h in configured {
            let line = redact_pair(h).unwrap_or_else(|| h.clone());
            if let Some((n, v)) = line.split_once(':') {
                req_headers.push(header(n.trim(), v.trim()));
            }
        }
        if x.authorized {
            req_headers.push(header("Authorization", REDACTED));
        }
    }
    let mut res_headers = Vec::new();
    if let Some(ct) = &x.content_type {
        res_headers.push(header("Content-Type", ct));
    }
    if x.session {
        res_headers.push(header("Mcp-Session-Id", REDACTED));
    }
    let text: String = if sse {
        x.events
            .iter()
            .map(|(_, d)| format!("data: {d}\n\n"))
            .collect()
    } else {
        x.events
            .iter()
            .map(|(_, d)| d.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let last_us = x.events.last().map(|(t, _)| *t);
    let end_us = x.end_us.or(last_us).unwrap_or(x.start_us).max(x.start_us);
    let total_ms = (end_us - x.start_us) as f64 / 1000.0;
    let wait = (x.wait_ms as f64).min(total_ms);
    let mut e = json!({
        "startedDateTime": started_at(started, x.start_us),
        "time": total_ms,
        "request": {
            "method": x.method,
            "url": url,
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": req_headers,
            "queryString": [],
            "headersSize": -1,
            "bodySize": x.request.as_ref().map_or(0, |b| b.len() as i64),
        },
        "response": {
            "status": x.status.unwrap_or(0),
            "statusText": x.error.clone().unwrap_or_default(),
            "httpVersion": "HTTP/1.1",
            "cookies": [],
            "headers": res_headers,
            "content": {
                "size": text.len(),
                "mimeType": x.content_type.clone().unwrap_or_else(|| "x-unknown".into()),
                "text": text,
            },
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": -1,
        },
        "cache": {},
        "timings": {"send": 0.0, "wait": wait, "receive": ((total_ms - wait) * 1000.0).round() / 1000.0},
        "_channel": x.channel,
        "_seq": x.seqs,
    });
    if let Some((step, _)) = &x.auth_step {
        e["comment"] = json!(format!("authorization flow: {step}"));
    }
    if let Some(body) = &x.request {
        e["request"]["postData"] = json!({"mimeType": "application/json", "text": body});
    }
    if sse {
        e["_sseEvents"] = x
            .events
            .iter()
            .map(|(t, d)| json!({"time": t.saturating_sub(x.start_us) as f64 / 1000.0, "data": d}))
            .collect();
    }
    e
}

/// `started` (the trace header's RFC 3339 UTC seconds) plus `t_us`, as
/// RFC 3339 with milliseconds; the epoch when the header has none.
fn started_at(started: Option<&str>, t_us: u64) -> String {
    let base = started
        .and_then(crate::format::rfc3339_unix_secs)
        .unwrap_or(0);
    let ms = base * 1000 + (t_us / 1000) as i64;
    let (secs, milli) = (ms.div_euclid(1000), ms.rem_euclid(1000));
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{milli:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// A request body with the secret-named values in its tool arguments (or
/// any request's `params`) replaced, as `diff` shows them; a body without
/// any is kept byte for byte.
fn redact_arguments(body: &str) -> String {
    let Ok(mut v) = serde_json::from_str::<Value>(body) else {
        return body.to_string();
    };
    let Some(params) = v.get_mut("params") else {
        return body.to_string();
    };
    let before = params.clone();
    crate::protocol::secrets::redact_params(params);
    if *params == before {
        return body.to_string();
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_arguments_are_redacted_and_the_rest_kept_as_sent() {
        let body = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{"api_key":"sk-live-1","region":"eu"},"_meta":{"progressToken":"mcpscope-1"}}}"#;
        let out = redact_arguments(body);
        assert!(!out.contains("sk-live-1"), "{out}");
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["params"]["arguments"]["api_key"], REDACTED);
        assert_eq!(v["params"]["arguments"]["region"], "eu");
        assert_eq!(v["params"]["_meta"]["progressToken"], "mcpscope-1");
        let plain = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":"t"}}}"#;
        assert_eq!(redact_arguments(plain), plain, "untouched, byte for byte");
        assert_eq!(redact_arguments("not json"), "not json");
    }

    #[test]
    fn started_at_adds_the_offset_across_a_day() {
        assert_eq!(
            started_at(Some("2026-12-31T23:59:59Z"), 1_250_000),
            "2027-01-01T00:00:00.250Z"
        );
        assert_eq!(
            started_at(Some("2024-02-29T12:00:00Z"), 0),
            "2024-02-29T12:00:00.000Z"
        );
        assert_eq!(started_at(None, 0), "1970-01-01T00:00:00.000Z");
    }
}
