//! The Timeline pane: every event in arrival order, filtered by kind and
//! text, or narrowed to one call's lane or one HTTP channel.

pub mod update;
pub mod view;

use crate::protocol::IdKey;
use crate::trace::Store;
use crate::tui::action::Action;
use crate::tui::command::Commands;
use crate::tui::cursor::Cursor;
use crate::tui::label::Labels;
use crate::tui::panes::{Actions, Cx, Fit, Keys, PaneSpec, Start, Upkeep};
use crate::tui::views::TimelineView;

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
    /// Times by the wall clock instead of since the session started.
    pub wall_clock: bool,
    /// Which call each event belongs to, by name (`#12 slow_task`): the
    /// call column here, and the Logs, Raw and Scope read it too.
    pub labels: Labels,
    /// The filter expression as typed (it may not parse yet)…
    pub expr_text: String,
    /// …and why it does not: the view keeps the last one that did.
    pub expr_error: Option<String>,
}

/// How a timeline row names its call: a request, response or cancellation
/// by the request id, a progress notification by its token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallKey {
    Id(IdKey),
    Token(IdKey),
}

impl PaneSpec for TimelineState {
    const TITLE: &'static str = "Timeline";
    const NAME: &'static str = "timeline";
    const FOCUS: Option<Action> = Some(Action::FocusTimeline);
    const KEYS: Keys = {
        use Action::*;
        &[
            (&["/"], Filter),
            (&["F"], FilterExpr),
            (&["backspace"], ClearFilter),
            (&["f"], Follow),
            (&["K"], CycleKind),
            (&["J"], CycleKindBack),
            (&["enter"], ShowLane),
            (&["a"], ClearLane),
            (&["c"], CancelCall),
            (&["t"], ToggleClock),
        ]
    };
    const HINTS: Actions = {
        use Action::*;
        &[Follow, Filter, CycleKind, ShowLane, ClearLane]
    };
    const ACTIONS: Actions = &[
        Action::CycleKind,
        Action::CycleKindBack,
        Action::ClearLane,
        Action::FilterExpr,
    ];

    fn start(_: &Start) -> Self {
        TimelineState {
            follow: true,
            ..TimelineState::default()
        }
    }

    fn act(&mut self, a: Action, _cx: &Cx) -> Commands {
        self.apply(a)
    }

    fn pull(&mut self, store: &Store, budget: u64) -> Upkeep {
        let done = self.view.sync(store, budget);
        self.rebuilding = !done;
        let named = self.labels.sync(store, budget);
        Upkeep {
            done: done && named,
            changed: false,
        }
    }

    fn refit(&mut self, store: &Store, fit: Fit) -> Upkeep {
        self.settle(store, fit.rows);
        Upkeep::DONE
    }
}
