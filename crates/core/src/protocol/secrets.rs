//! Which names carry secrets, and how their values are hidden. One list
//! serves everything mcpscope writes or shows — trace headers and spawn
//! events, the screen, the copied command — and names the headers a
//! cross-origin redirect must not forward.

use serde_json::Value;

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Substrings (lowercase) of names whose values are secrets: Authorization,
/// Cookie, X-Api-Key, GITHUB_TOKEN, db_passwd, Mcp-Session-Id, … (`key` is
/// judged apart: [`secret_key`]).
const SECRET_WORDS: [&str; 8] = [
    "auth",
    "cookie",
    "token",
    "secret",
    "password",
    "passwd",
    "credential",
    "session",
];

/// Words that, right before `key`, make it an identifier rather than a
/// secret: `fastmcp.component.key` (FastMCP's tool id), `primary_key`,
/// `sortKey`, `idempotency-key`. Any other `key` (`api_key`, `X-Api-Key`,
/// `private_key`, a bare `key`) stays a secret.
const KEY_IDS: [&str; 8] = [
    "component",
    "primary",
    "foreign",
    "sort",
    "partition",
    "cache",
    "routing",
    "idempotency",
];

/// Names like Authorization, Cookie, API_KEY, GITHUB_TOKEN, db_password.
pub fn is_secret_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    SECRET_WORDS.iter().any(|w| n.contains(w)) || secret_key(&n)
}

/// Whether some `key` in `n` (lowercase) names a secret: every one does
/// unless the word before it is one of [`KEY_IDS`].
fn secret_key(n: &str) -> bool {
    n.match_indices("key").any(|(at, _)| {
        let before = n[..at].trim_end_matches(['.', '_', '-', ' ']);
        let word = before
            .rsplit(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or("");
        !KEY_IDS.contains(&word)
    })
}

/// `Name: value` (a header) or `NAME=value` (env, `--flag=value`) with a
/// secret name, its value replaced; `None` when the name is no secret.
/// Whichever separator comes first splits: `API_KEY=a:b` is one pair.
pub fn redact_pair(s: &str) -> Option<String> {
    let at = s.find([':', '='])?;
    let (name, sep) = (&s[..at], &s[at..=at]);
    if name.contains(' ') || !is_secret_name(name.trim()) {
        return None;
    }
    // Headers read `Name: value`; `NAME=value` has no space to keep.
    let gap = if sep == ":" { " " } else { "" };
    Some(format!("{name}{sep}{gap}{REDACTED}"))
}

/// A command line with secrets replaced: `--api-key=V`, `KEY=V`, and the
/// word after a bare secret-named flag (`--api-key V`).
pub fn redact_argv(argv: &[String]) -> Vec<String> {
    let mut after_flag = false;
    argv.iter()
        .map(|a| {
            let out = redact_word(after_flag, a).unwrap_or_else(|| a.clone());
            after_flag = is_secret_flag(a);
            out
        })
        .collect()
}

/// One word of a command line, its secret replaced: all of it right after a
/// bare secret-named flag, else the value of a secret-named pair; `None`
/// when it is no secret. Argv lists and JSON arrays both go through here.
fn redact_word(after_secret_flag: bool, word: &str) -> Option<String> {
    if after_secret_flag {
        return Some(REDACTED.to_string());
    }
    // JSON with secret-named keys (`--args`), read as JSON: a pair split
    // at its first `:` would cut it.
    if word.starts_with('{')
        && let Ok(mut v) = serde_json::from_str::<Value>(word)
    {
        let before = v.clone();
        redact_json(&mut v);
        return (v != before).then(|| v.to_string());
    }
    if let Some(r) = redact_pair(word) {
        return Some(r);
    }
    // A URL with a password or a secret-named query value (`--url`, `--otlp`).
    if word.contains("://") && url_has_secret(word) {
        return Some(redact_url(word));
    }
    None
}

/// Whether [`redact_url`] would replace anything in `url`.
fn url_has_secret(url: &str) -> bool {
    reqwest::Url::parse(url)
        .is_ok_and(|u| u.password().is_some() || u.query_pairs().any(|(k, _)| is_secret_name(&k)))
}

/// Secrets replaced throughout a JSON value (a server spec, a spawn event):
/// the values of secret-named keys (env vars, headers), and in arrays the
/// strings `redact_argv` would replace (`Name: value` headers, `KEY=value`
/// env strings, command lines).
pub fn redact_json(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, val) in map.iter_mut() {
                if is_secret_name(k) && (val.is_string() || val.is_number()) {
                    *val = Value::String(REDACTED.into());
                } else {
                    redact_json(val);
                }
            }
        }
        Value::Array(items) => {
            let mut after_flag = false;
            for it in items {
                let flag = it.as_str().is_some_and(is_secret_flag);
                match it.as_str().and_then(|s| redact_word(after_flag, s)) {
                    Some(r) => *it = Value::String(r),
                    None => redact_json(it),
                }
                after_flag = flag;
            }
        }
        _ => {}
    }
}

/// A request's `params` with its secrets replaced ([`redact_json`]) but
/// its top-level `_meta`, which is the protocol's (a `progressToken` is no
/// secret). What every output that shows arguments shows: `diff`, HAR, the
/// Mermaid diagram, `replay --print`, the mock's refusals.
pub fn redact_params(params: &mut Value) {
    let meta = params.as_object_mut().and_then(|p| p.remove("_meta"));
    redact_json(params);
    if let (Some(m), Some(p)) = (meta, params.as_object_mut()) {
        p.insert("_meta".into(), m);
    }
}

/// `--api-key`, `-token`: a flag whose value is the next word.
pub fn is_secret_flag(s: &str) -> bool {
    s.starts_with('-') && !s.contains('=') && is_secret_name(s.trim_start_matches('-'))
}

