//! An MCP server on rmcp, the official Rust SDK: a test peer for mcpscope.
//!
//!     mcpscope-rmcp-peer                 stdio
//!     mcpscope-rmcp-peer --http PORT     Streamable HTTP on 127.0.0.1:PORT (0: any free
//!                                        port), the bound address reported on stderr
//!     --no-set-level                     (deviation) declare `logging` but answer
//!                                        `logging/setLevel` as rmcp's default handler
//!                                        does: -32601 method not found
//!
//! It declares `logging` and honours `logging/setLevel` (at 2026-07-28: each request's
//! `_meta` logLevel, and no log for a request without one), so a session of these is clean:
//!
//!     slow_task {steps=4, delay_ms=50}   progress i/steps "step i of steps" (only when the
//!                                        call carried a progressToken), logs at
//!                                        debug/info/warning/error, returns a text
//!     greet {}                           elicits a name (elicitation/create; at 2026-07-28 an
//!                                        input_required result) when the client declared
//!                                        `elicitation`; otherwise greets "world"
//!     echo {text}                        returns text unchanged
//!     notes://readme                     a text resource
//!     summarize {topic, style?}          a prompt
//!
//! Deviations: rmcp's `Peer::create_elicitation`, `create_message` and `list_roots` send
//! whatever the client declared (only the typed `elicit` helper checks); these tools call
//! them unguarded and return what the client answered:
//!
//!     elicit_unchecked {}   elicitation/create to a client that may not declare elicitation
//!     sample_unchecked {}   sampling/createMessage to a client that may not declare sampling
//!     roots_unchecked {}    roots/list to a client that may not declare roots
#![allow(deprecated)] // logging, sampling and roots are marked deprecated (SEP-2577)

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::*;
use rmcp::service::{RequestContext, RoleServer, ServiceError};
use rmcp::{ErrorData as McpError, Peer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

const LEVELS: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

fn rank(level: LoggingLevel) -> usize {
    LEVELS.iter().position(|l| *l == level).unwrap_or(0)
}

/// One per session (the HTTP service makes one for each).
struct PeerServer {
    honour_set_level: bool,
    /// The level the client set; messages below it are not sent.
    min_level: Mutex<LoggingLevel>,
}

impl PeerServer {
    fn new(honour_set_level: bool) -> Self {
        Self {
            honour_set_level,
            min_level: Mutex::new(LoggingLevel::Debug),
        }
    }

    /// The least level `ctx`'s request may be sent, if any: the request's own
    /// `_meta` logLevel (the 2026-07-28 era, where a request without one gets
    /// no log), else the level `logging/setLevel` set for the session.
    fn threshold(&self, ctx: &RequestContext<RoleServer>) -> Option<LoggingLevel> {
        match ctx.meta.log_level() {
            Some(level) => Some(level),
            None if modern(ctx) => None,
            None => Some(*self.min_level.lock().unwrap()),
        }
    }

    async fn log(&self, ctx: &RequestContext<RoleServer>, level: LoggingLevel, text: String) {
        match self.threshold(ctx) {
            Some(least) if rank(level) >= rank(least) => {}
            _ => return,
        }
        let params = LoggingMessageNotificationParam::new(level, Value::String(text))
            .with_logger("rmcp-peer");
        let _ = ctx.peer.notify_logging_message(params).await;
    }

    async fn slow_task(
        &self,
        args: &JsonObject,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let steps = int_arg(args, "steps", 4)?;
        let delay_ms = int_arg(args, "delay_ms", 50)?;
        let token = ctx.meta.get_progress_token();
        self.log(
            ctx,
            LoggingLevel::Debug,
            format!("slow_task debug: starting {steps} steps"),
        )
        .await;
        self.log(
            ctx,
            LoggingLevel::Info,
            format!("slow_task info: delay {delay_ms} ms per step"),
        )
        .await;
        for i in 1..=steps {
            tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            if let Some(token) = &token {
                let p = ProgressNotificationParam::new(token.clone(), i as f64)
                    .with_total(steps as f64)
                    .with_message(format!("step {i} of {steps}"));
                let _ = ctx.peer.notify_progress(p).await;
            }
        }
        self.log(
            ctx,
            LoggingLevel::Warning,
            "slow_task warning: almost done".into(),
        )
        .await;
        self.log(
            ctx,
            LoggingLevel::Error,
            "slow_task error: not really an error".into(),
        )
        .await;
        Ok(text_result(format!("slow_task finished {steps} steps")))
    }
}

fn int_arg(args: &JsonObject, name: &str, default: u64) -> Result<u64, McpError> {
    match args.get(name) {
        None => Ok(default),
        Some(v) => v
            .as_u64()
            .filter(|n| *n <= 10_000)
            .ok_or_else(|| McpError::invalid_params(format!("{name}: a small integer"), None)),
    }
}

fn text_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

fn schema(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(o) => Arc::new(o),
        _ => unreachable!("schemas are objects"),
    }
}

