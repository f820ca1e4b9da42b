//! A filter tested on one event. What a message says is read lazily: the
//! event's own fields (direction, kind, method, seq, time, size) cost
//! nothing, its JSON is parsed once and only when a test needs it, and the
//! call a message belongs to comes from the index of requests seen before.

use super::calls::{CallIndex, CallRef};
use super::lex::Op;
use super::parse::{Field, Keyword, Lit, Node, Seg, Test};
use crate::protocol::frame::FrameKind;
use crate::protocol::views::LogLevel;
use crate::trace::{Dir, EventRef};
use serde_json::Value;

/// One event under test: its call, found once; its JSON read by path.
pub struct Subject<'e, 'i> {
    ev: &'e EventRef<'e>,
    calls: &'i CallIndex,
    call: Option<Option<CallRef>>,
}

impl<'e, 'i> Subject<'e, 'i> {
    pub fn new(ev: &'e EventRef<'e>, calls: &'i CallIndex) -> Self {
        Subject {
            ev,
            calls,
            call: None,
        }
    }

    /// The value at `path` of a message (never of stderr or meta lines).
    fn at(&self, path: &[Seg]) -> Option<Value> {
        if !is_message(self.ev) {
            return None;
        }
        let text = std::str::from_utf8(self.ev.bytes).ok()?;
        super::find::value_at(text, path)
    }

    fn call(&mut self) -> Option<CallRef> {
        if self.call.is_none() {
            let ev = self.ev;
            let found = self.calls.of(ev);
            self.call = Some(found);
        }
        self.call.clone().flatten()
    }
}

fn key(k: &str) -> Seg {
    Seg::Key(k.to_string())
}

pub fn eval(node: &Node, s: &mut Subject<'_, '_>) -> bool {
    match node {
        Node::And(a, b) => eval(a, s) && eval(b, s),
        Node::Or(a, b) => eval(a, s) || eval(b, s),
        Node::Not(a) => !eval(a, s),
        Node::Test(t) => test(t, s),
    }
}

fn kind_name(k: FrameKind) -> &'static str {
    match k {
        FrameKind::Request => "request",
        FrameKind::Notification => "notification",
        FrameKind::Response => "response",
        FrameKind::ErrorResponse => "error",
        FrameKind::Batch => "batch",
        FrameKind::NotJsonRpc | FrameKind::NotJson | FrameKind::InvalidUtf8 | FrameKind::Empty => {
            "invalid"
        }
    }
}

fn is_message(ev: &EventRef<'_>) -> bool {
    matches!(ev.dir, Dir::In | Dir::Out)
}

fn test(t: &Test, s: &mut Subject<'_, '_>) -> bool {
    let ev = s.ev;
    let Some((op, lit)) = &t.cmp else {
        return present(&t.field, s);
    };
    match &t.field {
        Field::Dir => name_cmp(*op, ev.dir.as_str(), lit),
        Field::Kind => is_message(ev) && name_cmp(*op, kind_name(ev.kind), lit),
        Field::Method => match ev.method {
            Some(m) if is_message(ev) => text_cmp(*op, m, lit),
            _ => false,
        },
        Field::Id => match ev.frame().id {
            Some(id) => value_cmp(*op, &id.to_value(), lit),
            None => false,
        },
        Field::Tool => match s.call().and_then(|c| c.tool) {
            Some(tool) => text_cmp(*op, &tool, lit),
            None => false,
        },
        Field::Token => match token_of(s) {
            Some(tok) => text_cmp(*op, &tok, lit),
            None => false,
        },
        Field::Level => match level_of(s) {
            Some(l) => match lit {
                Lit::Level(want) => ord_cmp(*op, l.cmp(want)),
                _ => false,
            },
            None => false,
        },
        Field::Call => match (s.call(), lit) {
            (Some(c), Lit::Num(n)) => num_cmp(*op, c.seq as f64, *n),
            _ => false,
        },
        Field::Text => text_cmp(*op, &String::from_utf8_lossy(ev.bytes), lit),
        Field::Size => match lit {
            Lit::Num(n) => num_cmp(*op, ev.bytes.len() as f64, *n),
            _ => false,
        },
        Field::Time => match lit {
            Lit::Micros(us) => ord_cmp(*op, ev.t_us.cmp(us)),
            _ => false,
        },
        Field::Seq => match lit {
            Lit::Num(n) => num_cmp(*op, ev.seq as f64, *n),
            _ => false,
        },
        Field::Json(path) => match s.at(path) {
            Some(v) => value_cmp(*op, &v, lit),
            None => false,
        },
        Field::Keyword(_) => false,
    }
}

