//! The Progress pane: one gauge per call, the call selected, units, and
//! the details view with the selected call's timing statistics. The calls
//! are the core's fold (`crate::calls::fold`), which the pane feeds from
//! the store in its `pull`; what is the pane's own is the selection, the
//! order on screen, the units and the details.
//!
//! The pane follows the action: a call that appears after the pane first
//! read the session is selected and scrolled into view; running calls are
//! listed before finished ones (each group in the order sent); a finished
//! call that sent no progress takes one row instead of a gauge's three.

pub mod order;
pub mod steps;
pub mod update;
pub mod view;

use crate::calls::Timing;
use crate::trace::Store;
use crate::tui::action::Action;
use crate::tui::calls::{ByteMode, Call, Calls};
use crate::tui::cursor::Cursor;
use crate::tui::panes::{Actions, Fit, Keys, PaneSpec, Start, Upkeep};

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
    /// The details view: the server's spans of the selected call's trace.
    pub spans: crate::calls::spans::CallSpans,
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
            spans: Default::default(),
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

/// Its actions read the Timeline's selection and reach the Composer: the
/// App routes them (`App::apply`).
impl PaneSpec for ProgressState {
    const TITLE: &'static str = "Progress";
    const NAME: &'static str = "progress";
    const FOCUS: Option<Action> = Some(Action::FocusProgress);
    const KEYS: Keys = {
        use Action::*;
        &[
            (&["c", "delete"], CancelCall),
            (&["enter"], ShowLane),
            (&["b"], CycleByteMode),
            (&["x"], ClearFinished),
            (&["d"], Details),
            (&["a"], AnswerInput),
            // The empty pane's hint says "send (s)": it works from here too.
            (&["s"], Send),
        ]
    };
    const HINTS: Actions = {
        use Action::*;
        &[
            CancelCall,
            ShowLane,
            Details,
            AnswerInput,
            CycleByteMode,
            ClearFinished,
        ]
    };

    fn start(s: &Start) -> Self {
        ProgressState::new(s.stale_after_us)
    }

    /// The calls: the core's fold, fed from the store here (not by the App).
    fn pull(&mut self, store: &Store, budget: u64) -> Upkeep {
        let before = self.calls.list.len();
        let done = self.calls.sync(store, budget);
        Upkeep {
            done,
            changed: self.calls.list.len() != before,
        }
    }

    fn refit(&mut self, store: &Store, fit: Fit) -> Upkeep {
        let (done, changed) = self.settle(store, fit.inner_rows);
        Upkeep { done, changed }
    }
}
