//! `mcpscope request METHOD [--params JSON]`: any request, headless. The
//! result JSON alone on stdout; progress, logs and findings on stderr as for
//! `call`. Listings (`tools/list`, `resources/list`,
//! `resources/templates/list`, `prompts/list`) follow every page unless
//! `--params` names a cursor.

use super::call::{CallOpts, PrinterTask, fail, headless, out_of_range_lines, result_text};
use super::connect::{Failure, handshake};
use super::spec::{ServerArgs, UsageError};
use crate::client::pages::list_key;
use crate::client::{Limits, Reply, Session};
use crate::protocol::IdKey;
use crate::protocol::meta::{self, ResultType};
use crate::protocol::methods;
use clap::Args;
use serde_json::{Map, Value};
use std::io::Write;
use std::sync::Arc;

#[derive(Args, Debug, Clone)]
pub struct RequestArgs {
    /// The method: resources/list, resources/read, prompts/get, completion/complete, …
    #[arg(value_name = "METHOD")]
    pub method: String,
    /// Params as a JSON object.
    #[arg(long, value_name = "JSON")]
    pub params: Option<String>,
    #[command(flatten)]
    pub server: ServerArgs,
    #[command(flatten)]
    pub opts: CallOpts,
}

/// What was asked, checked before anything starts.
#[derive(Debug, PartialEq)]
pub struct Ask {
    pub method: String,
    pub params: Option<Map<String, Value>>,
    /// Follow `nextCursor` to the last page.
    pub all_pages: bool,
}

pub fn parse_ask(method: &str, params: Option<&str>) -> Result<Ask, UsageError> {
    let method = method.trim();
    if method.is_empty() {
        return Err(UsageError("METHOD must not be empty".into()));
    }
    if method == methods::INITIALIZE {
        return Err(UsageError(
            "initialize is the handshake mcpscope makes itself; use --protocol to choose the revision"
                .into(),
        ));
    }
    if method.starts_with("notifications/") {
        return Err(UsageError(format!(
            "{method} is a notification, which has no result; `request` sends requests"
        )));
    }
    let params = match params {
        None => None,
        Some(s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(m)) => Some(m),
            Ok(_) => return Err(UsageError("--params must be a JSON object".into())),
            Err(e) => return Err(UsageError(format!("--params is not valid JSON: {e}"))),
        },
    };
    let names_cursor = params.as_ref().is_some_and(|p| p.contains_key("cursor"));
    Ok(Ask {
        all_pages: list_key(method).is_some() && !names_cursor,
        method: method.to_string(),
        params,
    })
}

/// `params` with `_meta.progressToken` set to `token`, unless the user gave one.
pub fn with_token(params: Option<Value>, token: Option<IdKey>) -> Option<Value> {
    let Some(token) = token else { return params };
    let mut obj = match params {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let envelope = obj
        .entry(meta::META)
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(envelope) = envelope {
        envelope
            .entry(meta::PROGRESS_TOKEN)
            .or_insert_with(|| token.to_value());
    }
    Some(Value::Object(obj))
}

pub async fn run(a: RequestArgs) -> i32 {
    let ask = match parse_ask(&a.method, a.params.as_deref()) {
        Ok(x) => x,
        Err(e) => return fail(&Failure::Usage(e)),
    };
    let limits = match a.opts.request.limits() {
        Ok(l) => l,
        Err(e) => return fail(&Failure::Usage(e)),
    };
    let (a, ask) = (&a, &ask);
    headless(&a.server, &a.opts, limits, |session, printer| async move {
        request(&session, a, ask, limits, &printer).await
    })
    .await
}

async fn request(
    session: &Arc<Session>,
    a: &RequestArgs,
    ask: &Ask,
    limits: Limits,
    printer: &PrinterTask,
) -> i32 {
    if let Err(e) = handshake(session).await {
        return fail(&e);
    }
    // The era's own lines first, then what the log level means in it.
    printer.sync();
    a.opts.request.apply_log_level(session, !a.opts.quiet).await;
    let policy = a.opts.request.policy();
    let params = ask.params.clone().map(Value::Object);
    let pretty = !a.opts.json;
    if ask.all_pages {
        let listing = session
            .request_pages(&ask.method, params, limits, |p| {
                with_token(p, session.token_for(&policy))
            })
            .await;
        printer.sync();
        return match listing {
            Ok(l) => {
                for page in &l.pages {
                    out_of_range_lines(page, &mut std::io::stderr());
                }
                let text = crate::protocol::json_text::reformat(&l.joined, pretty)
                    .unwrap_or_else(|_| l.joined.clone());
                print_result(&text);
                0
            }
            Err(e) => fail(&Failure::Client(e)),
        };
    }
    let params = with_token(params, session.token_for(&policy));
    let outcome = match session.request(&ask.method, params.clone(), limits).await {
        Ok(reply) => {
            session
                .drive_input_required(
                    &ask.method,
                    params.unwrap_or_else(|| Value::Object(Map::new())),
                    reply,
                    limits,
                )
                .await
        }
        Err(e) => Err(e),
    };
    printer.sync();
    match outcome {
        Ok(reply) => {
            out_of_range_lines(&reply, &mut std::io::stderr());
            print_result(&result_text(&reply, pretty));
            verdict(&reply)
        }
        Err(e) => fail(&Failure::Client(e)),
    }
}

fn print_result(text: &str) {
    let mut stdout = super::stdout::lock();
    let _ = writeln!(stdout, "{text}");
    let _ = stdout.flush();
}

/// 1 for a tool's `isError` and for input the server still needs; else 0.
fn verdict(reply: &Reply) -> i32 {
    if ResultType::of(&reply.result) == Some(ResultType::InputRequired) {
        eprintln!(
            "[error] the server needs input mcpscope was not asked to give (see inputRequests; --elicit and --root answer them)"
        );
        return 1;
    }
    if reply.result.get("isError").and_then(Value::as_bool) == Some(true) {
        return 1;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn asks_are_checked_before_anything_starts() {
        let a = parse_ask("resources/list", None).unwrap();
        assert!(a.all_pages);
        let a = parse_ask("resources/list", Some(r#"{"cursor":"5"}"#)).unwrap();
        assert!(!a.all_pages, "a named cursor asks for that page only");
        let a = parse_ask("resources/read", Some(r#"{"uri":"x"}"#)).unwrap();
        assert!(!a.all_pages);
        assert_eq!(a.params.unwrap()["uri"], "x");
        for (m, p, why) in [
            ("", None, "empty"),
            ("initialize", None, "handshake"),
            ("notifications/initialized", None, "notification"),
            ("ping", Some("[1]"), "JSON object"),
            ("ping", Some("{"), "not valid JSON"),
        ] {
            let e = parse_ask(m, p).unwrap_err();
            assert!(e.0.contains(why), "{m}: {e}");
        }
    }

    #[test]
    fn a_token_is_added_unless_given() {
        let t = Some(IdKey::Str("mcpscope-1".into()));
        assert_eq!(
            with_token(None, t.clone()),
            Some(json!({"_meta": {"progressToken": "mcpscope-1"}}))
        );
        assert_eq!(
            with_token(
                Some(json!({"uri": "u", "_meta": {"progressToken": 5}})),
                t.clone()
            ),
            Some(json!({"uri": "u", "_meta": {"progressToken": 5}}))
        );
        assert_eq!(
            with_token(Some(json!({"a": 1})), None),
            Some(json!({"a": 1}))
        );
    }
}
