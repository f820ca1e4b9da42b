//! The Logs pane: `notifications/message` and server stderr, by level,
//! text and source, an entry unfolded.

pub mod update;
pub mod view;

use crate::tui::cursor::Cursor;
use crate::tui::jsonfmt::Lines;
use crate::tui::views::LogsView;

#[derive(Debug, Default)]
pub struct LogsState {
    pub view: LogsView,
    pub cursor: Cursor,
    pub follow: bool,
    /// The seq of the expanded entry and its pretty-printed data.
    pub expanded: Option<(u64, Lines)>,
}
