//! URI templates (RFC 6570) as resource templates use them: the variables
//! a template names, and its expansion with the values the user typed.
//! Simple `{var}` expansion percent-encodes everything but unreserved
//! characters; the level 2 and 3 operators (`+ # . / ; ? &`) are expanded
//! as the RFC says, so a template using them still reads the right URI.

use serde_json::{Map, Value};

/// The expressions of `template`: (operator, variable names), in order.
fn expressions(template: &str) -> Vec<(Option<char>, Vec<String>)> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let body = &rest[open + 1..open + close];
        let op = body.chars().next().filter(|c| "+#./;?&".contains(*c));
        let names = body[op.map_or(0, char::len_utf8)..]
            .split(',')
            .map(|n| n.trim_end_matches('*').split(':').next().unwrap_or(""))
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect();
        out.push((op, names));
        rest = &rest[open + close + 1..];
    }
    out
}

/// The variables a template names, each once, in order.
pub fn variables(template: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, names) in expressions(template) {
        for n in names {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out
}

/// Variables that only appear in optional parts (query, fragment, path
/// segment, label and parameter expansions, which drop an empty value); the
/// others are part of the URI's shape.
pub fn optional(template: &str) -> Vec<String> {
    let exprs = expressions(template);
    let shaped = |n: &str| {
        exprs
            .iter()
            .any(|(op, names)| matches!(op, None | Some('+')) && names.iter().any(|x| x == n))
    };
    variables(template)
        .into_iter()
        .filter(|n| !shaped(n))
        .collect()
}

fn encode(s: &str, reserved: bool) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        let keep = b.is_ascii_alphanumeric()
            || b"-._~".contains(&b)
            || (reserved && b":/?#[]@!$&'()*+,;=%".contains(&b));
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Expand `template` with `vars` (strings; a variable not given, or given
/// empty where the RFC drops it, is left out).
pub fn expand(template: &str, vars: &Map<String, Value>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..open]);
        let body = &rest[open + 1..open + close];
        let op = body.chars().next().filter(|c| "+#./;?&".contains(*c));
        let (first, sep, named, reserved) = match op {
            None => ("", ",", false, false),
            Some('+') => ("", ",", false, true),
            Some('#') => ("#", ",", false, true),
            Some('.') => (".", ".", false, false),
            Some('/') => ("/", "/", false, false),
            Some(';') => (";", ";", true, false),
            Some('?') => ("?", "&", true, false),
            Some('&') => ("&", "&", true, false),
            Some(_) => ("", ",", false, false),
        };
        let mut parts = Vec::new();
        for name in body[op.map_or(0, char::len_utf8)..].split(',') {
            let name = name.trim_end_matches('*');
            let (name, prefix) = match name.split_once(':') {
                Some((n, len)) => (n, len.parse::<usize>().ok()),
                None => (name, None),
            };
            let Some(v) = vars.get(name) else { continue };
            let v = match v {
                Value::String(s) => s.clone(),
                Value::Null => continue,
                other => other.to_string(),
            };
            let v: String = match prefix {
                Some(n) => v.chars().take(n).collect(),
                None => v,
            };
            let enc = encode(&v, reserved);
            parts.push(match (named, op) {
                (true, Some(';')) if v.is_empty() => name.to_string(),
                (true, _) => format!("{name}={enc}"),
                _ => enc,
            });
        }
        if !parts.is_empty() {
            out.push_str(first);
            out.push_str(&parts.join(sep));
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn simple_expansion_encodes_and_reserved_keeps_slashes() {
        let v = vars(json!({"id": "a b/c", "path": "x/y", "q": "1", "n": "2"}));
        assert_eq!(expand("demo://r/{id}", &v), "demo://r/a%20b%2Fc");
        assert_eq!(expand("file:///{+path}", &v), "file:///x/y");
        assert_eq!(expand("s://x{?q,n}", &v), "s://x?q=1&n=2");
        assert_eq!(expand("s://x{/q,n}{.q}", &v), "s://x/1/2.1");
        assert_eq!(expand("s://{missing}/z", &v), "s:///z");
        assert_eq!(expand("s://{id:1}", &v), "s://a");
        // An unclosed brace is kept as written.
        assert_eq!(expand("s://{oops", &v), "s://{oops");
    }

    #[test]
    fn variables_in_order_once() {
        assert_eq!(
            variables("a://{x}/{+y}{?x,z*}"),
            vec!["x".to_string(), "y".into(), "z".into()]
        );
        assert!(variables("plain://uri").is_empty());
        assert_eq!(
            optional("a://{x}/{+y}{?x,z*}{#f}"),
            vec!["z".to_string(), "f".into()]
        );
    }
}
