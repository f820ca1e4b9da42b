//! The command line (DESIGN §3): clap definitions and the headless commands.

pub mod call;
pub mod connect;
pub mod printer;
pub mod spec;
pub mod tools;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "mcpscope", version, about = "Inspector and debugger for MCP servers: progress, logs, notification order, raw JSON-RPC.")]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Call one tool headless: progress and logs on stderr, the result on stdout.
    Call(call::CallArgs),
    /// List a server's tools (all pages).
    Tools(tools::ToolsArgs),
    /// Run the built-in demo MCP server on stdio.
    DemoServer,
}

/// Run a parsed command line; returns the process exit code.
pub async fn run(cli: Cli) -> i32 {
    match cli.cmd {
        Cmd::Call(a) => call::run(a).await,
        Cmd::Tools(a) => tools::run(a).await,
        Cmd::DemoServer => match crate::demo::run_stdio().await {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("demo-server: {e:#}");
                3
            }
        },
    }
}
