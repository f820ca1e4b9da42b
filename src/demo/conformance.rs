//! `demo-server --conformance`: the fixtures the official MCP conformance
//! suite (`@modelcontextprotocol/conformance`, `server` scenarios) expects a
//! server to have — `test_*` tools, `test://` resources and a template,
//! `test_*` prompts and completions — served next to the demo tools, in both
//! eras. Names, arguments and contents follow the suite's reference server,
//! because its scenarios call them by name and check their shapes.
//!
//! The 2026-07-28 `input_required` fixtures live in [`mrtr`]; they exist
//! only for stateless requests. The task fixtures ([`tasks`]) exist only in
//! the handshake era, whose revision 2025-11-25 has tasks.
//!
//! Without the flag none of this is reachable: the methods answer "not
//! found" and the tool list is the demo's own.

mod mrtr;
mod sep2575;
pub mod tasks;
pub mod watch;

use serde_json::{Map, Value, json};

use super::INVALID_PARAMS;
use super::call::Call;
use super::era::{self, Modern};
use super::out::Out;
use super::session::{Level, Session};
use super::tools::Outcome;

/// A 1×1 PNG and a tiny WAV: the smallest real media a client can decode.
const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// JSON-RPC "resource not found" before 2026-07-28; SEP-2164 moved it to
/// -32602 (invalid params) in the stateless era.
const RESOURCE_NOT_FOUND: i64 = -32002;

/// One fixture tool of the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fixture {
    SimpleText,
    Image,
    Audio,
    EmbeddedResource,
    MultipleContent,
    WithLogging,
    WithProgress,
    ErrorHandling,
    Sampling,
    Elicitation,
    ElicitationDefaults,
    ElicitationEnums,
    JsonSchema2020,
}

/// In `tools/list` order: the JSON Schema tool first, because its scenario
/// looks for it on the first page.
const FIXTURES: &[Fixture] = &[
    Fixture::JsonSchema2020,
    Fixture::SimpleText,
    Fixture::Image,
    Fixture::Audio,
    Fixture::EmbeddedResource,
    Fixture::MultipleContent,
    Fixture::WithLogging,
    Fixture::WithProgress,
    Fixture::ErrorHandling,
    Fixture::Sampling,
    Fixture::Elicitation,
    Fixture::ElicitationDefaults,
    Fixture::ElicitationEnums,
];

fn all() -> impl Iterator<Item = Fixture> {
    FIXTURES.iter().copied()
}

impl Fixture {
    pub fn by_name(name: &str) -> Option<Fixture> {
        all().find(|f| f.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Fixture::SimpleText => "test_simple_text",
            Fixture::Image => "test_image_content",
            Fixture::Audio => "test_audio_content",
            Fixture::EmbeddedResource => "test_embedded_resource",
            Fixture::MultipleContent => "test_multiple_content_types",
            Fixture::WithLogging => "test_tool_with_logging",
            Fixture::WithProgress => "test_tool_with_progress",
            Fixture::ErrorHandling => "test_error_handling",
            Fixture::Sampling => "test_sampling",
            Fixture::Elicitation => "test_elicitation",
            Fixture::ElicitationDefaults => "test_elicitation_sep1034_defaults",
            Fixture::ElicitationEnums => "test_elicitation_sep1330_enums",
            Fixture::JsonSchema2020 => "json_schema_2020_12_tool",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Fixture::SimpleText => "Conformance: simple text",
            Fixture::Image => "Conformance: image content",
            Fixture::Audio => "Conformance: audio content",
            Fixture::EmbeddedResource => "Conformance: embedded resource",
            Fixture::MultipleContent => "Conformance: mixed content",
            Fixture::WithLogging => "Conformance: logging",
            Fixture::WithProgress => "Conformance: progress",
            Fixture::ErrorHandling => "Conformance: tool error",
            Fixture::Sampling => "Conformance: sampling",
            Fixture::Elicitation => "Conformance: elicitation",
            Fixture::ElicitationDefaults => "Conformance: elicitation defaults",
            Fixture::ElicitationEnums => "Conformance: elicitation enums",
            Fixture::JsonSchema2020 => "Conformance: JSON Schema 2020-12",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Fixture::SimpleText => "Tests simple text content response",
            Fixture::Image => "Tests image content response",
            Fixture::Audio => "Tests audio content response",
            Fixture::EmbeddedResource => "Tests embedded resource content response",
            Fixture::MultipleContent => {
                "Tests response with multiple content types (text, image, resource)"
            }
            Fixture::WithLogging => "Tests tool that emits log messages during execution",
            Fixture::WithProgress => "Tests tool that reports progress notifications",
            Fixture::ErrorHandling => "Tests error response handling",
            Fixture::Sampling => "Tests server-initiated sampling (LLM completion request)",
            Fixture::Elicitation => "Tests server-initiated elicitation (user input request)",
            Fixture::ElicitationDefaults => "Tests elicitation with default values per SEP-1034",
            Fixture::ElicitationEnums => {
                "Tests elicitation with enum schema improvements per SEP-1330"
            }
            Fixture::JsonSchema2020 => {
                "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)"
            }
        }
    }

