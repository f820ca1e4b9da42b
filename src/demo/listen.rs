//! `subscriptions/listen`, the stateless era's change stream, on the demo
//! server's side: acknowledge at once with the filter honoured, then keep
//! the stream open (as a cancellable call of its own) until the client goes
//! away, carrying only what it asked for:
//! - `resourceSubscriptions` (with `--conformance`, whose fixtures have
//!   resources): `notifications/resources/updated` whenever
//!   `test_touch_resource` marks one of its URIs changed;
//! - `taskIds` (tasks of the extension this server knows):
//!   `notifications/tasks` with the task's complete state at once, then at
//!   each change.
//!
//! List changes are never granted: nothing changes the lists. The streams
//! are the server's ([`Watchers`]): stateless requests over HTTP each get
//! their own context, and a stream outlives the request that changes what
//! it watches.

use std::collections::HashSet;
use std::sync::Mutex;

use serde_json::{Map, Value, json};

use super::out::{Link, Out, notification_line};
use super::session::{Session, id_key, lock};
use super::{INVALID_PARAMS, INVALID_REQUEST};

use crate::protocol::meta::{META, SUBSCRIPTION_ID};
pub const RESOURCE_UPDATED: &str = "notifications/resources/updated";
pub const TASK_STATUS: &str = "notifications/tasks";
/// Open listen streams kept; a new one past this is refused.
pub const MAX_LISTENERS: usize = 64;
/// URIs or task ids one stream may watch.
pub const MAX_WATCHED: usize = 256;

struct Listener {
    link: Link,
    id: Value,
    uris: HashSet<String>,
    tasks: HashSet<String>,
}

/// The open `subscriptions/listen` streams that watch something.
#[derive(Default)]
pub struct Watchers(Mutex<Vec<Listener>>);

impl Watchers {
    /// Keep a stream, sending `first` (its acknowledgement) on it under the
    /// same lock, so no change can reach it before; false when too many are
    /// open (nothing sent then).
    fn add(&self, l: Listener, first: Vec<u8>) -> bool {
        let mut all = lock(&self.0);
        all.retain(|l| !l.link.is_closed());
        if all.len() >= MAX_LISTENERS {
            return false;
        }
        l.link.send(first);
        all.push(l);
        true
    }

    /// Send to every stream `wants`; closed streams are dropped here.
    /// Returns how many were told.
    fn tell(
        &self,
        wants: impl Fn(&Listener) -> bool,
        method: &str,
        params: &Map<String, Value>,
    ) -> usize {
        let mut told = 0;
        lock(&self.0).retain(|l| {
            if l.link.is_closed() {
                return false;
            }
            if !wants(l) {
                return true;
            }
            let mut params = params.clone();
            params.insert(META.into(), json!({SUBSCRIPTION_ID: l.id}));
            let open = l
                .link
                .send(notification_line(method, Value::Object(params)));
            told += usize::from(open);
            open
        });
        told
    }

    /// `notifications/resources/updated` to the streams watching `uri`.
    pub fn resource_updated(&self, uri: &str) -> usize {
        let mut params = Map::new();
        params.insert("uri".into(), json!(uri));
        self.tell(|l| l.uris.contains(uri), RESOURCE_UPDATED, &params)
    }

    /// Does an open stream watch this task? (Its state is built only then.)
    pub fn watches_task(&self, task_id: &str) -> bool {
        lock(&self.0).iter().any(|l| l.tasks.contains(task_id))
    }

    /// `notifications/tasks` (the task's complete state) to the streams
    /// watching it.
    pub fn task_changed(&self, task_id: &str, task: &Map<String, Value>) -> usize {
        self.tell(|l| l.tasks.contains(task_id), TASK_STATUS, task)
    }
}

