//! `mcpscope tools`: every tool of a server, all pages.

use super::call::fail;
use super::connect::{connect, handshake};
use super::signals::Signals;
use super::spec::ServerArgs;
use crate::client::ClientOptions;
use crate::protocol::sanitize::one_line;
use clap::Args;
use serde_json::Value;
use std::io::Write;

#[derive(Args, Debug, Clone)]
pub struct ToolsArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Print the tools as a JSON array.
    #[arg(long)]
    pub json: bool,
}

pub async fn run(a: ToolsArgs) -> i32 {
    let mut signals = Signals::install();
    let session = match connect(&a.server, None, ClientOptions::default().handshake).await {
        Ok(live) => live.session,
        Err(e) => return fail(&e),
    };
    let listing = async {
        handshake(&session).await?;
        Ok::<_, super::connect::Failure>(session.list_tools().await?)
    };
    let result = tokio::select! {
        r = listing => Ok(r),
        stop = signals.recv() => Err(stop),
    };
    session.shutdown().await;
    let tools = match result {
        Ok(Ok(t)) => t,
        Ok(Err(e)) => return fail(&e),
        Err(stop) => {
            eprintln!("[error] stopped by {}", stop.name);
            return stop.code;
        }
    };
    let mut out = super::stdout::lock();
    if a.json {
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&tools).unwrap_or_default()
        );
        return 0;
    }
    let width = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0);
    for t in &tools {
        let name = t.get("name").and_then(Value::as_str).unwrap_or("?");
        let desc = t
            .get("description")
            .and_then(Value::as_str)
            .and_then(|d| d.lines().next())
            .unwrap_or("");
        let _ = writeln!(out, "{:width$}  {}", one_line(name), one_line(desc));
    }
    0
}
