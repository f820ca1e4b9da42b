//! The shell: what is global to the screen rather than one pane's. Focus,
//! zoom and size; the notice on the status line; theme and key map; the
//! connection and the server as the header shows them; whether the session
//! is live (anything can be sent) and the replay's position. Panes read it;
//! only the App writes it (a pane asks with a `Command`).

pub mod header;

use super::keymap::Keymap;
use super::pane::Arrangement;
use super::pane::Pane;
use super::panes::composer::ServerCli;
use super::replay::PlaybackView;
use super::theme::Theme;

/// The connection as the header shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Conn {
    Starting,
    Ready,
    Failed(String),
    Exited(String),
    /// A recorded trace: nothing to talk to.
    Offline,
}

impl Conn {
    /// The server exited or the connection failed: a restart is offered.
    pub fn ended(&self) -> bool {
        matches!(self, Conn::Failed(_) | Conn::Exited(_))
    }
}

#[derive(Debug, Clone, Default)]
pub struct ServerView {
    pub spec_name: String,
    pub name: String,
    pub version: String,
    pub transport: String,
    pub revision: String,
    pub capabilities: Vec<String>,
    pub instructions: Option<String>,
}

pub struct Shell {
    pub theme: Theme,
    pub keymap: Keymap,
    pub focus: Pane,
    pub zoom: bool,
    /// How the panes are arranged (settings.toml `layout`, `Z`).
    pub arrangement: Arrangement,
    pub width: u16,
    pub height: u16,
    /// Trace clock at the last sync; everything "ago" is measured from it.
    pub now_us: u64,
    pub notice: Option<String>,
    pub conn: Conn,
    pub server: ServerView,
    /// `--demo`, `-- cmd args`…: the server part of `mcpscope call`.
    pub server_cli: ServerCli,
    pub recording: Option<String>,
    /// Events in the store, and how many it let go (its memory bound).
    pub events: u64,
    pub evicted: u64,
    /// False for a recorded trace or an attached session: nothing is sent.
    pub live: bool,
    pub fps: u32,
    /// Replay position, speed and pause state (`mcpscope replay FILE`).
    pub replay: Option<PlaybackView>,
}
