//! `mcpscope conformance-client URL` (hidden): the client the official MCP
//! conformance suite (`@modelcontextprotocol/conformance`) drives. The suite
//! appends its scenario server's URL and names the scenario in the
//! environment; this runs what the scenario expects through the real session
//! engine and transport, so the suite's verdict is a verdict on mcpscope.
//!
//! Environment (set by the suite): `MCP_CONFORMANCE_SCENARIO`, optional
//! `MCP_CONFORMANCE_CONTEXT` (JSON; `toolCalls` lists the calls to make) and
//! `MCP_CONFORMANCE_PROTOCOL_VERSION` (a dated revision up to 2025-11-25 means
//! the initialize handshake, 2026-07-28 the stateless era).

use super::auth::{AgentArg, AuthArgs};
use super::connect::{Failure, connect, handshake};
use super::spec::{ServerArgs, UsageError};
use crate::client::{ClientError, ClientOptions, Limits, Session, TokenPolicy};
use crate::protocol::sanitize::one_line;
use crate::protocol::schema::{Blanks, Fields, Sampler};
use clap::Args;
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug, Clone)]
pub struct ConformanceArgs {
    /// The scenario server's MCP endpoint (the suite appends it).
    pub url: String,
    /// Scenario name.
    #[arg(long, env = "MCP_CONFORMANCE_SCENARIO")]
    pub scenario: String,
    /// Scenario context as JSON (`toolCalls`: `[{name, arguments}]`).
    #[arg(long, env = "MCP_CONFORMANCE_CONTEXT")]
    pub context: Option<String>,
    /// Protocol revision to speak.
    #[arg(
        long,
        env = "MCP_CONFORMANCE_PROTOCOL_VERSION",
        default_value = "2025-11-25"
    )]
    pub protocol_version: String,
    /// Record the session as a JSONL trace.
    #[arg(long)]
    pub record: Option<PathBuf>,
}

/// What a scenario wants the client to do after connecting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Plan {
    /// `tools/list` (every page).
    list_tools: bool,
    /// Call every listed tool (with arguments made from its schema) when the
    /// context names no calls.
    call_listed: bool,
    /// `resources/list`, then `resources/read` of each.
    resources: bool,
    /// `prompts/list`, then `prompts/get` of each.
    prompts: bool,
}

/// The scenarios this driver knows; anything else gets the generic plan
/// (exercise whatever the server declares).
fn plan(scenario: &str, capabilities: &Value) -> Plan {
    let declared = |c: &str| capabilities.get(c).is_some();
    let tools_only = |call_listed| Plan {
        list_tools: true,
        call_listed,
        resources: false,
        prompts: false,
    };
    match scenario {
        "initialize" | "request-metadata" | "json-schema-ref-no-deref" => tools_only(false),
        "tools_call"
        | "sse-retry"
        | "http-custom-headers"
        | "http-invalid-tool-headers"
        | "elicitation-sep1034-client-defaults" => tools_only(true),
        "http-standard-headers" => Plan {
            list_tools: true,
            call_listed: true,
            resources: true,
            prompts: true,
        },
        _ => Plan {
            list_tools: true,
            call_listed: declared("tools"),
            resources: declared("resources"),
            prompts: declared("prompts"),
        },
    }
}

/// The Client ID Metadata Document URL the suite's servers expect.
const CIMD_URL: &str = "https://conformance-test.local/client-metadata.json";

fn context_text(context: &Value, key: &str) -> Option<String> {
    context.get(key).and_then(Value::as_str).map(str::to_string)
}

const LIMITS: Limits = Limits {
    idle: Some(Duration::from_secs(30)),
    max: Some(Duration::from_secs(60)),
};

