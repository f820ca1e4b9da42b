//! Findings input: the cursor, and Enter walking the selected finding's
//! frames (each press shows the next one in the Timeline and Raw panes).

use super::FindingsState;
use crate::tui::command::{Command, Commands};
use crate::tui::panes::{Cx, PaneInput};

impl PaneInput for FindingsState {
    fn scroll(&mut self, delta: isize, _cx: &Cx) -> Commands {
        let before = self.cursor.selected;
        self.cursor.move_by(delta, self.list.len());
        // Another finding: Enter starts again at its first frame.
        if self.cursor.selected != before {
            self.frame = 0;
        }
        Vec::new()
    }

    fn click(&mut self, item: Option<usize>, _cx: &Cx) -> Commands {
        if let Some(i) = item.filter(|i| *i < self.list.len()) {
            if self.cursor.selected != i {
                self.frame = 0;
            }
            self.cursor.selected = i;
        }
        Vec::new()
    }
}

impl FindingsState {
    /// Enter: the selected finding's next frame. Which frame is decided
    /// now; finding it in the timeline reads the store, so the sync step
    /// does it.
    pub fn show_frame(&mut self) -> Commands {
        let Some(fd) = self.list.get(self.cursor.selected) else {
            return vec![Command::Notice("no finding selected".into())];
        };
        let n = fd.seqs.len();
        if n == 0 {
            return vec![Command::Notice(format!("{} names no frame", fd.rule))];
        }
        let k = self.frame % n;
        let (seq, rule) = (fd.seqs[k], fd.rule);
        self.frame = k + 1;
        vec![Command::ShowFrame { seq, rule, k, n }]
    }

    /// Sync step: keep the cursor in range and its window (`h` rows) current.
    pub fn settle(&mut self, h: usize) {
        self.cursor.refit(self.list.len(), h, false);
    }
}

/// Where a finding's frame was shown, for the status line; `cleared` as
/// `TimelineState::show_seq` returns it.
pub fn shown(
    seq: u64,
    rule: crate::checks::Rule,
    k: usize,
    n: usize,
    cleared: Option<bool>,
) -> String {
    match cleared {
        None => format!("frame #{seq} is no longer in memory (evicted from the store)"),
        Some(cleared) => format!(
            "{rule}: frame #{seq} ({} of {n}) in Timeline and Raw{}",
            k + 1,
            if cleared {
                " · timeline filter cleared to show it"
            } else {
                ""
            }
        ),
    }
}
