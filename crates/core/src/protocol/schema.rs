//! JSON Schema as tool inputs and elicitations use it: a property's declared
//! type, the required names, and sample arguments made from a schema. The one
//! generator behind the composer's template, the elicitation answers and the
//! conformance client's calls; each says through [`Sampler`] which
//! properties it fills and with what.

use serde_json::{Map, Value};

/// Which properties of a schema get a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fields {
    /// Only properties that declare a `default`: an answer nobody types
    /// (`--elicit defaults`) says only what the schema itself offers.
    DefaultsOnly,
    /// The names in `required`, whether or not `properties` describes them:
    /// the smallest call a server must accept.
    Required,
    /// Every property with a default, plus every required name: a starting
    /// point that already passes the schema's own checks.
    RequiredAndDefaults,
    /// Every described property: for answers a person fills in, where seeing
    /// every field beats a minimal object.
    All,
}

/// The value for a property that has no `default` (nor, where honoured,
/// `enum` or `const`): one per JSON type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blanks {
    pub string: &'static str,
    pub number: i64,
    pub boolean: bool,
    /// Take `const` as the value. Off, a `const` property gets its type's
    /// blank like any other.
    pub honour_const: bool,
    /// A property with no type, or a type JSON Schema does not name, gets the
    /// string blank (off: `null`). A type list naming only `null` is `null`
    /// either way.
    pub untyped_as_string: bool,
}

/// How to make arguments from a schema: which properties at the top level,
/// which inside nested `object` properties, and the blanks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sampler {
    pub fields: Fields,
    pub nested: Fields,
    pub blanks: Blanks,
}

impl Sampler {
    /// An object of arguments for `schema` (a JSON Schema of type object).
    /// A property's `default` always wins; otherwise its first `enum` value,
    /// its `const` (if honoured), then the blank of its type. Nested objects
    /// are sampled with `self.nested`. A missing or non-object schema gives
    /// `{}`.
    pub fn sample(&self, schema: &Value) -> Value {
        self.object(schema, self.fields)
    }

    fn object(&self, schema: &Value, fields: Fields) -> Value {
        let props = schema.get("properties").and_then(Value::as_object);
        let mut out = Map::new();
        let value = |prop: &Value| {
            prop.get("default")
                .cloned()
                .unwrap_or_else(|| self.blank(prop))
        };
        match fields {
            Fields::DefaultsOnly => {
                for (name, prop) in props.into_iter().flatten() {
                    if let Some(d) = prop.get("default") {
                        out.insert(name.clone(), d.clone());
                    }
                }
            }
            Fields::All => {
                for (name, prop) in props.into_iter().flatten() {
                    out.insert(name.clone(), value(prop));
                }
            }
            Fields::Required | Fields::RequiredAndDefaults => {
                let required = required(schema);
                if fields == Fields::RequiredAndDefaults {
                    for (name, prop) in props.into_iter().flatten() {
                        if let Some(d) = prop.get("default") {
                            out.insert(name.clone(), d.clone());
                        }
                    }
                }
                for name in required {
                    if out.contains_key(&name) {
                        continue;
                    }
                    // A required name the schema does not describe is sampled
                    // as a property with no type.
                    let prop = props.and_then(|p| p.get(&name)).unwrap_or(&Value::Null);
                    out.insert(name, value(prop));
                }
            }
        }
        Value::Object(out)
    }

    fn blank(&self, prop: &Value) -> Value {
        let b = &self.blanks;
        if let Some(first) = prop
            .get("enum")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        {
            return first.clone();
        }
        if b.honour_const
            && let Some(c) = prop.get("const")
        {
            return c.clone();
        }
        let untyped = || {
            if b.untyped_as_string {
                Value::from(b.string)
            } else {
                Value::Null
            }
        };
        match type_of(prop).as_deref() {
            Some("string") => Value::from(b.string),
            Some("integer") | Some("number") => Value::from(b.number),
            Some("boolean") => Value::Bool(b.boolean),
            Some("array") => Value::Array(Vec::new()),
            Some("object") => self.object(prop, self.nested),
            Some("null") => Value::Null,
            Some(_) => untyped(),
            // `"type": ["null"]` declares null; no type at all declares nothing.
            None if prop.get("type").is_some_and(Value::is_array) => Value::Null,
            None => untyped(),
        }
    }
}

