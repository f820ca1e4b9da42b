//! Everything the screen shows that is not in the store: focus, cursors,
//! filters, the composer, call tracking, server info. Rendering reads it;
//! the App's update step (the pane controllers) and its sync step change it.

use super::calls::{ByteMode, Calls};
use super::compose::Composer;
use super::jsonfmt::Lines;
use super::keymap::{Context, Keymap};
use super::network::NetworkView;
use super::replay::PlaybackView;
use super::theme::Theme;
use super::timing::CallTiming;
use super::views::{LogsView, TimelineView};
use crate::checks::{Finding, PartyCounts, Severity, SeverityCounts};
use crate::protocol::IdKey;
use serde_json::Value;
use std::collections::HashMap;

/// The panes, in focus order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Progress,
    Timeline,
    Logs,
    Raw,
    Tools,
    Composer,
    Findings,
    /// HTTP exchanges; offered once the session has any.
    Network,
}

impl Pane {
    pub const ORDER: [Pane; 8] = [
        Pane::Progress,
        Pane::Timeline,
        Pane::Logs,
        Pane::Raw,
        Pane::Tools,
        Pane::Composer,
        Pane::Findings,
        Pane::Network,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Progress => "Progress",
            Pane::Timeline => "Timeline",
            Pane::Logs => "Logs",
            Pane::Raw => "Raw",
            Pane::Tools => "Tools",
            Pane::Composer => "Composer",
            Pane::Findings => "Findings",
            Pane::Network => "Network",
        }
    }

    /// The digit that focuses it (matches the default key map).
    pub fn number(self) -> usize {
        Pane::ORDER.iter().position(|p| *p == self).unwrap_or(0) + 1
    }

    pub fn context(self) -> Context {
        match self {
            Pane::Progress => Context::Progress,
            Pane::Timeline => Context::Timeline,
            Pane::Logs => Context::Logs,
            Pane::Raw => Context::Raw,
            Pane::Tools => Context::Tools,
            Pane::Composer => Context::Composer,
            Pane::Findings => Context::Findings,
            Pane::Network => Context::Network,
        }
    }

    /// The next (or previous) pane in focus order, skipping panes not offered.
    pub fn step(self, forward: bool, offered: impl Fn(Pane) -> bool) -> Pane {
        let n = Pane::ORDER.len();
        let mut i = self.number() - 1;
        for _ in 0..n {
            i = if forward {
                (i + 1) % n
            } else {
                (i + n - 1) % n
            };
            if offered(Pane::ORDER[i]) {
                return Pane::ORDER[i];
            }
        }
        self
    }
}

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

/// A selection in a list plus the first visible row (a hint: the visible
/// window is derived from both when drawing; clicks use what was drawn).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    pub selected: usize,
    pub offset: usize,
}

impl Cursor {
    /// First visible row for a list of `len` rows shown `height` at a time.
    pub fn window(&self, len: usize, height: usize) -> usize {
        if height == 0 || len <= height {
            return 0;
        }
        let sel = self.selected.min(len - 1);
        let mut start = self.offset.min(len - height);
        if sel < start {
            start = sel;
        } else if sel >= start + height {
            start = sel + 1 - height;
        }
        start
    }

    pub fn move_by(&mut self, delta: isize, len: usize) {
        if len == 0 {
            self.selected = 0;
            return;
        }
        let s = self.selected.min(len - 1) as isize + delta;
        self.selected = s.clamp(0, len as isize - 1) as usize;
    }

    /// Keep `offset` equal to what is drawn, so later moves scroll smoothly.
    pub fn settle(&mut self, len: usize, height: usize) {
        self.offset = self.window(len, height);
    }