    pub fn input_schema(self) -> Value {
        let string_arg = |name: &str, description: &str| {
            json!({
                "type": "object",
                "properties": {name: {"type": "string", "description": description}},
                "required": [name],
            })
        };
        match self {
            Fixture::Sampling => string_arg("prompt", "The prompt to send to the LLM"),
            Fixture::Elicitation => string_arg("message", "The message to show the user"),
            Fixture::JsonSchema2020 => json_schema_2020_12(),
            _ => json!({"type": "object", "properties": {}}),
        }
    }

    pub async fn run(self, call: &Call, args: &Map<String, Value>) -> Outcome {
        match self {
            Fixture::SimpleText => text("This is a simple text response for testing."),
            Fixture::Image => content(json!([image()])),
            Fixture::Audio => content(json!([
                {"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"}
            ])),
            Fixture::EmbeddedResource => content(json!([{
                "type": "resource",
                "resource": {
                    "uri": "test://embedded-resource",
                    "mimeType": "text/plain",
                    "text": "This is an embedded resource content.",
                },
            }])),
            Fixture::MultipleContent => content(json!([
                {"type": "text", "text": "Multiple content types test:"},
                image(),
                {
                    "type": "resource",
                    "resource": {
                        "uri": "test://mixed-content-resource",
                        "mimeType": "application/json",
                        "text": json!({"test": "data", "value": 123}).to_string(),
                    },
                },
            ])),
            Fixture::WithLogging => {
                for (i, message) in [
                    "Tool execution started",
                    "Tool processing data",
                    "Tool execution completed",
                ]
                .into_iter()
                .enumerate()
                {
                    if i > 0 {
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    }
                    call.log(Level::Info, "conformance", message);
                }
                text("Tool with logging executed successfully")
            }
            Fixture::WithProgress => {
                for (i, step) in [0, 50, 100].into_iter().enumerate() {
                    if i > 0 {
                        // Longer than the progress rate limit, so every step goes out.
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    }
                    call.progress(step, Some(100), format!("Completed step {step} of 100"));
                }
                let token = call.token().map(Value::to_string).unwrap_or_default();
                text(token.trim_matches('"'))
            }
            Fixture::ErrorHandling => {
                Outcome::error("This tool intentionally returns an error for testing")
            }
            Fixture::Sampling => {
                let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or("");
                let params = json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
                    "maxTokens": 100,
                });
                match call.ask("sampling/createMessage", params).await {
                    Ok(result) => {
                        let reply = result
                            .pointer("/content/text")
                            .and_then(Value::as_str)
                            .unwrap_or("No response");
                        text(&format!("LLM response: {reply}"))
                    }
                    Err(e) => text(&format!("Sampling not supported or error: {e}")),
                }
            }
            Fixture::Elicitation => {
                let message = args.get("message").and_then(Value::as_str).unwrap_or("");
                let schema = json!({
                    "type": "object",
                    "properties": {"response": {"type": "string", "description": "User's response"}},
                    "required": ["response"],
                });
                elicit(call, message, schema, "User response").await
            }
            Fixture::ElicitationDefaults => {
                let message = "Please review and update the form fields with defaults";
                elicit(call, message, defaults_schema(), "Elicitation completed").await
            }
            Fixture::ElicitationEnums => {
                let message = "Please select options from the enum fields";
                elicit(call, message, enums_schema(), "Elicitation completed").await
            }
            Fixture::JsonSchema2020 => text(&format!(
                "JSON Schema 2020-12 tool called with: {}",
                Value::Object(args.clone())
            )),
        }
    }
}

