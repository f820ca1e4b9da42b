//! Who is watching which resource, and `test_touch_resource`, the tool that
//! marks one changed so they are told. Nothing else ever changes the
//! fixtures' resources, so without it a subscription could never be seen
//! to work.
//!
//! Two eras, two kinds of watcher. Before 2026-07-28 a session subscribes
//! with `resources/subscribe` and gets `notifications/resources/updated` on
//! its own stream ([`Subscribed`], one per session). In the stateless era a
//! client opens `subscriptions/listen` with `resourceSubscriptions`, and the
//! notification goes on that stream with its `subscriptionId` ([`Watchers`],
//! the server's: stateless requests over HTTP each get their own context,
//! and a listen stream outlives the request that touches a resource).

use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard};

use serde_json::{Map, Value, json};

use super::super::out::{Link, Out, notification_line};

pub const TOOL: &str = "test_touch_resource";
pub const UPDATED: &str = "notifications/resources/updated";
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// Open listen streams kept; a new one past this is refused.
pub const MAX_LISTENERS: usize = 64;
/// URIs one session or one stream may watch.
pub const MAX_URIS: usize = 256;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub fn descriptor() -> Value {
    json!({
        "name": TOOL,
        "title": "Mark a resource changed",
        "description": "Tells every subscriber of `uri` that it changed (notifications/resources/updated): through resources/subscribe before 2026-07-28, through subscriptions/listen resourceSubscriptions after. A diagnostic of this server, not a suite fixture.",
        "inputSchema": {
            "type": "object",
            "properties": {"uri": {
                "type": "string",
                "description": "The resource to mark changed",
                "default": "test://watched-resource",
            }},
        },
    })
}

/// A handshake-era session's `resources/subscribe` set.
#[derive(Default)]
pub struct Subscribed(Mutex<HashSet<String>>);

impl Subscribed {
    /// Subscribe or unsubscribe; false when the set is full.
    pub fn set(&self, uri: &str, on: bool) -> bool {
        let mut set = lock(&self.0);
        if !on {
            set.remove(uri);
            return true;
        }
        if set.len() >= MAX_URIS && !set.contains(uri) {
            return false;
        }
        set.insert(uri.to_owned());
        true
    }

    pub fn contains(&self, uri: &str) -> bool {
        lock(&self.0).contains(uri)
    }
}

struct Listener {
    link: Link,
    out: Out,
    id: Value,
    uris: HashSet<String>,
}

/// The open `subscriptions/listen` streams that asked for resources.
#[derive(Default)]
pub struct Watchers(Mutex<Vec<Listener>>);

impl Watchers {
    /// Keep a stream that asked for `uris`; false when too many are open.
    pub fn add(&self, link: Link, out: Out, id: Value, uris: HashSet<String>) -> bool {
        let mut all = lock(&self.0);
        all.retain(|l| !l.out.is_closed());
        if all.len() >= MAX_LISTENERS {
            return false;
        }
        all.push(Listener {
            link,
            out,
            id,
            uris,
        });
        true
    }

    /// Tell every stream watching `uri`; closed streams are dropped here.
    /// Returns how many were told.
    fn notify(&self, uri: &str) -> usize {
        let mut told = 0;
        lock(&self.0).retain(|l| {
            if l.out.is_closed() {
                return false;
            }
            if !l.uris.contains(uri) {
                return true;
            }
            let params = json!({"uri": uri, "_meta": {SUBSCRIPTION_ID: l.id}});
            let open = l.link.send(notification_line(UPDATED, params));
            told += usize::from(open);
            open
        });
        told
    }
}

/// `test_touch_resource`: the result says how many subscribers were told.
pub fn touch(
    params: &Map<String, Value>,
    modern: bool,
    subscribed: &Subscribed,
    watchers: &Watchers,
    out: &Out,
) -> Value {
    let uri = params
        .get("arguments")
        .and_then(|a| a.get("uri"))
        .and_then(Value::as_str)
        .unwrap_or("test://watched-resource");
    let told = if modern {
        watchers.notify(uri)
    } else if subscribed.contains(uri) {
        out.send(notification_line(UPDATED, json!({"uri": uri})));
        1
    } else {
        0
    };
    let how = if modern {
        "listen stream(s)"
    } else {
        "session(s)"
    };
    json!({
        "content": [{"type": "text", "text": format!("{uri} marked changed: {told} {how} told")}],
        "isError": false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_subscription_set_refuses_new_uris_but_not_removal() {
        let s = Subscribed::default();
        for i in 0..MAX_URIS {
            assert!(s.set(&format!("u{i}"), true));
        }
        assert!(!s.set("one more", true));
        assert!(s.set("u0", true), "already there");
        assert!(s.set("u0", false));
        assert!(s.set("one more", true));
    }
}
