//! Keys while the Intercept overlay is open. The overlay's own bindings
//! are the `intercept` context's; moving, closing, help and quit are the
//! global ones; its editor takes the Composer's editor keys (send, stop).
//! Nothing changes a row here: a command is sent, and the proxy's report
//! changes the row.

use super::{BreakInput, Editing, Editor, Intercept, compact, for_editing};
use crate::intercept::protocol::{Command as Ctl, Side};
use crate::tui::action::{Action, Effect};
use crate::tui::command::Command;
use crate::tui::format::safe_row;
use crate::tui::keymap::{Context, Key, Keymap};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::TextArea;

/// What a key did.
pub enum Outcome {
    Done(Vec<Command>),
    /// A global action the App performs (help, quit).
    Global(Action),
}

fn send(c: Ctl) -> Command {
    Command::Effect(Effect::Intercept(c))
}

fn notice(s: impl Into<String>) -> Vec<Command> {
    vec![Command::Notice(s.into())]
}

pub fn key(
    ic: &mut Intercept,
    keymap: &Keymap,
    ev: KeyEvent,
    theme_base: ratatui::style::Style,
) -> Outcome {
    let key = Key::from_event(&ev);
    if ic.input.is_some() {
        return Outcome::Done(break_key(ic, ev));
    }
    if ic.editor.is_some() {
        return Outcome::Done(editor_key(ic, keymap, key, ev));
    }
    let action = keymap
        .lookup(Context::Intercept, key)
        .or_else(|| keymap.lookup(Context::Global, key));
    let Some(a) = action else {
        return Outcome::Done(Vec::new());
    };
    let n = ic.held.len();
    let step = |ic: &mut Intercept, d: isize| {
        if n > 0 {
            ic.selected = ic.selected.saturating_add_signed(d).min(n - 1);
        }
    };
    let lost = ic.lost.is_some();
    let cmds = match a {
        Action::Help | Action::Quit => return Outcome::Global(a),
        Action::Back | Action::Intercept => {
            ic.open = false;
            Vec::new()
        }
        Action::Up => {
            step(ic, -1);
            Vec::new()
        }
        Action::Down => {
            step(ic, 1);
            Vec::new()
        }
        Action::PageUp => {
            step(ic, -10);
            Vec::new()
        }
        Action::PageDown => {
            step(ic, 10);
            Vec::new()
        }
        Action::Top => {
            ic.selected = 0;
            Vec::new()
        }
        Action::Bottom => {
            ic.selected = n.saturating_sub(1);
            Vec::new()
        }
        _ if lost => notice("the intercept connection is closed: nothing can be sent"),
        Action::SetBreakpoint => {
            let text = ic.filter.clone().unwrap_or_default();
            let mut input = BreakInput { text, error: None };
            check(&mut input);
            ic.input = Some(input);
            Vec::new()
        }
        Action::ClearBreakpoint => vec![send(Ctl::Break { filter: None })],
        Action::ForwardHeld | Action::DropHeld | Action::EditHeld => {
            let Some(h) = ic.held.get_mut(ic.selected) else {
                return Outcome::Done(notice("nothing is held"));
            };
            let id = h.id;
            match a {
                Action::ForwardHeld => {
                    h.asked = Some("forwarding");
                    vec![send(Ctl::Forward { id, message: None })]
                }
                Action::DropHeld => {
                    h.asked = Some("dropping");
                    vec![send(Ctl::Drop { id })]
                }
                _ => {
                    let lines = for_editing(&h.message);
                    ic.editor = Some(editor(Editing::Forward(id), lines, theme_base));
                    Vec::new()
                }
            }
        }
        Action::Forge => {
            let lines = for_editing(super::FORGE_TEMPLATE);
            ic.editor = Some(editor(Editing::Forge(Side::Host), lines, theme_base));
            Vec::new()
        }
        _ => Vec::new(),
    };
    Outcome::Done(cmds)
}

fn editor(kind: Editing, lines: Vec<String>, base: ratatui::style::Style) -> Editor {
    let mut t = TextArea::new(lines);
    t.set_style(base);
    t.set_cursor_line_style(ratatui::style::Style::default());
    t.set_tab_length(2);
    Editor {
        kind,
        text: Box::new(t),
        error: None,
    }
}

