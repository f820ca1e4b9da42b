//! Requests waiting for their response. The ingest thread completes them;
//! a closed connection fails them all with the reason.

use crate::protocol::IdKey;
use crate::transport::ExitInfo;
use std::collections::HashMap;
use std::sync::Mutex;
use tokio::sync::oneshot;

/// Why a request will never get its response.
#[derive(Debug, Clone, PartialEq)]
pub enum Gone {
    Exited(ExitInfo),
    Transport(crate::event::Loss),
    /// The answer came but is not a valid response (`seq` is the frame).
    Malformed {
        seq: u64,
        why: String,
    },
    /// The answer came over the frame size cap (`bytes` long, cut to `cap`):
    /// only its start is kept, which is no result.
    Oversized {
        seq: u64,
        bytes: u64,
        cap: usize,
    },
}

impl std::fmt::Display for Gone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Gone::Exited(e) => write!(f, "the server {e}"),
            Gone::Transport(why) => write!(f, "{why}"),
            Gone::Malformed { seq, why } => write!(f, "its answer (#{seq}) is malformed: {why}"),
            Gone::Oversized { seq, bytes, cap } => write!(
                f,
                "its answer (#{seq}) is {bytes} bytes, over the frame cap of {cap} bytes: only its first {cap} bytes are kept"
            ),
        }
    }
}

/// A response, as it arrived: its seq in the trace, and its bytes, copied
/// before the store could evict them (a flood after the response, on a
/// small `--max-store`, would otherwise take them before the waiting
/// request reads them).
#[derive(Debug)]
pub struct Answer {
    pub seq: u64,
    pub bytes: Option<Box<[u8]>>,
}

type Waiter = oneshot::Sender<Result<Answer, Gone>>;

#[derive(Default)]
pub struct Pending {
    inner: Mutex<PendingInner>,
}

#[derive(Default)]
struct PendingInner {
    waiting: HashMap<IdKey, Waiter>,
    gone: Option<Gone>,
}

impl Pending {
    fn lock(&self) -> std::sync::MutexGuard<'_, PendingInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Register a request before it is sent; the receiver gets the response's seq.
    pub fn register(&self, id: IdKey) -> oneshot::Receiver<Result<Answer, Gone>> {
        let (tx, rx) = oneshot::channel();
        let mut g = self.lock();
        match &g.gone {
            Some(gone) => {
                let _ = tx.send(Err(gone.clone()));
            }
            None => {
                g.waiting.insert(id, tx);
            }
        }
        rx
    }

    /// A response arrived. Responses nobody waits for (late, duplicate,
    /// unknown) are still in the trace; there is just no one to wake.
    pub fn complete(&self, id: &IdKey, answer: Answer) {
        if let Some(tx) = self.lock().waiting.remove(id) {
            let _ = tx.send(Ok(answer));
        }
    }

    /// A response that names no request (`id: null`) completes the only
    /// request in flight; with several, it cannot be told which, so none.
    pub fn complete_sole(&self, answer: Answer) {
        let mut g = self.lock();
        if g.waiting.len() != 1 {
            return;
        }
        let Some(id) = g.waiting.keys().next().cloned() else {
            return;
        };
        if let Some(tx) = g.waiting.remove(&id) {
            let _ = tx.send(Ok(answer));
        }
    }

    /// Stop waiting (cancelled or timed out).
    pub fn forget(&self, id: &IdKey) {
        self.lock().waiting.remove(id);
    }

    /// One request will never be answered; false if nobody waited for it.
    pub fn fail(&self, id: &IdKey, why: Gone) -> bool {
        match self.lock().waiting.remove(id) {
            Some(tx) => {
                let _ = tx.send(Err(why));
                true
            }
            None => false,
        }
    }

    /// An answer that names no request it can be told by fails the only
    /// request in flight (as `complete_sole` completes it); with several,
    /// none. The id of the request failed, if one was.
    pub fn fail_sole(&self, why: Gone) -> Option<IdKey> {
        let mut g = self.lock();
        if g.waiting.len() != 1 {
            return None;
        }
        let id = g.waiting.keys().next().cloned()?;
        if let Some(tx) = g.waiting.remove(&id) {
            let _ = tx.send(Err(why));
        }
        Some(id)
    }

    pub fn in_flight(&self) -> usize {
        self.lock().waiting.len()
    }

    pub fn fail_all(&self, why: Gone) {
        let mut g = self.lock();
        for (_, tx) in g.waiting.drain() {
            let _ = tx.send(Err(why.clone()));
        }
        g.gone.get_or_insert(why);
    }

    pub fn gone(&self) -> Option<Gone> {
        self.lock().gone.clone()
    }
}
