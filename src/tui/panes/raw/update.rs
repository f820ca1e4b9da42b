//! Raw input and upkeep: scrolling, search and its matches, pretty JSON or
//! exact bytes, copying; and, in the sync step, which event the pane shows
//! (it follows the list last used) and its lines, made once per selection.

use super::RawState;
use crate::trace::{Origin, Store};
use crate::tui::action::{Action, Effect};
use crate::tui::command::{Command, Commands};
use crate::tui::jsonfmt;
use crate::tui::pane::Pane;
use crate::tui::panes::{Cx, PaneInput, Panes};

/// Longest pretty-printed frame kept for the Raw pane.
const RAW_MAX_LINES: usize = 20_000;

impl PaneInput for RawState {
    fn scroll(&mut self, delta: isize, _cx: &Cx) -> Commands {
        let max = self.lines.len().saturating_sub(1) as isize;
        self.scroll = (self.scroll as isize)
            .saturating_add(delta)
            .clamp(0, max.max(0)) as usize;
        Vec::new()
    }
}

impl RawState {
    /// The Raw pane's own keys; `h` is the rows it shows.
    pub fn apply(&mut self, a: Action, h: usize) -> Commands {
        match a {
            Action::ToggleBytes => {
                self.bytes_mode = !self.bytes_mode;
                // Made again (the other way) by the sync step.
                self.lines.clear();
                vec![Command::Rescan]
            }
            Action::NextMatch => {
                self.jump_to_match(1, h);
                Vec::new()
            }
            Action::PrevMatch => {
                self.jump_to_match(-1, h);
                Vec::new()
            }
            Action::Copy => vec![Command::CopyFrame],
            _ => Vec::new(),
        }
    }

    /// The search text changed: find its lines again, show the first.
    pub fn set_search(&mut self, text: String, h: usize) {
        self.search = text;
        self.research();
        self.jump_to_match(0, h);
    }

    fn research(&mut self) {
        let q = self.search.to_lowercase();
        self.matches = if q.is_empty() {
            Vec::new()
        } else {
            self.lines
                .iter()
                .enumerate()
                .filter(|(_, l)| jsonfmt::line_text(l).to_lowercase().contains(&q))
                .map(|(i, _)| i)
                .collect()
        };
        self.match_idx = 0;
    }

    fn jump_to_match(&mut self, delta: isize, h: usize) {
        if self.matches.is_empty() {
            return;
        }
        let n = self.matches.len() as isize;
        self.match_idx = ((self.match_idx as isize + delta).rem_euclid(n)) as usize;
        // Scroll only when the match is off screen, and then keep some context above it.
        let line = self.matches[self.match_idx];
        let h = h.max(1);
        if line < self.scroll || line >= self.scroll + h {
            self.scroll = line.saturating_sub(h / 3);
        }
    }

    /// Sync step: make the lines again when the event `seq` (or, for exact
    /// bytes, the `width`) changed. Returns true when it did.
    pub fn refresh(&mut self, store: &Store, seq: Option<u64>, width: usize) -> bool {
        // Both views are laid out for the width: exact bytes cut, pretty wrapped.
        if self.seq == seq && self.width == width && !self.lines.is_empty() {
            return false;
        }
        if self.seq != seq {
            self.scroll = 0;
        }
        self.seq = seq;
        self.width = width;
        let Some(ev) = seq.and_then(|s| store.get(s)) else {
            self.lines.clear();
            self.truncated = false;
            self.matches.clear();
            return false;
        };
        let as_json = !self.bytes_mode && ev.kind.is_json();
        let (lines, cut) = if as_json {
            let (lines, cut) = jsonfmt::pretty(&String::from_utf8_lossy(ev.bytes), RAW_MAX_LINES);
            let (lines, wrapped_cut) = jsonfmt::wrap(lines, width, RAW_MAX_LINES);
            (lines, cut || wrapped_cut)
        } else {
            jsonfmt::exact_bytes(ev.bytes, width, RAW_MAX_LINES)
        };
        self.lines = lines;
        self.truncated = cut;
        self.research();
        true
    }

    /// Sync step for `Command::CopyFrame`: the frame as shown (pretty) or
    /// its exact text.
    pub fn copy(&self, store: &Store) -> Commands {
        let Some(ev) = self.seq.and_then(|s| store.get(s)) else {
            return Vec::new();
        };
        let text = if self.bytes_mode || !ev.kind.is_json() {
            ev.text().into_owned()
        } else {
            // As pretty-printed, without the rows the pane's width wrapped.
            jsonfmt::pretty(&String::from_utf8_lossy(ev.bytes), RAW_MAX_LINES)
                .0
                .iter()
                .map(|l| jsonfmt::line_text(l))
                .collect::<Vec<_>>()
                .join("\n")
        };
        vec![Command::Effect(Effect::Copy {
            text,
            what: format!("frame #{}", self.seq.unwrap_or(0)),
        })]
    }
}

/// The event the Raw pane shows, from the list it follows.
pub fn target(panes: &Panes, store: &Store) -> Option<u64> {
    match panes.raw.source {
        Pane::Logs => panes.logs.view.seq_at(panes.logs.cursor.selected),
        Pane::Network => panes
            .network
            .view
            .rows
            .get(panes.network.cursor.selected)
            .map(|x| x.seq),
        Pane::Progress => {
            let pr = &panes.progress;
            let c = pr.selected_call()?;
            let req = store.request(Origin::Client, &c.id);
            if let Some(r) = req.and_then(|r| r.response_seq) {
                return Some(r);
            }
            let last_progress = c
                .token
                .as_ref()
                .and_then(|t| store.token(t))
                .and_then(|t| t.seqs.last())
                .filter(|s| *s > c.request_seq);
            Some(last_progress.unwrap_or(c.request_seq))
        }
        _ => panes
            .timeline
            .view
            .seq_at(panes.timeline.cursor.selected, store),
    }
}
