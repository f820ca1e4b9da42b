//! The whole screen (see `layout.rs` for the picture), in two steps:
//! `prepare` reads what the panes need from the store into owned lines
//! (the caller holds the read lock for this step only) and maps where
//! everything goes; `paint` draws that from the state alone, so the lock
//! is not held while widgets are rendered or the terminal is written.

pub mod hits;

use super::layout::{self, Layout};
use super::panes::{self, Body};
use super::state::{Pane, State};
use crate::trace::Store;
use hits::{FrameMap, PaneMap, TabBar};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, Paragraph};

/// One frame, read from the store and laid out, ready to paint.
pub struct Prepared {
    area: Rect,
    lay: Layout,
    header: Paragraph<'static>,
    /// The store-backed panes' contents, in `lay.panes` order (None for
    /// panes drawn from the state, and for panes too small to draw).
    bodies: Vec<Option<Body>>,
    /// Where this frame puts things, for mouse hit-testing.
    pub map: FrameMap,
}

/// Too small to draw anything useful in (and too small to click).
fn tiny(r: Rect) -> bool {
    r.width < 4 || r.height < 3
}

/// Read the store for one frame of `area`. The lock can be released once
/// this returns.
pub fn prepare(area: Rect, st: &State, store: &Store) -> Prepared {
    let lay = layout::compute(area, st);
    let header = panes::header::prepare(st, store, area.width);
    let mut map = FrameMap {
        size: (area.width, area.height),
        tabs: lay.tabs.map(|r| TabBar {
            y: r.y,
            tabs: panes::header::tab_spans(r, st),
        }),
        panes: Vec::with_capacity(lay.panes.len()),
    };
    let mut bodies = Vec::with_capacity(lay.panes.len());
    for (pane, r) in &lay.panes {
        let (pane, r) = (*pane, *r);
        let mut body = if tiny(r) {
            None
        } else {
            match pane {
                Pane::Progress => Some(panes::progress::prepare(r, st, store)),
                Pane::Timeline => Some(panes::timeline::prepare(r, st, store)),
                Pane::Logs => Some(panes::logs::prepare(r, st, store)),
                Pane::Raw => Some(panes::raw::prepare(r, st, store)),
                Pane::Tools | Pane::Composer | Pane::Findings | Pane::Network => None,
            }
        };
        let mut rows = match (body.as_mut(), pane) {
            _ if tiny(r) => Vec::new(),
            (Some(b), _) => std::mem::take(&mut b.rows),
            (None, Pane::Tools) => panes::tools::rows(r, st),
            (None, Pane::Findings) => panes::findings::rows(r, st),
            (None, Pane::Network) => panes::network::rows(r, st),
            (None, _) => Vec::new(),
        };
        // Lines past the border are cut when painted: nothing to click there.
        let inner = panes::inner(r);
        rows.retain(|(y, _)| *y >= inner.y && *y < inner.y + inner.height);
        map.panes.push(PaneMap {
            pane,
            area: r,
            rows,
        });
        bodies.push(body);
    }
    Prepared {
        area,
        lay,
        header,
        bodies,
        map,
    }
}

/// Draw a prepared frame. Needs no store. Returns the frame's map.
pub fn paint(f: &mut Frame, st: &State, p: Prepared) -> FrameMap {
    let area = p.area;
    f.render_widget(Block::default().style(st.theme.base()), area);
    f.render_widget(p.header, p.lay.header);
    if let Some(tabs) = p.lay.tabs {
        panes::header::draw_tabs(f, tabs, st);
    }
    for ((pane, r), body) in p.lay.panes.iter().zip(p.bodies) {
        if tiny(*r) {
            continue;
        }
        match (pane, body) {
            (_, Some(b)) => panes::paint(f, *r, st, *pane, b),
            (Pane::Tools, None) => panes::tools::draw(f, *r, st),
            (Pane::Composer, None) => panes::composer::draw(f, *r, st),
            (Pane::Findings, None) => panes::findings::draw(f, *r, st),
            (Pane::Network, None) => panes::network::draw(f, *r, st),
            (_, None) => {}
        }
    }
    panes::status::draw(f, p.lay.status, st);
    if st.asks.open {
        panes::ask::draw(f, area, st);
    }
    if st.browse.form.is_some() {
        panes::argform::draw(f, area, st);
    }
    if st.asks.roots_editor.is_some() {
        panes::ask::draw_roots(f, area, st);
    }
    if st.help.is_some() {
        panes::help::draw(f, area, st);
    }
    p.map
}

/// Prepare and paint in one go, with the caller holding the store's lock
/// throughout (tests, benchmarks).
pub fn draw(f: &mut Frame, st: &State, store: &Store) {
    let p = prepare(f.area(), st, store);
    paint(f, st, p);
}
