//! Where a frame put things: each pane's rectangle, the tab bar's labels,
//! and which list item each drawn row shows. The renderer writes it while
//! it lays rows out; mouse handling reads the last one drawn, so a click
//! lands on what the user saw (however a pane spaces its rows: three per
//! call, a header row, an unfolded log entry, a detail footer).

use crate::tui::pane::Pane;
use ratatui::layout::Rect;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameMap {
    /// The terminal size it was drawn for: a map of another size is stale.
    pub size: (u16, u16),
    pub tabs: Option<TabBar>,
    pub panes: Vec<PaneMap>,
}

/// The tab bar, when shown: its row and each tab's columns `[x0, x1)`.
#[derive(Debug, Clone, PartialEq)]
pub struct TabBar {
    pub y: u16,
    pub tabs: Vec<(Pane, u16, u16)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PaneMap {
    pub pane: Pane,
    pub area: Rect,
    /// (screen row, list item) for each row that shows an item.
    pub rows: Vec<(u16, usize)>,
}

impl FrameMap {
    /// The tab under (x, y), if (x, y) is on the tab bar. `Some(None)`: on
    /// the bar, between or after the tabs.
    pub fn tab_at(&self, x: u16, y: u16) -> Option<Option<Pane>> {
        let bar = self.tabs.as_ref()?;
        (bar.y == y).then(|| {
            bar.tabs
                .iter()
                .find(|(_, x0, x1)| x >= *x0 && x < *x1)
                .map(|(p, _, _)| *p)
        })
    }

    pub fn pane_at(&self, x: u16, y: u16) -> Option<&PaneMap> {
        self.panes.iter().find(|m| {
            let r = m.area;
            x >= r.x && x < r.x + r.width && y >= r.y && y < r.y + r.height
        })
    }

    pub fn pane(&mut self, pane: Pane) -> Option<&mut PaneMap> {
        self.panes.iter_mut().find(|m| m.pane == pane)
    }
}

impl PaneMap {
    /// The item drawn on screen row `y`.
    pub fn item_at(&self, y: u16) -> Option<usize> {
        self.rows.iter().find(|(r, _)| *r == y).map(|(_, i)| *i)
    }
}

/// Rows `top`, `top + 1`… showing items `start..end`, `per` rows each.
pub fn uniform(top: u16, start: usize, end: usize, per: u16) -> Vec<(u16, usize)> {
    let mut out = Vec::with_capacity((end.saturating_sub(start)) * per as usize);
    let mut y = top;
    for i in start..end {
        for _ in 0..per {
            out.push((y, i));
            y = y.saturating_add(1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_tabs_and_panes_are_found_where_they_were_put() {
        let rows = uniform(5, 2, 4, 3);
        assert_eq!(rows, vec![(5, 2), (6, 2), (7, 2), (8, 3), (9, 3), (10, 3)]);
        let map = FrameMap {
            size: (80, 24),
            tabs: Some(TabBar {
                y: 1,
                tabs: vec![(Pane::Progress, 0, 13), (Pane::Timeline, 13, 26)],
            }),
            panes: vec![PaneMap {
                pane: Pane::Logs,
                area: Rect::new(0, 2, 80, 20),
                rows,
            }],
        };
        assert_eq!(map.tab_at(13, 1), Some(Some(Pane::Timeline)));
        assert_eq!(map.tab_at(30, 1), Some(None), "on the bar, past the tabs");
        assert_eq!(map.tab_at(3, 2), None, "not on the bar");
        let pm = map.pane_at(79, 21).expect("inside");
        assert_eq!(pm.item_at(9), Some(3));
        assert_eq!(pm.item_at(11), None);
        assert!(map.pane_at(80, 21).is_none());
    }
}
