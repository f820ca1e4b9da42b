//! The official MCP conformance suite's client scenarios
//! (`@modelcontextprotocol/conformance`, run with the pinned npm Node 22)
//! against the real binary's hidden `conformance-client` command. Each
//! scenario runs at every spec version it applies to; the suite must report
//! success, with no failed or warning checks.

use crate::support::rows::run_rows;
use crate::support::{BIN, suite};

const JUN: &str = "2025-06-18";
const NOV: &str = "2025-11-25";
const JUL_2026: &str = "2026-07-28";

/// Each scenario with the spec versions it runs at.
const SCENARIOS: &[(&str, &[&str])] = &[
    // Not in 2026-07-28: it has no handshake.
    ("initialize", &[JUN, NOV]),
    ("tools_call", &[JUN, NOV, JUL_2026]),
    // 2026-07-28 has no resumable streams.
    ("sse-retry", &[NOV]),
    ("elicitation-sep1034-client-defaults", &[NOV]),
    ("request-metadata", &[JUL_2026]),
    ("http-standard-headers", &[JUL_2026]),
    ("http-custom-headers", &[JUL_2026]),
    ("http-invalid-tool-headers", &[JUL_2026]),
    ("json-schema-2020-12-preservation", &[NOV, JUL_2026]),
    ("json-schema-ref-no-deref", &[JUL_2026]),
    // MRTR: `input_required` results answered and retried.
    ("sep-2322-client-request-state", &[JUL_2026]),
];

/// Run one scenario at one spec version and assert the suite's verdict.
fn scenario(name: &str, spec_version: &str) {
    // The suite splits --command on spaces.
    assert!(
        !BIN.contains(' '),
        "the binary path {BIN:?} has a space, which the suite's --command cannot carry"
    );
    let tmp = tempfile::tempdir().expect("temp dir");
    let trace = tmp.path().join("trace.jsonl");
    let command = format!("{BIN} conformance-client --record {}", trace.display());
    let run = suite::run(&["client", "--command", &command], name, spec_version);
    assert!(run.stderr.contains("OVERALL: PASSED"), "{}", run.report);
    // The client really ran and recorded its session.
    assert!(trace.exists(), "the client wrote no trace\n{}", run.report);
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn every_client_scenario_passes_at_every_version() {
    let rows: Vec<(&str, &str)> = SCENARIOS
        .iter()
        .flat_map(|&(name, versions)| versions.iter().map(move |&v| (name, v)))
        .collect();
    run_rows(
        &rows,
        |(name, v)| format!("{name} at {v}"),
        |&(name, v)| scenario(name, v),
    );
}
