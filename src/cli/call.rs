//! `mcpscope call`: one `tools/call`, progress and logs streamed to stderr,
//! the result JSON alone on stdout.

use super::connect::{Failure, handshake, observed, start_live};
use super::printer::Printer;
use super::signals::{Signals, cancel_in_flight};
use super::spec::{ServerArgs, UsageError};
use crate::checks::{CheckConfig, LiveChecks};
use crate::client::tasks::TaskSupport;
use crate::client::{ClientError, LevelAsked, Limits, Session, TokenPolicy};
use crate::protocol::meta::ResultType;
use crate::protocol::sanitize::one_line;
use crate::protocol::views::LogLevel;
use crate::session::live::{ExportStop, Plan};
use crate::trace::Trace;
use clap::Args;
use serde_json::{Map, Value};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args, Debug, Clone)]
pub struct CallArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Tool to call.
    #[arg(long)]
    pub tool: String,
    /// Arguments as a JSON object.
    #[arg(long)]
    pub args: Option<String>,
    /// One argument KEY=VALUE (VALUE parsed as JSON when it parses, else a string).
    #[arg(short = 'a', long = "arg")]
    pub arg: Vec<String>,
    /// Run the call as a task (tasks/get, tasks/result) where the tool allows it;
    /// a tool that requires it runs as a task without this.
    #[arg(long)]
    pub task: bool,
    #[command(flatten)]
    pub opts: CallOpts,
}

/// How each call is made: token, log level, time limits (shared by `call`
/// and `check`).
#[derive(Args, Debug, Clone)]
pub struct RequestOpts {
    /// Progress token: auto (unique string), auto-int, none, or a value (integers become integer tokens).
    #[arg(long, default_value = "auto")]
    pub token: String,
    /// Ask the server for logs at this level and above (logging/setLevel, or per request at 2026-07-28).
    #[arg(long)]
    pub log_level: Option<LogLevel>,
    /// Idle timeout in seconds, reset by each progress notification of the call.
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Hard maximum in seconds, never reset.
    #[arg(long, default_value_t = 600.0)]
    pub max_timeout: f64,
}

impl RequestOpts {
    pub fn limits(&self) -> Result<Limits, UsageError> {
        // A year is as long as any call may reasonably wait.
        const MAX_SECS: f64 = 365.0 * 86_400.0;
        let secs = |v: f64, flag: &str| {
            if v.is_finite() && v > 0.0 && v <= MAX_SECS {
                Ok(Some(Duration::from_secs_f64(v)))
            } else {
                Err(UsageError(format!(
                    "{flag} must be a positive number of seconds (at most {MAX_SECS})"
                )))
            }
        };
        Ok(Limits {
            idle: secs(self.timeout, "--timeout")?,
            max: secs(self.max_timeout, "--max-timeout")?,
        })
    }

    pub fn policy(&self) -> TokenPolicy {
        TokenPolicy::parse(&self.token)
    }

    /// Ask for `--log-level`, saying on stderr when the server cannot be asked.
    /// `hint`: say when a stateless server will log nothing because no
    /// level was asked (the era has no server default, unlike `initialize`).
    pub async fn apply_log_level(&self, session: &Session, hint: bool) {
        let Some(level) = self.log_level else {
            let logs = session
                .server()
                .is_some_and(|s| s.has_capability("logging"));
            if hint && logs && session.is_modern() {
                eprintln!(
                    "[session] at 2026-07-28 a server logs only for requests that ask for a level; none is asked: --log-level LEVEL shows its logs"
                );
            }
            return;
        };
        let undeclared = "[protocol] the server did not declare the logging capability; logging/setLevel sent as asked";
        match session.set_level(level).await {
            Ok(LevelAsked::Sent | LevelAsked::PerRequest) => {}
            Ok(LevelAsked::Undeclared) => eprintln!("{undeclared}"),
            Err(e) => {
                if !session.declares_logging() {
                    eprintln!("{undeclared}");
                }
                match e {
                    // The error names the method already.
                    e @ ClientError::Rpc { .. } => {
                        eprintln!("[protocol] {}", one_line(&e.to_string()))
                    }
                    e => eprintln!(
                        "[protocol] logging/setLevel failed: {}",
                        one_line(&e.to_string())
                    ),
                }
            }
        }
    }
}

#[derive(Args, Debug, Clone)]
pub struct CallOpts {
    #[command(flatten)]
    pub request: RequestOpts,
    /// Print the result as compact JSON.
    #[arg(long)]
    pub json: bool,
    /// Only the result and errors: no progress, log or stderr lines.
    #[arg(short, long)]
    pub quiet: bool,
    /// Say more: info-level findings as they happen (otherwise they are in
    /// the summary at the end).
    #[arg(short, long)]
    pub verbose: bool,
    /// Record the session as a JSONL trace.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Keep listening this long after the response before disconnecting.
    /// Default: 200 over Streamable HTTP while the server keeps its GET
    /// stream open (what it sends there, logs included, has no order
    /// relative to the response), 0 otherwise.
    #[arg(long, value_name = "MS")]
    pub settle_ms: Option<u64>,
    #[command(flatten)]
    pub otlp: super::otlp::OtlpArgs,
}

