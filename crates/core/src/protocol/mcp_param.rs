//! SEP-2243 request headers of the 2026-07-28 Streamable HTTP transport:
//! the `x-mcp-header` annotations of a tool's `inputSchema` (validated, or the
//! reason the tool must be rejected), the `Mcp-Param-{Name}` headers a
//! `tools/call` carries, and the value encoding shared with `Mcp-Name`.

use base64::Engine as _;
use serde_json::Value;

/// The schema keyword that designates a parameter to mirror into a header.
pub const ANNOTATION: &str = "x-mcp-header";
/// Header name prefix of a mirrored parameter.
pub const PREFIX: &str = "Mcp-Param-";
const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// Why a tool's `x-mcp-header` annotations make a client reject the tool;
/// the text is the reason recorded with the rejection.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParamHeaderError {
    #[error("{} on {at} is not a string: {value}", ANNOTATION)]
    NotString { at: String, value: Value },
    #[error("{} on {at} is empty", ANNOTATION)]
    Empty { at: String },
    #[error(
        "{} {name:?} on {at} has {bad:?}, which is not allowed in an HTTP field name",
        ANNOTATION
    )]
    BadChar { name: String, at: String, bad: char },
    /// `ty`: the parameter's `type` as JSON, or `(none)`.
    #[error(
        "{} {name:?} on {at} whose type is {ty}: only string, integer and boolean parameters may be mirrored",
        ANNOTATION
    )]
    NotPrimitive {
        name: String,
        at: String,
        ty: String,
    },
    #[error(
        "{} {name:?} on {at} repeats {first:?} of {first_at} (names must be unique, ignoring case)",
        ANNOTATION
    )]
    Repeated {
        name: String,
        at: String,
        first: String,
        first_at: String,
    },
}

/// One annotated parameter: where its value sits in `arguments` and the
/// name part of its header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamHeader {
    /// Property names from the top of `arguments` down to the parameter
    /// (annotations may sit at any nesting depth).
    pub path: Vec<String>,
    /// The `x-mcp-header` value: the header is `Mcp-Param-{name}`.
    pub name: String,
}

/// The annotated parameters of a tool definition, or why a client must
/// reject (exclude) the tool: an empty or non-token name, a duplicate name
/// (case-insensitive), or an annotation on a non-primitive or `number`
/// parameter.
pub fn tool_headers(tool: &Value) -> Result<Vec<ParamHeader>, ParamHeaderError> {
    let mut out = Vec::new();
    if let Some(schema) = tool.get("inputSchema") {
        walk(schema, &mut Vec::new(), &mut out)?;
    }
    Ok(out)
}

fn walk(
    schema: &Value,
    path: &mut Vec<String>,
    out: &mut Vec<ParamHeader>,
) -> Result<(), ParamHeaderError> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Ok(());
    };
    for (key, prop) in props {
        path.push(key.clone());
        if let Some(ann) = prop.get(ANNOTATION) {
            let name = check_annotation(ann, prop, path)?;
            if let Some(dup) = out.iter().find(|h| h.name.eq_ignore_ascii_case(&name)) {
                return Err(ParamHeaderError::Repeated {
                    name,
                    at: path.join("."),
                    first: dup.name.clone(),
                    first_at: dup.path.join("."),
                });
            }
            out.push(ParamHeader {
                path: path.clone(),
                name,
            });
        }
        walk(prop, path, out)?;
        path.pop();
    }
    Ok(())
}

fn check_annotation(
    ann: &Value,
    prop: &Value,
    path: &[String],
) -> Result<String, ParamHeaderError> {
    let at = path.join(".");
    let Some(name) = ann.as_str() else {
        return Err(ParamHeaderError::NotString {
            at,
            value: ann.clone(),
        });
    };
    if name.is_empty() {
        return Err(ParamHeaderError::Empty { at });
    }
    if let Some(bad) = name.chars().find(|c| !is_tchar(*c)) {
        return Err(ParamHeaderError::BadChar {
            name: name.to_string(),
            at,
            bad,
        });
    }
    // Only string, integer and boolean values have one unambiguous header
    // form; `number` is excluded by the spec (float formatting differs).
    let primitive = |t: &str| matches!(t, "string" | "integer" | "boolean");
    let ok = match prop.get("type") {
        Some(Value::String(t)) => primitive(t),
        Some(Value::Array(ts)) => {
            let names: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            names.len() == ts.len()
                && names.iter().any(|t| primitive(t))
                && names.iter().all(|t| primitive(t) || *t == "null")
        }
        _ => false,
    };
    if !ok {
        let ty = prop
            .get("type")
            .map_or("(none)".to_string(), Value::to_string);
        return Err(ParamHeaderError::NotPrimitive {
            name: name.to_string(),
            at,
            ty,
        });
    }
    Ok(name.to_string())
}

