//! `mcpscope export TRACE --format har|mermaid|json|html [-o FILE] [--call ID]`:
//! a recorded session for other tools and people (`crate::export`); `--otlp URL`
//! sends it to an OpenTelemetry backend (`crate::otel::export`). The rule
//! engine runs over the trace as it is read, as `check --trace` runs it, so
//! the diagram, the statistics and the spans carry its findings.
//!
//! Exit: 0 written (or sent); 1 the backend did not take every span; 2
//! usage (a stdio trace for `har`, `--call` without `mermaid` or naming no
//! request, an unreadable trace or output file, neither `--format` nor
//! `--otlp`).

use super::check::CheckRun;
use super::replay::{describe, read_lines_into};
use crate::checks::CheckConfig;
use crate::export::mermaid::Scope;
use crate::export::{Session, har, html, mermaid, stats};
use crate::protocol::IdKey;
use crate::protocol::sanitize::one_line;
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::PathBuf;

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// HAR 1.2 of an HTTP session: one entry per HTTP exchange, with its SSE events.
    Har,
    /// A Mermaid sequence diagram (progress bursts folded, findings as notes).
    Mermaid,
    /// Latency percentiles and counts per tool and method, errors, findings by rule.
    Json,
    /// One self-contained HTML page (Scope, Timeline, findings, calls) that opens offline.
    Html,
}

#[derive(Args, Debug, Clone)]
pub struct ExportArgs {
    /// A trace recorded with --record (by call, check, the TUI or the proxy).
    pub trace: PathBuf,
    /// What to export.
    #[arg(long, value_enum, required_unless_present = "otlp")]
    pub format: Option<ExportFormat>,
    /// Write to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// mermaid: only this call (the id of a request mcpscope or the host
    /// sent): it, its response, its progress and what its stream carried.
    #[arg(long, value_name = "ID")]
    pub call: Option<String>,
    #[command(flatten)]
    pub otlp: super::otlp::OtlpArgs,
}

fn usage(msg: &str) -> i32 {
    eprintln!("[error] {}", one_line(msg));
    2
}

pub async fn run(a: ExportArgs) -> i32 {
    if a.call.is_some() && a.format != Some(ExportFormat::Mermaid) {
        return usage("--call applies to --format mermaid only");
    }
    let otlp = match a.otlp.config() {
        Ok(c) => c,
        Err(e) => return usage(&e.0),
    };
    let mut run: Option<CheckRun> = None;
    let read = read_lines_into(
        &a.trace,
        crate::trace::StoreLimits::default(),
        |header, store, seq, _| {
            let run = run
                .get_or_insert_with(|| CheckRun::new(CheckConfig::default().for_recording(header)));
            if let Some(ev) = store.get(seq) {
                run.observe(&ev);
            }
        },
    );
    let loaded = match read {
        Ok(l) => l,
        Err(e) => return usage(&e.to_string()),
    };
    if let Some(d) = &loaded.damage {
        eprintln!(
            "[warning] {}",
            one_line(&format!("{}: {d}", a.trace.display()))
        );
    }
    let findings = run
        .unwrap_or_else(|| CheckRun::new(CheckConfig::default().for_recording(&loaded.header)))
        .findings();
    let session = Session {
        header: &loaded.header,
        store: &loaded.store,
        findings: &findings,
    };
    let mut code = 0;
    if let Some(cfg) = &otlp {
        code = match send(&session, cfg).await {
            Ok(c) => c,
            // Stopped by a signal: nothing more is written.
            Err(c) => return c,
        };
    }
    let Some(format) = a.format else {
        return code;
    };
    let text = match format {
        ExportFormat::Har => match har::har(&session) {
            Ok(v) => serde_json::to_string_pretty(&v).unwrap_or_default() + "\n",
            Err(e) => return usage(&e.to_string()),
        },
        ExportFormat::Json => {
            serde_json::to_string_pretty(&stats::stats(&session)).unwrap_or_default() + "\n"
        }
        ExportFormat::Mermaid => {
            let scope = match &a.call {
                None => Scope::Session,
                Some(id) => Scope::Call(call_id(&session, id)),
            };
            match mermaid::mermaid(&session, &scope, &describe) {
                Ok(t) => t,
                Err(e) => return usage(&e.to_string()),
            }
        }
        ExportFormat::Html => match html::html(&session, &crate::export::generator()) {
            Ok(t) => t,
            Err(e) => return usage(&e.to_string()),
        },
    };
    match &a.output {
        Some(path) => match std::fs::write(path, text) {
            Ok(()) => code,
            Err(e) => usage(&format!("cannot write {}: {e}", path.display())),
        },
        None => {
            let mut out = super::stdout::lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            code
        }
    }
}

/// Send the session to the backend; 1 when a span was not taken, `Err`
/// with its exit code when a signal stopped the export.
async fn send(s: &Session<'_>, cfg: &crate::otel::export::Config) -> Result<i32, i32> {
    let ctx = crate::otel::export::Context::of_header(s.header, None);
    let folded = crate::otel::export::recorded::fold(s.store, s.findings, ctx);
    let deadline = crate::otel::export::deadline::recording();
    let mut signals = super::signals::Signals::install();
    let report = super::otlp::send_folded(folded, cfg, deadline, &mut signals).await?;
    Ok(if report.complete() { 0 } else { 1 })
}

/// `--call 3` names the integer id 3 or, when the session has none, the
/// string id "3"; `--call '"a"'` the string "a".
fn call_id(s: &Session<'_>, text: &str) -> IdKey {
    let sent = |id: &IdKey| {
        s.store
            .request(crate::trace::store::Origin::Client, id)
            .is_some()
    };
    let raw = IdKey::from_raw(text.trim());
    let string = IdKey::Str(text.into());
    if (!raw.is_valid() || !sent(&raw)) && sent(&string) {
        return string;
    }
    raw
}
