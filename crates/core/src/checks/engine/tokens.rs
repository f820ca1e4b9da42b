//! Per-token state of the rule engine, and how a progress frame finds it.
//!
//! Only tokens our own requests carried get state: progress for any other
//! token is reported as unknown and kept nowhere, so however many tokens a
//! server invents, this stays the size of the client's requests kept. A
//! token goes with the last request that carried it, when that is retired.

use super::{Checker, KEEP_FINISHED, MAX_PER_RULE};
use crate::checks::finding::Finding;
use crate::checks::rules::Rule;
use crate::protocol::IdKey;
use crate::protocol::views::ProgressView;
use crate::trace::EventRef;
use std::collections::VecDeque;

/// One progress token and the stream of its current request.
pub(super) struct Tok {
    pub(super) key: IdKey,
    pub(super) req: Option<usize>,
    pub(super) last_progress: Option<(f64, u64)>,
    pub(super) total: Option<(f64, u64)>,
    pub(super) exceeded: bool,
    pub(super) first_note: Option<(u64, u64)>,
    pub(super) last_note: Option<(u64, u64)>,
    pub(super) notes: u64,
    /// The longest wait between two consecutive notifications.
    pub(super) max_note_gap_us: u64,
    /// Time and seq of the last thing that showed the request alive.
    pub(super) activity: (u64, u64),
    pub(super) stall_reported: bool,
    pub(super) flood: VecDeque<(u64, u64)>,
    pub(super) flooded: bool,
    /// Bumped when the slot is freed: a cached slot of an older generation
    /// names a token that is gone.
    pub(super) generation: u32,
}

impl Tok {
    pub(super) fn new(key: IdKey) -> Tok {
        Tok {
            key,
            req: None,
            last_progress: None,
            total: None,
            exceeded: false,
            first_note: None,
            last_note: None,
            notes: 0,
            max_note_gap_us: 0,
            activity: (0, 0),
            stall_reported: false,
            flood: VecDeque::new(),
            flooded: false,
            generation: 0,
        }
    }

    /// A request carrying this token starts a fresh stream.
    pub(super) fn restart(&mut self, req: usize, t_us: u64, seq: u64) {
        let generation = self.generation;
        *self = Tok::new(std::mem::replace(&mut self.key, IdKey::Int(0)));
        self.generation = generation;
        self.req = Some(req);
        self.activity = (t_us, seq);
    }
}

/// A store slot resolved to our token. The store reuses the slots of
/// pruned tokens, never their serials.
#[derive(Clone, Copy)]
pub(super) struct SlotCache {
    pub(super) serial: u64,
    /// Our slot, or `NO_TOK`.
    pub(super) slot: u32,
    /// For our slot, its generation; for `NO_TOK`, the token epoch then.
    pub(super) epoch: u32,
}

pub(super) const NO_TOK: u32 = u32::MAX;

impl Checker {
    pub(super) fn tok_slot(&mut self, key: IdKey) -> u32 {
        if let Some(s) = self.tok_ids.get(&key) {
            return *s;
        }
        let slot = match self.free_toks.pop() {
            Some(slot) => {
                let t = &mut self.toks[slot as usize];
                let generation = t.generation;
                *t = Tok::new(key.clone());
                t.generation = generation;
                slot
            }
            None => {
                self.toks.push(Tok::new(key.clone()));
                (self.toks.len() - 1) as u32
            }
        };
        self.tok_ids.insert(key, slot);
        self.tok_epoch = self.tok_epoch.wrapping_add(1);
        slot
    }

    /// The token of a retired request goes with it (unless a later request
    /// carries it now): its slot is freed for another token.
    pub(super) fn retire_tok(&mut self, slot: u32) {
        let t = &mut self.toks[slot as usize];
        let key = std::mem::replace(&mut t.key, IdKey::Int(0));
        let generation = t.generation.wrapping_add(1);
        *t = Tok::new(IdKey::Int(0));
        t.generation = generation;
        if self.tok_ids.get(&key) == Some(&slot) {
            self.tok_ids.remove(&key);
        }
        if matches!(self.last_tok, Some((_, s)) if s == slot) {
            self.last_tok = None;
        }
        self.free_toks.push(slot);
    }

    /// Progress for a token none of our requests carried.
    pub(super) fn unknown_token(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        if self.per_rule.get(&Rule::ProgressUnknownToken).copied() >= Some(MAX_PER_RULE) {
            // Counted without parsing the frame again: this is the flood case.
            *self
                .suppressed
                .entry(Rule::ProgressUnknownToken)
                .or_insert(0) += 1;
            return;
        }
        let f = ev.frame();
        let key = match ProgressView::parse(f.params) {
            Ok(p) => IdKey::from_raw(p.token.get()),
            Err(_) => IdKey::Other("?".into()),
        };
        // Once requests were retired, the token may be one of theirs.
        let which = match self.window.forgot() {
            false => "which no request carried".to_string(),
            true => format!(
                "which no request in flight or among the last {KEEP_FINISHED} finished carried (older requests are no longer kept)"
            ),
        };
        self.emit(
            out,
            Rule::ProgressUnknownToken,
            vec![ev.seq],
            Some(key.clone()),
            None,
            format!(
                "progress for token {key}, {which}; only send progress for the progressToken of an active request (and none when the request had no token)"
            ),
        );
    }

    /// Our slot for the store's token slot `store_slot` (first sight: from
    /// the frame's own token text); `None` for a token no request carried.
    pub(super) fn tok_for_store(
        &mut self,
        store_slot: u32,
        serial: u64,
        ev: &EventRef<'_>,
    ) -> Option<u32> {
        let i = store_slot as usize;
        if let Some(c) = self.store_slots.get(i)
            && c.serial == serial
        {
            if c.slot == NO_TOK {
                if c.epoch == self.tok_epoch {
                    return None;
                }
            } else if self.toks[c.slot as usize].generation == c.epoch {
                return Some(c.slot);
            }
        }
        let f = ev.frame();
        let raw = ProgressView::parse(f.params)
            .map(|p| p.token.get().as_bytes().to_vec())
            .unwrap_or_default();
        let found = self.tok_for_raw(&raw);
        if self.store_slots.len() <= i {
            let blank = SlotCache {
                serial: u64::MAX,
                slot: NO_TOK,
                epoch: 0,
            };
            self.store_slots.resize(i + 1, blank);
        }
        self.store_slots[i] = SlotCache {
            serial,
            slot: found.unwrap_or(NO_TOK),
            epoch: match found {
                Some(s) => self.toks[s as usize].generation,
                None => self.tok_epoch,
            },
        };
        found
    }

    /// Our slot for a token given as raw JSON text, if a request carried it.
    pub(super) fn tok_for_raw(&mut self, raw: &[u8]) -> Option<u32> {
        if let Some((r, slot)) = &self.last_tok
            && r.as_slice() == raw
        {
            return Some(*slot);
        }
        let key = std::str::from_utf8(raw)
            .map(IdKey::from_raw)
            .unwrap_or_else(|_| IdKey::Other(String::from_utf8_lossy(raw).into()));
        let slot = *self.tok_ids.get(&key)?;
        self.last_tok = Some((raw.to_vec(), slot));
        Some(slot)
    }
}