pub async fn run(a: ConformanceArgs) -> i32 {
    let context: Value = match a.context.as_deref().map(serde_json::from_str) {
        None => Value::Null,
        Some(Ok(v)) => v,
        Some(Err(e)) => {
            eprintln!("conformance: MCP_CONFORMANCE_CONTEXT is not JSON: {e}");
            return 2;
        }
    };
    let server = ServerArgs {
        url: Some(a.url.clone()),
        protocol: a.protocol_version.clone(),
        // A non-interactive client: elicitations are accepted with the
        // schema's defaults (SEP-1034), which is what the suite checks.
        elicit: Some(crate::client::ElicitMode::Defaults),
        // The suite's authorization servers approve at once: the redirects
        // are followed over HTTP to the loopback listener. Pre-registered
        // credentials come in the context; the suite's metadata-document
        // client id is used where a server takes one.
        auth: AuthArgs {
            client_id: context_text(&context, "client_id"),
            client_secret: context_text(&context, "client_secret"),
            client_metadata_url: Some(CIMD_URL.into()),
            no_auth_cache: true,
            auth_agent: Some(AgentArg::Fetch),
            ..AuthArgs::default()
        },
        ..ServerArgs::default()
    };
    eprintln!(
        "conformance: scenario {} at {} against {}",
        a.scenario, a.protocol_version, a.url
    );
    let mut live = match connect(
        &server,
        a.record.as_deref(),
        ClientOptions::default().handshake,
    )
    .await
    {
        Ok(l) => l,
        Err(e) => {
            eprintln!("conformance: {e}");
            return e.exit_code();
        }
    };
    let outcome = drive(&live.session.clone(), &a.scenario, &context).await;
    live.stop_server(false).await;
    if let Some(e) = live.end(std::future::pending()).await.recording_error {
        eprintln!("conformance: {}", crate::protocol::sanitize::one_line(&e));
    }
    match outcome {
        Ok(0) => {
            eprintln!("conformance: done");
            0
        }
        Ok(n) => {
            eprintln!("conformance: done, {n} step(s) failed");
            1
        }
        Err(e) => {
            eprintln!("conformance: {e}");
            e.exit_code()
        }
    }
}

/// Connect, then carry out the scenario's plan. Returns how many steps
/// failed; a failed connection is an error.
async fn drive(session: &Session, scenario: &str, context: &Value) -> Result<usize, Failure> {
    let init = handshake(session).await?;
    eprintln!(
        "conformance: connected ({}, protocol {}, server {})",
        if session.is_modern() {
            "stateless"
        } else {
            "handshake"
        },
        init.protocol_version,
        one_line(&init.server_info.to_string())
    );
    let plan = plan(scenario, &init.capabilities);
    let mut failed = 0;
    let wanted = context_calls(context)?;
    let tools = if plan.list_tools || wanted.is_some() {
        let from = session.trace().read().next_seq();
        let tools = session.list_tools().await?;
        warn_rejected(session, from);
        let names: Vec<&str> = tools
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .collect();
        eprintln!("conformance: tools/list -> [{}]", names.join(", "));
        tools
    } else {
        Vec::new()
    };
    let calls: Vec<(String, Value)> = match wanted {
        Some(calls) => calls,
        None if scenario == "json-schema-2020-12-preservation" => schema_echo(&tools),
        None if plan.call_listed => tools
            .iter()
            .filter_map(|t| {
                let name = t.get("name").and_then(Value::as_str)?;
                Some((name.to_string(), sample_arguments(t.get("inputSchema"))))
            })
            .collect(),
        None => Vec::new(),
    };
    for (name, args) in &calls {
        match session
            .call_tool(name, args, &TokenPolicy::AutoString, LIMITS)
            .await
        {
            Ok(out) => eprintln!(
                "conformance: tools/call {name} -> {}{}",
                if out.is_error() { "isError " } else { "" },
                one_line(&out.reply.result.to_string())
            ),
            Err(e) => {
                failed += 1;
                eprintln!("conformance: tools/call {name} failed: {e}");
            }
        }
    }
    if plan.resources {
        failed += resources(session).await;
    }
    if plan.prompts {
        failed += prompts(session).await;
    }
    Ok(failed)
}

/// The spec asks clients to log a warning for each tool they exclude; the
/// session records them as `tool-rejected` meta events.
fn warn_rejected(session: &Session, from: u64) {
    let store = session.trace().read();
    for ev in store.range(from, store.next_seq()) {
        let Some(crate::event::Event::ToolRejected { tool, reason }) = ev.event() else {
            continue;
        };
        eprintln!(
            "conformance: warning: tool {} rejected: {}",
            one_line(&tool.to_string()),
            one_line(&reason)
        );
    }
}

/// `toolCalls` from the context: `None` when the context names none.
fn context_calls(context: &Value) -> Result<Option<Vec<(String, Value)>>, Failure> {
    let Some(calls) = context.get("toolCalls") else {
        return Ok(None);
    };
    let calls = calls
        .as_array()
        .ok_or_else(|| UsageError("context toolCalls is not an array".into()))?;
    calls
        .iter()
        .map(|c| {
            let name = c
                .get("name")
                .and_then(Value::as_str)
                .ok_or_else(|| UsageError(format!("context tool call without a name: {c}")))?;
            let args = c.get("arguments").cloned().unwrap_or_else(|| json!({}));
            Ok((name.to_string(), args))
        })
        .collect::<Result<Vec<_>, UsageError>>()
        .map(Some)
        .map_err(Failure::from)
}

