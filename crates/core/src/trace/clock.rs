//! Time for the trace: monotonic microseconds since the session started.
//! Injected so tests and replays control it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

pub trait Clock: Send + Sync {
    fn now_us(&self) -> u64;
}

/// Real monotonic time from a starting instant.
pub struct MonotonicClock {
    start: Instant,
}

impl MonotonicClock {
    pub fn new() -> Arc<MonotonicClock> {
        Arc::new(MonotonicClock {
            start: Instant::now(),
        })
    }

    /// A clock that reads `elapsed` now: time counted from a start that
    /// was earlier (another process's session, followed from later on).
    pub fn since(elapsed: std::time::Duration) -> Arc<MonotonicClock> {
        let now = Instant::now();
        Arc::new(MonotonicClock {
            start: now.checked_sub(elapsed).unwrap_or(now),
        })
    }
}

impl Clock for MonotonicClock {
    fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }
}

/// A clock that moves only when told to.
#[derive(Default)]
pub struct ManualClock {
    now_us: AtomicU64,
}

impl ManualClock {
    pub fn new() -> Arc<ManualClock> {
        Arc::new(ManualClock::default())
    }
    pub fn set_us(&self, us: u64) {
        self.now_us.store(us, Ordering::SeqCst);
    }
    pub fn advance_us(&self, us: u64) {
        self.now_us.fetch_add(us, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_us(&self) -> u64 {
        self.now_us.load(Ordering::SeqCst)
    }
}