fn text(text: &str) -> Outcome {
    content(json!([{"type": "text", "text": text}]))
}

fn content(content: Value) -> Outcome {
    Outcome::raw(json!({"content": content, "isError": false}))
}

fn image() -> Value {
    json!({"type": "image", "data": PNG_BASE64, "mimeType": "image/png"})
}

async fn elicit(call: &Call, message: &str, schema: Value, what: &str) -> Outcome {
    let params = json!({"message": message, "requestedSchema": schema});
    match call.ask("elicitation/create", params).await {
        Ok(result) => {
            let action = result.get("action").and_then(Value::as_str).unwrap_or("");
            let content = result.get("content").cloned().unwrap_or(json!({}));
            text(&format!("{what}: action={action}, content={content}"))
        }
        Err(e) => text(&format!("Elicitation not supported or error: {e}")),
    }
}

fn defaults_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true},
        },
        "required": [],
    })
}

fn enums_schema() -> Value {
    let titled = |noun: &str| {
        json!([
            {"const": "value1", "title": format!("First {noun}")},
            {"const": "value2", "title": format!("Second {noun}")},
            {"const": "value3", "title": format!("Third {noun}")},
        ])
    };
    json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Select one option",
                "enum": ["option1", "option2", "option3"],
            },
            "titledSingle": {
                "type": "string",
                "description": "Select one option with titles",
                "oneOf": titled("Option"),
            },
            "legacyEnum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "description": "Select multiple options",
                "minItems": 1,
                "maxItems": 3,
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {
                "type": "array",
                "description": "Select multiple options with titles",
                "minItems": 1,
                "maxItems": 3,
                "items": {"anyOf": titled("Choice")},
            },
        },
        "required": [],
    })
}

fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
            },
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false,
    })
}

/// The fixture tools as `tools/list` entries; the `input_required` ones and
/// the other 2026-07-28 diagnostics only for a stateless request (the
/// handshake era asks mid-call instead, and has no `Mcp-Param-*` headers).
pub fn tool_descriptors(modern: bool) -> Vec<Value> {
    let era_tools = if modern {
        let mut tools = mrtr::tool_descriptors();
        tools.push(sep2575::logging_tool_descriptor());
        tools
    } else {
        tasks::tool_descriptors()
    };
    let mut tools: Vec<Value> = all()
        .map(|f| {
            json!({
                "name": f.name(),
                "title": f.title(),
                "description": f.description(),
                "inputSchema": f.input_schema(),
            })
        })
        .chain(era_tools)
        .chain([watch::descriptor()])
        .collect();
    if modern {
        // Second, so it is on the first page, where the header scenario looks
        // for it, without displacing the first tool another scenario calls.
        tools.insert(1, sep2575::header_tool_descriptor());
    }
    tools
}

/// `tools/call` of a fixture that exists only for stateless requests (an
/// `input_required` one, `test_logging_tool` or `test_header_param`), answered at once (each round
/// is a request of its own); false when `name` is not one of them.
pub fn call_stateless(
    out: &Out,
    id: &Value,
    name: &str,
    params: &Map<String, Value>,
    era: &Option<Modern>,
) -> bool {
    if !mrtr::is_tool(name) && name != sep2575::LOGGING_TOOL && name != sep2575::HEADER_TOOL {
        return false;
    }
    let answer = match era {
        Some(modern) if name == sep2575::LOGGING_TOOL => Ok(sep2575::logging_tool(out, modern)),
        Some(_) if name == sep2575::HEADER_TOOL => Ok(sep2575::header_tool(params)),
        Some(modern) => mrtr::call_tool(name, params, modern.capabilities.as_ref()),
        None => Err(invalid(format!(
            "{name} is a 2026-07-28 fixture: call it with the stateless _meta envelope"
        ))),
    };
    respond(out, id, era, answer);
    true
}

/// `test_touch_resource`, in both eras; false when `name` is another tool.
pub fn call_touch(
    session: &Session,
    out: &Out,
    id: &Value,
    name: &str,
    params: &Map<String, Value>,
    era: &Option<Modern>,
) -> bool {
    if name != watch::TOOL {
        return false;
    }
    let result = watch::touch(
        params,
        era.is_some(),
        &session.subscribed,
        &session.watchers,
        &session.out,
    );
    respond(out, id, era, Ok(result));
    true
}

