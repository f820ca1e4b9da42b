//! The 2026-07-28 `input_required` fixtures of the conformance suite
//! (SEP-2322, multi round-trip requests): instead of asking the client
//! mid-call, a tool (or the prompt `test_input_required_result_prompt`)
//! answers `resultType: "input_required"` with the requests it needs, and the
//! client retries with `inputResponses` (and the `requestState` it was given).
//!
//! The server keeps nothing between rounds — that is the point of the
//! stateless era — so whatever a later round needs travels in `requestState`,
//! signed so a client cannot forge or alter it.

use crate::demo::request_state::{sign, verify};
use crate::protocol::meta::ResultType;
use serde_json::{Map, Value, json};

use super::super::INVALID_PARAMS;

/// An error answer: code, message, optional data.
pub type Failure = (i64, String, Option<Value>);
type Answer = Result<Value, Failure>;

pub const PROMPT: &str = "test_input_required_result_prompt";

const TOOLS: [(&str, &str); 10] = [
    (
        "test_input_required_result_elicitation",
        "MRTR: returns InputRequiredResult with elicitation request",
    ),
    (
        "test_input_required_result_sampling",
        "MRTR: returns InputRequiredResult with sampling request",
    ),
    (
        "test_input_required_result_list_roots",
        "MRTR: returns InputRequiredResult with roots/list request",
    ),
    (
        "test_input_required_result_request_state",
        "MRTR: returns InputRequiredResult with requestState",
    ),
    (
        "test_input_required_result_multiple_inputs",
        "MRTR: returns InputRequiredResult with multiple input requests",
    ),
    (
        "test_input_required_result_multi_round",
        "MRTR: multi-round InputRequiredResult workflow",
    ),
    (
        "test_input_required_result_tampered_state",
        "MRTR: signed requestState integrity test",
    ),
    (
        "test_input_required_result_capabilities",
        "MRTR: respects client capabilities in inputRequests",
    ),
    ("test_missing_capability", "Test tool requiring sampling"),
    (
        "test_streaming_elicitation",
        "Asks for input the stateless way: an input_required result on the response stream, never an elicitation request of its own",
    ),
];

pub fn is_tool(name: &str) -> bool {
    TOOLS.iter().any(|(n, _)| *n == name)
}

pub fn tool_descriptors() -> Vec<Value> {
    TOOLS
        .iter()
        .map(|(name, description)| {
            json!({
                "name": name,
                "title": "Conformance: input_required",
                "description": description,
                "inputSchema": {"type": "object", "properties": {}},
            })
        })
        .collect()
}

pub fn prompt_descriptor() -> Value {
    json!({
        "name": PROMPT,
        "title": "Prompt needing input",
        "description": "MRTR: prompts/get returns InputRequiredResult with an elicitation request",
    })
}

fn invalid(message: impl Into<String>) -> Failure {
    (INVALID_PARAMS, message.into(), None)
}

fn text(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": false})
}

fn input_required(requests: Value, state: Option<Value>) -> Value {
    let mut result =
        json!({ResultType::KEY: ResultType::InputRequired.as_str(), "inputRequests": requests});
    if let Some(state) = state {
        result["requestState"] = sign(&state).into();
    }
    result
}

fn elicit(message: &str, field: &str, kind: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": {field: {"type": kind}},
                "required": [field],
            },
        },
    })
}

fn sample(prompt: &str, max_tokens: u64) -> Value {
    json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
            "maxTokens": max_tokens,
        },
    })
}

/// The retry's `inputResponses` and verified `requestState`. A malformed
/// `inputResponses` (not an object, or an entry that is not a result object)
/// is a protocol error, never silently taken as an answer.
struct Retry<'a> {
    responses: Option<&'a Map<String, Value>>,
    state: Option<Value>,
}

