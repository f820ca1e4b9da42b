//! One host connection to the mock (stdio, or one HTTP session, or every
//! session-less 2026-07-28 request together): its messages are matched
//! against the recording and each matched exchange is played back — the
//! server's frames with the host's id and token, at the recorded pace.
//!
//! Timing: a frame recorded `d` after its request is sent `d / speed` after
//! the host's request arrived. After a server→client request the clock
//! restarts from the host's answer (the frames that followed the recorded
//! answer follow this one as they did), so a host that takes a minute to
//! answer an elicitation still sees what came after at the recorded gaps.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;
use tokio::time::Instant;

use super::era::{self, Carry};
use super::matching::Cursor;
use super::recording::{BATCH_BYTES, Recording, StepKind};
use crate::protocol::IdKey;
use crate::protocol::meta::{META, PROGRESS_TOKEN};
use crate::protocol::methods::{self, codes};
use crate::protocol::revision::Era;
use crate::protocol::sanitize::one_line;
use crate::protocol::views::LogLevel;

/// Requests played at once on one connection, at most.
pub const MAX_RUNNING: usize = 1024;
/// Frames held for a standalone stream nobody has opened yet, at most.
const MAX_QUEUED: usize = 1024;

/// How fast the recording is played: `speed` 1 as recorded, 2 twice as
/// fast, 0 everything at once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    speed: f64,
}

impl Pace {
    /// The slowest and fastest `--speed` besides 0.
    pub const MIN: f64 = 0.01;
    pub const MAX: f64 = 1000.0;

    pub fn new(speed: f64) -> Result<Pace, super::MockError> {
        if speed == 0.0 || (Pace::MIN..=Pace::MAX).contains(&speed) {
            Ok(Pace { speed })
        } else {
            Err(super::MockError::Speed { speed })
        }
    }

    /// `--speed 0`: everything at once.
    pub fn at_once(&self) -> bool {
        self.speed == 0.0
    }

    /// When a frame recorded at `t_us` is due, given that the recorded
    /// moment `anchor.0` is live moment `anchor.1`; `None`: at once.
    fn due(&self, anchor: (u64, Instant), t_us: u64) -> Option<Instant> {
        if self.at_once() {
            return None;
        }
        let secs = t_us.saturating_sub(anchor.0) as f64 / 1e6 / self.speed;
        Some(anchor.1 + Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX / 4))
    }
}

/// What goes on a host's stream: frames (several joined by `'\n'`), or
/// one large recorded frame as parts — its recorded bytes around the
/// host's id — so that it is written without being copied or re-encoded.
#[derive(Debug)]
pub enum Wire {
    Frame(Bytes),
    Parts(Vec<Bytes>),
    /// Nothing to write: answered once the host has taken what was written
    /// before it (stdio: once it has read the pipe), so what follows reaches
    /// it in a later read.
    Barrier(oneshot::Sender<()>),
}

