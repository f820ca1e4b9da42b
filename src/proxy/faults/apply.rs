//! The engine: each line of either stream, in order, tested against every
//! rule; the rules that match (within their limits) act in order until one
//! changes what is sent in its place. One engine serves both streams (behind a lock), so a
//! rule sees a whole session: a progress notification finds the request
//! that carried its token, a response the request it answers.

use super::{Action, Corruption, DropWhen, Faults, Rule, SplitMix};
use crate::event::Event;
use crate::filter::Matcher;
use crate::protocol::frame::{Frame, FrameKind, classify};
use crate::protocol::methods;
use crate::trace::{Dir, EventRef};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::time::Duration;

/// Requests in flight remembered at most (a host that never gets its
/// answers costs a bounded amount).
const MAX_REQUESTS: usize = 65_536;
/// Bytes `late` holds at most per stream (a flood waiting for its
/// response): past it, messages pass unchanged rather than pile up.
const MAX_LATE_BYTES: usize = 64 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stream {
    HostToServer = 0,
    ServerToHost = 1,
}

impl Stream {
    /// The direction of what goes this way, as the trace and the filters
    /// say it.
    pub fn dir(self) -> Dir {
        match self {
            Stream::HostToServer => Dir::Out,
            Stream::ServerToHost => Dir::In,
        }
    }
    pub fn other(self) -> Stream {
        match self {
            Stream::HostToServer => Stream::ServerToHost,
            Stream::ServerToHost => Stream::HostToServer,
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Stream::HostToServer => "host→server",
            Stream::ServerToHost => "server→host",
        }
    }
    fn receiver(self) -> &'static str {
        match self {
            Stream::HostToServer => "server",
            Stream::ServerToHost => "host",
        }
    }
}

/// What to write in place of a line (bytes with their line break).
#[derive(Debug, Clone, PartialEq)]
pub enum Out {
    Send(Vec<u8>),
    /// Sent this much after it was read, after what was sent before it.
    Delayed(Vec<u8>, Duration),
    /// Close the stream towards its receiver.
    Close,
}

struct Live {
    rule: Rule,
    matcher: Matcher,
    /// What a line must have for the rule to match (`Filter::needs`).
    dir: Option<Dir>,
    texts: Vec<memchr::memmem::Finder<'static>>,
    /// Matches so far (for `drop every`).
    seen: u64,
    fired: u64,
    /// A line held by `hold`, per stream.
    held: [Option<Vec<u8>>; 2],
}

/// A line held by `late` until a response: the id of the request it
/// waits for (none: the next response on its stream).
struct Late {
    awaits: Option<String>,
    bytes: Vec<u8>,
}

pub struct Engine {
    rules: Vec<Live>,
    rng: SplitMix,
    seq: u64,
    max_frame: usize,
    /// Requests in flight: (stream it went on, id) → method and token.
    requests: HashMap<(Stream, String), (String, Option<String>)>,
    order: VecDeque<(Stream, String)>,
    /// Progress tokens of requests in flight → (stream, id) of the request.
    tokens: HashMap<String, (Stream, String)>,
    late: [Vec<Late>; 2],
    late_bytes: [usize; 2],
    closed: [bool; 2],
    /// Requests forged by a rule's `forge` (its index) or at a breakpoint
    /// (`None`), by the stream their answer comes on and their id (JSON
    /// text): the answers are kept from the peer that did not ask.
    forged: HashMap<(Stream, String), Option<usize>>,
    forged_order: VecDeque<(Stream, String)>,
    next_forged: u64,
    /// `proxy --intercept`: the breakpoint and what it holds.
    pub intercept: Option<crate::proxy::breakpoints::hold::Breakpoints>,
}

/// `raw` without its line break (and a CR before it).
fn body(raw: &[u8]) -> &[u8] {
    let b = raw.strip_suffix(b"\n").unwrap_or(raw);
    b.strip_suffix(b"\r").unwrap_or(b)
}

/// A token's or id's JSON text, the same however it was written.
fn canonical(raw: &str) -> String {
    serde_json::from_str::<Value>(raw).map_or_else(|_| raw.trim().to_string(), |v| v.to_string())
}

fn progress_token(f: &Frame<'_>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct P {
        #[serde(rename = "progressToken")]
        token: Option<Value>,
    }
    let p: P = serde_json::from_str(f.params?.get()).ok()?;
    p.token.map(|t| t.to_string())
}

