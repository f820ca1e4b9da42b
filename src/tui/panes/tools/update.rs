//! Tools input: the cursor, the text filter, and loading the selected tool
//! into the composer. On the Resources and Prompts tabs the keys go to
//! `browse_update.rs`.

use super::ToolsState;
use crate::tui::browse::Tab;
use crate::tui::command::{Command, Commands};
use crate::tui::overlays::status::InputTarget;
use crate::tui::pane::Pane;
use crate::tui::panes::{Cx, PaneInput};

impl PaneInput for ToolsState {
    fn scroll(&mut self, delta: isize, cx: &Cx) -> Commands {
        if self.browse.tab != Tab::Tools {
            self.browse_scroll(delta, cx);
            return Vec::new();
        }
        self.cursor.move_by(delta, self.visible.len());
        Vec::new()
    }

    fn click(&mut self, item: Option<usize>, _cx: &Cx) -> Commands {
        if self.browse.tab != Tab::Tools {
            self.browse_click(item);
            return Vec::new();
        }
        if let Some(i) = item.filter(|i| *i < self.visible.len()) {
            self.cursor.selected = i;
        }
        Vec::new()
    }

    /// The Tools pane's other tabs filter their own lists.
    fn filter(&self) -> Option<InputTarget> {
        Some(if self.browse.tab == Tab::Tools {
            InputTarget::ToolsFilter
        } else {
            InputTarget::BrowseFilter
        })
    }

    fn filter_text(&self) -> String {
        if self.browse.tab != Tab::Tools {
            return self.browse_filter_text();
        }
        self.filter.clone()
    }

    fn set_filter(&mut self, text: &str) {
        if self.browse.tab != Tab::Tools {
            return self.browse_set_filter(text);
        }
        self.set_tools_filter(text);
    }
}

impl ToolsState {
    /// The tools' text filter; tools are few, so it applies at once.
    pub fn set_tools_filter(&mut self, text: &str) {
        self.filter = text.to_string();
        self.refilter();
        // The best match is selected.
        if !text.is_empty() {
            self.cursor.selected = 0;
        }
    }

    /// Enter: the selected tool into the composer, and focus there.
    pub fn use_tool(&self) -> Commands {
        match self.selected() {
            Some(t) => vec![
                Command::LoadTool {
                    name: t.name.clone(),
                    schema: t.schema.clone(),
                },
                Command::Focus(Pane::Composer),
            ],
            None => Vec::new(),
        }
    }

    /// Sync step: keep the windows (`h` rows) around the cursors.
    pub fn settle(&mut self, h: usize) {
        self.cursor.settle(self.visible.len(), h);
        let b = &mut self.browse;
        let n = b.resources.len();
        b.resources.cursor.settle(n, h);
        let n = b.prompts.len();
        b.prompts.cursor.settle(n, h);
    }
}
