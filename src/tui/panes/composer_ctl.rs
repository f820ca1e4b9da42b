//! Composer input: editing the JSON (keys go to the editor while editing),
//! token, level and timeouts, raw mode, sending, copying the command line.

use crate::tui::action::{Action, Effect};
use crate::tui::compose::TokenMode;
use crate::tui::panes::ctl::{Controller, Out};
use crate::tui::state::{InputTarget, State};
use crossterm::event::KeyEvent;
use ratatui_textarea::CursorMove;

pub struct Ctl;

impl Controller for Ctl {
    fn scroll(&self, st: &mut State, delta: isize) {
        let m = if delta < 0 {
            CursorMove::Up
        } else {
            CursorMove::Down
        };
        let ed = st.composer.editor_mut();
        for _ in 0..delta.unsigned_abs().min(1000) {
            ed.move_cursor(m);
        }
    }

    /// A click anywhere in the composer starts editing.
    fn click(&self, st: &mut State, _item: Option<usize>) {
        st.composer.set_editing(true);
    }
}

/// A key while editing that the Editor key map does not claim: typing.
pub fn type_key(st: &mut State, ev: KeyEvent) {
    let c = &mut st.composer;
    if c.editor_mut().input(ev) {
        c.validate();
    }
}

/// Pasted text goes into the editor (and starts editing).
pub fn paste(st: &mut State, text: &str) {
    let c = &mut st.composer;
    c.set_editing(true);
    c.editor_mut().insert_str(text);
    c.validate();
}

/// The composer's own keys.
pub fn apply(st: &mut State, a: Action, out: &mut Out) {
    let c = &mut st.composer;
    match a {
        Action::Edit => c.set_editing(true),
        Action::StopEdit => c.set_editing(false),
        Action::Send => send(st, out),
        Action::CycleToken => {
            c.token = c.token.next();
            if c.token == TokenMode::Custom && c.custom_token.is_empty() {
                super::status_ctl::start_input(st, InputTarget::CustomToken);
            }
        }
        Action::EditToken => super::status_ctl::start_input(st, InputTarget::CustomToken),
        Action::CycleLogLevel => c.cycle_level(),
        Action::IdleDown => c.step_idle(false),
        Action::IdleUp => c.step_idle(true),
        Action::MaxDown => c.step_max(false),
        Action::MaxUp => c.step_max(true),
        Action::ToggleRawMode => {
            c.raw_mode = !c.raw_mode;
            c.validate();
        }
        Action::ResetArgs => c.reset_args(&st.theme),
        Action::ToggleTask => toggle_task(st),
        Action::CopyCommand => {
            let cmd = st.composer_command();
            st.notice = Some("copied the command line (OSC 52)".into());
            out.effects.push(Effect::Copy(cmd));
        }
        _ => {}
    }
}

/// Ask for task execution, or stop asking: only where the tool offers it.
fn toggle_task(st: &mut State) {
    use crate::client::tasks::TaskSupport;
    let Some(tool) = st.composer.tool.clone() else {
        st.notice = Some("no tool selected: pick one in Tools".into());
        return;
    };
    st.notice = Some(match st.task_support(&tool) {
        TaskSupport::Required => format!("{tool} always runs as a task (taskSupport: required)"),
        TaskSupport::Forbidden => format!("{tool} does not run as a task (no taskSupport)"),
        TaskSupport::Optional => {
            st.composer.as_task = !st.composer.as_task;
            if st.composer.as_task {
                format!("{tool} will run as a task")
            } else {
                format!("{tool} will run as a plain call")
            }
        }
    });
}

fn send(st: &mut State, out: &mut Out) {
    if !st.live {
        st.notice = Some("this is a recorded trace: there is no server to send to".into());
        return;
    }
    let as_task = st.composer_task();
    match st.composer.effect() {
        Ok(mut e) => {
            if let Effect::Call { task, .. } = &mut e {
                *task = as_task;
            }
            st.composer.set_editing(false);
            st.notice = Some(match &e {
                Effect::Call {
                    tool, task: true, ..
                } => format!("sent tools/call {tool} as a task"),
                Effect::Call { tool, .. } => format!("sent tools/call {tool}"),
                Effect::Raw { method, .. } => format!("sent {method}"),
                _ => String::new(),
            });
            out.effects.push(e);
        }
        Err(why) => st.notice = Some(format!("not sent: {why}")),
    }
}
