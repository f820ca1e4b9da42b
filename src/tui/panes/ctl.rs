//! What the pane controllers (`panes/*_ctl.rs`) share: the `Controller`
//! trait the App dispatches keys and clicks through, and `Out`, what an
//! update hands back besides its state change.
//!
//! The update step never takes the store's lock: controllers read only the
//! synced view state. What needs the store itself (a frame's bytes, a jump
//! to a seq) is returned as a `Pull` and done by the App's sync step, under
//! the one read lock it takes after the update (notify, then pull).

use crate::checks::Rule;
use crate::protocol::IdKey;
use crate::tui::action::Effect;
use crate::tui::calls::Call;
use crate::tui::calls::InputNeeded;
use crate::tui::state::{CallKey, InputTarget, Pane, State};
use crossterm::event::MouseEvent;

/// Effects and follow-up work of one update.
#[derive(Debug, Default)]
pub struct Out {
    pub effects: Vec<Effect>,
    /// A view must rescan (a filter, lane or focus changed): sync next.
    pub behind: bool,
    /// Store reads for the sync step, in order.
    pub pulls: Vec<Pull>,
}

impl Out {
    pub fn pull(p: Pull) -> Out {
        Out {
            pulls: vec![p],
            ..Out::default()
        }
    }
}

/// Work that reads the store, left by an update for the sync step.
#[derive(Debug)]
pub enum Pull {
    /// Findings: select frame `seq` (the `k`th of the finding's `n`) in the
    /// Timeline, dropping a filter that hides it.
    ShowFrame {
        seq: u64,
        rule: Rule,
        k: usize,
        n: usize,
    },
    /// Logs: unfold the entry's data.
    Expand(u64),
    /// Raw: put the frame shown on the clipboard.
    Copy,
    /// Progress: load a retry answering the call's `input_required` result.
    Answer {
        id: IdKey,
        seq: u64,
        input: Box<InputNeeded>,
    },
    /// A call ended without a response: see what the store says first.
    FailCall { id: IdKey, why: String },
    /// A click before any frame was drawn at this size: the map it is
    /// tested against is prepared from the store first.
    Click(MouseEvent),
}

/// When the App's sync step runs after an update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    /// Only the pulls (if any).
    Pulls,
    /// Re-fit cursors and caches to the state (no new events taken in).
    Settle,
    /// Sync when a view is behind, else settle (after an action).
    SyncIfBehind,
    /// Take in new events (a filter typed: its rows show at once).
    Sync,
}

/// A pane's input handling. Pane-specific actions (a lane, a level, a
/// search…) are plain functions of each controller; these are the ones the
/// App sends to whichever pane is focused or under the pointer.
pub trait Controller: Sync {
    /// Move the selection (or the view) by `delta` rows.
    fn scroll(&self, st: &mut State, delta: isize);

    /// A click on the pane; `item` is the list item drawn on that row.
    fn click(&self, _st: &mut State, _item: Option<usize>) {}

    /// The text field the Filter key opens here.
    fn filter(&self) -> Option<InputTarget> {
        None
    }

    fn clear_filter(&self, _st: &mut State) {}

    /// The Follow key. Panes without a follow mode resume the timeline's:
    /// the key is global and the timeline is what follows by default.
    fn follow(&self, st: &mut State) {
        st.timeline.follow = true;
    }
}

/// The controller of a pane.
pub fn controller(p: Pane) -> &'static dyn Controller {
    use crate::tui::panes::*;
    match p {
        Pane::Progress => &progress_ctl::Ctl,
        Pane::Timeline => &timeline_ctl::Ctl,
        Pane::Logs => &logs_ctl::Ctl,
        Pane::Raw => &raw_ctl::Ctl,
        Pane::Tools => &tools_ctl::Ctl,
        Pane::Composer => &composer_ctl::Ctl,
        Pane::Findings => &findings_ctl::Ctl,
        Pane::Network => &network_ctl::Ctl,
    }
}

/// Move focus. Leaving the composer stops editing; the lists the Raw pane
/// can follow become its source.
pub fn focus(st: &mut State, p: Pane, out: &mut Out) {
    if st.focus == Pane::Composer && p != Pane::Composer {
        st.composer.set_editing(false);
    }
    st.focus = p;
    if matches!(
        p,
        Pane::Timeline | Pane::Logs | Pane::Progress | Pane::Network
    ) {
        st.raw_source = p;
    }
    out.behind = true;
}

/// The call under the cursor (Progress) or whose event is selected
/// (Timeline, as read at the last sync).
pub fn selected_call(st: &State) -> Option<&Call> {
    match st.focus {
        Pane::Timeline => match st.timeline.selected_call.as_ref()? {
            CallKey::Token(key) => st.calls.list.iter().find(|c| c.token.as_ref() == Some(key)),
            CallKey::Id(id) => st.calls.get(id),
        },
        _ => st.calls.list.get(st.progress.selected),
    }
}
