//! The trace: the single source of truth for everything a session saw.
//!
//! Producers append under a short write lock, then publish "changed up to seq
//! N" on a watch channel (bursts collapse); consumers (headless printer, TUI
//! panes, checks, recorder) pull what they need.

pub mod clock;
mod index;
mod intern;
pub mod reader;
pub mod record;
pub mod seqs;
pub mod size;
mod spare;
pub mod store;
mod stored;
#[cfg(test)]
mod tests;

pub use clock::{Clock, ManualClock, MonotonicClock};
pub use store::{Dir, EventRef, Origin, Route, Store, StoreLimits};

use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use tokio::sync::watch;

/// Cheap, cloneable handle to a session's store.
#[derive(Clone)]
pub struct Trace {
    store: Arc<RwLock<Store>>,
    changed: watch::Sender<u64>,
    clock: Arc<dyn Clock>,
}

impl Trace {
    pub fn new(store: Store, clock: Arc<dyn Clock>) -> Trace {
        let (changed, _) = watch::channel(store.next_seq());
        Trace {
            store: Arc::new(RwLock::new(store)),
            changed,
            clock,
        }
    }

    pub fn now_us(&self) -> u64 {
        self.clock.now_us()
    }

    /// Read access for views. Hold it briefly: ingest waits for it.
    pub fn read(&self) -> RwLockReadGuard<'_, Store> {
        // A panic while holding the lock must not take the whole UI down.
        self.store.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Append under one lock, then publish the new end and hand the new
    /// lines to the recording's writer.
    pub fn append<R>(&self, f: impl FnOnce(&mut Store, u64) -> R) -> R {
        let now = self.clock.now_us();
        let (r, next) = {
            let mut s = self.write();
            let r = f(&mut s, now);
            s.end_batch();
            (r, s.next_seq())
        };
        self.changed.send_replace(next);
        r
    }

    /// Start over from an empty store with the same bounds: a replay
    /// stepping back feeds its events again up to the earlier one. The
    /// store stays append-only; whoever holds seqs of the old one (views,
    /// checks) must start over or skip to where the new one catches up.
    pub fn restart(&self) {
        let next = {
            let mut s = self.write();
            *s = s.emptied();
            s.next_seq()
        };
        self.changed.send_replace(next);
    }

    /// Wait until the recording (if any) has written every event so far.
    pub fn sync_recording(&self) {
        self.write().flush();
    }

    /// Complete the recording (if any) before the process ends; why it
    /// stopped short, if it did.
    pub fn finish_recording(&self) -> Option<String> {
        self.write().finish_recording()
    }

    fn write(&self) -> RwLockWriteGuard<'_, Store> {
        self.store.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Receives the store's next seq whenever events were appended.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }
}
