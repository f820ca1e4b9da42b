//! Themes are data: TOML files mapping named roles to colours. Built-in
//! themes are compiled in from `themes/`; users add their own in the config
//! directory or pass a path. Every colour on screen comes from here, and
//! `NO_COLOR` turns them all off (selection then relies on reverse video).

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Built-in themes, by name.
pub const BUILTIN: [(&str, &str); 3] = [
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

macro_rules! roles {
    ($($name:ident),* $(,)?) => {
        /// Colours by role. Field names are the keys of a theme's `[colors]` table.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Theme {
            pub name: String,
            /// True when colours are off (NO_COLOR): styles use modifiers only.
            pub mono: bool,
            /// The terminal's own background and foreground, which the theme
            /// assumes wherever a role is `reset` (never drawn: they say
            /// what "reset" looks like, for checking contrast).
            pub terminal_bg: Color,
            pub terminal_fg: Color,
            $(pub $name: Color,)*
        }

        impl Theme {
            const ROLES: &'static [&'static str] = &[$(stringify!($name)),*];

            fn blank(name: &str) -> Theme {
                Theme {
                    name: name.to_string(),
                    mono: false,
                    terminal_bg: DARK_TERMINAL.0,
                    terminal_fg: DARK_TERMINAL.1,
                    $($name: Color::Reset,)*
                }
            }

            fn set(&mut self, role: &str, c: Color) -> bool {
                match role {
                    $(stringify!($name) => self.$name = c,)*
                    _ => return false,
                }
                true
            }

            fn all_mut(&mut self) -> Vec<&mut Color> {
                vec![$(&mut self.$name),*]
            }
        }
    };
}

roles!(
    fg,
    bg,
    muted,
    accent,
    border,
    border_focus,
    title,
    title_focus,
    header_fg,
    header_bg,
    status_fg,
    status_bg,
    key,
    selection_fg,
    selection_bg,
    ok,
    warn,
    error,
    gauge_fill,
    gauge_empty,
    gauge_pulse,
    stale,
    state_running,
    state_done,
    state_error,
    state_cancelled,
    state_timeout,
    state_crashed,
    dir_out,
    dir_in,
    dir_stderr,
    dir_meta,
    kind_request,
    kind_response,
    kind_notification,
    kind_error,
    kind_problem,
    level_debug,
    level_info,
    level_notice,
    level_warning,
    level_error,
    level_critical,
    level_alert,
    level_emergency,
    json_key,
    json_string,
    json_number,
    json_literal,
    json_punct,
    match_fg,
    match_bg,
    lane_late,
);

