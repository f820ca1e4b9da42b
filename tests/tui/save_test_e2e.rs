//! End to end in tmux: a live session with the demo server is saved as a
//! test file with one key (`ctrl-t`); the file lands in the working
//! directory under a name that replaces nothing, and `mcpscope test` runs
//! it unedited against the same server and passes. Ignored by a plain
//! `cargo test` (it needs tmux).

use crate::common::BIN;
use crate::common::tmux::{Tmux, assert_restored, require_tmux};

#[test]
#[ignore = "needs tmux"]
fn the_session_is_saved_as_a_test_that_passes_against_its_server() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    // A file of that name already there is kept; the saved one goes beside it.
    std::fs::write(dir.path().join("mcpscope-demo-test.toml"), "mine").unwrap();
    let t = Tmux::start_with(
        "savetest",
        &format!("cd '{d}'\n"),
        r#"--demo --run 'build_report {"tasks": 2, "delay_ms": 30}'"#,
        160,
        48,
    );
    t.wait_for("the call done", 30, |s| s.contains("done in"));
    t.keys(&["C-t"]);
    let s = t.wait_for("the saved notice", 20, |s| {
        s.contains("saved the session as a test file")
    });
    let saved = dir.path().join("mcpscope-demo-test-2.toml");
    assert!(saved.exists(), "{s}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("mcpscope-demo-test.toml")).unwrap(),
        "mine"
    );
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(text.contains("demo = true"), "{text}");
    assert!(text.contains(r#"tool = "build_report""#), "{text}");
    t.quit();
    assert_restored(&t);

    let out = std::process::Command::new(BIN)
        .arg("test")
        .arg(&saved)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("PASS"), "{stdout}");
}