/// A field on its own: it is there (a keyword: the message is one).
fn present(field: &Field, s: &mut Subject<'_, '_>) -> bool {
    let ev = s.ev;
    match field {
        Field::Keyword(k) => match k {
            Keyword::In => ev.dir == Dir::In,
            Keyword::Out => ev.dir == Dir::Out,
            Keyword::Stderr => ev.dir == Dir::Stderr,
            Keyword::Meta => ev.dir == Dir::Meta,
            Keyword::Request => is_message(ev) && ev.kind == FrameKind::Request,
            Keyword::Notification => is_message(ev) && ev.kind == FrameKind::Notification,
            Keyword::Response => {
                is_message(ev) && matches!(ev.kind, FrameKind::Response | FrameKind::ErrorResponse)
            }
            Keyword::Invalid => is_message(ev) && kind_name(ev.kind) == "invalid",
            Keyword::Progress => {
                is_message(ev) && ev.method == Some(crate::protocol::methods::PROGRESS)
            }
            Keyword::Log => is_message(ev) && ev.method == Some(crate::protocol::methods::MESSAGE),
        },
        Field::Id => ev.frame().id.is_some(),
        Field::Tool => s.call().and_then(|c| c.tool).is_some(),
        Field::Token => token_of(s).is_some(),
        Field::Call => s.call().is_some(),
        Field::Json(path) => s.at(path).is_some_and(|v| !v.is_null()),
        _ => false,
    }
}

/// A progress notification's token, or a request's `_meta.progressToken`,
/// or the token of the call a response answers.
fn token_of(s: &mut Subject<'_, '_>) -> Option<String> {
    let ev = s.ev;
    if !is_message(ev) {
        return None;
    }
    let direct = match ev.kind {
        FrameKind::Notification if ev.method == Some(crate::protocol::methods::PROGRESS) => {
            s.at(&[key("params"), key("progressToken")])
        }
        FrameKind::Request => s.at(&[key("params"), key("_meta"), key("progressToken")]),
        _ => None,
    };
    match direct {
        Some(v) => Some(super::find::token_text(&v)),
        None => s.call().and_then(|c| c.token),
    }
}

fn level_of(s: &mut Subject<'_, '_>) -> Option<LogLevel> {
    if s.ev.method != Some(crate::protocol::methods::MESSAGE) || !is_message(s.ev) {
        return None;
    }
    s.at(&[key("params"), key("level")])?
        .as_str()
        .and_then(|l| l.parse().ok())
}

fn ord_cmp(op: Op, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::*;
    match op {
        Op::Eq => o == Equal,
        Op::Ne => o != Equal,
        Op::Gt => o == Greater,
        Op::Ge => o != Less,
        Op::Lt => o == Less,
        Op::Le => o != Greater,
        Op::Has | Op::NotHas => false,
    }
}

fn num_cmp(op: Op, a: f64, b: f64) -> bool {
    a.partial_cmp(&b).is_some_and(|o| ord_cmp(op, o))
}

fn name_cmp(op: Op, have: &str, lit: &Lit) -> bool {
    match (op, lit) {
        (Op::Eq, Lit::Name(n)) => have == *n,
        (Op::Ne, Lit::Name(n)) => have != *n,
        _ => false,
    }
}

/// Text against a string: `==` exact (with `*` as a wildcard), `~`
/// contains, ignoring case.
fn text_cmp(op: Op, have: &str, lit: &Lit) -> bool {
    let want = match lit {
        Lit::Str(s) => s.as_str(),
        _ => return false,
    };
    match op {
        Op::Eq => glob(want, have),
        Op::Ne => !glob(want, have),
        Op::Has => contains_ci(have, want),
        Op::NotHas => !contains_ci(have, want),
        Op::Gt => have > want,
        Op::Ge => have >= want,
        Op::Lt => have < want,
        Op::Le => have <= want,
    }
}

fn contains_ci(have: &str, want: &str) -> bool {
    if want.is_ascii() && have.is_ascii() {
        let (h, w) = (have.as_bytes(), want.as_bytes());
        return w.is_empty() || h.windows(w.len()).any(|x| x.eq_ignore_ascii_case(w));
    }
    have.to_lowercase().contains(&want.to_lowercase())
}

/// `*` matches any run of characters; without one, equality.
fn glob(pat: &str, s: &str) -> bool {
    if !pat.contains('*') {
        return pat == s;
    }
    let parts: Vec<&str> = pat.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !s.starts_with(first) || s.len() < first.len() + last.len() || !s.ends_with(last) {
        return false;
    }
    let mut rest = &s[first.len()..s.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(i) => rest = &rest[i + mid.len()..],
            None => return false,
        }
    }
    true
}

/// A JSON value against a literal: numbers by value, strings as text,
/// `true`, `false` and `null` by equality. Another type never matches.
fn value_cmp(op: Op, v: &Value, lit: &Lit) -> bool {
    match (v, lit) {
        (Value::Number(n), Lit::Num(want)) => n.as_f64().is_some_and(|h| num_cmp(op, h, *want)),
        (Value::String(s), Lit::Str(_)) => text_cmp(op, s, lit),
        // `id == "7"` finds a string id; `id == 7` a number: as the
        // protocol tells them apart. Contains looks at the JSON text.
        (other, Lit::Str(want)) if matches!(op, Op::Has | Op::NotHas) => {
            let text = other.to_string();
            (op == Op::Has) == contains_ci(&text, want)
        }
        (Value::Bool(b), Lit::Bool(want)) => match op {
            Op::Eq => b == want,
            Op::Ne => b != want,
            _ => false,
        },
        (Value::Null, Lit::Null) => op == Op::Eq,
        (v, Lit::Null) => op == Op::Ne && !v.is_null(),
        _ => false,
    }
}
