//! OTLP attribute values: the few shapes the exporter writes, and the
//! received spans' JSON attributes turned back into OTLP values when they
//! are forwarded. Text is cut to the receiver's own limit.

use crate::otel::decode::MAX_TEXT;
use opentelemetry_proto::tonic::common::v1::{
    AnyValue, ArrayValue, KeyValue, KeyValueList, any_value,
};
use serde_json::Value;

fn cut(s: &str) -> String {
    match s.char_indices().nth(MAX_TEXT) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn kv(key: &str, v: any_value::Value) -> KeyValue {
    KeyValue {
        key: key.to_string(),
        value: Some(AnyValue { value: Some(v) }),
        ..Default::default()
    }
}

pub fn string(key: &str, v: &str) -> KeyValue {
    kv(key, any_value::Value::StringValue(cut(v)))
}

pub fn int(key: &str, v: i64) -> KeyValue {
    kv(key, any_value::Value::IntValue(v))
}

pub fn double(key: &str, v: f64) -> KeyValue {
    kv(key, any_value::Value::DoubleValue(v))
}

/// A JSON value as an OTLP value (depth-limited: what the receiver kept
/// is already bounded).
pub fn of_json(v: &Value) -> AnyValue {
    fn go(v: &Value, depth: u8) -> any_value::Value {
        match v {
            Value::Bool(b) => any_value::Value::BoolValue(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => any_value::Value::IntValue(i),
                None => any_value::Value::DoubleValue(n.as_f64().unwrap_or(0.0)),
            },
            Value::String(s) => any_value::Value::StringValue(cut(s)),
            Value::Array(a) if depth < 4 => any_value::Value::ArrayValue(ArrayValue {
                values: a
                    .iter()
                    .map(|x| AnyValue {
                        value: Some(go(x, depth + 1)),
                    })
                    .collect(),
            }),
            Value::Object(m) if depth < 4 => any_value::Value::KvlistValue(KeyValueList {
                values: m.iter().map(|(k, x)| kv(k, go(x, depth + 1))).collect(),
            }),
            Value::Null => any_value::Value::StringValue(String::new()),
            other => any_value::Value::StringValue(cut(&other.to_string())),
        }
    }
    AnyValue {
        value: Some(go(v, 0)),
    }
}

pub fn json(key: &str, v: &Value) -> KeyValue {
    KeyValue {
        key: key.to_string(),
        value: Some(of_json(v)),
        ..Default::default()
    }
}

/// The string value of `key` among `attrs`, if it is one.
pub fn get_str<'a>(attrs: &'a [KeyValue], key: &str) -> Option<&'a str> {
    attrs.iter().find(|kv| kv.key == key).and_then(|kv| {
        match kv.value.as_ref()?.value.as_ref()? {
            any_value::Value::StringValue(s) => Some(s.as_str()),
            _ => None,
        }
    })
}

/// The instrumentation scope of mcpscope's spans and metrics.
pub fn scope() -> opentelemetry_proto::tonic::common::v1::InstrumentationScope {
    opentelemetry_proto::tonic::common::v1::InstrumentationScope {
        name: "mcpscope".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_text_is_cut_and_json_keeps_its_types() {
        let long = "x".repeat(MAX_TEXT + 10);
        let a = string("k", &long);
        assert_eq!(get_str(&[a], "k").unwrap().chars().count(), MAX_TEXT + 1);
        let v = of_json(&json!({"n": 3, "f": 1.5, "b": true, "a": ["s"]}));
        let Some(any_value::Value::KvlistValue(l)) = v.value else {
            panic!("not a list")
        };
        assert_eq!(l.values.len(), 4);
        assert!(l.values.iter().any(|kv| kv.key == "n"
            && kv.value.as_ref().unwrap().value == Some(any_value::Value::IntValue(3))));
    }
}
