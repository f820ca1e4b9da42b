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

use crate::support::{BIN, suite};

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
