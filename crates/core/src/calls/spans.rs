//! A call's spans: the `otel-span` events a server exported whose trace id
//! is the one the call's request carried in `_meta.traceparent`, folded
//! incrementally (spans often arrive after the response, so the fold keeps
//! taking them in) and laid out as a waterfall: children under their
//! parent, siblings by start time.

use crate::event::Event;
use crate::trace::Store;
use std::collections::HashMap;

/// Spans kept for one call; more are counted, not kept.
pub const MAX_KEPT: usize = 256;

/// One span as the waterfall needs it (server text is kept as sent; the
/// face that draws it makes it safe).
#[derive(Debug, Clone, PartialEq)]
pub struct SpanRow {
    pub name: String,
    pub span_id: String,
    pub parent_span_id: Option<String>,
    pub kind: String,
    pub status: String,
    pub start_ns: u64,
    pub end_ns: u64,
    /// The status message and attributes as `key=value` pairs, in the
    /// order the receiver kept them, cut at [`ATTR_CHARS`].
    pub attributes: String,
}

/// Characters of a span's attributes kept for the waterfall.
pub const ATTR_CHARS: usize = 400;

/// `key=value …`, string values bare, others as JSON, at most `max` chars.
fn pairs(
    status_message: Option<&str>,
    attrs: &serde_json::Map<String, serde_json::Value>,
    max: usize,
) -> String {
    let mut out = String::new();
    let mut put = |k: &str, v: &str| {
        if out.chars().count() >= max {
            return;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(k);
        out.push('=');
        out.push_str(v);
    };
    if let Some(m) = status_message {
        put("status.message", m);
    }
    for (k, v) in attrs {
        match v {
            serde_json::Value::String(s) => put(k, s),
            other => put(k, &other.to_string()),
        }
    }
    match out.char_indices().nth(max) {
        Some((at, _)) => {
            out.truncate(at);
            out.push('…');
            out
        }
        None => out,
    }
}

impl SpanRow {
    pub fn duration_us(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns) / 1000
    }
}

/// A waterfall row: the span and how deep it sits under the call's roots.
#[derive(Debug, Clone, PartialEq)]
pub struct Placed<'a> {
    pub span: &'a SpanRow,
    pub depth: usize,
}

#[derive(Debug, Default, Clone)]
pub struct CallSpans {
    /// The trace followed (`None`: nothing followed yet).
    pub trace_id: Option<String>,
    /// `otel-span` events below this seq were looked at.
    next_seq: u64,
    pub spans: Vec<SpanRow>,
    /// Spans of this trace past [`MAX_KEPT`].
    pub more: u64,
}

impl CallSpans {
    /// Follow `trace_id`: start over when it is another trace, then look at
    /// at most `budget` new `otel-span` events. Returns true when caught up.
    pub fn sync(&mut self, trace_id: &str, store: &Store, budget: usize) -> bool {
        if self.trace_id.as_deref() != Some(trace_id) {
            *self = CallSpans {
                trace_id: Some(trace_id.to_string()),
                ..CallSpans::default()
            };
        }
        let all = store.otel_spans();
        let new = &all[all.partition_point(|s| *s < self.next_seq)..];
        let take = new.len().min(budget);
        for &seq in &new[..take] {
            let Some(ev) = store.get(seq) else { continue };
            // The trace id is in the bytes whenever the span is this trace's:
            // most spans of other calls are skipped without decoding.
            if memchr::memmem::find(ev.bytes, trace_id.as_bytes()).is_none() {
                continue;
            }
            let Some(Event::OtelSpan {
                name,
                trace_id: t,
                span_id,
                parent_span_id,
                kind,
                start_ns,
                end_ns,
                status,
                status_message,
                attributes,
                ..
            }) = ev.event()
            else {
                continue;
            };
            if t != trace_id {
                continue;
            }
            if self.spans.len() >= MAX_KEPT {
                self.more += 1;
                continue;
            }
            self.spans.push(SpanRow {
                name,
                span_id,
                parent_span_id,
                kind,
                status,
                start_ns,
                end_ns,
                attributes: pairs(status_message.as_deref(), &attributes, ATTR_CHARS),
            });
        }
        if let Some(&last) = new[..take].last() {
            self.next_seq = last + 1;
        }
        take == new.len()
    }

    /// The earliest start among the spans kept (what offsets count from).
    pub fn first_start_ns(&self) -> Option<u64> {
        self.spans.iter().map(|s| s.start_ns).min()
    }

    /// The spans in waterfall order: each root (a span whose parent is not
    /// among them, such as the server span parented on the client's) by
    /// start time, its children under it by start time, depth first.
    pub fn waterfall(&self) -> Vec<Placed<'_>> {
        let mut children: HashMap<&str, Vec<usize>> = HashMap::new();
        let ids: std::collections::HashSet<&str> =
            self.spans.iter().map(|s| s.span_id.as_str()).collect();
        let mut roots = Vec::new();
        for (i, s) in self.spans.iter().enumerate() {
            match s.parent_span_id.as_deref() {
                Some(p) if ids.contains(p) && p != s.span_id => {
                    children.entry(p).or_default().push(i)
                }
                _ => roots.push(i),
            }
        }
        let by_start = |v: &mut Vec<usize>| {
            crate::sort::by_key(v, |&i| (self.spans[i].start_ns, i));
        };
        by_start(&mut roots);
        for v in children.values_mut() {
            by_start(v);
        }
        let mut out = Vec::with_capacity(self.spans.len());
        let mut seen = vec![false; self.spans.len()];
        let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|&i| (i, 0)).collect();
        while let Some((i, depth)) = stack.pop() {
            // A cycle of parents (a server's mistake) is drawn once.
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            out.push(Placed {
                span: &self.spans[i],
                depth,
            });
            if let Some(kids) = children.get(self.spans[i].span_id.as_str()) {
                stack.extend(kids.iter().rev().map(|&k| (k, depth + 1)));
            }
        }
        // Spans only reachable through a cycle are still shown, as roots.
        for (i, s) in self.spans.iter().enumerate() {
            if !seen[i] {
                out.push(Placed { span: s, depth: 0 });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, parent: Option<&str>, start: u64) -> SpanRow {
        SpanRow {
            name: id.into(),
            span_id: id.into(),
            parent_span_id: parent.map(str::to_string),
            kind: "internal".into(),
            status: "unset".into(),
            start_ns: start,
            end_ns: start + 10,
            attributes: String::new(),
        }
    }

    #[test]
    fn children_sit_under_their_parent_by_start() {
        let s = CallSpans {
            spans: vec![
                row("c2", Some("root"), 5),
                row("root", Some("client"), 0),
                row("g", Some("c1"), 3),
                row("c1", Some("root"), 2),
                row("a", Some("b"), 9),
                row("b", Some("a"), 8),
            ],
            ..CallSpans::default()
        };
        let w: Vec<(&str, usize)> = s
            .waterfall()
            .iter()
            .map(|p| (p.span.name.as_str(), p.depth))
            .collect();
        assert_eq!(
            w,
            [
                ("root", 0),
                ("c1", 1),
                ("g", 2),
                ("c2", 1),
                ("a", 0),
                ("b", 0)
            ]
        );
    }
}
