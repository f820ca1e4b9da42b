//! Lines of one kind that a server can cause without end (received spans,
//! status reports for tasks it made up): the first few are printed, the
//! rest counted, with a line when the count reaches 1,000, 10,000, … and a
//! total at the end — as progress for tokens no request carried is.

/// A count of one kind of line, of which the first `shown` are printed.
#[derive(Debug, Clone)]
pub struct Flood {
    /// How a count line starts (`[span]`) and what it counts (`received spans`).
    tag: &'static str,
    what: &'static str,
    shown: u64,
    n: u64,
}

impl Flood {
    pub const fn new(tag: &'static str, what: &'static str, shown: u64) -> Flood {
        Flood {
            tag,
            what,
            shown,
            n: 0,
        }
    }

    /// Count one line: `Ok(())` when it is printed as usual, else `Err`
    /// with the count line to print instead, if one is due.
    pub fn note(&mut self) -> Result<(), Option<String>> {
        self.n += 1;
        if self.n <= self.shown {
            return Ok(());
        }
        let (tag, what, shown, n) = (self.tag, self.what, self.shown, self.n);
        Err(if n == shown + 1 {
            Some(format!(
                "{tag} more than {shown} {what}: the rest are counted, not shown (the trace keeps each)"
            ))
        } else if milestone(n) {
            Some(format!("{tag} {n} {what} so far"))
        } else {
            None
        })
    }

    /// The total at the end, when some were not shown.
    pub fn summary(&self) -> Option<String> {
        (self.n > self.shown).then(|| {
            format!(
                "{} {} {} in all (the first {} shown)",
                self.tag, self.n, self.what, self.shown
            )
        })
    }
}

/// 1000, 10000, 100000, …: how often a count is said while it grows.
pub fn milestone(n: u64) -> bool {
    n >= 1000 && 10u64.pow(n.ilog10()) == n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_prints_a_bounded_number_of_lines() {
        let mut f = Flood::new("[span]", "received spans", 3);
        let mut printed = 0;
        for _ in 0..366_000 {
            match f.note() {
                Ok(()) | Err(Some(_)) => printed += 1,
                Err(None) => {}
            }
        }
        // 3 shown, the "more than" line, and 1000, 10000, 100000.
        assert_eq!(printed, 7);
        assert_eq!(
            f.summary().as_deref(),
            Some("[span] 366000 received spans in all (the first 3 shown)")
        );
        assert_eq!(Flood::new("[t]", "x", 3).summary(), None);
    }
}
