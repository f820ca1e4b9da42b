//! The Tools pane: the server's tools (filtered, the selected one in
//! detail), and its Resources and Prompts tabs (`browse_*`).

pub mod browse_update;
pub mod browse_view;
pub mod update;
pub mod view;

use crate::trace::Store;
use crate::tui::action::Action;
use crate::tui::browse::Browse;
use crate::tui::command::{Command, Commands};
use crate::tui::cursor::Cursor;
use crate::tui::format::match_rank;
use crate::tui::panes::{Actions, Cx, Fit, Keys, PaneSpec, Start, Upkeep};
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
        crate::sort::by_key(&mut ranked, |(r, _)| *r);
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

/// Its Resources and Prompts tabs have key contexts of their own
/// (`keymap::Context`); their actions come here too.
impl PaneSpec for ToolsState {
    const TITLE: &'static str = "Tools";
    const NAME: &'static str = "tools";
    const FOCUS: Option<Action> = Some(Action::FocusTools);
    const KEYS: Keys = {
        use Action::*;
        &[
            (&["/"], Filter),
            (&["backspace"], ClearFilter),
            (&["enter"], UseTool),
            (&["t"], NextTab),
            (&["T"], PrevTab),
        ]
    };
    const HINTS: Actions = {
        use Action::*;
        &[UseTool, Filter, Up, Down]
    };
    const ACTIONS: Actions = {
        use Action::*;
        &[UseTool, NextTab, PrevTab, Open, Subscribe, Refresh]
    };

    fn start(s: &Start) -> Self {
        ToolsState {
            loading: s.live,
            ..ToolsState::default()
        }
    }

    fn act(&mut self, a: Action, cx: &Cx) -> Commands {
        use Action::*;
        match a {
            UseTool => self.use_tool(),
            NextTab | PrevTab => self.step(a == NextTab, cx.live),
            Open | Subscribe | Refresh if !cx.live => vec![Command::Notice(
                "this is a recorded trace: there is no server to ask".into(),
            )],
            Open => self.open(cx.now_us),
            Subscribe => self.subscribe(),
            Refresh => self.refresh(cx.live),
            _ => Vec::new(),
        }
    }

    fn refit(&mut self, _store: &Store, fit: Fit) -> Upkeep {
        self.settle(fit.rows);
        Upkeep::DONE
    }
}
