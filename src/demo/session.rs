//! State shared between the stdin loop and the call tasks of one demo-server
//! session: the client's log level and capabilities, the calls in flight
//! (so `notifications/cancelled` can find them) and the server→client
//! requests waiting for the client's answer.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tokio::sync::oneshot;
use tokio::task::AbortHandle;

use super::out::{Gate, Out};

/// Syslog severities (RFC 5424), in filtering order: the protocol's own.
pub use crate::protocol::views::LogLevel as Level;

/// What the client sent back for a server→client request.
pub type Reply = Result<Value, Value>;

struct InFlight {
    gate: Arc<Gate>,
    abort: Option<AbortHandle>,
}

pub struct Session {
    pub out: Out,
    /// What the server was started with (`--conformance`).
    pub options: super::Options,
    min_level: AtomicU8,
    elicitation: AtomicBool,
    next_request: AtomicU64,
    waiting: Mutex<HashMap<String, oneshot::Sender<Reply>>>,
    calls: Mutex<HashMap<String, InFlight>>,
    /// Tasks of the `--conformance` task fixtures.
    pub tasks: super::conformance::tasks::TaskTable,
    /// Tasks of the tasks extension: the server's, shared by the contexts
    /// of stateless requests.
    pub ext_tasks: Arc<super::ext_tasks::Store>,
    /// Resources this session subscribed to (`resources/subscribe`).
    pub subscribed: super::conformance::watch::Subscribed,
    /// The server's listen streams, shared like `ext_tasks` (which tells
    /// them of task changes).
    pub watchers: Arc<super::listen::Watchers>,
}

/// What outlives one stateless request: the server's, shared by the
/// contexts of its requests.
#[derive(Clone)]
pub struct Shared {
    pub ext_tasks: Arc<super::ext_tasks::Store>,
    pub watchers: Arc<super::listen::Watchers>,
}

impl Default for Shared {
    fn default() -> Self {
        let watchers: Arc<super::listen::Watchers> = Default::default();
        Shared {
            ext_tasks: Arc::new(super::ext_tasks::Store::new(watchers.clone())),
            watchers,
        }
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking call task must not take the whole server down with it.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Request ids are compared by their JSON text so `7` and `"7"` stay distinct.
pub fn id_key(id: &Value) -> String {
    id.to_string()
}

impl Session {
    pub fn new(out: Out, options: super::Options) -> Arc<Self> {
        Self::with_shared(out, options, Shared::default())
    }

    /// A session whose extension tasks and listen streams are `shared`.
    pub fn with_shared(out: Out, options: super::Options, shared: Shared) -> Arc<Self> {
        Arc::new(Session {
            out,
            options,
            // Until the client picks a level it gets everything.
            min_level: AtomicU8::new(Level::Debug as u8),
            elicitation: AtomicBool::new(false),
            next_request: AtomicU64::new(1),
            waiting: Mutex::new(HashMap::new()),
            calls: Mutex::new(HashMap::new()),
            tasks: Default::default(),
            ext_tasks: shared.ext_tasks,
            subscribed: Default::default(),
            watchers: shared.watchers,
        })
    }

    pub fn set_min_level(&self, level: Level) {
        self.min_level.store(level as u8, Ordering::Relaxed);
    }

    pub fn logs(&self, level: Level) -> bool {
        level as u8 >= self.min_level.load(Ordering::Relaxed)
    }

    /// Remember what the client said it can do in `initialize`.
    pub fn set_client_capabilities(&self, caps: Option<&Value>) {
        let form = match caps.and_then(|c| c.get("elicitation")) {
            // 2025-11-25 split elicitation into modes; an empty object still
            // means form mode, which is the only one the wizard uses.
            Some(Value::Object(e)) => e.is_empty() || e.contains_key("form"),
            Some(Value::Bool(b)) => *b,
            Some(Value::Null) | None => false,
            Some(_) => true,
        };
        self.elicitation.store(form, Ordering::Relaxed);
    }

    pub fn supports_elicitation(&self) -> bool {
        self.elicitation.load(Ordering::Relaxed)
    }

    /// A fresh id for a server→client request; the `srv-` prefix keeps it
    /// apart from whatever ids the client uses.
    pub fn next_request_id(&self) -> String {
        format!("srv-{}", self.next_request.fetch_add(1, Ordering::Relaxed))
    }

    pub fn expect_reply(&self, id: &str) -> oneshot::Receiver<Reply> {
        let (tx, rx) = oneshot::channel();
        lock(&self.waiting).insert(id.to_owned(), tx);
        rx
    }

    /// Stop waiting for `id`; true if it was still unanswered.
    pub fn forget_reply(&self, id: &str) -> bool {
        lock(&self.waiting).remove(id).is_some()
    }

    /// Hand a client response to the task waiting for it; false if nobody is.
    pub fn deliver_reply(&self, id: &Value, reply: Reply) -> bool {
        let Some(id) = id.as_str() else { return false };
        match lock(&self.waiting).remove(id) {
            Some(tx) => tx.send(reply).is_ok(),
            None => false,
        }
    }

    /// Register a call under its request id; `None` if that id is already
    /// in flight (the client reused an id).
    pub fn begin_call(&self, key: &str) -> Option<Arc<Gate>> {
        let mut calls = lock(&self.calls);
        if calls.contains_key(key) {
            return None;
        }
        let gate = Gate::new();
        calls.insert(
            key.to_owned(),
            InFlight {
                gate: gate.clone(),
                abort: None,
            },
        );
        Some(gate)
    }

    /// Attach the task to its registration, unless the task already finished.
    pub fn attach_task(&self, key: &str, gate: &Arc<Gate>, abort: AbortHandle) {
        if let Some(call) = lock(&self.calls).get_mut(key)
            && Arc::ptr_eq(&call.gate, gate)
        {
            call.abort = Some(abort);
        }
    }

    pub fn end_call(&self, key: &str, gate: &Arc<Gate>) {
        let mut calls = lock(&self.calls);
        if calls.get(key).is_some_and(|c| Arc::ptr_eq(&c.gate, gate)) {
            calls.remove(key);
        }
    }

    /// Silence and stop a call; false if no such call is running.
    pub fn cancel_call(&self, key: &str) -> bool {
        let Some(call) = lock(&self.calls).remove(key) else {
            return false;
        };
        // Close first: from here on the task cannot enqueue anything, even if
        // it is mid-poll on another worker when the abort lands.
        call.gate.close();
        if let Some(abort) = call.abort {
            abort.abort();
        }
        true
    }

    pub fn cancel_all(&self) {
        let calls: Vec<InFlight> = lock(&self.calls).drain().map(|(_, c)| c).collect();
        for call in calls {
            call.gate.close();
            if let Some(abort) = call.abort {
                abort.abort();
            }
        }
        lock(&self.waiting).clear();
    }
}
