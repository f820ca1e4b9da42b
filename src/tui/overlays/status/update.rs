//! The status line's text field: filters and the raw search apply while
//! typing, Enter keeps the text, Esc (or Ctrl-C) restores what was there.
//! The field only edits its text; the App hands each change to the pane
//! the target belongs to (`Command::SetText`).

use super::{InputTarget, LineInput};
use crate::tui::command::Command;
use crate::tui::format::safe_row;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The field for `target`, starting from its current text.
pub fn open(target: InputTarget, before: String) -> LineInput {
    LineInput {
        target,
        text: before.clone(),
        before,
    }
}

/// A key while the field is open. Returns the change for its target when
/// the text changed (the caller syncs so the rows show at once).
pub fn key(field: &mut Option<LineInput>, ev: KeyEvent) -> Option<Command> {
    let inp = field.as_mut()?;
    let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    match ev.code {
        KeyCode::Enter => {
            *field = None;
            return None;
        }
        KeyCode::Esc => {
            let set = Command::CancelText(inp.target, inp.before.clone());
            *field = None;
            return Some(set);
        }
        KeyCode::Backspace => {
            inp.text.pop();
        }
        KeyCode::Char('u') if ctrl => inp.text.clear(),
        KeyCode::Char('c') if ctrl => {
            let set = Command::CancelText(inp.target, inp.before.clone());
            *field = None;
            return Some(set);
        }
        KeyCode::Char(c) if !ctrl => inp.text.push(c),
        _ => return None,
    }
    Some(Command::SetText(inp.target, inp.text.clone()))
}

/// Pasted text, made one safe line; None when the field is not open.
pub fn paste(field: &mut Option<LineInput>, text: &str) -> Option<Command> {
    let inp = field.as_mut()?;
    inp.text.push_str(&safe_row(text));
    Some(Command::SetText(inp.target, inp.text.clone()))
}
