//! What a recorded or attached session listed. There is no server to ask
//! (`replay`, `attach`), so the Tools pane's tabs show what the session
//! itself received, as it comes: the server from its `initialize` (or
//! `server/discover`) answer, and the `tools/list`, `resources/list`,
//! `resources/templates/list` and `prompts/list` answers — a listing without
//! a cursor starts over, a page with one is added to it (bounded like a
//! live listing).

use super::browse::Req;
use crate::protocol::IdKey;
use crate::protocol::views::InitializeResult;
use crate::trace::{Dir, Origin, Store};
use serde_json::{Value, json};

/// Items of one list kept across its pages, at most (a live tab keeps
/// fewer; this only bounds what waits to be shown).
const MAX_JOINED: usize = 50_000;

#[derive(Debug, Default)]
pub struct Recorded {
    scanned: u64,
    tools: Vec<Value>,
    resources: Vec<Value>,
    templates: Vec<Value>,
    prompts: Vec<Value>,
}

/// The list a listing method's answer carries.
fn key_of(method: &str) -> Option<&'static str> {
    Some(match method {
        "tools/list" => "tools",
        "resources/list" => "resources",
        "resources/templates/list" => "resourceTemplates",
        "prompts/list" => "prompts",
        _ => return None,
    })
}

/// Did the request this answers ask for a later page?
fn asked_a_page(store: &Store, id: Option<&IdKey>) -> bool {
    let Some(req) = id.and_then(|id| store.request(Origin::Client, id)) else {
        return false;
    };
    store.get(req.request_seq).is_some_and(|ev| {
        ev.frame()
            .params
            .and_then(|p| serde_json::from_str::<Value>(p.get()).ok())
            .is_some_and(|p| p.get("cursor").is_some_and(|c| !c.is_null()))
    })
}

/// What a look at the recorded answers found, for the App to apply in this
/// order (the App owns the panes; this module only reads the store).
#[derive(Debug)]
pub enum Found {
    /// The server's `initialize` (or `server/discover`) answer.
    Server(Box<InitializeResult>),
    /// The joined tool list.
    Tools(Vec<Value>),
    /// A joined resource, template or prompt list, as the Tools pane's
    /// reply to its own listing request.
    Listing(Req, Value),
}

impl Recorded {
    /// Take in the answers since the last look: what changed, the server
    /// first, in the order it was found. Nothing while the session is live
    /// (`live`), where the server is asked instead.
    pub fn sync(&mut self, live: bool, store: &Store) -> Vec<Found> {
        let mut found = Vec::new();
        if live {
            return found;
        }
        let me = self;
        let end = store.next_seq();
        let from = me.scanned.max(store.first_seq());
        me.scanned = end;
        let mut changed: Vec<&'static str> = Vec::new();
        for ev in store.range(from, end) {
            if ev.dir != Dir::In || ev.kind != crate::protocol::FrameKind::Response {
                continue;
            }
            let Some(method) = ev.method else { continue };
            let f = ev.frame();
            let Some(result) = f
                .result
                .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
            else {
                continue;
            };
            if method == "server/discover" {
                found.push(Found::Server(Box::new(InitializeResult::from_discovery(
                    &result,
                ))));
                continue;
            }
            if method == "initialize" {
                if let Ok(init) = serde_json::from_value::<InitializeResult>(result) {
                    found.push(Found::Server(Box::new(init)));
                }
                continue;
            }
            let Some(key) = key_of(method) else { continue };
            let list = match key {
                "tools" => &mut me.tools,
                "resources" => &mut me.resources,
                "resourceTemplates" => &mut me.templates,
                _ => &mut me.prompts,
            };
            if !asked_a_page(store, f.id.as_ref()) {
                list.clear();
            }
            let room = MAX_JOINED.saturating_sub(list.len());
            if let Some(items) = result.get(key).and_then(Value::as_array) {
                list.extend(items.iter().take(room).cloned());
            }
            if !changed.contains(&key) {
                changed.push(key);
            }
        }
        for key in &changed {
            found.push(match *key {
                "tools" => Found::Tools(me.tools.clone()),
                "resources" => {
                    Found::Listing(Req::ListResources, json!({"resources": me.resources}))
                }
                "resourceTemplates" => Found::Listing(
                    Req::ListTemplates,
                    json!({"resourceTemplates": me.templates}),
                ),
                _ => Found::Listing(Req::ListPrompts, json!({"prompts": me.prompts})),
            });
        }
        found
    }
}
