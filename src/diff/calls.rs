//! A call as the comparison sees it — the [`Call`] of the calls model, with
//! its arguments, the shape of its result, the shape of its progress and
//! the order of what arrived for it — and how two sessions' calls are
//! aligned and compared.
//!
//! Alignment, in three passes, each keeping the order of both sessions:
//! 1. calls with the same method, tool and arguments (compared as JSON,
//!    object keys in any order) pair up in order of occurrence: the first
//!    `echo {"text":"a"}` of A with the first of B, the second with the
//!    second;
//! 2. calls left over with the same method and tool pair up in order of
//!    occurrence (their arguments differ: reported);
//! 3. calls left over with the same method (`tools/call` of another tool)
//!    pair up in order of occurrence (the tool differs: reported);
//! 4. calls still left over are only in A or only in B.

use super::change::{Aspect, Change, Tolerances};
use super::order::{self, Order, Sym};
use super::{At, Side, canonical};
use crate::calls::{Call, Ending};
use crate::protocol::IdKey;
use crate::protocol::frame::FrameKind;
use crate::trace::EventRef;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap};

/// How a call ended, as the comparison words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Ok,
    IsError,
    RpcError,
    InputRequired,
    Cancelled,
    /// No response: timed out, the server exited, the connection failed, or
    /// the trace ends first.
    Incomplete,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::IsError => "is-error",
            Outcome::RpcError => "rpc-error",
            Outcome::InputRequired => "input-required",
            Outcome::Cancelled => "cancelled",
            Outcome::Incomplete => "incomplete",
        }
    }

    fn of(e: &Ending) -> Outcome {
        match e {
            Ending::Done => Outcome::Ok,
            Ending::ToolError => Outcome::IsError,
            Ending::RpcError { .. } => Outcome::RpcError,
            Ending::InputRequired { .. } => Outcome::InputRequired,
            Ending::Cancelled { .. } => Outcome::Cancelled,
            _ => Outcome::Incomplete,
        }
    }
}

/// The shape of a call's progress.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Progress {
    pub count: u64,
    pub with_total: u64,
    pub with_message: u64,
    /// Every value was above the one before.
    pub monotonic: bool,
    last: Option<f64>,
    pub first_seq: Option<u64>,
    /// The first notification that did not increase.
    pub regressed_seq: Option<u64>,
}

/// One call of a session, for comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct CallView {
    pub id: IdKey,
    pub token: Option<IdKey>,
    pub method: String,
    pub tool: Option<String>,
    /// `arguments` of a `tools/call` (`{}` when absent or null); the params
    /// without `_meta` of any other request.
    pub args: Value,
    pub request_seq: u64,
    pub sent_us: u64,
    pub outcome: Outcome,
    /// The event that ended it (its response, else what stopped it).
    pub end_seq: Option<u64>,
    pub duration_us: Option<u64>,
    /// The result's shape ([`shape`]); the error's code for an error.
    pub result_shape: Option<Value>,
    pub error_code: Option<i64>,
    pub progress: Progress,
    pub order: Order,
    /// Requests the server made while this was the latest call.
    pub server_requests: Vec<(String, u64)>,
}

impl CallView {
    /// A call just sent, by `ev`.
    pub fn sent(c: &Call, ev: &EventRef<'_>) -> CallView {
        let params = ev
            .frame()
            .params
            .and_then(|p| serde_json::from_str::<Value>(p.get()).ok());
        let args = match params {
            // Absent and null arguments are no arguments: `{}`.
            Some(Value::Object(mut m)) if c.method == crate::protocol::methods::TOOLS_CALL => {
                match m.remove("arguments") {
                    None | Some(Value::Null) => Value::Object(Default::default()),
                    Some(a) => a,
                }
            }
            Some(Value::Object(mut m)) => {
                m.remove("_meta");
                Value::Object(m)
            }
            _ => Value::Null,
        };
        CallView {
            id: c.id.clone(),
            token: c.token.clone(),
            method: c.method.clone(),
            tool: c.tool.clone(),
            args,
            request_seq: c.request_seq,
            sent_us: c.sent_us,
            outcome: Outcome::Incomplete,
            end_seq: None,
            duration_us: None,
            result_shape: None,
            error_code: None,
            progress: Progress {
                monotonic: true,
                ..Progress::default()
            },
            order: Order::default(),
            server_requests: Vec::new(),
        }
    }

