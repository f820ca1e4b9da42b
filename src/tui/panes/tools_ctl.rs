//! Tools input: the cursor, the text filter, and loading the selected tool
//! into the composer.

use crate::tui::browse::Tab;
use crate::tui::layout;
use crate::tui::panes::browse_ctl;
use crate::tui::panes::ctl::{self, Controller, Out};
use crate::tui::state::{InputTarget, Pane, State};

pub struct Ctl;

impl Controller for Ctl {
    fn scroll(&self, st: &mut State, delta: isize) {
        if st.browse.tab != Tab::Tools {
            return browse_ctl::scroll(st, delta);
        }
        let tools = &mut st.tools;
        tools.cursor.move_by(delta, tools.visible.len());
    }

    fn click(&self, st: &mut State, item: Option<usize>) {
        if st.browse.tab != Tab::Tools {
            return browse_ctl::click(st, item);
        }
        let tools = &mut st.tools;
        if let Some(i) = item.filter(|i| *i < tools.visible.len()) {
            tools.cursor.selected = i;
        }
    }

    fn filter(&self) -> Option<InputTarget> {
        Some(InputTarget::ToolsFilter)
    }

    fn clear_filter(&self, st: &mut State) {
        if st.browse.tab != Tab::Tools {
            return browse_ctl::set_filter(st, "");
        }
        set_text(st, "");
    }
}

/// The text filter; tools are few, so it applies at once.
pub fn set_text(st: &mut State, text: &str) {
    st.tools.filter = text.to_string();
    st.tools.refilter();
}

/// Enter: the selected tool into the composer, and focus there.
pub fn use_tool(st: &mut State, out: &mut Out) {
    if let Some(t) = st.tools.selected().cloned() {
        st.composer.load_tool(&t.name, &t.schema, &st.theme);
        ctl::focus(st, Pane::Composer, out);
    }
}

/// Sync step: keep the window around the cursor.
pub fn settle(st: &mut State) {
    let h = layout::list_height(st, Pane::Tools);
    let tools = &mut st.tools;
    tools.cursor.settle(tools.visible.len(), h);
}
