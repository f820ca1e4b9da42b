//! The built-in demo MCP server (`mcpscope demo-server`): the stdin loop and
//! the dispatch of each incoming JSON-RPC message.
//!
//! Its tools reproduce the progress patterns of real servers (byte counts,
//! totals-less polling, steps counted from 0, event counters, floods) so the
//! inspector — or any other client — can be exercised against them. Only
//! `tools/call` runs as a task; everything else is answered inline, in order.

mod call;
mod conformance;
mod era;
mod ext_tasks;
pub mod http;
mod listen;
mod out;
mod progress;
mod request_state;
mod session;
mod stateless;
mod tools;

use crate::protocol::Revision;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use out::Out;
use session::{Level, Session, id_key};
use tools::Tool;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

const INSTRUCTIONS: &str = "Demo server bundled with mcpscope. Its tools simulate long-running \
work with progress notifications (uploads, CI polling, a wizard using elicitation, a context \
builder, a build report with logs) plus echo, sleep and a progress flood for benchmarks; the \
fault_* tools each break one protocol rule on purpose. Pass a \
progressToken in _meta to see progress; every numeric argument can be lowered for quick runs.";

/// How the demo server was started.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Serve the conformance suite's fixtures next to the demo tools.
    pub conformance: bool,
}

/// Serve MCP over this process's stdin/stdout until stdin closes.
pub async fn run_stdio(options: Options) -> anyhow::Result<()> {
    let (out, writer) = out::spawn()?;
    let session = Session::new(out.clone(), options);
    eprintln!("mcpscope-demo: started");

    let mut stdin = BufReader::with_capacity(64 * 1024, tokio::io::stdin());
    let mut line = Vec::new();
    let result = loop {
        line.clear();
        match stdin.read_until(b'\n', &mut line).await {
            Ok(0) => break Ok(()),
            Ok(_) => handle_line(&session, &session.out, &line),
            Err(e) => break Err(e),
        };
    };

    // The client is gone: calls still running have nobody to answer to.
    session.cancel_all();
    out.shutdown();
    writer.join().await;
    eprintln!("mcpscope-demo: stdin closed, exiting");
    result.map_err(|e| anyhow::anyhow!("reading stdin: {e}"))
}

fn handle_line(session: &Arc<Session>, out: &Out, line: &[u8]) {
    let line = line.trim_ascii();
    if line.is_empty() {
        return;
    }
    match serde_json::from_slice::<Value>(line) {
        Err(e) => out.error(&Value::Null, PARSE_ERROR, &format!("Parse error: {e}")),
        Ok(Value::Object(message)) => handle_message(session, out, message),
        Ok(Value::Array(_)) => out.error(
            &Value::Null,
            INVALID_REQUEST,
            "Invalid Request: JSON-RPC batches are not supported",
        ),
        Ok(_) => out.error(
            &Value::Null,
            INVALID_REQUEST,
            "Invalid Request: expected a JSON object",
        ),
    }
}

/// Handle one message; answers (and a call's progress, logs and response) go
/// to `out` — stdout, or the HTTP response stream of the POST that carried it.
pub(crate) fn handle_message(session: &Arc<Session>, out: &Out, mut message: Map<String, Value>) {
    if message.get("id").is_some_and(Value::is_null) && message.contains_key("method") {
        // MCP forbids null ids; answering it as a notification would leave
        // the client waiting for a response that never comes.
        return out.error(
            &Value::Null,
            INVALID_REQUEST,
            "Invalid Request: id must not be null",
        );
    }
    let id = message.remove("id").filter(|id| !id.is_null());
    let id_ok = id
        .as_ref()
        .is_none_or(|id| id.is_string() || id.is_i64() || id.is_u64());
    let reply_id = id.clone().filter(|_| id_ok).unwrap_or(Value::Null);
    if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return out.error(
            &reply_id,
            INVALID_REQUEST,
            "Invalid Request: jsonrpc must be \"2.0\"",
        );
    }
    if !id_ok {
        return out.error(
            &Value::Null,
            INVALID_REQUEST,
            "Invalid Request: id must be a string or an integer",
        );
    }
    let params = message.remove("params");
    match (message.remove("method"), id) {
        (Some(Value::String(method)), Some(id)) => request(session, out, id, &method, params),
        (Some(Value::String(method)), None) => notification(session, &method, params),
        (Some(_), _) => out.error(
            &reply_id,
            INVALID_REQUEST,
            "Invalid Request: method must be a string",
        ),
        (None, Some(id)) if message.contains_key("result") || message.contains_key("error") => {
            let reply = match message.remove("result") {
                Some(result) => Ok(result),
                None => Err(message.remove("error").unwrap_or(Value::Null)),
            };
            if !session.deliver_reply(&id, reply) {
                eprintln!("mcpscope-demo: ignoring response to unknown request {id}");
            }
        }
        (None, _) => out.error(
            &reply_id,
            INVALID_REQUEST,
            "Invalid Request: neither a request, a notification nor a response",
        ),
    }
}

