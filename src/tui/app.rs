//! The application: the shell, the panes and the overlays, plus the trace
//! they view. A thin router: keys, clicks and messages go to the focused
//! pane or open overlay, which changes its own state without touching the
//! store and returns `Command`s; the App hands each to its owner. Then one
//! sync step (`sync.rs`) takes the store's read lock to run the commands
//! that read it and re-fit the views. No terminal here: tests drive it
//! with actions.

#[cfg(test)]
mod intake_tests;
mod msgs;
mod options;
mod rewind;
pub mod save;
mod sync;
#[cfg(test)]
mod tests;

pub use options::AppOptions;

use super::action::{Action, Effect};
use super::command::{Command, Commands};
use super::keymap::{Context, Key};
use super::layout::{self, Layout};
use super::overlays::Overlays;
use super::overlays::status::{self, InputTarget};
use super::overlays::{argform, asks, help, intercept};
use super::pane::Pane;
use super::panes::progress::update::Selection;
use super::panes::{Cx, Panes, Start};
use super::replay::Playback;
use super::screen::View;
use super::shell::{Conn, ServerView, Shell};
use super::ui::hits::FrameMap;
use crate::checks::Finding;
use crate::client::Limits;
use crate::trace::Trace;
use crossterm::event::{KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Rect;
use serde_json::Value;
use std::time::Duration;

pub struct App {
    pub shell: Shell,
    pub panes: Panes,
    pub overlays: Overlays,
    trace: Trace,
    runs: Vec<(String, Value)>,
    run_level: Option<crate::protocol::views::LogLevel>,
    default_limits: Limits,
    playback: Option<Playback>,
    /// Findings about events a replay stepped back before, until it
    /// feeds them again (as many as the checks found: bounded by them).
    later_findings: Vec<Finding>,
    /// Retries composed for `input_required` results (their ids count up).
    answers: u32,
    /// Effects the commands routed so far asked for, in order.
    effects: Vec<Effect>,
    /// Commands that read the store, for the sync step after the update.
    queued: Vec<Command>,
    /// Where the last frame drawn put things: clicks are tested against it.
    frame: Option<FrameMap>,
    /// What a recorded or attached session listed (nothing is asked there).
    pub(crate) recorded: super::recorded::Recorded,
    /// Something changed since the last draw.
    pub dirty: bool,
    /// A view has more to scan (a rebuild in progress).
    pub behind: bool,
    /// An update asked for the views to scan at once (a cleared filter's
    /// rescan, a replay step): the sync step after it takes events in.
    /// Other keys only settle, so a key's frame never waits behind what a
    /// flood appended meanwhile.
    rescan: bool,
    /// Restarts of the session asked for, and where the last one is.
    pub restart: Restarts,
    /// The server as a recording's header names it, for a saved test file.
    server_json: Option<Value>,
    quit: bool,
}

/// The user's restarts of a live session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Restarts {
    /// Restarts asked for so far (the last one's attempt number).
    pub count: u32,
    /// From the key until the new session's handshake ends either way.
    pub restarting: bool,
    /// The seq of the last `restart` marker, once recorded.
    pub marker: Option<u64>,
}

/// What the sync step does after an update's store-reading commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Then {
    Nothing,
    /// Re-fit cursors and caches to the state (no new events taken in).
    Settle,
    /// Take in new events when the update asked for a rescan, else settle.
    SyncIfRescan,
    /// Take in new events (a filter typed: its rows show at once).
    Sync,
}

impl App {
    pub fn new(trace: Trace, opts: AppOptions) -> App {
        let panes = Panes::start(&Start {
            theme: &opts.theme,
            live: opts.live,
            stale_after_us: opts.stale_after_us,
            idle_timeout_secs: opts.idle_timeout_secs,
            max_timeout_secs: opts.max_timeout_secs,
            wall_start: opts.wall_start,
        });
        let shell = Shell {
            theme: opts.theme,
            keymap: opts.keymap,
            focus: Pane::Progress,
            zoom: false,
            arrangement: opts.arrangement,
            width: 160,
            height: 50,
            now_us: 0,
            notice: None,
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
            server_cli: opts.server_cli,
            recording: opts.recording,
            events: 0,
            evicted: 0,
            live: opts.live,
            fps: opts.fps,
            replay: opts.playback.as_ref().map(Playback::view),
        };
        let mut app = App {
            shell,
            panes,
            overlays: Overlays::default(),
            trace,
            runs: opts.runs,
            run_level: opts.run_level,
            default_limits: Limits {
                idle: opts.idle_timeout_secs.map(Duration::from_secs),
                max: opts.max_timeout_secs.map(Duration::from_secs),
            },
            playback: opts.playback,
            later_findings: Vec::new(),
            answers: 0,
            effects: Vec::new(),
            queued: Vec::new(),
            frame: None,
            recorded: Default::default(),
            dirty: true,
            behind: true,
            rescan: false,
            restart: Restarts::default(),
            server_json: opts.server_json,
            quit: false,
        };
        // `--focus`: as its key would, so a pane not offered (Network
        // before any HTTP exchange) is refused the same way.
        if let Some(action) = opts.focus.and_then(Pane::focus) {
            app.apply(action);
        }
        app
    }

