//! An elicitation's `requestedSchema` as a form: the flat object of
//! primitive fields the spec allows (string with length and format, number
//! and integer with bounds, boolean, single- and multi-select enums, each
//! with a title, description, default and required-ness), and the checks an
//! answer must pass before it is sent. One model for every face: headless
//! `--elicit accept:JSON` validates with it, a form is built from it.

use serde_json::{Map, Value};

/// A string format the spec names for elicitation fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Email,
    Uri,
    Date,
    DateTime,
}

impl Format {
    fn parse(s: &str) -> Option<Format> {
        match s {
            "email" => Some(Format::Email),
            "uri" => Some(Format::Uri),
            "date" => Some(Format::Date),
            "date-time" => Some(Format::DateTime),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Email => "email",
            Format::Uri => "uri",
            Format::Date => "date",
            Format::DateTime => "date-time",
        }
    }

    fn accepts(self, s: &str) -> bool {
        match self {
            Format::Email => {
                let mut parts = s.splitn(2, '@');
                let (local, domain) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
                !local.is_empty()
                    && domain.contains('.')
                    && !domain.starts_with('.')
                    && !domain.ends_with('.')
                    && !s.chars().any(char::is_whitespace)
            }
            Format::Uri => match s.split_once(':') {
                Some((scheme, rest)) => {
                    scheme
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_ascii_alphabetic())
                        && scheme
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
                        && !rest.is_empty()
                        && !s.chars().any(char::is_whitespace)
                }
                None => false,
            },
            Format::Date => is_date(s),
            Format::DateTime => match s.split_once(['T', 't']) {
                Some((d, t)) => is_date(d) && is_time(t),
                None => false,
            },
        }
    }
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

fn is_date(s: &str) -> bool {
    let mut p = s.split('-');
    let (Some(y), Some(m), Some(d), None) = (p.next(), p.next(), p.next(), p.next()) else {
        return false;
    };
    let (Some(y), Some(m), Some(d)) = (digits(y, 4), digits(m, 2), digits(d, 2)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// `HH:MM:SS[.frac](Z|±HH:MM)`, RFC 3339.
fn is_time(s: &str) -> bool {
    let (clock, zone) = if let Some(c) = s.strip_suffix(['Z', 'z']) {
        (c, None)
    } else if let Some(i) = s.rfind(['+', '-']) {
        (&s[..i], Some(&s[i + 1..]))
    } else {
        return false;
    };
    if let Some(z) = zone {
        let Some((h, m)) = z.split_once(':') else {
            return false;
        };
        if digits(h, 2).is_none_or(|h| h >= 24) || digits(m, 2).is_none_or(|m| m >= 60) {
            return false;
        }
    }
    let clock = clock.split_once('.').map_or(clock, |(c, frac)| {
        if frac.is_empty() || !frac.bytes().all(|b| b.is_ascii_digit()) {
            ""
        } else {
            c
        }
    });
    let mut p = clock.split(':');
    matches!(
        (p.next().and_then(|h| digits(h, 2)), p.next().and_then(|m| digits(m, 2)), p.next().and_then(|s| digits(s, 2)), p.next()),
        (Some(h), Some(m), Some(s), None) if h < 24 && m < 60 && s <= 60
    )
}

/// One choice of an enum: the value sent and the label shown.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub value: String,
    pub title: String,
}

/// What a field holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Text {
        min_len: Option<u64>,
        max_len: Option<u64>,
        format: Option<Format>,
    },
    Number {
        integer: bool,
        min: Option<f64>,
        max: Option<f64>,
    },
    Boolean,
    Select(Vec<Choice>),
    MultiSelect {
        choices: Vec<Choice>,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
}

/// Why a `requestedSchema` cannot be shown as a form.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FormError {
    #[error("requestedSchema is not an object")]
    NotObject,
    #[error("property {0:?} is an array without enum items, which elicitation does not allow")]
    ArrayWithoutEnum(String),
    #[error(
        "property {key:?} has type {ty:?}; elicitation allows string, number, integer, boolean and enum arrays"
    )]
    Type { key: String, ty: String },
}

/// Why a value is not a valid answer to one field; the callers put the
/// field's name in front.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FieldError {
    #[error("at least {min} characters (got {got})")]
    TooShort { min: u64, got: u64 },
    #[error("at most {max} characters (got {got})")]
    TooLong { max: u64, got: u64 },
    #[error("{value:?} is not a valid {format}")]
    Format { value: String, format: &'static str },
    #[error("{0} is not an integer")]
    NotInteger(serde_json::Number),
    #[error("{value} is below the minimum {min}")]
    Below { value: serde_json::Number, min: f64 },
    #[error("{value} is above the maximum {max}")]
    Above { value: serde_json::Number, max: f64 },
    /// `value` as the caller shows it (quoted); `choices` listed.
    #[error("{value} is not one of {choices}")]
    NotAChoice { value: String, choices: String },
    #[error("choose at least {min} (got {got})")]
    TooFew { min: u64, got: u64 },
    #[error("choose at most {max} (got {got})")]
    TooMany { max: u64, got: u64 },
    #[error("expected {expected}, got {got}")]
    Type {
        expected: &'static str,
        got: &'static str,
    },
}

