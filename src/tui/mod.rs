//! The interactive UI (`mcpscope [SERVER]`, `mcpscope demo`, `mcpscope
//! replay FILE`). The only module that touches the terminal.
//!
//! Layout of the module: `app` (the router: update and sync step),
//! `shell` (focus, zoom, size, notice, theme, key map, header), `panes/*`
//! (one folder per pane: its state, update and view), `overlays/*` (help,
//! the server's requests, forms, the status line), `command` (cross-pane
//! intent), `pane` (pane ids and the pane table the registries are
//! generated from), `screen` (what a frame is drawn from, and the drawing
//! registry), `action` (actions, effects, messages), `keymap`,
//! `settings`, `theme`, `views` (incremental filtered lists), `calls`
//! (gauges), `tasks` (calls running as tasks), `replay` (playback of a
//! recorded trace), `schema`, `summary`, `label` (calls by name),
//! `jsonfmt`, `format`, `chrome`
//! (frames and fitting), `layout`, `ui` (prepare and paint a frame),
//! `terminal` (guard), `runtime` (event loop and effects).

pub mod action;
pub mod app;
pub mod attach;
pub mod browse;
pub mod calls;
pub mod chrome;
pub mod clipboard;
pub mod command;
pub mod cursor;
pub mod exit;
pub mod format;
pub mod input_rounds;
pub mod jsonfmt;
pub mod keymap;
pub mod label;
pub mod layout;
pub mod overlays;
pub mod pane;
pub mod panes;
pub mod recorded;
pub mod replay;
pub mod runtime;
pub mod schema;
pub mod screen;
pub mod settings;
pub mod shell;
pub mod summary;
pub mod tasks;
pub mod terminal;
pub mod theme;
pub mod ui;
pub mod views;

pub use app::{App, AppOptions};
pub use attach::attach;

use crate::session::Launch;
use crate::session::live::{Live, Notice, Observed, Plan, StartError};
use format::shell_quote;
use panes::composer::ServerCli;
use settings::{Settings, SettingsError, clamp_fps};
use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};
use theme::{Theme, ThemeError};

/// What the live TUI starts with, in core terms (the command line or any
/// other front turns its arguments into this).
pub struct Config {
    /// The session to open; its `max_store`, when unset, comes from the
    /// settings file, and its handshake limits from the settings' timeouts.
    pub launch: Launch,
    /// The equivalent headless command's server part, for the copied command.
    pub server_cli: ServerCli,
    /// Calls fired at start-up: 'TOOL JSON'.
    pub runs: Vec<String>,
    /// More of them, one a line, after `runs` (`--run-file`).
    pub run_file: Option<std::path::PathBuf>,
    /// The log level the start-up calls ask for (`--run-level`).
    pub run_level: Option<String>,
    /// The pane focused at start-up (`--focus`), by name or number.
    pub focus: Option<String>,
    /// A theme name or path instead of the settings file's.
    pub theme: Option<String>,
    /// A frame-rate cap instead of the settings file's.
    pub fps: Option<u32>,
    /// Where the session's OTLP receiver listens (`--no-otel-receiver`
    /// turns it off, `--otel-receiver` fixes its address): a spawned stdio
    /// server's exporter is pointed at it.
    pub otel_receiver: crate::otel::ReceiverAt,
    /// Send the session to an OpenTelemetry backend (`--otlp`).
    pub otlp: Option<crate::otel::export::Config>,
}

/// The interactive UI needs a terminal on both ends; `Err(2)` after saying
/// what to use instead.
pub fn require_terminal() -> Result<(), i32> {
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        return Ok(());
    }
    eprintln!(
        "[error] the interactive UI needs a terminal: stdin and stdout must both be a TTY.\n\
         [error] for scripts and pipes use the headless commands, e.g.\n\
         [error]   mcpscope call --demo --tool upload_file      (one call: events on stderr, result on stdout)\n\
         [error]   mcpscope tools --demo                       (list tools)"
    );
    Err(2)
}

/// Run the TUI on a live server; returns the process exit code.
pub async fn run(config: Config) -> i32 {
    let started = Instant::now();
    if let Err(code) = require_terminal() {
        return code;
    }
    let setup = match Setup::prepare(config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("[error] {e}");
            return 2;
        }
    };
    setup.run(started).await
}

