//! Walking a seq range of the store in order: the live checks task, the
//! printers and every TUI fold read events this way, a plain walk through
//! each chunk's events (one search for the first, none per event).

use super::{EventRef, Store};

impl Store {
    /// Events with `from <= seq < to`, skipping evicted ones. Walks the chunks
    /// in order (one search for the first event, none per event), so scanning
    /// consumers — checks, printers, recorders — pay nothing per lookup.
    pub fn range(&self, from: u64, to: u64) -> Range<'_> {
        let from = from.max(self.first_seq());
        let to = to.min(self.next_seq);
        let chunk = if from < to {
            self.chunks.partition_point(|c| c.first_seq <= from) - 1
        } else {
            self.chunks.len()
        };
        let (i, hi) = self.span(chunk, from, to);
        Range {
            store: self,
            chunk,
            i,
            hi,
            to,
        }
    }

    /// The events of chunk `k` (if any) with `from <= seq < to`, as indexes.
    fn span(&self, k: usize, from: u64, to: u64) -> (usize, usize) {
        match self.chunks.get(k) {
            Some(c) => {
                let hi = (to.saturating_sub(c.first_seq) as usize).min(c.events.len());
                ((from.saturating_sub(c.first_seq) as usize).min(hi), hi)
            }
            None => (0, 0),
        }
    }
}

/// Events of a seq range in order (`Store::range`): a plain walk through
/// each chunk's events, which the live checks and the printers run per event.
pub struct Range<'a> {
    store: &'a Store,
    chunk: usize,
    i: usize,
    hi: usize,
    to: u64,
}

impl<'a> Iterator for Range<'a> {
    type Item = EventRef<'a>;

    #[inline]
    fn next(&mut self) -> Option<EventRef<'a>> {
        loop {
            if self.i < self.hi {
                let c = &self.store.chunks[self.chunk];
                self.i += 1;
                return Some(self.store.event_ref(c, self.i - 1));
            }
            // The chunk is done: the next starts at its first event.
            if self.chunk >= self.store.chunks.len() {
                return None;
            }
            self.chunk += 1;
            let from = self.store.chunks.get(self.chunk)?.first_seq;
            (self.i, self.hi) = self.store.span(self.chunk, from, self.to);
            if self.i >= self.hi {
                return None;
            }
        }
    }
}