/// One field of the form.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub key: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub kind: Kind,
    pub required: bool,
    pub default: Option<Value>,
}

impl Field {
    /// The label: the title, else the key.
    pub fn label(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.key)
    }

    /// Why `v` is not a valid value of this field, if it is not.
    pub fn check(&self, v: &Value) -> Result<(), FieldError> {
        match (&self.kind, v) {
            (
                Kind::Text {
                    min_len,
                    max_len,
                    format,
                },
                Value::String(s),
            ) => {
                let n = s.chars().count() as u64;
                if let Some(min) = min_len
                    && n < *min
                {
                    return Err(FieldError::TooShort { min: *min, got: n });
                }
                if let Some(max) = max_len
                    && n > *max
                {
                    return Err(FieldError::TooLong { max: *max, got: n });
                }
                if let Some(f) = format
                    && !f.accepts(s)
                {
                    return Err(FieldError::Format {
                        value: s.clone(),
                        format: f.as_str(),
                    });
                }
                Ok(())
            }
            (Kind::Number { integer, min, max }, Value::Number(n)) => {
                let x = n.as_f64().unwrap_or(f64::NAN);
                if *integer && !(n.is_i64() || n.is_u64() || x.fract() == 0.0) {
                    return Err(FieldError::NotInteger(n.clone()));
                }
                if let Some(min) = min
                    && x < *min
                {
                    return Err(FieldError::Below {
                        value: n.clone(),
                        min: *min,
                    });
                }
                if let Some(max) = max
                    && x > *max
                {
                    return Err(FieldError::Above {
                        value: n.clone(),
                        max: *max,
                    });
                }
                Ok(())
            }
            (Kind::Boolean, Value::Bool(_)) => Ok(()),
            (Kind::Select(choices), Value::String(s)) => {
                if choices.iter().any(|c| &c.value == s) {
                    Ok(())
                } else {
                    Err(FieldError::NotAChoice {
                        value: format!("{s:?}"),
                        choices: list(choices),
                    })
                }
            }
            (
                Kind::MultiSelect {
                    choices,
                    min_items,
                    max_items,
                },
                Value::Array(items),
            ) => {
                for it in items {
                    match it.as_str() {
                        Some(s) if choices.iter().any(|c| c.value == s) => {}
                        _ => {
                            return Err(FieldError::NotAChoice {
                                value: it.to_string(),
                                choices: list(choices),
                            });
                        }
                    }
                }
                let n = items.len() as u64;
                if let Some(min) = min_items
                    && n < *min
                {
                    return Err(FieldError::TooFew { min: *min, got: n });
                }
                if let Some(max) = max_items
                    && n > *max
                {
                    return Err(FieldError::TooMany { max: *max, got: n });
                }
                Ok(())
            }
            (kind, v) => Err(FieldError::Type {
                expected: kind_name(kind),
                got: super::frame::json_type_article(v),
            }),
        }
    }
}

fn list(choices: &[Choice]) -> String {
    choices
        .iter()
        .map(|c| format!("{:?}", c.value))
        .collect::<Vec<_>>()
        .join(", ")
}

fn kind_name(k: &Kind) -> &'static str {
    match k {
        Kind::Text { .. } | Kind::Select(_) => "a string",
        Kind::Number { integer: true, .. } => "an integer",
        Kind::Number { .. } => "a number",
        Kind::Boolean => "a boolean",
        Kind::MultiSelect { .. } => "an array of strings",
    }
}

/// The choices of `enum` (with `enumNames` as titles) or `oneOf`/`anyOf`
/// of `{const, title}`.
fn choices(p: &Value) -> Option<Vec<Choice>> {
    if let Some(values) = p.get("enum").and_then(Value::as_array) {
        let names = p.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| {
                    let value = v.as_str()?.to_string();
                    let title = names
                        .and_then(|n| n.get(i))
                        .and_then(Value::as_str)
                        .unwrap_or(&value)
                        .to_string();
                    Some(Choice { value, title })
                })
                .collect(),
        );
    }
    let options = p
        .get("oneOf")
        .or_else(|| p.get("anyOf"))
        .and_then(Value::as_array)?;
    Some(
        options
            .iter()
            .filter_map(|o| {
                let value = o.get("const")?.as_str()?.to_string();
                let title = o
                    .get("title")
                    .and_then(Value::as_str)
                    .unwrap_or(&value)
                    .to_string();
                Some(Choice { value, title })
            })
            .collect(),
    )
}

