//! The composer's state: which tool, the JSON arguments (a textarea), the
//! progress-token mode, log level and timeouts, validation, the equivalent
//! `mcpscope call` command, and a raw mode for any JSON-RPC message. It
//! also builds the retry that answers an `input_required` result.

pub mod update;
pub mod view;

use crate::client::{Limits, TokenPolicy};
use crate::protocol::IdKey;
use crate::protocol::views::LogLevel;
use crate::tui::action::{Action, Effect};
use crate::tui::calls::{InputAsk, InputNeeded};
use crate::tui::format::shell_quote;
use crate::tui::panes::{Actions, Keys, PaneSpec, Start};
use crate::tui::schema;
use crate::tui::theme::Theme;
use ratatui::style::{Modifier, Style};
use ratatui_textarea::TextArea;
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenMode {
    AutoString,
    AutoInt,
    Custom,
    None,
}

impl TokenMode {
    /// The mode after this one: auto string → auto integer → none, then
    /// the custom token when one was typed (with `T`), never a prompt.
    pub fn next(self, have_custom: bool) -> TokenMode {
        match self {
            TokenMode::AutoString => TokenMode::AutoInt,
            TokenMode::AutoInt => TokenMode::None,
            TokenMode::None if have_custom => TokenMode::Custom,
            TokenMode::None | TokenMode::Custom => TokenMode::AutoString,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            TokenMode::AutoString => "auto string",
            TokenMode::AutoInt => "auto integer",
            TokenMode::Custom => "custom",
            TokenMode::None => "none",
        }
    }
}

/// Timeout choices, in seconds; `None` is "off".
const TIMEOUTS: [Option<u64>; 10] = [
    None,
    Some(5),
    Some(10),
    Some(30),
    Some(60),
    Some(120),
    Some(300),
    Some(600),
    Some(1800),
    Some(3600),
];

pub use crate::session::spec::ServerCli;

/// What validation found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Check {
    /// Blocks sending (the text is not JSON, or not a message in raw mode).
    pub error: Option<String>,
    /// Shown, but sending is allowed: testing a server's validation is legitimate.
    pub warnings: Vec<String>,
}

/// Why pressing send sends nothing; the notice says it after "not sent: ".
#[derive(Debug, thiserror::Error)]
pub enum NotSent {
    /// What validation found blocking ([`Check::error`]).
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Json(#[source] serde_json::Error),
    #[error("a raw message needs a string \"method\"")]
    NoMethod,
    #[error("no tool selected: pick one in Tools")]
    NoTool,
    #[error("the custom progress token is empty (T to type one)")]
    EmptyToken,
}

pub struct Composer {
    pub tool: Option<String>,
    pub schema: Value,
    pub args: TextArea<'static>,
    pub raw: TextArea<'static>,
    pub raw_mode: bool,
    pub editing: bool,
    pub token: TokenMode,
    pub custom_token: String,
    /// The token mode when the custom token's field was opened: Esc there
    /// restores it.
    pub token_before: Option<TokenMode>,
    pub level: Option<LogLevel>,
    /// The user cycled the level: a handshake no longer picks it.
    level_chosen: bool,
    pub idle_secs: Option<u64>,
    pub max_secs: Option<u64>,
    /// Ask for task execution where the tool allows it (`optional`).
    pub as_task: bool,
    pub check: Check,
    /// Arguments typed per tool, restored when the user comes back to it.
    saved: HashMap<String, Vec<String>>,
    cursor_style: Style,
}

fn editor(lines: Vec<String>, theme: &Theme) -> TextArea<'static> {
    let mut t = TextArea::new(lines);
    t.set_style(theme.base());
    t.set_cursor_line_style(Style::default());
    t.set_line_number_style(theme.muted());
    t.set_cursor_style(Style::default());
    t.set_tab_length(2);
    t
}

const RAW_TEMPLATE: &str =
    "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": \"raw-1\",\n  \"method\": \"ping\"\n}";