/// How long `call` listens after the response where streams race.
const HTTP_SETTLE: Duration = Duration::from_millis(200);

/// `--args` merged with each `-a key=value`.
pub fn build_args(json: Option<&str>, pairs: &[String]) -> Result<Value, UsageError> {
    let mut map = match json {
        None => Map::new(),
        Some(s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(m)) => m,
            Ok(_) => return Err(UsageError("--args must be a JSON object".into())),
            Err(e) => return Err(UsageError(format!("--args is not valid JSON: {e}"))),
        },
    };
    for kv in pairs {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| UsageError(format!("-a expects KEY=VALUE, got {kv:?}")))?;
        let v = serde_json::from_str(v).unwrap_or_else(|_| Value::String(v.to_string()));
        map.insert(k.to_string(), v);
    }
    Ok(Value::Object(map))
}

/// Prints trace events as they arrive; `sync` prints everything appended so far.
#[derive(Clone)]
pub(super) struct PrinterTask {
    printer: Arc<std::sync::Mutex<Printer>>,
    trace: Trace,
    /// Protocol checks, printed as `[finding]` lines after the events.
    pub(super) checks: LiveChecks,
}

impl PrinterTask {
    pub(super) fn spawn(
        trace: Trace,
        quiet: bool,
        checks: LiveChecks,
    ) -> (PrinterTask, tokio::task::JoinHandle<()>) {
        let me = PrinterTask {
            printer: Arc::new(std::sync::Mutex::new(Printer::new(quiet))),
            trace: trace.clone(),
            checks,
        };
        let mut rx = trace.subscribe();
        // Findings can also appear without new events (a silence).
        let mut found = me.checks.subscribe();
        let task = me.clone();
        let handle = tokio::spawn(async move {
            loop {
                tokio::select! {
                    r = rx.changed() => if r.is_err() { break },
                    r = found.changed() => if r.is_err() { break },
                }
                task.sync();
            }
        });
        (me, handle)
    }

    pub(super) fn say_era(&self, on: bool) {
        self.printer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .say_era = on;
    }

    pub(super) fn verbose(&self, on: bool) {
        self.printer
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .verbose = on;
    }

    pub(super) fn sync(&self) {
        let mut p = self.printer.lock().unwrap_or_else(|e| e.into_inner());
        p.drain(&self.trace, &mut std::io::stderr());
        self.checks.sync();
        p.findings(&self.checks, &mut std::io::stderr());
    }

    /// The session is over: what was counted rather than printed line by
    /// line is said now.
    pub(super) fn finish(&self) {
        self.sync();
        let mut p = self.printer.lock().unwrap_or_else(|e| e.into_inner());
        p.summary(&mut std::io::stderr());
    }
}

pub async fn run(a: CallArgs) -> i32 {
    let args = match build_args(a.args.as_deref(), &a.arg) {
        Ok(v) => v,
        Err(e) => return fail(&Failure::Usage(e)),
    };
    let limits = match a.opts.request.limits() {
        Ok(l) => l,
        Err(e) => return fail(&Failure::Usage(e)),
    };
    let (a, args) = (&a, &args);
    headless(&a.server, &a.opts, limits, |session, printer| async move {
        call(&session, a, args, limits, &printer).await
    })
    .await
}

