//! The official MCP conformance suite's server scenarios
//! (`@modelcontextprotocol/conformance`, run with the pinned npm Node 22)
//! against the real binary's `demo-server --http 127.0.0.1:0 --conformance`.
//! Each scenario of the suite's active set runs at every spec version it
//! applies to (2025-03-26 only has the session life cycle; 2026-07-28 runs
//! in the stateless era); the suite must report success, with no failed or
//! warning checks. Beyond the active set, the scenarios of the 2026-07-28
//! requirements that the fixtures serve also run: the SEP-2322
//! `input_required` set, `sep-2164-resource-not-found` and `caching`, and the
//! pending `json-schema-2020-12`, plus `server-stateless` (the stateless
//! transport's `_meta`, header, status and `subscriptions/listen` rules),
//! `http-header-validation` (`Mcp-Method`/`Mcp-Name` against the body) and
//! `http-custom-header-server-validation` (`Mcp-Param-*` headers of an
//! `x-mcp-header` argument). Not run: the pending `server-sse-polling` and
//! `tasks-*`.

use crate::support::http::{Bg, start_reporting};
use crate::support::rows::run_rows;
use crate::support::{BIN, suite};
use std::process::Command;

const MAR: &str = "2025-03-26";
const JUN: &str = "2025-06-18";
const NOV: &str = "2025-11-25";
const JUL_2026: &str = "2026-07-28";

/// Each scenario with the spec versions it runs at.
const SCENARIOS: &[(&str, &[&str])] = &[
    ("server-initialize", &[JUN, NOV]),
    ("server-session-lifecycle", &[MAR, JUN, NOV]),
    ("logging-set-level", &[JUN, NOV]),
    ("ping", &[JUN, NOV]),
    ("completion-complete", &[JUN, NOV, JUL_2026]),
    ("tools-list", &[JUN, NOV, JUL_2026]),
    ("tools-call-simple-text", &[JUN, NOV, JUL_2026]),
    ("tools-call-image", &[JUN, NOV, JUL_2026]),
    ("tools-call-audio", &[JUN, NOV, JUL_2026]),
    ("tools-call-embedded-resource", &[JUN, NOV, JUL_2026]),
    ("tools-call-mixed-content", &[JUN, NOV, JUL_2026]),
    ("tools-call-with-logging", &[JUN, NOV]),
    ("tools-call-error", &[JUN, NOV, JUL_2026]),
    ("tools-call-with-progress", &[JUN, NOV, JUL_2026]),
    ("tools-call-sampling", &[JUN, NOV]),
    ("tools-call-elicitation", &[JUN, NOV]),
    ("elicitation-sep1034-defaults", &[NOV]),
    ("elicitation-sep1330-enums", &[NOV]),
    ("server-sse-multiple-streams", &[NOV, JUL_2026]),
    ("resources-list", &[JUN, NOV, JUL_2026]),
    ("resources-read-text", &[JUN, NOV, JUL_2026]),
    ("resources-read-binary", &[JUN, NOV, JUL_2026]),
    ("resources-templates-read", &[JUN, NOV, JUL_2026]),
    ("resources-subscribe", &[JUN, NOV]),
    ("resources-unsubscribe", &[JUN, NOV]),
    ("prompts-list", &[JUN, NOV, JUL_2026]),
    ("prompts-get-simple", &[JUN, NOV, JUL_2026]),
    ("prompts-get-with-args", &[JUN, NOV, JUL_2026]),
    ("prompts-get-embedded-resource", &[JUN, NOV, JUL_2026]),
    ("prompts-get-with-image", &[JUN, NOV, JUL_2026]),
    ("dns-rebinding-protection", &[NOV, JUL_2026]),
    ("input-required-result-basic-elicitation", &[JUL_2026]),
    ("input-required-result-basic-sampling", &[JUL_2026]),
    ("input-required-result-basic-list-roots", &[JUL_2026]),
    ("input-required-result-request-state", &[JUL_2026]),
    ("input-required-result-multiple-input-requests", &[JUL_2026]),
    ("input-required-result-multi-round", &[JUL_2026]),
    ("input-required-result-missing-input-response", &[JUL_2026]),
    ("input-required-result-non-tool-request", &[JUL_2026]),
    ("input-required-result-result-type", &[JUL_2026]),
    ("input-required-result-unsupported-methods", &[JUL_2026]),
    ("input-required-result-tampered-state", &[JUL_2026]),
    ("input-required-result-capability-check", &[JUL_2026]),
    ("input-required-result-ignore-extra-params", &[JUL_2026]),
    ("input-required-result-validate-input", &[JUL_2026]),
    ("sep-2164-resource-not-found", &[JUL_2026]),
    ("caching", &[JUL_2026]),
    ("json-schema-2020-12", &[NOV, JUL_2026]),
    ("server-stateless", &[JUL_2026]),
    ("http-header-validation", &[JUL_2026]),
    ("http-custom-header-server-validation", &[JUL_2026]),
];

/// A fresh fixture server per scenario, so no scenario sees another's state.
fn server() -> (Bg, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(["demo-server", "--http", "127.0.0.1:0", "--conformance"]);
    let (srv, port) = start_reporting(cmd);
    (srv, format!("http://127.0.0.1:{port}/mcp"))
}

/// Run one scenario at one spec version and assert the suite's verdict.
fn scenario(name: &str, spec_version: &str) {
    let (_srv, url) = server();
    let run = suite::run(&["server", "--url", &url], name, spec_version);
    assert!(
        run.stdout.contains(" 0 failed, 0 warnings"),
        "{}",
        run.report
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn every_server_scenario_passes_at_every_version() {
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
