//! The Timeline pane: every event in arrival order, filtered by kind and
//! text, or narrowed to one call's lane or one HTTP channel.

pub mod update;
pub mod view;

use crate::protocol::IdKey;
use crate::tui::cursor::Cursor;
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
}

/// How a timeline row names its call: a request, response or cancellation
/// by the request id, a progress notification by its token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallKey {
    Id(IdKey),
    Token(IdKey),
}
