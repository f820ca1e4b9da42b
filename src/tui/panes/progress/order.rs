//! The Progress pane's display order and row heights: running calls
//! (and those waiting for input) first, then finished ones, each group in the order sent; three rows a
//! gauge, one for a finished call that sent no progress. Kept by the sync
//! step (which reads the store), read by the view and the layout.

use crate::trace::Store;
use crate::tui::calls::Call;

/// Rows a gauge takes: the head, the bar, the message and timing.
pub const GAUGE_ROWS: u16 = 3;

#[derive(Debug, Default, Clone)]
pub struct Order {
    /// Display position → index in `Calls::list`.
    pub list: Vec<usize>,
    /// Rows each display position takes.
    pub heights: Vec<u16>,
    /// Calls listed at the last sync step (`None` before the first): the
    /// calls present then are history; any more are new and followed.
    pub seen: Option<usize>,
}

impl Order {
    /// Running calls (and those waiting for the user's input) first, then
    /// the others, each in list (sent) order.
    pub fn arrange(&mut self, calls: &[Call]) {
        self.list.clear();
        self.list
            .extend((0..calls.len()).filter(|&i| active(&calls[i])));
        self.list
            .extend((0..calls.len()).filter(|&i| !active(&calls[i])));
    }

    /// Heights for the current order, from the store (progress counts).
    pub fn measure(&mut self, calls: &[Call], store: &Store) {
        self.heights = self
            .list
            .iter()
            .map(|&i| {
                if one_row(&calls[i], store) {
                    1
                } else {
                    GAUGE_ROWS
                }
            })
            .collect();
    }

    /// Rows display position `pos` takes (a gauge's until measured).
    pub fn height(&self, pos: usize) -> u16 {
        self.heights.get(pos).copied().unwrap_or(GAUGE_ROWS)
    }

    /// Rows all calls take.
    pub fn total_rows(&self, len: usize) -> usize {
        (0..len).map(|p| self.height(p) as usize).sum()
    }

    /// First display position drawn in `rows` rows so that `selected` is
    /// wholly on screen, starting from `offset` where possible, and with no
    /// empty rows at the bottom while calls above are hidden.
    pub fn window(&self, len: usize, selected: usize, offset: usize, rows: usize) -> usize {
        if len == 0 {
            return 0;
        }
        let sel = selected.min(len - 1);
        let mut start = offset.min(sel);
        let mut used: usize = (start..=sel).map(|p| self.height(p) as usize).sum();
        while start < sel && used > rows {
            used -= self.height(start) as usize;
            start += 1;
        }
        let mut tail: usize = (start..len).map(|p| self.height(p) as usize).sum();
        while start > 0 && tail + self.height(start - 1) as usize <= rows {
            start -= 1;
            tail += self.height(start) as usize;
        }
        start
    }

    /// The rows the window's whole calls fill in at most `rows`: how high
    /// the pane needs to be to show them with no row left blank.
    pub fn fitted(&self, len: usize, selected: usize, offset: usize, rows: usize) -> usize {
        let mut used = 0;
        for pos in self.window(len, selected, offset, rows)..len {
            let h = self.height(pos) as usize;
            if used + h > rows {
                break;
            }
            used += h;
        }
        used
    }
}

/// Still the user's concern: running, or asking for input not yet given.
fn active(c: &Call) -> bool {
    c.status.is_running() || c.input.as_ref().is_some_and(|i| i.answered_by.is_none())
}

/// A finished call with nothing to gauge: no progress notification after
/// its (latest) request, no input asked for, no task.
pub fn one_row(c: &Call, store: &Store) -> bool {
    !c.status.is_running() && c.input.is_none() && c.task.is_none() && notifications(c, store) == 0
}

fn notifications(c: &Call, store: &Store) -> usize {
    let now = &c.latest;
    now.token
        .as_ref()
        .and_then(|t| store.token(t))
        .map_or(0, |e| e.seqs.count_from(now.request_seq + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(heights: &[u16]) -> Order {
        Order {
            list: (0..heights.len()).collect(),
            heights: heights.to_vec(),
            seen: None,
        }
    }

    #[test]
    fn the_window_shows_the_selection_whole_and_leaves_no_gap_below() {
        let o = order(&[3, 1, 1, 3, 3, 3]);
        // 7 rows: 3+1+1 fit with the selection at 2.
        assert_eq!(o.window(6, 2, 0, 7), 0);
        // Selecting the last: 3+3 fit; with room, the calls before it too.
        assert_eq!(o.window(6, 5, 0, 7), 4);
        assert_eq!(o.window(6, 5, 0, 10), 2);
        // Scrolled down, the list no longer fills the rows: it slides back.
        assert_eq!(o.window(6, 5, 5, 20), 0);
        // A selection above the window moves it up.
        assert_eq!(o.window(6, 1, 4, 4), 1);
    }
}
