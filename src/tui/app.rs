//! The application: state plus the trace it views (and the session, when
//! live). `apply` is the update function (action → state change + effects),
//! `sync` pulls what the store gained since the last frame, `on_msg` takes
//! results of effects. No terminal here: tests drive it with actions.

use super::action::{Action, Effect, Msg};
use super::calls::{ByteMode, Calls};
use super::compose::Composer;
use super::jsonfmt;
use super::keymap::{Context, Key, Keymap};
use super::layout::{self, Layout};
use super::replay::Playback;
use super::state::*;
use super::theme::Theme;
use crate::checks::Finding;
use crate::client::{Limits, TokenPolicy};
use crate::protocol::views::{InitializeResult, LogLevel};
use crate::trace::{Store, Trace};
use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;
use serde_json::Value;
use std::time::Duration;

/// Events a view scans per sync: a filter rebuild over a million events is
/// spread over several frames instead of freezing one.
const SYNC_BUDGET: u64 = 250_000;
/// Longest pretty-printed frame kept for the Raw pane.
const RAW_MAX_LINES: usize = 20_000;

/// What the App needs to know besides the trace.
pub struct AppOptions {
    pub theme: Theme,
    pub keymap: Keymap,
    pub fps: u32,
    pub stale_after_us: u64,
    pub idle_timeout_secs: Option<u64>,
    pub max_timeout_secs: Option<u64>,
    /// Server part of the equivalent `mcpscope call` command.
    pub server_cli: super::compose::ServerCli,
    pub spec_name: String,
    pub transport: String,
    pub recording: Option<String>,
    /// `--run` calls, fired once the tools are known.
    pub runs: Vec<(String, Value)>,
    /// False for a recorded trace: nothing can be sent.
    pub live: bool,
    /// The playback feeding the trace, for `mcpscope replay FILE`.
    pub playback: Option<Playback>,
}

impl Default for AppOptions {
    fn default() -> Self {
        AppOptions {
            theme: Theme::dark(),
            keymap: Keymap::default(),
            fps: 30,
            stale_after_us: 5_000_000,
            idle_timeout_secs: Some(60),
            max_timeout_secs: Some(600),
            server_cli: "--demo".into(),
            spec_name: "server".into(),
            transport: "stdio".into(),
            recording: None,
            runs: Vec::new(),
            live: true,
            playback: None,
        }
    }
}

pub struct App {
    pub state: State,
    trace: Trace,
    runs: Vec<(String, Value)>,
    default_limits: Limits,
    playback: Option<Playback>,
    /// Retries composed for `input_required` results (their ids count up).
    answers: u32,
    /// Something changed since the last draw.
    pub dirty: bool,
    /// A view has more to scan (a rebuild in progress).
    pub behind: bool,
    quit: bool,
}

impl App {
    pub fn new(trace: Trace, opts: AppOptions) -> App {
        let composer = Composer::new(&opts.theme, opts.idle_timeout_secs, opts.max_timeout_secs);
        let state = State {
            theme: opts.theme,
            keymap: opts.keymap,
            focus: Pane::Progress,
            zoom: false,
            help: None,
            width: 160,
            height: 50,
            now_us: 0,
            conn: if opts.live {
                Conn::Starting
            } else {
                Conn::Offline
            },
            server: ServerView {
                spec_name: opts.spec_name,
                transport: opts.transport,
                ..ServerView::default()
            },
            findings: FindingsState::default(),
            network: NetworkState {
                follow: true,
                ..NetworkState::default()
            },
            timing: Default::default(),
            progress_details: false,
            replay: opts.playback.as_ref().map(Playback::view),
            recording: opts.recording,
            events: 0,
            evicted: 0,
            tools: ToolsState {
                loading: opts.live,
                ..ToolsState::default()
            },
            composer,
            calls: Calls::default(),
            progress: Cursor::default(),
            byte_mode: ByteMode::Auto,
            stale_after_us: opts.stale_after_us,
            timeline: TimelineState {
                follow: true,
                ..TimelineState::default()
            },
            logs: LogsState {
                follow: true,
                ..LogsState::default()
            },
            raw: RawState::default(),
            raw_source: Pane::Timeline,
            input: None,
            notice: None,
            server_cli: opts.server_cli,
            live: opts.live,
            fps: opts.fps,
        };
        App {
            state,
            trace,
            runs: opts.runs,
            default_limits: Limits {
                idle: opts.idle_timeout_secs.map(Duration::from_secs),
                max: opts.max_timeout_secs.map(Duration::from_secs),
            },
            playback: opts.playback,
            answers: 0,
            dirty: true,
            behind: true,
            quit: false,
        }
    }

    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    /// Findings the checks published since the last call, in order.
    pub fn add_findings(&mut self, fresh: Vec<Finding>) {
        if !fresh.is_empty() {
            self.state.findings.add(fresh);
            self.dirty = true;
            self.behind = true;
        }
    }

    /// Let `wall` of real time pass for the replay (the runtime passes the
    /// time between ticks; tests pass what they need).
    pub fn advance_replay(&mut self, wall: Duration) {
        if let Some(p) = &mut self.playback
            && p.advance(wall)
        {
            self.state.replay = Some(p.view());
            self.dirty = true;
            self.behind = true;
        }
    }

