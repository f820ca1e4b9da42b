//! Cross-pane intent. A pane's update changes its own state and returns
//! commands for what it wants elsewhere (focus a pane, show a lane in the
//! Timeline, load the Composer, post a notice, run an effect); the App
//! routes each to its owner. Commands that read the store (a frame's bytes,
//! a jump to a seq) are run by the App's sync step, under the one read lock
//! it takes after an update (notify, then pull).

use super::action::Effect;
use super::calls::InputNeeded;
use super::overlays::argform::ArgForm;
use super::overlays::status::InputTarget;
use super::pane::Pane;
use super::views::{ChannelLane, Lane};
use crate::checks::Rule;
use crate::protocol::IdKey;
use crossterm::event::MouseEvent;
use serde_json::Value;

#[derive(Debug)]
pub enum Command {
    /// Work for the runtime (the server, the clipboard).
    Effect(Effect),
    /// A line for the status bar.
    Notice(String),
    Focus(Pane),
    /// The list the Raw pane follows (the one used last).
    RawFollows(Pane),
    /// A view must rescan (a filter, lane or focus changed): sync next.
    Rescan,
    /// Timeline: only this call's events.
    ShowLane(Lane),
    /// Timeline: only this HTTP channel's events.
    ShowChannel(ChannelLane),
    /// Composer: this tool, its arguments from its schema.
    LoadTool {
        name: String,
        schema: Value,
    },
    /// Open the argument form overlay on this form.
    OpenForm(Box<ArgForm>),
    /// Open the status line's text field.
    Input(InputTarget),
    /// The text field's new text for its target.
    SetText(InputTarget, String),
    /// The text field was cancelled (Esc): its target gets back the text it
    /// had, and whatever typing in it changed besides.
    CancelText(InputTarget, String),

    // Run by the sync step, under the read lock:
    /// Timeline: select frame `seq` (the `k`th of the finding's `n`),
    /// dropping a filter that hides it.
    ShowFrame {
        seq: u64,
        rule: Rule,
        k: usize,
        n: usize,
    },
    /// Timeline and Raw: select event `seq` (the Scope's cursor), dropping
    /// a filter that hides it, and focus the Timeline.
    ShowSeq(u64),
    /// Logs: unfold the entry's data.
    Expand(u64),
    /// Raw: put the frame shown on the clipboard.
    CopyFrame,
    /// The session as a test file, one case per call (`test --from`).
    SaveTest,
    /// The session as one self-contained HTML page (`export --format html`).
    SaveHtml,
    /// Composer: a retry answering the call's `input_required` result.
    Answer {
        id: IdKey,
        seq: u64,
        input: Box<InputNeeded>,
    },
    /// A call ended without a response: see what the store says first.
    FailCall {
        id: IdKey,
        why: String,
    },
    /// A click before any frame was drawn at this size: the map it is
    /// tested against is prepared from the store first.
    Click(MouseEvent),
}

impl Command {
    /// Does it read the store (so it waits for the sync step)?
    pub fn reads_store(&self) -> bool {
        matches!(
            self,
            Command::ShowFrame { .. }
                | Command::ShowSeq(_)
                | Command::Expand(_)
                | Command::CopyFrame
                | Command::SaveTest
                | Command::SaveHtml
                | Command::Answer { .. }
                | Command::FailCall { .. }
                | Command::Click(_)
        )
    }
}

/// The commands of one update, in order.
pub type Commands = Vec<Command>;
