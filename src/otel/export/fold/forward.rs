//! What the server exported to mcpscope's receiver, forwarded as it came:
//! its spans (under its own service name, so the backend shows them under
//! mcpscope's) and its log records (in the trace they name).

use super::{Ready, SpanFold, attrs, ids};
use crate::event::Event;
use opentelemetry_proto::tonic::logs::v1::LogRecord;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::status::StatusCode;
use opentelemetry_proto::tonic::trace::v1::{Span, Status};
use serde_json::Value;

/// A log record the server exported to the receiver, ready to forward.
#[derive(Debug, Clone)]
pub struct ReadyLog {
    pub service: String,
    pub record: LogRecord,
}

/// Log records waiting to leave, at most (the rest are counted).
pub const MAX_LOGS: usize = 4096;

impl SpanFold {
    /// A log record the server exported to the receiver, as it came.
    pub(super) fn forward_log(&mut self, ev: Event) {
        let Event::OtelLog {
            service,
            time_ns,
            severity_number,
            severity_text,
            body,
            trace_id,
            span_id,
            attributes,
            dropped_attributes,
            ..
        } = ev
        else {
            return;
        };
        if self.logs.len() >= MAX_LOGS {
            self.counts.logs_dropped += 1;
            return;
        }
        let record = LogRecord {
            time_unix_nano: time_ns,
            observed_time_unix_nano: self.ctx.unix_ns(self.last_us),
            severity_number,
            severity_text: severity_text.unwrap_or_default(),
            body: Some(attrs::of_json(&Value::String(body))),
            attributes: attributes.iter().map(|(k, v)| attrs::json(k, v)).collect(),
            dropped_attributes_count: dropped_attributes.min(u64::from(u32::MAX)) as u32,
            trace_id: trace_id
                .as_deref()
                .and_then(ids::from_hex::<16>)
                .map(|t| t.to_vec())
                .unwrap_or_default(),
            span_id: span_id
                .as_deref()
                .and_then(ids::from_hex::<8>)
                .map(|s| s.to_vec())
                .unwrap_or_default(),
            ..Default::default()
        };
        self.logs.push_back(ReadyLog {
            service: service.unwrap_or_else(|| "unknown_service".into()),
            record,
        });
    }

    /// The log records waiting to leave, oldest first.
    pub fn take_logs(&mut self) -> Vec<ReadyLog> {
        self.logs.drain(..).collect()
    }

    /// A span the server exported to the receiver, as it came.
    pub(super) fn forward(&mut self, ev: Event) {
        let Event::OtelSpan {
            service,
            name,
            trace_id,
            span_id,
            parent_span_id,
            kind,
            start_ns,
            end_ns,
            status,
            status_message,
            attributes,
            dropped_attributes,
        } = ev
        else {
            return;
        };
        let (Some(t), Some(s)) = (ids::from_hex::<16>(&trace_id), ids::from_hex::<8>(&span_id))
        else {
            return;
        };
        let span = Span {
            trace_id: t.to_vec(),
            span_id: s.to_vec(),
            parent_span_id: parent_span_id
                .as_deref()
                .and_then(ids::from_hex::<8>)
                .map(|p| p.to_vec())
                .unwrap_or_default(),
            name,
            kind: match kind.as_str() {
                "internal" => SpanKind::Internal,
                "server" => SpanKind::Server,
                "client" => SpanKind::Client,
                "producer" => SpanKind::Producer,
                "consumer" => SpanKind::Consumer,
                _ => SpanKind::Unspecified,
            } as i32,
            start_time_unix_nano: start_ns,
            end_time_unix_nano: end_ns,
            attributes: attributes.iter().map(|(k, v)| attrs::json(k, v)).collect(),
            dropped_attributes_count: dropped_attributes.min(u64::from(u32::MAX)) as u32,
            status: Some(Status {
                message: status_message.unwrap_or_default(),
                code: match status.as_str() {
                    "ok" => StatusCode::Ok,
                    "error" => StatusCode::Error,
                    _ => StatusCode::Unset,
                } as i32,
            }),
            ..Default::default()
        };
        self.counts.spans += 1;
        self.done.push_back((
            self.last_us,
            Ready {
                service: Some(service.unwrap_or_else(|| "unknown_service".into())),
                span,
            },
            None,
        ));
    }
}