impl Wire {
    pub fn len(&self) -> usize {
        match self {
            Wire::Frame(b) => b.len(),
            Wire::Parts(p) => p.iter().map(Bytes::len).sum(),
            Wire::Barrier(_) => 0,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The parts in order (a frame is one).
    pub fn parts(&self) -> &[Bytes] {
        match self {
            Wire::Frame(b) => std::slice::from_ref(b),
            Wire::Parts(p) => p,
            Wire::Barrier(_) => &[],
        }
    }

    /// All of it in one buffer (tests, and a stream that must copy anyway).
    pub fn to_vec(&self) -> Vec<u8> {
        self.parts().concat()
    }
}

impl From<Bytes> for Wire {
    fn from(b: Bytes) -> Wire {
        Wire::Frame(b)
    }
}

/// A standalone stream (HTTP's GET): frames wait for it, bounded, until
/// the host opens it (or opens it again); beyond the bound the oldest go.
#[derive(Default)]
pub struct Standalone {
    state: Mutex<(Option<mpsc::Sender<Wire>>, VecDeque<Wire>)>,
}

impl Standalone {
    /// The host opened the stream: what waited goes first.
    pub fn attach(&self, tx: mpsc::Sender<Wire>) {
        let mut st = lock(&self.state);
        while let Some(b) = st.1.pop_front() {
            if tx.try_send(b).is_err() {
                break;
            }
        }
        st.0 = Some(tx);
    }

    fn queue(&self, b: Wire) {
        let mut st = lock(&self.state);
        let b = match &st.0 {
            None => b,
            Some(tx) => match tx.try_send(b) {
                Ok(()) | Err(mpsc::error::TrySendError::Full(_)) => return,
                Err(mpsc::error::TrySendError::Closed(b)) => {
                    st.0 = None;
                    b
                }
            },
        };
        st.1.push_back(b);
        if st.1.len() > MAX_QUEUED {
            st.1.pop_front();
        }
    }
}

/// Where frames go: each message one frame, or several joined by `'\n'`
/// (a JSON frame never holds one).
#[derive(Clone)]
pub enum Out {
    /// A stream with a reader (stdout; an HTTP response); a send fails once
    /// the reader is gone.
    Stream(mpsc::Sender<Wire>),
    Standalone(Arc<Standalone>),
}

/// Send what `batch` holds; false when the host closed that stream (a
/// 2026-07-28 host cancels a request over HTTP so).
async fn flush(batch: &mut Option<(Out, Vec<u8>)>) -> bool {
    match batch.take() {
        Some((out, buf)) => out.send(Wire::Frame(Bytes::from(buf))).await,
        None => true,
    }
}

impl Out {
    fn same(&self, other: &Out) -> bool {
        match (self, other) {
            (Out::Stream(a), Out::Stream(b)) => a.same_channel(b),
            (Out::Standalone(a), Out::Standalone(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// Wait until the host has taken what went to this stream so far (a
    /// standalone stream: at once).
    async fn settle(&self) {
        if let Out::Stream(tx) = self {
            let (done, taken) = oneshot::channel();
            if tx.send(Wire::Barrier(done)).await.is_ok() {
                let _ = taken.await;
            }
        }
    }

    async fn send(&self, b: Wire) -> bool {
        match self {
            Out::Stream(tx) => tx.send(b).await.is_ok(),
            Out::Standalone(s) => {
                s.queue(b);
                true
            }
        }
    }
}

/// Forgets a server→client request once its playback no longer waits for
/// it (answered, or the playback was cancelled).
struct Forget<'a>(&'a Mutex<HashMap<IdKey, oneshot::Sender<()>>>, IdKey);

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        lock(self.0).remove(&self.1);
    }
}

/// What a host message was, for the transport's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handled {
    /// A request: its frames come on the stream it was handed.
    Request,
    /// A notification or an answer: nothing comes on that stream.
    Accepted,
}

pub struct Conn {
    rec: Arc<Recording>,
    pace: Pace,
    cursor: Mutex<Cursor>,
    running: Mutex<HashMap<IdKey, AbortHandle>>,
    /// What plays for host notifications (no id to cancel it by).
    background: Mutex<Vec<AbortHandle>>,
    /// Server→client requests sent, by the id the mock gave them.
    pending: Mutex<HashMap<IdKey, oneshot::Sender<()>>>,
    next_id: AtomicU64,
    /// Frames of no open request stream (stdio: stdout too).
    after: Out,
    /// The recording's era: a host of the other is served across it
    /// (`era`).
    rec_era: Option<Era>,
    /// The level a handshake host asked of a 2026-07-28 recording with
    /// `logging/setLevel`, which it did not record.
    host_level: Mutex<Option<LogLevel>>,
    /// The recorded server, as a 2026-07-28 result names it.
    server: Arc<Value>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn frame(v: &Value) -> Wire {
    Wire::Frame(Bytes::from(serde_json::to_vec(v).unwrap_or_default()))
}

/// A recorded frame written with the value at `path` put in (the host's
/// id, its progress token), without copying the frame first: a huge
/// recorded frame is held once, and written once.
fn frame_with(v: &Value, path: &[&str], with: &Value) -> Vec<u8> {
    serde_json::to_vec(&With { v, path, with }).unwrap_or_default()
}

/// `v` with `path` set to `with`, as `v[a][b] = with` would leave it.
struct With<'a> {
    v: &'a Value,
    path: &'a [&'a str],
    with: &'a Value,
}

impl serde::Serialize for With<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let Some((key, rest)) = self.path.split_first() else {
            return self.with.serialize(s);
        };
        let inner = |v| With {
            v,
            path: rest,
            with: self.with,
        };
        let empty = serde_json::Map::new();
        let m = self.v.as_object().unwrap_or(&empty);
        let mut map = s.serialize_map(None)?;
        // Keys in the order a `Map` keeps them (sorted): one not there yet
        // goes where it would be inserted.
        let mut put = false;
        for (k, x) in m {
            if !put && k.as_str() >= *key {
                put = true;
                if k != key {
                    map.serialize_entry(key, &inner(&Value::Null))?;
                } else {
                    map.serialize_entry(k, &inner(x))?;
                    continue;
                }
            }
            map.serialize_entry(k, x)?;
        }
        if !put {
            map.serialize_entry(key, &inner(&Value::Null))?;
        }
        map.end()
    }
}

