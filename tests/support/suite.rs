//! The official conformance suite (`@modelcontextprotocol/conformance`, a
//! test peer) run for one scenario: its client scenarios drive mcpscope's
//! conformance client, its server scenarios drive the demo server.

use super::{finish, peer};
use serde_json::Value;
use std::process::{Command, Stdio};

/// One finished scenario run: the suite's own output, and its checks.
pub struct Run {
    pub stdout: String,
    pub stderr: String,
    /// What to print when an assertion fails: exit code and both streams.
    pub report: String,
    /// The scenario's output directory (kept until the run is dropped).
    pub dir: tempfile::TempDir,
}

/// Run `suite MODE_ARGS... --scenario NAME --spec-version VERSION` and
/// assert what every scenario must show: it ran (an inapplicable scenario
/// is skipped with exit 0, which is no pass), it exited 0, and its
/// `checks.json` holds no failure or warning and at least one success.
pub fn run(mode_args: &[&str], name: &str, spec_version: &str) -> Run {
    let node = peer("node/node_modules/node/bin/node");
    let entry = peer("node/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let dir = tempfile::tempdir().expect("temp dir");
    let child = Command::new(&node)
        .arg(&entry)
        .args(mode_args)
        .args(["--scenario", name])
        .args(["--spec-version", spec_version, "--output-dir"])
        .arg(dir.path())
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the conformance suite");
    let out = finish(child);
    let report = format!(
        "scenario {name} at {spec_version}: suite exit {}\n--- stdout\n{}\n--- stderr\n{}",
        out.code, out.stdout, out.stderr
    );
    assert!(!out.stdout.contains("SKIPPED: scenario"), "{report}");
    assert_eq!(out.code, 0, "{report}");

    let checks = checks_json(dir.path()).unwrap_or_else(|| panic!("no checks.json\n{report}"));
    let bad: Vec<String> = checks
        .iter()
        .filter(|c| matches!(c["status"].as_str(), Some("FAILURE" | "WARNING")))
        .map(|c| {
            // Client checks are named, server checks have ids.
            let what = c.get("name").unwrap_or(&c["id"]);
            format!("{} {what}: {}", c["status"], c["errorMessage"])
        })
        .collect();
    assert!(bad.is_empty(), "{bad:#?}\n{report}");
    let passed = checks.iter().filter(|c| c["status"] == "SUCCESS").count();
    assert!(passed > 0, "no check succeeded\n{report}");
    Run {
        stdout: out.stdout,
        stderr: out.stderr,
        report,
        dir,
    }
}

/// The checks of the single scenario run under `dir`
/// (`<scenario>-<time>/checks.json`; an `auth/…` scenario's run is one
/// directory deeper, under `auth/`).
fn checks_json(dir: &std::path::Path) -> Option<Vec<Value>> {
    let run = find_checks(dir, 2)?;
    let text = std::fs::read_to_string(run.join("checks.json")).ok()?;
    serde_json::from_str::<Vec<Value>>(&text).ok()
}

fn find_checks(dir: &std::path::Path, depth: u32) -> Option<std::path::PathBuf> {
    let subdirs: Vec<_> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    if let Some(p) = subdirs.iter().find(|p| p.join("checks.json").exists()) {
        return Some(p.clone());
    }
    if depth == 0 {
        return None;
    }
    subdirs.iter().find_map(|p| find_checks(p, depth - 1))
}
