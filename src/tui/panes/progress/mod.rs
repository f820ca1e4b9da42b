//! The Progress pane: one gauge per call, the call selected, units, and
//! the details view with the selected call's timing statistics.

pub mod update;
pub mod view;

use crate::calls::Timing;
use crate::tui::calls::{ByteMode, Calls};
use crate::tui::cursor::Cursor;

pub struct ProgressState {
    pub calls: Calls,
    pub cursor: Cursor,
    pub byte_mode: ByteMode,
    /// A running call with no event for this long shows as stale.
    pub stale_after_us: u64,
    /// The details view: the selected call's timing statistics.
    pub details: bool,
    pub timing: Timing,
}

impl ProgressState {
    pub fn new(stale_after_us: u64) -> ProgressState {
        ProgressState {
            calls: Calls::default(),
            cursor: Cursor::default(),
            byte_mode: ByteMode::Auto,
            stale_after_us,
            details: false,
            timing: Timing::default(),
        }
    }
}
