//! Input of the Tools pane's Resources and Prompts tabs: switching tabs
//! (a key, or a click on the tab's name in the pane's title), moving in a
//! list, opening an item (read a resource; a template or a prompt with
//! arguments opens the argument form first), subscribing, listing again,
//! and scrolling the detail view.

use super::ToolsState;
use super::browse_view::tab_at;
use crate::tui::action::Effect;
use crate::tui::browse::{Req, Row, Tab};
use crate::tui::command::{Command, Commands};
use crate::tui::overlays::argform::ArgForm;
use crate::tui::panes::Cx;
use crate::tui::screen::View;
use ratatui::layout::Rect;

fn send(out: &mut Commands, reqs: Vec<Req>) {
    out.extend(reqs.into_iter().map(|r| Command::Effect(Effect::Browse(r))));
}

impl ToolsState {
    /// Show `tab`, fetching its lists the first time.
    pub fn show(&mut self, tab: Tab, live: bool, out: &mut Commands) {
        if live {
            let reqs = self.browse.show(tab);
            send(out, reqs);
        } else {
            // A recorded trace: nothing to ask (and nothing loading).
            self.browse.tab = tab;
            self.browse.detail_focus = false;
        }
        self.not_declared(live, out);
    }

    /// Say so when the server offers nothing for the tab shown.
    fn not_declared(&self, live: bool, out: &mut Commands) {
        let b = &self.browse;
        let missing = match b.tab {
            Tab::Resources if !b.caps.resources => Some("resources"),
            Tab::Prompts if !b.caps.prompts => Some("prompts"),
            _ => None,
        };
        if let Some(m) = missing
            && live
        {
            out.push(Command::Notice(format!(
                "the server did not declare the {m} capability"
            )));
        }
    }

    pub fn step(&mut self, forward: bool, live: bool) -> Commands {
        let mut out = Vec::new();
        let tab = self.browse.tab.step(forward);
        self.show(tab, live, &mut out);
        out
    }

    /// A click on the pane's title: the tab under it, if any.
    pub fn click_title(&mut self, v: &View, x: u16, area: Rect, out: &mut Commands) -> bool {
        let live = v.shell.live;
        match tab_at(v, area, x) {
            Some(tab) => {
                self.show(tab, live, out);
                true
            }
            None => false,
        }
    }

    /// Enter: read the resource, or open the form a template or prompt needs.
    pub fn open(&mut self, now_us: u64) -> Commands {
        let mut out = Vec::new();
        let out = &mut out;
        let caps = self.browse.caps;
        let b = &mut self.browse;
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
                out.push(Command::OpenForm(Box::new(f)));
            }
            Some(Err(e)) => out.push(Command::Notice(format!("no form for it: {e}"))),
            None => {}
        }
        std::mem::take(out)
    }

    /// `s`: subscribe to the selected resource, or unsubscribe.
    pub fn subscribe(&mut self) -> Commands {
        let mut out = Vec::new();
        let st = self;
        if st.browse.tab != Tab::Resources {
            return out;
        }
        if !st.browse.caps.subscribe {
            out.push(Command::Notice(
                "the server did not declare resources.subscribe".into(),
            ));
            return out;
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
                send(&mut out, vec![req]);
            }
            Some(Row::Template(_)) => {
                out.push(Command::Notice(
                    "a template cannot be subscribed to: read one of its URIs".into(),
                ));
            }
            None => {}
        }
        out
    }

    /// `r`: list the tab's items again.
    pub fn refresh(&mut self, live: bool) -> Commands {
        let mut out = Vec::new();
        let reqs = match self.browse.tab {
            Tab::Resources => self.browse.load_resources(),
            Tab::Prompts => self.browse.load_prompts(),
            Tab::Tools => Vec::new(),
        };
        send(&mut out, reqs);
        self.not_declared(live, &mut out);
        out
    }

    /// The tab's text filter (`/`); lists are in memory, so it applies at once.
    pub fn browse_set_filter(&mut self, text: &str) {
        match self.browse.tab {
            Tab::Resources => self.browse.resources.set_filter(text),
            Tab::Prompts => self.browse.prompts.set_filter(text),
            Tab::Tools => {}
        }
    }

    /// The filter text of the tab shown.
    pub fn browse_filter_text(&self) -> String {
        match self.browse.tab {
            Tab::Resources => self.browse.resources.filter.clone(),
            Tab::Prompts => self.browse.prompts.filter.clone(),
            Tab::Tools => String::new(),
        }
    }

    /// Esc: from the detail view back to the list. True if it was there.
    pub fn back(&mut self) -> bool {
        std::mem::take(&mut self.browse.detail_focus)
    }

    pub fn browse_scroll(&mut self, delta: isize, cx: &Cx) {
        // The detail view: inside the border, below the tabs' status row.
        let (w, h) = cx.area.map_or((1, 1), |r| {
            (
                r.width.saturating_sub(2) as usize,
                r.height.saturating_sub(3) as usize,
            )
        });
        let b = &mut self.browse;
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

    pub fn browse_click(&mut self, item: Option<usize>) {
        let b = &mut self.browse;
        let Some(i) = item else { return };
        b.detail_focus = false;
        match b.tab {
            Tab::Resources if i < b.resources.len() => b.resources.cursor.selected = i,
            Tab::Prompts if i < b.prompts.len() => b.prompts.cursor.selected = i,
            _ => {}
        }
    }
}
