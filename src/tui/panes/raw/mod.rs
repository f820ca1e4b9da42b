//! The Raw pane: the event selected in the list it follows, pretty JSON or
//! exact bytes, searched.

pub mod update;
pub mod view;

use crate::tui::jsonfmt::Lines;
use crate::tui::pane::Pane;

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