/// `https://user:pw@host/mcp?api_key=x` → password and secret-named query
/// values replaced.
pub fn redact_url(url: &str) -> String {
    let Ok(mut u) = reqwest::Url::parse(url) else {
        return url.to_string();
    };
    if u.password().is_some() {
        // Brackets would be percent-encoded in userinfo.
        let _ = u.set_password(Some("redacted"));
    }
    let pairs: Vec<(String, String)> = u
        .query_pairs()
        .map(|(k, v)| {
            let v = if is_secret_name(&k) {
                REDACTED.to_string()
            } else {
                v.into_owned()
            };
            (k.into_owned(), v)
        })
        .collect();
    if !pairs.is_empty() {
        u.query_pairs_mut().clear().extend_pairs(pairs);
    }
    u.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_command_line_loses_url_passwords_and_secret_json_values() {
        let argv: Vec<String> = [
            "call",
            "--otlp",
            "http://user:pw@127.0.0.1:4318",
            "--url",
            "https://h/mcp?api_key=k&x=1",
            "--args",
            r#"{"password":"p","text":"t"}"#,
            "https://h/plain",
            "{not json",
        ]
        .map(String::from)
        .to_vec();
        let out = redact_argv(&argv);
        assert_eq!(out[2], "http://user:redacted@127.0.0.1:4318/");
        assert_eq!(out[4], "https://h/mcp?api_key=%5Bredacted%5D&x=1");
        assert_eq!(out[6], r#"{"password":"[redacted]","text":"t"}"#);
        // Nothing secret: left exactly as written.
        assert_eq!(out[7], "https://h/plain");
        assert_eq!(out[8], "{not json");
    }

    #[test]
    fn one_list_names_every_kind_of_credential() {
        for n in [
            "Authorization",
            "Proxy-Authorization",
            "Cookie",
            "X-Api-Key",
            "GITHUB_TOKEN",
            "client_secret",
            "DB_PASSWD",
            "aws_credentials",
            "Mcp-Session-Id",
        ] {
            assert!(is_secret_name(n), "{n}");
        }
        for n in ["Accept", "Content-Type", "PATH", "Mcp-Protocol-Version"] {
            assert!(!is_secret_name(n), "{n}");
        }
    }

    #[test]
    fn an_identifier_named_key_is_no_secret_and_a_key_still_is() {
        for n in [
            "fastmcp.component.key",
            "FASTMCP_COMPONENT_KEY",
            "componentKey",
            "primary_key",
            "sortKey",
            "Idempotency-Key",
        ] {
            assert!(!is_secret_name(n), "{n}");
        }
        for n in [
            "api_key",
            "apiKey",
            "X-Api-Key",
            "private_key",
            "key",
            "KEY",
            "signing.key",
            "dd-api-key",
            // Another secret word, or another key, still makes it one.
            "component.secret",
            "component.key.api_key",
            "session_component_key",
        ] {
            assert!(is_secret_name(n), "{n}");
        }
        let mut v = json!({"fastmcp.component.key": "tool:echo", "api_key": "k"});
        redact_json(&mut v);
        assert_eq!(
            v,
            json!({"fastmcp.component.key": "tool:echo", "api_key": REDACTED})
        );
    }

    #[test]
    fn argv_loses_values_not_shape() {
        let argv: Vec<String> = ["srv", "--api-key", "k", "--token=t", "plain", "--x=1"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            redact_argv(&argv),
            [
                "srv",
                "--api-key",
                REDACTED,
                "--token=[redacted]",
                "plain",
                "--x=1"
            ]
        );
        assert_eq!(
            redact_pair("Cookie: a=b").as_deref(),
            Some("Cookie: [redacted]")
        );
        assert_eq!(redact_pair("a b: c"), None);
    }

    #[test]
    fn redaction() {
        let mut v = json!({"env": {"GITHUB_TOKEN": "abc", "PATH": "/bin"},
                           "headers": ["Authorization: Bearer x", "Accept: */*"],
                           "args": ["--api-key=zzz", "plain", "--token", "t0k", "--verbose", "v",
                                    "API_KEY=a:b", "--session", "s1", "--auth-header", "h",
                                    "X-Credential: c", "--db-passwd=p"]});
        redact_json(&mut v);
        assert_eq!(v["env"]["GITHUB_TOKEN"], "[redacted]");
        assert_eq!(v["env"]["PATH"], "/bin");
        assert_eq!(v["headers"][0], "Authorization: [redacted]");
        assert_eq!(v["headers"][1], "Accept: */*");
        assert_eq!(v["args"][0], "--api-key=[redacted]");
        assert_eq!(v["args"][1], "plain");
        assert_eq!(v["args"][3], "[redacted]");
        assert_eq!(v["args"][5], "v");
        // The separator that comes first splits name from value.
        assert_eq!(v["args"][6], "API_KEY=[redacted]");
        assert_eq!(v["args"][8], "[redacted]");
        assert_eq!(v["args"][10], "[redacted]");
        assert_eq!(v["args"][11], "X-Credential: [redacted]");
        assert_eq!(v["args"][12], "--db-passwd=[redacted]");
    }

    #[test]
    fn json_arrays_redact_like_argv() {
        let argv: Vec<String> = ["x", "--token", "--api-key", "k", "A_KEY=v", "-secret", "1"]
            .map(String::from)
            .to_vec();
        let mut v = json!(argv);
        redact_json(&mut v);
        assert_eq!(v, json!(redact_argv(&argv)));
        // A non-string after a secret flag is no word to hide; nested values still are.
        let mut v = json!(["--token", 5, {"token": 1}]);
        redact_json(&mut v);
        assert_eq!(v, json!(["--token", 5, {"token": REDACTED}]));
    }
}