    /// The screen's state, read-only: what frames are drawn from.
    pub fn view(&self) -> View<'_> {
        View {
            shell: &self.shell,
            panes: &self.panes,
            overlays: &self.overlays,
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
            self.dirty = true;
            self.behind = true;
            if self.later_findings.is_empty() {
                self.panes.findings.add(fresh);
            } else {
                // Behind ones a replay stepped back before, in order.
                self.later_findings.extend(fresh);
                self.release_findings();
            }
        }
    }

    /// Let `wall` of real time pass for the replay (the runtime passes the
    /// time between ticks; tests pass what they need).
    pub fn advance_replay(&mut self, wall: Duration) {
        if let Some(p) = &mut self.playback
            && p.advance(wall)
        {
            self.shell.replay = Some(p.view());
            self.dirty = true;
            self.behind = true;
            self.release_findings();
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
        self.shell.width = width;
        self.shell.height = height;
        self.dirty = true;
        self.behind = true;
    }

    pub fn layout(&self) -> Layout {
        layout::compute(
            Rect::new(0, 0, self.shell.width, self.shell.height),
            &self.view(),
        )
    }

    /// What pane `p`'s input may read: its rows and area as laid out.
    fn cx(&self, p: Pane) -> Cx {
        let v = self.view();
        Cx {
            rows: layout::list_height(&v, p),
            area: self.layout().rect(p),
            live: self.shell.live,
            now_us: self.trace.now_us(),
        }
    }

    /// Work that came due without a key: completions once typing paused,
    /// lists the server said changed. The runtime asks on every tick;
    /// tests set the trace clock and ask.
    pub fn due(&mut self) -> Vec<Effect> {
        let now = self.trace.now_us();
        let browse = &mut self.panes.tools.browse;
        let mut out = Vec::new();
        if self.shell.live {
            out.extend(browse.queued.drain(..).map(Effect::Browse));
            out.extend(argform::update::due(&mut self.overlays.argform, now));
        } else {
            browse.queued.clear();
        }
        if !out.is_empty() {
            self.dirty = true;
        }
        out
    }

    /// `attach --intercept`: the breakpoint's indicator shows, and its
    /// key opens the overlay.
    pub fn enable_intercept(&mut self) {
        self.overlays.intercept = Some(Default::default());
        self.dirty = true;
    }

    fn intercept_open(&self) -> bool {
        self.overlays.intercept.as_ref().is_some_and(|i| i.open)
    }

    /// Messages are held: their ages run, so frames are due at the clock's
    /// pace even when nothing else changes.
    pub fn holding(&self) -> bool {
        self.overlays
            .intercept
            .as_ref()
            .is_some_and(|i| !i.held.is_empty())
    }

    /// The runtime drew a frame: later clicks are tested against its map.
    pub fn drawn(&mut self, map: FrameMap) {
        self.frame = Some(map);
    }

    // -------------------------------------------------------------- routing

    /// Move focus. Leaving the composer stops editing; the lists the Raw
    /// pane can follow become its source.
    fn focus(&mut self, p: Pane) {
        if self.shell.focus == Pane::Composer && p != Pane::Composer {
            self.panes.composer.set_editing(false);
        }
        self.shell.focus = p;
        if matches!(
            p,
            Pane::Timeline | Pane::Logs | Pane::Progress | Pane::Network
        ) {
            self.panes.raw.source = p;
        }
        self.behind = true;
    }

    /// Hand each command to its owner; those that read the store wait for
    /// the sync step.
    fn route(&mut self, cmds: Commands) {
        for c in cmds {
            match c {
                Command::Effect(e) if self.restart.restarting && e.talks_to_server() => {
                    self.shell.notice = Some(
                        "not sent: the server is restarting; send again once it is connected"
                            .into(),
                    );
                }
                Command::Effect(e) => self.effects.push(e),
                Command::Notice(n) => self.shell.notice = Some(n),
                Command::Focus(p) => self.focus(p),
                Command::RawFollows(p) => self.panes.raw.source = p,
                Command::Rescan => {
                    self.behind = true;
                    self.rescan = true;
                }
                // A new view's rows are scanned at once, as a rescan's.
                Command::ShowLane(lane) => {
                    self.panes.timeline.show_lane(lane);
                    self.rescan = true;
                }
                Command::ShowChannel(lane) => {
                    self.panes.timeline.show_channel(lane);
                    self.rescan = true;
                }
                Command::LoadTool { name, schema } => {
                    self.panes
                        .composer
                        .load_tool(&name, &schema, &self.shell.theme)
                }
                Command::OpenForm(form) => self.overlays.argform = Some(*form),
                Command::Input(target) => {
                    let before = self.text_of(target);
                    self.overlays.input = Some(status::update::open(target, before));
                }
                Command::SetText(target, text) => self.set_text(target, text),
                Command::CancelText(target, text) => {
                    self.set_text(target, text);
                    if target == InputTarget::CustomToken {
                        self.panes.composer.cancel_custom_token();
                    }
                }
                c => self.queued.push(c),
            }
        }
    }

    /// The text a field for `target` starts from.
    fn text_of(&self, target: InputTarget) -> String {
        let p = &self.panes;
        match target {
            InputTarget::ToolsFilter => p.tools.filter.clone(),
            InputTarget::BrowseFilter => p.tools.browse_filter_text(),
            InputTarget::TimelineFilter => p.timeline.view.text.clone(),
            InputTarget::TimelineExpr => p.timeline.expr_text.clone(),
            InputTarget::LogsFilter => p.logs.view.text.clone(),
            InputTarget::RawSearch => p.raw.search.clone(),
            InputTarget::CustomToken => p.composer.custom_token.clone(),
            InputTarget::HelpSearch => self.overlays.help_query.clone(),
        }
    }

    /// The field's text, to the pane it belongs to (filters apply while typing).
    fn set_text(&mut self, target: InputTarget, text: String) {
        use super::panes::PaneInput;
        match target {
            InputTarget::ToolsFilter => self.panes.tools.set_tools_filter(&text),
            InputTarget::BrowseFilter => self.panes.tools.browse_set_filter(&text),
            InputTarget::TimelineFilter => self.panes.timeline.set_filter(&text),
            InputTarget::TimelineExpr => self.panes.timeline.set_expr(&text),
            InputTarget::LogsFilter => self.panes.logs.set_filter(&text),
            InputTarget::RawSearch => {
                let h = self.cx(Pane::Raw).rows;
                self.panes.raw.set_search(text, h)
            }
            InputTarget::CustomToken => self.panes.composer.set_custom_token(text),
            InputTarget::HelpSearch => help::update::set_query(&mut self.overlays, text),
        }
    }

    // ---------------------------------------------------------------- input

    pub fn handle_key(&mut self, ev: KeyEvent) -> Vec<Effect> {
        if ev.kind == KeyEventKind::Release {
            return Vec::new();
        }
        self.dirty = true;
        let key = Key::from_event(&ev);
        if self.overlays.help.is_some() {
            if self.overlays.input.is_some() {
                // The help's search.
                return self.line_input(ev);
            }
            let end = help::view::max_scroll(&self.view());
            // A page keeps its last row in sight, at the top.
            let page = help::view::rows(self.shell.height).saturating_sub(1);
            help::update::key(&mut self.overlays, &self.shell.keymap, end, page, key);
            return Vec::new();
        }
        if let Some(ic) = self.overlays.intercept.as_mut().filter(|i| i.open) {
            // As on the panes: a key ends the last notice.
            self.shell.notice = None;
            let base = self.shell.theme.base();
            return match intercept::update::key(ic, &self.shell.keymap, ev, base) {
                intercept::update::Outcome::Done(cmds) => {
                    self.route(cmds);
                    self.finish(Then::Nothing)
                }
                intercept::update::Outcome::Global(a) => self.apply(a),
            };
        }
        if self.overlays.asks.roots_editor.is_some() || self.overlays.asks.open {
            let mut cx = asks::update::AsksCx {
                asks: &mut self.overlays.asks,
                rounds: &mut self.overlays.rounds,
                notice: None,
            };
            let effects = if cx.asks.roots_editor.is_some() {
                asks::update::roots_key(&mut cx, ev)
            } else {
                asks::update::key(&mut cx, ev)
            };
            if let Some(n) = cx.notice {
                self.shell.notice = Some(n);
            }
            return effects;
        }
        if self.overlays.argform.is_some() {
            let now = self.trace.now_us();
            let browse = &mut self.panes.tools.browse;
            return argform::update::key(&mut self.overlays.argform, browse, ev, now);
        }
        if self.overlays.input.is_some() {
            return self.line_input(ev);
        }
        if self.shell.focus == Pane::Composer && self.panes.composer.editing {
            if let Some(a) = self.shell.keymap.lookup(Context::Editor, key) {
                return self.apply(a);
            }
            self.panes.composer.type_key(ev);
            return Vec::new();
        }
        self.shell.notice = None;
        let action = self
            .shell
            .keymap
            .lookup(self.view().key_context(), key)
            .or_else(|| self.shell.keymap.lookup(Context::Global, key));
        match action {
            Some(a) => self.apply(a),
            None => Vec::new(),
        }
    }

    /// A key for the status line's text field: a changed filter shows its
    /// rows at once.
    fn line_input(&mut self, ev: KeyEvent) -> Vec<Effect> {
        if let Some(set) = status::update::key(&mut self.overlays.input, ev) {
            self.route(vec![set]);
            return self.finish(Then::Sync);
        }
        Vec::new()
    }

    pub fn handle_paste(&mut self, text: &str) {
        self.dirty = true;
        let now = self.trace.now_us();
        if let Some(ic) = self.overlays.intercept.as_mut().filter(|i| i.open) {
            intercept::update::paste(ic, text);
        } else if self.overlays.argform.is_some() {
            argform::update::paste(&mut self.overlays.argform, text, now);
        } else if let Some(set) = status::update::paste(&mut self.overlays.input, text) {
            self.route(vec![set]);
            self.finish(Then::Sync);
        } else if self.shell.focus == Pane::Composer {
            self.panes.composer.paste(text);
        }
    }

    /// A click or wheel turn, tested against the last frame drawn. Before
    /// any frame of this size was drawn (tests, right after a resize), the
    /// sync step prepares one from the store to test it against.
    pub fn handle_mouse(&mut self, ev: MouseEvent) -> Vec<Effect> {
        if self.overlays.help.is_some()
            || self.overlays.input.is_some()
            || self.overlays.asks.open
            || self.overlays.argform.is_some()
            || self.overlays.asks.roots_editor.is_some()
            || self.intercept_open()
        {
            return Vec::new();
        }
        let size = (self.shell.width, self.shell.height);
        match self.frame.take().filter(|m| m.size == size) {
            Some(map) => {
                let settle = self.mouse(ev, &map);
                self.frame = Some(map);
                self.finish(if settle { Then::Settle } else { Then::Nothing })
            }
            None => {
                self.queued.push(Command::Click(ev));
                self.finish(Then::Nothing)
            }
        }
    }

    /// The update for a mouse event against `map`; true when the sync
    /// step settles after it.
    fn mouse(&mut self, ev: MouseEvent, map: &FrameMap) -> bool {
        let left = matches!(ev.kind, MouseEventKind::Down(MouseButton::Left));
        if left && let Some(tab) = map.tab_at(ev.column, ev.row) {
            if let Some(p) = tab {
                self.focus(p);
            }
            return false;
        }
        let Some(pm) = map.pane_at(ev.column, ev.row) else {
            return false;
        };
        self.dirty = true;
        let cx = self.cx(pm.pane);
        let cmds = match ev.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                self.focus(pm.pane);
                let tab = (pm.pane == Pane::Tools && ev.row == pm.area.y)
                    .then(|| {
                        super::panes::tools::browse_view::tab_at(&self.view(), pm.area, ev.column)
                    })
                    .flatten();
                match tab {
                    Some(tab) => {
                        let mut out = Vec::new();
                        self.panes.tools.show(tab, self.shell.live, &mut out);
                        out
                    }
                    None => self.panes.input(pm.pane).click(pm.item_at(ev.row), &cx),
                }
            }
            MouseEventKind::ScrollUp => self.panes.input(pm.pane).scroll(-3, &cx),
            MouseEventKind::ScrollDown => self.panes.input(pm.pane).scroll(3, &cx),
            _ => return false,
        };
        self.route(cmds);
        true
    }

    // --------------------------------------------------------------- update

    /// The update function: one action, its state change, its effects.
    pub fn apply(&mut self, action: Action) -> Vec<Effect> {
        use Action::*;
        self.dirty = true;
        let focus = self.shell.focus;
        let cx = self.cx(focus);
        // Rows a page key moves: what the pane shows.
        let page = cx.rows.max(1) as isize;
        let live = self.shell.live;
        let cmds: Commands = match action {
            Quit => {
                self.quit = true;
                return vec![Effect::Quit];
            }
            Help => {
                self.overlays.help = Some(0);
                Vec::new()
            }
            Intercept => match self.overlays.intercept.as_mut() {
                Some(ic) => {
                    ic.open = !ic.open;
                    Vec::new()
                }
                None => vec![Command::Notice(
                    "breakpoints need a proxy started with --intercept: mcpscope attach NAME --intercept"
                        .into(),
                )],
            },
            EditRoots => {
                self.overlays.asks.edit_roots();
                Vec::new()
            }
            AnswerServer => {
                if self.overlays.asks.waiting.is_empty() {
                    vec![Command::Notice("no server request is waiting".into())]
                } else {
                    self.overlays.asks.open = true;
                    Vec::new()
                }
            }
            Back => {
                if focus == Pane::Tools && self.panes.tools.back() {
                    // From a read resource or a prompt's messages back to the list.
                    Vec::new()
                } else if self.panes.composer.editing {
                    self.panes.composer.set_editing(false);
                    Vec::new()
                } else if self.shell.zoom {
                    self.shell.zoom = false;
                    Vec::new()
                } else if focus == Pane::Timeline {
                    self.panes.timeline.back()
                } else {
                    Vec::new()
                }
            }
            FocusNext | FocusPrev => {
                let v = self.view();
                let p = focus.step(action == FocusNext, |p| v.offers(p));
                vec![Command::Focus(p)]
            }
            FocusComposer if !self.view().offers(Pane::Composer) => vec![Command::Notice(
                "read-only: nothing can be sent from here".into(),
            )],
            Zoom => {
                self.shell.zoom = !self.shell.zoom;
                Vec::new()
            }
            CycleLayout => {
                let a = self.shell.arrangement.next();
                self.shell.arrangement = a;
                vec![Command::Notice(format!(
                    "layout: {} (layout = \"{}\" in settings.toml starts with it)",
                    a.name(),
                    a.name()
                ))]
            }
            Up => self.panes.input(focus).scroll(-1, &cx),
            Down => self.panes.input(focus).scroll(1, &cx),
            PageUp => self.panes.input(focus).scroll(-page, &cx),
            PageDown => self.panes.input(focus).scroll(page, &cx),
            Top => self.panes.input(focus).scroll(isize::MIN / 2, &cx),
            Bottom => self.panes.input(focus).scroll(isize::MAX / 2, &cx),
            Filter => match self.panes.input(focus).filter() {
                Some(t) => vec![Command::Input(t)],
                None => Vec::new(),
            },
            Search => vec![Command::Input(InputTarget::RawSearch)],
            ClearFilter => {
                self.panes.input(focus).set_filter("");
                vec![Command::Rescan]
            }
            Follow => {
                if !self.panes.input(focus).follow() {
                    self.panes.timeline.follow = true;
                }
                Vec::new()
            }
            Send if self.shell.conn.ended() => {
                // A call now could only fail: say what to do instead.
                let restart = self
                    .shell
                    .keymap
                    .keys_for(super::keymap::Context::Global, Restart)
                    .first()
                    .map_or_else(|| "the restart key".to_string(), |k| k.to_string());
                vec![Command::Notice(format!(
                    "the server has stopped: {restart} restarts it (the composer is kept), then send"
                ))]
            }
            Edit | StopEdit | Send | CycleToken | EditToken | CycleLogLevel | IdleDown | IdleUp
            | MaxDown | MaxUp | ToggleRawMode | ResetArgs | CopyCommand | ToggleTask => {
                let p = &mut self.panes;
                let sh = &self.shell;
                p.composer
                    .apply(action, &p.tools, &sh.server_cli, sh.live, &sh.theme)
            }
            CancelCall | CycleByteMode | ClearFinished | Details | AnswerInput | ShowLane => {
                let key = match focus {
                    Pane::Timeline => Some(self.panes.timeline.selected_call.clone()),
                    _ => None,
                };
                let sel = match &key {
                    Some(k) => Selection::Timeline(k.as_ref()),
                    None => Selection::Progress,
                };
                self.panes.progress.apply(action, sel, live)
            }
            ToggleClock => {
                let wall = self.panes.scope.wall.is_some();
                self.panes.timeline.toggle_clock(wall)
            }
            ReplayPause | ReplayStep | ReplayBack | ReplayFaster | ReplaySlower | ReplayEnd => {
                self.replay_action(action)
            }
            Restart => self.restart_session(),
            SaveTest => vec![Command::SaveTest],
            SaveHtml => vec![Command::SaveHtml],
            a => match Pane::focused_by(a) {
                Some(p) => vec![Command::Focus(p)],
                // The other actions are a pane's own (`PaneSpec::ACTIONS`).
                None => match Pane::owner(a) {
                    Some(p) => {
                        let cx = self.cx(p);
                        self.panes.act(p, a, &cx)
                    }
                    None => Vec::new(),
                },
            },
        };
        self.route(cmds);
        self.finish(Then::SyncIfRescan)
    }

    /// Start a live session again once its server exited or its
    /// connection failed. Everything on screen stays: the new session's
    /// events follow the `restart` marker in the same trace.
    fn restart_session(&mut self) -> Commands {
        let notice = |n: &str| vec![Command::Notice(n.into())];
        if !self.shell.live {
            return notice("nothing to restart: no server was started here");
        }
        if self.restart.restarting {
            return notice("already restarting");
        }
        if !self.shell.conn.ended() {
            return notice(
                "the server is running: a restart is offered once it exits or the connection fails",
            );
        }
        self.restart.count += 1;
        self.restart.restarting = true;
        self.shell.conn = Conn::Starting;
        let attempt = self.restart.count;
        let what = if self.shell.server.transport == "stdio" {
            "restarting the server"
        } else {
            "connecting to the server again"
        };
        vec![
            Command::Notice(format!(
                "{what} (restart {attempt}); the history and the composer stay"
            )),
            Command::Effect(Effect::Restart { attempt }),
        ]
    }

    fn replay_action(&mut self, action: Action) -> Commands {
        let Some(p) = &mut self.playback else {
            return vec![Command::Notice(
                "playback keys work in a replay: mcpscope replay FILE".into(),
            )];
        };
        let mut out = Vec::new();
        match action {
            Action::ReplayPause => p.toggle_pause(),
            Action::ReplayStep if !p.step() => {
                out.push(Command::Notice(
                    "end of the trace: nothing left to step".into(),
                ));
            }
            Action::ReplayBack => {
                if p.step_back() {
                    self.shell.replay = Some(p.view());
                    self.rewound();
                } else {
                    out.push(Command::Notice(
                        "start of the trace: nothing to step back to".into(),
                    ));
                }
            }
            Action::ReplayFaster => p.change_speed(true),
            Action::ReplaySlower => p.change_speed(false),
            Action::ReplayEnd => p.jump_to_end(),
            _ => {}
        }
        if let Some(p) = &self.playback {
            self.shell.replay = Some(p.view());
        }
        self.release_findings();
        self.behind = true;
        self.rescan = true;
        out
    }
}

