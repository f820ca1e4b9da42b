//! The `requestState` of the demo's `input_required` rounds (2026-07-28,
//! SEP-2322): the server keeps nothing between rounds, so what a later
//! round needs travels to the client and back, signed so a client cannot
//! forge or alter it.

use serde_json::{Value, json};
use std::hash::BuildHasher;
use std::sync::OnceLock;

/// The key of this process's signatures: SipHash keyed at random, a PRF, so
/// without the key nobody can produce a valid tag. States die with the
/// process, which is fine for a demo and for fixtures a test drives within
/// one run.
fn key() -> &'static std::hash::RandomState {
    static KEY: OnceLock<std::hash::RandomState> = OnceLock::new();
    KEY.get_or_init(std::hash::RandomState::new)
}

fn tag(data: &str) -> String {
    format!("{:016x}", key().hash_one(data))
}

/// `requestState`: the payload and its tag, as one opaque string.
pub fn sign(payload: &Value) -> String {
    let data = payload.to_string();
    json!({"data": data, "tag": tag(&data)}).to_string()
}

/// The payload of a state this process signed; otherwise why not.
pub fn verify(raw: &str) -> Result<Value, &'static str> {
    const REFUSED: &str =
        "requestState integrity check failed: it is not a state this server signed";
    let outer: Value = serde_json::from_str(raw).map_err(|_| REFUSED)?;
    let (Some(data), Some(t)) = (
        outer.get("data").and_then(Value::as_str),
        outer.get("tag").and_then(Value::as_str),
    ) else {
        return Err(REFUSED);
    };
    if tag(data) != t {
        return Err(REFUSED);
    }
    serde_json::from_str(data).map_err(|_| REFUSED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signed_state_comes_back_and_an_altered_one_does_not() {
        let state = json!({"step": 1, "answers": {"a": 1}});
        let raw = sign(&state);
        assert_eq!(verify(&raw), Ok(state));
        let forged = raw.replace("\"step\\\":1", "\"step\\\":2");
        assert_ne!(forged, raw);
        assert!(verify(&forged).is_err());
        assert!(verify("{}").is_err() && verify("not json").is_err());
    }
}
