//! JSON-RPC ids and progress tokens as hashable keys.
//!
//! Ids and tokens are compared by their JSON value: `7` and `"7"` are different
//! keys, and an integer written `7.0` is not the integer `7`. Anything that is
//! not a string or an integer is kept as its raw JSON text so it can still be
//! indexed and shown.

use serde_json::Value;
use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IdKey {
    Int(i64),
    Str(Box<str>),
    /// null, floats, booleans, objects, arrays: not valid ids, kept verbatim.
    Other(Box<str>),
}

impl IdKey {
    /// Key from raw JSON text (as found in a frame).
    pub fn from_raw(raw: &str) -> IdKey {
        let raw = raw.trim();
        if let Some(b) = raw.as_bytes().first() {
            if *b == b'"' {
                if let Ok(s) = serde_json::from_str::<String>(raw) {
                    return IdKey::Str(s.into());
                }
            } else if (b.is_ascii_digit() || *b == b'-')
                && let Ok(i) = raw.parse::<i64>()
            {
                return IdKey::Int(i);
            }
        }
        IdKey::Other(raw.into())
    }

    /// `IdKey::from_raw(raw).is_valid()` without building the key (the
    /// flood's hot path asks it of every token).
    pub fn raw_is_valid(raw: &str) -> bool {
        let raw = raw.trim();
        match raw.as_bytes().first() {
            Some(b'"') => serde_json::from_str::<&serde_json::value::RawValue>(raw).is_ok(),
            Some(b) if b.is_ascii_digit() || *b == b'-' => raw.parse::<i64>().is_ok(),
            _ => false,
        }
    }

    pub fn from_value(v: &Value) -> IdKey {
        match v {
            Value::String(s) => IdKey::Str(s.as_str().into()),
            Value::Number(n) if n.is_i64() => IdKey::Int(n.as_i64().unwrap_or_default()),
            other => IdKey::Other(other.to_string().into()),
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            IdKey::Int(i) => Value::from(*i),
            IdKey::Str(s) => Value::from(s.as_ref()),
            IdKey::Other(raw) => serde_json::from_str(raw).unwrap_or(Value::Null),
        }
    }

    /// The integer a number written with a fraction or exponent stands for
    /// (`1.0`, `1e0` → `1`): not a valid id, but plainly meant as one.
    pub fn integral(&self) -> Option<IdKey> {
        let IdKey::Other(raw) = self else { return None };
        if !raw.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
            return None;
        }
        let v = raw.parse::<f64>().ok()?;
        (v.fract() == 0.0 && v.abs() < 9.0e15).then_some(IdKey::Int(v as i64))
    }

    /// Strings and integers are the only valid JSON-RPC ids and progress tokens.
    pub fn is_valid(&self) -> bool {
        !matches!(self, IdKey::Other(_))
    }
}

/// An id is written as the JSON value it stands for (as in the frame).
impl serde::Serialize for IdKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for IdKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<IdKey, D::Error> {
        Ok(IdKey::from_value(&Value::deserialize(d)?))
    }
}

impl fmt::Display for IdKey {
    /// Integers bare, strings quoted, so `7` and `"7"` never look alike.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdKey::Int(i) => write!(f, "{i}"),
            IdKey::Str(s) => write!(f, "{:?}", s),
            IdKey::Other(raw) => f.write_str(raw),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_validity_is_the_built_keys_validity() {
        for raw in [
            "7",
            "-3",
            " 12 ",
            "1.5",
            "1e3",
            "99999999999999999999",
            "\"t\"",
            "\"a\\\"b\"",
            "\"\\u00e9\"",
            "\"open",
            "null",
            "true",
            "{}",
            "[1]",
            "",
            "-",
            "\"x\" 1",
        ] {
            assert_eq!(
                IdKey::raw_is_valid(raw),
                IdKey::from_raw(raw).is_valid(),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn keys_by_json_type() {
        assert_eq!(IdKey::from_raw("7"), IdKey::Int(7));
        assert_eq!(IdKey::from_raw("\"7\""), IdKey::Str("7".into()));
        assert_eq!(IdKey::from_raw("7.0"), IdKey::Other("7.0".into()));
        assert_eq!(IdKey::from_raw("null"), IdKey::Other("null".into()));
        assert_eq!(IdKey::from_raw("\"a\\u0062\""), IdKey::Str("ab".into()));
        assert!(!IdKey::from_raw("{}").is_valid());
        assert_eq!(IdKey::from_value(&serde_json::json!(-3)), IdKey::Int(-3));
        assert_eq!(IdKey::Str("x".into()).to_string(), "\"x\"");
        assert_eq!(IdKey::from_raw("1.0").integral(), Some(IdKey::Int(1)));
        assert_eq!(IdKey::from_raw("-2e0").integral(), Some(IdKey::Int(-2)));
        assert_eq!(IdKey::from_raw("1.5").integral(), None);
        assert_eq!(IdKey::from_raw("null").integral(), None);
        assert_eq!(IdKey::from_raw("1e999").integral(), None);
        assert_eq!(IdKey::Int(1).integral(), None);
    }
}
