//! OTLP export requests (protobuf or JSON, as `opentelemetry-proto` decodes
//! them) turned into trace events: each span and log record one bounded
//! event, a metrics export one count.

use super::OtelError;
use crate::event::Event;
use crate::protocol::secrets::{REDACTED, is_secret_name, redact_url};
use crate::protocol::views::LogLevel;
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::resource::v1::Resource;
use prost::Message;
use serde_json::{Map, Value};

/// Attributes kept per span or log record; the rest are counted.
pub const MAX_ATTRIBUTES: usize = 32;
/// Characters kept of a name, an attribute value or a log body.
pub const MAX_TEXT: usize = 1024;
/// Spans or log records taken from one export; the rest are counted as dropped.
pub const MAX_PER_EXPORT: usize = 8192;

/// The three OTLP signals, by endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    Traces,
    Logs,
    Metrics,
}

impl Signal {
    pub fn of_path(path: &str) -> Option<Signal> {
        match path {
            "/v1/traces" => Some(Signal::Traces),
            "/v1/logs" => Some(Signal::Logs),
            "/v1/metrics" => Some(Signal::Metrics),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Signal::Traces => "traces",
            Signal::Logs => "logs",
            Signal::Metrics => "metrics",
        }
    }
}

/// How the body is encoded (its `Content-Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Protobuf,
    Json,
}

impl Encoding {
    pub fn of_content_type(ct: &str) -> Option<Encoding> {
        let essence = ct.split(';').next().unwrap_or("").trim();
        if essence.eq_ignore_ascii_case("application/x-protobuf") {
            Some(Encoding::Protobuf)
        } else if essence.eq_ignore_ascii_case("application/json") {
            Some(Encoding::Json)
        } else {
            None
        }
    }
}

/// What one export became: its events, how many items were left out past
/// [`MAX_PER_EXPORT`], and how many spans were refused for an invalid id.
#[derive(Debug, Default)]
pub struct Decoded {
    pub events: Vec<Event>,
    pub dropped: u64,
    pub invalid: u64,
}

/// Why a span is refused ([`Decoded::invalid`]).
pub const INVALID_IDS: &str =
    "an invalid trace or span id (a trace id is 16 bytes, a span id 8, neither all zero)";

fn parse<T: Message + Default + serde::de::DeserializeOwned>(
    enc: Encoding,
    body: &[u8],
) -> Result<T, OtelError> {
    match enc {
        Encoding::Protobuf => T::decode(body).map_err(OtelError::NotProtobuf),
        Encoding::Json => serde_json::from_slice(body).map_err(OtelError::NotJson),
    }
}

/// Decode one export of `signal`.
pub fn decode(signal: Signal, enc: Encoding, body: &[u8]) -> Result<Decoded, OtelError> {
    match signal {
        Signal::Traces => Ok(spans(parse(enc, body)?)),
        Signal::Logs => Ok(logs(parse(enc, body)?)),
        Signal::Metrics => Ok(metrics(parse(enc, body)?)),
    }
}

fn spans(req: ExportTraceServiceRequest) -> Decoded {
    let mut out = Decoded::default();
    for rs in req.resource_spans {
        let service = service_name(rs.resource.as_ref());
        for span in rs.scope_spans.into_iter().flat_map(|s| s.spans) {
            if out.events.len() >= MAX_PER_EXPORT {
                out.dropped += 1;
                continue;
            }
            // The OTLP spec's valid ids; an invalid one would be quoted as
            // if it named a trace, and match nothing.
            let (Some(trace_id), Some(span_id)) = (id(&span.trace_id, 16), id(&span.span_id, 8))
            else {
                out.invalid += 1;
                continue;
            };
            let parent_span_id = match span.parent_span_id.len() {
                0 => None,
                _ => match id(&span.parent_span_id, 8) {
                    Some(p) => Some(p),
                    // All zero is a root by another spelling; any other
                    // length is not an id.
                    None if span.parent_span_id.len() == 8 => None,
                    None => {
                        out.invalid += 1;
                        continue;
                    }
                },
            };
            let (attributes, dropped) = attributes(&span.attributes);
            let status = span.status.unwrap_or_default();
            out.events.push(Event::OtelSpan {
                service: service.clone(),
                name: text(&span.name),
                trace_id,
                span_id,
                parent_span_id,
                kind: span_kind(span.kind).into(),
                start_ns: span.start_time_unix_nano,
                end_ns: span.end_time_unix_nano,
                status: match status.code {
                    1 => "ok",
                    2 => "error",
                    _ => "unset",
                }
                .into(),
                status_message: (!status.message.is_empty()).then(|| text(&status.message)),
                attributes,
                dropped_attributes: dropped + u64::from(span.dropped_attributes_count),
            });
        }
    }
    out
}

