//! The store's next chunk buffer, made ready off the ingest thread. Filling
//! a new 4 MiB buffer page by page costs the thread that first writes it a
//! thousand page faults; during a flood that is the reader, the one thread
//! the flood waits on, while the core running the server has time to spare.
//! So once a session needs a second chunk, each chunk taken starts the next
//! one's preparation on a short-lived thread, which touches every page.
//! Bounded: one buffer at most waits, only while the store's bound has room
//! for it beside the next chunk, and it is dropped with the store.

use std::sync::{Arc, Mutex, PoisonError};

#[derive(Default)]
pub(super) struct Spare {
    ready: Arc<Mutex<Option<Vec<u8>>>>,
}

impl Spare {
    /// An empty buffer of at least `cap` bytes: the prepared one when it is
    /// ready and large enough, else a new one. With `ahead`, the next is
    /// prepared meanwhile.
    pub(super) fn take(&self, cap: usize, ahead: bool) -> Vec<u8> {
        let prepared = self.lock().take();
        let buf = match prepared {
            Some(b) if b.capacity() >= cap => b,
            _ => Vec::with_capacity(cap),
        };
        if ahead {
            let slot = self.ready.clone();
            // Best effort: without a thread the next chunk faults as usual.
            let _ = std::thread::Builder::new()
                .name("store-spare".into())
                .spawn(move || {
                    let mut v = vec![0u8; cap];
                    // `vec![0; n]` may get pages the kernel maps lazily:
                    // write one byte per page so they are really there.
                    for b in v.iter_mut().step_by(4096) {
                        *b = 1;
                    }
                    v.clear();
                    *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(v);
                });
        }
        buf
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Vec<u8>>> {
        self.ready.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
