//! `mcpscope demo-server`: the built-in demo server on stdio, or over
//! Streamable HTTP with `--http ADDR` (loopback only unless `--allow-remote`,
//! with the DNS-rebinding checks of [`crate::listen_guard`]).

use crate::demo::Options;
use crate::demo::http::{HttpOptions, ProgressMode};
use crate::listen_guard;
use clap::{Args, ValueEnum};

#[derive(Args, Debug, Clone, Default)]
pub struct DemoServerArgs {
    /// Serve Streamable HTTP on ADDR (e.g. 127.0.0.1:8080; endpoint /mcp) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// HTTP: how request streams carry progress (buffered and wrong-stream break the rules on purpose).
    #[arg(long, value_enum, default_value = "live", requires = "http")]
    pub progress: ProgressArg,
    /// HTTP: end each request's event stream after N events once, so clients must resume it.
    #[arg(long, value_name = "N", requires = "http")]
    pub sse_close_after: Option<usize>,
    /// HTTP: also accept requests from this browser origin (scheme://host[:port]; repeatable).
    /// Loopback origins are always accepted; an allowed origin's host[:port] is also accepted
    /// as Host, whatever port the server bound (as behind a reverse proxy).
    #[arg(long, value_name = "ORIGIN", requires = "http", value_parser = listen_guard::parse_origin)]
    pub allow_origin: Vec<String>,
    /// HTTP: allow binding a non-loopback ADDR (other machines can then reach the server).
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// Add the fixtures of the official MCP conformance suite (tools, resources, prompts,
    /// completions, 2026-07-28 input_required) before the demo tools.
    #[arg(long)]
    pub conformance: bool,
}

#[derive(ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ProgressArg {
    #[default]
    Live,
    Buffered,
    WrongStream,
}

pub async fn run(a: DemoServerArgs) -> i32 {
    let options = Options {
        conformance: a.conformance,
    };
    let result = match &a.http {
        None => crate::demo::run_stdio(options).await,
        Some(addr) => {
            let addrs = match tokio::net::lookup_host(addr.as_str()).await {
                Ok(addrs) => addrs.collect::<Vec<_>>(),
                Err(e) => {
                    eprintln!("demo-server: --http {addr}: {e}");
                    return 2;
                }
            };
            let flags = crate::demo::http::DEMO_SERVER_FLAGS;
            match listen_guard::check_bind_with(&addrs, a.allow_remote, flags) {
                Ok(None) => {}
                Ok(Some(warning)) => eprintln!("demo-server: {warning}"),
                Err(e) => {
                    eprintln!("demo-server: --http {addr}: {e}");
                    return 2;
                }
            }
            let opts = HttpOptions {
                progress: match a.progress {
                    ProgressArg::Live => ProgressMode::Live,
                    ProgressArg::Buffered => ProgressMode::Buffered,
                    ProgressArg::WrongStream => ProgressMode::WrongStream,
                },
                close_after: a.sse_close_after,
                allowed_origins: a.allow_origin.clone(),
                demo: options,
            };
            crate::demo::http::serve(&addrs, opts).await
        }
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("demo-server: {e:#}");
            3
        }
    }
}
