//! One live session, from its start to its end, owned in one place: the
//! trace and its recording, the OTLP receiver for the server's spans and
//! logs (with its grace for spans that come late), the live checks, the
//! live export to an OpenTelemetry backend, and the client session. Every
//! face that runs a server — `call`, `request`, `check`, `diff`'s live
//! side, `test`, the TUI — starts it with [`Live::start`] and ends it the
//! same way, in one order:
//!
//! 1. [`Live::stop_server`]: after a session that ran, wait (bounded) for
//!    the spans of its calls, then shut the server down (a face whose
//!    server is stopped elsewhere, the TUI's restartable one, skips this);
//! 2. [`Live::end`]: stop listening for OTLP (the server has stopped, so
//!    what it exported as it exited is in), finish the export within
//!    [`crate::otel::export::deadline::SESSION`] (a stopping signal ends
//!    the wait), stop the checks, and close the recording.
//!
//! What each step found is handed back for the face to say its own way
//! (stderr lines, a TUI notice, a report); nothing here prints.

use super::{Launch, ServerSpec, UsageError};
use crate::checks::{CheckConfig, LiveChecks};
use crate::client::{ClientError, Session};
use crate::otel::export::{Config as ExportConfig, Context, LiveExport, Report};
use crate::otel::grace::Awaited;
use crate::otel::{Receiver, ReceiverAt};
use crate::trace::Trace;
use std::future::Future;
use std::sync::Arc;

/// What to start besides the server.
#[derive(Default)]
pub struct Plan {
    /// Where the OTLP receiver listens (`ReceiverAt::Off`: none).
    pub receiver: ReceiverAt,
    /// An address the user gave that cannot be bound is an error (the
    /// command line: a server pointed there would lose what it sends)
    /// rather than a notice (the TUI).
    pub receiver_strict: bool,
    /// Check every frame as it arrives.
    pub checks: Option<CheckConfig>,
    /// Export the session as it goes to an OTLP backend.
    pub export: Option<ExportConfig>,
}

/// Why a live session could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("{0}")]
    Usage(#[from] UsageError),
    #[error("{0}")]
    Client(#[from] ClientError),
}

/// What the start has to say besides its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// The receiver could not bind and was left out.
    NoReceiver(String),
    /// An HTTP server's user is told where the receiver listens (a stdio
    /// server's exporter is pointed at it instead).
    ReceiverAt(String),
}

/// What a live session has besides its client: the trace and its
/// recording, the receiver, the checks and the export. The proxies, which
/// forward a host's session rather than being its client, hold only this.
pub struct Observed {
    pub trace: Trace,
    receiver: Option<Receiver>,
    checks: Option<LiveChecks>,
    export: Option<LiveExport>,
}

/// A live session whose client mcpscope is.
pub struct Live {
    pub session: Arc<Session>,
    pub trace: Trace,
    pub spec: ServerSpec,
    recording: bool,
    observed: Observed,
    spans: Awaited,
}

/// How a live session ended.
pub struct Ended {
    /// The export's report, when one ran to its end.
    pub export: Option<Report>,
    /// The stopping signal that cut the export short, as the face's own
    /// `stop` future gave it.
    pub interrupted: Option<ExportStop>,
    /// The live checks, stopped: what they saw and missed, for the face
    /// to report.
    pub checks: Option<LiveChecks>,
    /// Why the recording is incomplete, if it is.
    pub recording_error: Option<String>,
}

/// A stop the face's signal future gave: its exit code and its reason.
#[derive(Debug, Clone)]
pub struct ExportStop {
    pub code: i32,
    pub reason: String,
}

impl Observed {
    /// Start, over `trace`, the receiver (pointing `point` — a server's
    /// environment, and the service name its spans get — at it), the live
    /// checks and the export, as `plan` asks. `server` is the session's
    /// server as its spans name it; `proxy`, whether a host's session is
    /// forwarded rather than mcpscope's own.
    pub async fn start(
        trace: Trace,
        plan: Plan,
        point: Option<(&mut Vec<(String, String)>, &str)>,
        server: serde_json::Value,
        proxy: bool,
    ) -> Result<(Observed, Vec<Notice>), UsageError> {
        let mut notices = Vec::new();
        let asked = matches!(plan.receiver, ReceiverAt::At(_));
        let receiver = match plan.receiver.start(trace.clone()).await {
            None => None,
            Some(Ok(r)) => Some(r),
            Some(Err(e)) if asked && plan.receiver_strict => {
                return Err(UsageError(format!("--otel-receiver: {e}")));
            }
            Some(Err(e)) => {
                notices.push(Notice::NoReceiver(e.to_string()));
                None
            }
        };
        if let Some(r) = &receiver {
            match point {
                Some((env, name)) => crate::otel::point_at(env, &r.endpoint(), name),
                None => notices.push(Notice::ReceiverAt(r.endpoint())),
            }
        }
        let checks = plan.checks.map(|cfg| spawn_checks(&trace, cfg));
        tracing::info!(
            receiver = receiver.as_ref().map(|r| r.endpoint()),
            checks = checks.is_some(),
            export = plan.export.as_ref().map(|c| c.shown()),
            proxy,
            "session observed"
        );
        let export = plan.export.as_ref().map(|cfg| {
            let ctx = Context::live(server, proxy, trace.now_us());
            LiveExport::start(trace.clone(), checks.clone(), cfg, ctx)
        });
        Ok((
            Observed {
                trace,
                receiver,
                checks,
                export,
            },
            notices,
        ))
    }

