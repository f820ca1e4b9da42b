//! The tools a server listed, as the rules need them: each `tools/list`
//! result is judged (names unique and, from 2025-11-25, within the naming
//! rules; input and output schemas valid JSON Schema objects), and each
//! tool's outputSchema is kept compiled, against which the
//! `structuredContent` of a `tools/call` result is validated.
//!
//! Schemas are compiled and validated by `boon` (drafts 4 to 2020-12, by
//! `$schema`, 2020-12 when none is named, as 2025-11-25 says). A server's
//! schema may name other documents by `$ref`: none is ever fetched or read
//! (no file, no network); a schema that needs one is not judged.
//!
//! Only those two responses reach this module: nothing here is on the
//! progress path.

use super::Checker;
use crate::calls::safety::Safety;
use crate::checks::finding::Finding;
use crate::checks::rules::Rule;
use crate::protocol::meta::ResultType;
use crate::protocol::{IdKey, Revision, sanitize};
use crate::trace::EventRef;
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};

/// Output schemas kept compiled, at most; past it they are compiled anew
/// from the next listing (`boon` cannot forget one schema).
const MAX_SCHEMAS: usize = 4096;
/// Results kept for a listing still to come (`check` lists after its
/// calls), and the largest kept: a listing judges them when it comes.
const MAX_WAITING: usize = 16;
const MAX_WAITING_BYTES: usize = 1 << 20;
/// Tool names longer than this are outside the 2025-11-25 rules.
const MAX_NAME: usize = 128;

#[derive(Default)]
pub(super) struct Tools {
    schemas: boon::Schemas,
    /// Compiled outputSchema by tool name; `None`: one was declared but
    /// cannot be used (it is invalid, or names documents not at hand).
    output: HashMap<String, Option<boon::SchemaIndex>>,
    /// Schemas compiled so far (each under a location of its own).
    compiled: usize,
    /// A listing was seen: results are judged as they come.
    listed: bool,
    /// Results that came before any listing.
    waiting: VecDeque<Waiting>,
}

/// A `tools/call` result kept for the listing to judge.
struct Waiting {
    tool: String,
    id: IdKey,
    seqs: [u64; 2],
    result: Value,
}

/// How safe each tool said it was (`tool-less-safe-in-session`): the last
/// complete listing's, and the one being paged in. At most
/// `listings::MAX_ITEMS` tools each; a listing with more is compared on
/// its first ones.
#[derive(Default)]
pub(super) struct ListedSafety {
    /// The last complete listing: each tool's safety, and the answer
    /// (its last page) that completed it.
    last: Option<(HashMap<Box<str>, Safety>, u64)>,
    /// The listing whose pages are coming (a page named a next one).
    building: Option<HashMap<Box<str>, Safety>>,
    /// `notifications/tools/list_changed` came since the last listing.
    announced: Option<u64>,
}

impl ListedSafety {
    pub(super) fn announced(&mut self, seq: u64) {
        self.announced.get_or_insert(seq);
    }
}

/// Reads a server's `$ref` to another document: never.
struct NoLoader;

impl boon::UrlLoader for NoLoader {
    fn load(&self, url: &str) -> Result<Value, Box<dyn std::error::Error>> {
        Err(format!("{url} is not fetched: only the schema itself is read").into())
    }
}

/// A schema compiled, or why not.
enum Compiled {
    Ok(boon::SchemaIndex),
    Invalid(String),
    /// It names a document that is not fetched: not judged.
    Unresolved,
}

impl Tools {
    fn compile(&mut self, schema: &Value) -> Compiled {
        let mut c = boon::Compiler::new();
        c.set_default_draft(boon::Draft::V2020_12);
        c.use_loader(Box::new(NoLoader));
        // Each its own location: `Schemas` answers a location it compiled
        // once with that first schema.
        let loc = format!("urn:mcpscope:tool-schema:{}", self.compiled);
        self.compiled += 1;
        if let Err(e) = c.add_resource(&loc, schema.clone()) {
            return Compiled::Invalid(e.to_string());
        }
        match c.compile(&loc, &mut self.schemas) {
            Ok(i) => Compiled::Ok(i),
            Err(boon::CompileError::LoadUrlError { .. }) => Compiled::Unresolved,
            Err(e) => Compiled::Invalid(e.to_string()),
        }
    }
}

/// Why a schema cannot be a tool's input or output schema, if it cannot.
fn not_an_object_schema(schema: &Value) -> Option<&'static str> {
    match schema {
        Value::Object(m) => match m.get("type") {
            Some(Value::String(t)) if t == "object" => None,
            _ => Some("its type is not \"object\""),
        },
        _ => Some("it is not a JSON object"),
    }
}

