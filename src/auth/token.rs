//! The token endpoint's answer (RFC 6749 §5), looked at before `oauth2`
//! parses it. A token response that does not parse is described by field
//! and problem and never echoed: what is wrong with it may sit next to a
//! live access or refresh token, and the description goes to the screen
//! and into the trace. Two deviations of real providers are read as meant:
//! `expires_in` as a string of digits (`"3600"`), and a refusal sent with
//! status 200 and an OAuth error body.

use crate::protocol::sanitize::one_line;
use crate::transport::http::report::first_line;
use serde_json::{Map, Value};

/// Why the description of a token response shows no values.
const VALUES_HIDDEN: &str = "its values are not shown: it may hold a token";

/// What is wrong with a token response: a sentence fragment naming fields
/// and kinds of values, never a value; each but the first says so.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenProblem {
    /// A status other than 200 whose body is not an OAuth error.
    #[error("it answered HTTP {status} without an OAuth error ({first_line})")]
    NotOAuthError { status: u16, first_line: String },
    #[error("it is {content_type}, not JSON ({})", VALUES_HIDDEN)]
    NotJson { content_type: String },
    #[error("it is {kind}, not a JSON object ({})", VALUES_HIDDEN)]
    NotObject { kind: &'static str },
    #[error("it is not JSON (line {line}, column {column}) ({})", VALUES_HIDDEN)]
    Syntax { line: usize, column: usize },
    #[error("it has no {field} ({})", VALUES_HIDDEN)]
    Missing { field: &'static str },
    #[error("its {field} is empty ({})", VALUES_HIDDEN)]
    Empty { field: &'static str },
    #[error("{field} is {kind}, not a string ({})", VALUES_HIDDEN)]
    NotString {
        field: &'static str,
        kind: &'static str,
    },
    #[error(
        "expires_in is a number that is not a whole number of seconds ({})",
        VALUES_HIDDEN
    )]
    ExpiresNotWhole,
    #[error("expires_in is a string of too many digits ({})", VALUES_HIDDEN)]
    ExpiresTooLong,
    #[error(
        "expires_in is a string that is not a number of seconds ({})",
        VALUES_HIDDEN
    )]
    ExpiresNotDigits,
    #[error("expires_in is {kind}, not a number of seconds ({})", VALUES_HIDDEN)]
    ExpiresKind { kind: &'static str },
}

/// What `oauth2` is given instead of the answer: a status and a JSON body
/// it can parse.
#[derive(Debug)]
pub struct Reviewed {
    pub status: u16,
    pub body: Vec<u8>,
}

/// Review one answer of the token endpoint: what to hand `oauth2`, or what
/// is wrong with it (a sentence fragment, naming fields, with no value).
pub fn review(status: u16, content_type: &str, body: &[u8]) -> Result<Reviewed, TokenProblem> {
    if status != 200 {
        return if is_oauth_error(body) {
            Ok(Reviewed {
                status,
                body: body.to_vec(),
            })
        } else {
            Err(TokenProblem::NotOAuthError {
                status,
                first_line: one_line(&first_line(body)).into_owned(),
            })
        };
    }
    let mut fields = json_object(content_type, body)?;
    if !fields.contains_key("access_token") && fields.get("error").is_some_and(Value::is_string) {
        // A refusal with status 200 (GitHub sends them): read as the refusal it is.
        return Ok(Reviewed {
            status: 400,
            body: body.to_vec(),
        });
    }
    check_fields(&mut fields)?;
    Ok(Reviewed {
        status,
        body: serde_json::to_vec(&fields).unwrap_or_default(),
    })
}

/// An error response `oauth2` can read: a JSON object with a string `error`.
fn is_oauth_error(body: &[u8]) -> bool {
    serde_json::from_slice::<Value>(body)
        .is_ok_and(|v| v.get("error").is_some_and(Value::is_string))
}

/// The body as a JSON object, or what it is instead (never its text).
fn json_object(content_type: &str, body: &[u8]) -> Result<Map<String, Value>, TokenProblem> {
    let ct = content_type.to_ascii_lowercase();
    if !ct.is_empty() && !ct.starts_with("application/json") && !ct.contains("+json") {
        return Err(TokenProblem::NotJson {
            content_type: one_line(content_type).into_owned(),
        });
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(TokenProblem::NotObject { kind: kind(&other) }),
        Err(e) => Err(TokenProblem::Syntax {
            line: e.line(),
            column: e.column(),
        }),
    }
}