impl Engine {
    pub fn new(faults: Faults, max_frame: usize) -> Engine {
        let rules = faults
            .rules
            .into_iter()
            .map(|rule| {
                let needs = rule.filter.needs();
                Live {
                    matcher: Matcher::new(rule.filter.clone()),
                    dir: needs.dir,
                    texts: needs
                        .texts
                        .iter()
                        .map(|t| memchr::memmem::Finder::new(t.as_bytes()).into_owned())
                        .collect(),
                    rule,
                    seen: 0,
                    fired: 0,
                    held: [None, None],
                }
            })
            .collect();
        Engine {
            rules,
            rng: SplitMix::new(faults.seed),
            seq: 0,
            max_frame,
            requests: HashMap::new(),
            order: VecDeque::new(),
            tokens: HashMap::new(),
            late: [Vec::new(), Vec::new()],
            late_bytes: [0; 2],
            closed: [false; 2],
            forged: HashMap::new(),
            forged_order: VecDeque::new(),
            next_forged: 0,
            intercept: None,
        }
    }

    /// Some rule delays, or a breakpoint may hold: the streams need a
    /// writer of their own (one that waits; one written to later).
    pub fn delays(&self) -> bool {
        self.intercept.is_some()
            || self
                .rules
                .iter()
                .any(|r| matches!(r.rule.action, Action::Delay { .. }))
    }

    /// One line read from `stream` (its line break included) at `t_us`.
    /// `true`: send it as it is and nothing else; otherwise what to send is
    /// in `out` (nothing: it is dropped or held), and each change is in
    /// `events`.
    pub fn line(
        &mut self,
        stream: Stream,
        raw: &[u8],
        t_us: u64,
        out: &mut Vec<Out>,
        events: &mut Vec<Event>,
    ) -> bool {
        if self.closed[stream as usize] {
            return false;
        }
        let body = body(raw);
        // A breakpoint's matcher sees every message while it is set.
        let breaking = self.intercept.as_ref().is_some_and(|b| b.is_set());
        if !breaking && self.no_rule_can_match(stream, body) {
            self.seq += 1;
            return true;
        }
        let f = classify(body);
        let id = f.id.as_ref().map(|i| i.to_value().to_string());
        if let Some(rule) = self.answers_forged(stream, &f, id.as_deref()) {
            // Its peer never sent the request: the answer goes no further.
            self.seq += 1;
            let detail = format!(
                "the {}'s answer to a forged request, kept from the {}",
                stream.other().receiver(),
                stream.receiver()
            );
            events.push(match rule {
                Some(i) => self.injected(i, stream, body, None, Some(detail)),
                None => crate::proxy::breakpoints::injected(
                    "forge",
                    stream,
                    body,
                    None,
                    detail,
                    self.max_frame,
                ),
            });
            return false;
        }
        let answered = self.follow(stream, &f, id.as_deref());
        let method = match f.kind {
            FrameKind::Request | FrameKind::Notification => f.method.as_deref(),
            FrameKind::Response | FrameKind::ErrorResponse => {
                answered.as_ref().map(|(m, _)| m.as_str())
            }
            _ => None,
        };
        let ev = EventRef {
            seq: self.seq,
            t_us,
            dir: stream.dir(),
            kind: f.kind,
            channel: crate::proxy::observer::CHANNEL,
            method,
            flags: 0,
            bytes: body,
            progress: None,
        };
        self.seq += 1;
        // Every rule's matcher sees every message (its calls follow the
        // session); the rules that match and may still fire act in order
        // until one changes the message. A held line is released whatever
        // the limit.
        let mut hits = Vec::new();
        for (i, r) in self.rules.iter_mut().enumerate() {
            let matched = r.matcher.test(&ev);
            let may = r.rule.limit.is_none_or(|l| r.fired < l) || r.held[stream as usize].is_some();
            if matched && may {
                hits.push(i);
            }
        }
        if let Some(b) = self.intercept.as_mut()
            && b.selects(&ev)
        {
            b.hold(stream, raw);
            return false;
        }
        let is_progress = f.kind == FrameKind::Notification && method == Some(methods::PROGRESS);
        let kind = f.kind;
        let released = match (kind, &id) {
            (FrameKind::Response | FrameKind::ErrorResponse, Some(id)) => {
                self.release_late(stream, id)
            }
            _ => Vec::new(),
        };
        // A rule that lets the message pass unchanged (a drop not drawn, a
        // `late` for a call already answered) leaves it to the next one.
        let passed = hits
            .into_iter()
            .all(|i| self.act(i, stream, raw, (kind, &f, is_progress), out, events));
        if passed {
            if released.is_empty() {
                return true;
            }
            out.push(Out::Send(raw.to_vec()));
        }
        out.extend(released.into_iter().map(Out::Send));
        false
    }

