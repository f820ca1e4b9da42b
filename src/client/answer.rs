//! Answers to server→client requests: `ping`, `roots/list`,
//! `elicitation/create`; anything else gets -32601. Every answer goes through
//! the trace like any other frame.

use super::{ElicitMode, Session};
use crate::protocol::IdKey;
use crate::protocol::methods::{self, codes};
use crate::protocol::schema::{Blanks, Fields, Sampler};
use serde_json::{Value, json};
use std::sync::Weak;
use tokio::sync::mpsc;

pub async fn serve(session: Weak<Session>, mut rx: mpsc::Receiver<(IdKey, u64)>) {
    while let Some((id, seq)) = rx.recv().await {
        let Some(s) = session.upgrade() else { return };
        let (method, params) = {
            let store = s.trace.read();
            let Some(ev) = store.get(seq) else { continue };
            let v: Value = serde_json::from_slice(ev.bytes).unwrap_or(Value::Null);
            (
                v.get("method")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                v.get("params").cloned().unwrap_or(Value::Null),
            )
        };
        let answer = answer(&s, &method, &params);
        let mut msg = json!({"jsonrpc": "2.0", "id": id.to_value()});
        match answer {
            Ok(result) => msg["result"] = result,
            Err((code, message)) => msg["error"] = json!({"code": code, "message": message}),
        }
        let _ = s.send_frame(&msg);
    }
}

fn answer(s: &Session, method: &str, params: &Value) -> Result<Value, (i64, String)> {
    let opts = s.options();
    match method {
        methods::PING => Ok(json!({})),
        methods::ROOTS_LIST if !opts.roots.is_empty() => Ok(roots(&opts.roots)),
        methods::ELICIT => match opts.elicit {
            Some(ElicitMode::Decline) => Ok(json!({"action": "decline"})),
            Some(ElicitMode::Defaults) => {
                Ok(json!({"action": "accept", "content": schema_defaults(params)}))
            }
            None => Err((
                codes::METHOD_NOT_FOUND,
                "elicitation is not enabled (use --elicit)".into(),
            )),
        },
        other => Err((
            codes::METHOD_NOT_FOUND,
            format!("mcpscope does not handle {other:?}"),
        )),
    }
}

/// A `roots/list` result from `--root` values.
pub(super) fn roots(roots: &[String]) -> Value {
    json!({"roots": roots.iter().map(|r| root_entry(r)).collect::<Vec<_>>()})
}

fn root_entry(r: &str) -> Value {
    if r.contains("://") {
        return json!({"uri": r});
    }
    let path = std::fs::canonicalize(r).unwrap_or_else(|_| r.into());
    let name = path.file_name().map(|n| n.to_string_lossy().to_string());
    json!({"uri": format!("file://{}", path.display()), "name": name})
}

/// An elicitation accepted without asking anyone (`--elicit defaults`): the
/// `default` of each property in `requestedSchema`, nothing invented.
pub(super) fn schema_defaults(params: &Value) -> Value {
    const DEFAULTS: Sampler = Sampler {
        fields: Fields::DefaultsOnly,
        nested: Fields::DefaultsOnly,
        // Never used: only properties with a default get a value.
        blanks: Blanks {
            string: "",
            number: 0,
            boolean: false,
            honour_const: false,
            untyped_as_string: false,
        },
    };
    DEFAULTS.sample(params.get("requestedSchema").unwrap_or(&Value::Null))
}
