//! What the App is started with besides the trace.

use crate::protocol::views::LogLevel;
use crate::tui::keymap::Keymap;
use crate::tui::pane::Arrangement;
use crate::tui::pane::Pane;
use crate::tui::panes::composer::ServerCli;
use crate::tui::panes::scope::WallStart;
use crate::tui::replay::Playback;
use crate::tui::theme::Theme;
use serde_json::Value;

/// What the App needs to know besides the trace.
pub struct AppOptions {
    pub theme: Theme,
    pub keymap: Keymap,
    pub fps: u32,
    pub stale_after_us: u64,
    pub idle_timeout_secs: Option<u64>,
    pub max_timeout_secs: Option<u64>,
    /// Server part of the equivalent `mcpscope call` command.
    pub server_cli: ServerCli,
    pub spec_name: String,
    pub transport: String,
    pub recording: Option<String>,
    /// `--run` calls, fired once the tools are known.
    pub runs: Vec<(String, Value)>,
    /// The log level they ask for, instead of the session's.
    pub run_level: Option<LogLevel>,
    /// The pane focused at start (`--focus`), where it is offered.
    pub focus: Option<Pane>,
    /// How the panes are arranged at start (settings.toml `layout`).
    pub arrangement: Arrangement,
    /// False for a recorded trace: nothing can be sent.
    pub live: bool,
    /// The playback feeding the trace, for `mcpscope replay FILE`.
    pub playback: Option<Playback>,
    /// When the session started by the wall clock (the Scope's readout).
    pub wall_start: Option<WallStart>,
    /// The server as a recording's header names it (secrets redacted):
    /// what a test file saved from the session runs.
    pub server_json: Option<Value>,
}

impl Default for AppOptions {
    fn default() -> Self {
        AppOptions {
            theme: Theme::dark(),
            keymap: Keymap::default(),
            fps: 30,
            stale_after_us: 5_000_000,
            idle_timeout_secs: Some(60),
            max_timeout_secs: Some(600),
            server_cli: "--demo".into(),
            spec_name: "server".into(),
            transport: "stdio".into(),
            recording: None,
            runs: Vec::new(),
            run_level: None,
            focus: None,
            arrangement: Arrangement::Auto,
            live: true,
            playback: None,
            wall_start: None,
            server_json: None,
        }
    }
}
