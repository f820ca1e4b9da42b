//! One value of a JSON message by its path, without building the message:
//! each level is scanned for the key (or index) and everything else is
//! skipped, so a test of `params.progress` reads a progress notification
//! once and allocates only for the value it compares.

use super::parse::Seg;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// The value at `path` in the JSON text, as its raw text.
pub fn find<'a>(text: &'a str, path: &[Seg]) -> Option<&'a RawValue> {
    let (first, rest) = path.split_first()?;
    let mut at = step(text, first)?;
    for seg in rest {
        at = step(at.get(), seg)?;
    }
    Some(at)
}

/// One level down; the rest of the text after the value is not read
/// (the frame was checked when it was stored).
fn step<'a>(text: &'a str, seg: &Seg) -> Option<&'a RawValue> {
    let mut de = serde_json::Deserializer::from_str(text);
    Step(seg).deserialize(&mut de).ok()?
}

/// The same, parsed (small: one value).
pub fn value_at(text: &str, path: &[Seg]) -> Option<serde_json::Value> {
    serde_json::from_str(find(text, path)?.get()).ok()
}

struct Step<'s>(&'s Seg);

impl<'de> DeserializeSeed<'de> for Step<'_> {
    type Value = Option<&'de RawValue>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        match self.0 {
            Seg::Key(_) => d.deserialize_map(self),
            Seg::Index(_) => d.deserialize_seq(self),
        }
    }
}

impl<'de> Visitor<'de> for Step<'_> {
    type Value = Option<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object or an array")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let Seg::Key(want) = self.0 else {
            return Ok(None);
        };
        let mut found = None;
        while let Some(k) = map.next_key::<Cow<'de, str>>()? {
            if found.is_none() && k == want.as_str() {
                found = Some(map.next_value::<&'de RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let Seg::Index(want) = self.0 else {
            return Ok(None);
        };
        let mut i = 0;
        let mut found = None;
        loop {
            if i == *want {
                match seq.next_element::<&'de RawValue>()? {
                    Some(v) => found = Some(v),
                    None => break,
                }
            } else if seq.next_element::<IgnoredAny>()?.is_none() {
                break;
            }
            i += 1;
        }
        Ok(found)
    }
}

/// A progress token as text: a string as it is, a number as written.
pub fn token_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
