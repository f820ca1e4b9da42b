//! Input of the Tools pane's Resources and Prompts tabs: switching tabs
//! (a key, or a click on the tab's name in the pane's title), moving in a
//! list, opening an item (read a resource; a template or a prompt with
//! arguments opens the argument form first), subscribing, listing again,
//! and scrolling the detail view.

use crate::tui::action::Effect;
use crate::tui::argform::ArgForm;
use crate::tui::browse::{Req, Row, Tab};
use crate::tui::panes::browse::{detail_size, tab_at};
use crate::tui::panes::ctl::Out;
use crate::tui::state::State;
use ratatui::layout::Rect;

fn send(out: &mut Out, reqs: Vec<Req>) {
    out.effects.extend(reqs.into_iter().map(Effect::Browse));
}

/// Show `tab`, fetching its lists the first time.
pub fn show(st: &mut State, tab: Tab, out: &mut Out) {
    if st.live {
        let reqs = st.browse.show(tab);
        send(out, reqs);
    } else {
        // A recorded trace: nothing to ask (and nothing loading).
        st.browse.tab = tab;
        st.browse.detail_focus = false;
    }
    not_declared(st);
}

/// Say so when the server offers nothing for the tab shown.
fn not_declared(st: &mut State) {
    let b = &st.browse;
    let missing = match b.tab {
        Tab::Resources if !b.caps.resources => Some("resources"),
        Tab::Prompts if !b.caps.prompts => Some("prompts"),
        _ => None,
    };
    if let Some(m) = missing
        && st.live
    {
        st.notice = Some(format!("the server did not declare the {m} capability"));
    }
}

pub fn step(st: &mut State, forward: bool, out: &mut Out) {
    let tab = st.browse.tab.step(forward);
    show(st, tab, out);
}

/// A click on the pane's title: the tab under it, if any.
pub fn click_title(st: &mut State, x: u16, area: Rect, out: &mut Out) -> bool {
    match tab_at(st, area, x) {
        Some(tab) => {
            show(st, tab, out);
            true
        }
        None => false,
    }
}

/// Enter: read the resource, or open the form a template or prompt needs.
pub fn open(st: &mut State, now_us: u64, out: &mut Out) {
    let caps = st.browse.caps;
    let b = &mut st.browse;
    let mut form = None;
    match b.tab {
        Tab::Tools => {}
        Tab::Resources => match b.resources.selected() {
            Some(Row::Resource(r)) => {
                let uri = r.uri.clone();
                b.detail_focus = true;
                b.resources.detail = None;
                send(out, vec![Req::Read { uri }]);
            }
            Some(Row::Template(t))
                if crate::tui::browse::template::variables(&t.template).is_empty() =>
            {
                // Nothing to fill in: the template is the URI.
                let uri = t.template.clone();
                b.detail_focus = true;
                b.resources.detail = None;
                send(out, vec![Req::Read { uri }]);
            }
            Some(Row::Template(t)) => {
                form = Some(ArgForm::template(
                    &t.template,
                    &t.description,
                    caps.completions,
                    caps.context,
                ));
            }
            None => {}
        },
        Tab::Prompts => {
            if let Some(p) = b.prompts.selected() {
                if p.args.is_empty() {
                    let name = p.name.clone();
                    b.detail_focus = true;
                    b.prompts.detail = None;
                    send(
                        out,
                        vec![Req::GetPrompt {
                            name,
                            args: Default::default(),
                        }],
                    );
                } else {
                    form = Some(ArgForm::prompt(
                        &p.name,
                        &p.description,
                        &p.args,
                        caps.completions,
                        caps.context,
                    ));
                }
            }
        }
    }
    match form {
        Some(Ok(mut f)) => {
            f.touched(now_us);
            st.browse.form = Some(f);
        }
        Some(Err(e)) => st.notice = Some(format!("no form for it: {e}")),
        None => {}
    }
}

/// `s`: subscribe to the selected resource, or unsubscribe.
pub fn subscribe(st: &mut State, out: &mut Out) {
    if st.browse.tab != Tab::Resources {
        return;
    }
    if !st.browse.caps.subscribe {
        st.notice = Some("the server did not declare resources.subscribe".into());
        return;
    }
    match st.browse.resources.selected() {
        Some(Row::Resource(r)) => {
            let (uri, on) = (r.uri.clone(), !r.subscribed);
            let req = if st.browse.caps.stateless {
                // One listen stream carries every watched resource: the new
                // set replaces it.
                let mut uris: Vec<String> = st
                    .browse
                    .resources
                    .resources
                    .items
                    .iter()
                    .filter(|r| r.subscribed && r.uri != uri)
                    .map(|r| r.uri.clone())
                    .collect();
                if on {
                    uris.push(uri.clone());
                }
                Req::Watch { uri, on, uris }
            } else {
                Req::Subscribe { uri, on }
            };
            send(out, vec![req]);
        }
        Some(Row::Template(_)) => {
            st.notice = Some("a template cannot be subscribed to: read one of its URIs".into());
        }
        None => {}
    }
}

/// `r`: list the tab's items again.
pub fn refresh(st: &mut State, out: &mut Out) {
    let reqs = match st.browse.tab {
        Tab::Resources => st.browse.load_resources(),
        Tab::Prompts => st.browse.load_prompts(),
        Tab::Tools => Vec::new(),
    };
    send(out, reqs);
    not_declared(st);
}

/// The tab's text filter (`/`); lists are in memory, so it applies at once.
pub fn set_filter(st: &mut State, text: &str) {
    match st.browse.tab {
        Tab::Resources => st.browse.resources.set_filter(text),
        Tab::Prompts => st.browse.prompts.set_filter(text),
        Tab::Tools => {}
    }
}

/// The filter text of the tab shown.
pub fn filter_text(st: &State) -> String {
    match st.browse.tab {
        Tab::Resources => st.browse.resources.filter.clone(),
        Tab::Prompts => st.browse.prompts.filter.clone(),
        Tab::Tools => String::new(),
    }
}

/// Esc: from the detail view back to the list. True if it was there.
pub fn back(st: &mut State) -> bool {
    std::mem::take(&mut st.browse.detail_focus)
}

pub fn scroll(st: &mut State, delta: isize) {
    let (w, h) = detail_size(st);
    let b = &mut st.browse;
    if b.detail_focus {
        let d = match b.tab {
            Tab::Resources => b.resources.detail.as_mut(),
            Tab::Prompts => b.prompts.detail.as_mut(),
            Tab::Tools => None,
        };
        if let Some(d) = d {
            d.scroll_by(delta, w, h);
        }
        return;
    }
    match b.tab {
        Tab::Resources => {
            let n = b.resources.len();
            b.resources.cursor.move_by(delta, n);
        }
        Tab::Prompts => {
            let n = b.prompts.len();
            b.prompts.cursor.move_by(delta, n);
        }
        Tab::Tools => {}
    }
}

pub fn click(st: &mut State, item: Option<usize>) {
    let b = &mut st.browse;
    let Some(i) = item else { return };
    b.detail_focus = false;
    match b.tab {
        Tab::Resources if i < b.resources.len() => b.resources.cursor.selected = i,
        Tab::Prompts if i < b.prompts.len() => b.prompts.cursor.selected = i,
        _ => {}
    }
}

/// Sync step: keep each list's window around its cursor.
pub fn settle(st: &mut State) {
    let h = crate::tui::layout::list_height(st, crate::tui::state::Pane::Tools);
    let b = &mut st.browse;
    let n = b.resources.len();
    b.resources.cursor.settle(n, h);
    let n = b.prompts.len();
    b.prompts.cursor.settle(n, h);
}
