//! The headless lines for received telemetry: `[span] NAME DURATION
//! key=value …` and `[otel-log] LEVEL … body key=value …`, each naming the
//! call (`call=#SEQ`, the seq of the request) whose `traceparent` it
//! continues. Server text is made one safe line here. A server can export
//! without end: past the first [`SHOWN`] spans (log records, drop reports)
//! the rest are counted, with a total at the end.

use crate::event::Event;
use crate::format::flood::Flood;
use crate::protocol::sanitize::{one_line, one_line_max};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fmt::Write;

/// Attribute values longer than this are cut on a line (the trace keeps
/// what the receiver kept).
const VALUE_CHARS: usize = 120;
/// Calls remembered for matching; a session with more matches the latest.
const MAX_CALLS: usize = 4096;
/// Received spans, log records and drop reports, each, printed in a
/// session; the rest are counted.
pub const SHOWN: u64 = 200;

/// Trace ids of the requests sent, for naming a span's call; and how many
/// lines of each kind were said.
#[derive(Debug)]
pub struct CallsByTrace {
    by_trace: HashMap<String, u64>,
    spans: Flood,
    logs: Flood,
    dropped: Flood,
}

impl Default for CallsByTrace {
    fn default() -> CallsByTrace {
        CallsByTrace {
            by_trace: HashMap::new(),
            spans: Flood::new("[span]", "received spans", SHOWN),
            logs: Flood::new("[otel-log]", "received log records", SHOWN),
            dropped: Flood::new("[otel]", "reports of dropped telemetry", SHOWN),
        }
    }
}

impl CallsByTrace {
    /// An outgoing request: remember the trace its `traceparent` starts.
    pub fn observe_request(&mut self, seq: u64, frame: &[u8]) {
        if memchr::memmem::find(frame, b"traceparent").is_none() {
            return;
        }
        if let Some(tp) = crate::protocol::trace_context::traceparent_of(frame) {
            if self.by_trace.len() >= MAX_CALLS {
                self.by_trace.clear();
            }
            self.by_trace.insert(tp.trace_id, seq);
        }
    }

    fn call_of(&self, trace_id: &str) -> Option<u64> {
        self.by_trace.get(trace_id).copied()
    }

    /// The line for a received-telemetry event, `None` for other events;
    /// past the first [`SHOWN`] of its kind, a count line now and then
    /// instead (see [`CallsByTrace::summary`]).
    pub fn line(&mut self, ev: &Event) -> Option<String> {
        let flood = match ev {
            Event::OtelSpan { .. } => &mut self.spans,
            Event::OtelLog { .. } => &mut self.logs,
            Event::OtelDropped { .. } | Event::OtelForeign { .. } => &mut self.dropped,
            _ => return None,
        };
        match flood.note() {
            Ok(()) => self.line_of(ev),
            Err(count) => count,
        }
    }

    /// The totals of what was counted rather than printed.
    pub fn summary(&self) -> Vec<String> {
        [&self.spans, &self.logs, &self.dropped]
            .iter()
            .filter_map(|f| f.summary())
            .collect()
    }

    fn line_of(&self, ev: &Event) -> Option<String> {
        match ev {
            Event::OtelSpan {
                service,
                name,
                trace_id,
                parent_span_id,
                kind,
                start_ns,
                end_ns,
                status,
                status_message,
                attributes,
                ..
            } => {
                let us = end_ns.saturating_sub(*start_ns) / 1000;
                let mut l = format!(
                    "[span] {} {}",
                    one_line(name),
                    crate::format::duration_fine(us)
                );
                self.call(&mut l, Some(trace_id));
                pair(&mut l, "kind", kind);
                if status != "unset" {
                    pair(&mut l, "status", status);
                }
                if let Some(m) = status_message {
                    pair(&mut l, "status.message", m);
                }
                if let Some(s) = service {
                    pair(&mut l, "service", s);
                }
                pair(&mut l, "trace", trace_id);
                if let Some(p) = parent_span_id {
                    pair(&mut l, "parent", p);
                }
                pairs(&mut l, attributes);
                Some(l)
            }
            Event::OtelLog {
                service,
                level,
                body,
                trace_id,
                attributes,
                ..
            } => {
                let mut l = format!("[otel-log] {}", one_line(level));
                self.call(&mut l, trace_id.as_deref());
                if let Some(s) = service {
                    pair(&mut l, "service", s);
                }
                let _ = write!(l, " {}", one_line(body));
                pairs(&mut l, attributes);
                Some(l)
            }
            Event::OtelDropped {
                signal,
                count,
                reason,
            } => Some(format!(
                "[otel] {count} {} dropped: {}",
                if signal == "logs" {
                    "log records"
                } else {
                    "spans"
                },
                one_line(reason)
            )),
            Event::OtelForeign { protocol } => Some(foreign_line(protocol)),
            _ => None,
        }
    }

    fn call(&self, l: &mut String, trace_id: Option<&str>) {
        if let Some(seq) = trace_id.and_then(|t| self.call_of(t)) {
            let _ = write!(l, " call=#{seq}");
        }
    }
}

/// Every received-telemetry line of a store, in order (for commands that
/// print no event lines as they come: `check`).
pub fn store_lines(store: &crate::trace::Store) -> Vec<String> {
    use crate::trace::Dir;
    let mut calls = CallsByTrace::default();
    let mut out = Vec::new();
    for ev in store.range(store.first_seq(), store.next_seq()) {
        match ev.dir {
            Dir::Out => calls.observe_request(ev.seq, ev.bytes),
            Dir::Meta if ev.method.is_some_and(|m| m.starts_with("otel-")) => {
                out.extend(ev.event().and_then(|e| calls.line(&e)));
            }
            _ => {}
        }
    }
    out.extend(calls.summary());
    out
}

/// What arrived that the receiver does not take, and what to change.
fn foreign_line(protocol: &str) -> String {
    match protocol {
        "OTLP/gRPC" => "[otel] OTLP/gRPC arrived: not supported, configure the exporter for http/protobuf (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf)".into(),
        "TLS" => "[otel] TLS arrived at the OTLP receiver: not supported, it speaks plain HTTP (give the exporter its http:// address)".into(),
        other => format!(
            "[otel] {} arrived at the OTLP receiver: not supported, it takes OTLP/HTTP (http/protobuf or http/json)",
            match other {
                "other" => "a protocol other than HTTP/1.1",
                o => o,
            }
        ),
    }
}

fn pair(l: &mut String, k: &str, v: &str) {
    let _ = write!(l, " {}={}", one_line(k), one_line_max(v, VALUE_CHARS));
}

fn pairs(l: &mut String, attrs: &Map<String, Value>) {
    for (k, v) in attrs {
        match v {
            Value::String(s) => pair(l, k, s),
            other => pair(l, k, &other.to_string()),
        }
    }
}
