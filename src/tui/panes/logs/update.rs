//! Logs input: cursor and follow mode, the minimum level, stderr shown or
//! hidden, the text filter, and unfolding the selected entry's data.

use super::LogsState;
use crate::protocol::views::LogLevel;
use crate::trace::{Dir, Store};
use crate::tui::action::Action;
use crate::tui::command::{Command, Commands};
use crate::tui::jsonfmt;
use crate::tui::overlays::status::InputTarget;
use crate::tui::pane::Pane;
use crate::tui::panes::{Cx, PaneInput};
use serde_json::Value;

impl PaneInput for LogsState {
    fn scroll(&mut self, delta: isize, _cx: &Cx) -> Commands {
        let len = self.view.len();
        self.cursor.move_by(delta, len);
        self.follow = self.cursor.selected + 1 >= len;
        vec![Command::RawFollows(Pane::Logs)]
    }

    fn click(&mut self, item: Option<usize>, _cx: &Cx) -> Commands {
        let len = self.view.len();
        if let Some(i) = item.filter(|i| *i < len) {
            self.cursor.selected = i;
            self.follow = i + 1 == len;
        }
        Vec::new()
    }

    fn filter(&self) -> Option<InputTarget> {
        Some(InputTarget::LogsFilter)
    }

    fn filter_text(&self) -> String {
        self.view.text.clone()
    }

    /// The text filter (typed or cleared); the rows are rebuilt by later syncs.
    fn set_filter(&mut self, text: &str) {
        let v = &mut self.view;
        let (min, stderr) = (v.min, v.stderr);
        v.set_filter(min, text, stderr);
    }

    fn follow(&mut self) -> bool {
        self.follow = true;
        true
    }
}

impl LogsState {
    /// The Logs pane's own keys.
    pub fn apply(&mut self, a: Action) -> Commands {
        let v = &mut self.view;
        match a {
            Action::LevelUp | Action::LevelDown => {
                let i = v.min.index();
                let j = if a == Action::LevelUp {
                    (i + 1).min(7)
                } else {
                    i.saturating_sub(1)
                };
                let (text, stderr) = (v.text.clone(), v.stderr);
                v.set_filter(LogLevel::ALL[j], &text, stderr);
                vec![Command::Rescan]
            }
            Action::ToggleStderr => {
                let (min, text, stderr) = (v.min, v.text.clone(), !v.stderr);
                v.set_filter(min, &text, stderr);
                vec![Command::Rescan]
            }
            Action::Expand => {
                let Some(seq) = self.view.seq_at(self.cursor.selected) else {
                    return Vec::new();
                };
                if self.expanded.as_ref().is_some_and(|(s, _)| *s == seq) {
                    self.expanded = None;
                    Vec::new()
                } else {
                    // Unfolding reads the entry from the store: the sync step does it.
                    vec![Command::Expand(seq)]
                }
            }
            _ => Vec::new(),
        }
    }

    /// Sync step for `Command::Expand`: pretty-print the entry's data (or
    /// its stderr bytes).
    pub fn expand(&mut self, store: &Store, seq: u64) {
        let Some(ev) = store.get(seq) else { return };
        let text = if ev.dir == Dir::Stderr {
            None
        } else if ev.dir == Dir::Meta {
            // An OTel log record: the whole event (body, severity, ids, attributes).
            Some(ev.text().into_owned())
        } else {
            let f = ev.frame();
            f.params
                .and_then(|p| serde_json::from_str::<serde_json::Map<String, Value>>(p.get()).ok())
                .and_then(|m| {
                    m.get("data")
                        .map(|d| serde_json::to_string(d).unwrap_or_default())
                })
        };
        let lines = match text {
            Some(t) => jsonfmt::pretty(&t, 200).0,
            None => jsonfmt::exact_bytes(ev.bytes, 100, 200).0,
        };
        self.expanded = Some((seq, lines));
    }

    /// Sync step: follow mode and the window (`h` rows).
    pub fn settle(&mut self, h: usize) {
        self.cursor.refit(self.view.len(), h, self.follow);
    }
}
