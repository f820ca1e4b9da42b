//! Key bindings as data: a table of (context, key, action). Defaults live
//! here; the settings file can rebind any action per context. Dispatch looks
//! in the focused pane's context first, then in `global`.

use super::action::Action;
use super::pane::Pane;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::LazyLock;

/// Why a key name, or a `[keys.*]` binding of the settings file, is refused.
#[derive(Debug, thiserror::Error)]
pub enum KeymapError {
    #[error("unknown key {0:?}")]
    UnknownKey(String),
    /// A binding of the settings file; said in lower case (the table and
    /// action as the file spells them).
    #[error("{}", format!("[keys.{context:?}] {action:?}: {source}").to_lowercase())]
    Binding {
        context: Context,
        action: Action,
        source: Box<KeymapError>,
    },
}

/// Where a binding applies: everywhere, a pane (its `[keys.*]` table is
/// the pane's name), the JSON editor while it has the keyboard, or one of
/// the Tools pane's other tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Context {
    Global,
    Pane(Pane),
    /// While the JSON editor has the keyboard: everything else is typed.
    Editor,
    /// The Tools pane showing its Resources tab.
    Resources,
    /// The Tools pane showing its Prompts tab.
    Prompts,
    /// While the help overlay is open (its other keys are global ones).
    Help,
    /// While the Intercept overlay is open (`attach --intercept`); its
    /// editor takes the Composer's editor keys.
    Intercept,
}

/// The contexts besides the panes' own: the Tools pane's tabs, the
/// Composer's editor (they sit beside their pane in the lists below) and
/// the help overlay.
const EXTRA: [(&str, Context); 6] = [
    ("global", Context::Global),
    ("editor", Context::Editor),
    ("resources", Context::Resources),
    ("prompts", Context::Prompts),
    ("help", Context::Help),
    ("intercept", Context::Intercept),
];

/// The settings file's names of the contexts, in the order an unknown one
/// lists them: global, the left column's panes and the editor, the other
/// panes, the Tools pane's tabs, the help.
static NAMES: LazyLock<Vec<(&'static str, Context)>> = LazyLock::new(|| {
    let pane = |p: Pane| (p.name(), Context::Pane(p));
    let mut names = vec![EXTRA[0], pane(Pane::Tools), pane(Pane::Composer), EXTRA[1]];
    names.extend(
        Pane::ORDER
            .into_iter()
            .filter(|p| !LEFT.contains(p))
            .map(pane),
    );
    names.extend([EXTRA[2], EXTRA[3], EXTRA[4], EXTRA[5]]);
    names
});

/// The names alone, for the error an unknown one gets.
static EXPECTED: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| NAMES.iter().map(|(n, _)| *n).collect());

/// The panes of the wide layout's left column, each followed by the
/// contexts of its tabs or editor.
const LEFT: [Pane; 2] = [Pane::Tools, Pane::Composer];

impl<'de> Deserialize<'de> for Context {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Context, D::Error> {
        let name = String::deserialize(d)?;
        NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| *c)
            .ok_or_else(|| serde::de::Error::unknown_variant(&name, &EXPECTED))
    }
}

impl Context {
    /// Every context in the order help lists them: global, the left
    /// column's (Tools and its tabs, the Composer and its editor), then
    /// the other panes in focus order, and the help's own.
    pub fn all() -> Vec<Context> {
        let mut all = vec![
            Context::Global,
            Context::Pane(Pane::Tools),
            Context::Resources,
            Context::Prompts,
            Context::Pane(Pane::Composer),
            Context::Editor,
        ];
        let others = Pane::ORDER.into_iter().filter(|p| !LEFT.contains(p));
        all.extend(others.map(Context::Pane));
        all.push(Context::Help);
        all.push(Context::Intercept);
        all
    }

    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "Everywhere",
            Context::Pane(p) => p.title(),
            Context::Editor => "Composer, while editing",
            Context::Resources => "Tools pane, Resources tab",
            Context::Prompts => "Tools pane, Prompts tab",
            Context::Help => "Help",
            Context::Intercept => "Intercept overlay (attach --intercept)",
        }
    }
}