fn logs(req: ExportLogsServiceRequest) -> Decoded {
    let mut out = Decoded::default();
    for rl in req.resource_logs {
        let service = service_name(rl.resource.as_ref());
        for rec in rl.scope_logs.into_iter().flat_map(|s| s.log_records) {
            if out.events.len() >= MAX_PER_EXPORT {
                out.dropped += 1;
                continue;
            }
            let (attributes, dropped) = attributes(&rec.attributes);
            let time_ns = if rec.time_unix_nano != 0 {
                rec.time_unix_nano
            } else {
                rec.observed_time_unix_nano
            };
            out.events.push(Event::OtelLog {
                service: service.clone(),
                time_ns,
                severity_number: rec.severity_number,
                severity_text: (!rec.severity_text.is_empty()).then(|| text(&rec.severity_text)),
                level: level_of(rec.severity_number, &rec.severity_text)
                    .as_str()
                    .into(),
                body: rec.body.as_ref().map(body_text).unwrap_or_default(),
                // Optional on a log record: an invalid one is left out.
                trace_id: id(&rec.trace_id, 16),
                span_id: id(&rec.span_id, 8),
                attributes,
                dropped_attributes: dropped + u64::from(rec.dropped_attributes_count),
            });
        }
    }
    out
}

fn metrics(req: ExportMetricsServiceRequest) -> Decoded {
    let mut service = None;
    let (mut metrics, mut points) = (0u64, 0u64);
    for rm in req.resource_metrics {
        service = service.or_else(|| service_name(rm.resource.as_ref()));
        for m in rm.scope_metrics.into_iter().flat_map(|s| s.metrics) {
            metrics += 1;
            points += match m.data {
                Some(Data::Gauge(g)) => g.data_points.len(),
                Some(Data::Sum(s)) => s.data_points.len(),
                Some(Data::Histogram(h)) => h.data_points.len(),
                Some(Data::ExponentialHistogram(h)) => h.data_points.len(),
                Some(Data::Summary(s)) => s.data_points.len(),
                None => 0,
            } as u64;
        }
    }
    Decoded {
        events: vec![Event::OtelMetrics {
            service,
            metrics,
            points,
        }],
        dropped: 0,
        invalid: 0,
    }
}

/// OTel severity numbers (1–24, four per named level) mapped to the MCP
/// levels; an unspecified number (0) goes by the severity text, else info.
pub fn level_of(number: i32, text: &str) -> LogLevel {
    match number {
        1..=8 => LogLevel::Debug,
        9 => LogLevel::Info,
        10..=12 => LogLevel::Notice,
        13..=16 => LogLevel::Warning,
        17..=20 => LogLevel::Error,
        21 => LogLevel::Critical,
        22 => LogLevel::Alert,
        23..=24 => LogLevel::Emergency,
        _ => match text.to_ascii_lowercase().as_str() {
            "trace" | "debug" => LogLevel::Debug,
            "warn" | "warning" => LogLevel::Warning,
            "error" => LogLevel::Error,
            "fatal" | "critical" => LogLevel::Critical,
            _ => LogLevel::Info,
        },
    }
}

fn span_kind(kind: i32) -> &'static str {
    match kind {
        1 => "internal",
        2 => "server",
        3 => "client",
        4 => "producer",
        5 => "consumer",
        _ => "unspecified",
    }
}

fn service_name(resource: Option<&Resource>) -> Option<String> {
    resource?
        .attributes
        .iter()
        .find(|kv| kv.key == "service.name")
        .and_then(|kv| kv.value.as_ref())
        .map(body_text)
}