    /// Whether every line of `lines` (whole lines, each with its line
    /// break) passes unchanged, told at once for the whole read: what is
    /// absent from all of it is absent from each line, so when
    /// `no_rule_can_match` holds for the whole it holds for every line. Then
    /// they count as that many messages seen and go as they are; otherwise
    /// nothing is counted and each line must be tested on its own.
    pub fn lines_pass(&mut self, stream: Stream, lines: &[u8]) -> bool {
        let breaking = self.intercept.as_ref().is_some_and(|b| b.is_set());
        if self.closed[stream as usize] || breaking || !self.no_rule_can_match(stream, lines) {
            return false;
        }
        self.seq += memchr::memchr_iter(b'\n', lines).count() as u64;
        true
    }

    /// Whether `body` passes unchanged, told without parsing it: the cost
    /// of faults that match nothing, paid by every line. Only a line that
    /// is no request or response (no `"id"` in it: the requests in flight
    /// and `late` follow those) and has no escapes (its strings are as
    /// written) can be told; then a rule whose direction is the other
    /// stream's, or whose text is not in it, cannot match it.
    fn no_rule_can_match(&self, stream: Stream, body: &[u8]) -> bool {
        if memchr::memchr(b'\\', body).is_some() || memchr::memmem::find(body, b"\"id\"").is_some()
        {
            return false;
        }
        self.rules.iter().all(|r| {
            r.dir.is_some_and(|d| d != stream.dir())
                || r.texts.iter().any(|t| t.find(body).is_none())
        })
    }

    /// Keep the requests in flight (methods for responses, tokens for
    /// `late`); for a response, the method and token of what it answers.
    fn follow(
        &mut self,
        stream: Stream,
        f: &Frame<'_>,
        id: Option<&str>,
    ) -> Option<(String, Option<String>)> {
        let id = id?;
        match f.kind {
            FrameKind::Request => {
                let token = f.progress_token().map(|t| canonical(t.get()));
                if self.order.len() >= MAX_REQUESTS
                    && let Some(old) = self.order.pop_front()
                    && let Some((_, Some(t))) = self.requests.remove(&old)
                {
                    self.tokens.remove(&t);
                }
                let key = (stream, id.to_string());
                if let Some(t) = &token {
                    self.tokens.insert(t.clone(), key.clone());
                }
                let method = f.method.as_deref().unwrap_or_default().to_string();
                self.requests.insert(key.clone(), (method, token));
                self.order.push_back(key);
                None
            }
            FrameKind::Response | FrameKind::ErrorResponse => {
                let answered = self.requests.remove(&(stream.other(), id.to_string()));
                if let Some((_, Some(t))) = &answered {
                    self.tokens.remove(t);
                }
                answered
            }
            _ => None,
        }
    }

    /// The lines `late` held for the response `id` on `stream`.
    fn release_late(&mut self, stream: Stream, id: &str) -> Vec<Vec<u8>> {
        let held = &mut self.late[stream as usize];
        if held.is_empty() {
            return Vec::new();
        }
        let (go, stay): (Vec<Late>, Vec<Late>) = std::mem::take(held)
            .into_iter()
            .partition(|l| l.awaits.as_deref().is_none_or(|a| a == id));
        *held = stay;
        let freed: usize = go.iter().map(|l| l.bytes.len()).sum();
        self.late_bytes[stream as usize] -= freed;
        go.into_iter().map(|l| l.bytes).collect()
    }