impl Composer {
    pub fn new(theme: &Theme, idle_secs: Option<u64>, max_secs: Option<u64>) -> Composer {
        let mut c = Composer {
            tool: None,
            schema: Value::Null,
            args: editor(vec!["{}".into()], theme),
            raw: editor(RAW_TEMPLATE.lines().map(str::to_string).collect(), theme),
            raw_mode: false,
            editing: false,
            token: TokenMode::AutoString,
            custom_token: String::new(),
            token_before: None,
            level: None,
            level_chosen: false,
            idle_secs,
            max_secs,
            as_task: false,
            check: Check::default(),
            saved: HashMap::new(),
            cursor_style: Style::default().add_modifier(Modifier::REVERSED),
        };
        c.validate();
        c
    }

    pub fn editor(&self) -> &TextArea<'static> {
        if self.raw_mode { &self.raw } else { &self.args }
    }

    pub fn editor_mut(&mut self) -> &mut TextArea<'static> {
        if self.raw_mode {
            &mut self.raw
        } else {
            &mut self.args
        }
    }

    pub fn set_editing(&mut self, on: bool) {
        self.editing = on;
        let style = if on {
            self.cursor_style
        } else {
            Style::default()
        };
        self.args.set_cursor_style(style);
        self.raw.set_cursor_style(style);
    }

    /// Select a tool: restore what was typed for it, or start from its schema.
    pub fn load_tool(&mut self, name: &str, schema: &Value, theme: &Theme) {
        if let Some(prev) = &self.tool {
            self.saved.insert(prev.clone(), self.args.lines().to_vec());
        }
        self.tool = Some(name.to_string());
        self.schema = schema.clone();
        let lines = match self.saved.get(name) {
            Some(l) => l.clone(),
            None => template_lines(schema),
        };
        self.args = editor(lines, theme);
        self.set_editing(self.editing);
        self.raw_mode = false;
        self.validate();
    }

    /// The arguments a call of `tool` really sent (`--run TOOL JSON`):
    /// from now on the composer shows them for that tool, not the schema's
    /// defaults, so sending again repeats that call. The last call wins.
    pub fn remember_sent(&mut self, tool: &str, args: &Value, theme: &Theme) {
        let lines = json_lines(args);
        if self.tool.as_deref() == Some(tool) {
            self.args = editor(lines, theme);
            self.set_editing(self.editing);
            self.validate();
        } else {
            self.saved.insert(tool.to_string(), lines);
        }
    }

    pub fn reset_args(&mut self, theme: &Theme) {
        if self.raw_mode {
            self.raw = editor(RAW_TEMPLATE.lines().map(str::to_string).collect(), theme);
        } else {
            self.args = editor(template_lines(&self.schema), theme);
        }
        self.set_editing(self.editing);
        self.validate();
    }

    pub fn text(&self) -> String {
        self.editor().lines().join("\n")
    }

    pub fn validate(&mut self) {
        self.check = Check::default();
        let text = self.text();
        let v: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                self.check.error = Some(format!("line {} col {}: {e}", e.line(), e.column()));
                return;
            }
        };
        if self.raw_mode {
            match v.get("method") {
                Some(Value::String(_)) => {}
                _ => self.check.error = Some("a raw message needs a string \"method\"".into()),
            }
            if let Some(p) = v.get("params")
                && !(p.is_object() || p.is_array())
            {
                self.check
                    .warnings
                    .push("\"params\" should be an object or an array".into());
            }
        } else {
            if !v.is_object() {
                self.check.error = Some("arguments must be a JSON object".into());
                return;
            }
            self.check.warnings = schema::check(&self.schema, &v);
            if self.tool.is_none() {
                self.check
                    .warnings
                    .insert(0, "no tool selected: pick one in Tools".into());
            }
        }
    }

    pub fn token_policy(&self) -> TokenPolicy {
        match self.token {
            TokenMode::AutoString => TokenPolicy::AutoString,
            TokenMode::AutoInt => TokenPolicy::AutoInt,
            TokenMode::None => TokenPolicy::None,
            TokenMode::Custom => TokenPolicy::parse(self.custom_token.trim()),
        }
    }

    pub fn limits(&self) -> Limits {
        Limits {
            idle: self.idle_secs.map(Duration::from_secs),
            max: self.max_secs.map(Duration::from_secs),
        }
    }

    pub fn step_idle(&mut self, up: bool) {
        self.idle_secs = step(self.idle_secs, up);
    }
    pub fn step_max(&mut self, up: bool) {
        self.max_secs = step(self.max_secs, up);
    }
    pub fn cycle_level(&mut self) {
        self.level_chosen = true;
        self.level = match self.level {
            None => Some(LogLevel::Debug),
            Some(LogLevel::Emergency) => None,
            Some(l) => LogLevel::ALL.get(l.index() + 1).copied(),
        };
    }

    /// The level a session starts with, unless the user chose one. At
    /// 2026-07-28 a server logs only for requests that ask for a level
    /// (the era has no server default, unlike `initialize`), so a server
    /// declaring `logging` is asked for every level rather than leaving the
    /// Logs pane dark; `l` changes it.
    pub fn level_for_session(&mut self, stateless: bool, logging: bool) {
        if !self.level_chosen && self.level.is_none() && stateless && logging {
            self.level = Some(LogLevel::Debug);
        }
    }

    /// The effect of pressing send, or why it cannot be sent.
    pub fn effect(&self) -> Result<Effect, NotSent> {
        if let Some(e) = &self.check.error {
            return Err(NotSent::Invalid(e.clone()));
        }
        let v: Value = serde_json::from_str(&self.text()).map_err(NotSent::Json)?;
        if self.raw_mode {
            let method = v
                .get("method")
                .and_then(Value::as_str)
                .ok_or(NotSent::NoMethod)?
                .to_string();
            return Ok(Effect::Raw {
                id: v.get("id").map(IdKey::from_value),
                method,
                params: v.get("params").cloned(),
                limits: self.limits(),
            });
        }
        let tool = self.tool.clone().ok_or(NotSent::NoTool)?;
        if self.token == TokenMode::Custom && self.custom_token.trim().is_empty() {
            return Err(NotSent::EmptyToken);
        }
        Ok(Effect::Call {
            tool,
            args: v,
            token: self.token_policy(),
            level: self.level,
            limits: self.limits(),
            // The caller knows the tool's taskSupport (see `State::composer_task`).
            task: self.as_task,
        })
    }

    /// Put a whole message in the raw editor (raw mode on), e.g. a retry
    /// answering an `input_required` result.
    pub fn load_raw(&mut self, msg: &Value, theme: &Theme) {
        let text = serde_json::to_string_pretty(msg).unwrap_or_else(|_| msg.to_string());
        self.raw = editor(text.lines().map(str::to_string).collect(), theme);
        self.raw_mode = true;
        self.set_editing(self.editing);
        self.validate();
    }

    /// The headless command doing the same call.
    pub fn command_line(&self, server: &ServerCli) -> String {
        self.command_line_with(server, false)
    }

    /// The same, with `--task` when the call asks for task execution (a
    /// tool that requires it runs as a task headless without the flag).
    pub fn command_line_with(&self, server: &ServerCli, task_flag: bool) -> String {
        if self.raw_mode {
            return "(raw messages have no `mcpscope call` equivalent)".into();
        }
        let tool = self.tool.as_deref().unwrap_or("TOOL");
        let args = serde_json::from_str::<Value>(&self.text())
            .map(|v| v.to_string())
            .unwrap_or_else(|_| self.text());
        let mut cmd = "mcpscope call".to_string();
        if !server.options.is_empty() {
            cmd.push(' ');
            cmd.push_str(&server.options);
        }
        cmd.push_str(&format!(" --tool {}", shell_quote(tool)));
        if args != "{}" {
            cmd.push_str(&format!(" --args {}", shell_quote(&args)));
        }
        if task_flag {
            cmd.push_str(" --task");
        }
        let token = match self.token {
            TokenMode::AutoString => None,
            TokenMode::AutoInt => Some("auto-int".to_string()),
            TokenMode::None => Some("none".to_string()),
            TokenMode::Custom => Some(self.custom_token.trim().to_string()),
        };
        if let Some(t) = token {
            cmd.push_str(&format!(" --token {}", shell_quote(&t)));
        }
        if let Some(l) = self.level {
            cmd.push_str(&format!(" --log-level {l}"));
        }
        // The headless command has no "off": a day stands in for it.
        let secs = |s: Option<u64>| s.unwrap_or(86_400);
        if self.idle_secs != Some(60) {
            cmd.push_str(&format!(" --timeout {}", secs(self.idle_secs)));
        }
        if self.max_secs != Some(600) {
            cmd.push_str(&format!(" --max-timeout {}", secs(self.max_secs)));
        }
        if !server.command.is_empty() {
            cmd.push_str(" -- ");
            cmd.push_str(&server.command);
        }
        cmd
    }
}

