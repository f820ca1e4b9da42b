//! Intent and side effects. `Action` is what a key means (named, so key
//! bindings are data); `Effect` is work the runtime performs for the state
//! (talking to the server, the clipboard); `Msg` is a result coming back.

use crate::checks::Finding;
use crate::client::{Limits, TokenPolicy};
use crate::protocol::IdKey;
use crate::protocol::views::{InitializeResult, LogLevel};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Everything a key (or mouse gesture) can ask for. Names are the keys of
/// the `[keys.*]` tables in the settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Quit,
    Help,
    Back,
    FocusNext,
    FocusPrev,
    FocusTools,
    FocusComposer,
    FocusProgress,
    FocusTimeline,
    FocusLogs,
    FocusRaw,
    FocusFindings,
    FocusNetwork,
    FocusScope,
    Zoom,
    /// Auto → full → tabs: how the panes are arranged.
    CycleLayout,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Filter,
    ClearFilter,
    /// Timeline: type a filter in the filter language.
    FilterExpr,
    UseTool,
    Edit,
    StopEdit,
    Send,
    CycleToken,
    EditToken,
    CycleLogLevel,
    IdleDown,
    IdleUp,
    MaxDown,
    MaxUp,
    ToggleRawMode,
    ResetArgs,
    CopyCommand,
    ToggleTask,
    CancelCall,
    ShowLane,
    CycleByteMode,
    ClearFinished,
    Follow,
    CycleKind,
    CycleKindBack,
    ClearLane,
    ToggleClock,
    LevelUp,
    LevelDown,
    ToggleStderr,
    Expand,
    ToggleBytes,
    Search,
    NextMatch,
    PrevMatch,
    Copy,
    ShowFrame,
    Details,
    AnswerInput,
    AnswerServer,
    EditRoots,
    ShowChannel,
    ReplayPause,
    ReplayStep,
    ReplayBack,
    ReplayFaster,
    ReplaySlower,
    ReplayEnd,
    NextTab,
    PrevTab,
    Open,
    Subscribe,
    Refresh,
    ZoomIn,
    ZoomOut,
    ZoomFit,
    PanLeft,
    PanRight,
    CursorLeft,
    CursorRight,
    PrevEvent,
    NextEvent,
    ShowEvent,
    ToggleStreams,
    Restart,
    SaveTest,
    SaveHtml,
    /// `attach --intercept`: open or close the breakpoints overlay.
    Intercept,
    SetBreakpoint,
    ClearBreakpoint,
    ForwardHeld,
    EditHeld,
    DropHeld,
    Forge,
    /// In the forge editor: to the host ↔ to the server.
    ForgeSide,
}

impl Action {
    /// A playback key: it only means something in `mcpscope replay`.
    pub fn is_replay(self) -> bool {
        use Action::*;
        matches!(
            self,
            ReplayPause | ReplayStep | ReplayBack | ReplayFaster | ReplaySlower | ReplayEnd
        )
    }

    /// Talks to the server: nothing to offer while replaying a trace.
    pub fn needs_server(self) -> bool {
        matches!(
            self,
            Action::Send
                | Action::CancelCall
                | Action::AnswerInput
                | Action::AnswerServer
                | Action::EditRoots
                | Action::Open
                | Action::Subscribe
                | Action::Refresh
        )
    }

