//! Messages into the App: the handshake, the tool list, effects' results,
//! findings. Like keys, they change the state without the store; a failed
//! call is the one that reads it (in the sync step, as a `Command`).

use super::App;
use super::Then;
use crate::client::TokenPolicy;
use crate::client::tasks::TaskSupport;
use crate::protocol::Revision;
use crate::protocol::views::InitializeResult;
use crate::tui::action::{Effect, Msg};
use crate::tui::browse::Req;
use crate::tui::command::Command;
use crate::tui::format::{safe, safe_row};
use crate::tui::panes::tools::ToolInfo;
use crate::tui::shell::Conn;
use serde_json::Value;

impl App {
    pub fn on_msg(&mut self, msg: Msg) -> Vec<Effect> {
        self.dirty = true;
        let now_us = self.trace().now_us();
        match msg {
            Msg::Handshake(Ok(init)) => {
                self.restart.restarting = false;
                self.shell.conn = Conn::Ready;
                self.set_server(&init);
                let stateless =
                    init.protocol_version.parse::<Revision>().ok() >= Some(Revision::V2026_07_28);
                self.panes
                    .composer
                    .level_for_session(stateless, init.has_capability("logging"));
            }
            Msg::Handshake(Err(e)) => {
                self.restart.restarting = false;
                let e = safe_row(&e);
                self.panes.tools.loading = false;
                self.shell.notice = Some(format!("connection failed: {e}"));
                self.shell.conn = Conn::Failed(e);
            }
            Msg::Tools(Ok(tools)) => {
                self.set_tools(&tools);
                self.effects = self.fire_runs();
            }
            Msg::Tools(Err(e)) => {
                self.panes.tools.loading = false;
                self.panes.tools.error = Some(safe_row(&e));
                self.effects = self.fire_runs();
            }
            Msg::CallPrepared { id, limits } => self.panes.progress.calls.expect(id, limits),
            // What ended the call (a cancel, the server's exit) is already in
            // the store: the sync step sees it first, so the final state names the cause.
            Msg::CallFailed { id, why } => self.queued.push(Command::FailCall { id, why }),
            // Like a stdio server's exit: the restart key is offered.
            Msg::ServerLost(why) if self.shell.live && !self.restart.restarting => {
                self.shell.conn = Conn::Failed(format!("unreachable: {}", safe_row(&why)));
            }
            Msg::ServerLost(_) => {}
            Msg::Notice(n) => self.shell.notice = Some(safe_row(&n)),
            Msg::Findings(fresh) => self.add_findings(fresh),
            Msg::Roots(r) => self.overlays.asks.roots = r,
            Msg::Browse(Req::Complete { round, .. }, result) => {
                if let Some(f) = &mut self.overlays.argform {
                    f.on_values(round, result);
                }
            }
            Msg::Browse(req, result) => {
                if let Some(n) = self.panes.tools.browse.on_reply(req, result) {
                    self.shell.notice = Some(n);
                }
            }
            Msg::Intercept(ev) => {
                if let Some(ic) = self.overlays.intercept.as_mut() {
                    let n = match ev {
                        crate::intercept::client::Event::Report(r) => ic.on_report(r, now_us),
                        crate::intercept::client::Event::Closed(why) => Some(ic.on_closed(&why)),
                    };
                    if let Some(n) = n {
                        self.shell.notice = Some(safe_row(&n));
                    }
                }
            }
            Msg::Restarted { attempt, seq } => {
                self.restart.marker = Some(seq);
                self.restart.count = self.restart.count.max(attempt);
            }
            Msg::ServerAsk(a) => {
                // The status line's ⚑ says it is waiting, and the key: no
                // notice repeats it.
                let ask = crate::tui::overlays::asks::Ask::new(&a, now_us);
                self.overlays.asks.push(ask);
            }
        }
        self.finish(Then::Nothing)
    }

    pub fn set_server(&mut self, init: &InitializeResult) {
        let s = &mut self.shell.server;
        // A server that names itself nowhere keeps the name the session
        // was started with (the spec's, or the recording's), not `?`.
        if init.names_server() {
            s.name = safe(init.server_name(), 60);
        }
        s.version = safe(init.server_version(), 30);
        s.revision = safe(&init.protocol_version, 30);
        s.capabilities = init
            .capabilities
            .as_object()
            .map(|o| o.keys().map(|k| safe(k, 30)).collect())
            .unwrap_or_default();
        s.instructions = init.instructions.as_deref().map(safe_row);
        self.panes.tools.browse.caps =
            crate::tui::browse::Caps::of(&init.capabilities, &init.protocol_version);
    }

    pub fn set_tools(&mut self, tools: &[Value]) {
        let st = &mut self.panes;
        let text = |v: &Value, k: &str, n: usize| {
            v.get(k)
                .and_then(Value::as_str)
                .map(|s| safe(s, n))
                .unwrap_or_default()
        };
        st.tools.all = tools
            .iter()
            .map(|t| ToolInfo {
                name: t
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                label: text(t, "name", 80),
                title: text(t, "title", 80),
                // Kept whole (sanitised per line when drawn): descriptions are multi-line.
                description: t
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                schema: t.get("inputSchema").cloned().unwrap_or(Value::Null),
                task: TaskSupport::of_tool(t),
            })
            .collect();
        st.tools.loading = false;
        st.tools.error = None;
        st.tools.refilter();
        if st.composer.tool.is_none()
            && let Some(t) = st.tools.selected().cloned()
        {
            st.composer.load_tool(&t.name, &t.schema, &self.shell.theme);
        }
    }

    fn fire_runs(&mut self) -> Vec<Effect> {
        let runs = std::mem::take(&mut self.runs);
        let first = runs.first().map(|(tool, _)| tool.clone());
        let mut out = Vec::new();
        for (tool, args) in runs {
            let st = &mut self.panes;
            st.composer.remember_sent(&tool, &args, &self.shell.theme);
            if !st.tools.all.is_empty() && !st.tools.all.iter().any(|t| t.name == tool) {
                self.shell.notice = Some(format!(
                    "--run: the server lists no tool {tool:?}; sending anyway"
                ));
            }
            // A tool that requires it runs as a task; `--run` asks no more.
            let task = self.panes.tools.task_support(&tool) == TaskSupport::Required;
            out.push(Effect::Call {
                tool,
                args,
                token: TokenPolicy::AutoString,
                // The session's level: none in the handshake era (the
                // server's own default), every level from a stateless
                // server that logs (see `level_for_session`).
                level: self.run_level.or(self.panes.composer.level),
                limits: self.default_limits,
                task,
            });
        }
        // The composer opens on the first call the user asked for, showing
        // what it sent (the user has not touched it yet: the tools just came).
        let st = &mut self.panes;
        if let Some(first) = first
            && !st.composer.editing
            && st.composer.tool.as_deref() != Some(first.as_str())
            && let Some(t) = st.tools.all.iter().find(|t| t.name == first)
        {
            st.composer.load_tool(&t.name, &t.schema, &self.shell.theme);
        }
        out
    }
}
