//! The Findings pane: the checks' findings as they arrive, grouped by cause
//! (one row per rule, call, party and host session, with its count; Enter
//! lists a group's findings), their counts, and the flags they put on
//! timeline rows.

pub mod update;
pub mod view;

use crate::checks::{Finding, Grouper, PartyCounts, Rule, Severity, SeverityCounts};
use crate::protocol::IdKey;
use crate::trace::Store;
use crate::tui::action::Action;
use crate::tui::command::Commands;
use crate::tui::cursor::Cursor;
use crate::tui::panes::{Actions, Cx, Fit, Keys, PaneSpec, Start, Upkeep};
use std::collections::{HashMap, HashSet};

/// Where a finding points in the timeline: its worst severity and the first
/// finding that names the frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag {
    pub severity: Severity,
    pub finding: usize,
}

/// What a call's Progress row says of its findings: the worst one's
/// severity and rule (the first at that severity), and how many there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallMark {
    pub severity: Severity,
    pub rule: Rule,
    pub count: usize,
}

impl CallMark {
    fn of(f: &Finding) -> CallMark {
        CallMark {
            severity: f.severity,
            rule: f.rule,
            count: 1,
        }
    }

    fn add(&mut self, f: &Finding) {
        self.count += 1;
        if f.severity > self.severity {
            self.severity = f.severity;
            self.rule = f.rule;
        }
    }

    fn merge(a: Option<CallMark>, b: Option<CallMark>) -> Option<CallMark> {
        match (a, b) {
            (Some(a), Some(b)) => {
                let worst = if b.severity > a.severity { b } else { a };
                Some(CallMark {
                    count: a.count + b.count,
                    ..worst
                })
            }
            (a, b) => a.or(b),
        }
    }
}

/// A row of the list: a group, or one finding of an expanded group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Row {
    /// The group's index (in order of opening).
    Group(usize),
    /// The group, and the finding's index in `list`.
    Finding(usize, usize),
}

/// The Findings pane and the flags it puts on timeline rows. Findings only
/// ever arrive (the checker never retracts one), so the seq → flag map is
/// extended as they come and a timeline row looks its flag up in O(1); a
/// finding joins its group in O(1) too.
#[derive(Debug, Default)]
pub struct FindingsState {
    pub list: Vec<Finding>,
    pub counts: SeverityCounts,
    /// The same, split by the party judged (server, client/host).
    pub parties: PartyCounts,
    pub flagged: HashMap<u64, Flag>,
    /// The list's cursor, over `rows()`.
    pub cursor: Cursor,
    /// Which of the selected finding's frames Enter shows next.
    pub frame: usize,
    /// The findings by cause, in order of opening.
    pub groups: Grouper,
    /// The groups as listed: worst first, then by first frame.
    pub order: Vec<usize>,
    /// Groups whose findings are listed under them.
    pub expanded: HashSet<usize>,
    /// The marks of the calls findings name, by request id, and by
    /// progress token for those that name only a token: kept as findings
    /// arrive, so a Progress row looks its mark up in O(1).
    by_request: HashMap<IdKey, CallMark>,
    by_token: HashMap<IdKey, CallMark>,
}

impl FindingsState {
    pub fn add(&mut self, fresh: impl IntoIterator<Item = Finding>) {
        let mut opened = false;
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
            let call = match (&f.request_id, &f.token) {
                (Some(id), _) => Some((&mut self.by_request, id)),
                (None, Some(tok)) => Some((&mut self.by_token, tok)),
                (None, None) => None,
            };
            if let Some((marks, key)) = call {
                marks
                    .entry(key.clone())
                    .and_modify(|m| m.add(&f))
                    .or_insert_with(|| CallMark::of(&f));
            }
            let (g, new) = self.groups.add(&f);
            if new {
                self.order.push(g);
                opened = true;
            }
            self.list.push(f);
        }
        if opened {
            let gs = self.groups.groups();
            crate::sort::by(&mut self.order, |a, b| {
                crate::checks::Group::order(&gs[*a], &gs[*b])
            });
        }
    }

    pub fn flag(&self, seq: u64) -> Option<Flag> {
        self.flagged.get(&seq).copied()
    }

    /// The mark of the call with this request id and progress token.
    pub fn call_mark(&self, id: &IdKey, token: Option<&IdKey>) -> Option<CallMark> {
        CallMark::merge(
            self.by_request.get(id).copied(),
            token.and_then(|t| self.by_token.get(t)).copied(),
        )
    }

    /// The rows listed: each group, and under an expanded one its findings.
    pub fn rows(&self) -> Vec<Row> {
        let gs = self.groups.groups();
        let mut out = Vec::with_capacity(self.order.len());
        for &g in &self.order {
            out.push(Row::Group(g));
            if self.expanded.contains(&g) {
                out.extend(gs[g].findings.iter().map(|i| Row::Finding(g, *i)));
            }
        }
        out
    }

    /// The row under the cursor.
    pub fn selected(&self) -> Option<Row> {
        self.rows().get(self.cursor.selected).copied()
    }

    /// The finding a row stands for: an instance, or a group's only one.
    pub fn finding_of(&self, row: Row) -> Option<usize> {
        match row {
            Row::Finding(_, i) => Some(i),
            Row::Group(g) => match self.groups.groups()[g].findings.as_slice() {
                [only] => Some(*only),
                _ => None,
            },
        }
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