    /// Its response arrived: `ev`.
    pub fn responded(&mut self, ev: &EventRef<'_>) {
        let f = ev.frame();
        if ev.kind == FrameKind::ErrorResponse {
            self.error_code = f
                .error
                .and_then(|e| serde_json::from_str::<Value>(e.get()).ok())
                .and_then(|e| e.get("code").and_then(Value::as_i64));
        } else if let Some(r) = f.result {
            self.result_shape = shape_of_text(r.get());
        }
        self.order.push(Sym::Response, ev.seq);
    }

    /// A progress notification for it.
    pub fn progressed(&mut self, progress: f64, total: bool, message: bool, seq: u64) {
        let g = &mut self.progress;
        g.count += 1;
        g.first_seq.get_or_insert(seq);
        if total {
            g.with_total += 1;
        }
        if message {
            g.with_message += 1;
        }
        if g.last.is_some_and(|l| progress <= l) {
            g.monotonic = false;
            g.regressed_seq.get_or_insert(seq);
        }
        g.last = Some(progress);
        self.order.push(Sym::Progress, seq);
    }

    /// The session is over: how the call ended, from the calls model (the
    /// response if there was one, else the first end it met).
    pub fn ended(&mut self, c: &Call) {
        let end = c.response().or(c.ended());
        self.outcome = end.map_or(Outcome::Incomplete, |e| Outcome::of(&e.how));
        self.end_seq = end.map(|e| e.seq);
        self.duration_us = c.response().map(|e| e.t_us.saturating_sub(self.sent_us));
    }

    /// `echo {"text":"hi"}` (arguments redacted; not sanitised).
    pub fn title(&self) -> String {
        let name = self.tool.as_deref().unwrap_or(&self.method);
        let mut args = self.args.clone();
        crate::protocol::secrets::redact_json(&mut args);
        match &args {
            Value::Null => name.to_string(),
            a => format!(
                "{name} {}",
                crate::protocol::sanitize::one_line_max(&a.to_string(), 120)
            ),
        }
    }

    fn key(&self) -> (&str, Option<&str>, String) {
        (&self.method, self.tool.as_deref(), canonical(&self.args))
    }

    fn loose_key(&self) -> (&str, Option<&str>) {
        (&self.method, self.tool.as_deref())
    }
}

/// The structure of a JSON value with its values left out: `"string"`,
/// `"number"`, `"boolean"`, `"null"`, objects with each key's shape, arrays
/// with the distinct shapes of their elements (sorted).
///
/// Read from text by `shape_of_text`; this form of it, over a parsed value,
/// is the reference the tests hold that reader to.
#[cfg(test)]
pub fn shape(v: &Value) -> Value {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "boolean".into(),
        Value::Number(_) => "number".into(),
        Value::String(_) => "string".into(),
        Value::Array(xs) => {
            let mut seen: BTreeMap<String, Value> = BTreeMap::new();
            for x in xs.iter() {
                let s = shape(x);
                seen.entry(canonical(&s)).or_insert(s);
                if seen.len() > 64 {
                    break;
                }
            }
            Value::Array(seen.into_values().collect())
        }
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
    }
}

/// `shape` of the JSON `text`, built as it is parsed: no string of the
/// value is copied, so a huge result costs its shape, not a second copy.
pub fn shape_of_text(text: &str) -> Option<Value> {
    serde_json::from_str::<Shaped>(text).ok().map(|s| s.0)
}

/// A value's shape, deserialized straight from its text (see `shape`).
struct Shaped(Value);

impl<'de> serde::Deserialize<'de> for Shaped {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Shaped, D::Error> {
        d.deserialize_any(ShapeVisitor).map(Shaped)
    }
}

struct ShapeVisitor;

