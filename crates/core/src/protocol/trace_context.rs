//! W3C Trace Context and Baggage in `_meta` (SEP-414): the three keys MCP
//! reserves, whose values "follow W3C Trace Context and W3C Baggage value
//! formats". Here: the grammars, checked as the W3C recommendations state
//! them, and the `traceparent` of the requests mcpscope sends.

use serde_json::Value;

/// Why a `traceparent`, `tracestate` or `baggage` value does not follow its
/// W3C format; the text is what a finding or a log line says about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceContextError {
    #[error("the version {0:?} is not two lowercase hex digits")]
    Version(String),
    #[error("version ff is forbidden")]
    VersionFf,
    #[error("not version-traceid-parentid-flags (four fields joined by '-')")]
    Fields,
    #[error("the {what} {value:?} is not {len} lowercase hex digits")]
    NotHex {
        what: &'static str,
        value: String,
        len: usize,
    },
    #[error("the {what} is all zeros (an invalid id)")]
    AllZeros { what: &'static str },
    #[error("{count} list members (at most {max})")]
    TooManyMembers { count: usize, max: usize },
    #[error("{bytes} bytes (at most {max})")]
    TooLong { bytes: usize, max: usize },
    #[error("the member {0:?} is not key=value")]
    NotKeyValue(String),
    #[error(
        "the key {0:?} is not a tracestate key (lowercase letter first; a-z 0-9 _ - * /; tenant@system)"
    )]
    StateKey(String),
    #[error(
        "the value of {0:?} is not a tracestate value (printable ASCII but ',' and '=', at most 256, not ending in a space)"
    )]
    StateValue(String),
    #[error("the key {0:?} appears twice")]
    KeyTwice(String),
    #[error("the key {0:?} is not an HTTP token")]
    NotToken(String),
    #[error(
        "the value of {0:?} has a character baggage does not allow unencoded (space, '\"', ',', ';', '\\\\' or a non-ASCII byte: percent-encode it)"
    )]
    BaggageValue(String),
    #[error("the property {prop:?} of {key:?} is malformed")]
    Property { prop: String, key: String },
}

/// `traceparent`: version, trace id, parent (span) id, flags.
pub const TRACEPARENT: &str = "traceparent";
/// `tracestate`: vendor entries that travel with the trace.
pub const TRACESTATE: &str = "tracestate";
/// `baggage`: application key/value pairs (W3C Baggage).
pub const BAGGAGE: &str = "baggage";
/// The three keys, in the order they are judged.
pub const KEYS: [&str; 3] = [TRACEPARENT, TRACESTATE, BAGGAGE];

/// A `traceparent` that parsed: the ids as lowercase hex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceParent {
    pub trace_id: String,
    pub parent_id: String,
    pub sampled: bool,
}

impl TraceParent {
    /// A sampled trace context from 24 random bytes (16 for the trace id,
    /// 8 for the span id); an all-zero half, which the format forbids, gets
    /// one bit set.
    pub fn from_bytes(mut b: [u8; 24]) -> TraceParent {
        if b[..16].iter().all(|&x| x == 0) {
            b[0] = 1;
        }
        if b[16..].iter().all(|&x| x == 0) {
            b[16] = 1;
        }
        TraceParent {
            trace_id: hex(&b[..16]),
            parent_id: hex(&b[16..]),
            sampled: true,
        }
    }

    /// The header value (version 00).
    pub fn header(&self) -> String {
        format!(
            "00-{}-{}-{}",
            self.trace_id,
            self.parent_id,
            if self.sampled { "01" } else { "00" }
        )
    }

    /// Parse a `traceparent` value, saying what is wrong with one that does
    /// not follow the format (W3C Trace Context §3.2).
    pub fn parse(s: &str) -> Result<TraceParent, TraceContextError> {
        let parts: Vec<&str> = s.split('-').collect();
        let version = parts[0];
        if version.len() != 2 || !is_lower_hex(version) {
            return Err(TraceContextError::Version(version.to_string()));
        }
        if version == "ff" {
            return Err(TraceContextError::VersionFf);
        }
        // Version 00 has exactly four fields; a later version may append more.
        if parts.len() < 4 || (version == "00" && parts.len() != 4) {
            return Err(TraceContextError::Fields);
        }
        let (trace_id, parent_id, flags) = (parts[1], parts[2], parts[3]);
        field(trace_id, 32, "trace id")?;
        field(parent_id, 16, "parent id")?;
        field(flags, 2, "trace flags")?;
        let flag_bits = u8::from_str_radix(flags, 16).unwrap_or(0);
        Ok(TraceParent {
            trace_id: trace_id.to_string(),
            parent_id: parent_id.to_string(),
            sampled: flag_bits & 1 == 1,
        })
    }
}

