//! The store's indexes: requests by id, progress tokens, log levels, stderr
//! lines and problem frames. They hold sequence numbers, never copies.
//!
//! A server decides how many entries they get (one token per frame is
//! enough to grow them by ~250 bytes a frame), so every byte they hold is
//! counted in `mem` and entries whose events were all evicted are dropped:
//! an expiry queue visits each entry once its newest queued seq leaves the
//! store, so pruning costs nothing per event and O(1) amortised per entry.

use super::stored::Origin;
use crate::protocol::id::IdKey;
use std::collections::{HashMap, VecDeque};
use std::mem::size_of;

/// State of one request (either side), found by id.
#[derive(Debug, Clone)]
pub struct RequestEntry {
    pub request_seq: u64,
    pub method: u32,
    /// The token's slot when the request was made (see `ProgressInfo::slot`).
    pub token: Option<u32>,
    pub response_seq: Option<u64>,
    pub cancelled_seq: Option<u64>,
    /// Every event about this id still stored: request, cancellation, responses.
    pub seqs: Vec<u64>,
}

impl RequestEntry {
    /// A request we sent and still wait for: kept whatever is evicted, so
    /// its response is still recognised (and ours are few).
    fn pinned(&self, origin: Origin) -> bool {
        origin == Origin::Client && self.response_seq.is_none() && self.cancelled_seq.is_none()
    }
}

/// Everything seen for one progress token.
#[derive(Debug, Clone)]
pub struct TokenEntry {
    pub key: IdKey,
    pub(super) raw: Box<str>,
    /// Unique for the store's lifetime: a slot is reused once its token was
    /// pruned, the serial never is.
    pub serial: u64,
    /// The client request that carried this token, if any did.
    pub request: Option<IdKey>,
    /// The request (if any) and its progress notifications, in order (some
    /// may be evicted already: `Store::token_seqs` gives the stored ones).
    pub seqs: super::seqs::SeqRuns,
    pub last_us: u64,
    pub notifications: u64,
}

/// Something in the expiry queue.
enum Expiring {
    Token { slot: u32, serial: u64 },
    Request(Origin, IdKey),
}

/// Per-entry bookkeeping not visible in the containers' capacities.
const MAP_CTRL: usize = 1;

fn heap(k: &IdKey) -> usize {
    match k {
        IdKey::Int(_) => 0,
        IdKey::Str(s) | IdKey::Other(s) => s.len(),
    }
}

/// Heap bytes of a token beyond its slot and map entry: its key (twice,
/// once as the map key), raw text, request id and seq list.
fn token_heap(t: &TokenEntry) -> usize {
    2 * heap(&t.key) + t.raw.len() + t.request.as_ref().map_or(0, heap) + t.seqs.heap()
}

fn request_heap(id: &IdKey, r: &RequestEntry) -> usize {
    2 * heap(id) + r.seqs.capacity() * 8
}

/// Push a seq, counting any growth of the list.
#[inline]
pub(super) fn push_seq(v: &mut Vec<u64>, seq: u64, mem: &mut usize) {
    if v.len() == v.capacity() {
        let before = v.capacity();
        v.push(seq);
        *mem += (v.capacity() - before) * 8;
    } else {
        v.push(seq);
    }
}

/// Drop the seqs below `first` from a sorted list; give back memory when
/// the list is mostly empty. Returns the change in heap bytes (≤ 0).
fn drain_below(v: &mut Vec<u64>, first: u64) -> usize {
    let k = v.partition_point(|s| *s < first);
    if k == 0 {
        return 0;
    }
    v.drain(..k);
    let before = v.capacity();
    if v.len() * 4 < before && before > 16 {
        v.shrink_to(v.len() * 2);
    }
    (before - v.capacity()) * 8
}

#[derive(Default)]
pub(super) struct Indexes {
    pub(super) requests: HashMap<(Origin, IdKey), RequestEntry>,
    pub(super) tokens: Vec<Option<TokenEntry>>,
    free: Vec<u32>,
    pub(super) token_ids: HashMap<IdKey, u32>,
    /// The slot the last progress named: a flood repeats one token.
    pub(super) last_token: Option<u32>,
    next_serial: u64,
    pub(super) by_level: [Vec<u64>; 8],
    pub(super) logs: Vec<u64>,
    pub(super) stderr: Vec<u64>,
    pub(super) problems: Vec<u64>,
    /// `otel-log` and `otel-span` meta events (the receiver's).
    pub(super) otel_logs: Vec<u64>,
    pub(super) otel_spans: Vec<u64>,
    expiry: VecDeque<(u64, Expiring)>,
    /// Heap bytes of entries (keys, seq lists); containers are added in `mem`.
    pub(super) heap: usize,
    pruned_tokens: u64,
    pruned_requests: u64,
}

impl Indexes {
    /// Every byte the indexes hold (allocator slack aside).
    pub(super) fn mem(&self) -> usize {
        let list = |v: &Vec<u64>| v.capacity() * 8;
        self.heap
            + self.requests.capacity() * (size_of::<((Origin, IdKey), RequestEntry)>() + MAP_CTRL)
            + self.token_ids.capacity() * (size_of::<(IdKey, u32)>() + MAP_CTRL)
            + self.tokens.capacity() * size_of::<Option<TokenEntry>>()
            + self.free.capacity() * 4
            + self.expiry.capacity() * size_of::<(u64, Expiring)>()
            + self.by_level.iter().map(list).sum::<usize>()
            + list(&self.logs)
            + list(&self.stderr)
            + list(&self.problems)
            + list(&self.otel_logs)
            + list(&self.otel_spans)
    }