    /// Rule `i` acts on `raw`; `true` when it passes unchanged after all.
    fn act(
        &mut self,
        i: usize,
        stream: Stream,
        raw: &[u8],
        (kind, f, is_progress): (FrameKind, &Frame<'_>, bool),
        out: &mut Vec<Out>,
        events: &mut Vec<Event>,
    ) -> bool {
        let body = body(raw);
        let action = self.rules[i].rule.action.clone();
        let mut fired = |this: &mut Engine, sent: Option<&[u8]>, detail: Option<String>| {
            this.rules[i].fired += 1;
            events.push(this.injected(i, stream, body, sent, detail));
        };
        match action {
            Action::Delay { ms, jitter_ms } => {
                let extra = if jitter_ms > 0 {
                    self.rng.next_u64() % (jitter_ms + 1)
                } else {
                    0
                };
                let d = ms + extra;
                out.push(Out::Delayed(raw.to_vec(), Duration::from_millis(d)));
                fired(self, None, Some(format!("{d} ms")));
            }
            Action::Drop(when) => {
                let r = &mut self.rules[i];
                r.seen += 1;
                let drop = match when {
                    DropWhen::Always => true,
                    DropWhen::Every(n) => r.seen.is_multiple_of(n),
                    DropWhen::Probability(p) => self.rng.next_f64() < p,
                };
                if !drop {
                    return true;
                }
                fired(self, None, None);
            }
            Action::Duplicate => {
                out.push(Out::Send(raw.to_vec()));
                out.push(Out::Send(raw.to_vec()));
                fired(self, None, Some("sent twice".into()));
            }
            Action::Hold => match self.rules[i].held[stream as usize].take() {
                Some(held) => {
                    out.push(Out::Send(raw.to_vec()));
                    out.push(Out::Send(held));
                }
                None => {
                    self.rules[i].held[stream as usize] = Some(raw.to_vec());
                    let n = self.rules[i].rule.index;
                    fired(
                        self,
                        None,
                        Some(format!("held until the next message rule {n} matches")),
                    );
                }
            },
            Action::Late => {
                if kind != FrameKind::Notification
                    || self.late_bytes[stream as usize] + raw.len() > MAX_LATE_BYTES
                {
                    return true;
                }
                // Read only here: a progress notification's token costs a
                // parse of its params, which the other actions never need.
                let token = if is_progress { progress_token(f) } else { None };
                let awaits = match &token {
                    // Its request must be in flight the other way; else
                    // it is late already (or belongs to no call).
                    Some(t) => match self.tokens.get(t) {
                        Some((s, id)) if *s == stream.other() => Some(id.clone()),
                        _ => return true,
                    },
                    None => None,
                };
                let detail = match &awaits {
                    Some(id) => format!("held until the response to request {id}"),
                    None => "held until the next response".into(),
                };
                self.late_bytes[stream as usize] += raw.len();
                self.late[stream as usize].push(Late {
                    awaits,
                    bytes: raw.to_vec(),
                });
                fired(self, None, Some(detail));
            }
            Action::Corrupt(how) => {
                let Some(mut bad) = corrupt(body, how, f) else {
                    return true;
                };
                let sent = bad.clone();
                bad.extend_from_slice(&raw[body.len()..]);
                out.push(Out::Send(bad));
                let how = match how {
                    Corruption::Cut => "cut",
                    Corruption::InvalidJson => "invalid-json",
                    Corruption::WrongId => "wrong-id",
                };
                fired(self, Some(&sent), Some(how.into()));
            }
            Action::Close => {
                self.closed[stream as usize] = true;
                out.push(Out::Close);
                let to = stream.receiver();
                fired(
                    self,
                    None,
                    Some(format!("closed the stream towards the {to}")),
                );
            }
            // Refused for stdio (`faults::for_stdio`): passes if it came.
            Action::Status(_) => return true,
            Action::Forge {
                method,
                params,
                count,
            } => {
                // The message goes on unchanged, the forged requests right behind it.
                out.push(Out::Send(raw.to_vec()));
                let n = self.rules[i].rule.index;
                for k in 1..=count {
                    self.next_forged += 1;
                    let id = Value::String(format!("mcpscope-forged-{}", self.next_forged));
                    let mut msg = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method});
                    if let Some(p) = &params {
                        msg["params"] = p.clone();
                    }
                    let mut line = msg.to_string().into_bytes();
                    self.remember_forged(stream.other(), id.to_string(), Some(i));
                    let detail = format!("forged by rule {n} ({k} of {count})");
                    events.push(self.injected(i, stream, &line, Some(&line), Some(detail)));
                    line.push(b'\n');
                    out.push(Out::Send(line));
                }
                self.rules[i].fired += 1;
            }
        }
        false
    }

    /// A forged request whose answer will come on `answer_on`, by `rule`
    /// (`None`: at a breakpoint).
    pub fn remember_forged(&mut self, answer_on: Stream, id: String, rule: Option<usize>) {
        if self.forged_order.len() >= MAX_REQUESTS
            && let Some(old) = self.forged_order.pop_front()
        {
            self.forged.remove(&old);
        }
        let key = (answer_on, id);
        self.forged.insert(key.clone(), rule);
        self.forged_order.push_back(key);
    }

    /// Who forged the request this answer on `stream` answers.
    fn answers_forged(
        &mut self,
        stream: Stream,
        f: &Frame<'_>,
        id: Option<&str>,
    ) -> Option<Option<usize>> {
        if self.forged.is_empty()
            || !matches!(f.kind, FrameKind::Response | FrameKind::ErrorResponse)
        {
            return None;
        }
        // Its place in the order is left to age out with the others.
        self.forged.remove(&(stream, id?.to_string()))
    }

    /// The stream ended: what is still held is sent (it was read, and a
    /// hold is a reordering, not a loss).
    pub fn end(&mut self, stream: Stream, out: &mut Vec<Out>, events: &mut Vec<Event>) {
        if let Some(b) = self.intercept.as_mut() {
            // Held at a breakpoint: what was read goes on, as a hold's does.
            for (id, h) in b.take_stream(stream) {
                let then = "forwarded when its stream ended";
                events.push(h.released("hold", then, None, self.max_frame));
                b.tell(crate::intercept::protocol::Report::Released {
                    id,
                    how: "forwarded".into(),
                });
                if !self.closed[stream as usize] {
                    out.push(Out::Send(h.raw));
                }
            }
            b.close_writer(stream);
        }
        if self.closed[stream as usize] {
            return;
        }
        for r in &mut self.rules {
            if let Some(h) = r.held[stream as usize].take() {
                out.push(Out::Send(h));
            }
        }
        self.late_bytes[stream as usize] = 0;
        for l in std::mem::take(&mut self.late[stream as usize]) {
            out.push(Out::Send(l.bytes));
        }
    }

    fn injected(
        &self,
        i: usize,
        stream: Stream,
        body: &[u8],
        sent: Option<&[u8]>,
        detail: Option<String>,
    ) -> Event {
        self.rules[i]
            .rule
            .injected(stream, body, sent, detail, self.max_frame)
    }
}