/// The form of `schema`, field by field in the schema's order. A property
/// the spec does not allow (nested objects, untyped) is an error naming it.
pub fn form(schema: &Value) -> Result<Vec<Field>, FormError> {
    if !schema.is_object() {
        return Err(FormError::NotObject);
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut fields = Vec::with_capacity(props.len());
    for (key, p) in props {
        let text = |k: &str| p.get(k).and_then(Value::as_str).map(str::to_string);
        let num = |k: &str| p.get(k).and_then(Value::as_f64);
        let uint = |k: &str| p.get(k).and_then(Value::as_u64);
        let ty = p.get("type").and_then(Value::as_str).unwrap_or("");
        let kind = match ty {
            "string" => match choices(p) {
                Some(c) => Kind::Select(c),
                None => Kind::Text {
                    min_len: uint("minLength"),
                    max_len: uint("maxLength"),
                    format: p
                        .get("format")
                        .and_then(Value::as_str)
                        .and_then(Format::parse),
                },
            },
            "number" | "integer" => Kind::Number {
                integer: ty == "integer",
                min: num("minimum"),
                max: num("maximum"),
            },
            "boolean" => Kind::Boolean,
            "array" => {
                let items = p.get("items").unwrap_or(&Value::Null);
                match choices(items) {
                    Some(c) => Kind::MultiSelect {
                        choices: c,
                        min_items: uint("minItems"),
                        max_items: uint("maxItems"),
                    },
                    None => {
                        return Err(FormError::ArrayWithoutEnum(key.clone()));
                    }
                }
            }
            other => {
                return Err(FormError::Type {
                    key: key.clone(),
                    ty: other.to_string(),
                });
            }
        };
        fields.push(Field {
            key: key.clone(),
            title: text("title"),
            description: text("description"),
            kind,
            required: required.contains(&key.as_str()),
            default: p.get("default").cloned(),
        });
    }
    Ok(fields)
}

/// Every reason `content` is not an answer to `schema`, one per problem,
/// each naming the field (`/age: expected an integer, got a string`).
pub fn validate(schema: &Value, content: &Map<String, Value>) -> Result<(), Vec<String>> {
    let fields = form(schema).map_err(|e| vec![e.to_string()])?;
    let mut problems = Vec::new();
    for f in &fields {
        match content.get(&f.key) {
            None if f.required => problems.push(format!("/{}: required, missing", f.key)),
            None => {}
            Some(v) => {
                if let Err(e) = f.check(v) {
                    problems.push(format!("/{}: {e}", f.key));
                }
            }
        }
    }
    for k in content.keys() {
        if !fields.iter().any(|f| &f.key == k) {
            problems.push(format!("/{k}: not a field of the requested schema"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// The names of `params.requestedSchema.properties` in the order the server
/// wrote them, read from the request frame's text (a parsed `Value` sorts
/// them); empty when the text does not have them.
pub fn property_order(frame: &str) -> Vec<String> {
    use serde_json::value::RawValue;
    use std::collections::HashMap;
    type Members<'a> = HashMap<String, &'a RawValue>;
    let step = |raw: &str, key: &str| -> Option<String> {
        let m: Members = serde_json::from_str(raw).ok()?;
        m.get(key).map(|v| v.get().to_string())
    };
    let props = step(frame, "params")
        .and_then(|p| step(&p, "requestedSchema"))
        .and_then(|s| step(&s, "properties"));
    props.map_or_else(Vec::new, |p| keys_in_order(&p))
}

/// The keys of a JSON object's text, in the order written.
pub fn keys_in_order(obj: &str) -> Vec<String> {
    use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
    struct Keys;
    impl<'de> Visitor<'de> for Keys {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Vec<String>, A::Error> {
            let mut keys = Vec::new();
            while let Some((k, IgnoredAny)) = m.next_entry::<String, IgnoredAny>()? {
                keys.push(k);
            }
            Ok(keys)
        }
    }
    let mut de = serde_json::Deserializer::from_str(obj);
    (&mut de).deserialize_map(Keys).unwrap_or_default()
}

/// `content` cut to the fields `schema` names, then validated: one answer
/// can serve several forms (a wizard asking step by step), each taking the
/// members it asks for. What remains must pass every check.
pub fn fit(
    schema: &Value,
    content: &Map<String, Value>,
) -> Result<Map<String, Value>, Vec<String>> {
    let fields = form(schema).map_err(|e| vec![e.to_string()])?;
    let kept: Map<String, Value> = content
        .iter()
        .filter(|(k, _)| fields.iter().any(|f| &f.key == *k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    validate(schema, &kept).map(|()| kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Name", "minLength": 2, "maxLength": 5},
                "email": {"type": "string", "format": "email"},
                "born": {"type": "string", "format": "date"},
                "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
                "ratio": {"type": "number", "maximum": 1.5},
                "ok": {"type": "boolean"},
                "color": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]},
                "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
                "tools": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "minItems": 1, "maxItems": 2},
            },
            "required": ["name", "ok"],
        })
    }

    #[test]
    fn the_form_follows_the_schema() {
        // Keys in serde_json's order (sorted): a face that shows the
        // server's order reads it from the frame's text.
        let f = form(&schema()).unwrap();
        let keys: Vec<&str> = f.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "age", "born", "color", "email", "hero", "name", "ok", "ratio", "tools"
            ]
        );
        assert_eq!(f[5].label(), "Name");
        assert_eq!(f[3].label(), "email");
        assert!(f[5].required && f[6].required && !f[0].required);
        assert_eq!(f[0].default, Some(json!(30)));
        assert_eq!(
            f[2].kind,
            Kind::Select(vec![
                Choice {
                    value: "r".into(),
                    title: "Red".into()
                },
                Choice {
                    value: "g".into(),
                    title: "Green".into()
                },
            ])
        );
        assert!(matches!(&f[4].kind, Kind::Select(c) if c[0].title == "Superman"));
        assert!(matches!(
            &f[8].kind,
            Kind::MultiSelect {
                max_items: Some(2),
                ..
            }
        ));
        let nested = json!({"properties": {"x": {"type": "object"}}});
        assert!(form(&nested).unwrap_err().to_string().contains("\"x\""));
    }

    #[test]
    fn good_answers_pass() {
        let ok = json!({"name": "Ada", "email": "a@b.io", "born": "2024-02-29", "age": 36,
            "ratio": 1.25, "ok": true, "color": "g", "hero": "h1", "tools": ["a", "c"]});
        assert_eq!(validate(&schema(), ok.as_object().unwrap()), Ok(()));
        let minimal = json!({"name": "Ada", "ok": false});
        assert_eq!(validate(&schema(), minimal.as_object().unwrap()), Ok(()));
    }

    #[test]
    fn each_problem_is_named() {
        let bad = json!({"name": "A", "email": "nope", "born": "2023-02-29", "age": 1.5,
            "ratio": 2, "color": "blue", "tools": [], "extra": 1});
        let problems = validate(&schema(), bad.as_object().unwrap()).unwrap_err();
        let want = [
            "/age: 1.5 is not an integer",
            "/born: \"2023-02-29\" is not a valid date",
            "/color: \"blue\" is not one of \"r\", \"g\"",
            "/email: \"nope\" is not a valid email",
            "/name: at least 2 characters (got 1)",
            "/ok: required, missing",
            "/ratio: 2 is above the maximum 1.5",
            "/tools: choose at least 1 (got 0)",
            "/extra: not a field of the requested schema",
        ];
        assert_eq!(problems, want);
        let wrong_type = json!({"name": 5, "ok": "yes"});
        assert_eq!(
            validate(&schema(), wrong_type.as_object().unwrap()).unwrap_err(),
            [
                "/name: expected a string, got a number",
                "/ok: expected a boolean, got a string"
            ]
        );
    }

    #[test]
    fn one_answer_serves_several_forms() {
        let answer = json!({"name": "Ada", "ok": true, "elsewhere": 1});
        let kept = fit(&schema(), answer.as_object().unwrap()).unwrap();
        assert_eq!(Value::Object(kept), json!({"name": "Ada", "ok": true}));
        let short = json!({"name": "Ada"});
        assert_eq!(
            fit(&schema(), short.as_object().unwrap()).unwrap_err(),
            ["/ok: required, missing"]
        );
    }

    #[test]
    fn the_servers_order_is_read_from_the_frame() {
        let frame = r#"{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"boolean"},"mid":{"type":"number"}}}}}"#;
        assert_eq!(property_order(frame), ["zeta", "alpha", "mid"]);
        assert!(property_order("{").is_empty());
        assert!(property_order(r#"{"params":{}}"#).is_empty());
    }

    #[test]
    fn formats() {
        for (f, good, bad) in [
            (Format::Uri, "https://x.org/a", "not a uri"),
            (Format::Uri, "mailto:a@b.c", "://x"),
            (
                Format::DateTime,
                "2026-12-01T03:04:05Z",
                "2026-12-01 03:04:05",
            ),
            (
                Format::DateTime,
                "2026-12-01T03:04:05.25+01:00",
                "2026-12-01T25:00:00Z",
            ),
            (Format::Email, "first.last@example.com", "a@b"),
        ] {
            assert!(f.accepts(good), "{good}");
            assert!(!f.accepts(bad), "{bad}");
        }
    }
}
