//! Host sessions: which session each event of a trace belongs to. Request
//! ids, progress tokens, streams and levels are a session's, so where the
//! HTTP proxy saw several hosts (or one host reconnecting) at once, the calls
//! and the checks keep one state per host session, never one for all.
//!
//! The proxy records a `host-request` event before each exchange, naming
//! the session it belongs to (its `Mcp-Session-Id`, or the legacy
//! transport's `sessionId` query). An exchange without one (`initialize`, a
//! legacy event stream before its `endpoint`, any request of the
//! session-less 2026-07-28 era) opens a scope of its own, named when the
//! server's answer names the session (the `http` event's session, the
//! `endpoint` URL's query). So nothing is ever tied across exchanges that
//! cannot be tied to one client.
//!
//! A trace without `host-request` events (mcpscope's own sessions, the
//! stdio proxy, older recordings) is one scope, [`DEFAULT`], at the cost of
//! a branch per event.

use crate::event::Event;
use crate::trace::{Dir, EventRef};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// The scope of a trace that names no host session, and of what concerns
/// none in one that does (the proxy's own `http` channel).
pub const DEFAULT: u64 = 0;
/// Scopes alive at once, at most: opening one more retires the one used
/// longest ago (its later events belong nowhere and are not judged).
pub const MAX_SCOPES: usize = 1024;
/// Channels (one per exchange) remembered at most; when full, the half
/// used longest ago goes: an exchange that quiet has ended.
pub const MAX_CHANNELS: usize = 16_384;
/// The kind a `host-request` event names (a cheap test before parsing).
const HOST_REQUEST: &[u8] = br#""host-request""#;
/// The proxy's channel for what concerns no exchange.
const PROXY_CHANNEL: &str = "http";

#[derive(Debug, Clone, Copy)]
struct Bound {
    scope: u64,
    used: u64,
}

#[derive(Debug)]
struct Live {
    session: Option<Arc<str>>,
    used: u64,
}

/// Routes each event of a trace, in order, to its host session's scope.
#[derive(Debug, Default)]
pub struct Scopes {
    /// The trace names host sessions (a `host-request` was seen).
    routing: bool,
    live: HashMap<u64, Live>,
    by_channel: HashMap<Box<str>, Bound>,
    by_session: HashMap<Arc<str>, u64>,
    /// Named sessions in the order they were named, to bound `by_session`.
    named: VecDeque<Arc<str>>,
    /// Legacy event streams by the `target_key` of the endpoint they named,
    /// oldest first (bounded like sessions).
    endpoints: VecDeque<(String, u64)>,
    next: u64,
    clock: u64,
    retired: Vec<u64>,
    /// Events that belonged to a scope or channel no longer kept.
    unrouted: u64,
}

impl Scopes {
    /// Whether the trace names host sessions.
    pub fn routing(&self) -> bool {
        self.routing
    }

    /// Events that belonged to a scope or channel no longer kept.
    pub fn unrouted(&self) -> u64 {
        self.unrouted
    }

    /// The host session id of a scope, once known.
    pub fn session(&self, scope: u64) -> Option<&Arc<str>> {
        self.live.get(&scope)?.session.as_ref()
    }

