//! The official MCP conformance suite's client scenarios
//! (`@modelcontextprotocol/conformance`, run with the pinned npm Node 22)
//! against the real binary's hidden `conformance-client` command. Each
//! scenario runs at every spec version it applies to; the suite must report
//! success, with no failed or warning checks.
//!
//! | scenario | `--spec-version` |
//! | --- | --- |
//! | initialize | 2025-06-18, 2025-11-25 (not in 2026-07-28: no handshake) |
//! | tools_call | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | sse-retry | 2025-11-25 only (2026-07-28 has no resumable streams) |
//! | elicitation-sep1034-client-defaults | 2025-11-25 only |
//! | request-metadata | 2026-07-28 |
//! | http-standard-headers, http-custom-headers, http-invalid-tool-headers | 2026-07-28 |
//! | json-schema-2020-12-preservation | 2025-11-25, 2026-07-28 |
//! | json-schema-ref-no-deref | 2026-07-28 |
//! | sep-2322-client-request-state (MRTR `input_required` retries) | 2026-07-28 |

mod common;

use common::{BIN, finish, peer};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Node 22 and the suite's entry point.
fn suite() -> (PathBuf, PathBuf) {
    let node = peer("node/node_modules/node/bin/node");
    let entry = peer("node/node_modules/@modelcontextprotocol/conformance/dist/index.js");
    (node, entry)
}

/// Run one scenario at one spec version and assert the suite's verdict.
fn scenario(name: &str, spec_version: &str) {
    let (node, entry) = suite();
    // The suite splits --command on spaces.
    assert!(
        !BIN.contains(' '),
        "the binary path {BIN:?} has a space, which the suite's --command cannot carry"
    );
    let out_dir = tempfile::tempdir().expect("temp dir");
    let trace = out_dir.path().join("trace.jsonl");
    let command = format!("{BIN} conformance-client --record {}", trace.display());
    let child = Command::new(&node)
        .arg(&entry)
        .args(["client", "--command", &command, "--scenario", name])
        .args(["--spec-version", spec_version, "--output-dir"])
        .arg(out_dir.path())
        .current_dir(out_dir.path())
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
    // An inapplicable scenario is skipped with exit 0: that is no pass.
    assert!(!out.stdout.contains("SKIPPED: scenario"), "{report}");
    assert_eq!(out.code, 0, "{report}");
    assert!(out.stderr.contains("OVERALL: PASSED"), "{report}");

    let checks = checks_json(out_dir.path()).unwrap_or_else(|| panic!("no checks.json\n{report}"));
    let bad: Vec<String> = checks
        .iter()
        .filter(|c| matches!(c["status"].as_str(), Some("FAILURE" | "WARNING")))
        .map(|c| format!("{} {}: {}", c["status"], c["name"], c["errorMessage"]))
        .collect();
    assert!(bad.is_empty(), "{bad:#?}\n{report}");
    let passed = checks.iter().filter(|c| c["status"] == "SUCCESS").count();
    assert!(passed > 0, "no check succeeded\n{report}");
    // The client really ran and recorded its session.
    assert!(trace.exists(), "the client wrote no trace\n{report}");
}

/// The checks of the single scenario run under `dir` (`<scenario>-<time>/checks.json`).
fn checks_json(dir: &std::path::Path) -> Option<Vec<Value>> {
    let run = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.join("checks.json").exists())?;
    let text = std::fs::read_to_string(run.join("checks.json")).ok()?;
    serde_json::from_str::<Vec<Value>>(&text).ok()
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn initialize_2025_06_18() {
    scenario("initialize", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn initialize_2025_11_25() {
    scenario("initialize", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_2025_06_18() {
    scenario("tools_call", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_2025_11_25() {
    scenario("tools_call", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_2026_07_28() {
    scenario("tools_call", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn sse_retry_2025_11_25() {
    scenario("sse-retry", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn elicitation_defaults_2025_11_25() {
    scenario("elicitation-sep1034-client-defaults", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn request_metadata_2026_07_28() {
    scenario("request-metadata", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn http_standard_headers_2026_07_28() {
    scenario("http-standard-headers", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn http_custom_headers_2026_07_28() {
    scenario("http-custom-headers", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn http_invalid_tool_headers_2026_07_28() {
    scenario("http-invalid-tool-headers", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn json_schema_preservation_2025_11_25() {
    scenario("json-schema-2020-12-preservation", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn json_schema_preservation_2026_07_28() {
    scenario("json-schema-2020-12-preservation", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn json_schema_ref_no_deref_2026_07_28() {
    scenario("json-schema-ref-no-deref", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_request_state_2026_07_28() {
    scenario("sep-2322-client-request-state", "2026-07-28");
}
