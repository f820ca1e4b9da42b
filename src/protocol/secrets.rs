//! Which names carry secrets. One list serves everything mcpscope writes or
//! shows — trace headers and spawn events, the screen, the copied command —
//! and names the headers a cross-origin redirect must not forward.

/// What a secret is replaced with.
pub const REDACTED: &str = "[redacted]";

/// Substrings (lowercase) of names whose values are secrets: Authorization,
/// Cookie, X-Api-Key, GITHUB_TOKEN, db_passwd, Mcp-Session-Id, …
const SECRET_WORDS: [&str; 9] = [
    "auth",
    "cookie",
    "token",
    "secret",
    "key",
    "password",
    "passwd",
    "credential",
    "session",
];

/// Names like Authorization, Cookie, API_KEY, GITHUB_TOKEN, db_password.
pub fn is_secret_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    SECRET_WORDS.iter().any(|w| n.contains(w))
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
    let mut next_is_secret = false;
    argv.iter()
        .map(|a| {
            let out = if next_is_secret {
                REDACTED.to_string()
            } else {
                redact_pair(a).unwrap_or_else(|| a.clone())
            };
            next_is_secret = is_secret_flag(a);
            out
        })
        .collect()
}

/// `--api-key`, `-token`: a flag whose value is the next word.
pub fn is_secret_flag(s: &str) -> bool {
    s.starts_with('-') && !s.contains('=') && is_secret_name(s.trim_start_matches('-'))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