/// A key with its modifiers, comparable to crossterm's events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Key {
    /// Normalise an event: terminals differ on whether `G` carries SHIFT.
    pub fn from_event(ev: &KeyEvent) -> Key {
        let mut mods =
            ev.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match ev.code {
            KeyCode::Char(c) => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::Char(c)
            }
            KeyCode::BackTab => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            other => other,
        };
        Key { code, mods }
    }

    /// `q`, `G`, `ctrl-s`, `shift-tab`, `enter`, `pgdn`, `f1`, `space`…
    pub fn parse(s: &str) -> Result<Key, KeymapError> {
        let mut mods = KeyModifiers::NONE;
        let mut rest = s;
        loop {
            let lower = rest.to_ascii_lowercase();
            if let Some(r) = lower
                .strip_prefix("ctrl-")
                .or_else(|| lower.strip_prefix("c-"))
            {
                mods |= KeyModifiers::CONTROL;
                rest = &rest[rest.len() - r.len()..];
            } else if let Some(r) = lower
                .strip_prefix("alt-")
                .or_else(|| lower.strip_prefix("m-"))
            {
                mods |= KeyModifiers::ALT;
                rest = &rest[rest.len() - r.len()..];
            } else if let Some(r) = lower.strip_prefix("shift-") {
                mods |= KeyModifiers::SHIFT;
                rest = &rest[rest.len() - r.len()..];
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(if mods.contains(KeyModifiers::CONTROL) {
                c.to_ascii_lowercase()
            } else {
                c
            }),
            _ => match rest.to_ascii_lowercase().as_str() {
                "enter" | "return" => KeyCode::Enter,
                "esc" | "escape" => KeyCode::Esc,
                "tab" if mods.contains(KeyModifiers::SHIFT) => {
                    mods.remove(KeyModifiers::SHIFT);
                    KeyCode::BackTab
                }
                "tab" => KeyCode::Tab,
                "backtab" => KeyCode::BackTab,
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "pgup" | "pageup" => KeyCode::PageUp,
                "pgdn" | "pagedown" => KeyCode::PageDown,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "backspace" => KeyCode::Backspace,
                "delete" | "del" => KeyCode::Delete,
                "space" => KeyCode::Char(' '),
                f if f.starts_with('f')
                    && f[1..].parse::<u8>().is_ok_and(|n| (1..=12).contains(&n)) =>
                {
                    KeyCode::F(f[1..].parse().unwrap_or(1))
                }
                _ => return Err(KeymapError::UnknownKey(s.to_string())),
            },
        };
        if matches!(code, KeyCode::Char(_)) {
            mods.remove(KeyModifiers::SHIFT);
        }
        Ok(Key { code, mods })
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mods.contains(KeyModifiers::CONTROL) {
            f.write_str("Ctrl-")?;
        }
        if self.mods.contains(KeyModifiers::ALT) {
            f.write_str("Alt-")?;
        }
        if self.mods.contains(KeyModifiers::SHIFT) {
            f.write_str("Shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::BackTab => f.write_str("Shift-Tab"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::Home => f.write_str("Home"),
            KeyCode::End => f.write_str("End"),
            KeyCode::Backspace => f.write_str("Backspace"),
            KeyCode::Delete => f.write_str("Del"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

/// The default bindings outside the panes' own contexts (those are each
/// pane's `PaneSpec::KEYS`): (context, keys, action).
const DEFAULTS: &[(Context, &[&str], Action)] = {
    use Action::*;
    use Context::{Editor, Global, Prompts, Resources};
    &[
        (Global, &["q", "ctrl-c"], Quit),
        (Global, &["?", "f1"], Help),
        (Global, &["esc"], Back),
        (Global, &["tab"], FocusNext),
        (Global, &["shift-tab"], FocusPrev),
        (Global, &["1"], FocusProgress),
        (Global, &["2"], FocusTimeline),
        (Global, &["3"], FocusLogs),
        (Global, &["4"], FocusRaw),
        (Global, &["5"], FocusTools),
        (Global, &["6"], FocusComposer),
        (Global, &["7"], FocusFindings),
        (Global, &["8"], FocusNetwork),
        (Global, &["9"], FocusScope),
        (Global, &["z"], Zoom),
        (Global, &["Z"], CycleLayout),
        (Global, &["up", "k"], Up),
        (Global, &["down", "j"], Down),
        (Global, &["pgup", "ctrl-u"], PageUp),
        (Global, &["pgdn", "ctrl-d"], PageDown),
        (Global, &["home", "g"], Top),
        (Global, &["end", "G"], Bottom),
        (Global, &["space"], ReplayPause),
        (Global, &["."], ReplayStep),
        (Global, &[","], ReplayBack),
        (Global, &[">"], ReplayFaster),
        (Global, &["<"], ReplaySlower),
        (Global, &["E"], ReplayEnd),
        (Global, &["A"], AnswerServer),
        (Global, &["ctrl-r"], EditRoots),
        (Global, &["f5"], Restart),
        (Global, &["ctrl-t"], SaveTest),
        (Global, &["ctrl-e"], SaveHtml),
        (Global, &["I"], Intercept),
        (Resources, &["t"], NextTab),
        (Resources, &["T"], PrevTab),
        (Resources, &["enter"], Open),
        (Resources, &["s"], Subscribe),
        (Resources, &["r"], Refresh),
        (Resources, &["/"], Filter),
        (Resources, &["backspace"], ClearFilter),
        (Prompts, &["t"], NextTab),
        (Prompts, &["T"], PrevTab),
        (Prompts, &["enter"], Open),
        (Prompts, &["r"], Refresh),
        (Prompts, &["/"], Filter),
        (Prompts, &["backspace"], ClearFilter),
        (Editor, &["esc"], StopEdit),
        (Editor, &["ctrl-s"], Send),
        (Context::Help, &["/"], Filter),
        (Context::Intercept, &["b"], SetBreakpoint),
        (Context::Intercept, &["B"], ClearBreakpoint),
        (Context::Intercept, &["enter", "f"], ForwardHeld),
        (Context::Intercept, &["e"], EditHeld),
        (Context::Intercept, &["d"], DropHeld),
        (Context::Intercept, &["n"], Forge),
        (Context::Intercept, &["ctrl-o"], ForgeSide),
    ]
};

/// Playback keys, shown in the status line while replaying a trace.
pub const REPLAY_HINTS: &[Action] = &[
    Action::ReplayPause,
    Action::ReplayStep,
    Action::ReplayBack,
    Action::ReplaySlower,
    Action::ReplayFaster,
    Action::ReplayEnd,
];

/// Actions worth showing in the status line, per context besides the
/// panes' own (`PaneSpec::HINTS`).
const HINTS: &[(Context, &[Action])] = {
    use Action::*;
    use Context::{Editor, Prompts, Resources};
    &[
        (Resources, &[Open, Subscribe, Refresh, NextTab]),
        (Prompts, &[Open, Refresh, NextTab]),
        (Editor, &[StopEdit, Send]),
        (
            Context::Intercept,
            &[ForwardHeld, EditHeld, DropHeld, Forge, SetBreakpoint],
        ),
    ]
};

/// Actions worth showing in the status line in context `ctx`.
pub fn hints(ctx: Context) -> &'static [Action] {
    match ctx {
        Context::Pane(p) => p.hints(),
        c => HINTS
            .iter()
            .find(|(h, _)| *h == c)
            .map_or(&[], |(_, actions)| *actions),
    }
}

#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: Vec<(Context, Key, Action)>,
}

/// `[keys.CONTEXT] action = ["key", ...]` from the settings file.
pub type Overrides = BTreeMap<Context, BTreeMap<Action, Vec<String>>>;

impl Default for Keymap {
    fn default() -> Self {
        let panes = Pane::ORDER.into_iter().flat_map(|p| {
            p.keys()
                .iter()
                .map(move |(keys, a)| (Context::Pane(p), *keys, *a))
        });
        let mut bindings = Vec::new();
        for (ctx, keys, action) in DEFAULTS.iter().copied().chain(panes) {
            for k in keys {
                if let Ok(key) = Key::parse(k) {
                    bindings.push((ctx, key, action));
                }
            }
        }
        Keymap { bindings }
    }
}

impl Keymap {
    /// Defaults with the user's bindings applied: an overridden action loses
    /// its default keys in that context, and a key the user bound is taken
    /// from whatever action had it there.
    pub fn with_overrides(over: &Overrides) -> Result<Keymap, KeymapError> {
        let mut map = Keymap::default();
        for (ctx, actions) in over {
            for (action, keys) in actions {
                let parsed = keys
                    .iter()
                    .map(|k| Key::parse(k))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| KeymapError::Binding {
                        context: *ctx,
                        action: *action,
                        source: Box::new(e),
                    })?;
                map.bindings
                    .retain(|(c, k, a)| !(*c == *ctx && (*a == *action || parsed.contains(k))));
                for k in parsed {
                    map.bindings.push((*ctx, k, *action));
                }
            }
        }
        Ok(map)
    }

    /// The action for a key in a context (not falling back to global).
    pub fn lookup(&self, ctx: Context, key: Key) -> Option<Action> {
        self.bindings
            .iter()
            .find(|(c, k, _)| *c == ctx && *k == key)
            .map(|(_, _, a)| *a)
    }

    /// Keys bound to an action in a context, in table order.
    pub fn keys_for(&self, ctx: Context, action: Action) -> Vec<Key> {
        self.bindings
            .iter()
            .filter(|(c, _, a)| *c == ctx && *a == action)
            .map(|(_, k, _)| *k)
            .collect()
    }

    /// Every binding grouped by context and action, for the help screen.
    pub fn describe(&self) -> Vec<(Context, Vec<(String, Action)>)> {
        let mut out = Vec::new();
        for ctx in Context::all() {
            let mut rows: Vec<(String, Action)> = Vec::new();
            for (c, _, a) in &self.bindings {
                if *c != ctx || rows.iter().any(|(_, b)| b == a) {
                    continue;
                }
                let keys: Vec<String> = self.keys_for(ctx, *a).iter().map(Key::to_string).collect();
                rows.push((keys.join(", "), *a));
            }
            if !rows.is_empty() {
                out.push((ctx, rows));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contexts_are_named_as_the_settings_file_names_them() {
        let over: Overrides = toml::from_str("[raw]\ncopy = [\"y\"]\n").unwrap();
        assert!(over.contains_key(&Context::Pane(Pane::Raw)));
        let e = toml::from_str::<Overrides>("[rawx]\ncopy = [\"y\"]\n").unwrap_err();
        assert!(
            e.to_string().contains(
                "unknown variant `rawx`, expected one of `global`, `tools`, `composer`, \
                 `editor`, `progress`, `timeline`, `logs`, `raw`, `findings`, `network`, \
                 `scope`, `resources`, `prompts`, `help`, `intercept`"
            ),
            "{e}"
        );
    }

    #[test]
    fn each_panes_number_focuses_it() {
        let km = Keymap::default();
        for p in Pane::ORDER.into_iter().filter(|p| p.number() <= 9) {
            let digit = Key::parse(&p.number().to_string()).unwrap();
            let action = km.lookup(Context::Global, digit);
            assert_eq!(action.and_then(Pane::focused_by), Some(p), "{p:?}");
        }
    }

    #[test]
    fn parse_and_lookup() {
        assert_eq!(
            Key::parse("ctrl-s").unwrap(),
            Key {
                code: KeyCode::Char('s'),
                mods: KeyModifiers::CONTROL
            }
        );
        assert_eq!(Key::parse("shift-tab").unwrap().code, KeyCode::BackTab);
        assert_eq!(Key::parse("G").unwrap().code, KeyCode::Char('G'));
        assert!(Key::parse("hyper-x").is_err());
        let km = Keymap::default();
        let g = Key::from_event(&KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT));
        assert_eq!(km.lookup(Context::Global, g), Some(Action::Bottom));
        assert_eq!(
            km.lookup(Context::Pane(Pane::Raw), Key::parse("y").unwrap()),
            Some(Action::Copy)
        );
    }

    #[test]
    fn overrides_replace_defaults() {
        let over: Overrides =
            toml::from_str("[global]\nquit = [\"x\"]\n[raw]\ncopy = [\"c\"]\n").unwrap();
        let km = Keymap::with_overrides(&over).unwrap();
        assert_eq!(
            km.lookup(Context::Global, Key::parse("x").unwrap()),
            Some(Action::Quit)
        );
        assert_eq!(km.lookup(Context::Global, Key::parse("q").unwrap()), None);
        assert_eq!(
            km.lookup(Context::Pane(Pane::Raw), Key::parse("c").unwrap()),
            Some(Action::Copy)
        );
        let bad: Overrides = toml::from_str("[global]\nquit = [\"nokey\"]\n").unwrap();
        assert!(Keymap::with_overrides(&bad).is_err());
    }
}