fn error(id: &Value, code: i64, message: &str, data: Option<Value>) -> Wire {
    let mut e = json!({"code": code, "message": message});
    if let Some(d) = data {
        e["data"] = d;
    }
    frame(&json!({"jsonrpc": "2.0", "id": id, "error": e}))
}

impl Conn {
    pub fn new(rec: Arc<Recording>, pace: Pace, after: Out) -> Arc<Conn> {
        Conn::for_host(rec, pace, after, 0)
    }

    /// The connection of the `k`-th host (from 0): it is served the `k`-th
    /// recorded host session first (`matching::Cursor::for_host`).
    pub fn for_host(rec: Arc<Recording>, pace: Pace, after: Out, k: usize) -> Arc<Conn> {
        Arc::new(Conn {
            cursor: Mutex::new(Cursor::for_host(&rec, k)),
            rec_era: era::of_recording(&rec),
            server: Arc::new(era::server_info(&rec)),
            rec,
            pace,
            running: Mutex::new(HashMap::new()),
            background: Mutex::new(Vec::new()),
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            after,
            host_level: Mutex::new(None),
        })
    }

    /// Stop every playback (the host went away).
    pub fn stop(&self) {
        for (_, h) in lock(&self.running).drain() {
            h.abort();
        }
        for h in lock(&self.background).drain(..) {
            h.abort();
        }
        lock(&self.pending).clear();
    }

    /// Handle one message from the host; a request's frames go to `reply`.
    pub async fn handle(self: &Arc<Self>, msg: Value, reply: Out) -> Handled {
        let Value::Object(m) = msg else {
            reply
                .send(error(
                    &Value::Null,
                    codes::INVALID_REQUEST,
                    "expected a JSON-RPC message object",
                    None,
                ))
                .await;
            return Handled::Request;
        };
        let id = m.get("id").filter(|i| !i.is_null()).cloned();
        if id
            .as_ref()
            .is_some_and(|i| !(i.is_string() || i.is_number()))
        {
            // JSON-RPC ids are strings or numbers: nothing can answer it.
            let why = "Invalid Request: id must be a string or a number";
            reply
                .send(error(&Value::Null, codes::INVALID_REQUEST, why, None))
                .await;
            return Handled::Request;
        }
        let params = m.get("params");
        match (m.get("method").and_then(Value::as_str), id) {
            (Some(method), Some(id)) => {
                self.request(method, id, params, reply).await;
                Handled::Request
            }
            (Some(method), None) => {
                self.notification(method, params);
                Handled::Accepted
            }
            (None, Some(id)) if m.contains_key("method") => {
                let why = "Invalid Request: method must be a string";
                reply
                    .send(error(&id, codes::INVALID_REQUEST, why, None))
                    .await;
                Handled::Request
            }
            (None, Some(id)) => {
                if let Some(tx) = lock(&self.pending).remove(&IdKey::from_value(&id)) {
                    let _ = tx.send(());
                }
                Handled::Accepted
            }
            (None, None) => Handled::Accepted,
        }
    }

    async fn request(
        self: &Arc<Self>,
        method: &str,
        id: Value,
        params: Option<&Value>,
        reply: Out,
    ) {
        let found = lock(&self.cursor).take(&self.rec, true, method, params);
        let ex = match found {
            Ok(ex) => ex,
            Err(_) if let Some(result) = self.across(method, params) => {
                reply
                    .send(frame(
                        &json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    ))
                    .await;
                return;
            }
            // A liveness check the recording happens not to have.
            Err(_) if method == methods::PING => {
                reply
                    .send(frame(&json!({"jsonrpc": "2.0", "id": id, "result": {}})))
                    .await;
                return;
            }
            // A recording of `call` holds the call, not a listing: a host
            // that lists tools first gets the tools the recording calls.
            Err(_)
                if method == methods::TOOLS_LIST
                    && let Some(tools) = self.rec.called_tools() =>
            {
                eprintln!(
                    "[mock] tools/list answered with the tools the recording calls (it holds no listing)"
                );
                let mut result = serde_json::Map::new();
                result.insert("tools".into(), Value::Array(tools));
                // Shaped as the host's era has it (the caching hints).
                let _ = era::shape(era::of_request(params), method, &mut result, &self.server);
                reply
                    .send(frame(
                        &json!({"jsonrpc": "2.0", "id": id, "result": result}),
                    ))
                    .await;
                return;
            }
            Err(u) => {
                let why = u
                    .message
                    .strip_prefix("mcpscope mock: ")
                    .unwrap_or(&u.message);
                eprintln!("[mock] refused a request: {}", one_line(why));
                reply
                    .send(error(&id, u.code, &u.message, Some(u.data)))
                    .await;
                return;
            }
        };
        let token = params
            .and_then(|p| p.get(META))
            .and_then(|m| m.get(PROGRESS_TOKEN))
            .cloned();
        let carry = self.carry(method, params);
        let arrived = Instant::now();
        let refused = {
            // Spawned under the lock, so the task cannot finish (and remove
            // itself) before it is listed.
            let mut running = lock(&self.running);
            if running.len() >= MAX_RUNNING {
                Some(id.clone())
            } else {
                let key = IdKey::from_value(&id);
                let task = tokio::spawn(self.clone().play(
                    ex,
                    Some(id),
                    token,
                    carry,
                    reply.clone(),
                    arrived,
                ));
                running.insert(key, task.abort_handle());
                None
            }
        };
        if let Some(id) = refused {
            let why = format!("mcpscope mock: {MAX_RUNNING} requests are in flight already");
            reply
                .send(error(&id, codes::INTERNAL_ERROR, &why, None))
                .await;
        }
    }

