//! A test file from a recording (`mcpscope test --from TRACE`): the server
//! as the header names it, one case per `tools/call`, expectations from what
//! the recording shows — exact where a correct server repeats itself
//! (isError, how many progress notifications, their order, the log levels),
//! loose where timing varies (gaps and durations get generous bounds).

use super::SuiteError;
use crate::calls::{Call, Tracker};
use crate::checks::stats::CallStats;
use crate::protocol::views::{LogLevel, LogView};
use crate::trace::{Dir, Store};
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

/// A value a recording's redaction replaced (in whole or in part).
fn redacted(v: &str) -> bool {
    v.contains(crate::protocol::secrets::REDACTED)
}

/// An environment variable name for a redacted value.
fn var_name(name: &str) -> String {
    let n: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    if n.is_empty() { "SECRET".into() } else { n }
}

/// The `[server]` table for the header's server, and notes for the reader.
fn server(header: &Value, protocol: Option<String>, notes: &mut Vec<String>) -> Map<String, Value> {
    let s = &header["server"];
    let mut t = Map::new();
    match s["transport"].as_str() {
        Some("http") => {
            t.insert("url".into(), s["url"].clone());
            let mut headers = Map::new();
            for h in s["headers"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if let Some((k, v)) = h.split_once(':') {
                    let v = v.trim();
                    let v = if redacted(v) {
                        format!("${{{}}}", var_name(k))
                    } else {
                        v.to_string()
                    };
                    headers.insert(k.trim().to_string(), Value::String(v));
                }
            }
            if !headers.is_empty() {
                t.insert("headers".into(), Value::Object(headers));
            }
        }
        _ => {
            let argv: Vec<&str> = s["argv"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            if s["name"] == "mcpscope-demo"
                && argv.get(1) == Some(&"demo-server")
                && argv.len() == 2
            {
                t.insert("demo".into(), Value::Bool(true));
            } else if argv.is_empty() {
                notes.push("the recording names no server: fill in [server]".into());
                t.insert("command".into(), json!(["SERVER"]));
            } else {
                t.insert("command".into(), json!(argv));
                if let Some(cwd) = s["cwd"].as_str() {
                    t.insert("cwd".into(), Value::String(cwd.into()));
                }
            }
            let mut env = Map::new();
            for (k, v) in s["env"].as_object().into_iter().flatten() {
                let v = v.as_str().unwrap_or_default();
                let v = if redacted(v) {
                    format!("${{{}}}", var_name(k))
                } else {
                    v.to_string()
                };
                env.insert(k.clone(), Value::String(v));
            }
            if !env.is_empty() {
                t.insert("env".into(), Value::Object(env));
            }
        }
    }
    if let Some(p) = protocol {
        t.insert("protocol".into(), Value::String(p));
    }
    t
}

/// The revision the recorded session ran at, as `--protocol` takes it.
fn protocol(store: &Store) -> Option<String> {
    let mut discovered = false;
    for ev in store.range(0, store.next_seq()) {
        if ev.dir != Dir::In {
            continue;
        }
        match ev.method {
            Some("initialize") => {
                let frame = ev.frame();
                let result: Value = serde_json::from_str(frame.result?.get()).ok()?;
                return result["protocolVersion"].as_str().map(str::to_string);
            }
            Some("server/discover") if ev.frame().result.is_some() => discovered = true,
            _ => {}
        }
    }
    discovered.then(|| "modern".into())
}

/// A bound with room: `factor` times what was seen, at least `floor`, in
/// round milliseconds.
fn generous(seen_ms: f64, factor: f64, floor: f64) -> Value {
    json!(((seen_ms * factor).max(floor) / 100.0).ceil() * 100.0)
}

fn case(
    store: &Store,
    c: &Call,
    stats: Option<&CallStats>,
    to: u64,
    log_level: Option<&str>,
) -> Map<String, Value> {
    let request: Value = store
        .get(c.request_seq)
        .and_then(|ev| {
            ev.frame()
                .params
                .and_then(|p| serde_json::from_str(p.get()).ok())
        })
        .unwrap_or(Value::Null);
    let mut t = Map::new();
    t.insert(
        "tool".into(),
        Value::String(c.tool.clone().unwrap_or_default()),
    );
    if let Some(a) = request
        .get("arguments")
        .filter(|a| a.as_object().is_some_and(|o| !o.is_empty()))
    {
        t.insert("arguments".into(), a.clone());
    }
    if c.token.is_none() {
        t.insert("token".into(), Value::String("none".into()));
    }
    // At 2026-07-28 the level rides on each request; before, setLevel set it.
    let per_request = request["_meta"][crate::protocol::meta::LOG_LEVEL].as_str();
    if let Some(l) = per_request.or(log_level) {
        t.insert("log_level".into(), Value::String(l.into()));
    }
    let mut e = Map::new();
    let result: Option<Value> = c.response_seq().and_then(|s| store.get(s)).and_then(|ev| {
        ev.frame()
            .result
            .and_then(|r| serde_json::from_str(r.get()).ok())
    });
    if let Some(r) = &result {
        e.insert(
            "is_error".into(),
            Value::Bool(r["isError"].as_bool().unwrap_or(false)),
        );
        // The shape of the content, not its text (which may name a time or an id).
        let types: Vec<Value> = r["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c.get("type").cloned())
            .map(|t| json!({ "type": t }))
            .collect();
        if !types.is_empty() {
            e.insert("result".into(), json!({ "content": types }));
        }
    }
    let progress: Vec<(u64, f64, Option<f64>)> = match &c.token {
        Some(token) => store
            .token_seqs_from(token, c.request_seq)
            .filter(|s| *s < to)
            .filter_map(|s| store.get(s))
            .filter(|ev| ev.dir == Dir::In)
            .filter_map(|ev| ev.progress.map(|p| (ev.seq, p.progress, p.total)))
            .collect(),
        None => Vec::new(),
    };
    if !progress.is_empty() {
        let mut p = Map::new();
        p.insert("count".into(), json!(progress.len()));
        if progress.windows(2).all(|w| w[1].1 > w[0].1) {
            p.insert("increasing".into(), Value::Bool(true));
        }
        if let Some((_, v, Some(total))) = progress.last()
            && v >= total
        {
            p.insert("reaches_total".into(), Value::Bool(true));
        }
        if let Some(s) = stats {
            if let Some(g) = s.inter_arrival_ms {
                p.insert("max_gap_ms".into(), generous(g.max, 5.0, 1000.0));
            }
            if let Some(f) = s.first_progress_ms {
                p.insert("first_within_ms".into(), generous(f, 5.0, 1000.0));
            }
        }
        e.insert("progress".into(), Value::Object(p));
        if let Some(r) = c.response_seq()
            && progress.iter().all(|p| p.0 < r)
        {
            e.insert("progress_before_response".into(), Value::Bool(true));
        }
    }
    let levels: BTreeSet<LogLevel> = store
        .logs()
        .iter()
        .filter(|s| (c.request_seq..to).contains(*s))
        .filter_map(|s| store.get(*s))
        .filter(|ev| ev.dir == Dir::In)
        .filter_map(|ev| LogView::parse(ev.frame().params).ok()?.level.ok())
        .collect();
    // A new warning or error is a change worth failing on; a new debug line is not.
    let present: Vec<&str> = levels.iter().map(|l| l.as_str()).collect();
    let absent: Vec<&str> = LogLevel::ALL
        .iter()
        .filter(|l| **l >= LogLevel::Warning && !levels.contains(l))
        .map(|l| l.as_str())
        .collect();
    let mut logs = Map::new();
    if !present.is_empty() {
        logs.insert("present".into(), json!(present));
    }
    if !absent.is_empty() {
        logs.insert("absent".into(), json!(absent));
    }
    e.insert("logs".into(), Value::Object(logs));
    if let Some(s) = stats {
        e.insert(
            "timing".into(),
            json!({ "max_ms": generous(s.duration_ms, 3.0, 2000.0) }),
        );
    }
    t.insert("expect".into(), Value::Object(e));
    t
}

/// The level the recorded client asked for first, if it asked.
fn log_level(store: &Store) -> Option<String> {
    store
        .range(0, store.next_seq())
        .filter(|ev| ev.dir == Dir::Out && ev.method == Some("logging/setLevel"))
        .find_map(|ev| {
            let params: Value = serde_json::from_str(ev.frame().params?.get()).ok()?;
            params["level"].as_str().map(str::to_string)
        })
}

/// The test file, as TOML text, for a recorded session.
pub fn write(source: &str, header: &Value, store: &Store) -> Result<String, SuiteError> {
    let tracker = Tracker::of(store);
    let stats = crate::checks::stats::call_stats_of(&tracker, store);
    let calls: Vec<&Call> = tracker
        .calls
        .iter()
        .filter(|c| c.method == "tools/call")
        .collect();
    if calls.is_empty() {
        return Err(SuiteError::NoCalls {
            from: source.to_string(),
        });
    }
    let mut notes = Vec::new();
    let level = log_level(store);
    let mut cases = Vec::new();
    let mut names = std::collections::HashMap::<String, usize>::new();
    for (i, c) in calls.iter().enumerate() {
        let to = calls.get(i + 1).map_or(store.next_seq(), |n| n.request_seq);
        let st = stats.iter().find(|s| s.request_seq == c.request_seq);
        let mut t = case(store, c, st, to, level.as_deref());
        let tool = c.tool.clone().unwrap_or_else(|| "call".into());
        let n = names.entry(tool.clone()).or_default();
        *n += 1;
        let name = if *n == 1 {
            tool
        } else {
            format!("{tool} #{n}")
        };
        t.insert("name".into(), Value::String(name));
        cases.push(Value::Object(t));
    }
    // One table at a time: the server first, then the cases in call order.
    let toml = |v: Value| {
        toml::to_string(&v).map_err(|error| SuiteError::Toml {
            from: source.to_string(),
            error,
        })
    };
    let mut body = toml(json!({ "server": server(header, protocol(store), &mut notes) }))?;
    for c in cases {
        body.push('\n');
        body.push_str(&toml(json!({ "case": [c] }))?);
    }
    let mut out = format!(
        "# A test file written by `mcpscope test --from {}`.\n",
        source.replace('\n', " ")
    );
    out.push_str(
        "# Expectations are what the recording showed; loosen or tighten them (docs/testing.md).\n",
    );
    for n in notes {
        out.push_str(&format!("# Note: {n}\n"));
    }
    out.push('\n');
    out.push_str(&body);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redacted_env_or_header_value_becomes_a_variable() {
        let mut notes = Vec::new();
        let mut spec = json!({"name": "s", "transport": "stdio", "argv": ["srv"], "env": {"API_KEY": "k", "MODE": "fast"}});
        crate::protocol::secrets::redact_json(&mut spec);
        let t = server(&json!({ "server": spec }), None, &mut notes);
        assert_eq!(t["env"]["API_KEY"], "${API_KEY}");
        assert_eq!(t["env"]["MODE"], "fast");
        let http = json!({"name": "h", "transport": "http", "url": "http://x/mcp",
            "headers": [format!("Authorization: {}", crate::protocol::secrets::REDACTED)]});
        let t = server(&json!({ "server": http }), None, &mut notes);
        assert_eq!(t["headers"]["Authorization"], "${AUTHORIZATION}");
    }
}
