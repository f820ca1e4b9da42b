//! A sorted list of sequence numbers kept as runs of consecutive seqs: the
//! token of a flood holds one run for a million notifications, where a plain
//! list would hold eight bytes (and a doubling vector's spare room) each.

/// Seqs in increasing order, as runs `[start, start + len)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SeqRuns {
    runs: Vec<Run>,
    len: usize,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Run {
    start: u64,
    len: u64,
}

impl Run {
    fn end(&self) -> u64 {
        self.start + self.len
    }
}

impl SeqRuns {
    pub fn one(seq: u64) -> SeqRuns {
        let mut s = SeqRuns::default();
        s.push(seq);
        s
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn first(&self) -> Option<u64> {
        self.runs.first().map(|r| r.start)
    }

    pub fn last(&self) -> Option<u64> {
        self.runs.last().map(|r| r.end() - 1)
    }

    /// Heap bytes held.
    pub fn heap(&self) -> usize {
        self.runs.capacity() * size_of::<Run>()
    }

    /// Append a seq above every seq held (a lower or repeated one is
    /// ignored: the list stays sorted and unique). Returns the heap growth.
    pub fn push(&mut self, seq: u64) -> usize {
        match self.runs.last_mut() {
            Some(r) if seq == r.end() => r.len += 1,
            Some(r) if seq < r.end() => return 0,
            _ => {
                let before = self.heap();
                // Most tokens of a distinct-token flood get exactly one seq.
                if self.runs.capacity() == 0 {
                    self.runs.reserve_exact(1);
                }
                self.runs.push(Run { start: seq, len: 1 });
                self.len += 1;
                return self.heap() - before;
            }
        }
        self.len += 1;
        0
    }

    /// Drop the seqs below `first`; give back memory when the list is mostly
    /// empty. Returns the heap bytes freed.
    pub fn drain_below(&mut self, first: u64) -> usize {
        let k = self.runs.partition_point(|r| r.end() <= first);
        let dropped: u64 = self.runs[..k].iter().map(|r| r.len).sum();
        self.runs.drain(..k);
        let mut cut = dropped;
        if let Some(r) = self.runs.first_mut()
            && r.start < first
        {
            let d = first - r.start;
            r.start = first;
            r.len -= d;
            cut += d;
        }
        self.len -= cut as usize;
        let before = self.heap();
        if self.runs.len() * 4 < self.runs.capacity() && self.runs.capacity() > 16 {
            self.runs.shrink_to(self.runs.len() * 2);
        }
        before - self.heap()
    }

    /// How many seqs are at or above `from` (cheap when few runs lie below).
    pub fn count_from(&self, from: u64) -> usize {
        let k = self.runs.partition_point(|r| r.end() <= from);
        let below: u64 = self.runs[..k].iter().map(|r| r.len).sum::<u64>()
            + self.runs.get(k).map_or(0, |r| from.saturating_sub(r.start));
        self.len - below as usize
    }

    /// The seqs at or above `from`, in order.
    pub fn from(&self, from: u64) -> impl Iterator<Item = u64> + '_ {
        let k = self.runs.partition_point(|r| r.end() <= from);
        self.runs[k..]
            .iter()
            .flat_map(move |r| r.start.max(from)..r.end())
    }

    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.from(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_hold_consecutive_seqs_and_answer_like_a_list() {
        let mut s = SeqRuns::default();
        let list = [3u64, 4, 5, 9, 10, 20];
        for q in list {
            s.push(q);
        }
        s.push(20); // repeated: ignored
        s.push(7); // lower: ignored
        assert_eq!(s.len(), 6);
        assert_eq!(s.runs.len(), 3);
        assert_eq!(s.iter().collect::<Vec<_>>(), list);
        assert_eq!(s.from(5).collect::<Vec<_>>(), [5, 9, 10, 20]);
        assert_eq!(s.from(6).collect::<Vec<_>>(), [9, 10, 20]);
        assert_eq!(s.from(21).count(), 0);
        for from in 0..22 {
            assert_eq!(s.count_from(from), s.from(from).count(), "from {from}");
        }
        assert_eq!((s.first(), s.last()), (Some(3), Some(20)));
    }

    #[test]
    fn drain_below_cuts_inside_a_run_and_counts() {
        let mut s = SeqRuns::default();
        for q in (0..10).chain(15..18) {
            s.push(q);
        }
        s.drain_below(4);
        assert_eq!(s.iter().collect::<Vec<_>>(), [4, 5, 6, 7, 8, 9, 15, 16, 17]);
        assert_eq!(s.len(), 9);
        s.drain_below(16);
        assert_eq!(s.iter().collect::<Vec<_>>(), [16, 17]);
        assert_eq!(s.len(), 2);
        s.drain_below(100);
        assert!(s.is_empty());
        assert_eq!((s.first(), s.last()), (None, None));
    }

    #[test]
    fn a_flood_costs_one_run() {
        let mut s = SeqRuns::default();
        let grew: usize = (0..1_000_000).map(|q| s.push(q)).sum();
        assert_eq!(s.len(), 1_000_000);
        assert_eq!(grew, s.heap());
        assert!(s.heap() <= 64, "{} bytes", s.heap());
    }
}
