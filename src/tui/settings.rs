//! The settings file (`settings.toml` in the config directory found with
//! `directories`, or `$MCPSCOPE_CONFIG_DIR`): frame rate, display and rule
//! thresholds, default timeouts, theme, layout and key bindings. Command-line flags win over the file,
//! the file over the defaults.

use super::keymap::{Keymap, KeymapError, Overrides};
use super::pane::Arrangement;
use crate::checks::CheckConfig;
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct SettingsFile {
    fps: Option<u32>,
    theme: Option<String>,
    stale_after_secs: Option<f64>,
    idle_timeout_secs: Option<u64>,
    max_timeout_secs: Option<u64>,
    /// Rule thresholds, named like the `check` flags.
    flood_rate: Option<f64>,
    flood_window_ms: Option<u64>,
    buffered_window_ms: Option<u64>,
    buffered_min_secs: Option<f64>,
    stall_secs: Option<f64>,
    cancel_race_ms: Option<u64>,
    cancel_progress_secs: Option<f64>,
    max_per_key: Option<u32>,
    /// Memory bound of the event store, as `--max-store` takes it.
    max_store: Option<String>,
    /// `auto`, `full` or `tabs`.
    layout: Option<Arrangement>,
    #[serde(default)]
    keys: Overrides,
}

/// Resolved settings.
#[derive(Debug, Clone)]
pub struct Settings {
    pub fps: u32,
    pub theme: String,
    /// A call whose last progress is older than this is shown as stale.
    pub stale_after_us: u64,
    pub idle_timeout_secs: Option<u64>,
    pub max_timeout_secs: Option<u64>,
    pub keymap: Keymap,
    /// Thresholds of the live protocol checks.
    pub checks: CheckConfig,
    /// `--max-store` unless given on the command line.
    pub max_store: Option<usize>,
    /// How the panes are arranged at start.
    pub layout: Arrangement,
    pub config_dir: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            fps: 30,
            theme: "dark".into(),
            stale_after_us: 5_000_000,
            idle_timeout_secs: Some(60),
            max_timeout_secs: Some(600),
            keymap: Keymap::default(),
            checks: CheckConfig::default(),
            max_store: None,
            layout: Arrangement::Auto,
            config_dir: None,
        }
    }
}

/// The frame-rate cap users may set: enough for smooth gauges, never a busy loop.
pub fn clamp_fps(fps: u32) -> u32 {
    fps.clamp(5, 60)
}

/// Where user settings and themes live.
pub fn config_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("MCPSCOPE_CONFIG_DIR") {
        return Some(PathBuf::from(d));
    }
    directories::ProjectDirs::from("", "", "mcpscope").map(|p| p.config_dir().to_path_buf())
}