/// RFC 6749 §5.1's fields, as `oauth2` needs them: `access_token` and
/// `token_type` strings, `expires_in` a whole number of seconds (a string
/// of digits becomes that number), `refresh_token` and `scope` strings
/// when present.
fn check_fields(fields: &mut Map<String, Value>) -> Result<(), TokenProblem> {
    let not_string = |field, other| TokenProblem::NotString {
        field,
        kind: kind(other),
    };
    for field in ["access_token", "token_type"] {
        match fields.get(field) {
            None | Some(Value::Null) => return Err(TokenProblem::Missing { field }),
            Some(Value::String(s)) if s.is_empty() => return Err(TokenProblem::Empty { field }),
            Some(Value::String(_)) => {}
            Some(other) => return Err(not_string(field, other)),
        }
    }
    for field in ["refresh_token", "scope"] {
        match fields.get(field) {
            None | Some(Value::Null | Value::String(_)) => {}
            Some(other) => return Err(not_string(field, other)),
        }
    }
    if let Some(v) = fields.get_mut("expires_in") {
        *v = seconds(v)?;
    }
    Ok(())
}

/// `expires_in` as `oauth2` takes it (a whole number, or null).
fn seconds(v: &Value) -> Result<Value, TokenProblem> {
    match v {
        Value::Null => Ok(Value::Null),
        Value::Number(n) if n.is_u64() => Ok(v.clone()),
        Value::Number(_) => Err(TokenProblem::ExpiresNotWhole),
        Value::String(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => s
            .parse::<u64>()
            .map(Value::from)
            .map_err(|_| TokenProblem::ExpiresTooLong),
        Value::String(_) => Err(TokenProblem::ExpiresNotDigits),
        other => Err(TokenProblem::ExpiresKind { kind: kind(other) }),
    }
}

/// What kind of JSON value `v` is, for a description that must not show it.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const JSON: &str = "application/json";

    fn problem(body: &str) -> String {
        review(200, JSON, body.as_bytes()).unwrap_err().to_string()
    }

    #[test]
    fn a_good_response_passes_and_digits_become_seconds() {
        let good = r#"{"access_token":"a","token_type":"Bearer","expires_in":3600}"#;
        let r = review(200, "application/json; charset=utf-8", good.as_bytes()).unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(
            serde_json::from_slice::<Value>(&r.body).unwrap()["expires_in"],
            3600
        );
        let text = r#"{"access_token":"a","token_type":"Bearer","expires_in":"3600","scope":"s"}"#;
        let r = review(200, JSON, text.as_bytes()).unwrap();
        let v: Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(v["expires_in"], json!(3600));
        assert_eq!(v["scope"], "s");
    }

    #[test]
    fn problems_name_the_field_and_hide_the_value() {
        for (body, want) in [
            (
                r#"{"access_token":"SECRET","token_type":"Bearer","expires_in":true}"#,
                "expires_in is a boolean, not a number of seconds",
            ),
            (
                r#"{"access_token":"SECRET","token_type":"Bearer","expires_in":"SECRET"}"#,
                "expires_in is a string that is not a number of seconds",
            ),
            (
                r#"{"access_token":"SECRET","token_type":"Bearer","expires_in":-1}"#,
                "expires_in is a number that is not a whole number of seconds",
            ),
            (
                r#"{"access_token":"SECRET","token_type":"Bearer","expires_in":"99999999999999999999999"}"#,
                "expires_in is a string of too many digits",
            ),
            (
                r#"{"access_token":12345,"token_type":"Bearer"}"#,
                "access_token is a number, not a string",
            ),
            (
                r#"{"access_token":"","token_type":"Bearer"}"#,
                "its access_token is empty",
            ),
            (
                r#"{"token_type":"Bearer","refresh_token":"SECRET"}"#,
                "it has no access_token",
            ),
            (r#"{"access_token":"SECRET"}"#, "it has no token_type"),
            (
                r#"{"access_token":"SECRET","token_type":"Bearer","refresh_token":["SECRET"]}"#,
                "refresh_token is an array, not a string",
            ),
            (r#"["SECRET"]"#, "it is an array, not a JSON object"),
            (
                r#"{"access_token":"SECRET","#,
                "it is not JSON (line 1, column 25)",
            ),
        ] {
            let got = problem(body);
            assert!(got.starts_with(want), "{body}: {got}");
            assert!(got.ends_with(&format!("({VALUES_HIDDEN})")), "{got}");
            assert!(!got.contains("SECRET") && !got.contains("12345"), "{got}");
        }
        let form = review(
            200,
            "application/x-www-form-urlencoded",
            b"access_token=SECRET",
        );
        assert_eq!(
            form.unwrap_err().to_string(),
            format!("it is application/x-www-form-urlencoded, not JSON ({VALUES_HIDDEN})")
        );
    }

    #[test]
    fn refusals_pass_and_a_refusal_with_200_is_one() {
        let refusal = br#"{"error":"invalid_grant","error_description":"no"}"#;
        assert_eq!(review(400, JSON, refusal).unwrap().status, 400);
        assert_eq!(review(200, JSON, refusal).unwrap().status, 400);
        let page = review(502, "text/html", b"<html>\x1b[2J Bad gateway\n<p>more");
        assert_eq!(
            page.unwrap_err().to_string(),
            "it answered HTTP 502 without an OAuth error (<html>␛[2J Bad gateway)"
        );
    }
}
