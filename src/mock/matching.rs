//! Which recorded exchange answers a host's message.
//!
//! The method must be the same; the params are compared as JSON values
//! with the top-level `_meta` left out (progress tokens, 2026-07-28
//! request metadata, trace context differ from host to host) and numbers
//! compared by value (`3` and `3.0` are the same). The handshake
//! (`initialize`, `notifications/initialized`, `server/discover`) matches
//! by method alone: its params describe the host, not what it asks for.
//! When several recorded exchanges match, they are taken in recorded
//! order, and once each was used the last one answers again. A recording
//! of several host sessions (the HTTP proxy's) serves each host its own:
//! the k-th host connection takes the k-th recorded session's exchanges
//! first, then the others'.
//!
//! A request nothing matches gets a JSON-RPC error naming the nearest
//! recorded request of that method (fewest differing params) and what
//! differed, or listing the recorded methods when none has it.

use serde_json::{Map, Value, json};

use super::recording::{Exchange, Recording};
use crate::protocol::meta::META;
use crate::protocol::methods::{self, codes};
use crate::protocol::sanitize::one_line_max;
use crate::protocol::secrets::{REDACTED, is_secret_name};

/// The differences a refusal names at most.
const MAX_NAMED: usize = 6;
/// How much of a value a refusal quotes.
const MAX_QUOTED: usize = 80;

/// A refusal: the JSON-RPC error for a request nothing matches.
#[derive(Debug, Clone, PartialEq)]
pub struct Unmatched {
    pub code: i64,
    pub message: String,
    pub data: Value,
}

/// Which recorded exchanges one host connection has used.
#[derive(Debug, Clone)]
pub struct Cursor {
    used: Vec<bool>,
    /// The recorded host session this connection is served first.
    scope: Option<u64>,
}

fn by_method_only(method: &str) -> bool {
    matches!(
        method,
        methods::INITIALIZE | methods::INITIALIZED | methods::SERVER_DISCOVER
    )
}

impl Cursor {
    pub fn new(rec: &Recording) -> Cursor {
        Cursor::for_host(rec, 0)
    }

    /// The cursor of the `k`-th host connection (from 0): it is served the
    /// `k`-th recorded host session first (round robin past the last).
    pub fn for_host(rec: &Recording, k: usize) -> Cursor {
        let n = rec.sessions.len();
        Cursor {
            used: vec![false; rec.exchanges.len()],
            scope: (n > 1).then(|| rec.sessions[k % n]),
        }
    }

    /// The exchange that answers `method` with `params` (a request when
    /// `request`), marked used.
    pub fn take(
        &mut self,
        rec: &Recording,
        request: bool,
        method: &str,
        params: Option<&Value>,
    ) -> Result<usize, Unmatched> {
        let matching = || {
            rec.exchanges.iter().enumerate().filter(|(_, ex)| {
                ex.is_request() == request
                    && ex.method == method
                    && (by_method_only(method) || same_params(ex.params.as_ref(), params))
            })
        };
        let own = |ex: &Exchange| self.scope.is_none_or(|s| ex.scope == s);
        // This host's session first, unused; then any unused; then the
        // last of its own that matched, else the last that matched.
        let pick = matching()
            .find(|(i, ex)| !self.used[*i] && own(ex))
            .or_else(|| matching().find(|(i, _)| !self.used[*i]))
            .or_else(|| matching().rfind(|(_, ex)| own(ex)))
            .or_else(|| matching().next_back())
            .map(|(i, _)| i);
        match pick {
            Some(i) => {
                self.used[i] = true;
                Ok(i)
            }
            None => Err(unmatched(rec, request, method, params)),
        }
    }
}

/// Params without their top-level `_meta`; absent params read as `{}`.
fn stripped(params: Option<&Value>) -> Value {
    match params {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::Object(m)) => {
            let mut m = m.clone();
            m.remove(META);
            Value::Object(m)
        }
        Some(other) => other.clone(),
    }
}

