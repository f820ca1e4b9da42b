//! `subscriptions/listen`, the stateless era's change stream: a request
//! whose response ends the stream, its notifications flowing until then,
//! the first of them `notifications/subscriptions/acknowledged` with the
//! filter the server honours. Two kinds are opened here: the list-change
//! stream `--listen` asks for at start, and the resource stream the
//! Resources tab keeps for the URIs the user subscribed to. A filter cannot
//! be changed on an open stream, so a new set of URIs opens a new stream
//! and closes the old one (over HTTP by closing its response stream, over
//! stdio with `notifications/cancelled`).

use super::options::Limits;
use super::{ClientError, Reply, Session};
use crate::event::Event;
use crate::protocol::methods;
use crate::protocol::{IdKey, views::InitializeResult};
use crate::trace::{Dir, EventRef, Trace};
use serde_json::{Value, json};
use std::time::Duration;

/// How long start-up waits for `--listen`'s acknowledgement before going on
/// (the stream stays open either way).
const START_ACK_WAIT: Duration = Duration::from_secs(2);
/// How long a resource stream's acknowledgement is waited for before the
/// subscription counts as refused.
const RESOURCE_ACK_WAIT: Duration = Duration::from_secs(5);
/// URIs one resource stream asks for; more are refused before sending.
pub const MAX_RESOURCE_URIS: usize = 256;
/// How long a task's stream acknowledgement is waited for before the task
/// is followed by polling alone.
const TASK_ACK_WAIT: Duration = Duration::from_secs(1);

/// The resource stream in use: its request id and the task awaiting its end.
pub(super) struct ResourceStream {
    id: IdKey,
    task: tokio::task::JoinHandle<()>,
}

/// A place in the trace, and the wake-ups for what comes after it.
struct Cursor {
    seen: u64,
    changed: tokio::sync::watch::Receiver<u64>,
}

impl Cursor {
    /// From the end of the trace now.
    fn at_end(trace: &Trace) -> Cursor {
        let changed = trace.subscribe();
        Cursor {
            seen: trace.read().next_seq(),
            changed,
        }
    }

    /// The first event from here `pick` takes (the cursor moves past it),
    /// waiting for more while there is none; `None` once `stop` says so
    /// after a look that found nothing, or the trace is gone.
    async fn next<T>(
        &mut self,
        trace: &Trace,
        stop: impl Fn() -> bool,
        mut pick: impl FnMut(&EventRef<'_>) -> Option<T>,
    ) -> Option<T> {
        loop {
            {
                let store = trace.read();
                let end = store.next_seq();
                let hit = store
                    .range(self.seen.max(store.first_seq()), end)
                    .find_map(|e| pick(&e).map(|t| (e.seq, t)));
                if let Some((seq, t)) = hit {
                    self.seen = seq + 1;
                    return Some(t);
                }
                self.seen = end;
            }
            if stop() || self.changed.changed().await.is_err() {
                return None;
            }
        }
    }
}

/// The string array `key` of an acknowledgement's honoured filter.
fn granted(honoured: Option<&Value>, key: &str) -> Option<Vec<String>> {
    let list = honoured?.get(key)?.as_array()?;
    Some(
        list.iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
    )
}

/// A listen stream carrying one task's status (`taskIds`): each
/// `notifications/tasks` for it is the task's complete state.
pub(super) struct TaskPushes {
    id: IdKey,
    task: tokio::task::JoinHandle<()>,
    task_id: String,
    at: Cursor,
}

impl TaskPushes {
    /// The next status pushed for the task, as a reply of its own (the
    /// notification's params are the task, as a `tasks/get` answer is).
    pub(super) async fn next(&mut self, trace: &Trace) -> Reply {
        let task_id = self.task_id.as_str();
        let pushed = self
            .at
            .next(
                trace,
                || false,
                |e| {
                    if e.method != Some(methods::TASKS_NOTIFY) || e.dir != Dir::In {
                        return None;
                    }
                    let raw = e.frame().params?.get();
                    let result: Value = serde_json::from_str(raw).ok()?;
                    (result.get("taskId").and_then(Value::as_str) == Some(task_id)).then(|| Reply {
                        seq: e.seq,
                        result,
                        raw: raw.into(),
                        out_of_range: Default::default(),
                    })
                },
            )
            .await;
        match pushed {
            Some(r) => r,
            // The trace is gone: nothing will be pushed any more.
            None => std::future::pending().await,
        }
    }
}

/// A stream opened: its id, and the acknowledgement's `notifications`
/// (`None` when none came in time).
struct Opened {
    id: IdKey,
    task: tokio::task::JoinHandle<()>,
    honoured: Option<Value>,
}

impl Session {
    /// With `--listen`: open the change-notification stream the stateless
    /// era uses instead of the GET stream, for what the server can announce.
    ///
    /// Returns once the server acknowledged the stream (or it ended, or the
    /// wait ran out), so no change announced after start-up can be missed.
    pub(super) async fn maybe_listen(&self, server: &InitializeResult) {
        if !self.opts.listen {
            return;
        }
        let caps = &server.capabilities;
        let has = |p: &str| caps.pointer(p).and_then(Value::as_bool) == Some(true);
        let filter = json!({
            "toolsListChanged": has("/tools/listChanged"),
            "promptsListChanged": has("/prompts/listChanged"),
            "resourcesListChanged": has("/resources/listChanged"),
        });
        let _ = self.open_listen(filter, START_ACK_WAIT).await;
    }

