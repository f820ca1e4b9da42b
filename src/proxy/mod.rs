//! Proxy mode: mcpscope between a real host (Claude Desktop, Cursor, an SDK
//! client…) and a server, changing nothing on the wire and observing both
//! directions beside the forwarding path into a trace, which is recorded,
//! checked and followed by `attach`.
//!
//! - `stdio`: the forwarding itself (threads copying, ends and signals);
//! - `http`: the reverse proxy for Streamable HTTP and legacy HTTP+SSE;
//! - `http_observer`: its exchanges into the trace, bounded, never waited for;
//! - `observer`: framing stdio copies into the trace, bounded, never waited for;
//! - `registry`: live sessions on this machine (`sessions`, `attach`);
//! - `follow`: reading a live session's trace as it grows;
//! - `wrap`: a host config entry rewritten to run through the proxy.

mod endpoint;
pub mod follow;
pub mod http;
pub mod http_observer;
pub mod observer;
pub mod registry;
pub mod stdio;
pub mod wrap;

pub use registry::Entry;
pub use stdio::{Outcome, StdioProxy};

use crate::session::ServerSpec;
use crate::trace::record::{FORMAT_VERSION, Recorder};
use crate::trace::{MonotonicClock, Store, StoreLimits, Trace};

/// A proxy session's trace, recorded to `path` from its first event: the
/// header names the server (secrets redacted) and the proxy.
pub fn open_trace(
    spec: &ServerSpec,
    name: &str,
    path: &std::path::Path,
    max_store: Option<usize>,
) -> Result<Trace, String> {
    let mut limits = StoreLimits::default();
    if let Some(max) = max_store {
        limits.max_bytes = max;
    }
    let mut store = Store::new(limits);
    let header = serde_json::json!({
        "mcpscope_trace": FORMAT_VERSION,
        "version": env!("CARGO_PKG_VERSION"),
        "started": crate::session::rfc3339_now(),
        "server": spec.to_json(true),
        "proxy": {"name": name, "pid": std::process::id()},
    });
    let rec = Recorder::create(path, &header)
        .map_err(|e| format!("cannot record to {}: {e}", path.display()))?;
    store.set_recorder(rec);
    Ok(Trace::new(store, MonotonicClock::new()))
}

/// Start exporting the proxy's session (`--otlp`): the host's requests as
/// spans parented on the host's own `traceparent`.
pub(crate) fn start_export(
    cfg: Option<&crate::otel::export::Config>,
    trace: &Trace,
    checks: Option<crate::checks::LiveChecks>,
    server: Option<&reqwest::Url>,
) -> Option<crate::otel::export::LiveExport> {
    let cfg = cfg?;
    let server = match server {
        Some(u) => serde_json::json!({"transport": "http", "url": u.as_str()}),
        None => serde_json::json!({"transport": "stdio"}),
    };
    let ctx = crate::otel::export::Context::live(server, true, trace.now_us());
    Some(crate::otel::export::LiveExport::start(
        trace.clone(),
        checks,
        cfg,
        ctx,
    ))
}

/// End the proxy's export: what was lost is said always (the trace in the
/// backend is incomplete), the rest with `--verbose`.
pub(crate) async fn finish_export(
    export: Option<crate::otel::export::LiveExport>,
    say: impl Fn(&str),
) {
    let Some(e) = export else { return };
    let report = e.finish(crate::otel::export::deadline::session()).await;
    for (i, line) in report.lines().iter().enumerate() {
        if i == 0 && report.complete() {
            say(line);
        } else {
            eprintln!("[mcpscope] {line}");
        }
    }
}