    /// After the list changed: follow its end if asked, keep the selection
    /// in range and the window around it.
    pub fn refit(&mut self, len: usize, height: usize, follow: bool) {
        if follow {
            self.selected = len.saturating_sub(1);
        }
        self.move_by(0, len);
        self.settle(len, height);
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

#[derive(Debug, Clone)]
pub struct ToolInfo {
    /// Exactly as the server listed it: calls and the copied command use it.
    pub name: String,
    /// The name made safe for the screen (control characters shown, cut short).
    pub label: String,
    pub title: String,
    pub description: String,
    pub schema: Value,
    /// `execution.taskSupport`: whether a call runs as a task.
    pub task: crate::client::tasks::TaskSupport,
}

#[derive(Debug, Default)]
pub struct ToolsState {
    pub all: Vec<ToolInfo>,
    pub filter: String,
    /// Indexes into `all` that match the filter.
    pub visible: Vec<usize>,
    pub cursor: Cursor,
    pub loading: bool,
    pub error: Option<String>,
}

impl ToolsState {
    pub fn refilter(&mut self) {
        let f = self.filter.to_lowercase();
        self.visible = (0..self.all.len())
            .filter(|i| {
                let t = &self.all[*i];
                f.is_empty()
                    || t.name.to_lowercase().contains(&f)
                    || t.title.to_lowercase().contains(&f)
                    || t.description.to_lowercase().contains(&f)
            })
            .collect();
        self.cursor.move_by(0, self.visible.len());
    }

    pub fn selected(&self) -> Option<&ToolInfo> {
        self.visible
            .get(self.cursor.selected)
            .and_then(|i| self.all.get(*i))
    }
}

#[derive(Debug, Default)]
pub struct TimelineState {
    pub view: TimelineView,
    pub cursor: Cursor,
    pub follow: bool,
    /// The view is being rebuilt after a filter change.
    pub rebuilding: bool,
    /// Rows at the last sync: keys and clicks move the cursor over what was
    /// synced (and drawn) without asking the store.
    pub len: usize,
    /// The call the selected row belongs to, read from its frame at the
    /// last sync, so cancelling or answering from the Timeline needs no lock.
    pub selected_call: Option<CallKey>,
    /// The seq `selected_call` was read from (it is re-read only on change).
    pub selected_seq: Option<u64>,
}

/// How a timeline row names its call: a request, response or cancellation
/// by the request id, a progress notification by its token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallKey {
    Id(IdKey),
    Token(IdKey),
}

#[derive(Debug, Default)]
pub struct LogsState {
    pub view: LogsView,
    pub cursor: Cursor,
    pub follow: bool,
    /// The seq of the expanded entry and its pretty-printed data.
    pub expanded: Option<(u64, Lines)>,
}

/// The Raw pane: one event, rendered once per selection (not per frame).
#[derive(Debug, Default)]
pub struct RawState {
    pub seq: Option<u64>,
    pub bytes_mode: bool,
    pub lines: Lines,
    pub truncated: bool,
    /// Width the exact-bytes lines were cut for.
    pub width: usize,
    pub scroll: usize,
    pub search: String,
    /// Line numbers with a match.
    pub matches: Vec<usize>,
    pub match_idx: usize,
}

/// Where a finding points in the timeline: its worst severity and the first
/// finding that names the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag {
    pub severity: Severity,
    pub finding: usize,
}

/// The Findings pane and the flags it puts on timeline rows. Findings only
/// ever arrive (the checker never retracts one), so the seq → flag map is
/// extended as they come and a timeline row looks its flag up in O(1).
#[derive(Debug, Default)]
pub struct FindingsState {
    pub list: Vec<Finding>,
    pub counts: SeverityCounts,
    /// The same, split by the party judged (server, client/host).
    pub parties: PartyCounts,
    pub flagged: HashMap<u64, Flag>,
    pub cursor: Cursor,
    /// Which of the selected finding's frames Enter shows next.
    pub frame: usize,
}

impl FindingsState {
    pub fn add(&mut self, fresh: impl IntoIterator<Item = Finding>) {
        for f in fresh {
            let idx = self.list.len();
            self.counts.add(f.severity);
            self.parties.add(&f);
            for seq in &f.seqs {
                let flag = self.flagged.entry(*seq).or_insert(Flag {
                    severity: f.severity,
                    finding: idx,
                });
                if f.severity > flag.severity {
                    *flag = Flag {
                        severity: f.severity,
                        finding: idx,
                    };
                }
            }
            self.list.push(f);
        }
    }

    pub fn flag(&self, seq: u64) -> Option<Flag> {
        self.flagged.get(&seq).copied()
    }
}