    /// The live checks, when the plan asked for them.
    pub fn checks(&self) -> Option<&LiveChecks> {
        self.checks.as_ref()
    }

    /// Whether a receiver listens for the server's OTLP.
    pub fn receives(&self) -> bool {
        self.receiver.is_some()
    }

    /// Stop listening for OTLP: the server has stopped, and what it
    /// exported as it exited is in.
    pub fn stop_receiving(&mut self) {
        drop(self.receiver.take());
    }

    /// Only the live checks, over a trace something else fills (a replay,
    /// a proxy's session followed by `attach`): no receiver, no export.
    pub fn checking(trace: Trace, checks: CheckConfig) -> Observed {
        Observed {
            checks: Some(spawn_checks(&trace, checks)),
            trace,
            receiver: None,
            export: None,
        }
    }

    /// Where the receiver listens, if one does.
    pub fn receiver_endpoint(&self) -> Option<String> {
        self.receiver.as_ref().map(Receiver::endpoint)
    }

    /// The session could not get going (its server never started): stop
    /// everything without waiting on the export, and close the recording
    /// (`Some` with why it is incomplete).
    pub fn abandon(mut self) -> Option<String> {
        self.stop_receiving();
        drop(self.export.take());
        if let Some(c) = &self.checks {
            c.stop();
        }
        close_recording(&self.trace)
    }

    /// The end, in one order: stop listening, finish the export (at most
    /// the session deadline; `stop` — the face's stopping signal — cuts it
    /// short), stop the checks, close the recording.
    pub async fn end<F>(mut self, stop: F) -> Ended
    where
        F: Future<Output = ExportStop>,
    {
        self.stop_receiving();
        if let Some(c) = &self.checks {
            c.sync();
        }
        let mut interrupted = None;
        let export = match self.export.take() {
            None => None,
            Some(e) => tokio::select! {
                report = e.finish(crate::otel::export::deadline::session()) => Some(report),
                s = stop => {
                    interrupted = Some(s);
                    None
                }
            },
        };
        if let Some(c) = &self.checks {
            c.stop();
        }
        let recording_error = close_recording(&self.trace);
        tracing::info!(
            export = export.as_ref().map(|r| r.lines().join("; ")),
            export_interrupted = interrupted.is_some(),
            findings = self.checks.as_ref().map(LiveChecks::len),
            recording_error = recording_error.as_deref(),
            "live session ended"
        );
        Ended {
            export,
            interrupted,
            checks: self.checks.take(),
            recording_error,
        }
    }
}

impl Live {
    /// Start the trace (and its recording), what `plan` asks besides (a
    /// stdio server's exporter pointed at the receiver), and the server;
    /// the handshake is the face's own (within its limits).
    pub async fn start(mut launch: Launch, plan: Plan) -> Result<(Live, Vec<Notice>), StartError> {
        let trace = launch.trace()?;
        let server = launch.spec.to_json(true);
        let (observed, notices) = match &mut launch.spec {
            ServerSpec::Stdio { name, cmd } => {
                let name = name.clone();
                let point = Some((&mut cmd.env, name.as_str()));
                Observed::start(trace.clone(), plan, point, server, false).await?
            }
            ServerSpec::Http { .. } => {
                Observed::start(trace.clone(), plan, None, server, false).await?
            }
        };
        let session = launch.open(trace.clone())?;
        tracing::info!(
            server = launch.spec.name(),
            transport = session.transport_name(),
            recording = launch.record.is_some(),
            "live session started"
        );
        Ok((
            Live {
                session,
                recording: launch.record.is_some(),
                trace,
                spec: launch.spec,
                observed,
                spans: Awaited::default(),
            },
            notices,
        ))
    }

    /// The live checks, when the plan asked for them.
    pub fn checks(&self) -> Option<&LiveChecks> {
        self.observed.checks()
    }

    /// Whether a receiver listens for the server's OTLP.
    pub fn receives(&self) -> bool {
        self.observed.receives()
    }

    /// Whether the session is recorded to a file.
    pub fn records(&self) -> bool {
        self.recording
    }

    /// Step 1: after a session that `ran` (its work ended normally), wait
    /// a bounded time for the spans of its calls (an HTTP server keeps
    /// running, so it is waited for only once it exported anything); then
    /// shut the server down.
    pub async fn stop_server(&mut self, ran: bool) {
        if self.receives() && ran {
            let http = matches!(self.spec, ServerSpec::Http { .. });
            tracing::debug!(http, "waiting for the spans of the calls");
            self.spans.before_shutdown(&self.trace, http).await;
        }
        tracing::info!(ran, "stopping the server");
        self.session.shutdown().await;
    }

    /// The calls whose spans did not come, said once the server stopped
    /// (nothing when no receiver listened).
    pub fn missing_spans(&mut self) -> Vec<String> {
        if !self.receives() {
            return Vec::new();
        }
        self.spans.after_shutdown(&self.trace)
    }

    /// Step 2: [`Observed::end`].
    pub async fn end<F>(self, stop: F) -> Ended
    where
        F: Future<Output = ExportStop>,
    {
        self.observed.end(stop).await
    }
}

/// The one place live checks start: over `trace`, as `cfg` says.
fn spawn_checks(trace: &Trace, cfg: CheckConfig) -> LiveChecks {
    LiveChecks::spawn(trace.clone(), cfg)
}

/// The one place a live session's recording is closed: `Some` with why it
/// is incomplete.
fn close_recording(trace: &Trace) -> Option<String> {
    trace.finish_recording()
}
