//! What a frame is drawn from: the shell, the panes and the overlays, read
//! together (`View`), and the one registry that says how each pane is
//! drawn (`PaneView`, implemented in each pane's `view.rs`), generated
//! from the pane table (`pane::each_pane!`).

use super::keymap::Context;
use super::overlays::Overlays;
use super::pane::{Pane, each_pane};
use super::panes::Panes;
use super::shell::Shell;
use crate::trace::Store;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

/// The screen's state, read-only, for drawing and layout.
#[derive(Clone, Copy)]
pub struct View<'a> {
    pub shell: &'a Shell,
    pub panes: &'a Panes,
    pub overlays: &'a Overlays,
}

/// A bordered pane prepared from the store: title info, the lines inside
/// the border, and (screen row, list item) for each row showing an item.
pub struct Body {
    pub info: String,
    pub lines: Vec<Line<'static>>,
    pub rows: Vec<(u16, usize)>,
}

/// How a pane is drawn. Panes whose rows come from the store split it in
/// two: `prepare` reads the store (under the lock) into a `Body` of owned
/// lines, painted later with no lock. The others `draw` from the state
/// alone and say which item each drawn row shows (`rows`, for clicks).
pub trait PaneView {
    fn prepare(&self, _area: Rect, _v: &View, _store: &Store) -> Option<Body> {
        None
    }

    fn draw(&self, _f: &mut Frame, _area: Rect, _v: &View) {}

    fn rows(&self, _area: Rect, _v: &View) -> Vec<(u16, usize)> {
        Vec::new()
    }

    /// Rows its list shows inside a border of `inner` rows (below any
    /// column header, above any detail).
    fn list_rows(&self, inner: u16) -> usize {
        inner as usize
    }

    /// Is it offered (in the tab bar and in focus order)?
    fn offered(&self, _v: &View) -> bool {
        true
    }
}

macro_rules! view_registry {
    ($($(#[$doc:meta])* $variant:ident $field:ident $state:ident,)*) => {
        impl<'a> View<'a> {
            /// The registry: how pane `p` is drawn.
            pub fn pane(&self, p: Pane) -> &'a dyn PaneView {
                let ps = self.panes;
                match p {
                    $(Pane::$variant => &ps.$field,)*
                }
            }
        }
    };
}
each_pane!(view_registry);

impl<'a> View<'a> {
    /// Is the pane offered (in the tab bar and in focus order)?
    pub fn offers(&self, p: Pane) -> bool {
        self.pane(p).offered(self)
    }

    /// The panes of the tab bar, in order.
    pub fn tabs(&self) -> impl Iterator<Item = Pane> + '_ {
        Pane::ORDER.into_iter().filter(|p| self.offers(*p))
    }

    /// Where keys are looked up first: the focused pane's context, or the
    /// tab the Tools pane shows.
    pub fn key_context(&self) -> Context {
        use super::browse::Tab;
        match (self.shell.focus, self.panes.tools.browse.tab) {
            (Pane::Tools, Tab::Resources) => Context::Resources,
            (Pane::Tools, Tab::Prompts) => Context::Prompts,
            (p, _) => Context::Pane(p),
        }
    }

    /// HTTP session: timeline rows show their channel.
    pub fn shows_channels(&self) -> bool {
        self.panes.network.view.is_http()
    }

    /// The composer's equivalent `mcpscope call`.
    pub fn composer_command(&self) -> String {
        self.panes
            .composer
            .command(&self.panes.tools, &self.shell.server_cli)
    }
}