    /// Is a replay still playing (so the runtime keeps ticking it)?
    pub fn replay_playing(&self) -> bool {
        self.playback.as_ref().is_some_and(|p| {
            let v = p.view();
            !v.paused && !v.done()
        })
    }

    pub fn resize(&mut self, width: u16, height: u16) {
        self.state.width = width;
        self.state.height = height;
        self.dirty = true;
        self.behind = true;
    }

    pub fn layout(&self) -> Layout {
        layout::compute(
            Rect::new(0, 0, self.state.width, self.state.height),
            &self.state,
        )
    }

    // ---------------------------------------------------------------- sync

    /// Pull what the store gained. Holds the read lock for one bounded pass.
    /// Returns true when a view still has work (call again next tick).
    pub fn sync(&mut self) -> bool {
        let trace = self.trace.clone();
        let store = trace.read();
        self.sync_with(&store)
    }

    pub fn sync_with(&mut self, store: &Store) -> bool {
        let st = &mut self.state;
        st.now_us = self.trace.now_us();
        let before = (st.events, st.calls.list.len());
        st.events = store.len();
        st.evicted = store.evicted();
        let mut done = st.calls.sync(store, SYNC_BUDGET);
        if let Some(why) = st.calls.exit_note.take()
            && st.live
        {
            st.conn = Conn::Exited(why);
        }
        let tl = st.timeline.view.sync(store, SYNC_BUDGET);
        st.timeline.rebuilding = !tl;
        done &= tl;
        done &= st.logs.view.sync(store, SYNC_BUDGET as usize);
        let exchanges = st.network.view.len();
        done &= st.network.view.sync(store, SYNC_BUDGET);
        if st.network.view.len() != exchanges {
            self.dirty = true;
        }
        if (st.events, st.calls.list.len()) != before || !done {
            self.dirty = true;
        }
        if st.calls.running() > 0 {
            // Elapsed times and countdowns move even without new events.
            self.dirty = true;
        }
        done &= self.settle(store);
        self.behind = !done;
        self.behind
    }

    /// Apply follow modes, clamp cursors, keep scroll hints, the Raw cache and
    /// the selected call's timing current. Returns false when the timing has
    /// more to take in (a call with very many notifications, just selected).
    fn settle(&mut self, store: &Store) -> bool {
        let st = &mut self.state;
        let h = layout::list_height(st, Pane::Timeline);
        let n = st.timeline.view.len(store);
        st.timeline.cursor.refit(n, h, st.timeline.follow);
        let h = layout::list_height(st, Pane::Logs);
        st.logs.cursor.refit(st.logs.view.len(), h, st.logs.follow);
        let h = layout::list_height(st, Pane::Progress);
        st.progress.refit(st.calls.list.len(), h, false);
        let h = layout::list_height(st, Pane::Tools);
        st.tools.cursor.settle(st.tools.visible.len(), h);
        let h = layout::list_height(st, Pane::Findings);
        st.findings.cursor.refit(st.findings.list.len(), h, false);
        let h = layout::list_height(st, Pane::Network);
        st.network
            .cursor
            .refit(st.network.view.len(), h, st.network.follow);

        // Only the selected call, and only while its details are shown.
        let mut caught_up = true;
        if st.progress_details
            && let Some(c) = st.calls.list.get(st.progress.selected)
        {
            let before = st.timing.count;
            caught_up = st.timing.sync(c, store, SYNC_BUDGET as usize);
            if st.timing.count != before {
                self.dirty = true;
            }
        }
        self.refresh_raw(store);
        caught_up
    }

    /// The event the Raw pane shows, from the list it follows.
    pub fn raw_target(&self, store: &Store) -> Option<u64> {
        let st = &self.state;
        match st.raw_source {
            Pane::Logs => st.logs.view.seq_at(st.logs.cursor.selected),
            Pane::Network => st
                .network
                .view
                .rows
                .get(st.network.cursor.selected)
                .map(|x| x.seq),
            Pane::Progress => {
                let c = st.calls.list.get(st.progress.selected)?;
                let req = store.request(crate::trace::Origin::Client, &c.id);
                if let Some(r) = req.and_then(|r| r.response_seq) {
                    return Some(r);
                }
                let last_progress = c
                    .token
                    .as_ref()
                    .and_then(|t| store.token(t))
                    .and_then(|t| t.seqs.last().copied())
                    .filter(|s| *s > c.request_seq);
                Some(last_progress.unwrap_or(c.request_seq))
            }
            _ => st.timeline.view.seq_at(st.timeline.cursor.selected, store),
        }
    }

    fn refresh_raw(&mut self, store: &Store) {
        let seq = self.raw_target(store);
        let width = layout::inner_width(&self.state, Pane::Raw).saturating_sub(1);
        let raw = &mut self.state.raw;
        let width_matters = raw.bytes_mode;
        if raw.seq == seq && (!width_matters || raw.width == width) && !raw.lines.is_empty() {
            return;
        }
        if raw.seq != seq {
            raw.scroll = 0;
        }
        raw.seq = seq;
        raw.width = width;
        let Some(ev) = seq.and_then(|s| store.get(s)) else {
            raw.lines.clear();
            raw.truncated = false;
            raw.matches.clear();
            return;
        };
        let as_json = !raw.bytes_mode && ev.kind.is_json();
        let (lines, cut) = if as_json {
            jsonfmt::pretty(&String::from_utf8_lossy(ev.bytes), RAW_MAX_LINES)
        } else {
            jsonfmt::exact_bytes(ev.bytes, width, RAW_MAX_LINES)
        };
        raw.lines = lines;
        raw.truncated = cut;
        self.research();
        self.dirty = true;
    }

