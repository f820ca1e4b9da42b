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
    /// The preparing thread, so a test can wait for it.
    #[cfg(test)]
    preparing: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Spare {
    /// An empty buffer of at least `cap` bytes: the prepared one when it is
    /// ready and large enough, else a new one. With `ahead = Some(n)`, the
    /// next one, of `n` bytes (a chunk's usual size, whatever `cap` was),
    /// is prepared meanwhile.
    pub(super) fn take(&self, cap: usize, ahead: Option<usize>) -> Vec<u8> {
        let prepared = self.lock().take();
        let buf = match prepared {
            Some(b) if b.capacity() >= cap => b,
            _ => Vec::with_capacity(cap),
        };
        if let Some(size) = ahead {
            let slot = self.ready.clone();
            // Best effort: without a thread the next chunk faults as usual.
            let _handle = std::thread::Builder::new()
                .name("store-spare".into())
                .spawn(move || {
                    let mut v = vec![0u8; size];
                    // `vec![0; n]` may get pages the kernel maps lazily:
                    // write one byte per page so they are really there.
                    for b in v.iter_mut().step_by(4096) {
                        *b = 1;
                    }
                    v.clear();
                    *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(v);
                });
            #[cfg(test)]
            if let Ok(h) = _handle {
                *self
                    .preparing
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner) = Some(h);
            }
        }
        buf
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Vec<u8>>> {
        self.ready.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settle(s: &Spare) {
        if let Some(h) = s.preparing.lock().unwrap().take() {
            h.join().unwrap();
        }
    }

    #[test]
    fn the_next_buffer_has_the_usual_size_whatever_the_last_one_needed() {
        let s = Spare::default();
        // A giant frame's chunk: the one prepared next is a usual one.
        let giant = s.take(64 << 20, Some(1 << 20));
        assert!(giant.capacity() >= 64 << 20);
        settle(&s);
        let next = s.ready.lock().unwrap().as_ref().map(Vec::capacity);
        assert_eq!(next, Some(1 << 20));
        // It is handed out when large enough, and a new one is prepared.
        let usual = s.take(1 << 20, Some(1 << 20));
        assert_eq!((usual.len(), usual.capacity()), (0, 1 << 20));
        settle(&s);
        // Too small for a larger need: a new buffer, the prepared one kept
        // out of the way (it was taken and dropped).
        let big = s.take(2 << 20, None);
        assert!(big.capacity() >= 2 << 20);
        assert!(s.ready.lock().unwrap().is_none());
    }
}