    fn notification(self: &Arc<Self>, method: &str, params: Option<&Value>) {
        if method == methods::CANCELLED {
            if let Some(id) = params.and_then(|p| p.get("requestId"))
                && let Some(h) = lock(&self.running).remove(&IdKey::from_value(id))
            {
                h.abort();
            }
            return;
        }
        // Notifications get no error: one the recording lacks is ignored.
        let found = lock(&self.cursor).take(&self.rec, false, method, params);
        if let Ok(ex) = found
            && !self.rec.exchanges[ex].steps.is_empty()
        {
            let mut background = lock(&self.background);
            background.retain(|h| !h.is_finished());
            if background.len() < MAX_RUNNING {
                let play =
                    self.clone()
                        .play(ex, None, None, None, self.after.clone(), Instant::now());
                background.push(tokio::spawn(play).abort_handle());
            }
        }
    }

    /// The answer to a handshake message of the other era than the
    /// recording's (and to the `logging/setLevel` a handshake host sends a
    /// 2026-07-28 recording), which the recording cannot hold.
    fn across(&self, method: &str, params: Option<&Value>) -> Option<Value> {
        match (self.rec_era?, method) {
            (Era::Stateless, methods::INITIALIZE) => {
                eprintln!(
                    "[mock] a host of the initialize handshake is served a 2026-07-28 recording (its results lose resultType; an input_required round cannot be carried over)"
                );
                Some(era::initialize_result(&self.rec, params))
            }
            (Era::Stateless, methods::SET_LEVEL) => {
                let level = params
                    .and_then(|p| p.get("level"))
                    .and_then(Value::as_str)
                    .and_then(|l| l.parse().ok());
                *lock(&self.host_level) = level;
                Some(json!({}))
            }
            (Era::Handshake, methods::SERVER_DISCOVER) => {
                eprintln!(
                    "[mock] a 2026-07-28 host is served a recording of the initialize handshake (logs only at the level each request asks)"
                );
                Some(era::discover_result(&self.rec))
            }
            _ => None,
        }
    }

    /// How a host's request is carried across eras: `None` when the host
    /// speaks the recording's.
    fn carry(&self, method: &str, params: Option<&Value>) -> Option<Carry> {
        let to = era::of_request(params);
        if self.rec_era? == to {
            return None;
        }
        Some(match to {
            Era::Stateless => Carry {
                to,
                method: method.to_string(),
                server: self.server.clone(),
                level: era::requested_level(params),
                all_logs: false,
            },
            Era::Handshake => {
                let level = *lock(&self.host_level);
                Carry {
                    to,
                    method: method.to_string(),
                    server: self.server.clone(),
                    level,
                    all_logs: level.is_none(),
                }
            }
        })
    }

