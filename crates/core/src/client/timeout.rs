//! When a request times out: pure arithmetic over trace timestamps, so it is
//! tested without waiting.

use super::options::Limits;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    /// No progress (or response) for the idle timeout.
    Idle,
    /// The hard maximum elapsed, progress or not.
    Max,
}

impl Expiry {
    pub fn as_str(self) -> &'static str {
        match self {
            Expiry::Idle => "idle",
            Expiry::Max => "max",
        }
    }

    /// Which limit, in the words of the command line.
    pub fn describe(self) -> &'static str {
        match self {
            Expiry::Idle => "the idle timeout, --timeout",
            Expiry::Max => "the maximum, --max-timeout",
        }
    }
}

/// The next deadline (µs on the trace clock) and which limit it is, given
/// when the request was sent and when its token last saw progress.
pub fn next_deadline(limits: Limits, sent_us: u64, last_progress_us: u64) -> Option<(u64, Expiry)> {
    let us = |d: std::time::Duration| u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
    let idle = limits.idle.map(|d| {
        (
            sent_us.max(last_progress_us).saturating_add(us(d)),
            Expiry::Idle,
        )
    });
    let max = limits
        .max
        .map(|d| (sent_us.saturating_add(us(d)), Expiry::Max));
    match (idle, max) {
        (Some(i), Some(m)) => Some(if m.0 <= i.0 { m } else { i }),
        (i, m) => i.or(m),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const S: u64 = 1_000_000;

    #[test]
    fn idle_is_reset_by_progress_but_max_is_not() {
        let l = Limits {
            idle: Some(Duration::from_secs(2)),
            max: Some(Duration::from_secs(10)),
        };
        assert_eq!(next_deadline(l, 0, 0), Some((2 * S, Expiry::Idle)));
        assert_eq!(next_deadline(l, 0, 5 * S), Some((7 * S, Expiry::Idle)));
        assert_eq!(next_deadline(l, 0, 9 * S), Some((10 * S, Expiry::Max)));
        assert_eq!(next_deadline(Limits::default(), 0, 0), None);
        let huge = Limits {
            idle: Some(Duration::MAX),
            max: None,
        };
        assert_eq!(next_deadline(huge, 5, 0), Some((u64::MAX, Expiry::Idle)));
        let only_max = Limits {
            idle: None,
            max: Some(Duration::from_secs(1)),
        };
        assert_eq!(
            next_deadline(only_max, 3 * S, 9 * S),
            Some((4 * S, Expiry::Max))
        );
    }
}
