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
use crate::trace::Trace;
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

/// A listen stream carrying one task's status (`taskIds`): each
/// `notifications/tasks` for it is the task's complete state.
pub(super) struct TaskPushes {
    id: IdKey,
    task: tokio::task::JoinHandle<()>,
    task_id: String,
    /// Trace position scanned up to.
    seen: u64,
    changed: tokio::sync::watch::Receiver<u64>,
}

impl TaskPushes {
    /// The next status pushed for the task, as a reply of its own (the
    /// notification's params are the task, as a `tasks/get` answer is).
    pub(super) async fn next(&mut self, trace: &Trace) -> Reply {
        loop {
            {
                let store = trace.read();
                let end = store.next_seq();
                let hit = store
                    .range(self.seen.max(store.first_seq()), end)
                    .find_map(|e| {
                        if e.method != Some(methods::TASKS_NOTIFY) || e.dir != crate::trace::Dir::In
                        {
                            return None;
                        }
                        let raw = e.frame().params?.get();
                        let result: Value = serde_json::from_str(raw).ok()?;
                        (result.get("taskId").and_then(Value::as_str) == Some(&self.task_id)).then(
                            || Reply {
                                seq: e.seq,
                                result,
                                raw: raw.into(),
                                out_of_range: Default::default(),
                            },
                        )
                    });
                match hit {
                    Some(r) => {
                        self.seen = r.seq + 1;
                        return r;
                    }
                    None => self.seen = end,
                }
            }
            if self.changed.changed().await.is_err() {
                std::future::pending::<()>().await;
            }
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
            let honoured = opened
                .honoured
                .as_ref()
                .and_then(|n| n.get("resourceSubscriptions"))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect::<Vec<_>>()
                });
            let Some(honoured) = honoured else {
                let why = if opened.task.is_finished() {
                    "the listen stream ended before it was acknowledged"
                } else {
                    "the server did not acknowledge the listen stream with resourceSubscriptions"
                };
                opened.task.abort();
                let _ = self.cancel(&opened.id, why);
                return Err(ClientError::Protocol(why.into()));
            };
            let stream = ResourceStream {
                id: opened.id,
                task: opened.task,
            };
            (Some(stream), honoured)
        };
        if let Some(old) = std::mem::replace(&mut *current, new) {
            // Closed on purpose: its end is the cancel event, not an error.
            old.task.abort();
            self.cancel(&old.id, "resource subscriptions changed")?;
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
        let changed = self.trace.subscribe();
        let seen = self.trace.read().next_seq();
        let opened = self
            .open_listen(json!({"taskIds": [task_id]}), TASK_ACK_WAIT)
            .await
            .ok()?;
        let taken = opened
            .honoured
            .as_ref()
            .and_then(|n| n.get("taskIds"))
            .and_then(Value::as_array)
            .is_some_and(|ids| ids.iter().any(|i| i.as_str() == Some(task_id)));
        if !taken {
            opened.task.abort();
            if !opened.task.is_finished() {
                let _ = self.cancel(&opened.id, "the server did not take the task");
            }
            return None;
        }
        Some(TaskPushes {
            id: opened.id,
            task: opened.task,
            task_id: task_id.to_owned(),
            seen,
            changed,
        })
    }

    /// The task is followed no more: close its stream.
    pub(super) fn close_task_stream(&self, pushes: TaskPushes) {
        pushes.task.abort();
        let _ = self.cancel(&pushes.id, "the task ended");
    }

    /// Send `subscriptions/listen` with this filter and wait for its
    /// acknowledgement (matched by `subscriptionId`, the request's id).
    async fn open_listen(&self, filter: Value, wait: Duration) -> Result<Opened, ClientError> {
        let Some(me) = self.weak.upgrade() else {
            return Err(ClientError::Protocol("the session is closing".into()));
        };
        let mut changed = self.trace.subscribe();
        let from = self.trace.read().next_seq();
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
        let acknowledged = async {
            let mut seen = from;
            loop {
                {
                    let store = self.trace.read();
                    let hit = store.range(seen, store.next_seq()).find_map(|e| {
                        if e.method != Some(methods::SUBSCRIPTIONS_ACKNOWLEDGED) {
                            return None;
                        }
                        let params: Value = serde_json::from_str(e.frame().params?.get()).ok()?;
                        let sub = params.pointer("/_meta/io.modelcontextprotocol~1subscriptionId");
                        (sub == Some(&want))
                            .then(|| params.get("notifications").cloned().unwrap_or(Value::Null))
                    });
                    seen = store.next_seq();
                    if hit.is_some() {
                        return hit;
                    }
                }
                if task.is_finished() || changed.changed().await.is_err() {
                    return None;
                }
            }
        };
        let honoured = tokio::time::timeout(wait, acknowledged)
            .await
            .ok()
            .flatten();
        Ok(Opened { id, task, honoured })
    }
}
