//! The whole screen, drawn from `&State` and `&Store` only (see
//! `layout.rs` for the picture). The caller holds the store's read lock for
//! exactly this call.

use super::layout;
use super::panes;
use super::state::{Pane, State};
use crate::trace::Store;
use ratatui::Frame;
use ratatui::widgets::Block;

pub fn draw(f: &mut Frame, st: &State, store: &Store) {
    let area = f.area();
    f.render_widget(Block::default().style(st.theme.base()), area);
    let lay = layout::compute(area, st);
    panes::header::draw(f, lay.header, st, store);
    if let Some(tabs) = lay.tabs {
        panes::header::draw_tabs(f, tabs, st);
    }
    for (pane, r) in &lay.panes {
        if r.width < 4 || r.height < 3 {
            continue;
        }
        match pane {
            Pane::Progress => panes::progress::draw(f, *r, st, store),
            Pane::Timeline => panes::timeline::draw(f, *r, st, store),
            Pane::Logs => panes::logs::draw(f, *r, st, store),
            Pane::Raw => panes::raw::draw(f, *r, st, store),
            Pane::Tools => panes::tools::draw(f, *r, st, store),
            Pane::Composer => panes::composer::draw(f, *r, st, store),
            Pane::Findings => panes::findings::draw(f, *r, st, store),
            Pane::Network => panes::network::draw(f, *r, st, store),
        }
    }
    panes::status::draw(f, lay.status, st, store);
    if st.help.is_some() {
        panes::help::draw(f, area, st);
    }
}
