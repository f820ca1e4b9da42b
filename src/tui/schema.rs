//! A tool's `inputSchema` as the composer uses it: a starting argument
//! object (required properties, defaults, type placeholders) and checks of
//! what the user typed. Checks warn rather than block: sending arguments a
//! schema rejects is a legitimate test of a server.

use crate::protocol::schema::{Blanks, Fields, Sampler};
use crate::protocol::schema::{required, type_of};
use serde_json::Value;

/// Placeholders the user overwrites: empty of each type, `const` and the
/// first `enum` value as they stand, nothing for an untyped property.
const PLACEHOLDERS: Blanks = Blanks {
    string: "",
    number: 0,
    boolean: false,
    honour_const: true,
    untyped_as_string: false,
};

/// The arguments to start from: every property with a default, and every
/// required one (a placeholder of its type when it has no default).
pub fn template(schema: &Value) -> Value {
    Sampler {
        fields: Fields::RequiredAndDefaults,
        nested: Fields::RequiredAndDefaults,
        blanks: PLACEHOLDERS,
    }
    .sample(schema)
}

/// Every property of `schema`: its default, else a placeholder of its type.
/// For answers the user fills in (an elicitation's `requestedSchema`), where
/// seeing every field beats a minimal object.
pub fn skeleton(schema: &Value) -> Value {
    Sampler {
        fields: Fields::All,
        // A nested object starts like a tool's arguments.
        nested: Fields::RequiredAndDefaults,
        blanks: PLACEHOLDERS,
    }
    .sample(schema)
}

fn matches_type(v: &Value, ty: &str) -> bool {
    match ty {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => true,
    }
}

/// Problems with `args` against `schema`, one readable line each.
pub fn check(schema: &Value, args: &Value) -> Vec<String> {
    let Some(obj) = args.as_object() else {
        return vec!["arguments must be a JSON object".into()];
    };
    let mut out = Vec::new();
    for r in required(schema) {
        if !obj.contains_key(&r) {
            out.push(format!("missing required \"{r}\""));
        }
    }
    let props = schema.get("properties").and_then(Value::as_object);
    for (name, v) in obj {
        let Some(prop) = props.and_then(|p| p.get(name)) else {
            if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
                out.push(format!("\"{name}\" is not a property of this tool"));
            }
            continue;
        };
        let types: Vec<&str> = match prop.get("type") {
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        if !types.is_empty() && !types.iter().any(|t| matches_type(v, t)) {
            out.push(format!("\"{name}\" should be {}", types.join(" or ")));
            continue;
        }
        if let Some(allowed) = prop.get("enum").and_then(Value::as_array)
            && !allowed.contains(v)
        {
            let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
            out.push(format!("\"{name}\" should be one of {}", list.join(", ")));
        }
        if let Some(n) = v.as_f64() {
            if let Some(min) = prop.get("minimum").and_then(Value::as_f64)
                && n < min
            {
                out.push(format!("\"{name}\" is below the minimum {min}"));
            }
            if let Some(max) = prop.get("maximum").and_then(Value::as_f64)
                && n > max
            {
                out.push(format!("\"{name}\" is above the maximum {max}"));
            }
        }
    }
    out
}

/// One line per property for the Tools pane: `name: type = default *`.
pub fn describe_props(schema: &Value) -> Vec<(String, String, bool)> {
    let req = required(schema);
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, p)| {
            let mut head = format!("{name}: {}", type_of(p).unwrap_or_else(|| "any".into()));
            if let Some(d) = p.get("default") {
                head.push_str(&format!(" = {d}"));
            }
            if let Some(e) = p.get("enum").and_then(Value::as_array) {
                let list: Vec<String> = e.iter().map(Value::to_string).collect();
                head.push_str(&format!(" ∈ {{{}}}", list.join(", ")));
            }
            let desc = p
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            (head, desc, req.contains(name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn template_and_checks() {
        let schema = json!({
            "type": "object",
            "properties": {
                "size_bytes": {"type": "integer", "default": 5, "minimum": 0},
                "path": {"type": "string"},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "opt": {"type": "boolean"}
            },
            "required": ["path", "mode"]
        });
        assert_eq!(
            template(&schema),
            json!({"size_bytes": 5, "path": "", "mode": "a"})
        );
        assert!(check(&schema, &template(&schema)).is_empty());
        let p = check(&schema, &json!({"size_bytes": "x", "mode": "c"}));
        assert!(
            p.contains(&"missing required \"path\"".to_string()),
            "{p:?}"
        );
        assert!(p.iter().any(|l| l.contains("should be integer")));
        assert!(p.iter().any(|l| l.contains("one of")));
        assert_eq!(
            check(&schema, &json!([1])),
            vec!["arguments must be a JSON object"]
        );
        assert!(
            check(&schema, &json!({"path": "", "mode": "a", "size_bytes": -1}))[0]
                .contains("minimum")
        );
    }
}
