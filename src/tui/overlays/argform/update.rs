//! Keys of the argument form. It takes every key while open. With
//! completion values shown under the field: Up/Down choose one, Tab (or
//! Enter on a chosen one) puts it in the field, Esc hides them. Otherwise
//! Up/Down/Tab move between fields, Enter sends (the prompt is got, the
//! template's URI read), Esc closes the form. Other keys type; a change
//! (or entering a field) asks for completions once typing pauses.

use super::ArgForm;
use crate::tui::action::Effect;
use crate::tui::browse::Browse;
use crate::tui::browse::{Req, Tab};
use crossterm::event::{KeyCode, KeyEvent};

pub fn key(
    form: &mut Option<ArgForm>,
    browse: &mut Browse,
    ev: KeyEvent,
    now_us: u64,
) -> Vec<Effect> {
    let Some(f) = form.as_mut() else {
        return Vec::new();
    };
    match ev.code {
        KeyCode::Esc => {
            if !f.hide() {
                *form = None;
            }
            return Vec::new();
        }
        KeyCode::Enter => {
            let picked = f.complete.as_ref().is_some_and(|c| c.pick.is_some());
            if picked && f.take_pick() {
                return Vec::new();
            }
            let Some(req) = f.submit() else {
                return Vec::new();
            };
            *form = None;
            browse.detail_focus = true;
            match (&req, browse.tab) {
                (Req::Read { .. }, Tab::Resources) => browse.resources.detail = None,
                (Req::GetPrompt { .. }, Tab::Prompts) => browse.prompts.detail = None,
                _ => {}
            }
            return vec![Effect::Browse(req)];
        }
        KeyCode::Tab if f.take_pick() => return Vec::new(),
        KeyCode::Down if f.move_pick(1) => return Vec::new(),
        KeyCode::Up if f.move_pick(-1) => return Vec::new(),
        _ => {}
    }
    let (field, before) = (f.form.cursor, f.value(f.form.cursor));
    crate::tui::overlays::asks::update::form_key(&mut f.form, ev);
    if f.form.cursor != field || f.value(field) != before {
        f.touched(now_us);
    }
    Vec::new()
}

/// Completions due at `now_us` (the debounce ran out): the request to send.
pub fn due(form: &mut Option<ArgForm>, now_us: u64) -> Option<Effect> {
    let f = form.as_mut()?;
    let (round, params) = f.due(now_us)?;
    Some(Effect::Browse(Req::Complete { round, params }))
}

/// Pasted text goes into the focused field (one line: line breaks become
/// spaces), and asks for its completions like typing does.
pub fn paste(form: &mut Option<ArgForm>, text: &str, now_us: u64) {
    let Some(f) = form.as_mut() else {
        return;
    };
    let line: String = text
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect();
    if let Some(crate::tui::overlays::asks::Input::Typed(t)) = f.form.inputs.get_mut(f.form.cursor)
    {
        t.insert_str(line);
        f.form.problems.clear();
        f.touched(now_us);
    }
}