fn field(v: &str, len: usize, what: &'static str) -> Result<(), TraceContextError> {
    if v.len() != len || !is_lower_hex(v) {
        return Err(TraceContextError::NotHex {
            what,
            value: v.to_string(),
            len,
        });
    }
    if len != 2 && v.bytes().all(|b| b == b'0') {
        return Err(TraceContextError::AllZeros { what });
    }
    Ok(())
}

fn is_lower_hex(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// At most this many list members in a `tracestate` (W3C Trace Context §3.3.1.1).
const TRACESTATE_MEMBERS: usize = 32;
/// At most this many list members in `baggage`, and bytes (W3C Baggage §3.3.1).
const BAGGAGE_MEMBERS: usize = 64;
const BAGGAGE_BYTES: usize = 8192;

/// Check a `tracestate` value (W3C Trace Context §3.3).
pub fn check_tracestate(s: &str) -> Result<(), TraceContextError> {
    let members: Vec<&str> = s
        .split(',')
        .map(|m| m.trim_matches([' ', '\t']))
        .filter(|m| !m.is_empty())
        .collect();
    if members.len() > TRACESTATE_MEMBERS {
        return Err(TraceContextError::TooManyMembers {
            count: members.len(),
            max: TRACESTATE_MEMBERS,
        });
    }
    let mut keys = std::collections::HashSet::new();
    for m in members {
        let Some((key, value)) = m.split_once('=') else {
            return Err(TraceContextError::NotKeyValue(m.to_string()));
        };
        if !tracestate_key(key) {
            return Err(TraceContextError::StateKey(key.to_string()));
        }
        if !tracestate_value(value) {
            return Err(TraceContextError::StateValue(key.to_string()));
        }
        if !keys.insert(key) {
            return Err(TraceContextError::KeyTwice(key.to_string()));
        }
    }
    Ok(())
}

fn key_char(b: u8) -> bool {
    matches!(b, b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'*' | b'/')
}

fn tracestate_key(k: &str) -> bool {
    let simple = |k: &str, first_digit: bool, max: usize| {
        let b = k.as_bytes();
        !b.is_empty()
            && b.len() <= max
            && (b[0].is_ascii_lowercase() || (first_digit && b[0].is_ascii_digit()))
            && b.iter().all(|&c| key_char(c))
    };
    match k.split_once('@') {
        None => simple(k, false, 256),
        Some((tenant, system)) => simple(tenant, true, 241) && simple(system, false, 14),
    }
}

fn tracestate_value(v: &str) -> bool {
    let b = v.as_bytes();
    !b.is_empty()
        && b.len() <= 256
        && b.iter()
            .all(|&c| (0x20..=0x7e).contains(&c) && c != b',' && c != b'=')
        && b[b.len() - 1] != b' '
}

/// Check a `baggage` value (W3C Baggage §3.2).
pub fn check_baggage(s: &str) -> Result<(), TraceContextError> {
    if s.len() > BAGGAGE_BYTES {
        return Err(TraceContextError::TooLong {
            bytes: s.len(),
            max: BAGGAGE_BYTES,
        });
    }
    let members: Vec<&str> = s.split(',').collect();
    if members.len() > BAGGAGE_MEMBERS {
        return Err(TraceContextError::TooManyMembers {
            count: members.len(),
            max: BAGGAGE_MEMBERS,
        });
    }
    for m in members {
        let mut parts = m.split(';');
        let pair = parts.next().unwrap_or("").trim_matches([' ', '\t']);
        let Some((key, value)) = pair.split_once('=') else {
            return Err(TraceContextError::NotKeyValue(pair.to_string()));
        };
        let (key, value) = (
            key.trim_end_matches([' ', '\t']),
            value.trim_start_matches([' ', '\t']),
        );
        if !is_token(key) {
            return Err(TraceContextError::NotToken(key.to_string()));
        }
        if !baggage_value(value) {
            return Err(TraceContextError::BaggageValue(key.to_string()));
        }
        for prop in parts {
            let prop = prop.trim_matches([' ', '\t']);
            let ok = match prop.split_once('=') {
                None => is_token(prop),
                Some((k, v)) => {
                    is_token(k.trim_end_matches([' ', '\t']))
                        && baggage_value(v.trim_start_matches([' ', '\t']))
                }
            };
            if !ok {
                return Err(TraceContextError::Property {
                    prop: prop.to_string(),
                    key: key.to_string(),
                });
            }
        }
    }
    Ok(())
}

/// RFC 9110 `token`.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

fn baggage_value(v: &str) -> bool {
    v.bytes()
        .all(|b| matches!(b, 0x21 | 0x23..=0x2b | 0x2d..=0x3a | 0x3c..=0x5b | 0x5d..=0x7e))
}

/// What is wrong with the trace context keys of one `_meta` object, as
/// `(key, why)`; empty when every key present follows its format.
pub fn problems(meta: &Value) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for key in KEYS {
        let Some(v) = meta.get(key) else { continue };
        let Some(s) = v.as_str() else {
            out.push((
                key,
                format!("is {}, not a string", super::frame::json_type_article(v)),
            ));
            continue;
        };
        let r = match key {
            TRACEPARENT => TraceParent::parse(s).map(|_| ()),
            TRACESTATE => check_tracestate(s),
            _ => check_baggage(s),
        };
        if let Err(why) = r {
            out.push((key, why.to_string()));
        }
    }
    out
}

