//! Calls by name: the label every event that belongs to a request reads as,
//! the request's seq and its tool — or its method for any other request —
//! `#12 slow_task`, `#3 resources/read`. The Timeline's call column, the
//! Logs, the Raw pane's title and the Scope's lane titles all read it here,
//! so one call reads alike everywhere, and concurrent calls apart (their
//! progress tokens often do not: `"mcpscope-…`).
//!
//! What belongs to a request: the request itself; a response by the
//! request's id (ours, or the server's request we answered); progress by the
//! token the request carried; our cancellation and mcpscope's timeout,
//! cancel and failure events by the request they name; over HTTP, whatever
//! came on the request's own stream (`post:N`: its logs, its progress, the
//! exchange); on stdio in the 2026-07-28 era, where a log is bound to a
//! request, a log by the only request in flight (or, none in flight, the
//! request answered last), as the checks bind it. Anything else — a log of
//! the handshake era on stdio — belongs to no call.
//!
//! [`Labels`] takes in the store's events once each, in order (`sync`), and
//! a row is named at draw time with a lookup or two. It grows with the
//! session's requests, not its events (progress is named through its
//! token's slot, a run of one call's logs is one entry), and is capped: the
//! oldest requests and links go first, counted in `dropped`.

use super::format::safe;
use crate::protocol::frame::FrameKind;
use crate::protocol::meta;
use crate::protocol::methods;
use crate::protocol::views::CancelledView;
use crate::protocol::{IdKey, Revision};
use crate::trace::{Dir, EventRef, Store};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, VecDeque};

/// Requests kept (both sides).
pub const MAX_REQUESTS: usize = 20_000;
/// Runs of events linked to a request (answers, cancellations, logs).
pub const MAX_LINKS: usize = 50_000;
/// A tool or method name in a label.
const NAME_CHARS: usize = 40;

/// One request, by seq.
#[derive(Debug)]
struct Request {
    seq: u64,
    /// The tool (`tools/call`) or the method, sanitised.
    name: Box<str>,
    /// Sent by us (not the server's request).
    ours: bool,
    id: IdKey,
    /// The token's slot and serial, when it carried one.
    token: Option<(u32, u64)>,
    /// Its own HTTP stream (`post:N`).
    stream: Option<Box<str>>,
}

/// Consecutive linkable events `first..=last` that all belong to `request`.
#[derive(Debug, Clone, Copy)]
struct Link {
    first: u64,
    last: u64,
    request: u64,
}

#[derive(Debug, Default)]
pub struct Labels {
    requests: VecDeque<Request>,
    /// The latest request with each id, per side (ours: true).
    ids: HashMap<(bool, IdKey), u64>,
    /// Token slot → (its serial, the request that carried it).
    tokens: HashMap<u32, (u64, u64)>,
    /// HTTP: each request's own stream.
    streams: HashMap<Box<str>, u64>,
    links: VecDeque<Link>,
    /// The last link may grow: no linkable event went unlinked since.
    open_run: bool,
    /// Our requests without an answer or a cancellation (not the handshake's).
    in_flight: BTreeSet<u64>,
    last_answered: Option<u64>,
    /// The session speaks 2026-07-28: logs are bound to requests.
    stateless: bool,
    scanned_to: u64,
    /// Requests and links no longer kept (the caps were reached).
    pub dropped: u64,
}

/// Events named through `links`: the same test when linking and looking up.
fn linkable(ev: &EventRef<'_>) -> bool {
    match (ev.dir, ev.kind) {
        (Dir::In | Dir::Out, FrameKind::Response | FrameKind::ErrorResponse) => true,
        (Dir::Out, FrameKind::Notification) => ev.method == Some(methods::CANCELLED),
        (Dir::In, FrameKind::Notification) => ev.method == Some(methods::MESSAGE),
        (Dir::Meta, _) => matches!(ev.method, Some("timeout" | "cancel" | "failed")),
        _ => false,
    }
}

/// An HTTP request's own stream: `post:N` (`listen:N` streams carry the
/// session's notifications, not one call's).
fn own_stream(channel: &str) -> bool {
    channel.starts_with("post:")
}