fn editor_key(ic: &mut Intercept, keymap: &Keymap, key: Key, ev: KeyEvent) -> Vec<Command> {
    let Some(ed) = ic.editor.as_mut() else {
        return Vec::new();
    };
    match keymap.lookup(Context::Editor, key) {
        Some(Action::StopEdit) => {
            ic.editor = None;
            return Vec::new();
        }
        Some(Action::Send) => {
            let text = ed.text.lines().join("\n");
            let message = match compact(&text) {
                Ok(m) => m,
                // Said once; sent as typed when asked again unchanged (a
                // broken line on purpose: the proxy makes its line breaks
                // spaces).
                Err(_) if ed.error.is_some() => text,
                Err(e) => {
                    ed.error = Some(format!(
                        "not JSON, sent as typed if sent again: {}",
                        safe_row(&e)
                    ));
                    return notice("not sent: the message is no JSON");
                }
            };
            let kind = ed.kind;
            ic.editor = None;
            return match kind {
                Editing::Forward(id) => {
                    if let Some(h) = ic.held.iter_mut().find(|h| h.id == id) {
                        h.asked = Some("forwarding edited");
                    }
                    vec![send(Ctl::Forward {
                        id,
                        message: Some(message),
                    })]
                }
                Editing::Forge(to) => vec![send(Ctl::Forge { to, message })],
            };
        }
        _ => {}
    }
    if keymap.lookup(Context::Intercept, key) == Some(Action::ForgeSide)
        && key.mods.contains(KeyModifiers::CONTROL)
    {
        if let Editing::Forge(to) = ed.kind {
            let other = match to {
                Side::Host => Side::Server,
                Side::Server => Side::Host,
            };
            ed.kind = Editing::Forge(other);
            return notice(format!("forging to the {}", other.name()));
        }
        return Vec::new();
    }
    if ed.text.input(ev) {
        ed.error = None;
    }
    Vec::new()
}

/// The breakpoint's line: parsed as typed, so its error shows before
/// Enter; Enter sends it only when it parses (empty: no breakpoint).
fn break_key(ic: &mut Intercept, ev: KeyEvent) -> Vec<Command> {
    let Some(inp) = ic.input.as_mut() else {
        return Vec::new();
    };
    let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    match ev.code {
        KeyCode::Enter => {
            let text = inp.text.trim().to_string();
            if text.is_empty() {
                ic.input = None;
                return vec![send(Ctl::Break { filter: None })];
            }
            if inp.error.is_some() {
                return notice("not sent: the filter does not parse (see the caret)");
            }
            ic.input = None;
            return vec![send(Ctl::Break { filter: Some(text) })];
        }
        KeyCode::Esc => {
            ic.input = None;
            return Vec::new();
        }
        KeyCode::Char('c') if ctrl => {
            ic.input = None;
            return Vec::new();
        }
        KeyCode::Backspace => {
            inp.text.pop();
        }
        KeyCode::Char('u') if ctrl => inp.text.clear(),
        KeyCode::Char(c) if !ctrl => inp.text.push(c),
        _ => return Vec::new(),
    }
    check(inp);
    Vec::new()
}

fn check(inp: &mut BreakInput) {
    inp.error = if inp.text.trim().is_empty() {
        None
    } else {
        crate::filter::Filter::parse(&inp.text).err()
    };
}

/// Pasted text: into the breakpoint's line (one safe line) or the editor.
pub fn paste(ic: &mut Intercept, text: &str) {
    if let Some(inp) = ic.input.as_mut() {
        inp.text.push_str(&safe_row(text));
        check(inp);
    } else if let Some(ed) = ic.editor.as_mut() {
        // Line breaks are the editor's; other controls would act on the
        // terminal when the text is drawn.
        let clean: String = text
            .chars()
            .filter(|c| {
                *c == '\n' || !(c.is_control() || crate::protocol::sanitize::is_invisible(*c))
            })
            .collect();
        ed.text.insert_str(clean);
        ed.error = None;
    }
}
