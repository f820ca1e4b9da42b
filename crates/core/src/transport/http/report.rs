//! HTTP outcomes in words a user can act on: error statuses (with the
//! server's authentication challenge and what to do about it), the first
//! line of a body, and the causes reqwest keeps in an error's sources.

use crate::protocol::sanitize::one_line;
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, WWW_AUTHENTICATE};

/// How much of a challenge is kept: enough for realm, scope and
/// resource_metadata, not a server-sized blob.
const MAX_CHALLENGE_CHARS: usize = 300;

/// The `WWW-Authenticate` challenges of a response, joined and sanitised.
pub fn challenge(headers: &HeaderMap) -> Option<String> {
    let all: Vec<String> = headers
        .get_all(WWW_AUTHENTICATE)
        .iter()
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .collect();
    (!all.is_empty()).then(|| challenge_of(&all))
}

/// Challenges (header values) joined and sanitised, at most
/// [`MAX_CHALLENGE_CHARS`] of them.
pub fn challenge_of(values: &[String]) -> String {
    let all: Vec<String> = values.iter().map(|v| one_line(v).into_owned()).collect();
    if all.is_empty() {
        return "none".into();
    }
    let joined = all.join(", ");
    let mut out: String = joined.chars().take(MAX_CHALLENGE_CHARS).collect();
    if out.len() < joined.len() {
        out.push('…');
    }
    out
}

/// `HTTP 401 Unauthorized: …` — the status, and for 401/403 the challenge
/// and the ways to send credentials.
pub fn describe(status: u16, challenge: Option<&str>) -> String {
    let head = match StatusCode::from_u16(status) {
        Ok(s) => format!("HTTP {s}"),
        Err(_) => format!("HTTP {status}"),
    };
    let named = |c: Option<&str>| match c {
        Some(c) => format!("WWW-Authenticate: {c}"),
        None => "no WWW-Authenticate header".to_string(),
    };
    match status {
        401 => format!(
            "{head}: the server wants credentials ({}); authorize with `mcpscope auth login --url URL`, or pass them with -H 'Authorization: Bearer …'",
            named(challenge)
        ),
        403 => format!(
            "{head}: the credentials were refused or lack a permission ({})",
            named(challenge)
        ),
        _ => head,
    }
}

/// Why a request failed with an error status: the status in words, then
/// the start of whatever body came with it.
pub fn failure(status: u16, challenge: Option<&str>, body: &[u8]) -> String {
    format!("{} — {}", describe(status, challenge), first_line(body))
}

pub fn trim_body(b: &[u8]) -> &[u8] {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    let end = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &b[start..end]
}

pub fn first_line(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(trim_body(b));
    let line: String = s.lines().next().unwrap_or("").chars().take(160).collect();
    if line.is_empty() {
        "(empty body)".into()
    } else {
        line
    }
}

/// reqwest errors hide the useful part (connection refused) in their sources.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(inner) = src {
        let t = inner.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        src = inner.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    #[test]
    fn a_401_names_the_challenge_and_the_way_out() {
        let mut h = HeaderMap::new();
        h.append(
            WWW_AUTHENTICATE,
            HeaderValue::from_static(r#"Bearer resource_metadata="https://x/.well-known/oauth""#),
        );
        h.append(
            WWW_AUTHENTICATE,
            HeaderValue::from_bytes(b"Basic realm=\"a\tb\xff\"").unwrap(),
        );
        let c = challenge(&h).unwrap();
        assert_eq!(
            c,
            "Bearer resource_metadata=\"https://x/.well-known/oauth\", Basic realm=\"a b\u{FFFD}\""
        );
        let d = describe(401, Some(&c));
        assert!(
            d.starts_with(
                "HTTP 401 Unauthorized: the server wants credentials (WWW-Authenticate: Bearer"
            ),
            "{d}"
        );
        assert!(d.ends_with("-H 'Authorization: Bearer …'"), "{d}");
        assert!(d.contains("`mcpscope auth login --url URL`"), "{d}");
        assert!(describe(401, None).contains("no WWW-Authenticate header"));
        assert_eq!(describe(500, None), "HTTP 500 Internal Server Error");
        let long = HeaderValue::from_str(&"a".repeat(5000)).unwrap();
        let mut h = HeaderMap::new();
        h.insert(WWW_AUTHENTICATE, long);
        assert_eq!(
            challenge(&h).unwrap().chars().count(),
            MAX_CHALLENGE_CHARS + 1
        );
    }
}