/// What a request is called: its tool, or its method.
pub fn request_name(ev: &EventRef<'_>) -> String {
    let f = ev.frame();
    let method = f.method.as_deref().or(ev.method).unwrap_or("?");
    if method == methods::TOOLS_CALL {
        #[derive(serde::Deserialize)]
        struct P {
            name: Option<String>,
        }
        if let Some(name) = f
            .params
            .and_then(|p| serde_json::from_str::<P>(p.get()).ok())
            .and_then(|p| p.name)
        {
            return safe(&name, NAME_CHARS);
        }
    }
    safe(method, NAME_CHARS)
}

impl Labels {
    /// Take in what the store gained, at most `budget` events. Returns true
    /// when caught up.
    pub fn sync(&mut self, store: &Store, budget: u64) -> bool {
        if store.next_seq() < self.scanned_to {
            // A new store: nothing known holds.
            *self = Labels::default();
        }
        let from = self.scanned_to.max(store.first_seq());
        let to = store.next_seq().min(from.saturating_add(budget));
        for ev in store.range(from, to) {
            self.observe(store, &ev);
        }
        self.scanned_to = to;
        to >= store.next_seq()
    }

    /// The label of the call `ev` belongs to, if any.
    pub fn of(&self, ev: &EventRef<'_>) -> Option<String> {
        if ev.kind == FrameKind::Request && matches!(ev.dir, Dir::In | Dir::Out) {
            return Some(match self.request(ev.seq) {
                Some(r) => label(r.seq, &r.name),
                None => label(ev.seq, &request_name(ev)),
            });
        }
        let seq = self.request_of(ev)?;
        match self.request(seq) {
            Some(r) => Some(label(seq, &r.name)),
            // Dropped: a response still knows its request's method.
            None => ev
                .method
                .filter(|_| matches!(ev.kind, FrameKind::Response | FrameKind::ErrorResponse))
                .map(|m| label(seq, &safe(m, NAME_CHARS))),
        }
    }

    /// The label of our latest request with `id` (a Scope lane's call).
    pub fn of_id(&self, id: &IdKey) -> Option<String> {
        let seq = *self.ids.get(&(true, id.clone()))?;
        self.request(seq).map(|r| label(seq, &r.name))
    }

    /// Requests kept now, and runs of linked events.
    pub fn len(&self) -> (usize, usize) {
        (self.requests.len(), self.links.len())
    }

    pub fn is_empty(&self) -> bool {
        self.requests.is_empty()
    }

    fn request(&self, seq: u64) -> Option<&Request> {
        let i = self.requests.partition_point(|r| r.seq < seq);
        self.requests.get(i).filter(|r| r.seq == seq)
    }

    /// The seq of the request `ev` (not itself a request) belongs to.
    fn request_of(&self, ev: &EventRef<'_>) -> Option<u64> {
        if let Some(p) = ev.progress {
            return match self.tokens.get(&p.slot) {
                Some((serial, seq)) if *serial == p.serial => Some(*seq),
                _ => None,
            };
        }
        if ev.dir != Dir::Stderr
            && own_stream(ev.channel)
            && let Some(seq) = self.streams.get(ev.channel)
        {
            return Some(*seq);
        }
        if !linkable(ev) {
            return None;
        }
        let i = self.links.partition_point(|l| l.first <= ev.seq);
        let l = self.links.get(i.checked_sub(1)?)?;
        (ev.seq <= l.last).then_some(l.request)
    }

    fn observe(&mut self, store: &Store, ev: &EventRef<'_>) {
        match (ev.dir, ev.kind) {
            (Dir::Out | Dir::In, FrameKind::Request) => self.add_request(store, ev),
            (Dir::Meta, _) if ev.method == Some("restart") => {
                // What the session before left in flight is not answered.
                self.in_flight.clear();
            }
            _ if linkable(ev) => {
                let to = self.link_target(ev);
                match to {
                    Some(seq) => self.link(ev.seq, seq),
                    None => self.open_run = false,
                }
            }
            _ => {}
        }
    }