/// `mcpscope replay FILE`: the TUI over a recorded trace, played back in
/// real time (pause, step, speed, jump to the end), checked as it plays.
/// Returns the process exit code.
pub async fn replay(path: &Path) -> i32 {
    let started = Instant::now();
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        eprintln!(
            "[error] the interactive replay needs a terminal: stdin and stdout must both be a TTY.\n\
             [error] to print the trace's timeline as text instead, use\n\
             [error]   mcpscope replay {} --print",
            shell_quote(&path.display().to_string())
        );
        return 2;
    }
    let (settings, theme) = match settings_and_theme(None) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("[error] {e}");
            return 2;
        }
    };
    let bound = crate::trace::StoreLimits::default().max_bytes;
    let (header, events, damage) = match read_events(path, bound) {
        Ok(t) => t,
        Err(e) => {
            eprintln!(
                "[error] {}",
                crate::protocol::sanitize::one_line(&e.to_string())
            );
            return 2;
        }
    };
    let server = header.get("server");
    let text = |k: &str| {
        server
            .and_then(|s| s.get(k))
            .and_then(serde_json::Value::as_str)
            .map(|s| format::safe(s, 60))
    };
    let spec_name = text("name").unwrap_or_else(|| "recorded server".into());
    let transport = text("transport").unwrap_or_else(|| "trace".into());
    let fps = clamp_fps(settings.fps);
    let file = path.display().to_string();
    {
        let mut signals = exit::ExitSignals::catch();
        let clock = crate::trace::ManualClock::new();
        let trace = crate::trace::Trace::new(crate::trace::Store::default(), clock.clone());
        let mut playback = replay::Playback::new(events, trace.clone(), clock);
        if damage.is_some() {
            playback = playback.cut_short();
        }
        let opts = AppOptions {
            theme,
            keymap: settings.keymap.clone(),
            fps,
            stale_after_us: settings.stale_after_us,
            idle_timeout_secs: settings.idle_timeout_secs,
            max_timeout_secs: settings.max_timeout_secs,
            arrangement: settings.layout,
            server_cli: format!("# replay of {file}").into(),
            spec_name,
            transport: format!("{transport} · replay"),
            recording: None,
            runs: Vec::new(),
            run_level: None,
            focus: None,
            live: false,
            playback: Some(playback),
            wall_start: header
                .get("started")
                .and_then(serde_json::Value::as_str)
                .and_then(panes::scope::WallStart::parse_rfc3339),
            server_json: header.get("server").cloned(),
        };
        let mut app = App::new(trace.clone(), opts);
        app.on_msg(action::Msg::Notice(match &damage {
            Some(d) => format!("replaying {file}: {d}; every event before that plays"),
            None => {
                format!("replaying {file}: composer and cancel are off (no server); Space pauses")
            }
        }));
        let observed = Observed::checking(
            trace.clone(),
            settings.checks.clone().for_recording(&header),
        );
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let mut exec = runtime::Executor::new(None, tx);
        if let Some(c) = observed.checks() {
            exec = exec.with_checks(c.clone());
        }
        let ui = run_ui(&mut app, &exec, rx, &mut signals, fps, started);
        let result = exit::stop_after(ui, async {}).await;
        // Nothing is recorded or exported: this stops the checks.
        let _ = observed.end(std::future::pending()).await;
        let code = exit::code_of(result);
        if let Some(d) = &damage {
            exit::report(&format!(
                "[warning] {}: {d}",
                crate::protocol::sanitize::one_line(&file)
            ));
        }
        code
    }
}

/// Enter the terminal, run the event loop, restore the terminal.
async fn run_ui(
    app: &mut App,
    exec: &runtime::Executor,
    rx: tokio::sync::mpsc::UnboundedReceiver<action::Msg>,
    signals: &mut exit::ExitSignals,
    fps: u32,
    started: Instant,
) -> std::io::Result<exit::Ended> {
    let mut guard = terminal::TerminalGuard::enter()?;
    exec.start();
    let r = runtime::event_loop(app, &mut guard.terminal, exec, rx, signals, fps, started).await;
    drop(guard);
    r
}

/// A trace's header, its events, and why they stop short of its end (a cut
/// last line, or the size bound), if they do.
type ReadTrace = (
    serde_json::Value,
    Vec<crate::trace::record::RecordedEvent>,
    Option<String>,
);

