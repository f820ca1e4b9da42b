//! Raw input and upkeep: scrolling, search and its matches, pretty JSON or
//! exact bytes, copying; and, in the sync step, which event the pane shows
//! (it follows the list last used) and its lines, made once per selection.

use crate::trace::{Origin, Store};
use crate::tui::action::{Action, Effect};
use crate::tui::jsonfmt;
use crate::tui::layout;
use crate::tui::panes::ctl::{Controller, Out, Pull};
use crate::tui::state::{Pane, State};

/// Longest pretty-printed frame kept for the Raw pane.
const RAW_MAX_LINES: usize = 20_000;

pub struct Ctl;

impl Controller for Ctl {
    fn scroll(&self, st: &mut State, delta: isize) {
        let raw = &mut st.raw;
        let max = raw.lines.len().saturating_sub(1) as isize;
        raw.scroll = (raw.scroll as isize)
            .saturating_add(delta)
            .clamp(0, max.max(0)) as usize;
    }
}

/// The Raw pane's own keys.
pub fn apply(st: &mut State, a: Action, out: &mut Out) {
    match a {
        Action::ToggleBytes => {
            st.raw.bytes_mode = !st.raw.bytes_mode;
            // Made again (the other way) by the sync step.
            st.raw.lines.clear();
            out.behind = true;
        }
        Action::NextMatch => jump_to_match(st, 1),
        Action::PrevMatch => jump_to_match(st, -1),
        Action::Copy => out.pulls.push(Pull::Copy),
        _ => {}
    }
}

/// The search text changed: find its lines again, show the first.
pub fn set_search(st: &mut State, text: String) {
    st.raw.search = text;
    research(st);
    jump_to_match(st, 0);
}

fn research(st: &mut State) {
    let raw = &mut st.raw;
    let q = raw.search.to_lowercase();
    raw.matches = if q.is_empty() {
        Vec::new()
    } else {
        raw.lines
            .iter()
            .enumerate()
            .filter(|(_, l)| jsonfmt::line_text(l).to_lowercase().contains(&q))
            .map(|(i, _)| i)
            .collect()
    };
    raw.match_idx = 0;
}

fn jump_to_match(st: &mut State, delta: isize) {
    let raw = &mut st.raw;
    if raw.matches.is_empty() {
        return;
    }
    let n = raw.matches.len() as isize;
    raw.match_idx = ((raw.match_idx as isize + delta).rem_euclid(n)) as usize;
    // Scroll only when the match is off screen, and then keep some context above it.
    let line = raw.matches[raw.match_idx];
    let h = layout::list_height(st, Pane::Raw).max(1);
    let raw = &mut st.raw;
    if line < raw.scroll || line >= raw.scroll + h {
        raw.scroll = line.saturating_sub(h / 3);
    }
}

/// The event the Raw pane shows, from the list it follows.
pub fn target(st: &State, store: &Store) -> Option<u64> {
    match st.raw_source {
        Pane::Logs => st.logs.view.seq_at(st.logs.cursor.selected),
        Pane::Network => st
            .network
            .view
            .rows
            .get(st.network.cursor.selected)
            .map(|x| x.seq),
        Pane::Progress => {
            let c = st.calls.list.get(st.progress.selected)?;
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
        _ => st.timeline.view.seq_at(st.timeline.cursor.selected, store),
    }
}

/// Sync step: make the lines again when the event (or, for exact bytes,
/// the width) changed. Returns true when it did.
pub fn refresh(st: &mut State, store: &Store) -> bool {
    let seq = target(st, store);
    let width = layout::inner_width(st, Pane::Raw).saturating_sub(1);
    let raw = &mut st.raw;
    let width_matters = raw.bytes_mode;
    if raw.seq == seq && (!width_matters || raw.width == width) && !raw.lines.is_empty() {
        return false;
    }
    if raw.seq != seq {
        raw.scroll = 0;
    }
    raw.seq = seq;
    raw.width = width;
    let Some(ev) = seq.and_then(|s| store.get(s)) else {
        raw.lines.clear();
        raw.truncated = false;
        raw.matches.clear();
        return false;
    };
    let as_json = !raw.bytes_mode && ev.kind.is_json();
    let (lines, cut) = if as_json {
        jsonfmt::pretty(&String::from_utf8_lossy(ev.bytes), RAW_MAX_LINES)
    } else {
        jsonfmt::exact_bytes(ev.bytes, width, RAW_MAX_LINES)
    };
    raw.lines = lines;
    raw.truncated = cut;
    research(st);
    true
}

/// Sync step for `Pull::Copy`: the frame as shown (pretty) or its exact text.
pub fn copy(st: &mut State, store: &Store) -> Option<Effect> {
    let ev = st.raw.seq.and_then(|s| store.get(s))?;
    let text = if st.raw.bytes_mode || !ev.kind.is_json() {
        ev.text().into_owned()
    } else {
        st.raw
            .lines
            .iter()
            .map(|l| jsonfmt::line_text(l))
            .collect::<Vec<_>>()
            .join("\n")
    };
    st.notice = Some(format!(
        "copied frame #{} ({} bytes, OSC 52)",
        st.raw.seq.unwrap_or(0),
        text.len()
    ));
    Some(Effect::Copy(text))
}