/// Whether a tool name keeps the 2025-11-25 naming rules.
fn name_is_valid(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// What a `boon` error says without its first line (which names the
/// schema's internal location): `at '/n': want integer, but got string`.
fn causes(error: &str) -> String {
    let lines: Vec<&str> = error
        .lines()
        .skip(1)
        .map(|l| l.trim().trim_start_matches("- ").trim())
        .filter(|l| !l.is_empty())
        .collect();
    match lines.is_empty() {
        true => error.to_string(),
        false => lines.join("; "),
    }
}

fn short(text: &str) -> String {
    let clean = sanitize::one_line(text);
    match clean.char_indices().nth(160) {
        Some((at, _)) => format!("{}…", &clean[..at]),
        None => clean.into_owned(),
    }
}

impl Checker {
    /// A `tools/list` result: its names and schemas.
    pub(super) fn tools_listed(
        &mut self,
        ev: &EventRef<'_>,
        id: &IdKey,
        result: &Value,
        out: &mut Vec<Finding>,
    ) {
        let Some(list) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        if self.tools.compiled > MAX_SCHEMAS {
            self.tools = Tools::default();
        }
        let naming = self.revision.is_some_and(|r| {
            r >= Revision::V2025_11_25 || r.era() == crate::protocol::Era::Stateless
        });
        let mut names = HashSet::new();
        for tool in list {
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            let shown = short(name);
            if !names.insert(name) {
                let message = format!(
                    "tools/list lists two tools named {shown:?}: a client cannot call either unambiguously; give each tool its own name"
                );
                self.emit(
                    out,
                    Rule::ToolNameDuplicate,
                    vec![ev.seq],
                    None,
                    Some(id.clone()),
                    message,
                );
            }
            if naming && !name_is_valid(name) {
                let message = format!(
                    "tool name {shown:?} is outside the naming rules (1 to 128 characters of A-Z, a-z, 0-9, _, - and .)"
                );
                self.emit(
                    out,
                    Rule::ToolNameInvalid,
                    vec![ev.seq],
                    None,
                    Some(id.clone()),
                    message,
                );
            }
            self.tool_schema(ev, id, &shown, "inputSchema", tool.get("inputSchema"), out);
            let output = tool.get("outputSchema");
            let compiled = self.tool_schema(ev, id, &shown, "outputSchema", output, out);
            match output {
                Some(_) => self.tools.output.insert(name.to_string(), compiled),
                None => self.tools.output.remove(name),
            };
        }
        self.tools.listed = true;
        for w in std::mem::take(&mut self.tools.waiting) {
            self.judge_result(&w.tool, &w.id, w.seqs, &w.result, out);
        }
    }

    /// A `tools/list` result, for what each tool says of its safety: once a
    /// listing is complete (its page names no next one), each tool listed
    /// before too that is now less safe — a hint widened, a new required
    /// input (`calls::safety::Safety`, as a baseline's drift is judged) —
    /// is a finding. A tool new to the listing is not: servers add tools.
    pub(super) fn tools_safety(
        &mut self,
        ev: &EventRef<'_>,
        id: &IdKey,
        page: bool,
        result: &Value,
        out: &mut Vec<Finding>,
    ) {
        let Some(list) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        let s = &mut self.tool_safety;
        let mut building = match (page, s.building.take()) {
            (true, Some(b)) => b,
            _ => HashMap::new(),
        };
        for tool in list {
            if building.len() >= crate::calls::listings::MAX_ITEMS {
                break;
            }
            let Some(name) = tool.get("name").and_then(Value::as_str) else {
                continue;
            };
            building
                .entry(Box::from(name))
                .or_insert_with(|| Safety::of(tool));
        }
        let more = result
            .get("nextCursor")
            .is_some_and(|c| !c.is_null() && c != "");
        if more {
            s.building = Some(building);
            return;
        }
        let announced = s.announced.take();
        let Some((before, before_seq)) = s.last.replace((building, ev.seq)) else {
            return;
        };
        let Some((now, _)) = &self.tool_safety.last else {
            return;
        };
        let mut changed: Vec<(String, Vec<String>)> = now
            .iter()
            .filter_map(|(name, safety)| {
                let why = safety.less_safe_than(before.get(name)?);
                (!why.is_empty()).then(|| (short(name), why))
            })
            .collect();
        crate::sort::sort(&mut changed);
        let how = match announced {
            Some(n) => format!("after notifications/tools/list_changed (#{n})"),
            None => "without notifications/tools/list_changed".to_string(),
        };
        for (name, why) in changed {
            let why: Vec<String> = why
                .iter()
                .map(|w| sanitize::one_line(w).into_owned())
                .collect();
            let message = format!(
                "tool {name:?} turned less safe within the session: {} (listed at #{before_seq}, again at #{} {how}); a client that approved the tool as it was may now run it as it is",
                why.join("; "),
                ev.seq
            );
            self.emit(
                out,
                Rule::ToolLessSafeInSession,
                vec![before_seq, ev.seq],
                None,
                Some(id.clone()),
                message,
            );
        }
    }

    /// Judge one of a tool's schemas; the compiled schema when it is usable.
    fn tool_schema(
        &mut self,
        ev: &EventRef<'_>,
        id: &IdKey,
        tool: &str,
        which: &str,
        schema: Option<&Value>,
        out: &mut Vec<Finding>,
    ) -> Option<boon::SchemaIndex> {
        let schema = schema?;
        let why = match not_an_object_schema(schema) {
            Some(why) => why.to_string(),
            None => match self.tools.compile(schema) {
                Compiled::Ok(i) => return Some(i),
                Compiled::Unresolved => return None,
                Compiled::Invalid(why) => format!("it is not valid JSON Schema: {}", short(&why)),
            },
        };
        let message = format!("tool {tool:?}: its {which} cannot be used, {why}");
        self.emit(
            out,
            Rule::ToolSchemaInvalid,
            vec![ev.seq],
            None,
            Some(id.clone()),
            message,
        );
        None
    }

    /// A `tools/call` result for `tool`, requested at `req_seq`.
    pub(super) fn tool_result(
        &mut self,
        ev: &EventRef<'_>,
        id: &IdKey,
        tool: &str,
        req_seq: u64,
        result: Option<&serde_json::value::RawValue>,
        out: &mut Vec<Finding>,
    ) {
        let seqs = [req_seq, ev.seq];
        if !self.tools.listed {
            let Some(raw) = result.filter(|r| r.get().len() <= MAX_WAITING_BYTES) else {
                return;
            };
            let Ok(result) = serde_json::from_str::<Value>(raw.get()) else {
                return;
            };
            if self.tools.waiting.len() == MAX_WAITING {
                self.tools.waiting.pop_front();
            }
            let (tool, id) = (tool.to_string(), id.clone());
            self.tools.waiting.push_back(Waiting {
                tool,
                id,
                seqs,
                result,
            });
            return;
        }
        let Some(Some(_)) = self.tools.output.get(tool) else {
            return;
        };
        // Parsed only for a tool with a usable outputSchema.
        let Some(result) = result.and_then(|r| serde_json::from_str::<Value>(r.get()).ok()) else {
            return;
        };
        self.judge_result(tool, id, seqs, &result, out);
    }

    /// Judge a result against its tool's declared outputSchema.
    fn judge_result(
        &mut self,
        tool: &str,
        id: &IdKey,
        seqs: [u64; 2],
        result: &Value,
        out: &mut Vec<Finding>,
    ) {
        let Some(Some(schema)) = self.tools.output.get(tool).copied() else {
            return;
        };
        // An error result reports the failure, not the tool's output; a
        // result that is not the tool's yet (`input_required`, a task
        // handle, either era's) has none to judge.
        if result.get("isError").and_then(Value::as_bool) == Some(true)
            || ResultType::of(result).is_some_and(|t| t != ResultType::Complete)
            || result.get("task").is_some_and(Value::is_object)
        {
            return;
        }
        let shown = short(tool);
        let why = match result.get("structuredContent") {
            None => "has no structuredContent though the tool declared an outputSchema".to_string(),
            Some(content) => match self.tools.schemas.validate(content, schema) {
                Ok(()) => return,
                Err(e) => format!(
                    "has structuredContent that does not validate against the tool's outputSchema: {}",
                    short(&causes(&e.to_string()))
                ),
            },
        };
        let message = format!(
            "the result of {shown:?} {why}; structured results must conform to the declared schema"
        );
        self.emit(
            out,
            Rule::ToolOutputInvalid,
            seqs.to_vec(),
            None,
            Some(id.clone()),
            message,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_rules() {
        assert!(name_is_valid("get_user.v2-beta"));
        assert!(!name_is_valid(""));
        assert!(!name_is_valid("has space"));
        assert!(!name_is_valid("slash/name"));
        assert!(!name_is_valid(&"a".repeat(129)));
        assert!(name_is_valid(&"a".repeat(128)));
    }

    #[test]
    fn schemas_compile_refuse_and_never_load() {
        let mut t = Tools::default();
        let ok = serde_json::json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
        let Compiled::Ok(i) = t.compile(&ok) else {
            panic!("valid schema refused")
        };
        assert!(t.schemas.validate(&serde_json::json!({"n": 1}), i).is_ok());
        assert!(
            t.schemas
                .validate(&serde_json::json!({"n": "x"}), i)
                .is_err()
        );
        let bad = serde_json::json!({"type": "object", "properties": {"n": {"type": 5}}});
        assert!(matches!(t.compile(&bad), Compiled::Invalid(_)));
        let local = serde_json::json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/s"}}, "$defs": {"s": {"type": "string"}}});
        let Compiled::Ok(i) = t.compile(&local) else {
            panic!("local $ref refused")
        };
        assert!(t.schemas.validate(&serde_json::json!({"n": 1}), i).is_err());
        let file = serde_json::json!({"type": "object", "properties": {"n": {"$ref": "file:///tmp/x.json"}}});
        let got = t.compile(&file);
        assert!(matches!(got, Compiled::Unresolved));
        let draft7 = serde_json::json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "definitions": {}});
        assert!(matches!(t.compile(&draft7), Compiled::Ok(_)));
    }
}