fn strings(filter: Option<&Map<String, Value>>, key: &str) -> Option<HashSet<String>> {
    filter
        .and_then(|r| r.get(key))
        .and_then(Value::as_array)
        .map(|u| {
            u.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
}

fn sorted(set: &HashSet<String>) -> Value {
    let mut list: Vec<&String> = set.iter().collect();
    crate::sort::sort(&mut list);
    json!(list)
}

/// Open a stream for request `id`.
pub fn listen(session: &Session, out: &Out, id: &Value, params: &Map<String, Value>) {
    let requested = params.get("notifications").and_then(Value::as_object);
    let uris = strings(requested, "resourceSubscriptions").filter(|_| session.options.conformance);
    // Only tasks this server has: a stream for others would never carry anything.
    let tasks = strings(requested, "taskIds").map(|ids| {
        ids.into_iter()
            .filter(|t| session.ext_tasks.knows(t))
            .collect::<HashSet<_>>()
    });
    if [&uris, &tasks]
        .iter()
        .any(|s| s.as_ref().is_some_and(|s| s.len() > MAX_WATCHED))
    {
        return out.error(
            id,
            INVALID_PARAMS,
            &format!("too many resourceSubscriptions or taskIds: at most {MAX_WATCHED} each"),
        );
    }
    let mut granted = Map::new();
    if let Some(u) = &uris {
        granted.insert("resourceSubscriptions".into(), sorted(u));
    }
    if let Some(t) = &tasks {
        granted.insert("taskIds".into(), sorted(t));
    }
    let key = id_key(id);
    let Some(gate) = session.begin_call(&key) else {
        return out.error(
            id,
            INVALID_REQUEST,
            "request id is already in use by a running call",
        );
    };
    let link = Link::new(out.clone(), gate.clone());
    let uris = uris.unwrap_or_default();
    let tasks = tasks.unwrap_or_default();
    let watched: Vec<String> = tasks.iter().cloned().collect();
    // The acknowledgement goes out before the stream can carry anything else.
    let ack = notification_line(
        "notifications/subscriptions/acknowledged",
        json!({"notifications": granted, "_meta": {SUBSCRIPTION_ID: id}}),
    );
    if uris.is_empty() && tasks.is_empty() {
        link.send(ack);
    } else {
        let watching = Listener {
            link: Link::new(out.clone(), gate.clone()),
            id: id.clone(),
            uris,
            tasks,
        };
        if !session.watchers.add(watching, ack) {
            session.end_call(&key, &gate);
            return out.error(
                id,
                INVALID_REQUEST,
                &format!("too many listen streams open: at most {MAX_LISTENERS}"),
            );
        }
        // Each watched task's state now: what changed before the stream
        // opened would otherwise wait for the next change.
        for t in &watched {
            session.ext_tasks.tell_current(t, |mut task| {
                task.insert(META.into(), json!({SUBSCRIPTION_ID: id}));
                link.send(notification_line(TASK_STATUS, Value::Object(task)));
            });
        }
    }
    let task = tokio::spawn(async move {
        let _open = link;
        std::future::pending::<()>().await;
    });
    session.attach_task(&key, &gate, task.abort_handle());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::out::{Gate, channel};

    fn listener(uri: &str) -> (Listener, crate::demo::out::OutStream) {
        let (out, stream) = channel();
        let l = Listener {
            link: Link::new(out, Gate::new()),
            id: json!(1),
            uris: [uri.to_owned()].into(),
            tasks: HashSet::new(),
        };
        (l, stream)
    }

    #[test]
    fn streams_are_bounded_and_a_closed_one_makes_room() {
        let w = Watchers::default();
        let mut streams = Vec::new();
        for _ in 0..MAX_LISTENERS {
            let (l, s) = listener("u");
            assert!(w.add(l, b"ack\n".to_vec()));
            streams.push(s);
        }
        let (l, mut refused) = listener("u");
        assert!(!w.add(l, b"ack\n".to_vec()));
        assert!(
            refused.try_next().is_none(),
            "nothing sent to a refused stream"
        );
        // Each open stream got its acknowledgement, then the update.
        assert_eq!(w.resource_updated("u"), MAX_LISTENERS);
        assert_eq!(streams[0].try_next().as_deref(), Some(&b"ack\n"[..]));
        assert!(streams[0].try_next().is_some_and(|b| b.starts_with(b"{")));
        drop(streams.pop());
        let (l, _s) = listener("u");
        assert!(w.add(l, b"ack\n".to_vec()), "the closed stream's room");
    }
}