impl<'de> serde::de::Visitor<'de> for ShapeVisitor {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok("null".into())
    }
    fn visit_bool<E>(self, _: bool) -> Result<Value, E> {
        Ok("boolean".into())
    }
    fn visit_i64<E>(self, _: i64) -> Result<Value, E> {
        Ok("number".into())
    }
    fn visit_u64<E>(self, _: u64) -> Result<Value, E> {
        Ok("number".into())
    }
    fn visit_f64<E>(self, _: f64) -> Result<Value, E> {
        Ok("number".into())
    }
    fn visit_str<E>(self, _: &str) -> Result<Value, E> {
        Ok("string".into())
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        // As `shape`: distinct element shapes, the first 65 of them.
        let mut seen: BTreeMap<String, Value> = BTreeMap::new();
        while seen.len() <= 64 {
            let Some(Shaped(s)) = seq.next_element::<Shaped>()? else {
                return Ok(Value::Array(seen.into_values().collect()));
            };
            seen.entry(canonical(&s)).or_insert(s);
        }
        while seq.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(Value::Array(seen.into_values().collect()))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut m = serde_json::Map::new();
        while let Some((k, Shaped(v))) = map.next_entry::<String, Shaped>()? {
            m.insert(k, v);
        }
        Ok(Value::Object(m))
    }
}

/// Where two shapes differ: `added .structuredContent.count (number)`, at most `max`.
fn shape_changes(a: &Value, b: &Value, path: &str, out: &mut Vec<String>, max: usize) {
    if out.len() >= max || a == b {
        return;
    }
    let name = |p: &str| {
        if p.is_empty() {
            "the result".to_string()
        } else {
            p.to_string()
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let p = format!("{path}.{k}");
                match y.get(k) {
                    None => out.push(format!("removed {p}")),
                    Some(w) => shape_changes(v, w, &p, out, max),
                }
            }
            for (k, w) in y {
                if !x.contains_key(k) && out.len() < max {
                    out.push(format!("added {path}.{k} ({})", kind_of(w)));
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == 1 && y.len() == 1 => {
            shape_changes(&x[0], &y[0], &format!("{path}[]"), out, max)
        }
        (Value::Array(_), Value::Array(_)) => out.push(format!(
            "{}: elements {} → {}",
            name(path),
            canonical(a),
            canonical(b)
        )),
        _ => out.push(format!("{}: {} → {}", name(path), kind_of(a), kind_of(b))),
    }
}

fn kind_of(shape: &Value) -> &'static str {
    match shape {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(s) => match s.as_str() {
            "string" => "string",
            "number" => "number",
            "boolean" => "boolean",
            _ => "null",
        },
        _ => "null",
    }
}

/// A pair of aligned calls (indexes into each side's calls), or a call of
/// one side only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    pub a: Option<usize>,
    pub b: Option<usize>,
}