/// One headless session around `work`: connect, print and check what
/// arrives, stop on a signal (cancelling what is in flight), shut the server
/// down, and settle the exit code with the answers and the recording.
pub(super) async fn headless<F, Fut>(
    server: &ServerArgs,
    opts: &CallOpts,
    limits: Limits,
    work: F,
) -> i32
where
    F: FnOnce(Arc<Session>, PrinterTask) -> Fut,
    Fut: std::future::Future<Output = i32>,
{
    let otlp = match opts.otlp.config() {
        Ok(c) => c,
        Err(e) => return fail(&Failure::Usage(e)),
    };
    let mut signals = Signals::install();
    // mcpscope is the client: `--token none` and Ctrl-C are the user's choices.
    let cfg = CheckConfig {
        tokenless_by_choice: opts.request.policy() == TokenPolicy::None,
        own_client: true,
        ..CheckConfig::default()
    };
    let plan = Plan {
        checks: Some(cfg),
        export: otlp,
        ..observed(server)
    };
    let mut live = match start_live(server, opts.record.as_deref(), limits, plan, opts.quiet).await
    {
        Ok(l) => l,
        Err(e) => return fail(&e),
    };
    let (session, trace) = (live.session.clone(), live.trace.clone());
    let Some(checks) = live.checks().cloned() else {
        // The plan above asked for them: this cannot be reached.
        eprintln!("[error] the live checks did not start");
        return 3;
    };
    let (printer, printer_task) = PrinterTask::spawn(trace.clone(), opts.quiet, checks);
    printer.say_era(server.protocol == "auto");
    printer.verbose(opts.verbose);
    let settle = opts.settle_ms.map(Duration::from_millis);
    let run = async {
        let code = work(session.clone(), printer.clone()).await;
        let settle = settle.unwrap_or(if session.has_standalone_stream() {
            HTTP_SETTLE
        } else {
            Duration::ZERO
        });
        // After a call that ran (not after a failure or a timeout): what is
        // still in flight on the other streams is printed and recorded.
        if matches!(code, 0 | 1) && !settle.is_zero() {
            tokio::time::sleep(settle).await;
        }
        code
    };
    let code = tokio::select! {
        code = run => code,
        stop = signals.recv() => {
            cancel_in_flight(&session, stop);
            stop.code
        }
    };
    let refused = session.refused_answers();
    live.stop_server(matches!(code, 0 | 1)).await;
    printer_task.abort();
    printer.finish();
    if !opts.quiet {
        live.missing_spans().iter().for_each(|l| eprintln!("{l}"));
    }
    // After the grace: the server's late spans are forwarded too.
    let ended = live.end(export_stop(&mut signals)).await;
    let code = match (&ended.export, &ended.interrupted) {
        (_, Some(stop)) => {
            eprintln!("[error] {}: the export was not finished", stop.reason);
            stop.code
        }
        (Some(report), None) => {
            super::otlp::say(report, opts.quiet);
            code
        }
        (None, None) => code,
    };
    report_evictions(&trace, &printer.checks, opts.record.is_some());
    report_dropped(session.dropped_server_requests());
    if refused > 0 && code == 0 {
        // An answer the user gave could not be sent: the run did not go as asked.
        eprintln!("[error] {refused} server request(s) could not be answered as asked (see above)");
        return finished(ended.recording_error, 2);
    }
    finished(ended.recording_error, code)
}

/// A stopping signal, as [`crate::session::live::Live::end`] takes it.
pub(super) async fn export_stop(signals: &mut Signals) -> ExportStop {
    let stop = signals.recv().await;
    ExportStop {
        code: stop.code,
        reason: stop.reason.to_string(),
    }
}

/// Say why the recording is incomplete, if it is: a success becomes 2
/// (the recording asked for is not whole), any other code stays.
pub(super) fn finished(recording_error: Option<String>, code: i32) -> i32 {
    match recording_error {
        Some(e) => {
            eprintln!("[error] {}", one_line(&e));
            if code == 0 { 2 } else { code }
        }
        None => code,
    }
}

/// Eviction is said, with what it cost: frames no longer in memory, and
/// frames the protocol checks never saw.
pub(super) fn report_evictions(trace: &Trace, checks: &LiveChecks, recording: bool) {
    let evicted = trace.read().evicted();
    if evicted == 0 {
        return;
    }
    let unchecked = checks.unchecked();
    eprintln!(
        "[store] {evicted} events were evicted from memory (--max-store){}{}",
        if unchecked > 0 {
            format!(", {unchecked} of them before the protocol checks saw them")
        } else {
            String::new()
        },
        if recording {
            "; the recording keeps every event"
        } else {
            ""
        }
    );
}

/// Server requests dropped unanswered are said once, with their count:
/// each drop is in the trace, but a storm of them must not flood stderr.
pub(super) fn report_dropped(dropped: u64) {
    if dropped > 0 {
        eprintln!(
            "[protocol] {dropped} server requests were dropped unanswered: the server asked while {} already waited for an answer (server-request-dropped in the trace)",
            crate::client::SERVER_REQUEST_BACKLOG
        );
    }
}

