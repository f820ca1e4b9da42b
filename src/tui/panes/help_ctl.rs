//! Help overlay input: it takes every key while open; the global bindings
//! scroll it or close it.

use crate::tui::action::Action;
use crate::tui::keymap::{Context, Key};
use crate::tui::state::State;

pub fn key(st: &mut State, key: Key) {
    let a = st.keymap.lookup(Context::Global, key);
    let h = st.help.unwrap_or(0);
    st.help = match a {
        Some(Action::Help | Action::Back | Action::Quit) => None,
        Some(Action::Down) => Some(h + 1),
        Some(Action::Up) => Some(h.saturating_sub(1)),
        Some(Action::PageDown) => Some(h + 10),
        Some(Action::PageUp) => Some(h.saturating_sub(10)),
        Some(Action::Top) => Some(0),
        _ => Some(h),
    };
}