/// What a theme that does not say otherwise assumes of the terminal: a
/// dark background (background, foreground).
const DARK_TERMINAL: (Color, Color) = (Color::Rgb(0x28, 0x2c, 0x34), Color::Rgb(0xab, 0xb2, 0xbf));

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    name: Option<String>,
    /// Start from this built-in theme and override some roles.
    extends: Option<String>,
    /// The terminal colours the theme is drawn over where a role is `reset`.
    terminal: Option<TerminalFile>,
    #[serde(default)]
    colors: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TerminalFile {
    background: String,
    foreground: String,
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ThemeError(pub String);

impl Theme {
    /// The default theme.
    pub fn dark() -> Theme {
        Theme::builtin("dark").unwrap_or_else(|| Theme::blank("dark"))
    }

    pub fn builtin(name: &str) -> Option<Theme> {
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
        Theme::parse(text, name).ok()
    }

    /// Parse a theme file. Unknown roles and bad colours are errors that name
    /// the offending key, so a typo in a user theme is easy to fix.
    pub fn parse(text: &str, origin: &str) -> Result<Theme, ThemeError> {
        let file: ThemeFile = toml::from_str(text)
            .map_err(|e| ThemeError(format!("theme {origin}: {}", e.message())))?;
        let name = file.name.unwrap_or_else(|| origin.to_string());
        let mut theme = match file.extends.as_deref() {
            Some(base) if base != name => Theme::builtin(base).ok_or_else(|| {
                ThemeError(format!("theme {origin}: unknown base theme {base:?}"))
            })?,
            _ => Theme::blank(&name),
        };
        theme.name = name;
        if let Some(term) = &file.terminal {
            for (key, value, slot) in [
                ("background", &term.background, &mut theme.terminal_bg),
                ("foreground", &term.foreground, &mut theme.terminal_fg),
            ] {
                *slot = match parse_color(value) {
                    Some(c) if c != Color::Reset => c,
                    _ => {
                        return Err(ThemeError(format!(
                            "theme {origin}: terminal.{key} = {value:?} is not a colour (a name, \"#rrggbb\" or an index 0-255)"
                        )));
                    }
                };
            }
        }
        for (role, value) in &file.colors {
            let c = parse_color(value).ok_or_else(|| {
                ThemeError(format!(
                    "theme {origin}: {role} = {value:?} is not a colour (a name like \"cyan\", \"#rrggbb\", an index 0-255 or \"reset\")"
                ))
            })?;
            if !theme.set(role, c) {
                return Err(ThemeError(format!(
                    "theme {origin}: unknown role {role:?} (known: {})",
                    Theme::ROLES.join(", ")
                )));
            }
        }
        Ok(theme)
    }

    /// Resolve `--theme NAME|PATH`: a built-in name, a theme in the user's
    /// config directory (`themes/NAME.toml`), or a file path.
    pub fn resolve(spec: &str, config_dir: Option<&Path>) -> Result<Theme, ThemeError> {
        if let Some(t) = Theme::builtin(spec) {
            return Ok(t);
        }
        let user = config_dir.map(|d| d.join("themes").join(format!("{spec}.toml")));
        let path = match user {
            Some(p) if p.is_file() => p,
            _ => Path::new(spec).to_path_buf(),
        };
        if !path.is_file() {
            return Err(ThemeError(format!(
                "unknown theme {spec:?}: not a built-in theme ({}), not in the config directory, not a file",
                BUILTIN.map(|(n, _)| n).join(", ")
            )));
        }
        let text = crate::files::read_small(&path, crate::files::MAX_CONFIG_BYTES)
            .map_err(|e| ThemeError(format!("cannot read theme {}: {e}", path.display())))?;
        Theme::parse(&text, &path.display().to_string())
    }

    /// Drop every colour (NO_COLOR): text keeps its modifiers.
    pub fn without_colors(mut self) -> Theme {
        for c in self.all_mut() {
            *c = Color::Reset;
        }
        self.mono = true;
        self
    }

    pub fn base(&self) -> Style {
        Style::default().fg(self.fg).bg(self.bg)
    }
    pub fn fg(&self, c: Color) -> Style {
        Style::default().fg(c)
    }
    pub fn muted(&self) -> Style {
        Style::default().fg(self.muted)
    }
    /// A selected row's style. It lies under the row's spans, which keep
    /// their own foreground: a selection background must suit every colour
    /// a row can show. A theme that cannot pick one (bright colours only)
    /// leaves `selection_bg` reset and selects in reverse video, where each
    /// span's colour becomes its background and the text takes the
    /// terminal's background colour, so no span can vanish into the bar.
    pub fn selected(&self) -> Style {
        let s = Style::default().fg(self.selection_fg).bg(self.selection_bg);
        if self.mono || self.selection_bg == Color::Reset {
            s.add_modifier(Modifier::REVERSED)
        } else {
            s
        }
    }
    pub fn matched(&self) -> Style {
        let s = Style::default().fg(self.match_fg).bg(self.match_bg);
        if self.mono {
            s.add_modifier(Modifier::UNDERLINED)
        } else {
            s
        }
    }
    pub fn level(&self, l: crate::protocol::views::LogLevel) -> Color {
        use crate::protocol::views::LogLevel as L;
        match l {
            L::Debug => self.level_debug,
            L::Info => self.level_info,
            L::Notice => self.level_notice,
            L::Warning => self.level_warning,
            L::Error => self.level_error,
            L::Critical => self.level_critical,
            L::Alert => self.level_alert,
            L::Emergency => self.level_emergency,
        }
    }
}

/// `reset`, a named colour, `#rrggbb`, or an ANSI index `0`–`255`.
pub fn parse_color(s: &str) -> Option<Color> {
    let s = s.trim().to_ascii_lowercase();
    if let Some(hex) = s.strip_prefix('#') {
        if hex.len() != 6 {
            return None;
        }
        let v = u32::from_str_radix(hex, 16).ok()?;
        return Some(Color::Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8));
    }
    if let Ok(i) = s.parse::<u8>() {
        return Some(Color::Indexed(i));
    }
    Some(match s.replace(['_', '-', ' '], "").as_str() {
        "reset" | "default" | "none" => Color::Reset,
        "black" => Color::Black,
        "red" => Color::Red,
        "green" => Color::Green,
        "yellow" => Color::Yellow,
        "blue" => Color::Blue,
        "magenta" => Color::Magenta,
        "cyan" => Color::Cyan,
        "gray" | "grey" => Color::Gray,
        "darkgray" | "darkgrey" => Color::DarkGray,
        "lightred" => Color::LightRed,
        "lightgreen" => Color::LightGreen,
        "lightyellow" => Color::LightYellow,
        "lightblue" => Color::LightBlue,
        "lightmagenta" => Color::LightMagenta,
        "lightcyan" => Color::LightCyan,
        "white" => Color::White,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_define_every_role() {
        for (name, text) in BUILTIN {
            let t = Theme::parse(text, name).unwrap();
            let file: ThemeFile = toml::from_str(text).unwrap();
            if file.extends.is_none() {
                for role in Theme::ROLES {
                    assert!(file.colors.contains_key(*role), "{name} lacks {role}");
                }
            }
            assert_eq!(t.name, name);
        }
    }

    #[test]
    fn user_themes_extend_and_report_typos() {
        let t = Theme::parse(
            "extends = \"dark\"\n[colors]\naccent = \"#ff0000\"\n",
            "mine",
        )
        .unwrap();
        assert_eq!(t.accent, Color::Rgb(255, 0, 0));
        assert_eq!(t.fg, Theme::dark().fg);
        let e = Theme::parse("[colors]\naccnet = \"red\"\n", "x").unwrap_err();
        assert!(e.0.contains("unknown role \"accnet\""), "{e}");
        let e = Theme::parse("[colors]\naccent = \"reddish\"\n", "x").unwrap_err();
        assert!(e.0.contains("not a colour"), "{e}");
        assert!(Theme::resolve("nope", None).is_err());
        assert!(Theme::dark().without_colors().mono);
    }

    #[test]
    fn themes_state_the_terminal_they_assume() {
        let light = Theme::builtin("light").unwrap();
        assert_eq!(light.terminal_bg, Color::Rgb(0xfa, 0xfa, 0xfa));
        let mine = Theme::parse("extends = \"light\"\n", "mine").unwrap();
        assert_eq!(mine.terminal_bg, light.terminal_bg);
        let e = Theme::parse(
            "[terminal]\nbackground = \"reset\"\nforeground = \"white\"\n",
            "x",
        )
        .unwrap_err();
        assert!(e.0.contains("terminal.background"), "{e}");
    }
}
