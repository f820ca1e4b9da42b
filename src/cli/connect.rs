//! Shared start-up of the headless commands: their arguments become a
//! [`crate::session::Launch`]; then the handshake.

use super::spec::{ServerArgs, ServerSpec, UsageError};
use crate::client::{ClientError, Limits, Session};
use crate::protocol::views::InitializeResult;
use crate::trace::Trace;
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

/// Start the server (the handshake is separate, within `handshake` limits:
/// the user's own `--timeout`/`--max-timeout` where the command has them).
pub async fn connect(
    args: &ServerArgs,
    record: Option<&Path>,
    handshake: Limits,
) -> Result<(Arc<Session>, Trace, ServerSpec), Failure> {
    // These commands start no receiver: a server pointed at the address
    // the user gave would send into nothing, so the option is refused.
    if let Some(at) = args.otel_receiver {
        return Err(Failure::Usage(UsageError(format!(
            "--otel-receiver {at}: this command starts no OTLP receiver (`call`, `request`, `check`, the TUI and the proxies do)"
        ))));
    }
    let mut launch = args.launch(record)?;
    launch.options.handshake = handshake;
    let trace = launch.trace()?;
    let session = launch.open(trace.clone())?;
    Ok((session, trace, launch.spec))
}

/// [`connect`], with the OTLP receiver (unless `--no-otel-receiver`): a
/// stdio server's exporter is pointed at it, an HTTP server's user is told
/// where it listens. A receiver that cannot bind is said and left out.
pub async fn connect_observed(
    args: &ServerArgs,
    record: Option<&Path>,
    handshake: Limits,
    quiet: bool,
) -> Result<
    (
        Arc<Session>,
        Trace,
        ServerSpec,
        Option<crate::otel::Receiver>,
    ),
    Failure,
> {
    let mut launch = args.launch(record)?;
    launch.options.handshake = handshake;
    let trace = launch.trace()?;
    let at = crate::otel::ReceiverAt::of(args.no_otel_receiver, args.otel_receiver);
    let receiver = match at.start(trace.clone()).await {
        None => None,
        Some(Ok(r)) => Some(r),
        // An address the user gave is one a server is pointed at: not
        // listening there would lose what it sends.
        Some(Err(e)) if args.otel_receiver.is_some() => {
            return Err(Failure::Usage(UsageError(format!("--otel-receiver: {e}"))));
        }
        Some(Err(e)) => {
            eprintln!("[otel] no receiver: {e}");
            None
        }
    };
    if let Some(r) = &receiver {
        match &mut launch.spec {
            ServerSpec::Stdio { name, cmd } => {
                crate::otel::point_at(&mut cmd.env, &r.endpoint(), name)
            }
            ServerSpec::Http { .. } if !quiet => eprintln!(
                "[otel] receiver at {} (point OTEL_EXPORTER_OTLP_ENDPOINT here)",
                r.endpoint()
            ),
            ServerSpec::Http { .. } => {}
        }
    }
    let session = launch.open(trace.clone())?;
    Ok((session, trace, launch.spec, receiver))
}

pub async fn handshake(session: &Session) -> Result<InitializeResult, Failure> {
    Ok(session.start().await?)
}