/// RFC 9110 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// The `Mcp-Param-*` headers for a call's `arguments`. A parameter that is
/// absent or `null` gets no header; an object or array value (which the
/// schema does not allow) is not mirrored either.
pub fn headers_for(decls: &[ParamHeader], args: &Value) -> Vec<(String, String)> {
    decls
        .iter()
        .filter_map(|d| {
            let mut v = args;
            for key in &d.path {
                v = v.get(key)?;
            }
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                    (Some(i), _, _) => i.to_string(),
                    (_, Some(u), _) => u.to_string(),
                    // An integral float (42.0) is the integer 42 on the wire.
                    (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 => {
                        (f as i64).to_string()
                    }
                    _ => n.to_string(),
                },
                _ => return None,
            };
            Some((format!("{PREFIX}{}", d.name), encode_value(&text)))
        })
        .collect()
}

/// A header value as the spec encodes it: as-is when it is plain visible
/// ASCII without surrounding whitespace, else `=?base64?{UTF-8 base64}?=`.
/// A plain value that looks like the sentinel is encoded too, so a server
/// never decodes what the user typed literally.
pub fn encode_value(s: &str) -> String {
    let plain = s.bytes().all(|b| (0x20..=0x7e).contains(&b))
        && s.trim() == s
        && !(s.starts_with(SENTINEL_START) && s.ends_with(SENTINEL_END));
    if plain {
        s.to_string()
    } else {
        format!(
            "{SENTINEL_START}{}{SENTINEL_END}",
            base64::engine::general_purpose::STANDARD.encode(s.as_bytes())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(props: Value) -> Value {
        json!({"name": "t", "inputSchema": {"type": "object", "properties": props}})
    }

    #[test]
    fn encodes_like_the_spec_examples() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(encode_value("us west 1"), "us west 1");
        assert_eq!(encode_value(""), "");
        assert_eq!(
            encode_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            encode_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert!(encode_value("\tindented").starts_with(SENTINEL_START));
    }

    #[test]
    fn mirrors_annotated_values_only() {
        let t = tool(json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
            "opts": {"type": "object", "properties": {
                "zone": {"type": ["string", "null"], "x-mcp-header": "Zone"}}},
            "query": {"type": "string"},
        }));
        let decls = tool_headers(&t).expect("valid");
        let mut got = headers_for(
            &decls,
            &json!({"region": "eu", "priority": 42.0, "verbose": null,
                    "opts": {"zone": "b"}, "query": "q"}),
        );
        got.sort();
        assert_eq!(
            got,
            vec![
                ("Mcp-Param-Priority".to_string(), "42".to_string()),
                ("Mcp-Param-Region".to_string(), "eu".to_string()),
                ("Mcp-Param-Zone".to_string(), "b".to_string()),
            ]
        );
    }

    #[test]
    fn rejects_invalid_annotations() {
        let bad = [
            json!({"v": {"type": "string", "x-mcp-header": ""}}),
            json!({"v": {"type": "object", "x-mcp-header": "V"}}),
            json!({"v": {"type": "array", "x-mcp-header": "V"}}),
            json!({"v": {"type": "null", "x-mcp-header": "V"}}),
            json!({"v": {"type": "number", "x-mcp-header": "V"}}),
            json!({"v": {"x-mcp-header": "V"}}),
            json!({"v": {"type": "string", "x-mcp-header": 7}}),
            json!({"a": {"type": "string", "x-mcp-header": "R"},
                   "b": {"type": "string", "x-mcp-header": "r"}}),
            json!({"v": {"type": "string", "x-mcp-header": "My Region"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Region:Primary"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Région"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Region\t1"}}),
        ];
        for props in bad {
            assert!(tool_headers(&tool(props.clone())).is_err(), "{props}");
        }
        assert_eq!(tool_headers(&json!({"name": "plain"})), Ok(vec![]));
    }
}
