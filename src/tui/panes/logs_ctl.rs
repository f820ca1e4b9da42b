//! Logs input: cursor and follow mode, the minimum level, stderr shown or
//! hidden, the text filter, and unfolding the selected entry's data.

use crate::protocol::views::LogLevel;
use crate::trace::{Dir, Store};
use crate::tui::action::Action;
use crate::tui::jsonfmt;
use crate::tui::layout;
use crate::tui::panes::ctl::{Controller, Out, Pull};
use crate::tui::state::{InputTarget, Pane, State};
use serde_json::Value;

pub struct Ctl;

impl Controller for Ctl {
    fn scroll(&self, st: &mut State, delta: isize) {
        let lg = &mut st.logs;
        let len = lg.view.len();
        lg.cursor.move_by(delta, len);
        lg.follow = lg.cursor.selected + 1 >= len;
        st.raw_source = Pane::Logs;
    }

    fn click(&self, st: &mut State, item: Option<usize>) {
        let lg = &mut st.logs;
        let len = lg.view.len();
        if let Some(i) = item.filter(|i| *i < len) {
            lg.cursor.selected = i;
            lg.follow = i + 1 == len;
        }
    }

    fn filter(&self) -> Option<InputTarget> {
        Some(InputTarget::LogsFilter)
    }

    fn clear_filter(&self, st: &mut State) {
        set_text(st, "");
    }

    fn follow(&self, st: &mut State) {
        st.logs.follow = true;
    }
}

/// The text filter (typed or cleared); the rows are rebuilt by later syncs.
pub fn set_text(st: &mut State, text: &str) {
    let v = &mut st.logs.view;
    let (min, stderr) = (v.min, v.stderr);
    v.set_filter(min, text, stderr);
}

/// The Logs pane's own keys.
pub fn apply(st: &mut State, a: Action, out: &mut Out) {
    let v = &mut st.logs.view;
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
            out.behind = true;
        }
        Action::ToggleStderr => {
            let (min, text, stderr) = (v.min, v.text.clone(), !v.stderr);
            v.set_filter(min, &text, stderr);
            out.behind = true;
        }
        Action::Expand => {
            let lg = &mut st.logs;
            let Some(seq) = lg.view.seq_at(lg.cursor.selected) else {
                return;
            };
            if lg.expanded.as_ref().is_some_and(|(s, _)| *s == seq) {
                lg.expanded = None;
            } else {
                // Unfolding reads the entry from the store: the sync step does it.
                out.pulls.push(Pull::Expand(seq));
            }
        }
        _ => {}
    }
}

/// Sync step for `Pull::Expand`: pretty-print the entry's data (or its
/// stderr bytes).
pub fn expand(st: &mut State, store: &Store, seq: u64) {
    let Some(ev) = store.get(seq) else { return };
    let text = if ev.dir == Dir::Stderr {
        None
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
    st.logs.expanded = Some((seq, lines));
}

/// Sync step: follow mode and the window.
pub fn settle(st: &mut State) {
    let h = layout::list_height(st, Pane::Logs);
    let lg = &mut st.logs;
    lg.cursor.refit(lg.view.len(), h, lg.follow);
}
