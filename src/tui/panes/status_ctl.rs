//! The status line's text field: filters and the raw search apply while
//! typing, Enter keeps the text, Esc (or Ctrl-C) restores what was there.

use crate::tui::format::safe_row;
use crate::tui::state::{InputTarget, LineInput, State};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Open the field for `target`, starting from its current text.
pub fn start_input(st: &mut State, target: InputTarget) {
    let before = match target {
        InputTarget::ToolsFilter => st.tools.filter.clone(),
        InputTarget::BrowseFilter => super::browse_ctl::filter_text(st),
        InputTarget::TimelineFilter => st.timeline.view.text.clone(),
        InputTarget::LogsFilter => st.logs.view.text.clone(),
        InputTarget::RawSearch => st.raw.search.clone(),
        InputTarget::CustomToken => st.composer.custom_token.clone(),
    };
    st.input = Some(LineInput {
        target,
        text: before.clone(),
        before,
    });
}

/// A key while the field is open. Returns true when the text changed (its
/// target was updated: the caller syncs so the rows show at once).
pub fn key(st: &mut State, ev: KeyEvent) -> bool {
    let Some(inp) = &mut st.input else {
        return false;
    };
    let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    match ev.code {
        KeyCode::Enter => {
            st.input = None;
            return false;
        }
        KeyCode::Esc => {
            inp.text = inp.before.clone();
            changed(st);
            st.input = None;
            return true;
        }
        KeyCode::Backspace => {
            inp.text.pop();
        }
        KeyCode::Char('u') if ctrl => inp.text.clear(),
        KeyCode::Char('c') if ctrl => {
            inp.text = inp.before.clone();
            changed(st);
            st.input = None;
            return true;
        }
        KeyCode::Char(c) if !ctrl => inp.text.push(c),
        _ => return false,
    }
    changed(st);
    true
}

/// Pasted text, made one safe line. Returns true when the field was open.
pub fn paste(st: &mut State, text: &str) -> bool {
    let Some(inp) = &mut st.input else {
        return false;
    };
    inp.text.push_str(&safe_row(text));
    changed(st);
    true
}

/// Filters apply while typing.
fn changed(st: &mut State) {
    let Some(inp) = st.input.clone() else {
        return;
    };
    match inp.target {
        InputTarget::ToolsFilter => super::tools_ctl::set_text(st, &inp.text),
        InputTarget::BrowseFilter => super::browse_ctl::set_filter(st, &inp.text),
        InputTarget::TimelineFilter => {
            let kind = st.timeline.view.kind;
            st.timeline.view.set_filter(kind, &inp.text);
        }
        InputTarget::LogsFilter => super::logs_ctl::set_text(st, &inp.text),
        InputTarget::RawSearch => super::raw_ctl::set_search(st, inp.text),
        InputTarget::CustomToken => {
            st.composer.custom_token = inp.text;
            st.composer.token = crate::tui::compose::TokenMode::Custom;
        }
    }
}
