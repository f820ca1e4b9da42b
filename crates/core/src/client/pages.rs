//! Results that come in pages (`nextCursor`): every page is fetched and the
//! lists are joined into one result. The join works on the text the server
//! wrote — keys in its order, numbers as written, each item untouched — so
//! a listing printed headless is the server's own JSON, only longer.

use super::{ClientError, Limits, Reply, Session};
use crate::protocol::methods;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::collections::HashSet;

/// No real listing has more pages; a server that never stops is an error.
pub const MAX_PAGES: usize = 10_000;
/// The pages of one listing held at once, in bytes of their results.
pub const MAX_BYTES: usize = 256 << 20;

/// The key of the list in a paginated method's result.
pub fn list_key(method: &str) -> Option<&'static str> {
    match method {
        methods::TOOLS_LIST => Some("tools"),
        methods::RESOURCES_LIST => Some("resources"),
        methods::RESOURCE_TEMPLATES_LIST => Some("resourceTemplates"),
        methods::PROMPTS_LIST => Some("prompts"),
        _ => None,
    }
}

/// Every page of a listing, and the pages joined.
#[derive(Debug)]
pub struct Listing {
    pub pages: Vec<Reply>,
    /// One result: the first page's members with the list of every page
    /// and no `nextCursor`. Compact JSON text.
    pub joined: String,
    /// How many items the joined list holds.
    pub items: usize,
}

impl Session {
    /// Send `method` and follow `nextCursor` to the last page. `params` may
    /// carry other members; each page's request gets the next cursor.
    /// `each` prepares the params of every page's request (a fresh progress
    /// token, say).
    pub async fn request_pages(
        &self,
        method: &str,
        params: Option<Value>,
        limits: Limits,
        mut each: impl FnMut(Option<Value>) -> Option<Value>,
    ) -> Result<Listing, ClientError> {
        let key = list_key(method)
            .ok_or_else(|| ClientError::Protocol(format!("{method} is not a paginated listing")))?;
        let mut pages = Vec::new();
        let mut seen = HashSet::new();
        let mut bytes = 0usize;
        let mut cursor: Option<String> = None;
        loop {
            let mut p = params.clone();
            if let Some(c) = &cursor {
                let mut obj = match p {
                    Some(Value::Object(m)) => m,
                    _ => serde_json::Map::new(),
                };
                obj.insert("cursor".into(), Value::String(c.clone()));
                p = Some(Value::Object(obj));
            }
            let reply = self.request(method, each(p), limits).await?;
            bytes += reply.raw.len();
            let next = match reply.result.get("nextCursor") {
                None | Some(Value::Null) => None,
                Some(Value::String(c)) => Some(c.clone()),
                Some(other) => {
                    return Err(ClientError::Protocol(format!(
                        "{method}: nextCursor is {}, not a string (#{})",
                        crate::protocol::frame::json_type_article(other),
                        reply.seq
                    )));
                }
            };
            pages.push(reply);
            let Some(next) = next else { break };
            if !seen.insert(next.clone()) {
                return Err(ClientError::Protocol(format!(
                    "{method} returned the cursor {next:?} twice; its pages would never end"
                )));
            }
            if pages.len() >= MAX_PAGES {
                return Err(ClientError::Protocol(format!(
                    "{method} did not end after {MAX_PAGES} pages"
                )));
            }
            if bytes > MAX_BYTES {
                return Err(ClientError::Protocol(format!(
                    "{method}: the pages so far hold over {} MiB; not following more",
                    MAX_BYTES >> 20
                )));
            }
            cursor = Some(next);
        }
        let (joined, items) = join(key, &pages).map_err(|e| {
            ClientError::Protocol(format!("{method}: the pages cannot be joined: {e}"))
        })?;
        Ok(Listing {
            pages,
            joined,
            items,
        })
    }
}