/// `body` corrupted `how`; `None` when that does not apply (a wrong id
/// for a message without one).
fn corrupt(body: &[u8], how: Corruption, f: &Frame<'_>) -> Option<Vec<u8>> {
    match how {
        Corruption::Cut => Some(body[..body.len() / 2].to_vec()),
        Corruption::InvalidJson => {
            let mut b = body.to_vec();
            match memchr::memchr(b':', &b) {
                Some(at) => b[at] = b'=',
                None => b.extend_from_slice(b"}}"),
            }
            Some(b)
        }
        Corruption::WrongId => {
            let id = f.id.as_ref()?.to_value();
            let mut v: Value = serde_json::from_slice(body).ok()?;
            let was = match &id {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            v.as_object_mut()?
                .insert("id".into(), Value::String(format!("{was}-wrong-id")));
            serde_json::to_vec(&v).ok()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::Filter;

    fn engine(rules: &[(&str, Action, Option<u64>)]) -> Engine {
        let rules = rules
            .iter()
            .enumerate()
            .map(|(i, (f, a, limit))| Rule {
                index: i as u32 + 1,
                source: "test".into(),
                filter: Filter::parse(f).unwrap(),
                action: a.clone(),
                limit: *limit,
            })
            .collect();
        Engine::new(Faults { rules, seed: 1 }, 1 << 20)
    }

    fn progress(tok: &str, p: u32) -> Vec<u8> {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"{tok}\",\"progress\":{p}}}}}\n"
        )
        .into_bytes()
    }

    /// What the receiver of `stream` gets for `lines`, in order.
    fn run(e: &mut Engine, lines: &[(Stream, Vec<u8>)]) -> (Vec<(Stream, Vec<u8>)>, Vec<Event>) {
        let mut got = Vec::new();
        let mut events = Vec::new();
        for (s, l) in lines {
            let mut out = Vec::new();
            if e.line(*s, l, 0, &mut out, &mut events) {
                got.push((*s, l.clone()));
            }
            for o in out {
                match o {
                    Out::Send(b) | Out::Delayed(b, _) => got.push((*s, b)),
                    Out::Close => {}
                }
            }
        }
        (got, events)
    }

    const CALL: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"_meta\":{\"progressToken\":\"a\"}}}\n";
    const RESULT: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n";

    #[test]
    fn late_holds_progress_until_its_response_is_sent() {
        let mut e = engine(&[("in && progress", Action::Late, None)]);
        use Stream::*;
        let (got, ev) = run(
            &mut e,
            &[
                (HostToServer, CALL.to_vec()),
                (ServerToHost, progress("a", 1)),
                (ServerToHost, progress("a", 2)),
                (ServerToHost, RESULT.to_vec()),
                // After the response: no longer held, nothing to change.
                (ServerToHost, progress("a", 3)),
            ],
        );
        let order: Vec<&[u8]> = got.iter().map(|(_, b)| b.as_slice()).collect();
        let (p1, p2, p3) = (progress("a", 1), progress("a", 2), progress("a", 3));
        assert_eq!(order, vec![CALL, RESULT, &p1[..], &p2[..], &p3[..]]);
        assert_eq!(ev.len(), 2);
        assert_eq!(
            ev[0].injected_line().unwrap(),
            "late by rule 1 (test) server→host, held until the response to request 2"
        );
    }

    #[test]
    fn hold_swaps_pairs_and_releases_the_last_at_the_end() {
        let mut e = engine(&[("progress", Action::Hold, None)]);
        let lines: Vec<(Stream, Vec<u8>)> = (1..=3)
            .map(|p| (Stream::ServerToHost, progress("a", p)))
            .collect();
        let (mut got, ev) = run(&mut e, &lines);
        let mut out = Vec::new();
        e.end(Stream::ServerToHost, &mut out, &mut Vec::new());
        for o in out {
            if let Out::Send(b) = o {
                got.push((Stream::ServerToHost, b));
            }
        }
        let want: Vec<Vec<u8>> = [2, 1, 3].iter().map(|p| progress("a", *p)).collect();
        assert_eq!(got.into_iter().map(|(_, b)| b).collect::<Vec<_>>(), want);
        assert_eq!(ev.len(), 2);
    }

    #[test]
    fn drops_every_nth_within_the_limit_and_repeats_with_the_seed() {
        let mut e = engine(&[("progress", Action::Drop(DropWhen::Every(2)), Some(2))]);
        let lines: Vec<(Stream, Vec<u8>)> = (1..=8)
            .map(|p| (Stream::ServerToHost, progress("a", p)))
            .collect();
        let (got, ev) = run(&mut e, &lines);
        assert_eq!(got.len(), 6);
        assert_eq!(ev.len(), 2);
        let kept = |seed| {
            let mut e = engine(&[("progress", Action::Drop(DropWhen::Probability(0.5)), None)]);
            e.rng = SplitMix::new(seed);
            run(&mut e, &lines).0
        };
        assert_eq!(kept(5), kept(5));
    }

    #[test]
    fn corruptions_change_what_is_sent_and_say_so() {
        let mut e = engine(&[
            ("response", Action::Corrupt(Corruption::WrongId), None),
            ("progress", Action::Corrupt(Corruption::InvalidJson), None),
        ]);
        use Stream::*;
        let (got, ev) = run(
            &mut e,
            &[
                (HostToServer, CALL.to_vec()),
                (ServerToHost, progress("a", 1)),
                (ServerToHost, RESULT.to_vec()),
            ],
        );
        assert!(serde_json::from_slice::<Value>(&got[1].1).is_err());
        let v: Value = serde_json::from_slice(&got[2].1).unwrap();
        assert_eq!(v["id"], "2-wrong-id");
        assert_eq!(ev.len(), 2);
        let Event::Injected { sent, .. } = &ev[1] else {
            panic!()
        };
        assert_eq!(
            sent.as_deref(),
            Some(r#"{"id":"2-wrong-id","jsonrpc":"2.0","result":{}}"#)
        );
    }

    #[test]
    fn a_rule_that_lets_a_message_pass_leaves_it_to_the_next() {
        let mut e = engine(&[
            ("progress", Action::Drop(DropWhen::Every(2)), None),
            (
                "in",
                Action::Delay {
                    ms: 5,
                    jitter_ms: 0,
                },
                None,
            ),
        ]);
        let mut events = Vec::new();
        let mut out = Vec::new();
        assert!(!e.line(
            Stream::ServerToHost,
            &progress("a", 1),
            0,
            &mut out,
            &mut events
        ));
        assert!(matches!(&out[..], [Out::Delayed(_, d)] if d.as_millis() == 5));
        out.clear();
        // The second is dropped, and not delayed too.
        assert!(!e.line(
            Stream::ServerToHost,
            &progress("a", 2),
            0,
            &mut out,
            &mut events
        ));
        assert!(out.is_empty());
        let actions: Vec<String> = events
            .iter()
            .filter_map(|ev| match ev {
                Event::Injected { action, .. } => Some(action.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(actions, ["delay", "drop"]);
    }

    #[test]
    fn lines_no_rule_can_match_are_told_without_parsing_and_the_rest_are_not() {
        let e = engine(&[("in && method == tools/call", Action::Duplicate, None)]);
        let p = progress("a", 1);
        assert!(e.no_rule_can_match(Stream::ServerToHost, body(&p)));
        // A request is always parsed: the requests in flight are followed.
        assert!(!e.no_rule_can_match(Stream::HostToServer, body(CALL)));
        let e = engine(&[("out && progress", Action::Duplicate, None)]);
        assert!(e.no_rule_can_match(Stream::ServerToHost, body(&p)));
        assert!(!e.no_rule_can_match(Stream::HostToServer, body(&p)));
        // An escape may spell the method otherwise; an id may make it a
        // response: both are parsed.
        let escaped = br#"{"jsonrpc":"2.0","method":"notifications\/progress"}"#;
        let e = engine(&[("progress", Action::Duplicate, None)]);
        assert!(!e.no_rule_can_match(Stream::ServerToHost, escaped));
        assert!(!e.no_rule_can_match(Stream::ServerToHost, body(RESULT)));
        let mut e = e;
        let (got, _) = run(&mut e, &[(Stream::ServerToHost, escaped.to_vec())]);
        assert_eq!(got.len(), 2, "the escaped method is progress too");
    }

    #[test]
    fn forge_sends_requests_behind_the_message_and_keeps_their_answers_from_the_server() {
        let forge = Action::Forge {
            method: "ping".into(),
            params: Some(serde_json::json!({"n": 1})),
            count: 2,
        };
        let mut e = engine(&[("in && progress", forge, Some(1))]);
        let p1 = progress("t", 1);
        let p2 = progress("t", 2);
        let answer = |n: u32| {
            format!("{{\"jsonrpc\":\"2.0\",\"id\":\"mcpscope-forged-{n}\",\"result\":{{}}}}\n")
                .into_bytes()
        };
        let (sent, events) = run(
            &mut e,
            &[
                (Stream::ServerToHost, p1.clone()),
                (Stream::ServerToHost, p2.clone()),
                (Stream::HostToServer, answer(1)),
                (Stream::HostToServer, answer(2)),
                (Stream::HostToServer, answer(3)),
            ],
        );
        let forged = |n: u32| {
            format!("{{\"id\":\"mcpscope-forged-{n}\",\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":{{\"n\":1}}}}\n")
                .into_bytes()
        };
        // Once (limit 1): behind the first progress; the answers stop at
        // the proxy, but one to an id it never forged goes on.
        assert_eq!(
            sent,
            [
                (Stream::ServerToHost, p1),
                (Stream::ServerToHost, forged(1)),
                (Stream::ServerToHost, forged(2)),
                (Stream::ServerToHost, p2),
                (Stream::HostToServer, answer(3)),
            ]
        );
        let said: Vec<(String, String)> = events
            .iter()
            .map(|ev| match ev {
                Event::Injected { action, stream, .. } => (action.clone(), stream.clone()),
                _ => panic!("{ev:?}"),
            })
            .collect();
        let forge = |s: &str| ("forge".to_string(), s.to_string());
        assert_eq!(
            said,
            [
                forge("server→host"),
                forge("server→host"),
                forge("host→server"),
                forge("host→server")
            ]
        );
    }

    #[test]
    fn close_ends_the_stream() {
        let mut e = engine(&[("progress", Action::Close, None)]);
        let (got, ev) = run(
            &mut e,
            &[
                (Stream::ServerToHost, RESULT.to_vec()),
                (Stream::ServerToHost, progress("a", 1)),
                (Stream::ServerToHost, RESULT.to_vec()),
            ],
        );
        assert_eq!(got.len(), 1);
        assert_eq!(ev.len(), 1);
    }
}