fn respond(out: &Out, id: &Value, era: &Option<Modern>, answer: Answer) {
    match answer {
        Ok(result) => out.respond(id, era::complete(era, result)),
        Err((code, message, data)) => {
            let mut error = json!({"code": code, "message": message});
            if let Some(data) = data {
                error["data"] = data;
            }
            out.send(super::out::line(
                &json!({"jsonrpc": "2.0", "id": id, "error": error}),
            ));
        }
    }
}

/// What `initialize` and `server/discover` announce with the fixtures on:
/// task-augmented `tools/call` in the handshake era.
pub fn capabilities(modern: bool) -> Value {
    let mut caps = json!({
        "tools": {},
        "logging": {},
        "resources": {"subscribe": true},
        "prompts": {},
        "completions": {},
    });
    if !modern {
        caps["tasks"] = json!({"cancel": {}, "requests": {"tools": {"call": {}}}});
    }
    caps
}

/// Answer a request only the fixtures know; false when `method` is not one
/// of theirs (the caller answers "method not found").
pub fn request(
    session: &Session,
    out: &Out,
    id: &Value,
    method: &str,
    params: &Map<String, Value>,
    era: &Option<Modern>,
) -> bool {
    if era.is_none()
        && let Some(answer) = tasks::request(session, method, params)
    {
        respond(out, id, era, answer.map_err(|(code, m)| (code, m, None)));
        return true;
    }
    let result = match method {
        "resources/list" => Ok(era::cacheable(era, json!({"resources": resources()}))),
        "resources/templates/list" => Ok(era::cacheable(
            era,
            json!({"resourceTemplates": [{
                "uriTemplate": "test://template/{id}/data",
                "name": "template",
                "title": "Resource Template",
                "description": "A resource template with parameter substitution",
                "mimeType": "application/json",
            }]}),
        )),
        "resources/read" => read(params, era).map(|r| era::cacheable(era, r)),
        "resources/subscribe" | "resources/unsubscribe" => match uri(params) {
            Ok(uri) => {
                // Only `test_touch_resource` ever changes these resources.
                let on = method.ends_with("/subscribe");
                if session.subscribed.set(uri, on) {
                    let verb = if on {
                        "Subscribed to"
                    } else {
                        "Unsubscribed from"
                    };
                    log(session, era, &format!("{verb} resource: {uri}"));
                    Ok(json!({}))
                } else {
                    Err(invalid(format!(
                        "too many subscriptions: at most {} resources",
                        watch::MAX_URIS
                    )))
                }
            }
            Err(e) => Err(e),
        },
        "prompts/list" => {
            let mut prompts = prompts();
            if era.is_some()
                && let Value::Array(list) = &mut prompts
            {
                list.push(mrtr::prompt_descriptor());
            }
            Ok(era::cacheable(era, json!({"prompts": prompts})))
        }
        "prompts/get" if params.get("name").and_then(Value::as_str) == Some(mrtr::PROMPT) => {
            match era {
                Some(_) => mrtr::get_prompt(params),
                None => Err(invalid(format!(
                    "{} is a 2026-07-28 fixture: get it with the stateless _meta envelope",
                    mrtr::PROMPT
                ))),
            }
        }
        "prompts/get" => get_prompt(params),
        "completion/complete" => Ok(complete(params)),
        _ => return false,
    };
    respond(out, id, era, result);
    true
}

type Answer = Result<Value, mrtr::Failure>;

fn invalid(message: impl Into<String>) -> (i64, String, Option<Value>) {
    (INVALID_PARAMS, message.into(), None)
}

fn log(session: &Session, era: &Option<Modern>, message: &str) {
    // A stateless request carries no stream for unsolicited notifications.
    if era.is_none() && session.logs(Level::Info) {
        session.out.send(super::out::notification_line(
            "notifications/message",
            json!({"level": "info", "logger": "conformance", "data": message}),
        ));
    }
}

fn resources() -> Value {
    json!([
        {
            "uri": "test://static-text",
            "name": "static-text",
            "title": "Static Text Resource",
            "description": "A static text resource for testing",
            "mimeType": "text/plain",
        },
        {
            "uri": "test://static-binary",
            "name": "static-binary",
            "title": "Static Binary Resource",
            "description": "A static binary resource (image) for testing",
            "mimeType": "image/png",
        },
        {
            "uri": "test://watched-resource",
            "name": "watched-resource",
            "title": "Watched Resource",
            "description": "A resource to subscribe to (its content never changes; test_touch_resource says it did)",
            "mimeType": "text/plain",
        },
    ])
}

