//! What a recorded or attached session listed. There is no server to ask
//! (`replay`, `attach`), so the Tools pane's tabs show what the session
//! itself received, as it comes: the server from its `initialize` (or
//! `server/discover`) answer, and the `tools/list`, `resources/list`,
//! `resources/templates/list` and `prompts/list` answers — a listing without
//! a cursor starts over, a page with one is added to it (bounded like a
//! live listing).

use super::app::App;
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

impl Recorded {
    /// Take in the answers since the last look. Returns whether a list or
    /// the server changed.
    pub fn sync(app: &mut App, store: &Store) -> bool {
        if app.shell.live {
            return false;
        }
        let mut me = std::mem::take(&mut app.recorded);
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
            if method == "initialize" || method == "server/discover" {
                if let Ok(init) = serde_json::from_value::<InitializeResult>(result) {
                    app.set_server(&init);
                    changed.push("server");
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
            let st = &mut app.panes.tools;
            match *key {
                "tools" => {
                    let tools = me.tools.clone();
                    app.set_tools(&tools);
                }
                "resources" => {
                    let v = json!({"resources": me.resources});
                    st.browse.on_reply(Req::ListResources, Ok(v));
                }
                "resourceTemplates" => {
                    let v = json!({"resourceTemplates": me.templates});
                    st.browse.on_reply(Req::ListTemplates, Ok(v));
                }
                "prompts" => {
                    let v = json!({"prompts": me.prompts});
                    st.browse.on_reply(Req::ListPrompts, Ok(v));
                }
                _ => {}
            }
        }
        app.recorded = me;
        !changed.is_empty()
    }
}
