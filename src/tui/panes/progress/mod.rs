//! The Progress pane: one gauge per call, the call selected, units, and
//! the details view with the selected call's timing statistics.
//!
//! The pane follows the action: a call that appears after the pane first
//! read the session is selected and scrolled into view; running calls are
//! listed before finished ones (each group in the order sent); a finished
//! call that sent no progress takes one row instead of a gauge's three.

pub mod order;
pub mod update;
pub mod view;

use crate::calls::Timing;
use crate::tui::calls::{ByteMode, Call, Calls};
use crate::tui::cursor::Cursor;

pub struct ProgressState {
    pub calls: Calls,
    /// Moves over the displayed order (`order`), not over `calls.list`.
    pub cursor: Cursor,
    pub byte_mode: ByteMode,
    /// A running call with no event for this long shows as stale.
    pub stale_after_us: u64,
    /// The details view: the selected call's timing statistics.
    pub details: bool,
    pub timing: Timing,
    /// What is drawn where, as of the last sync step.
    pub order: order::Order,
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
            order: order::Order::default(),
        }
    }

    /// The call under the cursor.
    pub fn selected_call(&self) -> Option<&Call> {
        self.call_at(self.cursor.selected)
    }

    /// The call drawn at display position `pos`.
    pub fn call_at(&self, pos: usize) -> Option<&Call> {
        self.calls.list.get(*self.order.list.get(pos)?)
    }
}
