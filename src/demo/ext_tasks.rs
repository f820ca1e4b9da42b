//! The demo server's side of the tasks extension (`io.modelcontextprotocol/tasks`,
//! SEP-2663, 2026-07-28): `batch_job` answers a request that declared the
//! extension with a task handle (`resultType: "task"`), its work goes on in
//! the background, and `tasks/get`, `tasks/update` and `tasks/cancel` follow
//! it. The table is the server's, not a request's: stateless requests over
//! HTTP each get their own context, and a task must outlive the request
//! that created it.
//!
//! The extension's MUSTs implemented here are quoted where they apply.

use std::collections::VecDeque;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value, json};
use tokio::sync::oneshot;
use tokio::task::AbortHandle;

use super::era::{self, Modern};
use super::listen::Watchers;
use super::out::Out;
use super::stateless::MISSING_CAPABILITY;
use super::tools::batch::{self, Plan};
use super::tools::{Args, pause};
use super::{INVALID_PARAMS, METHOD_NOT_FOUND};

use crate::protocol::meta::ResultType;
use crate::protocol::task::{EXTENSION, TaskStatus};
/// Tasks kept; the oldest finished one is forgotten first ("Servers are not
/// required to retain tasks indefinitely").
const KEPT: usize = 256;
/// The `ttlMs` every task announces.
const TTL_MS: u64 = 3_600_000;

/// Did this request declare the extension in its per-request capabilities?
pub fn declared(era: &Option<Modern>) -> bool {
    era.as_ref()
        .and_then(|m| m.capabilities.as_ref())
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(EXTENSION))
        .is_some_and(Value::is_object)
}

/// What `server/discover` adds to the capabilities.
pub fn capability() -> Value {
    json!({EXTENSION: {}})
}

struct Rec {
    id: String,
    status: TaskStatus,
    message: Option<String>,
    created: String,
    updated: String,
    poll_ms: u64,
    /// The outstanding input request: its key, the request, and where its
    /// answer goes.
    input: Option<(String, Value, oneshot::Sender<Value>)>,
    /// Keys ever issued: "Each request key in `inputRequests` MUST be unique
    /// over the lifetime of a single task."
    issued: u64,
    result: Option<Value>,
    error: Option<Value>,
    abort: Option<AbortHandle>,
}

impl Rec {
    fn terminal(&self) -> bool {
        self.status.is_terminal()
    }

    /// The `DetailedTask` for the current status.
    fn detailed(&self) -> Map<String, Value> {
        let mut t = Map::new();
        t.insert("taskId".into(), json!(self.id));
        t.insert("status".into(), json!(self.status.as_str()));
        if let Some(m) = &self.message {
            t.insert("statusMessage".into(), json!(m));
        }
        t.insert("createdAt".into(), json!(self.created));
        t.insert("lastUpdatedAt".into(), json!(self.updated));
        t.insert("ttlMs".into(), json!(TTL_MS));
        t.insert("pollIntervalMs".into(), json!(self.poll_ms));
        match self.status {
            // "The `inputRequests` field MUST contain all outstanding
            // requests from the server to the client".
            TaskStatus::InputRequired => {
                let mut reqs = Map::new();
                if let Some((key, req, _)) = &self.input {
                    reqs.insert(key.clone(), req.clone());
                }
                t.insert("inputRequests".into(), Value::Object(reqs));
            }
            TaskStatus::Completed => {
                t.insert("result".into(), self.result.clone().unwrap_or(json!({})));
            }
            TaskStatus::Failed => {
                t.insert("error".into(), self.error.clone().unwrap_or(json!({})));
            }
            _ => {}
        }
        t
    }
}

/// The server's tasks, oldest first.
pub struct Store {
    tasks: Mutex<VecDeque<Rec>>,
    /// Listen streams watching tasks (`taskIds`), told of every change.
    watchers: Arc<Watchers>,
    next: AtomicU64,
    /// Secret keys of this process: ids are keyed hashes of a counter, so
    /// they cannot be guessed from each other ("Servers MUST generate them
    /// with sufficient entropy that a third party cannot enumerate or guess
    /// them").
    keys: [RandomState; 2],
}

impl Store {
    pub fn new(watchers: Arc<Watchers>) -> Self {
        Store {
            tasks: Default::default(),
            watchers,
            next: Default::default(),
            keys: Default::default(),
        }
    }

    /// Is there a task with this id?
    pub fn knows(&self, id: &str) -> bool {
        self.lock().iter().any(|r| r.id == id)
    }

