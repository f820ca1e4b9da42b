//! The whole screen (see `layout.rs` for the picture), in two steps:
//! `prepare` reads what the panes need from the store into owned lines
//! (the caller holds the read lock for this step only) and maps where
//! everything goes; `paint` draws that from the state alone, so the lock
//! is not held while widgets are rendered or the terminal is written.

pub mod hits;

use super::chrome;
use super::layout::{self, Layout};
use super::overlays;
use super::screen::Body;
use super::screen::View;
use super::shell::header;
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
pub fn prepare(area: Rect, st: &View, store: &Store) -> Prepared {
    let lay = layout::compute(area, st);
    let header = header::prepare(st, store, area.width);
    let mut map = FrameMap {
        size: (area.width, area.height),
        tabs: lay.tabs.map(|r| TabBar {
            y: r.y,
            tabs: header::tab_spans(r, st),
        }),
        panes: Vec::with_capacity(lay.panes.len()),
    };
    let mut bodies = Vec::with_capacity(lay.panes.len());
    for (pane, r) in &lay.panes {
        let (pane, r) = (*pane, *r);
        let view = st.pane(pane);
        let mut body = if tiny(r) {
            None
        } else {
            view.prepare(r, st, store)
        };
        let mut rows = match body.as_mut() {
            _ if tiny(r) => Vec::new(),
            Some(b) => std::mem::take(&mut b.rows),
            None => view.rows(r, st),
        };
        // Lines past the border are cut when painted: nothing to click there.
        let inner = chrome::inner(r);
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
pub fn paint(f: &mut Frame, st: &View, p: Prepared) -> FrameMap {
    let area = p.area;
    f.render_widget(Block::default().style(st.shell.theme.base()), area);
    f.render_widget(p.header, p.lay.header);
    if let Some(tabs) = p.lay.tabs {
        header::draw_tabs(f, tabs, st);
    }
    for ((pane, r), body) in p.lay.panes.iter().zip(p.bodies) {
        if tiny(*r) {
            continue;
        }
        match body {
            Some(b) => chrome::paint(f, *r, st, *pane, b),
            None => st.pane(*pane).draw(f, *r, st),
        }
    }
    overlays::status::view::draw(f, p.lay.status, st);
    if st.overlays.asks.open {
        overlays::asks::view::draw(f, area, st);
    }
    if st.overlays.argform.is_some() {
        overlays::argform::view::draw(f, area, st);
    }
    if st.overlays.asks.roots_editor.is_some() {
        overlays::asks::view::draw_roots(f, area, st);
    }
    overlays::intercept::view::draw(f, area, st);
    if st.overlays.help.is_some() {
        overlays::help::view::draw(f, area, st);
    }
    p.map
}

/// Prepare and paint in one go, with the caller holding the store's lock
/// throughout (tests, benchmarks).
pub fn draw(f: &mut Frame, st: &View, store: &Store) {
    let p = prepare(f.area(), st, store);
    paint(f, st, p);
}
