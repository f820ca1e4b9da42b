//! `mcpscope mock TRACE [--http ADDR] [--speed X]`: serve a recorded
//! session as an MCP server (see `crate::mock` and docs/mock.md).
//! Exit codes: 0 the host closed stdin, 2 usage (a trace that cannot be
//! served, a bad `--speed`, a non-loopback `--http`), 3 the listener or
//! stdio failed, 128 + signal when stopped.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use crate::listen_guard;
use crate::mock::{self, Pace};
use crate::signals::{Caught, exit_code};

#[derive(Args, Debug, Clone)]
pub struct MockArgs {
    /// A trace recorded with --record (by call, the TUI or the proxy).
    pub trace: PathBuf,
    /// Serve Streamable HTTP on ADDR (loopback only, e.g. 127.0.0.1:8080 or port 0; endpoint /mcp) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
    /// Pace: 1 as recorded, 2 twice as fast, 0 everything at once (0.01 to 1000, or 0).
    #[arg(long, value_name = "X", default_value_t = 1.0, value_parser = parse_speed, allow_negative_numbers = true)]
    pub speed: f64,
}

fn parse_speed(s: &str) -> Result<f64, String> {
    let x: f64 = s.parse().map_err(|_| format!("{s:?} is not a number"))?;
    Pace::new(x).map(|_| x).map_err(|e| e.to_string())
}

pub async fn run(a: MockArgs) -> i32 {
    let Ok(pace) = Pace::new(a.speed) else {
        return 2;
    };
    let rec = match mock::load(&a.trace) {
        Ok(r) => {
            if r.unattributed > 0 {
                eprintln!(
                    "mcpscope mock: {} frame(s) the server sent before the client's first message are not replayed",
                    r.unattributed
                );
            }
            Arc::new(r)
        }
        Err(e) => {
            eprintln!("[error] {e}");
            return 2;
        }
    };
    let mut signals = Caught::stopping();
    let served = match &a.http {
        None => {
            let serving = mock::stdio::serve(
                rec,
                pace,
                tokio::io::stdin(),
                tokio::io::stdout(),
                crate::platform::stdio::stdout_unread,
            );
            tokio::select! {
                r = serving => r,
                sig = signals.recv() => return exit_code(sig),
            }
        }
        Some(addr) => {
            let listener = match bind(addr).await {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("[error] --http {addr}: {e}");
                    return 2;
                }
            };
            match listener.local_addr() {
                Ok(bound) => {
                    eprintln!("mcpscope mock: serving Streamable HTTP on http://{bound}/mcp")
                }
                Err(e) => {
                    eprintln!("[error] --http {addr}: {e}");
                    return 3;
                }
            }
            tokio::select! {
                r = mock::http::serve(listener, rec, pace) => r,
                sig = signals.recv() => return exit_code(sig),
            }
        }
    };
    match served {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("[error] mock: {e}");
            3
        }
    }
}

/// Why `--http ADDR` gives no listener; said after `--http ADDR: `.
#[derive(Debug, thiserror::Error)]
enum BindError {
    /// The address did not resolve, or the socket could not be bound.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Remote(#[from] listen_guard::RemoteBind),
}

/// A loopback listener on `addr` (what the demo server and the proxy allow).
async fn bind(addr: &str) -> Result<tokio::net::TcpListener, BindError> {
    let addrs: Vec<_> = tokio::net::lookup_host(addr).await?.collect();
    listen_guard::check_bind(&addrs, false)?;
    Ok(tokio::net::TcpListener::bind(&addrs[..]).await?)
}
