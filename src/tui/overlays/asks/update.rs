//! Keys of the server-request overlay. It takes every key while open:
//! Enter (or Ctrl-S) accepts, Ctrl-N declines, Ctrl-X cancels, Esc hides it
//! with the request still waiting. In a form, Up/Down/Tab move between
//! fields, Space and Left/Right change a boolean or a choice, other keys
//! type into a text or number field. A sampling reply is typed (Enter is a
//! new line there; Ctrl-S sends it).

use super::Route;
use super::{AskKind, Asks, Choice, Input};
use crate::tui::action::Effect;
use crate::tui::input_rounds::{Rounds, Step};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What the overlay's keys change: the queue, the `input_required` rounds
/// its answers go into, and the notice they leave for the status line.
pub struct AsksCx<'a> {
    pub asks: &'a mut Asks,
    pub rounds: &'a mut Rounds,
    pub notice: Option<String>,
}

pub fn key(st: &mut AsksCx, ev: KeyEvent) -> Vec<Effect> {
    let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    let Some(ask) = st.asks.current() else {
        st.asks.open = false;
        return Vec::new();
    };
    let sampling = matches!(ask.kind, AskKind::Sampling(_));
    let choice = match ev.code {
        KeyCode::Esc => {
            st.asks.open = false;
            return Vec::new();
        }
        KeyCode::Char('s') if ctrl => Some(Choice::Accept),
        KeyCode::Enter if !sampling => Some(Choice::Accept),
        KeyCode::Char('n') if ctrl => Some(Choice::Decline),
        KeyCode::Char('x') if ctrl => Some(Choice::Cancel),
        _ => None,
    };
    if let Some(c) = choice {
        return match st.asks.answer(c) {
            Some((id, Route::Server, answer)) => {
                st.notice = Some(match c {
                    Choice::Accept => "answer sent".into(),
                    Choice::Decline => "declined".into(),
                    Choice::Cancel => "cancelled".into(),
                });
                vec![Effect::AnswerServer { id, answer }]
            }
            Some((_, Route::Input { call, key }, answer)) => {
                match st.rounds.answer(&call, &key, answer) {
                    Step::Waiting(n) => {
                        let then = if st.rounds.is_task(&call) {
                            "tasks/update"
                        } else {
                            "the retry"
                        };
                        st.notice = Some(format!(
                            "{key} answered; {n} more for id {call} before {then}"
                        ));
                        Vec::new()
                    }
                    Step::Retry(e) => {
                        let update = matches!(&e, Effect::Raw { method, .. }
                            if method == crate::protocol::methods::TASKS_UPDATE);
                        st.notice = Some(if update {
                            format!("answered: the task of id {call} got its inputs (tasks/update)")
                        } else {
                            format!("answered: id {call} retried with its inputs")
                        });
                        vec![e]
                    }
                    Step::Abandoned(why) => {
                        st.rounds.forget(&call);
                        st.asks.drop_round(&call);
                        st.notice =
                            Some(format!("{why}; a in Progress composes the retry by hand"));
                        Vec::new()
                    }
                    Step::TaskWaits(update, why) => {
                        st.rounds.forget(&call);
                        st.asks.drop_round(&call);
                        let sent = if update.is_some() {
                            "; the other answers went as tasks/update"
                        } else {
                            ""
                        };
                        st.notice = Some(format!("{why}{sent}; c in Progress cancels the task"));
                        update.into_iter().collect()
                    }
                }
            }
            None => Vec::new(),
        };
    }
    match &mut ask.kind {
        AskKind::Sampling(s) => {
            s.reply.input(ev);
        }
        AskKind::Url { url, .. } => {
            if ev.code == KeyCode::Char('o') {
                return vec![Effect::OpenUrl(url.clone())];
            }
        }
        AskKind::Form(f) => form_key(f, ev),
        AskKind::Unusable { .. } | AskKind::Roots => {}
    }
    Vec::new()
}

/// Keys of the roots editor: Ctrl-S keeps the list, Esc drops the edit,
/// everything else edits (one root per line).
pub fn roots_key(st: &mut AsksCx, ev: KeyEvent) -> Vec<Effect> {
    let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    match ev.code {
        KeyCode::Esc => {
            st.asks.roots_editor = None;
            Vec::new()
        }
        KeyCode::Char('s') if ctrl => match st.asks.save_roots() {
            Some(roots) => {
                st.notice = Some(format!("{} roots offered", roots.len()));
                vec![Effect::SetRoots(roots)]
            }
            None => Vec::new(),
        },
        _ => {
            if let Some(t) = st.asks.roots_editor.as_mut() {
                t.input(ev);
            }
            Vec::new()
        }
    }
}

pub(crate) fn form_key(f: &mut super::Form, ev: KeyEvent) {
    let n = f.fields.len();
    if n == 0 {
        return;
    }
    match ev.code {
        KeyCode::Up | KeyCode::BackTab => {
            f.cursor = (f.cursor + n - 1) % n;
            return;
        }
        KeyCode::Down | KeyCode::Tab => {
            f.cursor = (f.cursor + 1) % n;
            return;
        }
        _ => {}
    }
    let step: isize = match ev.code {
        KeyCode::Left => -1,
        KeyCode::Right | KeyCode::Char(' ') => 1,
        _ => 0,
    };
    let choices = match &f.fields[f.cursor].kind {
        crate::protocol::elicit::Kind::Select(c) => c.len(),
        crate::protocol::elicit::Kind::MultiSelect { choices, .. } => choices.len(),
        _ => 0,
    };
    match &mut f.inputs[f.cursor] {
        Input::Typed(t) if ev.code != KeyCode::Enter => {
            t.input(ev);
        }
        Input::Bool(b) if step != 0 => *b = !*b,
        Input::Choice(i) if step != 0 && choices > 0 => {
            let cur = i.map_or(if step > 0 { choices - 1 } else { 0 }, |i| i);
            *i = Some((cur as isize + step).rem_euclid(choices as isize) as usize);
        }
        Input::Multi(on, at) if choices > 0 => match ev.code {
            KeyCode::Left => *at = (*at + choices - 1) % choices,
            KeyCode::Right => *at = (*at + 1) % choices,
            KeyCode::Char(' ') => on[*at] = !on[*at],
            _ => {}
        },
        _ => {}
    }
    f.problems.clear();
}
