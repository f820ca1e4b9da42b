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