/// Align the calls of two sides (see the module's documentation): pairs
/// in A's order, each call of B only after the pair before it in B's
/// order where it has one.
pub fn align(a: &[CallView], b: &[CallView]) -> Vec<Pair> {
    let mut b_of: Vec<Option<usize>> = vec![None; a.len()];
    let mut b_used = vec![false; b.len()];
    // Pass 1: same key, in order of occurrence.
    let mut queues: HashMap<(&str, Option<&str>, String), std::collections::VecDeque<usize>> =
        HashMap::new();
    for (j, c) in b.iter().enumerate() {
        queues.entry(c.key()).or_default().push_back(j);
    }
    for (i, c) in a.iter().enumerate() {
        if let Some(j) = queues.get_mut(&c.key()).and_then(|q| q.pop_front()) {
            b_of[i] = Some(j);
            b_used[j] = true;
        }
    }
    // Pass 2: same method and tool, among what is left.
    let mut loose: HashMap<(&str, Option<&str>), std::collections::VecDeque<usize>> =
        HashMap::new();
    for (j, c) in b.iter().enumerate() {
        if !b_used[j] {
            loose.entry(c.loose_key()).or_default().push_back(j);
        }
    }
    for (i, c) in a.iter().enumerate() {
        if b_of[i].is_none()
            && let Some(j) = loose.get_mut(&c.loose_key()).and_then(|q| q.pop_front())
        {
            b_of[i] = Some(j);
            b_used[j] = true;
        }
    }
    // Pass 3: same method, among what is left.
    let mut by_method: HashMap<&str, std::collections::VecDeque<usize>> = HashMap::new();
    for (j, c) in b.iter().enumerate() {
        if !b_used[j] {
            by_method.entry(&c.method).or_default().push_back(j);
        }
    }
    for (i, c) in a.iter().enumerate() {
        if b_of[i].is_none()
            && let Some(j) = by_method
                .get_mut(c.method.as_str())
                .and_then(|q| q.pop_front())
        {
            b_of[i] = Some(j);
            b_used[j] = true;
        }
    }
    // A's calls in order; each call only in B goes after the last pair
    // whose B call came before it.
    let mut pairs: Vec<Pair> = Vec::with_capacity(a.len().max(b.len()));
    let mut only_b = (0..b.len()).filter(|&j| !b_used[j]).peekable();
    for (i, j) in b_of.iter().enumerate() {
        if let Some(j) = j {
            while let Some(&k) = only_b.peek() {
                if k > *j {
                    break;
                }
                pairs.push(Pair {
                    a: None,
                    b: Some(k),
                });
                only_b.next();
            }
        }
        pairs.push(Pair { a: Some(i), b: *j });
    }
    pairs.extend(only_b.map(|k| Pair {
        a: None,
        b: Some(k),
    }));
    pairs
}

/// Reorders reported at most (the rest are counted).
pub const MAX_REORDERED: usize = 100;

/// Where B ran two aligned calls in the other order than A: each `(p, q)`
/// (pair numbers, 1-based) says B ran pair `p` right before pair `q`, which
/// A ran first. Only an order someone chose counts: the earlier call had
/// ended before the later was sent, in A or in B. Two calls in flight at
/// once may be sent in either order from one run to the next (a host's
/// parallel calls), and that is no difference. Also the number of such
/// reorders, of which the first [`MAX_REORDERED`] are listed.
pub fn reordered(a: &[CallView], b: &[CallView], pairs: &[Pair]) -> (Vec<(usize, usize)>, usize) {
    let mut paired: Vec<(usize, usize, usize)> = pairs
        .iter()
        .enumerate()
        .filter_map(|(n, p)| Some((n + 1, p.a?, p.b?)))
        .collect();
    crate::sort::by_key(&mut paired, |&(_, _, j)| j);
    let before =
        |first: &CallView, then: &CallView| first.end_seq.is_some_and(|e| e < then.request_seq);
    let mut out = Vec::new();
    let mut total = 0;
    for w in paired.windows(2) {
        let ((p, i, j), (q, k, l)) = (w[0], w[1]);
        // B ran p then q; A ran q (at k) first.
        if i > k && (before(&a[k], &a[i]) || before(&b[j], &b[l])) {
            total += 1;
            if out.len() < MAX_REORDERED {
                out.push((p, q));
            }
        }
    }
    (out, total)
}

