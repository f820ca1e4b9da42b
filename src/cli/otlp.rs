//! `--otlp URL` and `--otlp-header NAME=VALUE`: the flags every face that
//! exports a session shares (the TUI, `call`, `check`, `proxy`, `export`),
//! and the `[otel]` lines a headless session ends with.

use super::signals::Signals;
use super::spec::{ServerSpec, UsageError};
use crate::otel::export::{Config, Context, Report};
use crate::trace::Trace;
use clap::Args;
use std::time::Duration;

#[derive(Args, Debug, Clone, Default)]
pub struct OtlpArgs {
    /// Send the session to an OpenTelemetry backend over OTLP/HTTP
    /// protobuf (base URL, e.g. http://127.0.0.1:4318): each request a span
    /// by the MCP semantic conventions, progress and findings as span
    /// events, and the duration histograms (see docs/opentelemetry.md).
    #[arg(long, value_name = "URL", help_heading = "OpenTelemetry")]
    pub otlp: Option<String>,
    /// A header sent with every export, e.g. an API key (repeatable; its
    /// value is never printed).
    #[arg(
        long,
        value_name = "NAME=VALUE",
        help_heading = "OpenTelemetry",
        requires = "otlp"
    )]
    pub otlp_header: Vec<String>,
}

impl OtlpArgs {
    /// The export asked for, if any.
    pub fn config(&self) -> Result<Option<Config>, UsageError> {
        let Some(url) = &self.otlp else {
            return Ok(None);
        };
        let mut cfg = Config::new(url).map_err(|e| UsageError(e.to_string()))?;
        for h in &self.otlp_header {
            cfg = cfg.header(h).map_err(|e| UsageError(e.to_string()))?;
        }
        Ok(Some(cfg))
    }
}

/// What a live session's spans say of it: its server, whether it is a
/// proxy's, and its start to the microsecond.
pub fn live_context(trace: &Trace, spec: &ServerSpec, proxy: bool) -> Context {
    Context::live(spec.to_json(true), proxy, trace.now_us())
}

/// Say how the export went: what was lost always, the rest unless quiet.
pub fn say(report: &Report, quiet: bool) {
    for (i, line) in report.lines().iter().enumerate() {
        if i > 0 || !quiet {
            eprintln!("{line}");
        }
    }
}

/// Send a session that is over (folded with its findings), wait at most
/// `deadline` for the backend, and say how it went. A stopping signal ends
/// the wait at once: what was not delivered is said, then `Err` with the
/// signal's exit code.
pub async fn send_folded(
    folded: crate::otel::export::recorded::Folded,
    cfg: &Config,
    deadline: Duration,
    signals: &mut Signals,
) -> Result<Report, i32> {
    let mut stopped = None;
    let report = crate::otel::export::recorded::send(folded, cfg, deadline, async {
        let stop = signals.recv().await;
        stopped = Some(stop);
        format!(
            "mcpscope was stopped ({}) before the backend took them",
            stop.name
        )
    })
    .await;
    say(&report, false);
    match stopped {
        Some(stop) => {
            eprintln!("[error] {}: the export was not finished", stop.reason);
            Err(stop.code)
        }
        None => Ok(report),
    }
}
