//! Findings input: the cursor, and Enter — on a group of several findings
//! it lists them under it (or folds them away); on one finding it walks
//! the finding's frames (each press shows the next one in the Timeline and
//! Raw panes).

use super::{FindingsState, Row};
use crate::tui::command::{Command, Commands};
use crate::tui::panes::{Cx, PaneInput};

impl PaneInput for FindingsState {
    fn scroll(&mut self, delta: isize, _cx: &Cx) -> Commands {
        let before = self.cursor.selected;
        self.cursor.move_by(delta, self.rows().len());
        // Another finding: Enter starts again at its first frame.
        if self.cursor.selected != before {
            self.frame = 0;
        }
        Vec::new()
    }

    fn click(&mut self, item: Option<usize>, _cx: &Cx) -> Commands {
        if let Some(i) = item.filter(|i| *i < self.rows().len()) {
            if self.cursor.selected != i {
                self.frame = 0;
            }
            self.cursor.selected = i;
        }
        Vec::new()
    }
}

impl FindingsState {
    /// Enter: a group of several findings is expanded (or folded); a single
    /// finding's next frame is shown. Which frame is decided now; finding
    /// it in the timeline reads the store, so the sync step does it.
    pub fn show_frame(&mut self) -> Commands {
        let Some(row) = self.selected() else {
            return vec![Command::Notice("no finding selected".into())];
        };
        let Some(i) = self.finding_of(row) else {
            if let Row::Group(g) = row
                && !self.expanded.remove(&g)
            {
                self.expanded.insert(g);
            }
            return Vec::new();
        };
        let fd = &self.list[i];
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
        self.cursor.refit(self.rows().len(), h, false);
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
