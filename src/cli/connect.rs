//! Shared start-up of the headless commands: their arguments become a
//! [`crate::session::Launch`] and a live session ([`crate::session::live`]);
//! then the handshake.

use super::spec::{ServerArgs, UsageError};
use crate::client::{ClientError, Limits, Session};
use crate::otel::ReceiverAt;
use crate::protocol::views::InitializeResult;
use crate::session::live::{Live, Notice, Plan, StartError};
use std::path::Path;

/// Why a headless command failed, with its exit code.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    #[error("{0}")]
    Usage(#[from] UsageError),
    #[error("{0}")]
    Client(#[from] ClientError),
}

impl From<StartError> for Failure {
    fn from(e: StartError) -> Failure {
        match e {
            StartError::Usage(u) => Failure::Usage(u),
            StartError::Client(c) => Failure::Client(c),
        }
    }
}

impl Failure {
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Usage(_) => 2,
            Failure::Client(e) => e.exit_code(),
        }
    }
}

/// Start a live session (`session::live`) for a headless command: the
/// server named by `args`, recording to `record`, its handshake within
/// `handshake` limits (the user's own `--timeout`/`--max-timeout` where the
/// command has them), with what `plan` asks besides. A receiver that
/// cannot bind is said (always), where it listens for an HTTP server
/// unless `quiet`.
pub async fn start_live(
    args: &ServerArgs,
    record: Option<&Path>,
    handshake: Limits,
    plan: Plan,
    quiet: bool,
) -> Result<Live, Failure> {
    let mut launch = args.launch(record)?;
    launch.options.handshake = handshake;
    let (live, notices) = Live::start(launch, plan).await?;
    for n in notices {
        match n {
            Notice::NoReceiver(e) => eprintln!("[otel] no receiver: {e}"),
            Notice::ReceiverAt(at) if !quiet => {
                eprintln!("[otel] receiver at {at} (point OTEL_EXPORTER_OTLP_ENDPOINT here)")
            }
            Notice::ReceiverAt(_) => {}
        }
    }
    Ok(live)
}

/// The receiver the command line asks for (`--no-otel-receiver`,
/// `--otel-receiver ADDR`), an address it cannot bind being an error.
pub fn observed(args: &ServerArgs) -> Plan {
    Plan {
        receiver: ReceiverAt::of(args.no_otel_receiver, args.otel_receiver),
        receiver_strict: true,
        ..Plan::default()
    }
}

/// [`start_live`] for the commands that start no OTLP receiver (`diff`,
/// `load`, `tools`, `conformance`).
pub async fn connect(
    args: &ServerArgs,
    record: Option<&Path>,
    handshake: Limits,
) -> Result<Live, Failure> {
    // These commands start no receiver: a server pointed at the address
    // the user gave would send into nothing, so the option is refused.
    if let Some(at) = args.otel_receiver {
        return Err(Failure::Usage(UsageError(format!(
            "--otel-receiver {at}: this command starts no OTLP receiver (`call`, `request`, `check`, the TUI and the proxies do)"
        ))));
    }
    let plan = Plan {
        receiver: ReceiverAt::Off,
        ..Plan::default()
    };
    start_live(args, record, handshake, plan, true).await
}

pub async fn handshake(session: &Session) -> Result<InitializeResult, Failure> {
    Ok(session.start().await?)
}