/// The Network pane: the exchanges and the cursor over them.
#[derive(Debug, Default)]
pub struct NetworkState {
    pub view: NetworkView,
    pub cursor: Cursor,
    /// Keep the newest exchange selected (scrolling up stops it).
    pub follow: bool,
}

/// Which text field a line input edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputTarget {
    ToolsFilter,
    /// The Resources or Prompts tab's filter.
    BrowseFilter,
    TimelineFilter,
    LogsFilter,
    RawSearch,
    CustomToken,
}

impl InputTarget {
    pub fn prompt(self) -> &'static str {
        match self {
            InputTarget::ToolsFilter => "filter tools",
            InputTarget::BrowseFilter => "filter",
            InputTarget::TimelineFilter => "filter timeline",
            InputTarget::LogsFilter => "filter logs",
            InputTarget::RawSearch => "search frame",
            InputTarget::CustomToken => "progress token (digits = integer)",
        }
    }
}

/// A one-line text field at the bottom of the screen.
#[derive(Debug, Clone)]
pub struct LineInput {
    pub target: InputTarget,
    pub text: String,
    /// The value before editing, restored by Esc.
    pub before: String,
}

pub struct State {
    pub theme: Theme,
    pub keymap: Keymap,
    pub focus: Pane,
    pub zoom: bool,
    /// The help overlay and its scroll position.
    pub help: Option<usize>,
    pub width: u16,
    pub height: u16,
    /// Trace clock at the last sync; everything "ago" is measured from it.
    pub now_us: u64,
    pub conn: Conn,
    pub server: ServerView,
    /// Protocol findings, pulled from the live checks as they are published.
    pub findings: FindingsState,
    /// HTTP exchanges (empty for a stdio session).
    pub network: NetworkState,
    /// Timing statistics of the call selected in Progress (details view).
    pub timing: CallTiming,
    /// The Progress pane shows the selected call in detail.
    pub progress_details: bool,
    /// Replay position, speed and pause state (`mcpscope replay FILE`).
    pub replay: Option<PlaybackView>,
    pub recording: Option<String>,
    pub events: u64,
    pub evicted: u64,
    pub tools: ToolsState,
    pub composer: Composer,
    pub calls: Calls,
    pub progress: Cursor,
    pub byte_mode: ByteMode,
    pub stale_after_us: u64,
    pub timeline: TimelineState,
    pub logs: LogsState,
    pub raw: RawState,
    /// Which list the Raw pane follows.
    pub raw_source: Pane,
    pub input: Option<LineInput>,
    pub notice: Option<String>,
    /// `--demo`, `-- cmd args`…: the server part of `mcpscope call`.
    pub server_cli: super::compose::ServerCli,
    pub live: bool,
    pub fps: u32,
    /// Server requests waiting for the user (elicitation, sampling).
    pub asks: super::asks::Asks,
    /// The Tools pane's Resources and Prompts tabs.
    pub browse: super::browse::Browse,
}

impl State {
    /// Is the pane offered (in the tab bar and in focus order)? The Network
    /// pane is, once the session made an HTTP exchange, or while focused
    /// (its key always works and says when there is nothing to show).
    /// The Composer is not, where nothing can be sent (a recorded trace, an
    /// attached session: read-only).
    pub fn offers(&self, p: Pane) -> bool {
        match p {
            Pane::Network => self.network.view.is_http() || self.focus == Pane::Network,
            Pane::Composer => self.live,
            _ => true,
        }
    }

    /// The panes of the tab bar, in order.
    pub fn tabs(&self) -> impl Iterator<Item = Pane> + '_ {
        Pane::ORDER.into_iter().filter(|p| self.offers(*p))
    }

    /// Where keys are looked up first: the focused pane's context, or the
    /// tab the Tools pane shows.
    pub fn key_context(&self) -> Context {
        use super::browse::Tab;
        match (self.focus, self.browse.tab) {
            (Pane::Tools, Tab::Resources) => Context::Resources,
            (Pane::Tools, Tab::Prompts) => Context::Prompts,
            (p, _) => p.context(),
        }
    }

    /// HTTP session: timeline rows show their channel.
    pub fn shows_channels(&self) -> bool {
        self.network.view.is_http()
    }
}
