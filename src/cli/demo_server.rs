//! `mcpscope demo-server`: the built-in demo server on stdio, or over
//! Streamable HTTP with `--http ADDR`.

use crate::demo::http::{HttpOptions, ProgressMode};
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
}

#[derive(ValueEnum, Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ProgressArg {
    #[default]
    Live,
    Buffered,
    WrongStream,
}

pub async fn run(a: DemoServerArgs) -> i32 {
    let result = match &a.http {
        None => crate::demo::run_stdio().await,
        Some(addr) => {
            let opts = HttpOptions {
                progress: match a.progress {
                    ProgressArg::Live => ProgressMode::Live,
                    ProgressArg::Buffered => ProgressMode::Buffered,
                    ProgressArg::WrongStream => ProgressMode::WrongStream,
                },
                close_after: a.sse_close_after,
            };
            crate::demo::http::serve(addr, opts).await
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
