//! What is drawn over the panes and takes every key while open: help, the
//! server's requests and the forms answering them (`asks`), the argument
//! form of a template or prompt (`argform`), and the status line's text
//! field (`status`).

pub mod argform;
pub mod asks;
pub mod help;
pub mod intercept;
pub mod status;

use crate::tui::input_rounds::Rounds;
use argform::ArgForm;
use asks::Asks;
use status::LineInput;

#[derive(Default)]
pub struct Overlays {
    /// The argument form (a prompt's arguments, a template's variables),
    /// while open; the Tools pane opens it with a command.
    pub argform: Option<ArgForm>,
    /// The help overlay and its scroll position.
    pub help: Option<usize>,
    /// What the help is searched for (empty: every row shows).
    pub help_query: String,
    /// Server requests waiting for the user (elicitation, sampling).
    pub asks: Asks,
    /// `input_required` results being answered through the asks queue.
    pub rounds: Rounds,
    /// The status line's text field, while open.
    pub input: Option<LineInput>,
    /// `attach --intercept`: the breakpoint and the held messages (None
    /// in every other mode).
    pub intercept: Option<intercept::Intercept>,
}

/// Where a full-height overlay goes on a screen of `area`: at most
/// `max_width` wide, centred, a row left free above and below it (the
/// status line below stays in sight).
pub fn frame(area: ratatui::layout::Rect, max_width: u16) -> ratatui::layout::Rect {
    let w = area.width.saturating_sub(4).min(max_width);
    ratatui::layout::Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + 1,
        width: w,
        height: area.height.saturating_sub(2),
    }
}
