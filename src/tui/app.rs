//! The application: state plus the trace it views (and the session, when
//! live). A thin dispatcher: keys, clicks and messages go to the pane
//! controllers (`panes/*_ctl.rs`), which change the state without touching
//! the store; then one sync step (`sync.rs`) takes the store's read lock to
//! pull what the update left for it and re-fit the views. No terminal
//! here: tests drive it with actions.

mod msgs;
mod options;
mod sync;
#[cfg(test)]
mod tests;

pub use options::AppOptions;

use super::action::{Action, Effect};
use super::calls::{ByteMode, Calls};
use super::compose::Composer;
use super::keymap::{Context, Key};
use super::layout::{self, Layout};
use super::panes::ctl::{self, After, Out, Pull};
use super::panes::*;
use super::replay::Playback;
use super::state::*;
use super::ui::hits::FrameMap;
use crate::checks::Finding;
use crate::client::Limits;
use crate::trace::Trace;
use crossterm::event::{KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;
use serde_json::Value;
use std::time::Duration;

pub struct App {
    pub state: State,
    trace: Trace,
    runs: Vec<(String, Value)>,
    default_limits: Limits,
    playback: Option<Playback>,
    /// Retries composed for `input_required` results (their ids count up).
    answers: u32,
    /// Effects of a click (sent with the next `due` batch).
    pending: Vec<Effect>,
    /// Where the last frame drawn put things: clicks are tested against it.
    frame: Option<FrameMap>,
    /// What a recorded or attached session listed (nothing is asked there).
    pub(crate) recorded: super::recorded::Recorded,
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
            asks: Default::default(),
            browse: Default::default(),
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
            pending: Vec::new(),
            frame: None,
            recorded: Default::default(),
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

    /// Work that came due without a key: completions once typing paused,
    /// lists the server said changed, a click's requests. The runtime
    /// asks on every tick; tests set the trace clock and ask.
    pub fn due(&mut self) -> Vec<Effect> {
        let now = self.trace.now_us();
        let st = &mut self.state;
        let mut out = std::mem::take(&mut self.pending);
        if st.live {
            out.extend(st.browse.queued.drain(..).map(Effect::Browse));
            out.extend(argform_ctl::due(st, now));
        } else {
            st.browse.queued.clear();
        }
        if !out.is_empty() {
            self.dirty = true;
        }
        out
    }

    /// The runtime drew a frame: later clicks are tested against its map.
    pub fn drawn(&mut self, map: FrameMap) {
        self.frame = Some(map);
    }

    // ---------------------------------------------------------------- input

    pub fn handle_key(&mut self, ev: KeyEvent) -> Vec<Effect> {
        if ev.kind == KeyEventKind::Release {
            return Vec::new();
        }
        self.dirty = true;
        let key = Key::from_event(&ev);
        let st = &mut self.state;
        if st.help.is_some() {
            help_ctl::key(st, key);
            return Vec::new();
        }
        if st.asks.roots_editor.is_some() {
            return crate::tui::panes::ask_ctl::roots_key(st, ev);
        }
        if st.asks.open {
            return crate::tui::panes::ask_ctl::key(st, ev);
        }
        if st.browse.form.is_some() {
            let now = self.trace.now_us();
            return argform_ctl::key(&mut self.state, ev, now);
        }
        if st.input.is_some() {
            // A changed filter shows its rows at once.
            if status_ctl::key(st, ev) {
                self.finish(Out::default(), After::Sync);
            }
            return Vec::new();
        }
        if st.focus == Pane::Composer && st.composer.editing {
            if let Some(a) = st.keymap.lookup(Context::Editor, key) {
                return self.apply(a);
            }
            composer_ctl::type_key(st, ev);
            return Vec::new();
        }
        st.notice = None;
        let action = st
            .keymap
            .lookup(st.key_context(), key)
            .or_else(|| st.keymap.lookup(Context::Global, key));
        match action {
            Some(a) => self.apply(a),
            None => Vec::new(),
        }
    }

    pub fn handle_paste(&mut self, text: &str) {
        self.dirty = true;
        let now = self.trace.now_us();
        let st = &mut self.state;
        if st.browse.form.is_some() {
            argform_ctl::paste(st, text, now);
        } else if status_ctl::paste(st, text) {
            self.finish(Out::default(), After::Sync);
        } else if st.focus == Pane::Composer {
            composer_ctl::paste(st, text);
        }
    }

    /// A click or wheel turn, tested against the last frame drawn. Before
    /// any frame of this size was drawn (tests, right after a resize), the
    /// sync step prepares one from the store to test it against.
    pub fn handle_mouse(&mut self, ev: MouseEvent) -> Vec<Effect> {
        if self.state.help.is_some()
            || self.state.input.is_some()
            || self.state.asks.open
            || self.state.browse.form.is_some()
            || self.state.asks.roots_editor.is_some()
        {
            return Vec::new();
        }
        let size = (self.state.width, self.state.height);
        match self.frame.take().filter(|m| m.size == size) {
            Some(map) => {
                let after = self.mouse(ev, &map);
                self.frame = Some(map);
                let mut effects = self.finish(Out::default(), after);
                effects.append(&mut self.pending);
                effects
            }
            None => {
                let mut effects = self.finish(Out::pull(Pull::Click(ev)), After::Pulls);
                effects.append(&mut self.pending);
                effects
            }
        }
    }

    /// The update for a mouse event against `map`; says what the sync step
    /// does after it.
    fn mouse(&mut self, ev: MouseEvent, map: &FrameMap) -> After {
        let st = &mut self.state;
        let mut out = Out::default();
        let left = matches!(ev.kind, MouseEventKind::Down(MouseButton::Left));
        if left && let Some(tab) = map.tab_at(ev.column, ev.row) {
            if let Some(p) = tab {
                ctl::focus(st, p, &mut out);
            }
            self.behind |= out.behind;
            return After::Pulls;
        }
        let Some(pm) = map.pane_at(ev.column, ev.row) else {
            return After::Pulls;
        };
        self.dirty = true;
        let c = ctl::controller(pm.pane);
        match ev.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                ctl::focus(st, pm.pane, &mut out);
                let on_tabs = pm.pane == Pane::Tools
                    && ev.row == pm.area.y
                    && browse_ctl::click_title(st, ev.column, pm.area, &mut out);
                if !on_tabs {
                    c.click(st, pm.item_at(ev.row));
                }
            }
            MouseEventKind::ScrollUp => c.scroll(st, -3),
            MouseEventKind::ScrollDown => c.scroll(st, 3),
            _ => return After::Pulls,
        }
        self.behind |= out.behind;
        self.pending.extend(out.effects);
        After::Settle
    }

    // --------------------------------------------------------------- update

    /// The update function: one action, its state change, its effects.
    pub fn apply(&mut self, action: Action) -> Vec<Effect> {
        use Action::*;
        self.dirty = true;
        let st = &mut self.state;
        let focus = st.focus;
        let pane = ctl::controller(focus);
        // Rows a page key moves: what the pane shows.
        let page = |st: &State| layout::list_height(st, focus).max(1) as isize;
        let mut out = Out::default();
        match action {
            Quit => {
                self.quit = true;
                return vec![Effect::Quit];
            }
            Help => st.help = Some(0),
            EditRoots => st.asks.edit_roots(),
            AnswerServer => {
                if st.asks.waiting.is_empty() {
                    st.notice = Some("no server request is waiting".into());
                } else {
                    st.asks.open = true;
                }
            }
            Back => {
                if focus == Pane::Tools && browse_ctl::back(st) {
                    // From a read resource or a prompt's messages back to the list.
                } else if st.composer.editing {
                    st.composer.set_editing(false);
                } else if st.zoom {
                    st.zoom = false;
                } else if focus == Pane::Timeline {
                    timeline_ctl::back(st, &mut out);
                }
            }
            FocusNext | FocusPrev => {
                let p = focus.step(action == FocusNext, |p| st.offers(p));
                ctl::focus(st, p, &mut out);
            }
            FocusTools => ctl::focus(st, Pane::Tools, &mut out),
            FocusComposer if !st.offers(Pane::Composer) => {
                st.notice = Some("read-only: nothing can be sent from here".into());
            }
            FocusComposer => ctl::focus(st, Pane::Composer, &mut out),
            FocusProgress => ctl::focus(st, Pane::Progress, &mut out),
            FocusTimeline => ctl::focus(st, Pane::Timeline, &mut out),
            FocusLogs => ctl::focus(st, Pane::Logs, &mut out),
            FocusRaw => ctl::focus(st, Pane::Raw, &mut out),
            FocusFindings => ctl::focus(st, Pane::Findings, &mut out),
            FocusNetwork => ctl::focus(st, Pane::Network, &mut out),
            Zoom => st.zoom = !st.zoom,
            Up => pane.scroll(st, -1),
            Down => pane.scroll(st, 1),
            PageUp => pane.scroll(st, -page(st)),
            PageDown => pane.scroll(st, page(st)),
            Top => pane.scroll(st, isize::MIN / 2),
            Bottom => pane.scroll(st, isize::MAX / 2),
            Filter => {
                if let Some(t) = pane.filter() {
                    // The Tools pane's other tabs filter their own lists.
                    let t = match t {
                        InputTarget::ToolsFilter
                            if st.browse.tab != crate::tui::browse::Tab::Tools =>
                        {
                            InputTarget::BrowseFilter
                        }
                        t => t,
                    };
                    status_ctl::start_input(st, t);
                }
            }
            Search => status_ctl::start_input(st, InputTarget::RawSearch),
            ClearFilter => {
                pane.clear_filter(st);
                out.behind = true;
            }
            Follow => pane.follow(st),
            UseTool => tools_ctl::use_tool(st, &mut out),
            Edit | StopEdit | Send | CycleToken | EditToken | CycleLogLevel | IdleDown | IdleUp
            | MaxDown | MaxUp | ToggleRawMode | ResetArgs | CopyCommand | ToggleTask => {
                composer_ctl::apply(st, action, &mut out)
            }
            CancelCall | CycleByteMode | ClearFinished | Details | AnswerInput => {
                progress_ctl::apply(st, action, &mut out)
            }
            ShowLane | CycleKind | CycleKindBack | ClearLane => {
                timeline_ctl::apply(st, action, &mut out)
            }
            LevelUp | LevelDown | ToggleStderr | Expand => logs_ctl::apply(st, action, &mut out),
            ToggleBytes | NextMatch | PrevMatch | Copy => raw_ctl::apply(st, action, &mut out),
            ShowFrame => findings_ctl::show_frame(st, &mut out),
            ShowChannel => network_ctl::show_channel(st, &mut out),
            ReplayPause | ReplayStep | ReplayFaster | ReplaySlower | ReplayEnd => {
                self.replay_action(action)
            }
            NextTab | PrevTab => browse_ctl::step(st, action == NextTab, &mut out),
            Open | Subscribe | Refresh if !st.live => {
                st.notice = Some("this is a recorded trace: there is no server to ask".into());
            }
            Open => {
                let now = self.trace.now_us();
                browse_ctl::open(&mut self.state, now, &mut out)
            }
            Subscribe => browse_ctl::subscribe(st, &mut out),
            Refresh => browse_ctl::refresh(st, &mut out),
        }
        self.finish(out, After::SyncIfBehind)
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