    /// Which request a linkable event belongs to, as it arrives.
    fn link_target(&mut self, ev: &EventRef<'_>) -> Option<u64> {
        match (ev.dir, ev.kind) {
            (dir, FrameKind::Response | FrameKind::ErrorResponse) => {
                // Our answer goes to the server's request; theirs to ours.
                let ours = dir == Dir::In;
                let seq = *self.ids.get(&(ours, ev.frame().id?))?;
                if ours {
                    self.in_flight.remove(&seq);
                    self.last_answered = Some(seq);
                }
                Some(seq)
            }
            (Dir::Out, _) => {
                let c = CancelledView::parse(ev.frame().params)?;
                let seq = *self.ids.get(&(true, c.request_id))?;
                self.in_flight.remove(&seq);
                Some(seq)
            }
            (Dir::Meta, _) => {
                let v: Value = serde_json::from_slice(ev.bytes).ok()?;
                let id = v.get("request").filter(|r| !r.is_null())?;
                self.ids.get(&(true, IdKey::from_value(id))).copied()
            }
            // A log: on stdio only where logs are bound to requests.
            _ if self.stateless && !own_stream(ev.channel) => {
                let mut open = self.in_flight.iter();
                match (open.next(), open.next()) {
                    (Some(seq), None) => Some(*seq),
                    (None, _) => self.last_answered,
                    _ => None,
                }
            }
            _ => None,
        }
    }

    fn link(&mut self, seq: u64, request: u64) {
        if self.open_run
            && let Some(l) = self.links.back_mut()
            && l.request == request
        {
            l.last = seq;
            return;
        }
        if self.links.len() >= MAX_LINKS {
            self.links.pop_front();
            self.dropped += 1;
        }
        self.links.push_back(Link {
            first: seq,
            last: seq,
            request,
        });
        self.open_run = true;
    }

    fn add_request(&mut self, store: &Store, ev: &EventRef<'_>) {
        let f = ev.frame();
        let Some(id) = f.id.clone() else { return };
        let ours = ev.dir == Dir::Out;
        let method = f.method.as_deref().unwrap_or("");
        let mut r = Request {
            seq: ev.seq,
            name: request_name(ev).into(),
            ours,
            id: id.clone(),
            token: None,
            stream: None,
        };
        if ours {
            if let Some(t) = f.progress_token()
                && let Some(slot) = store.token_slot_of(&IdKey::from_raw(t.get()))
                && let Some(entry) = store.token_by_slot(slot)
            {
                r.token = Some((slot, entry.serial));
                self.tokens.insert(slot, (entry.serial, ev.seq));
            }
            if own_stream(ev.channel) {
                r.stream = Some(ev.channel.into());
                self.streams.insert(ev.channel.into(), ev.seq);
            }
            if !self.stateless && speaks_stateless(f.params.map(|p| p.get())) {
                self.stateless = true;
            }
            let setup = matches!(
                method,
                methods::INITIALIZE | methods::SERVER_DISCOVER | methods::SET_LEVEL
            );
            if !setup {
                self.in_flight.insert(ev.seq);
            }
        }
        self.ids.insert((ours, id), ev.seq);
        if self.requests.len() >= MAX_REQUESTS {
            self.forget_oldest();
        }
        self.requests.push_back(r);
    }

    fn forget_oldest(&mut self) {
        let Some(old) = self.requests.pop_front() else {
            return;
        };
        self.dropped += 1;
        let key = (old.ours, old.id);
        if self.ids.get(&key) == Some(&old.seq) {
            self.ids.remove(&key);
        }
        if let Some((slot, _)) = old.token
            && self.tokens.get(&slot).is_some_and(|(_, s)| *s == old.seq)
        {
            self.tokens.remove(&slot);
        }
        if let Some(s) = old.stream {
            self.streams.remove(&s);
        }
        self.in_flight.remove(&old.seq);
    }
}

/// `#12 slow_task`.
fn label(seq: u64, name: &str) -> String {
    format!("#{seq} {name}")
}