    /// Give `send` the task's complete state as it is now, read and sent
    /// under the tasks' lock: a stream that starts watching gets it at once
    /// (a change made before it opened is not missed), and no change
    /// announced meanwhile can reach the stream before this older state.
    pub fn tell_current(&self, id: &str, send: impl FnOnce(Map<String, Value>)) {
        let all = self.lock();
        if let Some(r) = all.iter().find(|r| r.id == id) {
            send(r.detailed());
        }
    }

    /// Tell the streams watching this task its complete state now.
    fn announce(&self, id: &str) {
        if !self.watchers.watches_task(id) {
            return;
        }
        if let Some(task) = self.with(id, |r| r.detailed()) {
            self.watchers.task_changed(id, &task);
        }
    }

    fn lock(&self) -> MutexGuard<'_, VecDeque<Rec>> {
        self.tasks.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn fresh_id(&self) -> String {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let [a, b] = &self.keys;
        format!("{:016x}{:016x}", a.hash_one(n), b.hash_one(n))
    }

    fn with<T>(&self, id: &str, f: impl FnOnce(&mut Rec) -> T) -> Option<T> {
        self.lock().iter_mut().find(|r| r.id == id).map(f)
    }

    /// Move a task on, unless it ended already (a terminal status is final).
    fn set(&self, id: &str, status: TaskStatus, message: Option<String>) {
        let moved = self.with(id, |r| {
            if r.terminal() {
                return false;
            }
            r.status = status;
            r.message = message;
            r.updated = crate::format::rfc3339_now();
            true
        });
        if moved == Some(true) {
            self.announce(id);
        }
    }

    fn insert(&self, rec: Rec) {
        let mut tasks = self.lock();
        if tasks.len() >= KEPT {
            let victim = tasks.iter().position(Rec::terminal).unwrap_or(0);
            if let Some(old) = tasks.remove(victim)
                && let Some(a) = old.abort
            {
                a.abort();
            }
        }
        tasks.push_back(rec);
    }
}

/// `tools/call` of `batch_job` from a request that declared the extension:
/// create the task, answer with its handle, run it in the background.
pub fn start(
    store: &Arc<Store>,
    out: &Out,
    id: &Value,
    args: &Map<String, Value>,
    era: &Option<Modern>,
) {
    let plan = match Plan::parse(&Args(args)) {
        Ok(p) => p,
        Err(e) => {
            let result = super::tools::Outcome::error(e.0).into_result();
            return out.respond(id, era::complete(era, result));
        }
    };
    let now = crate::format::rfc3339_now();
    let task_id = store.fresh_id();
    let rec = Rec {
        id: task_id.clone(),
        status: TaskStatus::Working,
        message: Some(plan.status(0)),
        created: now.clone(),
        updated: now,
        poll_ms: plan.poll_ms,
        input: None,
        issued: 0,
        result: None,
        error: None,
        abort: None,
    };
    let mut handle = rec.detailed();
    // "A server MUST NOT return CreateTaskResult until the task is durably
    // created — that is, until a tasks/get for the returned taskId would
    // resolve": it is in the table before the handle is sent.
    store.insert(rec);
    let worker = tokio::spawn(work(store.clone(), task_id.clone(), plan));
    store.with(&task_id, |r| r.abort = Some(worker.abort_handle()));
    // "Servers MUST set resultType to "task" when returning a CreateTaskResult".
    handle.insert(ResultType::KEY.into(), json!(ResultType::Task.as_str()));
    out.respond(id, era::complete(era, Value::Object(handle)));
}

/// The task's work: the plan's steps, the confirmation asked once as an
/// `inputRequests` entry, then the result (or the error).
async fn work(store: Arc<Store>, id: String, plan: Plan) {
    let mut note = None;
    for step in 1..=plan.steps {
        if plan.confirm && step == plan.ask_before() {
            let (tx, rx) = oneshot::channel();
            store.with(&id, |r| {
                r.issued += 1;
                let key = format!("confirm-{}", r.issued);
                let req = json!({"method": "elicitation/create", "params": batch::confirm_request(&plan)});
                r.input = Some((key, req, tx));
            });
            store.set(
                &id,
                TaskStatus::InputRequired,
                Some("waiting for confirmation".into()),
            );
            // A dropped sender (the task forgotten) ends the work.
            let Ok(answer) = rx.await else { return };
            let (go, n) = batch::confirmed(&answer);
            if !go {
                let result = batch::outcome(&plan, step - 1, None).into_result();
                return finish(&store, &id, Ok(result), "stopped: not confirmed");
            }
            note = n;
            store.set(&id, TaskStatus::Working, Some(plan.status(step - 1)));
        }
        pause(plan.step_ms).await;
        store.set(&id, TaskStatus::Working, Some(plan.status(step)));
    }
    if plan.fail {
        // "failed: The request failed due to a JSON-RPC error during
        // execution. The task will include the `error` field".
        return finish(&store, &id, Err(batch::failure(&plan)), "failed");
    }
    let result = batch::outcome(&plan, plan.steps, note).into_result();
    finish(&store, &id, Ok(result), "done");
}

