//! Shared start-up of the headless commands: trace (and recording), session,
//! handshake.

use super::spec::{ServerArgs, ServerSpec, UsageError};
use crate::client::{ClientError, Limits, Session};
use crate::protocol::views::InitializeResult;
use crate::trace::record::{FORMAT_VERSION, Recorder};
use crate::trace::{MonotonicClock, Store, StoreLimits, Trace};
use crate::transport::http::Flavor;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

/// Why a headless command failed, with its exit code.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    #[error("{0}")]
    Usage(#[from] UsageError),
    #[error("{0}")]
    Client(#[from] ClientError),
}

impl Failure {
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Usage(_) => 2,
            Failure::Client(e) => e.exit_code(),
        }
    }
}

/// Seconds since the Unix epoch as RFC 3339 UTC (no calendar crate needed).
pub fn rfc3339_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// A fresh trace, recording to `record` if given.
pub fn new_trace(
    spec: &ServerSpec,
    record: Option<&Path>,
    redact: bool,
    max_store: Option<usize>,
) -> Result<Trace, UsageError> {
    let mut limits = StoreLimits::default();
    if let Some(max) = max_store {
        limits.max_bytes = max;
    }
    let mut store = Store::new(limits);
    if let Some(path) = record {
        let header = json!({
            "mcpscope_trace": FORMAT_VERSION,
            "version": env!("CARGO_PKG_VERSION"),
            "started": rfc3339_now(),
            "server": spec.to_json(redact),
        });
        let rec = Recorder::create(path, &header)
            .map_err(|e| UsageError(format!("cannot record to {}: {e}", path.display())))?;
        store.set_recorder(rec);
    }
    Ok(Trace::new(store, MonotonicClock::new()))
}

/// Start the server (the handshake is separate, within `handshake` limits:
/// the user's own `--timeout`/`--max-timeout` where the command has them).
pub async fn connect(
    args: &ServerArgs,
    record: Option<&Path>,
    handshake: Limits,
) -> Result<(Arc<Session>, Trace, ServerSpec), Failure> {
    let spec = args.resolve()?;
    let mut opts = args.client_options()?;
    opts.handshake = handshake;
    let trace = new_trace(&spec, record, !args.no_redact, args.max_store)?;
    let session = open_session(&spec, args, opts, trace.clone())?;
    Ok((session, trace, spec))
}

/// Start the transport a resolved spec names (the handshake is separate).
pub fn open_session(
    spec: &ServerSpec,
    args: &ServerArgs,
    opts: crate::client::ClientOptions,
    trace: Trace,
) -> Result<Arc<Session>, ClientError> {
    match spec {
        ServerSpec::Stdio { cmd, .. } => Session::spawn_stdio(cmd, opts, trace),
        ServerSpec::Http { url, headers, .. } => {
            let flavor = match args.transport.as_deref() {
                Some("http") => Flavor::Streamable,
                Some("sse") => Flavor::Legacy,
                _ => Flavor::Auto,
            };
            Session::connect_http(url, headers, flavor, opts, trace)
        }
    }
}

pub async fn handshake(session: &Session) -> Result<InitializeResult, Failure> {
    Ok(session.start().await?)
}
