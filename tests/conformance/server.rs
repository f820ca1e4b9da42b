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
//!
//! | scenario | `--spec-version` |
//! | --- | --- |
//! | server-initialize | 2025-06-18, 2025-11-25 |
//! | server-session-lifecycle | 2025-03-26, 2025-06-18, 2025-11-25 |
//! | logging-set-level | 2025-06-18, 2025-11-25 |
//! | ping | 2025-06-18, 2025-11-25 |
//! | completion-complete | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | tools-list | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | tools-call-simple-text | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | tools-call-image | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | tools-call-audio | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | tools-call-embedded-resource | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | tools-call-mixed-content | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | tools-call-with-logging | 2025-06-18, 2025-11-25 |
//! | tools-call-error | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | tools-call-with-progress | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | tools-call-sampling | 2025-06-18, 2025-11-25 |
//! | tools-call-elicitation | 2025-06-18, 2025-11-25 |
//! | elicitation-sep1034-defaults | 2025-11-25 |
//! | elicitation-sep1330-enums | 2025-11-25 |
//! | server-sse-multiple-streams | 2025-11-25, 2026-07-28 |
//! | resources-list | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | resources-read-text | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | resources-read-binary | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | resources-templates-read | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | resources-subscribe | 2025-06-18, 2025-11-25 |
//! | resources-unsubscribe | 2025-06-18, 2025-11-25 |
//! | prompts-list | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | prompts-get-simple | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | prompts-get-with-args | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | prompts-get-embedded-resource | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | prompts-get-with-image | 2025-06-18, 2025-11-25, 2026-07-28 |
//! | dns-rebinding-protection | 2025-11-25, 2026-07-28 |
//! | input-required-result-* (14 scenarios) | 2026-07-28 |
//! | sep-2164-resource-not-found, caching | 2026-07-28 |
//! | server-stateless, http-header-validation | 2026-07-28 |
//! | http-custom-header-server-validation | 2026-07-28 |
//! | json-schema-2020-12 (pending) | 2025-11-25, 2026-07-28 |

