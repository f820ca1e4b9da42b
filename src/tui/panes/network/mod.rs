//! The Network pane: the session's HTTP exchanges (Streamable HTTP,
//! legacy SSE, authorization), the newest followed.

pub mod update;
pub mod view;

use crate::calls::exchanges::Exchanges;
use crate::trace::Store;
use crate::tui::action::Action;
use crate::tui::command::Commands;
use crate::tui::cursor::Cursor;
use crate::tui::panes::{Actions, Cx, Fit, Keys, PaneSpec, Start, Upkeep};

/// The Network pane: the exchanges and the cursor over them.
#[derive(Debug, Default)]
pub struct NetworkState {
    pub view: Exchanges,
    pub cursor: Cursor,
    /// Keep the newest exchange selected (scrolling up stops it).
    pub follow: bool,
}

impl PaneSpec for NetworkState {
    const TITLE: &'static str = "Network";
    const NAME: &'static str = "network";
    const FOCUS: Option<Action> = Some(Action::FocusNetwork);
    const KEYS: Keys = &[(&["enter"], Action::ShowChannel), (&["f"], Action::Follow)];
    const HINTS: Actions = {
        use Action::*;
        &[ShowChannel, Follow, Up, Down]
    };
    const ACTIONS: Actions = &[Action::ShowChannel];

    fn start(_: &Start) -> Self {
        NetworkState {
            follow: true,
            ..NetworkState::default()
        }
    }

    fn act(&mut self, _a: Action, _cx: &Cx) -> Commands {
        self.show_channel()
    }

    fn pull(&mut self, store: &Store, budget: u64) -> Upkeep {
        let exchanges = self.view.len();
        let done = self.view.sync(store, budget);
        Upkeep {
            done,
            changed: self.view.len() != exchanges,
        }
    }

    fn refit(&mut self, _store: &Store, fit: Fit) -> Upkeep {
        self.settle(fit.rows);
        Upkeep::DONE
    }
}
