//! SEP-414's W3C Trace Context keys (`traceparent`, `tracestate`,
//! `baggage`) in the `_meta` of every message either side sends, judged
//! against the W3C formats. Stateless: one frame at a time.

use super::Checker;
use crate::checks::finding::Finding;
use crate::checks::rules::Rule;
use crate::protocol::IdKey;
use crate::protocol::frame::FrameKind;
use crate::protocol::meta;
use crate::protocol::sanitize::one_line_max;
use crate::protocol::trace_context::{KEYS, problems};
use crate::trace::{Dir, EventRef};
use serde_json::Value;

/// How much of a malformed value a finding quotes.
const QUOTE_CHARS: usize = 120;

impl Checker {
    pub(super) fn trace_context(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        if !matches!(
            ev.kind,
            FrameKind::Request | FrameKind::Notification | FrameKind::Response
        ) {
            return;
        }
        // Almost no frame carries one of the keys: a byte search settles it
        // before anything is parsed.
        if !KEYS
            .iter()
            .any(|k| memchr::memmem::find(ev.bytes, k.as_bytes()).is_some())
        {
            return;
        }
        let Ok(v) = serde_json::from_slice::<Value>(ev.bytes) else {
            return;
        };
        let Some(envelope) = v
            .get("params")
            .or_else(|| v.get("result"))
            .and_then(|p| p.get(meta::META))
        else {
            return;
        };
        let found = problems(envelope);
        if found.is_empty() {
            return;
        }
        let (rule, who) = match ev.dir {
            Dir::Out => (Rule::ClientTraceContextInvalid, "the client"),
            _ => (Rule::TraceContextInvalid, "the server"),
        };
        let what = match (ev.kind, ev.method) {
            (FrameKind::Response, Some(m)) => format!("the result of {m}"),
            (FrameKind::Response, None) => "a result".to_string(),
            (_, Some(m)) => m.to_string(),
            (_, None) => "a message".to_string(),
        };
        let id = v.get("id").map(IdKey::from_value);
        for (key, why) in found {
            let value = envelope.get(key).map(Value::to_string).unwrap_or_default();
            let message = format!(
                "{who} sent _meta.{key} = {} in {what}: {}",
                one_line_max(&value, QUOTE_CHARS),
                one_line_max(&why, QUOTE_CHARS * 2)
            );
            self.emit(out, rule, vec![ev.seq], None, id.clone(), message);
        }
    }
}