    /// Scopes retired since last asked: their state can go.
    pub fn take_retired(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.retired)
    }

    /// The scope `ev` belongs to; `None` when that is no longer kept.
    pub fn route(&mut self, ev: &EventRef<'_>) -> Option<u64> {
        // Until a `host-request` names a session, everything is the default
        // scope: no meta event is parsed just to learn that.
        if !self.routing
            && (ev.dir != Dir::Meta || memchr::memmem::find(ev.bytes, HOST_REQUEST).is_none())
        {
            return Some(DEFAULT);
        }
        self.clock += 1;
        let got = match ev.dir {
            Dir::Meta => self.meta(ev),
            _ => self.of_channel(ev.channel),
        };
        if got.is_none() {
            self.unrouted += 1;
        }
        got
    }

    fn of_channel(&mut self, channel: &str) -> Option<u64> {
        if !self.routing {
            return Some(DEFAULT);
        }
        let Some(b) = self.by_channel.get_mut(channel) else {
            return (channel == PROXY_CHANNEL).then_some(DEFAULT);
        };
        b.used = self.clock;
        let scope = b.scope;
        let live = self.live.get_mut(&scope)?;
        live.used = self.clock;
        Some(scope)
    }

    fn meta(&mut self, ev: &EventRef<'_>) -> Option<u64> {
        match ev.event() {
            Some(Event::HostRequest {
                session, target, ..
            }) => {
                self.routing = true;
                let known = match (&session, &target) {
                    (Some(s), _) => self.by_session.get(s.as_str()).copied(),
                    // A legacy POST: the stream whose endpoint it goes to.
                    (None, Some(t)) => self
                        .endpoints
                        .iter()
                        .rev()
                        .find(|(k, _)| k == t)
                        .map(|(_, s)| *s),
                    (None, None) => None,
                };
                let scope = match known {
                    Some(s) if self.live.contains_key(&s) => s,
                    _ => {
                        let s = self.open();
                        // A session the proxy did not see begin (its
                        // recording started late): a scope of its own.
                        if let Some(id) = session {
                            self.name(s, &id);
                        }
                        s
                    }
                };
                self.bind(ev.channel, scope);
                self.of_channel(ev.channel)
            }
            Some(Event::Http {
                session: Some(id), ..
            }) => self.named_by_server(ev.channel, &id),
            Some(Event::Endpoint { url }) => {
                let scope = self.of_channel(ev.channel)?;
                if self.routing && scope != DEFAULT {
                    if self.endpoints.len() >= MAX_SCOPES {
                        self.endpoints.pop_front();
                    }
                    self.endpoints
                        .push_back((crate::event::target_key(&url), scope));
                    // The stream is the session: findings name it by its
                    // endpoint's session query, else by its channel.
                    let name = query_session(&url).unwrap_or_else(|| ev.channel.to_string());
                    self.named_by_server(ev.channel, &name)
                } else {
                    Some(scope)
                }
            }
            _ => self.of_channel(ev.channel),
        }
    }

    /// The server named the session of the exchange on `channel`.
    fn named_by_server(&mut self, channel: &str, id: &str) -> Option<u64> {
        let scope = self.of_channel(channel)?;
        if self.routing && scope != DEFAULT && !self.by_session.contains_key(id) {
            self.name(scope, id);
        }
        Some(scope)
    }

    fn name(&mut self, scope: u64, id: &str) {
        let Some(live) = self.live.get_mut(&scope) else {
            return;
        };
        if live.session.is_some() {
            return;
        }
        let id: Arc<str> = id.into();
        live.session = Some(id.clone());
        if self.named.len() >= MAX_SCOPES
            && let Some(old) = self.named.pop_front()
        {
            self.by_session.remove(&old);
        }
        self.named.push_back(id.clone());
        self.by_session.insert(id, scope);
    }

    fn bind(&mut self, channel: &str, scope: u64) {
        if self.by_channel.len() >= MAX_CHANNELS && !self.by_channel.contains_key(channel) {
            let mut used: Vec<u64> = self.by_channel.values().map(|b| b.used).collect();
            let half = used.len() / 2;
            let cut = *used.select_nth_unstable(half).1;
            self.by_channel.retain(|_, b| b.used > cut);
        }
        let bound = Bound {
            scope,
            used: self.clock,
        };
        self.by_channel.insert(channel.into(), bound);
    }

    /// A new scope; past [`MAX_SCOPES`] the one used longest ago retires.
    fn open(&mut self) -> u64 {
        if self.live.len() >= MAX_SCOPES {
            let oldest = self
                .live
                .iter()
                .min_by_key(|(_, l)| l.used)
                .map(|(s, _)| *s);
            if let Some(s) = oldest
                && let Some(l) = self.live.remove(&s)
            {
                if let Some(id) = l.session {
                    self.by_session.remove(&id);
                }
                self.retired.push(s);
            }
        }
        self.next += 1;
        let scope = self.next;
        self.live.insert(
            scope,
            Live {
                session: None,
                used: self.clock,
            },
        );
        scope
    }
}

/// The session a legacy `endpoint` URL names.
fn query_session(url: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        matches!(k, "sessionId" | "session_id").then(|| v.to_string())
    })
}