/// The first non-null type a property declares.
pub fn type_of(prop: &Value) -> Option<String> {
    match prop.get("type")? {
        Value::String(s) => Some(s.clone()),
        Value::Array(a) => a
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .map(str::to_string),
        _ => None,
    }
}

/// The names a schema's `required` lists (non-strings skipped).
pub fn required(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const EMPTY: Blanks = Blanks {
        string: "",
        number: 0,
        boolean: false,
        honour_const: true,
        untyped_as_string: false,
    };
    const FILLED: Blanks = Blanks {
        string: "s",
        number: 1,
        boolean: true,
        honour_const: false,
        untyped_as_string: true,
    };

    fn sampler(fields: Fields, nested: Fields, blanks: Blanks) -> Sampler {
        Sampler {
            fields,
            nested,
            blanks,
        }
    }

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "d": {"type": "integer", "default": 5},
                "e": {"type": "string", "enum": ["x", "y"]},
                "c": {"type": "string", "const": "k"},
                "n": {"type": ["null", "number"]},
                "z": {"type": ["null"]},
                "u": {},
                "w": {"type": "weird"},
                "b": {"type": "boolean"},
                "a": {"type": "array"},
                "o": {"type": "object", "properties": {
                    "in": {"type": "string"}, "dd": {"type": "number", "default": 2}},
                    "required": ["in"]},
                "opt": {"type": "string"}
            },
            "required": ["e", "c", "n", "z", "u", "w", "b", "a", "o", "ghost", 7]
        })
    }

    #[test]
    fn fields_choose_the_properties() {
        let s = schema();
        let only = sampler(Fields::DefaultsOnly, Fields::DefaultsOnly, EMPTY);
        assert_eq!(only.sample(&s), json!({"d": 5}));
        let all = sampler(Fields::All, Fields::RequiredAndDefaults, EMPTY).sample(&s);
        let keys: Vec<&String> = all.as_object().unwrap().keys().collect();
        assert_eq!(
            keys.len(),
            11,
            "every described property, no ghost: {keys:?}"
        );
        let req = sampler(Fields::Required, Fields::Required, EMPTY).sample(&s);
        assert!(req.get("d").is_none() && req.get("opt").is_none());
        assert_eq!(req["ghost"], Value::Null);
        let both = sampler(Fields::RequiredAndDefaults, Fields::Required, EMPTY).sample(&s);
        assert_eq!(both["d"], 5);
        assert!(both.get("opt").is_none());
    }

    #[test]
    fn blanks_follow_the_type() {
        let s = schema();
        let empty = sampler(
            Fields::RequiredAndDefaults,
            Fields::RequiredAndDefaults,
            EMPTY,
        );
        assert_eq!(
            empty.sample(&s),
            json!({"d": 5, "e": "x", "c": "k", "n": 0, "z": null, "u": null, "w": null,
                   "b": false, "a": [], "o": {"in": "", "dd": 2}, "ghost": null})
        );
        let filled = sampler(Fields::Required, Fields::Required, FILLED);
        assert_eq!(
            filled.sample(&s),
            json!({"e": "x", "c": "s", "n": 1, "z": null, "u": "s", "w": "s",
                   "b": true, "a": [], "o": {"in": "s"}, "ghost": "s"})
        );
    }

    #[test]
    fn no_schema_no_arguments() {
        let s = sampler(Fields::All, Fields::All, FILLED);
        assert_eq!(s.sample(&Value::Null), json!({}));
        assert_eq!(s.sample(&json!("x")), json!({}));
        assert_eq!(
            type_of(&json!({"type": ["null", "string"]})).as_deref(),
            Some("string")
        );
        assert_eq!(type_of(&json!({"type": 3})), None);
        assert_eq!(required(&json!({"required": ["a", 1, "b"]})), ["a", "b"]);
    }
}
