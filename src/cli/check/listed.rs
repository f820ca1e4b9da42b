//! `check --only FILTER`: which findings the report lists. Every event is
//! still judged and the verdict (the counts, the exit code) is the whole
//! session's; a finding is listed when one of the frames it names is one
//! the filter selects, and the report says how many were not.

use super::report::Report;
use crate::filter::Matcher;
use crate::trace::EventRef;

/// The events a filter selected, as a bit per seq (an eighth of a byte an
/// event: a million events take 125 KB).
pub struct Selected {
    matcher: Matcher,
    bits: Vec<u64>,
}

impl Selected {
    pub fn new(matcher: Matcher) -> Selected {
        Selected {
            matcher,
            bits: Vec::new(),
        }
    }

    /// The next event, in order.
    pub fn observe(&mut self, ev: &EventRef<'_>) {
        if self.matcher.test(ev) {
            let (word, bit) = ((ev.seq / 64) as usize, ev.seq % 64);
            if self.bits.len() <= word {
                self.bits.resize(word + 1, 0);
            }
            self.bits[word] |= 1 << bit;
        }
    }

    fn has(&self, seq: u64) -> bool {
        self.bits
            .get((seq / 64) as usize)
            .is_some_and(|w| w & (1 << (seq % 64)) != 0)
    }

    /// Keep the findings about selected frames in the listing (and their
    /// groups); the summary's counts and verdict stay the session's.
    pub fn apply(self, r: &mut Report) {
        let before = r.findings.len();
        r.findings.retain(|f| f.seqs.iter().any(|s| self.has(*s)));
        r.summary.not_listed = (before - r.findings.len()) as u64;
        r.summary.only = Some(self.matcher.filter.source().to_string());
        r.groups = crate::checks::groups(&r.findings)
            .into_iter()
            .map(|mut g| {
                g.allowed = r.summary.allowed.iter().any(|a| a == g.rule.id());
                g
            })
            .collect();
    }
}