async fn call(
    session: &Arc<Session>,
    a: &CallArgs,
    args: &Value,
    limits: Limits,
    printer: &PrinterTask,
) -> i32 {
    if let Err(e) = handshake(session).await {
        return fail(&e);
    }
    // The era's own lines first, then what the log level means in it.
    printer.sync();
    a.opts.request.apply_log_level(session, !a.opts.quiet).await;
    let policy = a.opts.request.policy();
    let as_task = match task_mode(session, &a.tool, a.task).await {
        Ok(t) => t,
        Err(code) => return code,
    };
    let outcome = if as_task {
        session
            .call_tool_as_task(&a.tool, args, &policy, limits)
            .await
    } else {
        session.call_tool(&a.tool, args, &policy, limits).await
    };
    // Every event before the response is on stderr before the result is on stdout.
    printer.sync();
    match outcome {
        Ok(out) => {
            out_of_range_lines(&out.reply, &mut std::io::stderr());
            let text = result_text(&out.reply, !a.opts.json);
            let mut stdout = super::stdout::lock();
            let _ = writeln!(stdout, "{text}");
            let _ = stdout.flush();
            if ResultType::of(&out.reply.result) == Some(ResultType::InputRequired) {
                eprintln!(
                    "[error] the server needs input mcpscope was not asked to give (see inputRequests; --elicit and --root answer them)"
                );
                return 1;
            }
            if crate::client::ext_tasks::is_waiting_for_input(&out.reply.result) {
                eprintln!(
                    "[error] the task needs input mcpscope was not asked to give (see inputRequests; --elicit, --sample and --root answer them); the task was cancelled"
                );
                return 1;
            }
            if out.is_error() { 1 } else { 0 }
        }
        Err(e) => fail(&Failure::Client(e)),
    }
}

/// Whether the call runs as a task: the tool's `execution.taskSupport`
/// decides (`required` always, `optional` with `--task`), looked up only
/// when the server declared tasks for `tools/call`. `--task` where no task
/// can run is a usage error (2), said before anything is called.
pub(super) async fn task_mode(session: &Session, tool: &str, task: bool) -> Result<bool, i32> {
    if session.is_modern() {
        // The 2026-07-28 tasks extension: the server decides per request;
        // any task handle is followed. `--task` asks that it can happen.
        if task && !session.tasks_extension() {
            eprintln!(
                "[error] --task: the server did not declare the tasks extension (capabilities.extensions[\"{}\"])",
                crate::protocol::task::EXTENSION
            );
            return Err(2);
        }
        return Ok(false);
    }
    if !session.tasks_for_tools() {
        if task {
            eprintln!(
                "[error] --task: the server did not declare tasks for tools/call (capabilities.tasks.requests.tools.call)"
            );
            return Err(2);
        }
        return Ok(false);
    }
    let tools = session
        .list_tools()
        .await
        .map_err(|e| fail(&Failure::Client(e)))?;
    let support = tools
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(tool))
        .map(TaskSupport::of_tool);
    match support {
        Some(TaskSupport::Required) => Ok(true),
        Some(TaskSupport::Forbidden) if task => {
            eprintln!(
                "[error] --task: {} does not run as a task (its execution.taskSupport is forbidden or absent)",
                one_line(tool)
            );
            Err(2)
        }
        // An unlisted tool is called as asked; the server will say.
        _ => Ok(task),
    }
}

/// The result for stdout: the server's own tokens (numbers as written, keys
/// in its order) re-indented, with characters a terminal would hide written
/// as `\u` escapes — the same JSON value, visibly.
pub fn result_text(reply: &crate::client::Reply, pretty: bool) -> String {
    crate::protocol::json_text::reformat(&reply.raw, pretty).unwrap_or_else(|_| {
        // Unreachable for a frame the classifier accepted; the value is still exact JSON.
        if pretty {
            serde_json::to_string_pretty(&reply.result)
        } else {
            serde_json::to_string(&reply.result)
        }
        .unwrap_or_default()
    })
}

/// `[protocol] #SEQ … number out of range: 1e999 at /path …`: a number no
/// f64 can hold does not fail the call; it is printed as written and named.
pub fn out_of_range_lines(reply: &crate::client::Reply, out: &mut impl Write) {
    let r = &reply.out_of_range;
    for n in &r.described {
        let _ = writeln!(
            out,
            "[protocol] #{} number out of range for a 64-bit float: {}; kept and printed as written",
            reply.seq,
            one_line(&n.to_string())
        );
    }
    if r.total > r.described.len() {
        let _ = writeln!(
            out,
            "[protocol] #{} and {} more numbers out of range",
            reply.seq,
            r.total - r.described.len()
        );
    }
}

/// Report a failure on stderr. Error texts carry server words (JSON-RPC
/// messages, HTTP bodies), so they are sanitised like any server text.
pub fn fail(e: &Failure) -> i32 {
    let text = match e {
        Failure::Client(ClientError::Gone(g)) => format!("connection lost: {g}"),
        other => other.to_string(),
    };
    eprintln!("[error] {}", one_line(&text));
    e.exit_code()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_merge() {
        let v = build_args(
            Some(r#"{"a":1}"#),
            &[
                "b=2".into(),
                "c=hello".into(),
                "d={\"x\":true}".into(),
                "a=\"s\"".into(),
            ],
        )
        .unwrap();
        assert_eq!(
            v,
            serde_json::json!({"a":"s","b":2,"c":"hello","d":{"x":true}})
        );
        assert!(build_args(Some("[1]"), &[]).is_err());
        assert!(build_args(Some("{"), &[]).is_err());
        assert!(build_args(None, &["novalue".into()]).is_err());
    }
}
