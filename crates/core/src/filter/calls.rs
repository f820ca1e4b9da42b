//! Which call a message belongs to, for `tool`, `token` and `call`: the
//! requests seen so far, by id and by progress token. A response finds its
//! request by id, a progress notification by token, a cancellation by the
//! request id it names. Bounded: past `MAX` requests the oldest are
//! forgotten (and counted), so a long session costs a fixed amount.

use crate::protocol::frame::FrameKind;
use crate::protocol::methods;
use crate::trace::{Dir, EventRef};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

#[derive(serde::Deserialize)]
struct Params<'a> {
    #[serde(borrow, default)]
    name: Option<std::borrow::Cow<'a, str>>,
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
}

#[derive(serde::Deserialize)]
struct Meta {
    #[serde(rename = "progressToken", default)]
    progress_token: Option<Value>,
}

/// Requests remembered at most.
pub const MAX: usize = 65_536;

/// A request: its seq (the call's label, `#12`), its tool and token.
#[derive(Debug, Clone, PartialEq)]
pub struct CallRef {
    pub seq: u64,
    pub tool: Option<Arc<str>>,
    pub token: Option<String>,
}

/// A request's key: its direction (a server's request and the client's
/// may share an id) and its id's JSON text.
type Key = (bool, String);

#[derive(Debug, Default, Clone)]
pub struct CallIndex {
    by_id: HashMap<Key, CallRef>,
    by_token: HashMap<String, CallRef>,
    order: VecDeque<(Key, Option<String>)>,
    /// Requests forgotten to keep the bound.
    pub forgotten: u64,
}

impl CallIndex {
    /// Take in the next event (every event, in order, whether it matches or
    /// not: a response is labelled by the request before it).
    pub fn observe(&mut self, ev: &EventRef<'_>) {
        if ev.kind != FrameKind::Request || !matches!(ev.dir, Dir::In | Dir::Out) {
            return;
        }
        let f = ev.frame();
        let Some(id) = f.id else { return };
        // Only the name and the token: the arguments are skipped, not built.
        let params: Option<Params<'_>> = f.params.and_then(|p| serde_json::from_str(p.get()).ok());
        let (name, token) = params.map_or((None, None), |p| {
            (p.name, p.meta.and_then(|m| m.progress_token))
        });
        let tool = match ev.method {
            Some(methods::TOOLS_CALL) => name.map(|n| Arc::from(n.as_ref())),
            _ => None,
        };
        let token = token.as_ref().map(super::find::token_text);
        let call = CallRef {
            seq: ev.seq,
            tool,
            token: token.clone(),
        };
        let key = (ev.dir == Dir::Out, id.to_value().to_string());
        if self.order.len() >= MAX
            && let Some((old, old_token)) = self.order.pop_front()
        {
            self.forgotten += 1;
            if self.by_id.get(&old).is_some_and(|c| c.seq < ev.seq) {
                self.by_id.remove(&old);
            }
            if let Some(t) = old_token
                && self.by_token.get(&t).is_some_and(|c| c.seq < ev.seq)
            {
                self.by_token.remove(&t);
            }
        }
        if let Some(t) = &token {
            self.by_token.insert(t.clone(), call.clone());
        }
        self.by_id.insert(key.clone(), call);
        self.order.push_back((key, token));
    }

    /// The call `ev` belongs to, if any. Read from the frame's text by
    /// path (`filter::find`), not by classifying the whole frame again.
    pub fn of(&self, ev: &EventRef<'_>) -> Option<CallRef> {
        if !matches!(ev.dir, Dir::In | Dir::Out) {
            return None;
        }
        let text = std::str::from_utf8(ev.bytes).ok()?;
        let key = |k: &str| super::parse::Seg::Key(k.to_string());
        let id_text = || {
            Some(
                super::find::find(text, &[key("id")])?
                    .get()
                    .trim()
                    .to_string(),
            )
        };
        match ev.kind {
            FrameKind::Request => self
                .by_id
                .get(&(ev.dir == Dir::Out, canonical(&id_text()?)))
                .filter(|c| c.seq == ev.seq)
                .cloned(),
            // A response travels the other way from its request.
            FrameKind::Response | FrameKind::ErrorResponse => self
                .by_id
                .get(&(ev.dir == Dir::In, canonical(&id_text()?)))
                .cloned(),
            FrameKind::Notification => match ev.method {
                Some(methods::PROGRESS) => {
                    let tok = super::find::value_at(text, &[key("params"), key("progressToken")])?;
                    self.by_token.get(&super::find::token_text(&tok)).cloned()
                }
                Some(methods::CANCELLED) => {
                    let id = super::find::find(text, &[key("params"), key("requestId")])?;
                    self.by_id
                        .get(&(ev.dir == Dir::Out, canonical(id.get().trim())))
                        .cloned()
                }
                _ => None,
            },
            _ => None,
        }
    }
}

/// An id's JSON text as `IdKey::to_value` writes it (a string re-encoded,
/// a number as written), so the same id keys the same request.
fn canonical(raw: &str) -> String {
    match serde_json::from_str::<Value>(raw) {
        Ok(v) => v.to_string(),
        Err(_) => raw.to_string(),
    }
}
