//! Where results go: an output that names an input (or another output) is
//! refused before anything is written, whatever path reaches the file; a
//! write error on stdout (a full disk) fails the command, a closed pipe does
//! not.

use crate::support::{BIN, Output, finish, headless};
use std::path::Path;
use std::process::{Command, Stdio};

/// A recording of the demo server to protect.
fn recording(dir: &Path) -> std::path::PathBuf {
    let run = headless(["check", "--demo", "--tool", "echo"])
        .record()
        .expect(0);
    let x = dir.join("x.jsonl");
    std::fs::copy(run.trace_path(), &x).unwrap();
    x
}

/// `mcpscope ARGS` is refused with exit 2 and one `[error]` line naming the
/// collision, and `kept` still holds what it held.
fn refused(args: &[&str], kept: &Path) {
    let before = std::fs::read(kept).unwrap();
    let o = headless(args).expect(2);
    let errors = o.lines("[error]");
    assert!(
        errors.len() == 1 && errors[0].contains("is the same file as"),
        "{args:?}: {}",
        o.stderr
    );
    assert_eq!(
        std::fs::read(kept).unwrap(),
        before,
        "{args:?} changed {}",
        kept.display()
    );
}

#[test]
fn an_output_onto_its_own_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let x = recording(dir.path());
    let xs = x.to_str().unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&x, &link).unwrap();
    let ls = link.to_str().unwrap();
    let hard = dir.path().join("hard.jsonl");
    std::fs::hard_link(&x, &hard).unwrap();
    let hs = hard.to_str().unwrap();

    refused(&["check", "--trace", xs, "--write-baseline", xs], &x);
    refused(&["check", "--trace", xs, "--write-baseline", hs], &x);
    refused(&["export", xs, "--format", "mermaid", "-o", xs], &x);
    refused(&["export", xs, "--format", "json", "-o", ls], &x);
    refused(&["export", ls, "--format", "json", "-o", xs], &x);
    refused(&["diff", xs, "--record", xs, "--demo"], &x);
    refused(&["diff", xs, "--record", ls, "--demo"], &x);
    // Two outputs onto one file: the baseline would overwrite the recording.
    refused(
        &["check", "--demo", "--record", xs, "--write-baseline", xs],
        &x,
    );
    // A server config is an input too (the TUI, call, check).
    let cfg = dir.path().join("servers.json");
    std::fs::write(&cfg, r#"{"mcpServers": {"d": {"command": "true"}}}"#).unwrap();
    let cs = cfg.to_str().unwrap();
    refused(&["--config", cs, "--server", "d", "--record", cs], &cfg);
    refused(
        &[
            "call", "--config", cs, "--server", "d", "--tool", "t", "--record", cs,
        ],
        &cfg,
    );
    // mcpscope's own log is an output of every command.
    refused(&["check", "--trace", xs, "--log-file", xs], &x);
    refused(&["replay", "--print", ls, "--log-file", xs], &x);
    // Nothing was started for the refused live runs: no recording appeared.
    let new = dir.path().join("new.jsonl");
    let ns = new.to_str().unwrap();
    let o = headless(["check", "--demo", "--record", ns, "--write-baseline", ns]).expect(2);
    assert!(o.stderr.contains("is the same file as"), "{}", o.stderr);
    assert!(!new.exists(), "nothing is written once refused");

    // Different files are still fine, through links too.
    let out = dir.path().join("out.json");
    headless(["export", ls, "--format", "json", "-o"])
        .args([out.to_str().unwrap()])
        .expect(0);
    assert!(std::fs::read_to_string(&out).unwrap().contains('{'));
    headless(["export", xs, "--format", "json", "-o", "/dev/null"]).expect(0);
}

/// `mcpscope ARGS` with its stdout on `/dev/full` (every write: ENOSPC).
fn onto_a_full_disk(args: &[&str]) -> Output {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(full)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish(child)
}

#[test]
fn a_full_disk_on_stdout_fails_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let x = recording(dir.path());
    let xs = x.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["check", "--trace", xs, "--format", "sarif"],
        vec!["check", "--trace", xs],
        vec!["export", xs, "--format", "mermaid"],
        vec!["diff", xs, xs],
        vec!["replay", "--print", xs],
        vec!["rules"],
        vec!["tools", "--demo"],
        vec!["request", "--demo", "tools/list"],
        vec![
            "call",
            "--demo",
            "--tool",
            "echo",
            "--args",
            r#"{"text":"hi"}"#,
        ],
        vec!["sessions", "--json"],
    ];
    for args in cases {
        let o = onto_a_full_disk(&args);
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        let errors = o.lines("[error] cannot write stdout:");
        assert_eq!(errors.len(), 1, "{args:?}: {}", o.stderr);
        assert!(errors[0].contains("No space left"), "{}", o.stderr);
    }
}

#[test]
fn a_closed_pipe_on_stdout_stays_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let x = recording(dir.path());
    for args in [
        vec!["check", "--trace", x.to_str().unwrap(), "--format", "sarif"],
        vec!["rules"],
    ] {
        let mut child = Command::new(BIN)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader is gone before mcpscope writes (`| head -0`).
        drop(child.stdout.take());
        let o = finish(child);
        assert_eq!(o.code, 0, "{args:?}: {}", o.stderr);
        assert!(!o.stderr.contains("[error]"), "{args:?}: {}", o.stderr);
    }
}

#[test]
fn wrap_shows_direction_changing_characters_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    std::fs::write(
        &cfg,
        "{\"mcpServers\": {\"s\": {\"command\": \"srv\u{202e}txt.exe\", \"args\": [\"a\u{9b}31m\"]},\
          \"u\": {\"url\": \"http://127.0.0.1:9/mcp\", \"headers\": {\"X-Note\": \"n\u{202e}b\"}}}}",
    )
    .unwrap();
    let c = cfg.to_str().unwrap();
    for server in ["s", "u"] {
        let o = headless(["wrap", "--config", c, "--server", server]).expect(0);
        for (what, text) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
            assert!(
                !text.contains('\u{202e}') && !text.contains('\u{9b}'),
                "{server} {what}: {text:?}"
            );
        }
        // The printed entry is still the entry: the same JSON.
        let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
        if server == "s" {
            let args = v["s"]["args"].to_string();
            assert!(args.contains("srv\u{202e}txt.exe"), "{args}");
            assert!(o.stdout.contains(r"srv\u202etxt.exe"), "{}", o.stdout);
        }
    }
}