impl<'a> Retry<'a> {
    fn of(params: &'a Map<String, Value>) -> Result<Self, Failure> {
        let responses = match params.get("inputResponses") {
            None => None,
            Some(Value::Object(r)) => Some(r),
            Some(_) => {
                return Err(invalid(
                    "inputResponses must be an object of results by key",
                ));
            }
        };
        if let Some(responses) = responses
            && let Some((key, _)) = responses.iter().find(|(_, v)| !v.is_object())
        {
            return Err(invalid(format!(
                "inputResponses.{key} must be the client's result object"
            )));
        }
        let state = match params.get("requestState") {
            None | Some(Value::Null) => None,
            Some(Value::String(raw)) => Some(verify(raw).map_err(invalid)?),
            Some(_) => return Err(invalid("requestState must be the string the server sent")),
        };
        Ok(Retry { responses, state })
    }

    fn get(&self, key: &str) -> Option<&'a Map<String, Value>> {
        self.responses?.get(key)?.as_object()
    }

    /// A text field of an elicitation answer's `content`.
    fn field(&self, key: &str, field: &str) -> Option<&'a str> {
        self.get(key)?.get("content")?.get(field)?.as_str()
    }

    fn state_kind(&self) -> Option<&str> {
        self.state.as_ref()?.get("kind")?.as_str()
    }
}

/// `tools/call` of an `input_required` fixture (`is_tool(name)`).
pub fn call_tool(name: &str, params: &Map<String, Value>, capabilities: Option<&Value>) -> Answer {
    let retry = Retry::of(params)?;
    let has = |cap: &str| {
        capabilities
            .and_then(|c| c.get(cap))
            .is_some_and(|c| !c.is_null())
    };
    match name {
        "test_missing_capability" => {
            if has("sampling") {
                Ok(text("Success"))
            } else {
                Err((
                    -32021,
                    "MissingRequiredClientCapabilityError: this tool needs the sampling capability"
                        .into(),
                    Some(json!({"requiredCapabilities": {"sampling": {}}})),
                ))
            }
        }
        // The stateless era has no server→client requests: what a streaming
        // handler would have asked mid-call is an `input_required` result.
        "test_streaming_elicitation" => Ok(match retry.field("confirmation", "answer") {
            Some(answer) => text(&format!("Elicitation answered: {answer}")),
            None => input_required(
                json!({"confirmation": elicit("Please answer to continue", "answer", "string")}),
                None,
            ),
        }),
        "test_input_required_result_elicitation" => Ok(match retry.field("user_name", "name") {
            Some(name) => text(&format!("Hello, {name}!")),
            None => input_required(
                json!({"user_name": elicit("What is your name?", "name", "string")}),
                None,
            ),
        }),
        "test_input_required_result_sampling" => Ok(match retry.get("sample_request") {
            Some(r) => {
                let reply = r
                    .get("content")
                    .and_then(|c| c.get("text"))
                    .and_then(Value::as_str);
                text(&format!(
                    "Sampling result: {}",
                    reply.unwrap_or("no response")
                ))
            }
            None => input_required(
                json!({"sample_request": sample("What is the capital of France?", 100)}),
                None,
            ),
        }),
        "test_input_required_result_list_roots" => Ok(match retry.get("roots_request") {
            Some(r) => {
                let n = r.get("roots").and_then(Value::as_array).map_or(0, Vec::len);
                text(&format!("Found {n} root(s)"))
            }
            None => input_required(
                json!({"roots_request": {"method": "roots/list", "params": {}}}),
                None,
            ),
        }),
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => request_state(name, &retry),
        "test_input_required_result_multiple_inputs" => multiple_inputs(&retry),
        "test_input_required_result_multi_round" => multi_round(&retry),
        "test_input_required_result_capabilities" => capabilities_tool(&retry, has),
        _ => Err(invalid(format!("Unknown tool: {name}"))),
    }
}