/// A skeleton answer to one input request, for the user to complete: an
/// elicitation accepted with every requested field (defaults filled in),
/// an empty root list, an empty sampled message.
pub fn answer_skeleton(ask: &InputAsk) -> Value {
    match ask.method.as_str() {
        crate::protocol::methods::ELICIT => {
            let schema = ask
                .params
                .get("requestedSchema")
                .cloned()
                .unwrap_or(Value::Null);
            serde_json::json!({"action": "accept", "content": schema::skeleton(&schema)})
        }
        crate::protocol::methods::ROOTS_LIST => serde_json::json!({"roots": []}),
        "sampling/createMessage" => serde_json::json!({
            "role": "assistant",
            "content": {"type": "text", "text": ""},
            "model": "mcpscope"
        }),
        _ => serde_json::json!({}),
    }
}

/// The `tools/call` that answers an `input_required` result: the original
/// request's params (`original`, from the stored request) with
/// `inputResponses` (one skeleton per input request) and the echoed
/// `requestState`, under a new id and progress token. The original's
/// `_meta` is dropped but for the token: the session adds the era's
/// envelope again when sending.
pub fn answer_message(original: &Value, input: &InputNeeded, id: &str, token: &str) -> Value {
    let responses: serde_json::Map<String, Value> = input
        .asks
        .iter()
        .map(|a| (a.key.clone(), answer_skeleton(a)))
        .collect();
    let params = crate::tui::input_rounds::retry_params(
        original,
        responses,
        input.request_state.as_ref(),
        token,
    );
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": crate::protocol::methods::TOOLS_CALL,
        "params": params,
    })
}

