//! Help overlay input: it takes every key while open; the global bindings
//! scroll it or close it.

use crate::tui::action::Action;
use crate::tui::keymap::{Context, Key, Keymap};

/// The scroll position after `key` (None: closed). `end` is the last
/// position the help's lines allow; `page` the rows it shows at once.
pub fn key(keymap: &Keymap, at: usize, end: usize, page: usize, key: Key) -> Option<usize> {
    let page = page.max(1);
    let a = keymap.lookup(Context::Global, key);
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
