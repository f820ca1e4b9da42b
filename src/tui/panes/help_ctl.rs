//! Help overlay input: it takes every key while open; the global bindings
//! scroll it or close it.

use crate::tui::action::Action;
use crate::tui::keymap::{Context, Key};
use crate::tui::state::State;

pub fn key(st: &mut State, key: Key) {
    let a = st.keymap.lookup(Context::Global, key);
    // Kept within the list, so a key up after End moves at once.
    let end = super::help::max_scroll(st);
    let h = st.help.unwrap_or(0).min(end);
    st.help = match a {
        Some(Action::Help | Action::Back | Action::Quit) => None,
        Some(Action::Down) => Some((h + 1).min(end)),
        Some(Action::Up) => Some(h.saturating_sub(1)),
        Some(Action::PageDown) => Some((h + 10).min(end)),
        Some(Action::PageUp) => Some(h.saturating_sub(10)),
        Some(Action::Top) => Some(0),
        Some(Action::Bottom) => Some(end),
        _ => Some(h),
    };
}
