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
use super::{ClientError, Session};
use crate::event::Event;
use crate::protocol::methods;
use crate::protocol::{IdKey, views::InitializeResult};
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

/// The resource stream in use: its request id and the task awaiting its end.
pub(super) struct ResourceStream {
    id: IdKey,
    task: tokio::task::JoinHandle<()>,
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
