//! The Findings pane: the checks' findings as they arrive, their counts,
//! and the flags they put on timeline rows.

pub mod update;
pub mod view;

use crate::checks::{Finding, PartyCounts, Severity, SeverityCounts};
use crate::trace::Store;
use crate::tui::action::Action;
use crate::tui::command::Commands;
use crate::tui::cursor::Cursor;
use crate::tui::panes::{Actions, Cx, Fit, Keys, PaneSpec, Start, Upkeep};
use std::collections::HashMap;

/// Where a finding points in the timeline: its worst severity and the first
/// finding that names the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag {
    pub severity: Severity,
    pub finding: usize,
}

/// The Findings pane and the flags it puts on timeline rows. Findings only
/// ever arrive (the checker never retracts one), so the seq → flag map is
/// extended as they come and a timeline row looks its flag up in O(1).
#[derive(Debug, Default)]
pub struct FindingsState {
    pub list: Vec<Finding>,
    pub counts: SeverityCounts,
    /// The same, split by the party judged (server, client/host).
    pub parties: PartyCounts,
    pub flagged: HashMap<u64, Flag>,
    pub cursor: Cursor,
    /// Which of the selected finding's frames Enter shows next.
    pub frame: usize,
}

impl FindingsState {
    pub fn add(&mut self, fresh: impl IntoIterator<Item = Finding>) {
        for f in fresh {
            let idx = self.list.len();
            self.counts.add(f.severity);
            self.parties.add(&f);
            for seq in &f.seqs {
                let flag = self.flagged.entry(*seq).or_insert(Flag {
                    severity: f.severity,
                    finding: idx,
                });
                if f.severity > flag.severity {
                    *flag = Flag {
                        severity: f.severity,
                        finding: idx,
                    };
                }
            }
            self.list.push(f);
        }
    }

    pub fn flag(&self, seq: u64) -> Option<Flag> {
        self.flagged.get(&seq).copied()
    }
}

impl PaneSpec for FindingsState {
    const TITLE: &'static str = "Findings";
    const NAME: &'static str = "findings";
    const FOCUS: Option<Action> = Some(Action::FocusFindings);
    const KEYS: Keys = &[(&["enter"], Action::ShowFrame)];
    const HINTS: Actions = &[Action::ShowFrame, Action::Up, Action::Down];
    const ACTIONS: Actions = &[Action::ShowFrame];

    fn start(_: &Start) -> Self {
        FindingsState::default()
    }

    fn act(&mut self, _a: Action, _cx: &Cx) -> Commands {
        self.show_frame()
    }

    fn refit(&mut self, _store: &Store, fit: Fit) -> Upkeep {
        self.settle(fit.rows);
        Upkeep::DONE
    }
}