fn finish(store: &Store, id: &str, end: Result<Value, Value>, message: &str) {
    let moved = store.with(id, |r| {
        if r.terminal() {
            return false;
        }
        // "Errors within the context of a protocol method result MUST use
        // the `completed` status with the error details in the `result`
        // field" — a tool error (isError) is a completed task.
        match end {
            Ok(result) => {
                r.status = TaskStatus::Completed;
                r.result = Some(result);
            }
            Err(error) => {
                r.status = TaskStatus::Failed;
                r.error = Some(error);
            }
        }
        r.message = Some(message.into());
        r.updated = crate::format::rfc3339_now();
        r.abort = None;
        true
    });
    if moved == Some(true) {
        store.announce(id);
    }
}

/// `tasks/get`, `tasks/update`, `tasks/cancel` of a stateless request;
/// false when `method` is none of them.
pub fn request(
    store: &Store,
    out: &Out,
    id: &Value,
    method: &str,
    params: &Map<String, Value>,
    era: &Option<Modern>,
) -> bool {
    if !matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel") {
        return false;
    }
    // "Servers MUST return this error for non-declaring clients issuing
    // tasks/get, tasks/update, and tasks/cancel requests."
    if !declared(era) {
        out.error_with(
            id,
            MISSING_CAPABILITY,
            "Missing required client capability",
            json!({"requiredCapabilities": {"extensions": capability()}}),
        );
        return true;
    }
    let Some(task_id) = params.get("taskId").and_then(Value::as_str) else {
        out.error(
            id,
            INVALID_PARAMS,
            "Invalid params: taskId must be a string",
        );
        return true;
    };
    // "Invalid or nonexistent taskId: -32602 (Invalid params) — Servers
    // MUST return this error for tasks/get" (and SHOULD for the others).
    let not_found = || {
        out.error(
            id,
            INVALID_PARAMS,
            "Failed to retrieve task: Task not found",
        )
    };
    // An acknowledgement (empty result) for a known task, then its new
    // state to the streams watching it if it moved; "not found" otherwise.
    let ack = |known: Option<bool>| match known {
        Some(moved) => {
            out.respond(id, era::complete(era, json!({})));
            if moved {
                store.announce(task_id);
            }
        }
        None => not_found(),
    };
    match method {
        "tasks/get" => match store.with(task_id, |r| r.detailed()) {
            // "The resultType field MUST be set to "complete" on this object".
            Some(task) => out.respond(id, era::complete(era, Value::Object(task))),
            None => not_found(),
        },
        "tasks/update" => {
            let Some(Value::Object(responses)) = params.get("inputResponses") else {
                out.error(
                    id,
                    INVALID_PARAMS,
                    "Invalid params: inputResponses must be an object",
                );
                return true;
            };
            let known = store.with(task_id, |r| {
                // "A server SHOULD ignore any inputResponses responses mapped
                // to a key that is not currently outstanding for the task".
                let outstanding = r.input.as_ref().map(|(k, ..)| k.clone());
                if let Some(key) = outstanding
                    && let Some(answer) = responses.get(&key)
                    && let Some((_, _, tx)) = r.input.take()
                {
                    let _ = tx.send(answer.clone());
                    // The answer is in: the task works again (the worker
                    // would say so a moment later; the ack is eventually
                    // consistent either way).
                    r.status = TaskStatus::Working;
                    r.message = Some("confirmation received".into());
                    r.updated = crate::format::rfc3339_now();
                    return true;
                }
                false
            });
            // "On success, the server MUST acknowledge the request with an
            // empty result."
            ack(known);
        }
        "tasks/cancel" => {
            let known = store.with(task_id, |r| {
                if !r.terminal() {
                    if let Some(a) = r.abort.take() {
                        a.abort();
                    }
                    r.input = None;
                    r.status = TaskStatus::Cancelled;
                    r.message = Some("cancelled by the client".into());
                    r.updated = crate::format::rfc3339_now();
                    return true;
                }
                false
            });
            ack(known);
        }
        _ => {
            out.error(id, METHOD_NOT_FOUND, &format!("Method not found: {method}"));
        }
    }
    true
}