/// Every change from call `x` of side `a` to call `y` of side `b`.
pub fn compare(a: &Side, x: &CallView, b: &Side, y: &CallView, tol: &Tolerances) -> Vec<Change> {
    let mut out = Vec::new();
    let at = |s: &Side, seq: Option<u64>| -> Vec<At> { seq.map(|q| s.at(q)).into_iter().collect() };
    if x.tool != y.tool {
        let name = |c: &CallView| c.tool.clone().map_or(Value::Null, Value::String);
        out.push(Change {
            aspect: Aspect::Tool,
            what: format!(
                "tool {} → {}",
                x.tool.as_deref().unwrap_or("(none)"),
                y.tool.as_deref().unwrap_or("(none)")
            ),
            a: name(x),
            b: name(y),
            at_a: at(a, Some(x.request_seq)),
            at_b: at(b, Some(y.request_seq)),
        });
    }
    if canonical(&x.args) != canonical(&y.args) {
        let mut xa = x.args.clone();
        let mut ya = y.args.clone();
        crate::protocol::secrets::redact_json(&mut xa);
        crate::protocol::secrets::redact_json(&mut ya);
        out.push(Change {
            aspect: Aspect::Arguments,
            what: "arguments differ".into(),
            a: xa,
            b: ya,
            at_a: at(a, Some(x.request_seq)),
            at_b: at(b, Some(y.request_seq)),
        });
    }
    if x.outcome != y.outcome {
        out.push(Change {
            aspect: Aspect::Outcome,
            what: format!("outcome {} → {}", x.outcome.as_str(), y.outcome.as_str()),
            a: x.outcome.as_str().into(),
            b: y.outcome.as_str().into(),
            at_a: at(a, x.end_seq),
            at_b: at(b, y.end_seq),
        });
    } else if x.error_code != y.error_code {
        out.push(Change {
            aspect: Aspect::Outcome,
            what: format!(
                "error code {} → {}",
                x.error_code.map_or("none".into(), |c| c.to_string()),
                y.error_code.map_or("none".into(), |c| c.to_string())
            ),
            a: x.error_code.into(),
            b: y.error_code.into(),
            at_a: at(a, x.end_seq),
            at_b: at(b, y.end_seq),
        });
    }
    if let (Some(sa), Some(sb)) = (&x.result_shape, &y.result_shape)
        && sa != sb
    {
        let mut what = Vec::new();
        shape_changes(sa, sb, "", &mut what, 8);
        out.push(Change {
            aspect: Aspect::Result,
            what: format!("result shape: {}", what.join("; ")),
            a: sa.clone(),
            b: sb.clone(),
            at_a: at(a, x.end_seq),
            at_b: at(b, y.end_seq),
        });
    }
    progress(a, x, b, y, &mut out);
    fn asks(c: &CallView) -> Vec<&str> {
        c.server_requests.iter().map(|(m, _)| m.as_str()).collect()
    }
    if asks(x) != asks(y) {
        let text = |v: Vec<&str>| {
            if v.is_empty() {
                "none".to_string()
            } else {
                crate::protocol::sanitize::one_line(&v.join(", ")).into_owned()
            }
        };
        out.push(Change {
            aspect: Aspect::ServerRequests,
            what: format!("server requests: {} → {}", text(asks(x)), text(asks(y))),
            a: json!(asks(x)),
            b: json!(asks(y)),
            at_a: x
                .server_requests
                .first()
                .map(|r| a.at(r.1))
                .into_iter()
                .collect(),
            at_b: y
                .server_requests
                .first()
                .map(|r| b.at(r.1))
                .into_iter()
                .collect(),
        });
    }
    order::compare(&x.order, &a.lines, &y.order, &b.lines, &mut out);
    if let (Some(da), Some(db)) = (x.duration_us, y.duration_us)
        && tol.beyond(da, db)
    {
        let ms = |us: u64| us as f64 / 1000.0;
        let ratio = da.max(db) as f64 / da.min(db).max(1) as f64;
        out.push(Change {
            aspect: Aspect::Timing,
            what: format!(
                "took {:.1} ms → {:.1} ms ({ratio:.1}× {})",
                ms(da),
                ms(db),
                if db >= da { "slower" } else { "faster" }
            ),
            a: json!(ms(da)),
            b: json!(ms(db)),
            at_a: at(a, x.end_seq),
            at_b: at(b, y.end_seq),
        });
    }
    out
}