    /// One line for the help screen.
    pub fn describe(self) -> &'static str {
        use Action::*;
        match self {
            Quit => "quit (the server is shut down, the terminal restored)",
            Help => "show or hide this help",
            Back => "close help / stop editing / leave a mode",
            FocusNext => "focus the next pane",
            FocusPrev => "focus the previous pane",
            FocusTools => "focus Tools",
            FocusComposer => "focus Composer",
            FocusProgress => "focus Progress",
            FocusTimeline => "focus Timeline",
            FocusLogs => "focus Logs",
            FocusRaw => "focus Raw",
            FocusFindings => "focus Findings",
            FocusNetwork => "focus Network (HTTP exchanges)",
            FocusScope => "focus Scope (the session on a time axis)",
            Zoom => "zoom the focused pane to full screen (again to restore)",
            CycleLayout => "cycle the layout: auto → full → tabs (settings.toml: layout)",
            Up => "move up / scroll up",
            Down => "move down / scroll down",
            PageUp => "page up",
            PageDown => "page down",
            Top => "go to the first row",
            Bottom => "go to the last row",
            Filter => "type a text filter (Enter keeps it, Esc drops it)",
            ClearFilter => "clear the text filter",
            FilterExpr => {
                "type a filter expression: tool == x && progress, level >= warning (docs/filters.md)"
            }
            UseTool => "load the selected tool into the composer",
            Edit => "edit the JSON arguments (Esc stops editing)",
            StopEdit => "stop editing",
            Send => "send the call (or the raw message)",
            CycleToken => {
                "progress token: auto string → auto integer → none (→ the custom one, once typed)"
            }
            EditToken => "type a custom progress token",
            CycleLogLevel => "log level to request (logging/setLevel) before sending",
            IdleDown => "shorter idle timeout",
            IdleUp => "longer idle timeout",
            MaxDown => "shorter max timeout",
            MaxUp => "longer max timeout",
            ToggleRawMode => "switch between tools/call and a raw JSON-RPC message",
            ResetArgs => "refill the arguments from the tool's input schema",
            CopyCommand => "copy the equivalent `mcpscope call` command (OSC 52, or tmux's buffer)",
            ToggleTask => "run the call as a task or not (tools whose taskSupport is optional)",
            CancelCall => {
                "cancel the selected call (notifications/cancelled; tasks/cancel once it runs as a task)"
            }
            ShowLane => "show the selected call's lane in the timeline",
            CycleByteMode => "progress units: auto → bytes → plain",
            ClearFinished => "forget finished calls",
            Follow => "follow new events (scrolling up stops following)",
            CycleKind => "filter by kind: next",
            CycleKindBack => "filter by kind: previous",
            ClearLane => "leave the lane and show every event",
            ToggleClock => "times: since the session started ↔ by the wall clock",
            LevelUp => "raise the minimum level shown",
            LevelDown => "lower the minimum level shown",
            ToggleStderr => "show or hide server stderr lines",
            Expand => "expand or fold the selected entry",
            ToggleBytes => "pretty JSON ↔ exact bytes",
            Search => "search in the frame",
            NextMatch => "next match",
            PrevMatch => "previous match",
            Copy => "copy the frame to the clipboard (OSC 52, or tmux's buffer)",
            ShowFrame => "show the finding's frame in Timeline and Raw (again: its next frame)",
            Details => "details of the selected call: timing statistics",
            AnswerInput => {
                "answer a call's input_required result: a retry in the composer (raw mode)"
            }
            AnswerServer => "answer the server's waiting request (a form, a URL, a sampling reply)",
            EditRoots => "edit the roots offered to the server (roots/list; it is told of changes)",
            ShowChannel => "show the exchange's channel (its stream) in the timeline",
            ReplayPause => "replay: pause / resume",
            ReplayStep => "replay: feed one event (and pause)",
            ReplayBack => "replay: step back one event (and pause)",
            ReplayFaster => "replay: faster (up to ×16)",
            ReplaySlower => "replay: slower (down to ×0.5)",
            ReplayEnd => "replay: jump to the end of the trace",
            NextTab => "next tab of the Tools pane: Tools → Resources → Prompts",
            PrevTab => "previous tab of the Tools pane",
            Open => "read the resource, or fill the template's or prompt's form",
            Subscribe => "subscribe to the resource (again: unsubscribe); updates count on it",
            Refresh => "list again (every page)",
            ZoomIn => "time scale: less time per screen width (down to 1 ms)",
            ZoomOut => "time scale: more time per screen width (up to 10 minutes)",
            ZoomFit => {
                "time scale: the whole session on one screen, which then stays put (f follows)"
            }
            PanLeft => "look earlier by half a screen (stops following)",
            PanRight => "look later by half a screen (reaching the live edge follows it)",
            CursorLeft => "cursor one column earlier",
            CursorRight => "cursor one column later",
            PrevEvent => "cursor to the selected lane's previous event (the view follows it)",
            NextEvent => "cursor to the selected lane's next event (the view follows it)",
            ShowEvent => "show the event under the cursor in Timeline and Raw",
            ToggleStreams => "HTTP: a lane per stream (channel), or not",
            Restart => {
                "once the server exited or the connection failed: start it again (connect again over HTTP), keeping the history and the composer"
            }
            SaveTest => "save the session as a test file here (one case per call)",
            SaveHtml => "save the session as one HTML page here (opens offline in any browser)",
            Intercept => "attach --intercept: the breakpoint and the held messages (again: close)",
            SetBreakpoint => {
                "type the breakpoint filter: in && response, method == tools/call (docs/filters.md)"
            }
            ClearBreakpoint => "clear the breakpoint (what is held stays held)",
            ForwardHeld => "forward the selected held message as it is",
            EditHeld => "edit the selected held message, then forward it (Ctrl-S; Esc: back)",
            DropHeld => "drop the selected held message: its receiver never gets it",
            Forge => "forge a message to the host or the server (Ctrl-S sends it)",
            ForgeSide => "while forging: send it to the host ↔ to the server",
        }
    }
}