fn same_params(recorded: Option<&Value>, got: Option<&Value>) -> bool {
    same(&stripped(recorded), &stripped(got))
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// A value as quoted in a refusal: `[redacted]` under a secret-named key
/// (the refusal reaches the host and the mock's stderr; neither the
/// recorded secret nor the host's own is repeated there).
fn quote(v: &Value, secret: bool) -> String {
    if secret {
        return REDACTED.into();
    }
    let mut v = v.clone();
    crate::protocol::secrets::redact_json(&mut v);
    one_line_max(&v.to_string(), MAX_QUOTED)
}

/// Where `got` differs from `recorded`, as `path: recorded R, got G` lines.
fn differences(path: &str, recorded: &Value, got: &Value, out: &mut Vec<String>) {
    differ(path, recorded, got, false, out)
}

/// [`differences`], `secret` once under a secret-named key.
fn differ(path: &str, recorded: &Value, got: &Value, secret: bool, out: &mut Vec<String>) {
    let at = |p: &str| {
        if p.is_empty() {
            "params".to_string()
        } else {
            p.to_string()
        }
    };
    match (recorded, got) {
        (Value::Object(r), Value::Object(g)) => {
            for (k, rv) in r {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                let secret = secret || is_secret_name(k);
                match g.get(k) {
                    Some(gv) => differ(&p, rv, gv, secret, out),
                    None => out.push(format!(
                        "{}: missing (recorded {})",
                        one_line_max(&p, MAX_QUOTED),
                        quote(rv, secret)
                    )),
                }
            }
            for (k, gv) in g {
                if !r.contains_key(k) {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    out.push(format!(
                        "{}: not recorded (got {})",
                        one_line_max(&p, MAX_QUOTED),
                        quote(gv, secret || is_secret_name(k))
                    ));
                }
            }
        }
        (Value::Array(r), Value::Array(g)) if r.len() == g.len() => {
            for (i, (rv, gv)) in r.iter().zip(g).enumerate() {
                differ(&format!("{}[{i}]", at(path)), rv, gv, secret, out);
            }
        }
        _ if same(recorded, got) => {}
        _ => out.push(format!(
            "{}: recorded {}, got {}",
            one_line_max(&at(path), MAX_QUOTED),
            quote(recorded, secret),
            quote(got, secret)
        )),
    }
}

fn unmatched(rec: &Recording, request: bool, method: &str, params: Option<&Value>) -> Unmatched {
    let got = stripped(params);
    let nearest = rec
        .exchanges
        .iter()
        .filter(|ex| ex.is_request() == request && ex.method == method)
        .map(|ex| {
            let mut d = Vec::new();
            differences("", &stripped(ex.params.as_ref()), &got, &mut d);
            (d, ex)
        })
        .min_by_key(|(d, _)| d.len());
    let shown = one_line_max(method, MAX_QUOTED);
    match nearest {
        Some((mut diffs, ex)) => {
            let total = diffs.len();
            diffs.truncate(MAX_NAMED);
            let more = if total > MAX_NAMED {
                format!(" (and {} more)", total - MAX_NAMED)
            } else {
                String::new()
            };
            Unmatched {
                code: codes::INVALID_PARAMS,
                message: format!(
                    "mcpscope mock: no recorded {shown} has these params; nearest: {} — {}{more}",
                    place(ex),
                    diffs.join("; ")
                ),
                data: json!({
                    "nearest": {"seq": ex.seq, "line": ex.line, "method": ex.method, "params": redacted(ex.params.as_ref())},
                    "differences": diffs,
                }),
            }
        }
        None => {
            let mut recorded: Vec<&str> = rec
                .exchanges
                .iter()
                .filter(|ex| ex.is_request() == request)
                .map(|ex| ex.method.as_str())
                .collect();
            recorded.sort_unstable();
            recorded.dedup();
            Unmatched {
                code: codes::METHOD_NOT_FOUND,
                message: format!(
                    "mcpscope mock: no {shown} was recorded (recorded requests: {})",
                    recorded.join(", ")
                ),
                data: json!({"recorded": recorded}),
            }
        }
    }
}

/// Recorded params as a refusal may show them: secrets redacted.
fn redacted(params: Option<&Value>) -> Option<Value> {
    params.cloned().map(|mut p| {
        crate::protocol::secrets::redact_params(&mut p);
        p
    })
}

/// "the tools/call of line 10 (seq 8)".
fn place(ex: &Exchange) -> String {
    format!("the {} at line {} (seq {})", ex.method, ex.line, ex.seq)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(method: &str, id: Option<i64>, params: Value) -> Exchange {
        Exchange {
            seq: 7,
            line: 9,
            t_us: 0,
            method: method.into(),
            id: id.map(Value::from),
            params: Some(params),
            scope: 0,
            steps: Vec::new(),
        }
    }

    fn rec() -> Recording {
        Recording {
            exchanges: vec![
                ex(
                    "initialize",
                    Some(0),
                    json!({"clientInfo": {"name": "mcpscope"}}),
                ),
                ex(
                    "tools/call",
                    Some(1),
                    json!({"name": "a", "arguments": {"n": 3}, "_meta": {"progressToken": "x"}}),
                ),
                ex(
                    "tools/call",
                    Some(2),
                    json!({"name": "a", "arguments": {"n": 3}}),
                ),
                ex("notifications/initialized", None, json!({})),
            ],
            unattributed: 0,
            sessions: Vec::new(),
        }
    }

    #[test]
    fn recorded_order_then_the_last_again_ignoring_meta() {
        let rec = rec();
        let mut c = Cursor::new(&rec);
        let p = json!({"name": "a", "arguments": {"n": 3.0}, "_meta": {"progressToken": 99}});
        let got: Vec<usize> = (0..3)
            .map(|_| c.take(&rec, true, "tools/call", Some(&p)).unwrap())
            .collect();
        assert_eq!(got, [1, 2, 2]);
        let host = json!({"clientInfo": {"name": "typescript"}});
        assert_eq!(c.take(&rec, true, "initialize", Some(&host)), Ok(0));
        assert_eq!(
            c.take(&rec, false, "notifications/initialized", None),
            Ok(3)
        );
    }

    #[test]
    fn a_refusal_names_the_nearest_and_what_differed() {
        let rec = rec();
        let mut c = Cursor::new(&rec);
        let p = json!({"name": "a", "arguments": {"n": 5, "extra": true}});
        let e = c.take(&rec, true, "tools/call", Some(&p)).unwrap_err();
        assert_eq!(e.code, codes::INVALID_PARAMS);
        for part in [
            "nearest: the tools/call at line 9 (seq 7)",
            "arguments.n: recorded 3, got 5",
            "arguments.extra: not recorded (got true)",
        ] {
            assert!(e.message.contains(part), "{part}: {}", e.message);
        }
        assert_eq!(e.data["differences"].as_array().map(Vec::len), Some(2));
        let e = c.take(&rec, true, "resources/list", None).unwrap_err();
        assert_eq!(e.code, codes::METHOD_NOT_FOUND);
        let want = "recorded requests: initialize, tools/call";
        assert!(e.message.contains(want), "{}", e.message);
    }
}