fn step(cur: Option<u64>, up: bool) -> Option<u64> {
    let on: Vec<u64> = TIMEOUTS.iter().flatten().copied().collect();
    match (cur, up) {
        (None, true) => None,
        (None, false) => on.last().copied(),
        (Some(c), true) => on.iter().copied().find(|t| *t > c),
        (Some(c), false) => on.iter().rev().copied().find(|t| *t < c).or(Some(c)),
    }
}

fn template_lines(schema: &Value) -> Vec<String> {
    json_lines(&schema::template(schema))
}

/// A JSON value as the editor's lines, pretty-printed.
fn json_lines(v: &Value) -> Vec<String> {
    serde_json::to_string_pretty(v)
        .unwrap_or_else(|_| "{}".into())
        .lines()
        .map(str::to_string)
        .collect()
}

/// Its actions read the Tools pane and the shell: the App routes them
/// (`App::apply`).
impl PaneSpec for Composer {
    const TITLE: &'static str = "Composer";
    const NAME: &'static str = "composer";
    const FOCUS: Option<Action> = Some(Action::FocusComposer);
    const KEYS: Keys = {
        use Action::*;
        &[
            (&["enter", "e", "i"], Edit),
            (&["s", "ctrl-s"], Send),
            (&["t"], CycleToken),
            (&["T"], EditToken),
            (&["l"], CycleLogLevel),
            (&["["], IdleDown),
            (&["]"], IdleUp),
            (&["{"], MaxDown),
            (&["}"], MaxUp),
            (&["r"], ToggleRawMode),
            (&["R"], ResetArgs),
            (&["y"], CopyCommand),
            (&["x"], ToggleTask),
        ]
    };
    const HINTS: Actions = {
        use Action::*;
        &[
            Edit,
            Send,
            CycleToken,
            CycleLogLevel,
            IdleUp,
            ToggleRawMode,
            CopyCommand,
        ]
    };

    fn start(s: &Start) -> Self {
        Composer::new(s.theme, s.idle_timeout_secs, s.max_timeout_secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_step_through_presets() {
        assert_eq!(step(Some(60), true), Some(120));
        assert_eq!(step(Some(3600), true), None);
        assert_eq!(step(None, true), None);
        assert_eq!(step(None, false), Some(3600));
        assert_eq!(step(Some(5), false), Some(5));
        assert_eq!(step(Some(7), false), Some(5));
    }
}
