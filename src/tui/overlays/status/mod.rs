//! The status line: the focused pane's keys, the notice, and the one-line
//! text field filters and searches are typed in.

pub mod update;
pub mod view;

/// Which text field a line input edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputTarget {
    ToolsFilter,
    /// The Resources or Prompts tab's filter.
    BrowseFilter,
    TimelineFilter,
    /// The Timeline's filter in the filter language.
    TimelineExpr,
    LogsFilter,
    RawSearch,
    CustomToken,
    /// The help overlay's search.
    HelpSearch,
}

impl InputTarget {
    pub fn prompt(self) -> &'static str {
        match self {
            InputTarget::ToolsFilter => "filter tools",
            InputTarget::BrowseFilter => "filter",
            InputTarget::TimelineFilter => "filter timeline",
            InputTarget::TimelineExpr => "filter expression",
            InputTarget::LogsFilter => "filter logs",
            InputTarget::RawSearch => "search frame",
            InputTarget::CustomToken => "progress token (digits = integer)",
            InputTarget::HelpSearch => "search help",
        }
    }
}

/// A one-line text field at the bottom of the screen.
#[derive(Debug, Clone)]
pub struct LineInput {
    pub target: InputTarget,
    pub text: String,
    /// The value before editing, restored by Esc.
    pub before: String,
}