    /// Play exchange `ex` for the host's request `id` (with progress token
    /// `token`, carried to the host's era by `carry`), its own frames going
    /// to `stream`.
    #[allow(clippy::too_many_arguments)]
    async fn play(
        self: Arc<Self>,
        ex: usize,
        id: Option<Value>,
        token: Option<Value>,
        carry: Option<Carry>,
        stream: Out,
        arrived: Instant,
    ) {
        let rec = self.rec.clone();
        let exchange = &rec.exchanges[ex];
        let mut anchor = (exchange.t_us, arrived);
        let mut stream = Some(stream);
        // Frames due together go out in one write (lines joined by '\n'),
        // as a server's one write came: a host reads them in one go, and
        // one that stops at the response may miss those after it, as then.
        let mut batch: Option<(Out, Vec<u8>)> = None;
        let mut cancelled = false;
        // Whether a frame went to the host before the response: at speed 0
        // the response then waits until the host has taken it, so that a
        // host that drops progress read together with its response (the
        // TypeScript SDK forgets the call's progress handler as it reads
        // the response) still sees every notification that preceded it.
        let mut sent = false;
        for step in &exchange.steps {
            if let Some(due) = self.pace.due(anchor, step.t_us)
                && due > Instant::now()
            {
                if !flush(&mut batch).await {
                    cancelled = true;
                    break;
                }
                tokio::time::sleep_until(due).await;
            }
            let out = match &stream {
                Some(s) if !step.standalone => s,
                _ => &self.after,
            };
            let mut answered = None;
            let response = matches!(step.kind, StepKind::Response(_) | StepKind::Reply { .. });
            if response && sent && self.pace.at_once() {
                if !flush(&mut batch).await {
                    cancelled = true;
                    break;
                }
                out.settle().await;
            }
            let host_id = id.as_ref().unwrap_or(&Value::Null);
            let bytes = match &step.kind {
                StepKind::Response(v) => match carry.as_ref().map(|c| c.response(v)) {
                    None => frame_with(v, &["id"], host_id),
                    Some(Ok(v)) => frame_with(&v, &["id"], host_id),
                    Some(Err(why)) => {
                        eprintln!("[mock] {}", why.trim_start_matches("mcpscope mock: "));
                        error(host_id, codes::INTERNAL_ERROR, why, None).to_vec()
                    }
                },
                StepKind::Progress(v) => {
                    // A server sends no progress for a request without a token.
                    let Some(token) = &token else { continue };
                    frame_with(v, &["params", PROGRESS_TOKEN], token)
                }
                StepKind::Request {
                    frame: v,
                    answer_t_us,
                } => {
                    let mine = json!(format!(
                        "mock-{}",
                        self.next_id.fetch_add(1, Ordering::Relaxed)
                    ));
                    let (tx, rx) = oneshot::channel();
                    let key = IdKey::from_value(&mine);
                    lock(&self.pending).insert(key.clone(), tx);
                    let forget = Forget(&self.pending, key);
                    answered = Some((rx, forget, answer_t_us.unwrap_or(step.t_us)));
                    frame_with(v, &["id"], &mine)
                }
                StepKind::Frame(v) if carry.as_ref().is_some_and(|c| !c.keeps(v)) => continue,
                StepKind::Frame(v) => serde_json::to_vec(v).unwrap_or_default(),
                StepKind::Raw(b) if b.len() >= BATCH_BYTES => {
                    // Sent as it is kept (a shared buffer), never copied.
                    if !flush(&mut batch).await || !out.send(Wire::Frame(b.clone())).await {
                        cancelled = true;
                        break;
                    }
                    sent = true;
                    continue;
                }
                StepKind::Reply { bytes, id: at } => {
                    // The recorded bytes around the host's id, as parts.
                    let host =
                        serde_json::to_vec(id.as_ref().unwrap_or(&Value::Null)).unwrap_or_default();
                    let parts = vec![
                        bytes.slice(..at.start),
                        Bytes::from(host),
                        bytes.slice(at.end..),
                    ];
                    if !flush(&mut batch).await || !out.send(Wire::Parts(parts)).await {
                        cancelled = true;
                        break;
                    }
                    // The request's stream ends with its response.
                    stream = None;
                    continue;
                }
                StepKind::Raw(b) => b.to_vec(),
            };
            sent = true;
            match &mut batch {
                Some((to, buf)) if to.same(out) && buf.len() + bytes.len() < BATCH_BYTES => {
                    buf.push(b'\n');
                    buf.extend_from_slice(&bytes);
                }
                _ => {
                    if !flush(&mut batch).await {
                        cancelled = true;
                        break;
                    }
                    batch = Some((out.clone(), bytes));
                }
            }
            if matches!(step.kind, StepKind::Response(_)) {
                // The request's stream ends with its response.
                stream = None;
            }
            if let Some((rx, _forget, recorded)) = answered {
                if !flush(&mut batch).await {
                    cancelled = true;
                    break;
                }
                let _ = rx.await;
                anchor = (recorded, Instant::now());
            }
        }
        if !cancelled {
            flush(&mut batch).await;
        }
        if let Some(id) = &id {
            lock(&self.running).remove(&IdKey::from_value(id));
        }
    }
}

#[cfg(test)]
mod tests;