use crate::support::http::{Bg, start_reporting};
use crate::support::{BIN, suite};
use std::process::Command;

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
fn server_initialize_2025_06_18() {
    scenario("server-initialize", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn server_initialize_2025_11_25() {
    scenario("server-initialize", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn server_session_lifecycle_2025_03_26() {
    scenario("server-session-lifecycle", "2025-03-26");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn server_session_lifecycle_2025_06_18() {
    scenario("server-session-lifecycle", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn server_session_lifecycle_2025_11_25() {
    scenario("server-session-lifecycle", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn logging_set_level_2025_06_18() {
    scenario("logging-set-level", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn logging_set_level_2025_11_25() {
    scenario("logging-set-level", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn ping_2025_06_18() {
    scenario("ping", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn ping_2025_11_25() {
    scenario("ping", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn completion_complete_2025_06_18() {
    scenario("completion-complete", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn completion_complete_2025_11_25() {
    scenario("completion-complete", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn completion_complete_2026_07_28() {
    scenario("completion-complete", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_list_2025_06_18() {
    scenario("tools-list", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_list_2025_11_25() {
    scenario("tools-list", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_list_2026_07_28() {
    scenario("tools-list", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_simple_text_2025_06_18() {
    scenario("tools-call-simple-text", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_simple_text_2025_11_25() {
    scenario("tools-call-simple-text", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_simple_text_2026_07_28() {
    scenario("tools-call-simple-text", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_image_2025_06_18() {
    scenario("tools-call-image", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_image_2025_11_25() {
    scenario("tools-call-image", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_image_2026_07_28() {
    scenario("tools-call-image", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_audio_2025_06_18() {
    scenario("tools-call-audio", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_audio_2025_11_25() {
    scenario("tools-call-audio", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_audio_2026_07_28() {
    scenario("tools-call-audio", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_embedded_resource_2025_06_18() {
    scenario("tools-call-embedded-resource", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_embedded_resource_2025_11_25() {
    scenario("tools-call-embedded-resource", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_embedded_resource_2026_07_28() {
    scenario("tools-call-embedded-resource", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_mixed_content_2025_06_18() {
    scenario("tools-call-mixed-content", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_mixed_content_2025_11_25() {
    scenario("tools-call-mixed-content", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_mixed_content_2026_07_28() {
    scenario("tools-call-mixed-content", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_with_logging_2025_06_18() {
    scenario("tools-call-with-logging", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_with_logging_2025_11_25() {
    scenario("tools-call-with-logging", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_error_2025_06_18() {
    scenario("tools-call-error", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_error_2025_11_25() {
    scenario("tools-call-error", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_error_2026_07_28() {
    scenario("tools-call-error", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_with_progress_2025_06_18() {
    scenario("tools-call-with-progress", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_with_progress_2025_11_25() {
    scenario("tools-call-with-progress", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_with_progress_2026_07_28() {
    scenario("tools-call-with-progress", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_sampling_2025_06_18() {
    scenario("tools-call-sampling", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_sampling_2025_11_25() {
    scenario("tools-call-sampling", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_elicitation_2025_06_18() {
    scenario("tools-call-elicitation", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn tools_call_elicitation_2025_11_25() {
    scenario("tools-call-elicitation", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn elicitation_defaults_2025_11_25() {
    scenario("elicitation-sep1034-defaults", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn elicitation_enums_2025_11_25() {
    scenario("elicitation-sep1330-enums", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn server_sse_multiple_streams_2025_11_25() {
    scenario("server-sse-multiple-streams", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn server_sse_multiple_streams_2026_07_28() {
    scenario("server-sse-multiple-streams", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_list_2025_06_18() {
    scenario("resources-list", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_list_2025_11_25() {
    scenario("resources-list", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_list_2026_07_28() {
    scenario("resources-list", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_read_text_2025_06_18() {
    scenario("resources-read-text", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_read_text_2025_11_25() {
    scenario("resources-read-text", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_read_text_2026_07_28() {
    scenario("resources-read-text", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_read_binary_2025_06_18() {
    scenario("resources-read-binary", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_read_binary_2025_11_25() {
    scenario("resources-read-binary", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_read_binary_2026_07_28() {
    scenario("resources-read-binary", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_templates_read_2025_06_18() {
    scenario("resources-templates-read", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_templates_read_2025_11_25() {
    scenario("resources-templates-read", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_templates_read_2026_07_28() {
    scenario("resources-templates-read", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_subscribe_2025_06_18() {
    scenario("resources-subscribe", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_subscribe_2025_11_25() {
    scenario("resources-subscribe", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_unsubscribe_2025_06_18() {
    scenario("resources-unsubscribe", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resources_unsubscribe_2025_11_25() {
    scenario("resources-unsubscribe", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_list_2025_06_18() {
    scenario("prompts-list", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_list_2025_11_25() {
    scenario("prompts-list", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_list_2026_07_28() {
    scenario("prompts-list", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_get_simple_2025_06_18() {
    scenario("prompts-get-simple", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_get_simple_2025_11_25() {
    scenario("prompts-get-simple", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_get_simple_2026_07_28() {
    scenario("prompts-get-simple", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_get_with_args_2025_06_18() {
    scenario("prompts-get-with-args", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_get_with_args_2025_11_25() {
    scenario("prompts-get-with-args", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_get_with_args_2026_07_28() {
    scenario("prompts-get-with-args", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_get_embedded_resource_2025_06_18() {
    scenario("prompts-get-embedded-resource", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_get_embedded_resource_2025_11_25() {
    scenario("prompts-get-embedded-resource", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_get_embedded_resource_2026_07_28() {
    scenario("prompts-get-embedded-resource", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_get_with_image_2025_06_18() {
    scenario("prompts-get-with-image", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_get_with_image_2025_11_25() {
    scenario("prompts-get-with-image", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn prompts_get_with_image_2026_07_28() {
    scenario("prompts-get-with-image", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn dns_rebinding_protection_2025_11_25() {
    scenario("dns-rebinding-protection", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn dns_rebinding_protection_2026_07_28() {
    scenario("dns-rebinding-protection", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_basic_elicitation_2026_07_28() {
    scenario("input-required-result-basic-elicitation", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_basic_sampling_2026_07_28() {
    scenario("input-required-result-basic-sampling", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_basic_list_roots_2026_07_28() {
    scenario("input-required-result-basic-list-roots", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_request_state_2026_07_28() {
    scenario("input-required-result-request-state", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_multiple_input_requests_2026_07_28() {
    scenario(
        "input-required-result-multiple-input-requests",
        "2026-07-28",
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_multi_round_2026_07_28() {
    scenario("input-required-result-multi-round", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_missing_input_response_2026_07_28() {
    scenario("input-required-result-missing-input-response", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_non_tool_request_2026_07_28() {
    scenario("input-required-result-non-tool-request", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_result_type_2026_07_28() {
    scenario("input-required-result-result-type", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_unsupported_methods_2026_07_28() {
    scenario("input-required-result-unsupported-methods", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_tampered_state_2026_07_28() {
    scenario("input-required-result-tampered-state", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_capability_check_2026_07_28() {
    scenario("input-required-result-capability-check", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_ignore_extra_params_2026_07_28() {
    scenario("input-required-result-ignore-extra-params", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn mrtr_validate_input_2026_07_28() {
    scenario("input-required-result-validate-input", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn sep_2164_resource_not_found_2026_07_28() {
    scenario("sep-2164-resource-not-found", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn caching_2026_07_28() {
    scenario("caching", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn json_schema_2020_12_2025_11_25() {
    scenario("json-schema-2020-12", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn json_schema_2020_12_2026_07_28() {
    scenario("json-schema-2020-12", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn server_stateless_2026_07_28() {
    scenario("server-stateless", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn http_header_validation_2026_07_28() {
    scenario("http-header-validation", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn http_custom_header_server_validation_2026_07_28() {
    scenario("http-custom-header-server-validation", "2026-07-28");
}
