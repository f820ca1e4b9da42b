//! The session saved as a test file (`ctrl-t`): one case per call, the
//! expectations what the session showed, as `mcpscope test --from` writes
//! them from a recording. The text is made here, under the sync step's
//! read lock; the runtime writes it (`Effect::SaveTest`, [`write_fresh`]).
//! Beside it, the session saved as one HTML page (`ctrl-e`), as
//! `mcpscope export --format html` writes it (`Effect::SaveHtml`).

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

    /// The session so far as the HTML export's page, with the findings
    /// the checks made of it as they came.
    pub(super) fn save_html(&self, store: &Store) -> Commands {
        let mut header = json!({"server": self.server_json.clone().unwrap_or_else(|| json!({}))});
        if let Some(w) = self.panes.scope.wall {
            header["started"] = json!(w.at(0));
        }
        let session = crate::export::Session {
            header: &header,
            store,
            findings: &self.panes.findings.list,
        };
        match crate::export::html::html(&session, &crate::export::generator()) {
            Ok(text) => vec![Command::Effect(Effect::SaveHtml {
                stem: page_stem_of(&self.shell.server.spec_name),
                text,
            })],
            Err(e) => vec![Command::Notice(format!("no page saved: {e}"))],
        }
    }
}

/// `SERVER-session`, from the server's name as [`stem_of`] makes it.
fn page_stem_of(server: &str) -> String {
    let test = stem_of(server);
    format!("{}-session", test.strip_suffix("-test").unwrap_or(&test))
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
    write_fresh_as(dir, stem, "toml", text)
}

/// [`write_fresh`] with another extension (`STEM.EXT`, `STEM-2.EXT`, …).
pub fn write_fresh_as(dir: &Path, stem: &str, ext: &str, text: &str) -> std::io::Result<PathBuf> {
    for n in 1..=MAX_TRIES {
        let name = if n == 1 {
            format!("{stem}.{ext}")
        } else {
            format!("{stem}-{n}.{ext}")
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
        format!("{stem}.{ext} and {} more exist", MAX_TRIES - 1),
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

    #[test]
    fn a_saved_page_never_replaces_a_file_either() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("s-session.html"), "mine").unwrap();
        let p = write_fresh_as(dir.path(), "s-session", "html", "page").unwrap();
        assert_eq!(p.file_name().unwrap(), "s-session-2.html");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("s-session.html")).unwrap(),
            "mine"
        );
        assert_eq!(page_stem_of("mcpscope-demo"), "mcpscope-demo-session");
        assert_eq!(page_stem_of("///"), "session-session");
    }

    #[test]
    fn ctrl_e_makes_the_page_of_the_session_so_far() {
        use crate::trace::{Dir, ManualClock};
        use crate::tui::action::Action;
        let trace = crate::trace::Trace::new(Store::default(), ManualClock::new());
        trace.append(|s, _| {
            for (i, f) in [
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"build","arguments":{},"_meta":{"progressToken":"t"}}}"#,
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}"#,
                r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
            ]
            .iter()
            .enumerate()
            {
                let dir = if i == 0 { Dir::Out } else { Dir::In };
                s.append_frame(dir, "stdio", i as u64 * 1000, f.as_bytes(), &mut Vec::new());
            }
        });
        let mut app = App::new(trace, super::super::options::AppOptions::default());
        while app.sync() {}
        let fx = app.apply(Action::SaveHtml);
        let [Effect::SaveHtml { stem, text }] = fx.as_slice() else {
            panic!("{fx:?}");
        };
        assert!(stem.ends_with("-session"), "{stem}");
        assert!(text.starts_with("<!doctype html>"));
        assert!(text.contains(&crate::export::generator()));
    }
}