fn name_form() -> ElicitRequestParams {
    serde_json::from_value(json!({
        "mode": "form",
        "message": "What is your name?",
        "requestedSchema": {
            "type": "object",
            "properties": {"name": {"type": "string", "default": "world"}},
            "required": ["name"],
        },
    }))
    .expect("a valid form elicitation")
}

/// A 2026-07-28 request: it carries its protocol version in `_meta`.
fn modern(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.meta.protocol_version().is_some()
}

fn client_declared(
    ctx: &RequestContext<RoleServer>,
    pick: fn(&ClientCapabilities) -> bool,
) -> bool {
    ctx.client_capabilities().as_ref().is_some_and(pick)
}

/// Send a server->client request and say how the client answered.
async fn ask(peer: &Peer<RoleServer>, request: ServerRequest) -> String {
    match peer.send_request(request).await {
        Ok(result) => format!(
            "answered: {}",
            serde_json::to_string(&result).unwrap_or_default()
        ),
        Err(ServiceError::McpError(e)) => format!("error {}: {}", e.code.0, e.message),
        Err(e) => format!("failed: {e}"),
    }
}

fn greeting(answer: ElicitResult) -> CallToolResult {
    if answer.action != ElicitationAction::Accept {
        return text_result(format!("No name ({:?}).", answer.action));
    }
    let name = answer
        .content
        .as_ref()
        .and_then(|c| c.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("world");
    text_result(format!("Hello, {name}!"))
}

fn tools() -> Vec<Tool> {
    let empty = || schema(json!({"type": "object", "properties": {}}));
    vec![
        Tool::new(
            "slow_task",
            "Work in `steps` steps of `delay_ms` ms, reporting progress and logging at several levels.",
            schema(json!({
                "type": "object",
                "properties": {
                    "steps": {"type": "integer", "default": 4},
                    "delay_ms": {"type": "integer", "default": 50},
                },
            })),
        ),
        Tool::new(
            "greet",
            "Ask the user's name (elicitation, if the client declared it) and greet them.",
            empty(),
        ),
        Tool::new(
            "echo",
            "Return the given text unchanged.",
            schema(json!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            })),
        ),
        Tool::new(
            "elicit_unchecked",
            "Send elicitation/create whether or not the client declared elicitation.",
            empty(),
        ),
        Tool::new(
            "sample_unchecked",
            "Send sampling/createMessage whether or not the client declared sampling.",
            empty(),
        ),
        Tool::new(
            "roots_unchecked",
            "Send roots/list whether or not the client declared roots.",
            empty(),
        ),
    ]
}