fn progress(a: &Side, x: &CallView, b: &Side, y: &CallView, out: &mut Vec<Change>) {
    let (p, q) = (&x.progress, &y.progress);
    let at = |s: &Side, seq: Option<u64>| -> Vec<At> { seq.map(|q| s.at(q)).into_iter().collect() };
    let mut push = |what: String, av: Value, bv: Value, sa: Option<u64>, sb: Option<u64>| {
        out.push(Change {
            aspect: Aspect::Progress,
            what,
            a: av,
            b: bv,
            at_a: at(a, sa),
            at_b: at(b, sb),
        })
    };
    if p.count != q.count {
        push(
            format!("progress notifications {} → {}", p.count, q.count),
            p.count.into(),
            q.count.into(),
            p.first_seq,
            q.first_seq,
        );
    }
    // Shapes as "all", "some" or "none" of the notifications: a count
    // change alone does not change them.
    let share = |n: u64, of: u64| match (n, of) {
        (_, 0) => "none",
        (0, _) => "none",
        (n, of) if n == of => "all",
        _ => "some",
    };
    if p.count > 0 && q.count > 0 {
        let (ta, tb) = (share(p.with_total, p.count), share(q.with_total, q.count));
        if ta != tb {
            push(
                format!("progress with a total: {ta} → {tb}"),
                ta.into(),
                tb.into(),
                p.first_seq,
                q.first_seq,
            );
        }
        let (ma, mb) = (
            share(p.with_message, p.count),
            share(q.with_message, q.count),
        );
        if ma != mb {
            push(
                format!("progress with a message: {ma} → {mb}"),
                ma.into(),
                mb.into(),
                p.first_seq,
                q.first_seq,
            );
        }
    }
    if p.monotonic != q.monotonic {
        push(
            format!(
                "progress {} → {}",
                if p.monotonic {
                    "increasing"
                } else {
                    "not increasing"
                },
                if q.monotonic {
                    "increasing"
                } else {
                    "not increasing"
                }
            ),
            p.monotonic.into(),
            q.monotonic.into(),
            p.regressed_seq.or(p.first_seq),
            q.regressed_seq.or(q.first_seq),
        );
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_shape_read_from_text_is_the_shape_of_the_parsed_value() {
        let many: Vec<Value> = (0..100).map(|i| json!({ format!("k{i}"): i })).collect();
        for v in [
            json!(null),
            json!("text with \"escapes\" \u{e9}"),
            json!({"content": [{"type": "text", "text": "x"}, {"type": "image", "data": "…", "n": 1.5}], "isError": false}),
            json!([1, "a", null, true, [2, [3]], {"a": {"b": []}}]),
            json!({"structuredContent": {"rows": many, "count": 100}}),
        ] {
            assert_eq!(shape_of_text(&v.to_string()), Some(shape(&v)), "{v}");
        }
        assert_eq!(shape_of_text("{not json"), None);
    }
    use super::*;

    fn view(tool: &str, args: Value) -> CallView {
        CallView {
            id: IdKey::Int(0),
            token: None,
            method: "tools/call".into(),
            tool: Some(tool.into()),
            args,
            request_seq: 0,
            sent_us: 0,
            outcome: Outcome::Ok,
            end_seq: None,
            duration_us: None,
            result_shape: None,
            error_code: None,
            progress: Progress::default(),
            order: Order::default(),
            server_requests: Vec::new(),
        }
    }

    #[test]
    fn calls_align_by_tool_and_arguments_then_by_tool() {
        let a = [
            view("echo", json!({"text": "a"})),
            view("sleep", json!({"ms": 1})),
            view("echo", json!({"text": "b"})),
        ];
        let mut other = view("flood", json!({}));
        other.method = "prompts/get".into();
        let b = [
            view("echo", json!({"text": "b"})),
            other,
            view("echo", json!({"text": "a"})),
            view("sleep", json!({"ms": 2})),
        ];
        let pairs = align(&a, &b);
        let got: Vec<(Option<usize>, Option<usize>)> = pairs.iter().map(|p| (p.a, p.b)).collect();
        assert_eq!(
            got,
            [
                (None, Some(1)),
                (Some(0), Some(2)),
                (Some(1), Some(3)),
                (Some(2), Some(0)),
            ]
        );
    }

    #[test]
    fn shapes_leave_values_out() {
        let a = shape(&json!({"content": [{"type": "text", "text": "x"}], "isError": false}));
        let b = shape(&json!({"content": [{"type": "text", "text": "yyy"}], "isError": true}));
        assert_eq!(a, b);
        let c = shape(&json!({"content": [{"type": "text", "text": 1}], "extra": 1}));
        let mut what = Vec::new();
        shape_changes(&a, &c, "", &mut what, 8);
        assert_eq!(
            what,
            [
                ".content[].text: string → number",
                "removed .isError",
                "added .extra (number)"
            ]
        );
    }
}