/// An object as its members in order, each value as written.
struct RawObject(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for RawObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawObject;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<RawObject, A::Error> {
                let mut members = Vec::new();
                while let Some(kv) = m.next_entry::<String, Box<RawValue>>()? {
                    members.push(kv);
                }
                Ok(RawObject(members))
            }
        }
        d.deserialize_map(V)
    }
}

/// Why the pages of a listing cannot be joined into one result.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    #[error("no pages")]
    NoPages,
    /// A page's result cannot be read as a JSON object.
    #[error("{0}")]
    Page(#[from] serde_json::Error),
    #[error("#{seq}: {key} is not an array")]
    NotArray { seq: u64, key: String },
}

/// The pages' `key` lists as one list, in the first page's object.
pub fn join(key: &str, pages: &[Reply]) -> Result<(String, usize), JoinError> {
    let first = pages.first().ok_or(JoinError::NoPages)?;
    let mut items: Vec<Box<RawValue>> = Vec::new();
    for page in pages {
        let obj: RawObject = serde_json::from_str(&page.raw)?;
        if let Some((_, list)) = obj.0.iter().find(|(k, _)| k == key) {
            let list: Vec<Box<RawValue>> =
                serde_json::from_str(list.get()).map_err(|_| JoinError::NotArray {
                    seq: page.seq,
                    key: key.to_string(),
                })?;
            items.extend(list);
        }
    }
    let head: RawObject = serde_json::from_str(&first.raw)?;
    let mut out = String::from("{");
    let mut wrote_list = false;
    let member = |out: &mut String, k: &str, v: &str| {
        if out.len() > 1 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(k).unwrap_or_default());
        out.push(':');
        out.push_str(v);
    };
    let list_text = || {
        let mut s = String::from("[");
        for (i, it) in items.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(it.get());
        }
        s.push(']');
        s
    };
    for (k, v) in &head.0 {
        if k == "nextCursor" {
            continue;
        }
        if k == key {
            if !wrote_list {
                member(&mut out, k, &list_text());
                wrote_list = true;
            }
            continue;
        }
        member(&mut out, k, v.get());
    }
    if !wrote_list {
        member(&mut out, key, &list_text());
    }
    out.push('}');
    Ok((out, items.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(seq: u64, raw: &str) -> Reply {
        let (result, out_of_range) = crate::protocol::json_text::lenient_value(raw).unwrap();
        Reply {
            seq,
            result,
            raw: raw.into(),
            out_of_range,
        }
    }

    #[test]
    fn pages_join_in_order_keeping_the_servers_text() {
        let pages = [
            reply(
                1,
                r#"{"resources":[{"uri":"a","size":1e999}],"_meta":{"k":1},"nextCursor":"2"}"#,
            ),
            reply(
                2,
                r#"{"nextCursor":"3","resources":[{"uri":"b"},{"uri":"c"}]}"#,
            ),
            reply(3, r#"{"resources":[]}"#),
        ];
        let (joined, n) = join("resources", &pages).unwrap();
        assert_eq!(n, 3);
        assert_eq!(
            joined,
            r#"{"resources":[{"uri":"a","size":1e999},{"uri":"b"},{"uri":"c"}],"_meta":{"k":1}}"#
        );
    }

    #[test]
    fn a_page_without_its_list_adds_nothing_and_a_wrong_list_is_an_error() {
        let pages = [
            reply(1, r#"{"nextCursor":"x"}"#),
            reply(2, r#"{"prompts":[1]}"#),
        ];
        assert_eq!(
            join("prompts", &pages).unwrap(),
            (r#"{"prompts":[1]}"#.into(), 1)
        );
        let bad = [reply(1, r#"{"prompts":{"a":1}}"#)];
        assert!(
            join("prompts", &bad)
                .unwrap_err()
                .to_string()
                .contains("not an array")
        );
    }

    #[test]
    fn listing_methods() {
        assert_eq!(
            list_key("resources/templates/list"),
            Some("resourceTemplates")
        );
        assert_eq!(list_key("resources/read"), None);
    }
}