/// `test_input_required_result_request_state` and `…_tampered_state`: done
/// once the confirmation comes back with the state this server issued.
fn request_state(name: &str, retry: &Retry<'_>) -> Answer {
    let kind = if name.ends_with("request_state") {
        "request-state"
    } else {
        "tamper-test"
    };
    let confirmed = retry
        .get("confirm")
        .and_then(|r| r.get("content"))
        .and_then(|c| c.get("ok"))
        .is_some_and(|ok| ok == true);
    Ok(if retry.state_kind() == Some(kind) && confirmed {
        text(&format!("state-ok: requestState validated ({kind})"))
    } else {
        input_required(
            json!({"confirm": elicit("Please confirm", "ok", "boolean")}),
            Some(json!({"kind": kind})),
        )
    })
}

/// `test_input_required_result_multiple_inputs`: three inputs asked at once.
fn multiple_inputs(retry: &Retry<'_>) -> Answer {
    let name = retry.field("user_name", "name");
    let greeting = retry.get("greeting");
    let roots = retry.get("client_roots");
    Ok(match (retry.state_kind(), name, greeting, roots) {
        (Some("multiple-inputs"), Some(name), Some(_), Some(roots)) => {
            let n = roots
                .get("roots")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            text(&format!(
                "All inputs received: name={name}, greeting, {n} root(s)"
            ))
        }
        _ => input_required(
            json!({
                "user_name": elicit("What is your name?", "name", "string"),
                "greeting": sample("Generate a greeting", 50),
                "client_roots": {"method": "roots/list", "params": {}},
            }),
            Some(json!({"kind": "multiple-inputs"})),
        ),
    })
}

/// `test_input_required_result_multi_round`: two rounds, the name carried
/// in the request state from the first to the second.
fn multi_round(retry: &Retry<'_>) -> Answer {
    let state = retry.state.as_ref();
    let round = state.and_then(|s| s.get("round")).and_then(Value::as_u64);
    let step1 = || {
        input_required(
            json!({"step1": elicit("Step 1: What is your name?", "name", "string")}),
            Some(json!({"kind": "multi-round", "round": 1})),
        )
    };
    Ok(match round {
        Some(1) => match retry.field("step1", "name") {
            Some(name) => input_required(
                json!({"step2": elicit("Step 2: What is your favorite color?", "color", "string")}),
                Some(json!({"kind": "multi-round", "round": 2, "name": name})),
            ),
            None => step1(),
        },
        Some(2) => {
            let name = state.and_then(|s| s.get("name")).and_then(Value::as_str);
            match (name, retry.field("step2", "color")) {
                (Some(name), Some(color)) => {
                    text(&format!("Multi-round complete: {name} likes {color}"))
                }
                _ => step1(),
            }
        }
        _ => step1(),
    })
}

/// `test_input_required_result_capabilities`: ask only for what the
/// request says its client can answer.
fn capabilities_tool(retry: &Retry<'_>, has: impl Fn(&str) -> bool) -> Answer {
    if retry.responses.is_some_and(|r| !r.is_empty()) {
        let keys: Vec<&str> = retry
            .responses
            .into_iter()
            .flatten()
            .map(|(k, _)| k.as_str())
            .collect();
        return Ok(text(&format!(
            "capabilities-ok: received {}",
            keys.join(",")
        )));
    }
    let mut requests = Map::new();
    if has("elicitation") {
        requests.insert(
            "elicit_input".into(),
            elicit("Elicitation input", "value", "string"),
        );
    }
    if has("sampling") {
        requests.insert("sample_input".into(), sample("Sample request", 50));
    }
    Ok(if requests.is_empty() {
        text("No supported capabilities declared")
    } else {
        input_required(
            Value::Object(requests),
            Some(json!({"kind": "capabilities"})),
        )
    })
}

/// `prompts/get` of [`PROMPT`].
pub fn get_prompt(params: &Map<String, Value>) -> Answer {
    let retry = Retry::of(params)?;
    Ok(match retry.field("user_context", "context") {
        Some(context) => json!({"messages": [{
            "role": "user",
            "content": {"type": "text", "text": format!("Prompt with context: {context}")},
        }]}),
        None => input_required(
            json!({"user_context": elicit("What context should the prompt use?", "context", "string")}),
            None,
        ),
    })
}