/// A side effect for the runtime to perform.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Call {
        tool: String,
        args: Value,
        token: TokenPolicy,
        level: Option<LogLevel>,
        limits: Limits,
        /// Ask for task execution (`params.task`), followed to the result.
        task: bool,
    },
    /// A raw JSON-RPC request (with an id) or notification (without).
    Raw {
        id: Option<IdKey>,
        method: String,
        params: Option<Value>,
        limits: Limits,
    },
    Cancel {
        id: IdKey,
    },
    /// `tasks/cancel` for a call running as a task.
    CancelTask {
        task_id: String,
    },
    /// The user's answer to a server request: a result or a JSON-RPC error.
    AnswerServer {
        id: IdKey,
        answer: Result<Value, (i64, String)>,
    },
    /// Replace the session's roots (and tell the server they changed).
    SetRoots(Vec<String>),
    /// Open a URL in the user's browser (`xdg-open`, `open` on macOS).
    OpenUrl(String),
    /// Write a test file made from the session (`text`) into the working
    /// directory as `STEM.toml` (`STEM-2.toml`, … when it exists).
    SaveTest {
        stem: String,
        text: String,
    },
    /// Write the session as one HTML page (`text`) into the working
    /// directory as `STEM.html` (`STEM-2.html`, … when it exists).
    SaveHtml {
        stem: String,
        text: String,
    },
    /// Put `text` on the clipboard (see `tui::clipboard`); `what` names it
    /// in the notice that says where it went.
    Copy {
        text: String,
        what: String,
    },
    /// A request of the Resources or Prompts tab (or a completion).
    Browse(super::browse::Req),
    /// Start the session again on the same server, into the same trace
    /// (`attempt` counts the restarts, from 1).
    Restart {
        attempt: u32,
    },
    /// A command to the intercepting proxy (`attach --intercept`).
    Intercept(crate::intercept::protocol::Command),
    Quit,
}

impl Effect {
    /// Sends something to the server (nothing can while it restarts).
    pub fn talks_to_server(&self) -> bool {
        matches!(
            self,
            Effect::Call { .. }
                | Effect::Raw { .. }
                | Effect::Cancel { .. }
                | Effect::CancelTask { .. }
                | Effect::AnswerServer { .. }
                | Effect::SetRoots(_)
                | Effect::Browse(_)
        )
    }
}

/// Results of effects and start-up work, back into the state.
#[derive(Debug, Clone)]
pub enum Msg {
    Handshake(Result<InitializeResult, String>),
    Tools(Result<Vec<Value>, String>),
    /// A call was given its id before it was sent (limits drive countdowns).
    CallPrepared {
        id: IdKey,
        limits: Limits,
    },
    /// A call ended without a response we can show (timeout, crash, error text).
    CallFailed {
        id: IdKey,
        why: String,
    },
    /// The server could not be reached any more (over HTTP, after the
    /// handshake): the session is as dead as an exited stdio server.
    ServerLost(String),
    /// A line for the status bar.
    Notice(String),
    /// Findings the live checks published since the last batch.
    Findings(Vec<Finding>),
    /// The session's roots at start.
    Roots(Vec<String>),
    /// A server request for the user to answer.
    ServerAsk(crate::client::ServerAsk),
    /// The result of a Resources/Prompts request (the error's text if it failed).
    Browse(super::browse::Req, Result<Value, String>),
    /// The old session is stopped and the `restart` marker (event `seq`)
    /// recorded: the new session's handshake follows.
    Restarted {
        attempt: u32,
        seq: u64,
    },
    /// What the intercepting proxy said, or that its connection ended.
    Intercept(crate::intercept::client::Event),
}
