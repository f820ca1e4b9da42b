//! The `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 §3,
//! RFC 9728 §5.1): the parameters the authorization flow acts on. Other
//! schemes in the same header (`Basic realm=…`, `DPoP …`) are skipped.

/// What a `401`/`403` asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    /// Where the protected resource metadata is (RFC 9728 §5.1).
    pub resource_metadata: Option<String>,
    /// The scopes the resource wants (space-separated, as sent).
    pub scope: Option<String>,
    /// `invalid_token`, `insufficient_scope`, …
    pub error: Option<String>,
}

impl Challenge {
    /// The Bearer challenge among `values` (each a `WWW-Authenticate`
    /// header value); an empty one when there is none.
    pub fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Challenge {
        let mut out = Challenge::default();
        for v in values {
            for (scheme, params) in challenges(v) {
                if !scheme.eq_ignore_ascii_case("bearer") {
                    continue;
                }
                for (k, v) in params {
                    let slot = match k.to_ascii_lowercase().as_str() {
                        "resource_metadata" => &mut out.resource_metadata,
                        "scope" => &mut out.scope,
                        "error" => &mut out.error,
                        _ => continue,
                    };
                    if slot.is_none() && !v.is_empty() {
                        *slot = Some(v);
                    }
                }
            }
        }
        out
    }

    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// Split one header value into challenges: a scheme token followed by
/// `name=value` parameters (token or quoted string), all comma-separated
/// (RFC 9110 §11.6.1). A bare token after a complete parameter starts the
/// next challenge.
fn challenges(v: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut out: Vec<(String, Vec<(String, String)>)> = Vec::new();
    let b = v.as_bytes();
    let mut i = 0;
    let skip = |i: &mut usize| {
        while *i < b.len() && (b[*i] == b' ' || b[*i] == b'\t' || b[*i] == b',') {
            *i += 1;
        }
    };
    let token = |i: &mut usize| {
        let s = *i;
        while *i < b.len() && !matches!(b[*i], b' ' | b'\t' | b',' | b'=' | b'"') {
            *i += 1;
        }
        v[s..*i].to_string()
    };
    loop {
        skip(&mut i);
        if i >= b.len() {
            break;
        }
        let word = token(&mut i);
        if word.is_empty() {
            // A stray quote or '=': step over it.
            i += 1;
            continue;
        }
        // Spaces may sit around '=' (BWS).
        let mut j = i;
        while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
            j += 1;
        }
        if j < b.len() && b[j] == b'=' && !out.is_empty() && !is_token68_tail(b, j) {
            i = j + 1;
            while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                i += 1;
            }
            let value = if i < b.len() && b[i] == b'"' {
                i += 1;
                let mut s = String::new();
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' && i + 1 < b.len() {
                        i += 1;
                    }
                    let ch = v[i..].chars().next().unwrap_or('\u{FFFD}');
                    s.push(ch);
                    i += ch.len_utf8();
                }
                i += 1;
                s
            } else {
                token(&mut i)
            };
            if let Some(last) = out.last_mut() {
                last.1.push((word, value));
            }
        } else {
            out.push((word, Vec::new()));
            // A token68 credential (`Basic abc==`) right after the scheme.
            i = j;
            if i < b.len() && b[i] != b',' {
                let save = i;
                let t = token(&mut i);
                let mut k = i;
                while k < b.len() && b[k] == b'=' {
                    k += 1;
                }
                if k > i && (k >= b.len() || b[k] == b',' || b[k] == b' ') {
                    i = k;
                } else if !t.is_empty() {
                    i = save;
                }
            }
        }
    }
    out
}

/// `=` followed by more `=` or the end: padding of a token68, not a parameter.
fn is_token68_tail(b: &[u8], eq: usize) -> bool {
    let mut k = eq;
    while k < b.len() && b[k] == b'=' {
        k += 1;
    }
    k - eq > 1 || k >= b.len() || b[k] == b','
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_parameters_quoted_and_bare() {
        let c = Challenge::parse([
            r#"Bearer error="insufficient_scope", scope="mcp:basic mcp:write", resource_metadata="http://x/.well-known/oauth-protected-resource/mcp""#,
        ]);
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scope.as_deref(), Some("mcp:basic mcp:write"));
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://x/.well-known/oauth-protected-resource/mcp")
        );
        assert!(c.insufficient_scope());
        let bare = Challenge::parse(["bearer scope=read,error=invalid_token"]);
        assert_eq!(bare.scope.as_deref(), Some("read"));
        assert_eq!(bare.error.as_deref(), Some("invalid_token"));
    }

    #[test]
    fn other_schemes_are_skipped() {
        let c = Challenge::parse([
            r#"Basic realm="a", Bearer realm="b", scope="s1""#,
            r#"DPoP algs="ES256", Bearer resource_metadata="u""#,
        ]);
        assert_eq!(c.scope.as_deref(), Some("s1"));
        assert_eq!(c.resource_metadata.as_deref(), Some("u"));
        let basic_only = Challenge::parse([r#"Basic realm="x", scope="no""#]);
        assert_eq!(basic_only, Challenge::default());
        assert_eq!(Challenge::parse(["Bearer"]), Challenge::default());
        assert_eq!(Challenge::parse([""]), Challenge::default());
    }

    #[test]
    fn escapes_and_garbage_do_not_panic() {
        let c = Challenge::parse([r#"Bearer scope="a\"b", error="#]);
        assert_eq!(c.scope.as_deref(), Some("a\"b"));
        for junk in [
            "=",
            "\"",
            "Bearer =\"",
            "Bearer x=\"unterminated",
            ",,,",
            "Bearer é=\"ü\"",
            "Basic abc==, Bearer scope=z",
        ] {
            let _ = Challenge::parse([junk]);
        }
        assert_eq!(
            Challenge::parse(["Basic abc==, Bearer scope=z"])
                .scope
                .as_deref(),
            Some("z")
        );
    }

    proptest::proptest! {
        #[test]
        fn any_header_parses_without_panicking(v in "\\PC{0,200}") {
            let _ = Challenge::parse([v.as_str()]);
        }

        #[test]
        fn a_quoted_scope_survives_any_neighbours(
            scope in "[a-z:]{1,20}( [a-z:]{1,20}){0,3}",
            before in "(Basic realm=\"x\", )?",
        ) {
            let header = format!(r#"{before}Bearer error="insufficient_scope", scope="{scope}""#);
            let c = Challenge::parse([header.as_str()]);
            proptest::prop_assert_eq!(c.scope.as_deref(), Some(scope.as_str()));
            proptest::prop_assert!(c.insufficient_scope());
        }
    }
}
