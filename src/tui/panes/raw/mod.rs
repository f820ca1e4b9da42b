//! The Raw pane: the event selected in the list it follows, pretty JSON or
//! exact bytes, searched.

pub mod update;
pub mod view;

use crate::tui::action::Action;
use crate::tui::command::Commands;
use crate::tui::jsonfmt::Lines;
use crate::tui::pane::Pane;
use crate::tui::panes::{Actions, Cx, Keys, PaneSpec, Start};

/// The Raw pane: one event, rendered once per selection (not per frame).
#[derive(Debug)]
pub struct RawState {
    /// Which list the pane follows (the one used last).
    pub source: Pane,
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

impl Default for RawState {
    fn default() -> RawState {
        RawState {
            source: Pane::Timeline,
            seq: None,
            bytes_mode: false,
            lines: Lines::default(),
            truncated: false,
            width: 0,
            scroll: 0,
            search: String::new(),
            matches: Vec::new(),
            match_idx: 0,
        }
    }
}

/// Its refit follows the other panes' selections: the sync step runs it
/// after theirs (`raw::update::target`).
impl PaneSpec for RawState {
    const TITLE: &'static str = "Raw";
    const NAME: &'static str = "raw";
    const FOCUS: Option<Action> = Some(Action::FocusRaw);
    const KEYS: Keys = {
        use Action::*;
        &[
            (&["b"], ToggleBytes),
            (&["/"], Search),
            (&["n"], NextMatch),
            (&["N"], PrevMatch),
            (&["y"], Copy),
        ]
    };
    const HINTS: Actions = {
        use Action::*;
        &[ToggleBytes, Search, NextMatch, Copy]
    };
    const ACTIONS: Actions = {
        use Action::*;
        &[ToggleBytes, NextMatch, PrevMatch, Copy]
    };

    fn start(_: &Start) -> Self {
        RawState::default()
    }

    fn act(&mut self, a: Action, cx: &Cx) -> Commands {
        self.apply(a, cx.rows)
    }
}