/// Why the settings file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file was read; `source` says what is wrong in it.
    #[error("{}: {source}", path.display())]
    Bad {
        path: PathBuf,
        source: Box<SettingsError>,
    },
    /// Not TOML, or not the settings' fields: the parser's message alone.
    #[error("{}", .0.message())]
    Toml(#[source] toml::de::Error),
    #[error("{0} must be a positive number")]
    NotPositive(&'static str),
    #[error("{0} must be a non-negative number of seconds")]
    NotSeconds(&'static str),
    /// The store bound's refusal.
    #[error("max_store: {0}")]
    MaxStore(String),
    #[error(transparent)]
    Keys(#[from] KeymapError),
}

impl Settings {
    /// Load from the config directory; a missing file means defaults, a
    /// broken one is an error naming the file.
    pub fn load(dir: Option<&Path>) -> Result<Settings, SettingsError> {
        let mut s = Settings {
            config_dir: dir.map(Path::to_path_buf),
            ..Settings::default()
        };
        let Some(dir) = dir else { return Ok(s) };
        let path = dir.join("settings.toml");
        let text = match crate::files::read_small(&path, crate::files::MAX_CONFIG_BYTES) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(s),
            Err(source) => return Err(SettingsError::Read { path, source }),
        };
        s.apply(&text).map_err(|e| SettingsError::Bad {
            path,
            source: Box::new(e),
        })?;
        Ok(s)
    }

    /// Apply a settings file's text over these settings.
    pub fn apply(&mut self, text: &str) -> Result<(), SettingsError> {
        let f: SettingsFile = toml::from_str(text).map_err(SettingsError::Toml)?;
        if let Some(fps) = f.fps {
            self.fps = clamp_fps(fps);
        }
        if let Some(t) = f.theme {
            self.theme = t;
        }
        if let Some(s) = f.stale_after_secs {
            if !(s.is_finite() && s > 0.0) {
                return Err(SettingsError::NotPositive("stale_after_secs"));
            }
            self.stale_after_us = (s * 1e6) as u64;
        }
        if let Some(s) = f.idle_timeout_secs {
            self.idle_timeout_secs = (s > 0).then_some(s);
        }
        if let Some(s) = f.max_timeout_secs {
            self.max_timeout_secs = (s > 0).then_some(s);
        }
        let secs = |v: f64, name: &'static str| -> Result<u64, SettingsError> {
            if v.is_finite() && v >= 0.0 {
                Ok((v * 1e6) as u64)
            } else {
                Err(SettingsError::NotSeconds(name))
            }
        };
        let c = &mut self.checks;
        if let Some(r) = f.flood_rate {
            if !(r.is_finite() && r > 0.0) {
                return Err(SettingsError::NotPositive("flood_rate"));
            }
            c.flood_rate = r;
        }
        if let Some(ms) = f.flood_window_ms {
            c.flood_window_us = ms.max(1) * 1000;
        }
        if let Some(ms) = f.buffered_window_ms {
            c.buffered_window_us = ms * 1000;
        }
        if let Some(s) = f.buffered_min_secs {
            c.buffered_min_call_us = secs(s, "buffered_min_secs")?;
        }
        if let Some(s) = f.stall_secs {
            c.stall_us = secs(s, "stall_secs")?;
        }
        if let Some(ms) = f.cancel_race_ms {
            c.cancel_race_us = ms * 1000;
        }
        if let Some(s) = f.cancel_progress_secs {
            c.cancel_progress_window_us = secs(s, "cancel_progress_secs")?;
        }
        if let Some(n) = f.max_per_key {
            c.max_per_key = n.max(1);
        }
        if let Some(m) = f.max_store {
            self.max_store =
                Some(crate::trace::size::parse_store_size(&m).map_err(SettingsError::MaxStore)?);
        }
        if let Some(l) = f.layout {
            self.layout = l;
        }
        self.keymap = Keymap::with_overrides(&f.keys)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_overrides_defaults() {
        let mut s = Settings::default();
        s.apply("fps = 500\nstale_after_secs = 2.5\ntheme = \"light\"\n[keys.global]\nquit = [\"ctrl-q\"]\n")
            .unwrap();
        assert_eq!(s.fps, 60);
        assert_eq!(s.stale_after_us, 2_500_000);
        assert_eq!(s.theme, "light");
        s.apply("flood_rate = 20\nbuffered_window_ms = 80\nstall_secs = 5\ncancel_race_ms = 500\ncancel_progress_secs = 3\n")
            .unwrap();
        assert_eq!(s.checks.flood_rate, 20.0);
        assert_eq!(s.checks.buffered_window_us, 80_000);
        assert_eq!(s.checks.stall_us, 5_000_000);
        assert_eq!(s.checks.cancel_race_us, 500_000);
        assert_eq!(s.checks.cancel_progress_window_us, 3_000_000);
        assert!(s.apply("flood_rate = -1").is_err());
        s.apply("max_store = \"64MiB\"").unwrap();
        assert_eq!(s.max_store, Some(64 << 20));
        assert!(
            s.apply("max_store = \"1KiB\"")
                .unwrap_err()
                .to_string()
                .contains("max_store")
        );
        assert!(s.apply("stall_secs = -2.0").is_err());
        assert!(
            s.apply("fsp = 3")
                .unwrap_err()
                .to_string()
                .contains("unknown field")
        );
        let d = tempfile::tempdir().unwrap();
        assert!(Settings::load(Some(d.path())).is_ok());
        std::fs::write(d.path().join("settings.toml"), "fps = \"x\"").unwrap();
        assert!(
            Settings::load(Some(d.path()))
                .unwrap_err()
                .to_string()
                .contains("settings.toml")
        );
    }

    #[test]
    fn a_huge_or_special_settings_file_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("settings.toml");
        // Valid TOML (only comments), just far bigger than any settings file.
        std::fs::write(&path, "# comment\n".repeat(200_000)).unwrap();
        let e = Settings::load(Some(d.path())).unwrap_err().to_string();
        assert!(
            e.contains("settings.toml") && e.contains("larger than"),
            "{e}"
        );
        // A pipe nobody writes to: refused, not waited on (Unix).
        #[cfg(unix)]
        a_pipe_is_refused(d.path(), &path);
    }

    #[cfg(unix)]
    fn a_pipe_is_refused(dir: &std::path::Path, path: &std::path::Path) {
        std::fs::remove_file(path).unwrap();
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = Settings::load(Some(dir)).unwrap_err().to_string();
        assert!(e.contains("a pipe"), "{e}");
    }
}