    fn research(&mut self) {
        let raw = &mut self.state.raw;
        let q = raw.search.to_lowercase();
        raw.matches = if q.is_empty() {
            Vec::new()
        } else {
            raw.lines
                .iter()
                .enumerate()
                .filter(|(_, l)| jsonfmt::line_text(l).to_lowercase().contains(&q))
                .map(|(i, _)| i)
                .collect()
        };
        raw.match_idx = 0;
    }

    // ------------------------------------------------------------ messages

    pub fn on_msg(&mut self, msg: Msg) -> Vec<Effect> {
        self.dirty = true;
        let st = &mut self.state;
        match msg {
            Msg::Handshake(Ok(init)) => {
                st.conn = Conn::Ready;
                self.set_server(&init);
                Vec::new()
            }
            Msg::Handshake(Err(e)) => {
                st.conn = Conn::Failed(super::format::safe_row(&e));
                st.tools.loading = false;
                st.notice = Some(format!(
                    "connection failed: {}",
                    super::format::safe_row(&e)
                ));
                Vec::new()
            }
            Msg::Tools(Ok(tools)) => {
                self.set_tools(&tools);
                self.fire_runs()
            }
            Msg::Tools(Err(e)) => {
                st.tools.loading = false;
                st.tools.error = Some(super::format::safe_row(&e));
                self.fire_runs()
            }
            Msg::CallPrepared { id, limits } => {
                st.calls.expect(id, limits);
                Vec::new()
            }
            Msg::CallFailed { id, why } => {
                // What ended the call (a cancel, the server's exit) is already in
                // the store: see it first, so the final state names the cause.
                self.sync();
                let st = &mut self.state;
                st.calls.fail(&id, &why, st.now_us);
                Vec::new()
            }
            Msg::Notice(n) => {
                st.notice = Some(super::format::safe_row(&n));
                Vec::new()
            }
            Msg::Findings(fresh) => {
                self.add_findings(fresh);
                Vec::new()
            }
        }
    }

    pub fn set_server(&mut self, init: &InitializeResult) {
        use super::format::safe;
        let s = &mut self.state.server;
        s.name = safe(init.server_name(), 60);
        s.version = safe(init.server_version(), 30);
        s.revision = safe(&init.protocol_version, 30);
        s.capabilities = init
            .capabilities
            .as_object()
            .map(|o| o.keys().map(|k| safe(k, 30)).collect())
            .unwrap_or_default();
        s.instructions = init.instructions.as_deref().map(super::format::safe_row);
    }