/// Lower-case hex of an id of `len` bytes; `None` for an absent, all-zero
/// or wrong-length one.
fn id(id: &[u8], len: usize) -> Option<String> {
    if id.len() != len || id.iter().all(|b| *b == 0) {
        return None;
    }
    use std::fmt::Write;
    let mut s = String::with_capacity(len * 2);
    for b in id {
        let _ = write!(s, "{b:02x}");
    }
    Some(s)
}

/// Server text cut to [`MAX_TEXT`] characters (sanitised when printed, like
/// every server string in the trace).
fn text(s: &str) -> String {
    match s.char_indices().nth(MAX_TEXT) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// The first [`MAX_ATTRIBUTES`] attributes as JSON (secrets by name
/// redacted), and how many were left out.
fn attributes(kvs: &[KeyValue]) -> (Map<String, Value>, u64) {
    let mut map = Map::new();
    for kv in kvs.iter().take(MAX_ATTRIBUTES) {
        let v = if is_secret_name(&kv.key) {
            Value::from(REDACTED)
        } else if let Some(url) = url_value(&kv.key, kv.value.as_ref()) {
            Value::from(text(&url))
        } else {
            kv.value.as_ref().map_or(Value::Null, value)
        };
        map.insert(text(&kv.key), v);
    }
    (map, kvs.len().saturating_sub(MAX_ATTRIBUTES) as u64)
}

/// A URL-valued attribute (`url.full`, `http.url`, any string that is a
/// URL with a host; `url.query`) with its password and secret-named query
/// values redacted, as the export redacts a resource's URI. Redacted
/// whole, before it is cut to [`MAX_TEXT`].
fn url_value(key: &str, v: Option<&AnyValue>) -> Option<String> {
    let Some(any_value::Value::StringValue(s)) = v.and_then(|v| v.value.as_ref()) else {
        return None;
    };
    if key == "url.query" {
        let redacted = redact_url(&format!("http://h/?{}", s.trim_start_matches('?')));
        return Some(
            redacted
                .split_once('?')
                .map_or(String::new(), |(_, q)| q.to_string()),
        );
    }
    let looks = s.contains("://") && reqwest::Url::parse(s).is_ok_and(|u| u.has_host());
    looks.then(|| redact_url(s))
}

fn value(v: &AnyValue) -> Value {
    match &v.value {
        Some(any_value::Value::StringValue(s)) => Value::from(text(s)),
        Some(any_value::Value::BoolValue(b)) => Value::from(*b),
        Some(any_value::Value::IntValue(i)) => Value::from(*i),
        Some(any_value::Value::DoubleValue(d)) => Value::from(*d),
        // Arrays, maps and bytes are kept as one bounded text.
        Some(_) => Value::from(body_text(v)),
        None => Value::Null,
    }
}

/// Any value as one bounded text (a log body, a service name).
fn body_text(v: &AnyValue) -> String {
    let s = match &v.value {
        Some(any_value::Value::StringValue(s)) => return text(s),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::DoubleValue(d)) => d.to_string(),
        Some(any_value::Value::ArrayValue(a)) => {
            let items: Vec<Value> = a.values.iter().take(MAX_ATTRIBUTES).map(value).collect();
            Value::from(items).to_string()
        }
        Some(any_value::Value::KvlistValue(kv)) => {
            Value::from(attributes(&kv.values).0).to_string()
        }
        Some(any_value::Value::BytesValue(b)) => format!("<{} bytes>", b.len()),
        _ => String::new(),
    };
    text(&s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_map_to_mcp_levels() {
        assert_eq!(level_of(5, ""), LogLevel::Debug);
        assert_eq!(level_of(9, "INFO"), LogLevel::Info);
        assert_eq!(level_of(11, ""), LogLevel::Notice);
        assert_eq!(level_of(13, "WARN"), LogLevel::Warning);
        assert_eq!(level_of(17, "ERROR"), LogLevel::Error);
        assert_eq!(level_of(21, "FATAL"), LogLevel::Critical);
        assert_eq!(level_of(24, ""), LogLevel::Emergency);
        assert_eq!(level_of(0, "warning"), LogLevel::Warning);
        assert_eq!(level_of(0, ""), LogLevel::Info);
    }

    #[test]
    fn a_json_span_becomes_an_event_with_hex_ids_and_bounded_attributes() {
        let attrs: Vec<Value> = (0..40)
            .map(|i| serde_json::json!({"key": format!("k{i}"), "value": {"intValue": i}}))
            .collect();
        let body = serde_json::json!({"resourceSpans": [{
            "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "srv"}}]},
            "scopeSpans": [{"spans": [{
                "traceId": "5b8efff798038103d269b633813fc60c",
                "spanId": "eee19b7ec3c1b174",
                "parentSpanId": "eee19b7ec3c1b173",
                "name": "tools/call slow_task", "kind": 2,
                "startTimeUnixNano": "1000", "endTimeUnixNano": "3000",
                "attributes": attrs, "status": {"code": 2, "message": "boom"}
            }]}]
        }]});
        let d = decode(Signal::Traces, Encoding::Json, body.to_string().as_bytes()).unwrap();
        let Event::OtelSpan {
            service,
            trace_id,
            parent_span_id,
            kind,
            end_ns,
            status,
            attributes,
            dropped_attributes,
            ..
        } = &d.events[0]
        else {
            panic!("{:?}", d.events)
        };
        assert_eq!(service.as_deref(), Some("srv"));
        assert_eq!(trace_id, "5b8efff798038103d269b633813fc60c");
        assert_eq!(parent_span_id.as_deref(), Some("eee19b7ec3c1b173"));
        assert_eq!(
            (kind.as_str(), *end_ns, status.as_str()),
            ("server", 3000, "error")
        );
        assert_eq!((attributes.len(), *dropped_attributes), (MAX_ATTRIBUTES, 8));
    }

    #[test]
    fn invalid_ids_are_refused_and_urls_lose_their_credentials() {
        let span = |trace: &str, span: &str, parent: &str| {
            serde_json::json!({"traceId": trace, "spanId": span, "parentSpanId": parent,
                "name": "s", "attributes": [
                    {"key": "url.full", "value": {"stringValue": "https://u:pw@h.example/a?token=t1&x=1"}},
                    {"key": "http.url", "value": {"stringValue": "http://h.example/b?api_key=k1"}},
                    {"key": "url.query", "value": {"stringValue": "token=t1&x=1"}},
                    {"key": "note", "value": {"stringValue": "not a url"}}]})
        };
        let good = "5b8efff798038103d269b633813fc60c";
        let body = serde_json::json!({"resourceSpans": [{"scopeSpans": [{"spans": [
            span(good, "eee19b7ec3c1b174", ""),
            span(good, "eee19b7ec3c1b174", "0000000000000000"),
            span("5b8e", "eee19b7ec3c1b174", ""),
            span("00000000000000000000000000000000", "eee19b7ec3c1b174", ""),
            span(good, "0000000000000000", ""),
            span(good, "eee19b7ec3c1b17400", ""),
            span(good, "eee19b7ec3c1b174", "eee1"),
        ]}]}]});
        let d = decode(Signal::Traces, Encoding::Json, body.to_string().as_bytes()).unwrap();
        assert_eq!((d.events.len(), d.invalid), (2, 5));
        let Event::OtelSpan {
            parent_span_id,
            attributes,
            ..
        } = &d.events[1]
        else {
            panic!("{:?}", d.events)
        };
        assert_eq!(parent_span_id, &None, "an all-zero parent is a root");
        let text = serde_json::to_string(attributes).unwrap();
        for secret in ["pw", "t1", "k1"] {
            assert!(!text.contains(secret), "{text}");
        }
        assert!(
            text.contains("h.example/a") && text.contains("x=1"),
            "{text}"
        );
        assert_eq!(attributes["note"], "not a url");
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(decode(Signal::Traces, Encoding::Protobuf, b"\xff\xff\xff").is_err());
        assert!(decode(Signal::Logs, Encoding::Json, b"{").is_err());
    }
}
