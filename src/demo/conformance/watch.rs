//! Who is watching which resource, and `test_touch_resource`, the tool that
//! marks one changed so they are told. Nothing else ever changes the
//! fixtures' resources, so without it a subscription could never be seen
//! to work.
//!
//! Two eras, two kinds of watcher. Before 2026-07-28 a session subscribes
//! with `resources/subscribe` and gets `notifications/resources/updated` on
//! its own stream ([`Subscribed`], one per session). In the stateless era a
//! client opens `subscriptions/listen` with `resourceSubscriptions`, and the
//! notification goes on that stream with its `subscriptionId` (the server's
//! [`Watchers`]).

use std::collections::HashSet;
use std::sync::Mutex;

use serde_json::{Map, Value, json};

use super::super::listen::{RESOURCE_UPDATED, Watchers};
use super::super::out::{Out, notification_line};
use super::super::session::lock;

pub const TOOL: &str = "test_touch_resource";
/// URIs one session may subscribe to.
pub const MAX_URIS: usize = 256;

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
        watchers.resource_updated(uri)
    } else if subscribed.contains(uri) {
        out.send(notification_line(RESOURCE_UPDATED, json!({"uri": uri})));
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