/// Read a trace for playback, line by line. The events are held for the
/// whole replay, so they are bounded like a live session's store: a trace
/// (or a pipe) beyond `max_bytes` of frames plays its first part.
fn read_events(
    path: &Path,
    max_bytes: usize,
) -> Result<ReadTrace, crate::trace::record::TraceReadError> {
    let mut reader = crate::trace::reader::TraceReader::open(path)?;
    let mut events = Vec::new();
    let mut bytes = 0usize;
    while let Some(e) = reader.next_event()? {
        bytes += e.bytes.len() + e.channel.len();
        events.push(e);
        if bytes > max_bytes {
            let why = format!(
                "the replay holds the first {} events ({} MiB); the trace goes on",
                events.len(),
                bytes >> 20
            );
            return Ok((reader.header().clone(), events, Some(why)));
        }
    }
    let damage = reader.damage().map(ToString::to_string);
    Ok((reader.header().clone(), events, damage))
}

/// Everything decided before the terminal is touched, so usage errors are
/// printed on a normal screen with exit code 2.
struct Setup {
    settings: Settings,
    theme: Theme,
    fps: u32,
    launch: Launch,
    runs: Vec<(String, serde_json::Value)>,
    run_level: Option<crate::protocol::views::LogLevel>,
    focus: Option<pane::Pane>,
    server_cli: ServerCli,
    otel_receiver: crate::otel::ReceiverAt,
    otlp: Option<crate::otel::export::Config>,
}

/// Why the TUI does not start: the settings file, the theme, or what the
/// command line asks of it. Said as `[error] …`, exit 2.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SetupError {
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(transparent)]
    Theme(#[from] ThemeError),
    /// A `--run` that is not `TOOL JSON`: [`app::parse_run`]'s sentence.
    #[error("{0}")]
    Run(String),
    #[error(transparent)]
    RunFile(#[from] app::RunFileError),
    /// The level as given, clipped.
    #[error(
        "--run-level {0}: not a log level (debug, info, notice, warning, error, critical, alert, emergency)"
    )]
    RunLevel(String),
    /// `name` as given, clipped; `panes` the pane names listed.
    #[error("--focus {name}: no such pane ({panes}, or its number)")]
    Focus { name: String, panes: String },
}

/// The user's settings, and the theme they (or `theme`, from the command
/// line) name, without colours under `NO_COLOR`.
pub(crate) fn settings_and_theme(theme: Option<String>) -> Result<(Settings, Theme), SetupError> {
    let dir = settings::config_dir();
    let settings = Settings::load(dir.as_deref())?;
    let name = theme.unwrap_or_else(|| settings.theme.clone());
    let mut theme = Theme::resolve(&name, dir.as_deref())?;
    if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        theme = theme.without_colors();
    }
    Ok((settings, theme))
}

impl Setup {
    fn prepare(config: Config) -> Result<Setup, SetupError> {
        let (settings, theme) = settings_and_theme(config.theme)?;
        let fps = clamp_fps(config.fps.unwrap_or(settings.fps));
        let mut runs = config
            .runs
            .iter()
            .map(|r| app::parse_run(r))
            .collect::<Result<Vec<_>, _>>()
            .map_err(SetupError::Run)?;
        if let Some(file) = &config.run_file {
            runs.extend(app::read_run_file(file)?);
        }
        let run_level = config
            .run_level
            .as_deref()
            .map(|l| {
                l.parse::<crate::protocol::views::LogLevel>()
                    .map_err(|_| SetupError::RunLevel(format::safe(l, 40)))
            })
            .transpose()?;
        let focus = config
            .focus
            .as_deref()
            .map(|f| {
                pane::Pane::named(f).ok_or_else(|| {
                    let names: Vec<&str> = pane::Pane::ORDER.iter().map(|p| p.name()).collect();
                    SetupError::Focus {
                        name: format::safe(f, 40),
                        panes: names.join(", "),
                    }
                })
            })
            .transpose()?;
        let mut launch = config.launch;
        // Elicitation and sampling the command line does not answer go to the user.
        launch.options.ask_user = true;
        // The settings file's bound applies unless the command line sets one.
        launch.max_store = launch.max_store.or(settings.max_store);
        // The handshake obeys the same limits as the user's calls.
        launch.options.handshake = crate::client::Limits {
            idle: settings.idle_timeout_secs.map(Duration::from_secs),
            max: settings.max_timeout_secs.map(Duration::from_secs),
        };
        Ok(Setup {
            otel_receiver: config.otel_receiver,
            otlp: config.otlp,
            server_cli: config.server_cli,
            settings,
            theme,
            fps,
            launch,
            runs,
            run_level,
            focus,
        })
    }

