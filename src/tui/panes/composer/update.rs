//! Composer input: editing the JSON (keys go to the editor while editing),
//! token, level and timeouts, raw mode, sending, copying the command line.

use super::{Composer, ServerCli, TokenMode};
use crate::client::tasks::TaskSupport;
use crate::tui::action::{Action, Effect};
use crate::tui::command::{Command, Commands};
use crate::tui::overlays::status::InputTarget;
use crate::tui::panes::tools::ToolsState;
use crate::tui::panes::{Cx, PaneInput};
use crossterm::event::KeyEvent;
use ratatui_textarea::CursorMove;

impl PaneInput for Composer {
    fn scroll(&mut self, delta: isize, _cx: &Cx) -> Commands {
        let m = if delta < 0 {
            CursorMove::Up
        } else {
            CursorMove::Down
        };
        let ed = self.editor_mut();
        for _ in 0..delta.unsigned_abs().min(1000) {
            ed.move_cursor(m);
        }
        Vec::new()
    }

    /// A click anywhere in the composer starts editing.
    fn click(&mut self, _item: Option<usize>, _cx: &Cx) -> Commands {
        self.set_editing(true);
        Vec::new()
    }
}

impl Composer {
    /// A key while editing that the Editor key map does not claim: typing.
    pub fn type_key(&mut self, ev: KeyEvent) {
        if self.editor_mut().input(ev) {
            self.validate();
        }
    }

    /// Pasted text goes into the editor (and starts editing).
    pub fn paste(&mut self, text: &str) {
        self.set_editing(true);
        self.editor_mut().insert_str(text);
        self.validate();
    }

    /// The composer's own keys. The tools list says which calls run as
    /// tasks; `server_cli` is the copied command's server part.
    pub fn apply(
        &mut self,
        a: Action,
        tools: &ToolsState,
        server_cli: &ServerCli,
        live: bool,
        theme: &crate::tui::theme::Theme,
    ) -> Commands {
        match a {
            Action::Edit => self.set_editing(true),
            Action::StopEdit => self.set_editing(false),
            Action::Send => return self.send(tools, live),
            Action::CycleToken => {
                self.token = self.token.next(!self.custom_token.trim().is_empty());
            }
            Action::EditToken => {
                self.token_before = Some(self.token);
                return vec![Command::Input(InputTarget::CustomToken)];
            }
            Action::CycleLogLevel => self.cycle_level(),
            Action::IdleDown => self.step_idle(false),
            Action::IdleUp => self.step_idle(true),
            Action::MaxDown => self.step_max(false),
            Action::MaxUp => self.step_max(true),
            Action::ToggleRawMode => {
                self.raw_mode = !self.raw_mode;
                self.validate();
            }
            Action::ResetArgs => self.reset_args(theme),
            Action::ToggleTask => return self.toggle_task(tools),
            Action::CopyCommand => {
                let cmd = self.command(tools, server_cli);
                return vec![Command::Effect(Effect::Copy {
                    text: cmd,
                    what: "the command line".into(),
                })];
            }
            _ => {}
        }
        Vec::new()
    }

    /// The custom token typed in the status line's field.
    pub fn set_custom_token(&mut self, text: String) {
        self.custom_token = text;
        self.token = TokenMode::Custom;
    }

    /// Esc in the custom token's field: the token mode it was opened in
    /// comes back (the text is restored by the field).
    pub fn cancel_custom_token(&mut self) {
        if let Some(mode) = self.token_before.take() {
            self.token = mode;
        }
    }

    /// The equivalent `mcpscope call`: `--task` where the call asks for a
    /// task the tool only allows.
    pub fn command(&self, tools: &ToolsState, server_cli: &ServerCli) -> String {
        let optional =
            self.tool.as_deref().map(|t| tools.task_support(t)) == Some(TaskSupport::Optional);
        self.command_line_with(server_cli, optional && self.as_task)
    }

    /// Whether the call goes out as a task: always for a tool that requires
    /// it, on request (the toggle) where optional.
    pub fn runs_as_task(&self, tools: &ToolsState) -> bool {
        match self.tool.as_deref().map(|t| tools.task_support(t)) {
            Some(TaskSupport::Required) => true,
            Some(TaskSupport::Optional) => self.as_task,
            _ => false,
        }
    }

    /// Ask for task execution, or stop asking: only where the tool offers it.
    fn toggle_task(&mut self, tools: &ToolsState) -> Commands {
        let Some(tool) = self.tool.clone() else {
            return vec![Command::Notice(
                "no tool selected: pick one in Tools".into(),
            )];
        };
        let notice = match tools.task_support(&tool) {
            TaskSupport::Required => {
                format!("{tool} always runs as a task (taskSupport: required)")
            }
            TaskSupport::Forbidden => format!("{tool} does not run as a task (no taskSupport)"),
            TaskSupport::Optional => {
                self.as_task = !self.as_task;
                if self.as_task {
                    format!("{tool} will run as a task")
                } else {
                    format!("{tool} will run as a plain call")
                }
            }
        };
        vec![Command::Notice(notice)]
    }

    fn send(&mut self, tools: &ToolsState, live: bool) -> Commands {
        if !live {
            return vec![Command::Notice(
                "this is a recorded trace: there is no server to send to".into(),
            )];
        }
        let as_task = self.runs_as_task(tools);
        match self.effect() {
            Ok(mut e) => {
                if let Effect::Call { task, .. } = &mut e {
                    *task = as_task;
                }
                self.set_editing(false);
                let notice = match &e {
                    Effect::Call {
                        tool, task: true, ..
                    } => format!("sent tools/call {tool} as a task"),
                    Effect::Call { tool, .. } => format!("sent tools/call {tool}"),
                    Effect::Raw { method, .. } => format!("sent {method}"),
                    _ => String::new(),
                };
                vec![Command::Notice(notice), Command::Effect(e)]
            }
            Err(why) => vec![Command::Notice(format!("not sent: {why}"))],
        }
    }
}
