//! The Tools pane: the server's tools (filtered, the selected one in
//! detail), and its Resources and Prompts tabs (`browse_*`).

pub mod browse_update;
pub mod browse_view;
pub mod update;
pub mod view;

use crate::tui::browse::Browse;
use crate::tui::cursor::Cursor;
use crate::tui::format::match_rank;
use serde_json::Value;

#[derive(Debug, Clone)]
pub struct ToolInfo {
    /// Exactly as the server listed it: calls and the copied command use it.
    pub name: String,
    /// The name made safe for the screen (control characters shown, cut short).
    pub label: String,
    pub title: String,
    pub description: String,
    pub schema: Value,
    /// `execution.taskSupport`: whether a call runs as a task.
    pub task: crate::client::tasks::TaskSupport,
}

#[derive(Default)]
pub struct ToolsState {
    pub all: Vec<ToolInfo>,
    pub filter: String,
    /// Indexes into `all` that match the filter.
    pub visible: Vec<usize>,
    pub cursor: Cursor,
    pub loading: bool,
    pub error: Option<String>,
    /// The Resources and Prompts tabs.
    pub browse: Browse,
}

impl ToolsState {
    /// The tools the filter keeps, name matches before description
    /// matches (each in listed order).
    pub fn refilter(&mut self) {
        let f = self.filter.to_lowercase();
        let mut ranked: Vec<(u8, usize)> = (0..self.all.len())
            .filter_map(|i| {
                let t = &self.all[i];
                match_rank(&f, &[&t.name, &t.title], &[&t.description]).map(|r| (r, i))
            })
            .collect();
        ranked.sort_by_key(|(r, _)| *r);
        self.visible = ranked.into_iter().map(|(_, i)| i).collect();
        self.cursor.move_by(0, self.visible.len());
    }

    pub fn selected(&self) -> Option<&ToolInfo> {
        self.visible
            .get(self.cursor.selected)
            .and_then(|i| self.all.get(*i))
    }
}

impl ToolsState {
    /// What the list says about running `tool` as a task (forbidden when
    /// the tool is not listed).
    pub fn task_support(&self, tool: &str) -> crate::client::tasks::TaskSupport {
        self.all
            .iter()
            .find(|t| t.name == tool)
            .map_or(crate::client::tasks::TaskSupport::Forbidden, |t| t.task)
    }
}