    /// Watch these resources through `subscriptions/listen`
    /// (`resourceSubscriptions`), replacing the stream opened for the last
    /// set once the new one is acknowledged; an empty set only closes it.
    /// Returns the URIs the server acknowledged. On an error the last set's
    /// stream stays as it was.
    pub async fn listen_resources(&self, uris: Vec<String>) -> Result<Vec<String>, ClientError> {
        if uris.len() > MAX_RESOURCE_URIS {
            return Err(ClientError::Protocol(format!(
                "at most {MAX_RESOURCE_URIS} resources can be watched at once"
            )));
        }
        // Held across the wait: two changes in a row open their streams in
        // turn, and neither is left open unowned.
        let mut current = self.resource_stream.lock().await;
        let (new, honoured) = if uris.is_empty() {
            (None, Vec::new())
        } else {
            let opened = self
                .open_listen(json!({"resourceSubscriptions": uris}), RESOURCE_ACK_WAIT)
                .await?;
            let Some(honoured) = granted(opened.honoured.as_ref(), "resourceSubscriptions") else {
                let why = if opened.task.is_finished() {
                    "the listen stream ended before it was acknowledged"
                } else {
                    "the server did not acknowledge the listen stream with resourceSubscriptions"
                };
                let _ = self.close_stream(&opened.id, opened.task, why);
                return Err(ClientError::Protocol(why.into()));
            };
            let stream = ResourceStream {
                id: opened.id,
                task: opened.task,
            };
            (Some(stream), honoured)
        };
        if let Some(old) = std::mem::replace(&mut *current, new) {
            self.close_stream(&old.id, old.task, "resource subscriptions changed")?;
        }
        Ok(honoured)
    }

    /// With `--listen`: a stream for a task's status pushes, if the server
    /// takes it (its acknowledgement lists the task); else the task is
    /// followed by polling alone.
    pub(super) async fn listen_task(&self, task_id: &str) -> Option<TaskPushes> {
        if !self.opts.listen {
            return None;
        }
        // From before the request: a status may come right after the
        // acknowledgement.
        let at = Cursor::at_end(&self.trace);
        let opened = self
            .open_listen(json!({"taskIds": [task_id]}), TASK_ACK_WAIT)
            .await
            .ok()?;
        let taken = granted(opened.honoured.as_ref(), "taskIds")
            .is_some_and(|ids| ids.iter().any(|i| i == task_id));
        if !taken {
            let _ = self.close_stream(&opened.id, opened.task, "the server did not take the task");
            return None;
        }
        Some(TaskPushes {
            id: opened.id,
            task: opened.task,
            task_id: task_id.to_owned(),
            at,
        })
    }

    /// The task is followed no more: close its stream.
    pub(super) fn close_task_stream(&self, pushes: TaskPushes) {
        let _ = self.close_stream(&pushes.id, pushes.task, "the task ended");
    }

    /// Close a stream of ours on purpose: its end is the cancel event, not
    /// an error (the task awaiting its response goes first). A stream that
    /// already ended needs nothing sent.
    fn close_stream(
        &self,
        id: &IdKey,
        task: tokio::task::JoinHandle<()>,
        why: &str,
    ) -> Result<(), ClientError> {
        if task.is_finished() {
            return Ok(());
        }
        task.abort();
        self.cancel(id, why).map(|_| ())
    }

    /// Send `subscriptions/listen` with this filter and wait for its
    /// acknowledgement (matched by `subscriptionId`, the request's id).
    async fn open_listen(&self, filter: Value, wait: Duration) -> Result<Opened, ClientError> {
        let Some(me) = self.weak.upgrade() else {
            return Err(ClientError::Protocol("the session is closing".into()));
        };
        let mut at = Cursor::at_end(&self.trace);
        let id = self.fresh_id();
        let listen_id = id.clone();
        let task = tokio::spawn(async move {
            // Its response ends the stream; until then notifications flow on it.
            let r = me
                .request_with_id(
                    listen_id,
                    methods::SUBSCRIPTIONS_LISTEN,
                    Some(json!({"notifications": filter})),
                    Limits::default(),
                )
                .await;
            let end = match r {
                Ok(_) => Event::ListenEnd { error: None },
                Err(e) => Event::ListenEnd {
                    error: Some(e.to_string()),
                },
            };
            me.meta(end);
        });
        let want = id.to_value();
        let acknowledged = at.next(
            &self.trace,
            || task.is_finished(),
            |e| {
                if e.method != Some(methods::SUBSCRIPTIONS_ACKNOWLEDGED) {
                    return None;
                }
                let params: Value = serde_json::from_str(e.frame().params?.get()).ok()?;
                let sub = params.pointer("/_meta/io.modelcontextprotocol~1subscriptionId");
                (sub == Some(&want))
                    .then(|| params.get("notifications").cloned().unwrap_or(Value::Null))
            },
        );
        let honoured = tokio::time::timeout(wait, acknowledged)
            .await
            .ok()
            .flatten();
        Ok(Opened { id, task, honoured })
    }
}
