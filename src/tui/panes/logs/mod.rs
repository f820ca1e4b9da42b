//! The Logs pane: `notifications/message`, OTel log records and server
//! stderr, by level, text and source, an entry unfolded.

pub mod update;
pub mod view;

use crate::trace::Store;
use crate::tui::action::Action;
use crate::tui::command::Commands;
use crate::tui::cursor::Cursor;
use crate::tui::jsonfmt::Lines;
use crate::tui::panes::{Actions, Cx, Fit, Keys, PaneSpec, Start, Upkeep};
use crate::tui::views::LogsView;

#[derive(Debug, Default)]
pub struct LogsState {
    pub view: LogsView,
    pub cursor: Cursor,
    pub follow: bool,
    /// The seq of the expanded entry and its pretty-printed data.
    pub expanded: Option<(u64, Lines)>,
}

impl PaneSpec for LogsState {
    const TITLE: &'static str = "Logs";
    const NAME: &'static str = "logs";
    const FOCUS: Option<Action> = Some(Action::FocusLogs);
    const KEYS: Keys = {
        use Action::*;
        &[
            (&["/"], Filter),
            (&["backspace"], ClearFilter),
            (&["f"], Follow),
            (&["+", "="], LevelUp),
            (&["-"], LevelDown),
            (&["s"], ToggleStderr),
            (&["enter"], Expand),
        ]
    };
    const HINTS: Actions = {
        use Action::*;
        &[LevelUp, LevelDown, ToggleStderr, Expand, Filter, Follow]
    };
    const ACTIONS: Actions = {
        use Action::*;
        &[LevelUp, LevelDown, ToggleStderr, Expand]
    };

    fn start(_: &Start) -> Self {
        LogsState {
            follow: true,
            ..LogsState::default()
        }
    }

    fn act(&mut self, a: Action, _cx: &Cx) -> Commands {
        self.apply(a)
    }

    fn pull(&mut self, store: &Store, budget: u64) -> Upkeep {
        Upkeep {
            done: self.view.sync(store, budget as usize),
            changed: false,
        }
    }

    fn refit(&mut self, _store: &Store, fit: Fit) -> Upkeep {
        self.settle(fit.rows);
        Upkeep::DONE
    }
}