    /// Tokens and requests dropped because all their events were evicted.
    pub(super) fn pruned(&self) -> (u64, u64) {
        (self.pruned_tokens, self.pruned_requests)
    }

    pub(super) fn live_tokens(&self) -> usize {
        self.token_ids.len()
    }

    pub(super) fn token(&self, slot: u32) -> Option<&TokenEntry> {
        self.tokens.get(slot as usize).and_then(Option::as_ref)
    }

    /// Slot of a token, creating it on first sight (`seq`: the event naming it).
    pub(super) fn token_slot(&mut self, key: &IdKey, seq: u64) -> u32 {
        if let Some(i) = self.token_ids.get(key) {
            return *i;
        }
        let serial = self.next_serial;
        self.next_serial += 1;
        let t = TokenEntry {
            key: key.clone(),
            raw: key.to_value().to_string().into(),
            serial,
            request: None,
            seqs: Default::default(),
            last_us: 0,
            notifications: 0,
        };
        self.heap += token_heap(&t);
        let slot = match self.free.pop() {
            Some(s) => {
                self.tokens[s as usize] = Some(t);
                s
            }
            None => {
                self.tokens.push(Some(t));
                (self.tokens.len() - 1) as u32
            }
        };
        self.token_ids.insert(key.clone(), slot);
        self.expiry
            .push_back((seq, Expiring::Token { slot, serial }));
        slot
    }

    /// Mark token `slot` as carried by our request `id`.
    pub(super) fn bind_request(&mut self, slot: u32, id: &IdKey) {
        if let Some(Some(t)) = self.tokens.get_mut(slot as usize) {
            let old = t.request.replace(id.clone());
            self.heap = self.heap + heap(id) - old.as_ref().map_or(0, heap);
        }
    }

    /// Record a request; a new id gets an expiry entry, a reused one
    /// replaces the old entry (whose expiry entry then serves the new one).
    pub(super) fn insert_request(&mut self, origin: Origin, id: IdKey, r: RequestEntry) {
        self.heap += request_heap(&id, &r);
        let seq = r.request_seq;
        match self.requests.insert((origin, id.clone()), r) {
            Some(old) => self.heap -= request_heap(&id, &old),
            None => self.expiry.push_back((seq, Expiring::Request(origin, id))),
        }
    }

    /// Forget what only points at events below `first`; `next` is the seq
    /// the store hands out next (entries still alive are revisited once the
    /// events up to it are evicted).
    pub(super) fn prune(&mut self, first: u64, next: u64) {
        let mut freed = 0;
        for v in self.by_level.iter_mut().chain([
            &mut self.logs,
            &mut self.stderr,
            &mut self.problems,
            &mut self.otel_logs,
            &mut self.otel_spans,
        ]) {
            v.drain(..v.partition_point(|s| *s < first));
            if v.len() * 4 < v.capacity() && v.capacity() > 1024 {
                v.shrink_to(v.len() * 2);
            }
        }
        while self.expiry.front().is_some_and(|(s, _)| *s < first) {
            let Some((_, e)) = self.expiry.pop_front() else {
                break;
            };
            let keep = match &e {
                Expiring::Token { slot, serial } => self.prune_token(*slot, *serial, first),
                Expiring::Request(origin, id) => self.prune_request(*origin, id, first),
            };
            if keep {
                self.expiry.push_back((next, e));
            }
            freed += 1;
        }
        if freed > 0 {
            shrink_map(&mut self.requests);
            shrink_map(&mut self.token_ids);
            if self.expiry.len() * 4 < self.expiry.capacity() && self.expiry.capacity() > 1024 {
                self.expiry.shrink_to(self.expiry.len() * 2);
            }
        }
    }

    /// Returns whether the token stays.
    fn prune_token(&mut self, slot: u32, serial: u64, first: u64) -> bool {
        let Some(Some(t)) = self.tokens.get_mut(slot as usize) else {
            return false;
        };
        if t.serial != serial {
            return false;
        }
        self.heap -= t.seqs.drain_below(first);
        let pinned = t.request.as_ref().is_some_and(|id| {
            self.requests
                .get(&(Origin::Client, id.clone()))
                .is_some_and(|r| r.pinned(Origin::Client))
        });
        if !t.seqs.is_empty() || pinned {
            return true;
        }
        let Some(t) = self.tokens[slot as usize].take() else {
            return false;
        };
        self.heap -= token_heap(&t);
        self.token_ids.remove(&t.key);
        if self.last_token == Some(slot) {
            self.last_token = None;
        }
        self.free.push(slot);
        self.pruned_tokens += 1;
        false
    }

    /// Returns whether the request stays.
    fn prune_request(&mut self, origin: Origin, id: &IdKey, first: u64) -> bool {
        let key = (origin, id.clone());
        let Some(r) = self.requests.get_mut(&key) else {
            return false;
        };
        self.heap -= drain_below(&mut r.seqs, first);
        if !r.seqs.is_empty() || r.pinned(origin) {
            return true;
        }
        if let Some(r) = self.requests.remove(&key) {
            self.heap -= request_heap(id, &r);
            self.pruned_requests += 1;
        }
        false
    }
}

fn shrink_map<K: std::hash::Hash + Eq, V>(m: &mut HashMap<K, V>) {
    if m.len() * 4 < m.capacity() && m.capacity() > 1024 {
        m.shrink_to(m.len() * 2);
    }
}
