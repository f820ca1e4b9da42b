//! SEP-2243 request headers (2026-07-28 over HTTP): the `Mcp-Method`,
//! `Mcp-Name` and `Mcp-Param-*` headers each outgoing frame carries, and the
//! per-tool `x-mcp-header` annotations they are computed from, learnt from
//! the `tools/list` results the session receives. The transport sends what
//! it is handed; knowing methods and results is the session's business.

use crate::event::Event;
use crate::protocol::IdKey;
use crate::protocol::frame::{FrameKind, classify};
use crate::protocol::mcp_param::{self, ParamHeader, ParamHeaderError};
use crate::protocol::methods;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Shared by the sending side (headers of a call) and the sink (listings
/// arriving), so a call made right after a listing already carries its
/// headers.
#[derive(Default)]
pub struct ToolHeaders {
    state: Mutex<Learnt>,
    /// Whether any listing awaits its result: every incoming frame asks,
    /// and a flood's million frames should not each take the lock to hear no.
    awaiting: AtomicBool,
}

#[derive(Default)]
struct Learnt {
    /// `tools/list` requests awaiting their result, so the result's
    /// `x-mcp-header` annotations can be learnt (true: a first page, which
    /// replaces what was known).
    listings: HashMap<IdKey, bool>,
    /// Per tool name: its annotated parameters, or why it was rejected.
    tools: HashMap<String, Result<Vec<ParamHeader>, ParamHeaderError>>,
}

/// The extra headers of one outgoing frame, and the meta event recording the
/// `Mcp-Param-*` ones (they come from a listing, so a trace shows which).
#[derive(Default)]
pub struct FrameHeaders {
    pub headers: Vec<(String, String)>,
    pub event: Option<Event>,
}

impl ToolHeaders {
    fn lock(&self) -> MutexGuard<'_, Learnt> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Note an outgoing frame: a `tools/list` request's result will be learnt.
    pub fn sent(&self, frame: &[u8]) {
        let f = classify(frame);
        if f.kind != FrameKind::Request || f.method.as_deref() != Some(methods::TOOLS_LIST) {
            return;
        }
        let Some(id) = f.id else { return };
        let params = f
            .params
            .and_then(|p| serde_json::from_str::<Value>(p.get()).ok());
        let first_page = params.as_ref().and_then(|p| p.get("cursor")).is_none();
        let mut st = self.lock();
        st.listings.insert(id, first_page);
        self.awaiting.store(true, Ordering::SeqCst);
    }

    /// The request will get no answer (failed, or its stream closed).
    pub fn forget(&self, id: &IdKey) {
        let mut st = self.lock();
        st.listings.remove(id);
        self.awaiting
            .store(!st.listings.is_empty(), Ordering::SeqCst);
    }

    /// Learn the `x-mcp-header` annotations from a `tools/list` result,
    /// before the frame reaches the session (so a call made right after the
    /// listing already carries its headers).
    pub fn observe(&self, body: &[u8]) {
        if !self.awaiting.load(Ordering::SeqCst) {
            return;
        }
        let f = classify(body);
        match f.kind {
            FrameKind::Batch => {
                for el in &f.batch {
                    self.observe(el.get().as_bytes());
                }
            }
            FrameKind::Response | FrameKind::ErrorResponse => {
                let Some(id) = &f.id else { return };
                let mut st = self.lock();
                let Some(first_page) = st.listings.remove(id) else {
                    return;
                };
                self.awaiting
                    .store(!st.listings.is_empty(), Ordering::SeqCst);
                let Ok(v) = serde_json::from_slice::<Value>(body) else {
                    return;
                };
                let Some(tools) = v.pointer("/result/tools").and_then(|t| t.as_array()) else {
                    return;
                };
                if first_page {
                    st.tools.clear();
                }
                for tool in tools {
                    if let Some(name) = tool.get("name").and_then(|n| n.as_str()) {
                        st.tools
                            .insert(name.to_string(), mcp_param::tool_headers(tool));
                    }
                }
            }
            _ => {}
        }
    }

    /// Why the last `tools/list` result made this tool unusable (an invalid
    /// `x-mcp-header` annotation), if it did.
    pub fn rejection(&self, name: &str) -> Option<String> {
        match self.lock().tools.get(name) {
            Some(Err(why)) => Some(why.to_string()),
            _ => None,
        }
    }

    /// The SEP-2243 headers of `msg`. Values that are not plain visible
    /// ASCII travel base64-encoded, so a header is never malformed and never
    /// dropped.
    pub fn for_frame(&self, msg: &Value) -> FrameHeaders {
        let mut out = FrameHeaders::default();
        let method = msg.get("method").and_then(Value::as_str);
        let params = msg.get("params");
        let name = params.and_then(|v| {
            v.get("name")
                .or_else(|| v.get("uri"))
                .and_then(|n| n.as_str())
        });
        if let Some(m) = method {
            out.headers
                .push(("mcp-method".into(), mcp_param::encode_value(m)));
        }
        if let (Some(n), Some("tools/call" | "prompts/get" | "resources/read")) = (name, method) {
            out.headers
                .push(("mcp-name".into(), mcp_param::encode_value(n)));
        }
        // The tasks extension: "When tasks/get, tasks/update, or tasks/cancel
        // is sent over the Streamable HTTP transport, the client MUST set the
        // Mcp-Name header to the value of params.taskId."
        if let (Some(t), Some("tasks/get" | "tasks/update" | "tasks/cancel")) = (
            params.and_then(|p| p.get("taskId")).and_then(Value::as_str),
            method,
        ) {
            out.headers
                .push(("mcp-name".into(), mcp_param::encode_value(t)));
        }
        if let (Some(n), Some(methods::TOOLS_CALL)) = (name, method) {
            let params = self.param_headers(n, params.and_then(|p| p.get("arguments")));
            if !params.is_empty() {
                out.event = Some(Event::McpParamHeaders {
                    tool: n.to_string(),
                    headers: params.iter().map(|(k, v)| format!("{k}: {v}")).collect(),
                });
            }
            out.headers.extend(params);
        }
        out
    }

    /// The `Mcp-Param-*` headers of a call to `tool`, from the annotations of
    /// its last listing. A tool never listed gets none (the spec's advice when
    /// the schema is unknown); a rejected tool gets none either, since the
    /// session refuses to call it and only a hand-written frame gets here.
    fn param_headers(&self, tool: &str, arguments: Option<&Value>) -> Vec<(String, String)> {
        let st = self.lock();
        match (st.tools.get(tool), arguments) {
            (Some(Ok(decls)), Some(args)) => mcp_param::headers_for(decls, args),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listing(id: i64, cursor: Option<&str>) -> Vec<u8> {
        let mut v = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
        if let Some(c) = cursor {
            v["params"] = json!({"cursor": c});
        }
        serde_json::to_vec(&v).unwrap()
    }

    fn result(id: i64, tools: Value) -> Vec<u8> {
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}}))
            .unwrap()
    }

    fn tool(name: &str, header: &str, ty: &str) -> Value {
        json!({"name": name, "inputSchema": {"type": "object", "properties": {
            "v": {"type": ty, "x-mcp-header": header}}}})
    }

    fn call(name: &str, v: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
               "params": {"name": name, "arguments": {"v": v}}})
    }

    #[test]
    fn a_call_carries_what_its_listing_declared() {
        let h = ToolHeaders::default();
        let before = h.for_frame(&call("t", json!("eu")));
        assert_eq!(
            before.headers,
            vec![
                ("mcp-method".to_string(), "tools/call".to_string()),
                ("mcp-name".to_string(), "t".to_string()),
            ],
            "a tool never listed gets no Mcp-Param-*"
        );
        assert!(before.event.is_none());
        h.sent(&listing(1, None));
        h.observe(&result(
            1,
            json!([tool("t", "Region", "string"), tool("bad", "B", "object")]),
        ));
        let after = h.for_frame(&call("t", json!("eu")));
        assert_eq!(
            after.headers.last(),
            Some(&("Mcp-Param-Region".to_string(), "eu".to_string()))
        );
        assert_eq!(
            after.event.map(|e| e.to_json()),
            Some(json!({"event": "mcp-param-headers", "tool": "t",
                        "headers": ["Mcp-Param-Region: eu"]}))
        );
        assert!(h.rejection("bad").is_some());
        assert!(h.rejection("t").is_none());
    }

    #[test]
    fn a_first_page_replaces_a_later_page_adds() {
        let h = ToolHeaders::default();
        h.sent(&listing(1, None));
        h.observe(&result(1, json!([tool("a", "A", "string")])));
        h.sent(&listing(2, Some("p2")));
        h.observe(&result(2, json!([tool("b", "B", "string")])));
        assert_eq!(h.for_frame(&call("a", json!("x"))).headers.len(), 3);
        h.sent(&listing(3, None));
        h.observe(&result(3, json!([tool("b", "B", "string")])));
        assert_eq!(h.for_frame(&call("a", json!("x"))).headers.len(), 2);
        assert_eq!(h.for_frame(&call("b", json!("x"))).headers.len(), 3);
    }

    #[test]
    fn only_awaited_listings_are_learnt() {
        let h = ToolHeaders::default();
        h.observe(&result(1, json!([tool("t", "T", "string")])));
        h.sent(&listing(2, None));
        h.forget(&IdKey::Int(2));
        h.observe(&result(2, json!([tool("t", "T", "string")])));
        assert_eq!(h.for_frame(&call("t", json!("x"))).headers.len(), 2);
        // A batch is looked into.
        h.sent(&listing(3, None));
        let batch = format!(
            "[{}]",
            String::from_utf8(result(3, json!([tool("t", "T", "string")]))).unwrap()
        );
        h.observe(batch.as_bytes());
        assert_eq!(h.for_frame(&call("t", json!("x"))).headers.len(), 3);
    }

    #[test]
    fn headers_follow_the_method() {
        let h = ToolHeaders::default();
        let read = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read",
                          "params": {"uri": "file:///a b"}});
        assert_eq!(
            h.for_frame(&read).headers,
            vec![
                ("mcp-method".to_string(), "resources/read".to_string()),
                ("mcp-name".to_string(), "file:///a b".to_string()),
            ]
        );
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(h.for_frame(&note).headers.len(), 1);
        let response = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        assert!(h.for_frame(&response).headers.is_empty());
    }
}