impl ServerHandler for PeerServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_prompts()
            .enable_resources()
            .enable_tools()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("mcpscope-rmcp-peer", "1.0.0"))
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        if !self.honour_set_level {
            // What rmcp's default `ServerHandler::set_level` answers.
            return Err(McpError::method_not_found::<SetLevelRequestMethod>());
        }
        *self.min_level.lock().unwrap() = request.level;
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = request.arguments.unwrap_or_default();
        let result = match request.name.as_ref() {
            "slow_task" => self.slow_task(&args, &ctx).await?,
            "echo" => match args.get("text").and_then(Value::as_str) {
                Some(text) => text_result(text),
                None => return Err(McpError::invalid_params("text: a string", None)),
            },
            "greet" => {
                if !client_declared(&ctx, |c| c.elicitation.is_some()) {
                    text_result("Hello, world!")
                } else if modern(&ctx) {
                    // 2026-07-28: no server->client request; ask in the result
                    // (input_required) and read the answer from the retry.
                    match request.input_responses.as_ref().and_then(|r| r.get("name")) {
                        None => {
                            let ask = InputRequest::Elicitation(Request::new(name_form()));
                            let asks = [("name".to_string(), ask)].into_iter().collect();
                            return Ok(InputRequiredResult::from_input_requests(asks).into());
                        }
                        Some(answer) => {
                            match serde_json::from_value::<ElicitResult>(answer.clone()) {
                                Ok(r) => greeting(r),
                                Err(e) => text_result(format!("No name ({e}).")),
                            }
                        }
                    }
                } else {
                    let request = ServerRequest::ElicitRequest(Request::new(name_form()));
                    match ctx.peer.send_request(request).await {
                        Ok(ClientResult::ElicitResult(r)) => greeting(r),
                        Ok(_) => text_result("No name (unexpected answer)."),
                        Err(e) => text_result(format!("No name ({e}).")),
                    }
                }
            }
            "elicit_unchecked" => {
                let got = ask(
                    &ctx.peer,
                    ServerRequest::ElicitRequest(Request::new(name_form())),
                )
                .await;
                text_result(format!("elicitation/create: {got}"))
            }
            "sample_unchecked" => {
                let message =
                    SamplingMessage::new(Role::User, SamplingMessageContentBlock::text("Say hi"));
                let params = CreateMessageRequestParams::new(vec![message], 16);
                let got = ask(
                    &ctx.peer,
                    ServerRequest::CreateMessageRequest(Request::new(params)),
                )
                .await;
                text_result(format!("sampling/createMessage: {got}"))
            }
            "roots_unchecked" => {
                let got = ask(
                    &ctx.peer,
                    ServerRequest::ListRootsRequest(RequestNoParam::default()),
                )
                .await;
                text_result(format!("roots/list: {got}"))
            }
            other => {
                return Err(McpError::invalid_params(
                    format!("no tool named {other}"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        Ok(ListResourcesResult::with_all_items(vec![
            Resource::new("notes://readme", "readme")
                .with_description("The peer's notes: a plain text resource.")
                .with_mime_type("text/plain"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        if request.uri != "notes://readme" {
            return Err(McpError::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            ));
        }
        let contents = ResourceContents::text("mcpscope rmcp peer: notes", "notes://readme")
            .with_mime_type("text/plain");
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "summarize",
            Some("Summarize a topic."),
            Some(vec![
                PromptArgument::new("topic").with_required(true),
                PromptArgument::new("style").with_required(false),
            ]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        if request.name != "summarize" {
            return Err(McpError::invalid_params(
                format!("no prompt named {}", request.name),
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        let Some(topic) = args.get("topic").and_then(Value::as_str) else {
            return Err(McpError::invalid_params("topic: required", None));
        };
        let style = args.get("style").and_then(Value::as_str).unwrap_or("short");
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Summarize {topic} in a {style} style."),
        )])
        .with_description("Summarize a topic.")
        .into())
    }
}

async fn serve_http(port: u16, honour_set_level: bool) -> std::io::Result<()> {
    use hyper::server::conn::http1;
    use hyper_util::rt::TokioIo;
    use hyper_util::service::TowerToHyperService;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpService, session::local::LocalSessionManager,
    };

    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let bound = listener.local_addr()?.port();
    eprintln!("listening on http://127.0.0.1:{bound}/mcp");
    let service = TowerToHyperService::new(StreamableHttpService::new(
        move || Ok(PeerServer::new(honour_set_level)),
        LocalSessionManager::default().into(),
        Default::default(),
    ));
    loop {
        let (stream, _) = listener.accept().await?;
        let service = service.clone();
        tokio::spawn(async move {
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn usage() -> ! {
    eprintln!("usage: mcpscope-rmcp-peer [--http PORT] [--no-set-level]");
    std::process::exit(2);
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    let mut http = None;
    let mut honour_set_level = true;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--http" => {
                http = Some(
                    args.next()
                        .and_then(|p| p.parse::<u16>().ok())
                        .unwrap_or_else(|| usage()),
                )
            }
            "--no-set-level" => honour_set_level = false,
            _ => usage(),
        }
    }
    if let Some(port) = http {
        return serve_http(port, honour_set_level).await;
    }
    let running = PeerServer::new(honour_set_level)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(std::io::Error::other)?;
    let _ = running.waiting().await;
    Ok(())
}
