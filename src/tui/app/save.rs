//! The session saved as a test file (`ctrl-t`): one case per call, the
//! expectations what the session showed, as `mcpscope test --from` writes
//! them from a recording. The text is made here, under the sync step's
//! read lock; the runtime writes it (`Effect::SaveTest`, [`write_fresh`]).

use super::App;
use crate::trace::Store;
use crate::tui::action::Effect;
use crate::tui::command::{Command, Commands};
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Names tried before giving up: `STEM.toml`, `STEM-2.toml`, …
const MAX_TRIES: u32 = 100;

impl App {
    pub(super) fn save_test(&self, store: &Store) -> Commands {
        let header = json!({"server": self.server_json.clone().unwrap_or_else(|| json!({}))});
        match crate::suite::from_trace::write("the session", &header, store) {
            Ok(text) => vec![Command::Effect(Effect::SaveTest {
                stem: stem_of(&self.shell.server.spec_name),
                text,
            })],
            // The session has no tools/call yet: nothing to make a case of.
            Err(e) => vec![Command::Notice(format!("no test file saved: {e}"))],
        }
    }
}

/// A file name from the server's name: letters, digits, `-` and `_`.
fn stem_of(server: &str) -> String {
    let name: String = server
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect();
    let name = name.trim_matches('-');
    if name.is_empty() {
        "session-test".into()
    } else {
        format!("{name}-test")
    }
}

/// Write `text` to `dir/STEM.toml`, or the first of `STEM-2.toml`, … that
/// does not exist: a saved test never replaces a file.
pub fn write_fresh(dir: &Path, stem: &str, text: &str) -> std::io::Result<PathBuf> {
    for n in 1..=MAX_TRIES {
        let name = if n == 1 {
            format!("{stem}.toml")
        } else {
            format!("{stem}-{n}.toml")
        };
        let path = dir.join(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(text.as_bytes())?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!("{stem}.toml and {} more exist", MAX_TRIES - 1),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_test_never_replaces_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = write_fresh(dir.path(), "s-test", "a").unwrap();
        let b = write_fresh(dir.path(), "s-test", "b").unwrap();
        assert_eq!(a.file_name().unwrap(), "s-test.toml");
        assert_eq!(b.file_name().unwrap(), "s-test-2.toml");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), "a");
        assert_eq!(stem_of("mcpscope-demo"), "mcpscope-demo-test");
        assert_eq!(stem_of("a b/../c"), "a-b----c-test");
        assert_eq!(stem_of("///"), "session-test");
    }
}