fn uri(params: &Map<String, Value>) -> Result<&str, (i64, String, Option<Value>)> {
    params
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("a string `uri` is required"))
}

fn read(params: &Map<String, Value>, era: &Option<Modern>) -> Answer {
    let uri = uri(params)?;
    let text = |mime: &str, text: String| json!({"contents": [{"uri": uri, "mimeType": mime, "text": text}]});
    match uri {
        "test://static-text" => Ok(text(
            "text/plain",
            "This is the content of the static text resource.".into(),
        )),
        "test://static-binary" => Ok(json!({"contents": [
            {"uri": uri, "mimeType": "image/png", "blob": PNG_BASE64}
        ]})),
        "test://watched-resource" => Ok(text("text/plain", "Watched resource content".into())),
        _ => match template_id(uri) {
            Some(id) => Ok(text(
                "application/json",
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")})
                    .to_string(),
            )),
            None => {
                let code = if era.is_some() {
                    INVALID_PARAMS
                } else {
                    RESOURCE_NOT_FOUND
                };
                Err((
                    code,
                    format!("Resource not found: {uri}"),
                    Some(json!({"uri": uri})),
                ))
            }
        },
    }
}

/// `{id}` of `test://template/{id}/data`, if `uri` matches the template.
fn template_id(uri: &str) -> Option<&str> {
    let id = uri
        .strip_prefix("test://template/")?
        .strip_suffix("/data")?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

fn prompts() -> Value {
    let arg = |name: &str, description: &str| json!({"name": name, "description": description, "required": true});
    json!([
        {
            "name": "test_simple_prompt",
            "title": "Simple Test Prompt",
            "description": "A simple prompt without arguments",
        },
        {
            "name": "test_prompt_with_arguments",
            "title": "Prompt With Arguments",
            "description": "A prompt with required arguments",
            "arguments": [arg("arg1", "First test argument"), arg("arg2", "Second test argument")],
        },
        {
            "name": "test_prompt_with_embedded_resource",
            "title": "Prompt With Embedded Resource",
            "description": "A prompt that includes an embedded resource",
            "arguments": [arg("resourceUri", "URI of the resource to embed")],
        },
        {
            "name": "test_prompt_with_image",
            "title": "Prompt With Image",
            "description": "A prompt that includes image content",
        },
    ])
}

fn get_prompt(params: &Map<String, Value>) -> Answer {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("a string `name` is required"))?;
    let args = params.get("arguments").and_then(Value::as_object);
    let arg = |key: &str| -> Result<String, (i64, String, Option<Value>)> {
        args.and_then(|a| a.get(key))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| invalid(format!("prompt {name} needs the argument `{key}`")))
    };
    let user = |content: Value| json!({"role": "user", "content": content});
    let text = |t: &str| json!({"type": "text", "text": t});
    let messages = match name {
        "test_simple_prompt" => vec![user(text("This is a simple prompt for testing."))],
        "test_prompt_with_arguments" => {
            let (a1, a2) = (arg("arg1")?, arg("arg2")?);
            vec![user(text(&format!(
                "Prompt with arguments: arg1='{a1}', arg2='{a2}'"
            )))]
        }
        "test_prompt_with_embedded_resource" => vec![
            user(json!({
                "type": "resource",
                "resource": {
                    "uri": arg("resourceUri")?,
                    "mimeType": "text/plain",
                    "text": "Embedded resource content for testing.",
                },
            })),
            user(text("Please process the embedded resource above.")),
        ],
        "test_prompt_with_image" => {
            vec![user(image()), user(text("Please analyze the image above."))]
        }
        _ => return Err(invalid(format!("Unknown prompt: {name}"))),
    };
    Ok(json!({"messages": messages}))
}

/// Completions for the prompt arguments: a few words starting with what the
/// user typed so far.
fn complete(params: &Map<String, Value>) -> Value {
    const WORDS: [&str; 4] = ["hello", "help", "world", "wonder"];
    let typed = params
        .get("argument")
        .and_then(|a| a.get("value"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let values: Vec<&str> = WORDS
        .iter()
        .copied()
        .filter(|w| w.starts_with(typed))
        .collect();
    json!({"completion": {"values": values, "total": values.len(), "hasMore": false}})
}
