//! The panes, one folder each: `mod.rs` holds the pane's state, `update.rs`
//! its input (keys, clicks, the sync step's upkeep), `view.rs` its drawing
//! (only the rows shown, no I/O). A pane changes only its own state; what
//! it wants elsewhere it returns as `Command`s, which the App routes.

pub mod composer;
pub mod findings;
pub mod logs;
pub mod network;
pub mod progress;
pub mod raw;
pub mod scope;
pub mod timeline;
pub mod tools;

use super::command::Commands;
use super::overlays::status::InputTarget;
use super::pane::Pane;
use ratatui::layout::Rect;

pub struct Panes {
    pub progress: progress::ProgressState,
    pub timeline: timeline::TimelineState,
    pub logs: logs::LogsState,
    pub raw: raw::RawState,
    pub tools: tools::ToolsState,
    pub composer: composer::Composer,
    pub findings: findings::FindingsState,
    pub network: network::NetworkState,
    pub scope: scope::ScopeState,
}

/// What a pane's input handling may read besides its own state.
#[derive(Debug, Clone, Copy)]
pub struct Cx {
    /// Rows the pane's list shows (a page key moves this many).
    pub rows: usize,
    /// Where the pane is laid out (None when it is not shown).
    pub area: Option<Rect>,
    pub live: bool,
    pub now_us: u64,
}

/// A pane's input, as the App sends it to whichever pane is focused or
/// under the pointer. Pane-specific actions (a lane, a level, a search…)
/// are plain methods of each pane's state.
pub trait PaneInput {
    /// Move the selection (or the view) by `delta` rows.
    fn scroll(&mut self, delta: isize, cx: &Cx) -> Commands;

    /// A click on the pane; `item` is the list item drawn on that row.
    fn click(&mut self, _item: Option<usize>, _cx: &Cx) -> Commands {
        Vec::new()
    }

    /// The text field the Filter key opens here.
    fn filter(&self) -> Option<InputTarget> {
        None
    }

    /// The filter's text now (the field starts from it).
    fn filter_text(&self) -> String {
        String::new()
    }

    fn set_filter(&mut self, _text: &str) {}

    /// The Follow key; false where the pane has no follow mode (the key is
    /// global, and then resumes the timeline's, which follows by default).
    fn follow(&mut self) -> bool {
        false
    }
}

impl Panes {
    /// The registry: pane `p`'s input.
    pub fn input(&mut self, p: Pane) -> &mut dyn PaneInput {
        match p {
            Pane::Progress => &mut self.progress,
            Pane::Timeline => &mut self.timeline,
            Pane::Logs => &mut self.logs,
            Pane::Raw => &mut self.raw,
            Pane::Tools => &mut self.tools,
            Pane::Composer => &mut self.composer,
            Pane::Findings => &mut self.findings,
            Pane::Network => &mut self.network,
            Pane::Scope => &mut self.scope,
        }
    }
}