    pub fn set_tools(&mut self, tools: &[Value]) {
        use super::format::safe;
        let st = &mut self.state;
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
            })
            .collect();
        st.tools.loading = false;
        st.tools.error = None;
        st.tools.refilter();
        if st.composer.tool.is_none()
            && let Some(t) = st.tools.selected().cloned()
        {
            st.composer.load_tool(&t.name, &t.schema, &st.theme);
        }
    }

    fn fire_runs(&mut self) -> Vec<Effect> {
        let runs = std::mem::take(&mut self.runs);
        let mut out = Vec::new();
        for (tool, args) in runs {
            if !self.state.tools.all.is_empty()
                && !self.state.tools.all.iter().any(|t| t.name == tool)
            {
                self.state.notice = Some(format!(
                    "--run: the server lists no tool {tool:?}; sending anyway"
                ));
            }
            out.push(Effect::Call {
                tool,
                args,
                token: TokenPolicy::AutoString,
                level: None,
                limits: self.default_limits,
            });
        }
        out
    }

    // ---------------------------------------------------------------- input

    pub fn handle_key(&mut self, ev: KeyEvent) -> Vec<Effect> {
        if ev.kind == KeyEventKind::Release {
            return Vec::new();
        }
        self.dirty = true;
        let key = Key::from_event(&ev);
        if self.state.help.is_some() {
            return self.help_key(key);
        }
        if self.state.input.is_some() {
            self.input_key(ev);
            return Vec::new();
        }
        if self.state.focus == Pane::Composer && self.state.composer.editing {
            if let Some(a) = self.state.keymap.lookup(Context::Editor, key) {
                return self.apply(a);
            }
            let c = &mut self.state.composer;
            if c.editor_mut().input(ev) {
                c.validate();
            }
            return Vec::new();
        }
        self.state.notice = None;
        let ctx = self.state.focus.context();
        let action = self
            .state
            .keymap
            .lookup(ctx, key)
            .or_else(|| self.state.keymap.lookup(Context::Global, key));
        match action {
            Some(a) => self.apply(a),
            None => Vec::new(),
        }
    }

    pub fn handle_paste(&mut self, text: &str) {
        self.dirty = true;
        if let Some(inp) = &mut self.state.input {
            inp.text.push_str(&super::format::safe_row(text));
            self.input_changed();
        } else if self.state.focus == Pane::Composer {
            let c = &mut self.state.composer;
            c.set_editing(true);
            c.editor_mut().insert_str(text);
            c.validate();
        }
    }

    fn help_key(&mut self, key: Key) -> Vec<Effect> {
        let a = self.state.keymap.lookup(Context::Global, key);
        let h = self.state.help.unwrap_or(0);
        self.state.help = match a {
            Some(Action::Help | Action::Back | Action::Quit) => None,
            Some(Action::Down) => Some(h + 1),
            Some(Action::Up) => Some(h.saturating_sub(1)),
            Some(Action::PageDown) => Some(h + 10),
            Some(Action::PageUp) => Some(h.saturating_sub(10)),
            Some(Action::Top) => Some(0),
            _ => Some(h),
        };
        Vec::new()
    }

    fn input_key(&mut self, ev: KeyEvent) {
        let Some(inp) = &mut self.state.input else {
            return;
        };
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        match ev.code {
            KeyCode::Enter => {
                self.state.input = None;
                return;
            }
            KeyCode::Esc => {
                inp.text = inp.before.clone();
                self.input_changed();
                self.state.input = None;
                return;
            }
            KeyCode::Backspace => {
                inp.text.pop();
            }
            KeyCode::Char('u') if ctrl => inp.text.clear(),
            KeyCode::Char('c') if ctrl => {
                inp.text = inp.before.clone();
                self.input_changed();
                self.state.input = None;
                return;
            }
            KeyCode::Char(c) if !ctrl => inp.text.push(c),
            _ => return,
        }
        self.input_changed();
    }

    /// Filters apply while typing.
    fn input_changed(&mut self) {
        let Some(inp) = self.state.input.clone() else {
            return;
        };
        let st = &mut self.state;
        match inp.target {
            InputTarget::ToolsFilter => {
                st.tools.filter = inp.text;
                st.tools.refilter();
            }
            InputTarget::TimelineFilter => {
                let kind = st.timeline.view.kind;
                st.timeline.view.set_filter(kind, &inp.text);
                self.behind = true;
            }
            InputTarget::LogsFilter => {
                let v = &st.logs.view;
                let (min, stderr) = (v.min, v.stderr);
                st.logs.view.set_filter(min, &inp.text, stderr);
                self.behind = true;
            }
            InputTarget::RawSearch => {
                st.raw.search = inp.text;
                self.research();
                self.jump_to_match(0);
            }
            InputTarget::CustomToken => {
                st.composer.custom_token = inp.text;
                st.composer.token = super::compose::TokenMode::Custom;
            }
        }
        self.sync();
    }

    fn start_input(&mut self, target: InputTarget) {
        let st = &self.state;
        let before = match target {
            InputTarget::ToolsFilter => st.tools.filter.clone(),
            InputTarget::TimelineFilter => st.timeline.view.text.clone(),
            InputTarget::LogsFilter => st.logs.view.text.clone(),
            InputTarget::RawSearch => st.raw.search.clone(),
            InputTarget::CustomToken => st.composer.custom_token.clone(),
        };
        self.state.input = Some(LineInput {
            target,
            text: before.clone(),
            before,
        });
    }

    pub fn handle_mouse(&mut self, ev: MouseEvent) -> Vec<Effect> {
        if self.state.help.is_some() || self.state.input.is_some() {
            return Vec::new();
        }
        let lay = self.layout();
        if let (MouseEventKind::Down(MouseButton::Left), Some(tabs)) = (ev.kind, lay.tabs)
            && ev.row == tabs.y
        {
            if let Some(p) = tab_at(ev.column.saturating_sub(tabs.x), &self.state) {
                self.focus(p);
            }
            return Vec::new();
        }
        let Some((pane, r)) = lay.pane_at(ev.column, ev.row) else {
            return Vec::new();
        };
        self.dirty = true;
        match ev.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                self.focus(pane);
                let row = ev.row.saturating_sub(r.y + 1) as usize;
                self.click_row(pane, row, r);
            }
            MouseEventKind::ScrollUp => self.scroll(pane, -3),
            MouseEventKind::ScrollDown => self.scroll(pane, 3),
            _ => {}
        }
        Vec::new()
    }

    fn click_row(&mut self, pane: Pane, row: usize, r: Rect) {
        let trace = self.trace.clone();
        let store = trace.read();
        let st = &mut self.state;
        let inner_h = r.height.saturating_sub(2) as usize;
        match pane {
            Pane::Timeline if row >= 1 => {
                let len = st.timeline.view.len(&store);
                let start = st.timeline.cursor.window(len, inner_h.saturating_sub(1));
                let i = start + row - 1;
                if i < len {
                    st.timeline.cursor.selected = i;
                    st.timeline.follow = i + 1 == len;
                }
            }
            Pane::Logs => {
                let len = st.logs.view.len();
                let start = st.logs.cursor.window(len, inner_h);
                if start + row < len {
                    st.logs.cursor.selected = start + row;
                    st.logs.follow = start + row + 1 == len;
                }
            }
            Pane::Progress => {
                let len = st.calls.list.len();
                let start = st.progress.window(len, inner_h / 3);
                if start + row / 3 < len {
                    st.progress.selected = start + row / 3;
                }
            }
            Pane::Tools => {
                let len = st.tools.visible.len();
                let h = layout::tools_list_height(inner_h as u16) as usize;
                let start = st.tools.cursor.window(len, h);
                if row < h && start + row < len {
                    st.tools.cursor.selected = start + row;
                }
            }
            Pane::Composer => {
                st.composer.set_editing(true);
            }
            Pane::Network if row >= 1 => {
                let len = st.network.view.len();
                let start = st.network.cursor.window(len, inner_h.saturating_sub(1));
                let i = start + row - 1;
                if i < len {
                    st.network.cursor.selected = i;
                    st.network.follow = i + 1 == len;
                }
            }
            Pane::Findings => {
                let len = st.findings.list.len();
                let start = st.findings.cursor.window(len, inner_h);
                if start + row < len {
                    if st.findings.cursor.selected != start + row {
                        st.findings.frame = 0;
                    }
                    st.findings.cursor.selected = start + row;
                }
            }
            _ => {}
        }
        if !self.settle(&store) {
            self.behind = true;
        }
    }

    // --------------------------------------------------------------- update

    fn focus(&mut self, p: Pane) {
        let st = &mut self.state;
        if st.focus == Pane::Composer && p != Pane::Composer {
            st.composer.set_editing(false);
        }
        st.focus = p;
        if matches!(
            p,
            Pane::Timeline | Pane::Logs | Pane::Progress | Pane::Network
        ) {
            st.raw_source = p;
        }
        self.behind = true;
    }

    /// The update function: one action, its state change, its effects.
    pub fn apply(&mut self, action: Action) -> Vec<Effect> {
        use Action::*;
        self.dirty = true;
        let focus = self.state.focus;
        match action {
            Quit => {
                self.quit = true;
                return vec![Effect::Quit];
            }
            Help => self.state.help = Some(0),
            Back => self.back(),
            FocusNext => {
                let next = focus.step(true, |p| self.state.offers(p));
                self.focus(next)
            }
            FocusPrev => {
                let prev = focus.step(false, |p| self.state.offers(p));
                self.focus(prev)
            }
            FocusTools => self.focus(Pane::Tools),
            FocusComposer => self.focus(Pane::Composer),
            FocusProgress => self.focus(Pane::Progress),
            FocusTimeline => self.focus(Pane::Timeline),
            FocusLogs => self.focus(Pane::Logs),
            FocusRaw => self.focus(Pane::Raw),
            FocusFindings => self.focus(Pane::Findings),
            FocusNetwork => self.focus(Pane::Network),
            Zoom => self.state.zoom = !self.state.zoom,
            Up => self.scroll(focus, -1),
            Down => self.scroll(focus, 1),
            PageUp => self.scroll(focus, -(self.page(focus) as isize)),
            PageDown => self.scroll(focus, self.page(focus) as isize),
            Top => self.scroll(focus, isize::MIN / 2),
            Bottom => self.scroll(focus, isize::MAX / 2),
            Filter => match focus {
                Pane::Tools => self.start_input(InputTarget::ToolsFilter),
                Pane::Timeline => self.start_input(InputTarget::TimelineFilter),
                Pane::Logs => self.start_input(InputTarget::LogsFilter),
                _ => {}
            },
            Search => self.start_input(InputTarget::RawSearch),
            ClearFilter => self.clear_filter(focus),
            UseTool => {
                if let Some(t) = self.state.tools.selected().cloned() {
                    let st = &mut self.state;
                    st.composer.load_tool(&t.name, &t.schema, &st.theme);
                    self.focus(Pane::Composer);
                }
            }
            Edit => self.state.composer.set_editing(true),
            StopEdit => self.state.composer.set_editing(false),
            Send => return self.send(),
            CycleToken => {
                let c = &mut self.state.composer;
                c.token = c.token.next();
                if c.token == super::compose::TokenMode::Custom && c.custom_token.is_empty() {
                    self.start_input(InputTarget::CustomToken);
                }
            }
            EditToken => self.start_input(InputTarget::CustomToken),
            CycleLogLevel => self.state.composer.cycle_level(),
            IdleDown => self.state.composer.step_idle(false),
            IdleUp => self.state.composer.step_idle(true),
            MaxDown => self.state.composer.step_max(false),
            MaxUp => self.state.composer.step_max(true),
            ToggleRawMode => {
                let c = &mut self.state.composer;
                c.raw_mode = !c.raw_mode;
                c.validate();
            }
            ResetArgs => {
                let st = &mut self.state;
                st.composer.reset_args(&st.theme);
            }
            CopyCommand => {
                let cmd = self.state.composer.command_line(&self.state.server_cli);
                self.state.notice = Some("copied the command line (OSC 52)".into());
                return vec![Effect::Copy(cmd)];
            }
            CancelCall => return self.cancel_selected(),
            ShowLane => self.show_lane(),
            CycleByteMode => {
                self.state.byte_mode = self.state.byte_mode.next();
                self.state.notice =
                    Some(format!("progress units: {}", self.state.byte_mode.label()));
            }
            ClearFinished => {
                self.state.calls.clear_finished();
                self.state.progress = Cursor::default();
            }
            Follow => match focus {
                Pane::Logs => self.state.logs.follow = true,
                Pane::Network => self.state.network.follow = true,
                _ => self.state.timeline.follow = true,
            },
            CycleKind | CycleKindBack => {
                let tl = &mut self.state.timeline;
                let k = tl.view.kind.step(action == CycleKind);
                let text = tl.view.text.clone();
                tl.view.set_filter(k, &text);
                self.behind = true;
            }
            ClearLane => {
                self.state.timeline.view.lane = None;
                self.state.timeline.view.channel = None;
                self.behind = true;
            }
            LevelUp | LevelDown => {
                let v = &self.state.logs.view;
                let i = v.min.index();
                let j = if action == LevelUp {
                    (i + 1).min(7)
                } else {
                    i.saturating_sub(1)
                };
                let (text, stderr) = (v.text.clone(), v.stderr);
                self.state
                    .logs
                    .view
                    .set_filter(LogLevel::ALL[j], &text, stderr);
                self.behind = true;
            }
            ToggleStderr => {
                let v = &self.state.logs.view;
                let (min, text, stderr) = (v.min, v.text.clone(), !v.stderr);
                self.state.logs.view.set_filter(min, &text, stderr);
                self.behind = true;
            }
            Expand => self.toggle_expand(),
            ToggleBytes => {
                self.state.raw.bytes_mode = !self.state.raw.bytes_mode;
                self.state.raw.lines.clear();
                self.behind = true;
            }
            NextMatch => self.jump_to_match(1),
            PrevMatch => self.jump_to_match(-1),
            Copy => return self.copy_frame(),
            ShowFrame => self.show_frame(),
            Details => {
                let st = &mut self.state;
                st.progress_details = !st.progress_details;
                st.timing = Default::default();
                self.behind = true;
            }
            AnswerInput => self.answer_input(),
            ShowChannel => self.show_channel(),
            ReplayPause | ReplayStep | ReplayFaster | ReplaySlower | ReplayEnd => {
                self.replay_action(action)
            }
        }
        if self.behind {
            self.sync();
        } else {
            let trace = self.trace.clone();
            let store = trace.read();
            if !self.settle(&store) {
                self.behind = true;
            }
        }
        Vec::new()
    }

    /// Show the selected finding's next frame in the Timeline and Raw panes
    /// (the first on the first press, then each in turn). A filter or lane
    /// that hides the frame is dropped: seeing the evidence comes first.
    fn show_frame(&mut self) {
        let st = &mut self.state;
        let Some(fd) = st.findings.list.get(st.findings.cursor.selected) else {
            st.notice = Some("no finding selected".into());
            return;
        };
        let n = fd.seqs.len();
        if n == 0 {
            st.notice = Some(format!("{} names no frame", fd.rule));
            return;
        }
        let k = st.findings.frame % n;
        let (seq, rule) = (fd.seqs[k], fd.rule);
        st.findings.frame = k + 1;
        let trace = self.trace.clone();
        let store = trace.read();
        if seq < store.first_seq() || seq >= store.next_seq() {
            st.notice = Some(format!(
                "frame #{seq} is no longer in memory (evicted from the store)"
            ));
            return;
        }
        let tl = &mut st.timeline;
        let mut cleared = false;
        let pos = tl.view.position_of(seq, &store);
        if tl.view.seq_at(pos, &store) != Some(seq) {
            tl.view.lane = None;
            tl.view.channel = None;
            tl.view.set_filter(super::views::KindFilter::All, "");
            cleared = true;
        }
        tl.cursor.selected = tl.view.position_of(seq, &store);
        tl.follow = false;
        st.raw_source = Pane::Timeline;
        st.notice = Some(format!(
            "{rule}: frame #{seq} ({} of {n}) in Timeline and Raw{}",
            k + 1,
            if cleared {
                " · timeline filter cleared to show it"
            } else {
                ""
            }
        ));
        if !self.settle(&store) {
            self.behind = true;
        }
    }

    fn replay_action(&mut self, action: Action) {
        let Some(p) = &mut self.playback else {
            self.state.notice = Some("playback keys work in a replay: mcpscope replay FILE".into());
            return;
        };
        match action {
            Action::ReplayPause => p.toggle_pause(),
            Action::ReplayStep if !p.step() => {
                self.state.notice = Some("end of the trace: nothing left to step".into());
            }
            Action::ReplayFaster => p.change_speed(true),
            Action::ReplaySlower => p.change_speed(false),
            Action::ReplayEnd => p.jump_to_end(),
            _ => {}
        }
        self.state.replay = Some(p.view());
        self.behind = true;
    }

    fn back(&mut self) {
        let st = &mut self.state;
        if st.composer.editing {
            st.composer.set_editing(false);
        } else if st.zoom {
            st.zoom = false;
        } else if (st.timeline.view.lane.is_some() || st.timeline.view.channel.is_some())
            && st.focus == Pane::Timeline
        {
            st.timeline.view.lane = None;
            st.timeline.view.channel = None;
            self.behind = true;
        }
    }

    fn page(&self, pane: Pane) -> usize {
        layout::list_height(&self.state, pane).max(1)
    }

    fn scroll(&mut self, pane: Pane, delta: isize) {
        let trace = self.trace.clone();
        let store = trace.read();
        let st = &mut self.state;
        match pane {
            Pane::Timeline => {
                let len = st.timeline.view.len(&store);
                st.timeline.cursor.move_by(delta, len);
                // Scrolling stops following; reaching the end resumes it.
                st.timeline.follow = st.timeline.cursor.selected + 1 >= len;
                st.raw_source = Pane::Timeline;
            }
            Pane::Logs => {
                let len = st.logs.view.len();
                st.logs.cursor.move_by(delta, len);
                st.logs.follow = st.logs.cursor.selected + 1 >= len;
                st.raw_source = Pane::Logs;
            }
            Pane::Progress => {
                st.progress.move_by(delta, st.calls.list.len());
                st.raw_source = Pane::Progress;
            }
            Pane::Tools => {
                st.tools.cursor.move_by(delta, st.tools.visible.len());
            }
            Pane::Network => {
                let len = st.network.view.len();
                st.network.cursor.move_by(delta, len);
                st.network.follow = st.network.cursor.selected + 1 >= len;
                st.raw_source = Pane::Network;
            }
            Pane::Findings => {
                let before = st.findings.cursor.selected;
                st.findings.cursor.move_by(delta, st.findings.list.len());
                if st.findings.cursor.selected != before {
                    st.findings.frame = 0;
                }
            }
            Pane::Raw => {
                let max = st.raw.lines.len().saturating_sub(1) as isize;
                st.raw.scroll = (st.raw.scroll as isize)
                    .saturating_add(delta)
                    .clamp(0, max.max(0)) as usize;
            }
            Pane::Composer => {
                let c = &mut st.composer;
                let m = if delta < 0 {
                    ratatui_textarea::CursorMove::Up
                } else {
                    ratatui_textarea::CursorMove::Down
                };
                for _ in 0..delta.unsigned_abs().min(1000) {
                    c.editor_mut().move_cursor(m);
                }
            }
        }
        if !self.settle(&store) {
            self.behind = true;
        }
    }

    fn clear_filter(&mut self, pane: Pane) {
        let st = &mut self.state;
        match pane {
            Pane::Tools => {
                st.tools.filter.clear();
                st.tools.refilter();
            }
            Pane::Timeline => {
                let k = st.timeline.view.kind;
                st.timeline.view.set_filter(k, "");
            }
            Pane::Logs => {
                let v = &st.logs.view;
                let (m, s) = (v.min, v.stderr);
                st.logs.view.set_filter(m, "", s);
            }
            _ => {}
        }
        self.behind = true;
    }

    fn send(&mut self) -> Vec<Effect> {
        if !self.state.live {
            self.state.notice =
                Some("this is a recorded trace: there is no server to send to".into());
            return Vec::new();
        }
        match self.state.composer.effect() {
            Ok(e) => {
                self.state.composer.set_editing(false);
                self.state.notice = Some(match &e {
                    Effect::Call { tool, .. } => format!("sent tools/call {tool}"),
                    Effect::Raw { method, .. } => format!("sent {method}"),
                    _ => String::new(),
                });
                vec![e]
            }
            Err(why) => {
                self.state.notice = Some(format!("not sent: {why}"));
                Vec::new()
            }
        }
    }

    /// The call under the cursor (Progress) or whose event is selected (Timeline).
    fn selected_call(&self) -> Option<&super::calls::Call> {
        let st = &self.state;
        match st.focus {
            Pane::Timeline => {
                let store = self.trace.read();
                let seq = st
                    .timeline
                    .view
                    .seq_at(st.timeline.cursor.selected, &store)?;
                let ev = store.get(seq)?;
                let f = ev.frame();
                let id = match f.method.as_deref() {
                    Some(crate::protocol::methods::PROGRESS) => {
                        let v = crate::protocol::views::ProgressView::parse(f.params).ok()?;
                        let key = v.token_key();
                        return st
                            .calls
                            .list
                            .iter()
                            .find(|c| c.token.as_ref() == Some(&key));
                    }
                    Some(crate::protocol::methods::CANCELLED) => {
                        crate::protocol::views::CancelledView::parse(f.params)?.request_id
                    }
                    _ => f.id?,
                };
                st.calls.get(&id)
            }
            _ => st.calls.list.get(st.progress.selected),
        }
    }

    fn cancel_selected(&mut self) -> Vec<Effect> {
        let Some(call) = self.selected_call() else {
            self.state.notice = Some("no call selected".into());
            return Vec::new();
        };
        if !call.status.is_running() {
            let msg = format!("{} is already {}", call.tool, call.status.label());
            self.state.notice = Some(msg);
            return Vec::new();
        }
        if !self.state.live {
            self.state.notice = Some("this is a recorded trace: nothing to cancel".into());
            return Vec::new();
        }
        let id = call.id.clone();
        self.state.notice = Some(format!("cancelling {} (id {id})", call.tool));
        vec![Effect::Cancel { id }]
    }

    /// Narrow the timeline to the selected exchange's channel: the request,
    /// the stream's priming, frames, resumption and end, in arrival order.
    /// Seeded from the Network view's index, so no store scan.
    fn show_channel(&mut self) {
        let st = &mut self.state;
        let Some(x) = st.network.view.rows.get(st.network.cursor.selected) else {
            st.notice = Some("no HTTP exchange selected".into());
            return;
        };
        let name = x.channel.clone();
        let (seqs, upto) = st.network.view.channel_seqs(&name);
        let lane = super::views::ChannelLane::new(&name, seqs.to_vec(), upto);
        let n = lane.seqs.len();
        let tl = &mut st.timeline;
        tl.view.lane = None;
        tl.view.channel = Some(lane);
        tl.follow = false;
        tl.cursor = Cursor::default();
        st.raw_source = Pane::Timeline;
        st.notice = Some(format!(
            "timeline: channel {name} ({n} events so far) · a or Esc shows every event"
        ));
        self.focus(Pane::Timeline);
    }

    /// Open the composer (raw mode) with a retry answering the selected
    /// call's `input_required` result: `inputResponses` skeletons, the echoed
    /// `requestState`, the original name and arguments. Sending it is the
    /// composer's ordinary raw send.
    fn answer_input(&mut self) {
        let Some(call) = self.selected_call() else {
            self.state.notice = Some("no call selected".into());
            return;
        };
        let Some(input) = call.input.clone() else {
            let msg = format!(
                "{} (id {}) is {}: only an input_required result can be answered",
                call.tool,
                call.id,
                call.status.label()
            );
            self.state.notice = Some(msg);
            return;
        };
        let (orig_id, seq) = (call.id.clone(), call.request_seq);
        let original = {
            let store = self.trace.read();
            let Some(ev) = store.get(seq) else {
                drop(store);
                self.state.notice = Some(format!(
                    "the request #{seq} is no longer in memory (evicted): cannot rebuild the retry"
                ));
                return;
            };
            serde_json::from_slice::<Value>(ev.bytes)
                .ok()
                .and_then(|v| v.get("params").cloned())
                .unwrap_or(Value::Null)
        };
        self.answers += 1;
        let id = format!("answer-{}", self.answers);
        let msg = super::compose::answer_message(&original, &input, &id, &id);
        let st = &mut self.state;
        st.composer.load_raw(&msg, &st.theme);
        st.notice = Some(format!(
            "answering id {orig_id}: fill in inputResponses, then s sends it{}",
            if input.answered_by.is_some() {
                " (it was answered already)"
            } else {
                ""
            }
        ));
        self.focus(Pane::Composer);
    }

    fn show_lane(&mut self) {
        let Some(call) = self.selected_call() else {
            return;
        };
        let lane = super::views::Lane::new(call.id.clone(), call.token.clone());
        let st = &mut self.state;
        st.timeline.view.lane = Some(lane);
        st.timeline.view.channel = None;
        st.timeline.follow = false;
        st.timeline.cursor = Cursor::default();
        self.focus(Pane::Timeline);
    }

    fn toggle_expand(&mut self) {
        let st = &mut self.state;
        let Some(seq) = st.logs.view.seq_at(st.logs.cursor.selected) else {
            return;
        };
        if st.logs.expanded.as_ref().is_some_and(|(s, _)| *s == seq) {
            st.logs.expanded = None;
            return;
        }
        let store = self.trace.read();
        let Some(ev) = store.get(seq) else { return };
        let text = if ev.dir == crate::trace::Dir::Stderr {
            None
        } else {
            let f = ev.frame();
            f.params
                .and_then(|p| serde_json::from_str::<serde_json::Map<String, Value>>(p.get()).ok())
                .and_then(|m| {
                    m.get("data")
                        .map(|d| serde_json::to_string(d).unwrap_or_default())
                })
        };
        let lines = match text {
            Some(t) => jsonfmt::pretty(&t, 200).0,
            None => jsonfmt::exact_bytes(ev.bytes, 100, 200).0,
        };
        drop(store);
        self.state.logs.expanded = Some((seq, lines));
    }

    fn jump_to_match(&mut self, delta: isize) {
        let raw = &mut self.state.raw;
        if raw.matches.is_empty() {
            return;
        }
        let n = raw.matches.len() as isize;
        raw.match_idx = ((raw.match_idx as isize + delta).rem_euclid(n)) as usize;
        // Scroll only when the match is off screen, and then keep some context above it.
        let line = raw.matches[raw.match_idx];
        let h = layout::list_height(&self.state, Pane::Raw).max(1);
        let raw = &mut self.state.raw;
        if line < raw.scroll || line >= raw.scroll + h {
            raw.scroll = line.saturating_sub(h / 3);
        }
    }

    fn copy_frame(&mut self) -> Vec<Effect> {
        let store = self.trace.read();
        let Some(ev) = self.state.raw.seq.and_then(|s| store.get(s)) else {
            return Vec::new();
        };
        let text = if self.state.raw.bytes_mode || !ev.kind.is_json() {
            ev.text().into_owned()
        } else {
            self.state
                .raw
                .lines
                .iter()
                .map(|l| jsonfmt::line_text(l))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let n = text.len();
        drop(store);
        self.state.notice = Some(format!(
            "copied frame #{} ({n} bytes, OSC 52)",
            self.state.raw.seq.unwrap_or(0)
        ));
        vec![Effect::Copy(text)]
    }
}

/// Which tab a column of the tab bar belongs to (labels as drawn by the tab bar).
pub fn tab_at(x: u16, st: &State) -> Option<Pane> {
    let mut start = 0u16;
    for p in st.tabs() {
        let w = super::panes::tab_label(p).chars().count() as u16 + 1;
        if x >= start && x < start + w {
            return Some(p);
        }
        start += w;
    }
    None
}

/// `TOOL JSON` of `--run`: the tool name, then optional JSON arguments.
pub fn parse_run(s: &str) -> Result<(String, Value), String> {
    let s = s.trim();
    let (tool, rest) = match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], s[i..].trim()),
        None => (s, ""),
    };
    if tool.is_empty() {
        return Err(
            "--run needs 'TOOL JSON', e.g. --run 'upload_file {\"size_bytes\": 1048576}'".into(),
        );
    }
    let args = if rest.is_empty() {
        Value::Object(Default::default())
    } else {
        match serde_json::from_str::<Value>(rest) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => return Err(format!("--run {tool}: the arguments must be a JSON object")),
            Err(e) => {
                return Err(format!(
                    "--run {tool}: the arguments are not valid JSON: {e}"
                ));
            }
        }
    };
    Ok((tool.to_string(), args))
}