fn request(session: &Arc<Session>, out: &Out, id: Value, method: &str, params: Option<Value>) {
    let params = match params {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p,
        Some(_) => return out.error(&id, INVALID_PARAMS, "params must be an object"),
    };
    let era = era::of_request(&params);
    if let Some(modern) = &era {
        // The envelope is not optional in 2026-07-28: without capabilities
        // the server could only guess what the client can do.
        let missing = era::missing_meta_keys(Some(&params));
        if !missing.is_empty() {
            return out.error(
                &id,
                INVALID_PARAMS,
                &format!("Invalid params: _meta lacks {}", missing.join(", ")),
            );
        }
        if era::removed(method) {
            return out.error(
                &id,
                METHOD_NOT_FOUND,
                &format!("Method not found: {method} was removed in {}", era::MODERN),
            );
        }
        session.set_client_capabilities(modern.capabilities.as_ref());
    }
    match method {
        "server/discover" => match &era {
            Some(_) => out.respond(
                &id,
                era::cacheable(&era, era::discover_result(INSTRUCTIONS, capabilities(session, true))),
            ),
            None => out.error(
                &id,
                INVALID_PARAMS,
                "server/discover needs the 2026-07-28 _meta envelope (io.modelcontextprotocol/protocolVersion, clientCapabilities)",
            ),
        },
        "initialize" => {
            session.set_client_capabilities(params.get("capabilities"));
            let requested = params.get("protocolVersion").and_then(Value::as_str);
            // Any handshake revision is spoken; the newest is offered when
            // the client asks for anything else.
            let version = requested
                .and_then(Revision::of_handshake)
                .unwrap_or(Revision::LATEST_HANDSHAKE)
                .as_str();
            out.respond(
                &id,
                json!({
                    "protocolVersion": version,
                    "capabilities": capabilities(session, false),
                    "serverInfo": {"name": "mcpscope-demo", "version": env!("CARGO_PKG_VERSION")},
                    "instructions": INSTRUCTIONS,
                }),
            );
        }
        "ping" => out.respond(&id, era::complete(&era, json!({}))),
        "logging/setLevel" => match params.get("level").and_then(Value::as_str).map(|s| s.parse::<Level>().ok()) {
            Some(Some(level)) => {
                session.set_min_level(level);
                out.respond(&id, json!({}));
            }
            _ => out.error(
                &id,
                INVALID_PARAMS,
                "level must be one of debug, info, notice, warning, error, critical, alert, emergency",
            ),
        },
        "tools/list" => {
            let cursor = match params.get("cursor") {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(c)) => Ok(Some(c.as_str())),
                Some(_) => Err(tools::CursorError::NotString),
            };
            let fixtures = if session.options.conformance {
                conformance::tool_descriptors(era.is_some())
            } else {
                Vec::new()
            };
            match cursor.and_then(|c| tools::list_page(c, &fixtures)) {
                Ok(page) => out.respond(&id, era::complete(&era, era::cacheable(&era, page))),
                Err(e) => out.error(&id, INVALID_PARAMS, &e.to_string()),
            }
        }
        "tools/call" => call_tool(session, out, id, params, era),
        "subscriptions/listen" if era.is_some() => listen::listen(session, out, &id, &params),
        _ if era.is_some()
            && ext_tasks::request(&session.ext_tasks, out, &id, method, &params, &era) => {}
        _ if session.options.conformance
            && conformance::request(session, out, &id, method, &params, &era) => {}
        _ => out.error(&id, METHOD_NOT_FOUND, &format!("Method not found: {method}")),
    }
}