/// Why a `--run-file` gives no calls. `name` is the file's name as shown
/// (clipped).
#[derive(Debug, thiserror::Error)]
pub enum RunFileError {
    #[error("--run-file {name}: {source}")]
    Read {
        name: String,
        #[source]
        source: std::io::Error,
    },
    #[error("--run-file {name}: {bytes} bytes, more than the 1 MiB a list of calls may take")]
    TooLarge { name: String, bytes: u64 },
    /// A line that is not `TOOL JSON`: [`parse_run`]'s sentence.
    #[error("{name}:{line}: {why}")]
    Line {
        name: String,
        line: usize,
        why: String,
    },
}

/// The calls of a `--run-file`: one `TOOL JSON` a line, blank lines and
/// `#` comments skipped; an error names the line. The file is read whole
/// up to 1 MiB (a list of calls, not data).
pub fn read_run_file(path: &std::path::Path) -> Result<Vec<(String, Value)>, RunFileError> {
    const MAX: u64 = 1 << 20;
    let name = crate::tui::format::safe(&path.display().to_string(), 200);
    let read = |source| RunFileError::Read {
        name: name.clone(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(read)?;
    if meta.len() > MAX {
        return Err(RunFileError::TooLarge {
            name: name.clone(),
            bytes: meta.len(),
        });
    }
    let text = std::fs::read_to_string(path).map_err(read)?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        out.push(parse_run(line).map_err(|why| RunFileError::Line {
            name: name.clone(),
            line: n + 1,
            why,
        })?);
    }
    Ok(out)
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
