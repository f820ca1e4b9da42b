//! The Network pane: the session's HTTP exchanges (Streamable HTTP,
//! legacy SSE, authorization), the newest followed.

pub mod update;
pub mod view;

use crate::tui::cursor::Cursor;
use crate::tui::network::NetworkView;

/// The Network pane: the exchanges and the cursor over them.
#[derive(Debug, Default)]
pub struct NetworkState {
    pub view: NetworkView,
    pub cursor: Cursor,
    /// Keep the newest exchange selected (scrolling up stops it).
    pub follow: bool,
}