fn call_tool(
    session: &Arc<Session>,
    out: &Out,
    id: Value,
    mut params: Map<String, Value>,
    era: Option<era::Modern>,
) {
    let Some(Value::String(name)) = params.get("name") else {
        return out.error(&id, INVALID_PARAMS, "tools/call needs a string `name`");
    };
    if session.options.conformance && conformance::call_stateless(out, &id, name, &params, &era) {
        return;
    }
    if session.options.conformance
        && conformance::call_touch(session, out, &id, name, &params, &era)
    {
        return;
    }
    if session.options.conformance
        && era.is_none()
        && conformance::tasks::call(session, out, &id, name, &params)
    {
        return;
    }
    // "A server MUST NOT return CreateTaskResult to a client that did not
    // include the extension capability on its request": only a request that
    // declared it gets a task; others run the job inline.
    if name == tools::Tool::BatchJob.name() && ext_tasks::declared(&era) {
        let args = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(args)) => args.clone(),
            Some(_) => return out.error(&id, INVALID_PARAMS, "`arguments` must be an object"),
        };
        return ext_tasks::start(&session.ext_tasks, out, &id, &args, &era);
    }
    let fixture = || {
        session
            .options
            .conformance
            .then(|| conformance::Fixture::by_name(name).map(Tool::Conformance))
            .flatten()
    };
    let Some(tool) = Tool::by_name(name).or_else(fixture) else {
        let known: Vec<&str> = tools::ALL.iter().map(|t| t.name()).collect();
        return out.error(
            &id,
            INVALID_PARAMS,
            &format!("Unknown tool: {name} (known: {})", known.join(", ")),
        );
    };
    let args = match params.remove("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(args)) => args,
        Some(_) => return out.error(&id, INVALID_PARAMS, "`arguments` must be an object"),
    };
    // Tokens are strings or integers; anything else is treated as absent
    // rather than echoed in a shape the client never sent.
    let token = params
        .get(crate::protocol::meta::META)
        .and_then(|m| m.get(crate::protocol::meta::PROGRESS_TOKEN))
        .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
        .cloned();
    if let Err(e) = call::spawn(session, out, id.clone(), tool, args, token, era) {
        out.error(&id, INVALID_REQUEST, e);
    }
}

/// The `tools/list` entry of the tool `name` in the stateless era. Only the
/// fixtures are searched: no demo tool mirrors an argument into a header,
/// so their descriptors could not change what a request is checked for.
pub(crate) fn tool_descriptor(options: &Options, name: &str) -> Option<Value> {
    if !options.conformance {
        return None;
    }
    conformance::tool_descriptors(true)
        .into_iter()
        .find(|t| t["name"] == name)
}

/// What the server announces: the demo's tools and logs, plus what the
/// conformance fixtures add when they are on.
fn capabilities(session: &Session, modern: bool) -> Value {
    let mut caps = if session.options.conformance {
        conformance::capabilities(modern)
    } else {
        json!({"tools": {}, "logging": {}})
    };
    // The tasks extension is a 2026-07-28 one (`batch_job` runs as its task).
    if modern && let Value::Object(m) = &mut caps {
        let ext = m.entry("extensions").or_insert_with(|| json!({}));
        if let Value::Object(ext) = ext {
            ext.extend(
                ext_tasks::capability()
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            );
        }
    }
    caps
}

fn notification(session: &Arc<Session>, method: &str, params: Option<Value>) {
    // Only cancellation matters here; the rest (initialized, roots changes,
    // unknown ones) must be ignored, never answered.
    if method != "notifications/cancelled" {
        return;
    }
    let params = params.unwrap_or(Value::Null);
    let Some(request_id) = params.get("requestId") else {
        return;
    };
    if session.cancel_call(&id_key(request_id)) {
        let reason = params
            .get("reason")
            .and_then(Value::as_str)
            .unwrap_or("no reason given");
        eprintln!("mcpscope-demo: cancelled request {request_id}: {reason}");
    }
}