    async fn run(mut self, started: Instant) -> i32 {
        // Caught before the server starts: from here on, SIGTERM and SIGHUP
        // end the UI and stop the server instead of killing mcpscope alone.
        let mut signals = exit::ExitSignals::catch();
        // mcpscope is the client here: a tokenless call or a cancel the
        // user asked for in the composer or with the cancel key is no finding.
        let own = crate::checks::CheckConfig {
            own_client: true,
            ..self.settings.checks.clone()
        };
        let plan = Plan {
            receiver: self.otel_receiver,
            // An address that cannot be bound is a notice here, not an exit.
            receiver_strict: false,
            checks: Some(own),
            export: self.otlp.clone(),
        };
        // The receiver is held until the server has stopped (its last
        // export comes as it exits): `Live::end` stops it.
        let (live, notices) = match Live::start(self.launch.clone(), plan).await {
            Ok(x) => x,
            Err(e @ StartError::Usage(_)) => {
                eprintln!("[error] {e}");
                return 2;
            }
            Err(e @ StartError::Client(_)) => {
                eprintln!("[error] {e}");
                return 3;
            }
        };
        // A restart starts the server as this one was (its exporter
        // pointed at the same receiver).
        self.launch.spec = live.spec.clone();
        let (session, trace) = (live.session.clone(), live.trace.clone());
        let Some(checks) = live.checks().cloned() else {
            // The plan above asked for them: this cannot be reached.
            eprintln!("[error] the live checks did not start");
            return 3;
        };
        let app_opts = AppOptions {
            theme: self.theme,
            keymap: self.settings.keymap.clone(),
            fps: self.fps,
            stale_after_us: self.settings.stale_after_us,
            idle_timeout_secs: self.settings.idle_timeout_secs,
            max_timeout_secs: self.settings.max_timeout_secs,
            arrangement: self.settings.layout,
            server_cli: self.server_cli,
            spec_name: self.launch.spec.name().to_string(),
            transport: session.transport_name().into(),
            recording: self.launch.record.as_ref().map(|p| p.display().to_string()),
            runs: self.runs,
            run_level: self.run_level,
            focus: self.focus,
            live: true,
            playback: None,
            wall_start: panes::scope::WallStart::now_minus(trace.now_us()),
            // Redacted as a recording's header is: a secret becomes ${NAME}.
            server_json: Some(self.launch.spec.to_json(true)),
        };
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        for n in notices {
            let text = match n {
                Notice::NoReceiver(e) => format!(
                    "no OTLP receiver: {}",
                    crate::protocol::sanitize::one_line(&e)
                ),
                Notice::ReceiverAt(at) => format!(
                    "OTLP receiver at {at} (point the server's OTEL_EXPORTER_OTLP_ENDPOINT here)"
                ),
            };
            let _ = tx.send(action::Msg::Notice(text));
        }
        if let Some(cfg) = &self.otlp {
            let _ = tx.send(action::Msg::Notice(format!(
                "exporting the session to {} (OTLP)",
                cfg.shown()
            )));
        }
        let exec = runtime::Executor::new(Some(session), tx)
            .with_checks(checks)
            .with_restart(self.launch.clone());
        let fps = self.fps;
        let ui = async {
            let mut app = App::new(trace.clone(), app_opts);
            run_ui(&mut app, &exec, rx, &mut signals, fps, started).await
        };
        // The terminal is back to normal before the server is waited for;
        // the server stopped is the current one (a restart replaces it),
        // so the session's own `stop_server` is not the way here.
        let result = exit::stop_after(ui, exec.close()).await;
        let ended = live.end(std::future::pending()).await;
        if let Some(report) = &ended.export {
            report.lines().iter().for_each(|l| exit::report(l));
        }
        let code = exit::code_of(result);
        if let Some(e) = ended.recording_error {
            exit::report(&format!(
                "[error] {}",
                crate::protocol::sanitize::one_line(&e)
            ));
            // The recording asked for is incomplete: not a clean exit.
            if code == 0 {
                return 2;
            }
        }
        code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_reads_a_trace_up_to_its_bound() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("t.jsonl");
        let mut text = String::from("{\"mcpscope_trace\":1}\n");
        for i in 0..100 {
            text.push_str(&format!(
                "{{\"seq\":{i},\"t\":0,\"dir\":\"in\",\"ch\":\"stdio\",\"text\":\"{}\"}}\n",
                "x".repeat(95)
            ));
        }
        std::fs::write(&path, &text).unwrap();
        let (_, events, why) = read_events(&path, 1_000).unwrap();
        // 100 bytes each: reading stops with the first event past the bound.
        assert_eq!(events.len(), 11);
        assert!(why.unwrap().contains("first 11 events"));
        let (_, events, why) = read_events(&path, usize::MAX).unwrap();
        assert_eq!((events.len(), why), (100, None));
    }
}
