//! `server-span-trace-not-continued`: SEP-414 documents that a server
//! parents the span of a request on the `traceparent` in its `_meta`. A
//! server SERVER span the OTLP receiver took in names its request by the
//! `jsonrpc.request.id` (and `mcp.method.name`) attributes of the MCP
//! semantic conventions; one whose trace id is not the one the request
//! carried started a trace of its own. Spans are meta events: nothing here
//! runs for progress notifications.

use super::Checker;
use crate::checks::finding::Finding;
use crate::checks::rules::Rule;
use crate::event::Event;
use crate::protocol::IdKey;
use crate::protocol::sanitize::one_line_max;
use crate::trace::EventRef;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};

/// Traced requests remembered (spans often come after the response; a
/// session with more forgets its oldest).
const MAX_TRACED: usize = 4096;

/// A request the client sent with a `traceparent`.
struct Traced {
    seq: u64,
    id: IdKey,
    method: Box<str>,
    trace_id: Box<str>,
}

#[derive(Default)]
pub(super) struct TracedRequests {
    /// By the id as a span attribute writes it (`7`, `abc`).
    by_id: HashMap<String, Traced>,
    order: VecDeque<String>,
}

/// A request id as the `jsonrpc.request.id` attribute carries it.
fn attr_id(id: &IdKey) -> String {
    match id {
        IdKey::Int(i) => i.to_string(),
        IdKey::Str(s) => s.to_string(),
        IdKey::Other(raw) => raw.to_string(),
    }
}

impl TracedRequests {
    /// An outgoing request: remember the trace its `traceparent` starts.
    pub(super) fn request(&mut self, ev: &EventRef<'_>) {
        if memchr::memmem::find(ev.bytes, b"traceparent").is_none() {
            return;
        }
        let (Some(tp), Some(method)) = (
            crate::protocol::trace_context::traceparent_of(ev.bytes),
            ev.method,
        ) else {
            return;
        };
        let Some(id) = ev.frame().id else { return };
        let key = attr_id(&id);
        if !self.by_id.contains_key(&key) {
            if self.order.len() >= MAX_TRACED
                && let Some(old) = self.order.pop_front()
            {
                self.by_id.remove(&old);
            }
            self.order.push_back(key.clone());
        }
        self.by_id.insert(
            key,
            Traced {
                seq: ev.seq,
                id,
                method: method.into(),
                trace_id: tp.trace_id.into(),
            },
        );
    }
}

impl Checker {
    /// A span the server exported: judge a SERVER span against the trace
    /// its request carried.
    pub(super) fn server_span(&mut self, ev: &EventRef<'_>, span: &Event, out: &mut Vec<Finding>) {
        let Event::OtelSpan {
            name,
            trace_id,
            kind,
            attributes,
            ..
        } = span
        else {
            return;
        };
        if kind != "server" {
            return;
        }
        let as_text = |v: &Value| match v {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
        let Some(id) = attributes.get("jsonrpc.request.id").and_then(as_text) else {
            return;
        };
        let method = attributes.get("mcp.method.name").and_then(as_text);
        let Some(req) = self.traced.by_id.get(&id) else {
            return;
        };
        if method.as_deref().is_some_and(|m| m != &*req.method) || *trace_id == *req.trace_id {
            return;
        }
        let message = format!(
            "the server's span \"{}\" for {} id {} is in trace {}, not in trace {} that the request's _meta.traceparent carried: the server started a trace of its own instead of continuing the client's (SEP-414: a server parents its span on an incoming traceparent)",
            one_line_max(name, 80),
            req.method,
            req.id,
            one_line_max(trace_id, 40),
            req.trace_id
        );
        let (seqs, rid) = (vec![req.seq, ev.seq], Some(req.id.clone()));
        self.emit(
            out,
            Rule::ServerSpanTraceNotContinued,
            seqs,
            None,
            rid,
            message,
        );
    }
}
