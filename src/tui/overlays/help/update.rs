//! Help overlay input: it takes every key while open. Its own context
//! (`[keys.help]`) opens the search field; the global bindings scroll it,
//! and Esc drops a search before it closes the help.

use crate::tui::action::Action;
use crate::tui::keymap::{Context, Key, Keymap};
use crate::tui::overlays::Overlays;
use crate::tui::overlays::status::{self, InputTarget};

/// A key while the help is open. `end` is the last position the help's
/// lines allow; `page` the rows it shows at once.
pub fn key(ov: &mut Overlays, keymap: &Keymap, end: usize, page: usize, key: Key) {
    let Some(at) = ov.help else {
        return;
    };
    if keymap.lookup(Context::Help, key) == Some(Action::Filter) {
        // Typed in the status line, which the help leaves uncovered.
        ov.input = Some(status::update::open(
            InputTarget::HelpSearch,
            ov.help_query.clone(),
        ));
        return;
    }
    let a = keymap.lookup(Context::Global, key);
    if a == Some(Action::Back) && !ov.help_query.is_empty() {
        ov.help_query.clear();
        ov.help = Some(0);
        return;
    }
    ov.help = scroll(at, end, page, a);
    if ov.help.is_none() {
        ov.help_query.clear();
    }
}

/// The search changed: its rows are shown from the top.
pub fn set_query(ov: &mut Overlays, text: String) {
    ov.help_query = text;
    if ov.help.is_some() {
        ov.help = Some(0);
    }
}

/// The scroll position after action `a` (None: closed).
fn scroll(at: usize, end: usize, page: usize, a: Option<Action>) -> Option<usize> {
    let page = page.max(1);
    // Kept within the list, so a key up after End moves at once.
    let h = at.min(end);
    match a {
        Some(Action::Help | Action::Back | Action::Quit) => None,
        Some(Action::Down) => Some((h + 1).min(end)),
        Some(Action::Up) => Some(h.saturating_sub(1)),
        Some(Action::PageDown) => Some((h + page).min(end)),
        Some(Action::PageUp) => Some(h.saturating_sub(page)),
        Some(Action::Top) => Some(0),
        Some(Action::Bottom) => Some(end),
        _ => Some(h),
    }
}
