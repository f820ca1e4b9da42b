//! Findings input: the cursor, and Enter walking the selected finding's
//! frames (each press shows the next one in the Timeline and Raw panes).

use crate::trace::Store;
use crate::tui::layout;
use crate::tui::panes::ctl::{Controller, Out, Pull};
use crate::tui::state::{Pane, State};

pub struct Ctl;

impl Controller for Ctl {
    fn scroll(&self, st: &mut State, delta: isize) {
        let fs = &mut st.findings;
        let before = fs.cursor.selected;
        fs.cursor.move_by(delta, fs.list.len());
        // Another finding: Enter starts again at its first frame.
        if fs.cursor.selected != before {
            fs.frame = 0;
        }
    }

    fn click(&self, st: &mut State, item: Option<usize>) {
        let fs = &mut st.findings;
        if let Some(i) = item.filter(|i| *i < fs.list.len()) {
            if fs.cursor.selected != i {
                fs.frame = 0;
            }
            fs.cursor.selected = i;
        }
    }
}

/// Enter: the selected finding's next frame. Which frame is decided now;
/// finding it in the timeline reads the store, so the sync step does it.
pub fn show_frame(st: &mut State, out: &mut Out) {
    let fs = &mut st.findings;
    let Some(fd) = fs.list.get(fs.cursor.selected) else {
        st.notice = Some("no finding selected".into());
        return;
    };
    let n = fd.seqs.len();
    if n == 0 {
        st.notice = Some(format!("{} names no frame", fd.rule));
        return;
    }
    let k = fs.frame % n;
    let (seq, rule) = (fd.seqs[k], fd.rule);
    fs.frame = k + 1;
    out.pulls.push(Pull::ShowFrame { seq, rule, k, n });
}

/// Sync step: keep the cursor in range and its window current.
pub fn settle(st: &mut State) {
    let h = layout::list_height(st, Pane::Findings);
    let fs = &mut st.findings;
    fs.cursor.refit(fs.list.len(), h, false);
}

/// Sync step for `Pull::ShowFrame`: select the frame and say where it is.
pub fn resolve_show_frame(
    st: &mut State,
    store: &Store,
    seq: u64,
    rule: crate::checks::Rule,
    k: usize,
    n: usize,
) {
    st.notice = Some(match super::timeline_ctl::show_seq(st, store, seq) {
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
    });
}