/// SEP-1613: hand every other tool's `inputSchema` back, verbatim, to the
/// echo tool, so the suite sees what survived mcpscope's handling of it.
fn schema_echo(tools: &[Value]) -> Vec<(String, Value)> {
    const ECHO: &str = "json_schema_echo";
    tools
        .iter()
        .filter(|t| t.get("name").and_then(Value::as_str) != Some(ECHO))
        .filter_map(|t| t.get("inputSchema"))
        .map(|schema| (ECHO.to_string(), json!({"schema": schema})))
        .collect()
}

/// Arguments for a call the scenario did not spell out: each required
/// property gets its `default`, first `enum` value, or a value of its type
/// (`"test"`, `1`, `true`; an untyped property is taken for a string), so
/// that a server checking its inputs accepts the call.
fn sample_arguments(schema: Option<&Value>) -> Value {
    const SAMPLE: Sampler = Sampler {
        fields: Fields::Required,
        nested: Fields::Required,
        blanks: Blanks {
            string: "test",
            number: 1,
            boolean: true,
            honour_const: false,
            untyped_as_string: true,
        },
    };
    SAMPLE.sample(schema.unwrap_or(&Value::Null))
}

/// One page of a list request, or the error that stopped it.
async fn list(session: &Session, method: &str, key: &str) -> Result<Vec<Value>, ClientError> {
    let reply = session.request(method, None, LIMITS).await?;
    let items = reply
        .result
        .get(key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    Ok(items)
}

async fn resources(session: &Session) -> usize {
    let items = match list(session, "resources/list", "resources").await {
        Ok(items) => items,
        Err(e) => {
            eprintln!("conformance: resources/list failed: {e}");
            return 1;
        }
    };
    let mut failed = 0;
    for uri in items
        .iter()
        .filter_map(|r| r.get("uri").and_then(Value::as_str))
    {
        match session
            .request("resources/read", Some(json!({"uri": uri})), LIMITS)
            .await
        {
            Ok(r) => eprintln!(
                "conformance: resources/read {uri} -> {}",
                one_line(&r.result.to_string())
            ),
            Err(e) => {
                failed += 1;
                eprintln!("conformance: resources/read {uri} failed: {e}");
            }
        }
    }
    failed
}

async fn prompts(session: &Session) -> usize {
    let items = match list(session, "prompts/list", "prompts").await {
        Ok(items) => items,
        Err(e) => {
            eprintln!("conformance: prompts/list failed: {e}");
            return 1;
        }
    };
    let mut failed = 0;
    for p in &items {
        let Some(name) = p.get("name").and_then(Value::as_str) else {
            continue;
        };
        let args: Map<String, Value> = p
            .get("arguments")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|a| a.get("required").and_then(Value::as_bool) == Some(true))
            .filter_map(|a| a.get("name").and_then(Value::as_str))
            .map(|n| (n.to_string(), json!("test")))
            .collect();
        let params = json!({"name": name, "arguments": args});
        match session.request("prompts/get", Some(params), LIMITS).await {
            Ok(r) => eprintln!(
                "conformance: prompts/get {name} -> {}",
                one_line(&r.result.to_string())
            ),
            Err(e) => {
                failed += 1;
                eprintln!("conformance: prompts/get {name} failed: {e}");
            }
        }
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_arguments_fill_required_properties() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "number"}, "b": {"type": "integer", "default": 5},
            "c": {"type": "string", "enum": ["x", "y"]}, "d": {"type": ["null", "boolean"]},
            "opt": {"type": "string"}},
            "required": ["a", "b", "c", "d", "missing"]});
        assert_eq!(
            sample_arguments(Some(&schema)),
            json!({"a": 1, "b": 5, "c": "x", "d": true, "missing": "test"})
        );
    }

    #[test]
    fn plans() {
        let p = plan("http-standard-headers", &json!({}));
        assert!(p.call_listed && p.resources && p.prompts);
        assert!(!plan("initialize", &json!({"tools": {}})).call_listed);
        let generic = plan("something-new", &json!({"prompts": {}}));
        assert!(generic.prompts && !generic.resources && !generic.call_listed);
    }
}