/// The `traceparent` in a request's `params._meta`, if it is a valid one.
pub fn traceparent_of(frame: &[u8]) -> Option<TraceParent> {
    let v: Value = serde_json::from_slice(frame).ok()?;
    let tp = v
        .get("params")?
        .get(super::meta::META)?
        .get(TRACEPARENT)?
        .as_str()?;
    TraceParent::parse(tp).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn traceparent_follows_the_recommendation() {
        let ok = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let p = TraceParent::parse(ok).unwrap();
        assert_eq!(p.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
        assert!(p.sampled);
        assert_eq!(p.header(), ok);
        // A later version may carry more fields; its first four still parse.
        assert!(
            TraceParent::parse("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-extra")
                .is_ok()
        );
        for bad in [
            "",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
        ] {
            assert!(TraceParent::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn ids_from_bytes_are_valid() {
        let mut b = [0u8; 24];
        b[..16].copy_from_slice(&[0xab; 16]);
        let p = TraceParent::from_bytes(b);
        assert_eq!(p.trace_id, "ab".repeat(16));
        assert_eq!(
            p.parent_id, "0100000000000000",
            "an all-zero span id is not sent"
        );
        assert_eq!(TraceParent::parse(&p.header()).unwrap(), p);
    }

    #[test]
    fn tracestate_and_baggage() {
        for ok in [
            "rojo=00f067aa0ba902b7",
            "congo=t61rcWkgMzE, rojo=00f067aa0ba902b7",
            "t@sys=v",
            "a=b,,c=d",
            "",
        ] {
            assert!(check_tracestate(ok).is_ok(), "{ok:?}");
        }
        for bad in [
            "Rojo=1",
            "rojo",
            "rojo=a,rojo=b",
            "rojo=a\u{1}",
            "rojo=a=b",
            "9x=1",
        ] {
            assert!(check_tracestate(bad).is_err(), "{bad:?}");
        }
        for ok in ["userId=alice", "a=1, b=2;p;q=r", "k=%20encoded", "k="] {
            assert!(check_baggage(ok).is_ok(), "{ok:?}");
        }
        for bad in ["", "k", "k=a b", "k=\"q\"", "(k)=v", "k=é"] {
            assert!(check_baggage(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn problems_name_the_key() {
        let meta = json!({"traceparent": 12, "tracestate": "ok=1", "baggage": "bad"});
        let p = problems(&meta);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].0, "traceparent");
        assert!(p[0].1.contains("a number"));
        assert_eq!(p[1].0, "baggage");
        assert!(problems(&json!({"progressToken": 1})).is_empty());
    }
}
