//! `diff --only FILTER`: which differences the report lists. Both sessions
//! are still compared whole, and the verdict (`same`, the summary's counts,
//! the exit code) is the whole comparison's; a difference is listed when a
//! frame it names, or a call it is about, is one the filter selected on
//! its side, and the report says how many were not.
//!
//! The filter runs where the traces are read (the command line): each side
//! carries only what it selected, as sets of seqs, and the report keeps the
//! differences about them (`report::retain_selected`).

/// Seqs, a bit each (an eighth of a byte an event: a million events take
/// 125 KB).
#[derive(Debug, Default, Clone)]
pub struct SeqSet(Vec<u64>);

impl SeqSet {
    pub fn insert(&mut self, seq: u64) {
        let (word, bit) = ((seq / 64) as usize, seq % 64);
        if self.0.len() <= word {
            self.0.resize(word + 1, 0);
        }
        self.0[word] |= 1 << bit;
    }

    pub fn has(&self, seq: u64) -> bool {
        self.0
            .get((seq / 64) as usize)
            .is_some_and(|w| w & (1 << (seq % 64)) != 0)
    }
}

/// What the filter selected in one session.
#[derive(Debug, Default, Clone)]
pub struct Selected {
    /// The filter as written (the report names it).
    pub filter: String,
    /// The frames it selected.
    pub frames: SeqSet,
    /// The calls (by their request's seq) one of whose frames it selected:
    /// the request, its response, its progress or its cancellation, as the
    /// filter's `call` field assigns frames to calls. A call is one thing
    /// to compare, so selecting any part of it lists the call.
    pub calls: SeqSet,
}

impl Selected {
    pub fn frame(&self, seq: u64) -> bool {
        self.frames.has(seq)
    }

    pub fn call(&self, request_seq: u64) -> bool {
        self.calls.has(request_seq) || self.frames.has(request_seq)
    }
}