/// A request's `_meta` names a revision of the stateless era.
fn speaks_stateless(params: Option<&str>) -> bool {
    let Some(p) = params.filter(|p| p.contains(meta::PROTOCOL_VERSION)) else {
        return false;
    };
    serde_json::from_str::<Value>(p)
        .ok()
        .and_then(|v| {
            v.get(meta::META)?
                .get(meta::PROTOCOL_VERSION)?
                .as_str()?
                .parse::<Revision>()
                .ok()
        })
        .is_some_and(|r| r.era() == crate::protocol::Era::Stateless)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{ManualClock, Trace};
    use serde_json::json;

    fn trace() -> Trace {
        Trace::new(Store::default(), ManualClock::new())
    }

    fn out(tr: &Trace, channel: &str, v: Value) -> u64 {
        let b = v.to_string();
        tr.append(|s, now| s.append_frame(Dir::Out, channel, now, b.as_bytes(), &mut Vec::new()))
    }

    fn inn(tr: &Trace, channel: &str, v: Value) -> u64 {
        let b = v.to_string();
        tr.append(|s, now| s.append_frame(Dir::In, channel, now, b.as_bytes(), &mut Vec::new()))
    }

    fn labelled(tr: &Trace, budget: u64) -> (Labels, Vec<Option<String>>) {
        let store = tr.read();
        let mut l = Labels::default();
        while !l.sync(&store, budget) {}
        let all = store.range(0, store.next_seq()).map(|e| l.of(&e)).collect();
        (l, all)
    }

    #[test]
    fn a_call_s_events_read_as_its_request() {
        let tr = trace();
        out(
            &tr,
            "stdio",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "slow_task", "_meta": {"progressToken": "t"}}}),
        );
        out(
            &tr,
            "stdio",
            json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read", "params": {"uri": "x"}}),
        );
        inn(
            &tr,
            "stdio",
            json!({"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": "t", "progress": 1}}),
        );
        inn(
            &tr,
            "stdio",
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}),
        );
        inn(
            &tr,
            "stdio",
            json!({"jsonrpc": "2.0", "id": 2, "result": {}}),
        );
        out(
            &tr,
            "stdio",
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
        );
        inn(
            &tr,
            "stdio",
            json!({"jsonrpc": "2.0", "id": 7, "method": "roots/list"}),
        );
        out(
            &tr,
            "stdio",
            json!({"jsonrpc": "2.0", "id": 7, "result": {"roots": []}}),
        );
        inn(
            &tr,
            "stdio",
            json!({"jsonrpc": "2.0", "id": 9, "result": {}}),
        );
        // One event a sync or all at once: the same names.
        for budget in [1, 1000] {
            let (_, all) = labelled(&tr, budget);
            let all: Vec<Option<&str>> = all.iter().map(|l| l.as_deref()).collect();
            assert_eq!(
                all,
                [
                    Some("#0 slow_task"),
                    Some("#1 resources/read"),
                    Some("#0 slow_task"),
                    None,
                    Some("#1 resources/read"),
                    Some("#0 slow_task"),
                    Some("#6 roots/list"),
                    Some("#6 roots/list"),
                    None,
                ]
            );
        }
    }

    #[test]
    fn http_streams_name_their_request_s_logs() {
        let tr = trace();
        out(
            &tr,
            "post:3",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "up"}}),
        );
        inn(
            &tr,
            "post:3",
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}),
        );
        inn(
            &tr,
            "get",
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "y"}}),
        );
        let (_, all) = labelled(&tr, 100);
        assert_eq!(all[1].as_deref(), Some("#0 up"));
        assert_eq!(all[2], None);
    }

    #[test]
    fn bounded_the_oldest_go_first_and_are_counted() {
        let tr = trace();
        for i in 0..(MAX_REQUESTS as i64 + 5) {
            out(
                &tr,
                "stdio",
                json!({"jsonrpc": "2.0", "id": i, "method": "ping"}),
            );
        }
        inn(
            &tr,
            "stdio",
            json!({"jsonrpc": "2.0", "id": 0, "result": {}}),
        );
        inn(
            &tr,
            "stdio",
            json!({"jsonrpc": "2.0", "id": 10, "result": {}}),
        );
        let (l, all) = labelled(&tr, 1_000_000);
        assert_eq!(l.len().0, MAX_REQUESTS);
        assert_eq!(l.dropped, 5);
        let n = all.len();
        // The oldest request is forgotten; a newer one is still known.
        assert_eq!(all[n - 2], None);
        assert_eq!(all[n - 1].as_deref(), Some("#10 ping"));
        // A request still names itself, kept or not.
        assert_eq!(all[0].as_deref(), Some("#0 ping"));
    }

    #[test]
    fn one_call_s_log_flood_is_one_link() {
        let tr = trace();
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
        out(
            &tr,
            "stdio",
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "flood", "_meta": meta}}),
        );
        for _ in 0..1000 {
            inn(
                &tr,
                "stdio",
                json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}}),
            );
        }
        let (l, all) = labelled(&tr, 64);
        assert_eq!(l.len(), (1, 1));
        assert!(all.iter().all(|a| a.as_deref() == Some("#0 flood")));
    }
}
