//! The official MCP conformance suite's client authorization scenarios
//! (`auth/*` of `@modelcontextprotocol/conformance`, every non-extension
//! one at every spec version it lists: 44 runs) against the real binary's
//! `conformance-client`, which authorizes through the same code as every
//! other command (`src/auth`), its redirects followed over HTTP to its
//! loopback listener. The suite must report success with no failed or
//! warning checks. Where the scenario's server misbehaves on purpose
//! (wrong `iss`, another resource, an issuer that is not the one asked
//! for, a scope that never suffices) the client must stop with a reason,
//! and the test checks the reason too.
//!
//! The traces these runs record hold the flow's steps (`auth-http`,
//! `auth` events) and never a token: the suite's tokens start `test-token`.

use crate::support::{BIN, suite};

/// Run one scenario at one spec version; return the run and its trace.
fn run(name: &str, spec_version: &str) -> (suite::Run, String) {
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
    let text = std::fs::read_to_string(&trace)
        .unwrap_or_else(|e| panic!("the client wrote no trace ({e})\n{}", run.report));
    assert!(
        text.contains(r#""event":"auth-http""#),
        "no authorization step in the trace\n{}",
        run.report
    );
    assert!(
        !text.contains("test-token"),
        "a token is in the trace\n{}",
        run.report
    );
    (run, text)
}

/// A scenario the client completes: authorized, and the trace says so.
fn scenario(name: &str, spec_version: &str) {
    let (run, trace) = run(name, spec_version);
    assert!(
        trace.contains(r#""state":"authorized""#),
        "no authorized state in the trace\n{}",
        run.report
    );
    assert!(
        !trace.contains("auth-problem"),
        "a conformant server made a finding\n{}",
        run.report
    );
    assert!(
        trace.contains(r#""method":"tools/call""#),
        "the client never got as far as calling the tool\n{}",
        run.report
    );
}

/// A scenario whose server must be refused: the client stops, saying why;
/// where the server broke the authorization spec, the trace has the
/// problem that makes the finding `rule`.
fn refused(name: &str, spec_version: &str, why: &str, rule: Option<&str>) {
    let (run, trace) = run(name, spec_version);
    match rule {
        Some(rule) => assert!(
            trace.contains(&format!(r#""event":"auth-problem","rule":"{rule}""#)),
            "no {rule} problem in the trace\n{}",
            run.report
        ),
        None => assert!(!trace.contains("auth-problem"), "{}", run.report),
    }
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        all.contains(why),
        "expected {why:?} in the client's output\n{}",
        run.report
    );
    assert!(
        !run.stderr.contains("conformance: done\n"),
        "{}",
        run.report
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn metadata_default_2025_11_25() {
    scenario("auth/metadata-default", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn metadata_default_2026_07_28() {
    scenario("auth/metadata-default", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn metadata_var1_2025_11_25() {
    scenario("auth/metadata-var1", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn metadata_var1_2026_07_28() {
    scenario("auth/metadata-var1", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn metadata_var2_2025_11_25() {
    scenario("auth/metadata-var2", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn metadata_var2_2026_07_28() {
    scenario("auth/metadata-var2", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn metadata_var3_2025_11_25() {
    scenario("auth/metadata-var3", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn metadata_var3_2026_07_28() {
    scenario("auth/metadata-var3", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn basic_cimd_2025_11_25() {
    scenario("auth/basic-cimd", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn basic_cimd_2026_07_28() {
    scenario("auth/basic-cimd", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn scope_from_www_authenticate_2025_11_25() {
    scenario("auth/scope-from-www-authenticate", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn scope_from_www_authenticate_2026_07_28() {
    scenario("auth/scope-from-www-authenticate", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn scope_from_scopes_supported_2025_11_25() {
    scenario("auth/scope-from-scopes-supported", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn scope_from_scopes_supported_2026_07_28() {
    scenario("auth/scope-from-scopes-supported", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn scope_omitted_when_undefined_2025_11_25() {
    scenario("auth/scope-omitted-when-undefined", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn scope_omitted_when_undefined_2026_07_28() {
    scenario("auth/scope-omitted-when-undefined", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn scope_step_up_2025_11_25() {
    scenario("auth/scope-step-up", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn scope_step_up_2026_07_28() {
    scenario("auth/scope-step-up", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn scope_retry_limit_2025_11_25() {
    refused(
        "auth/scope-retry-limit",
        "2025-11-25",
        "HTTP 403 Forbidden",
        None,
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn scope_retry_limit_2026_07_28() {
    refused(
        "auth/scope-retry-limit",
        "2026-07-28",
        "HTTP 403 Forbidden",
        None,
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn token_endpoint_auth_basic_2025_06_18() {
    scenario("auth/token-endpoint-auth-basic", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn token_endpoint_auth_basic_2025_11_25() {
    scenario("auth/token-endpoint-auth-basic", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn token_endpoint_auth_basic_2026_07_28() {
    scenario("auth/token-endpoint-auth-basic", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn token_endpoint_auth_post_2025_06_18() {
    scenario("auth/token-endpoint-auth-post", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn token_endpoint_auth_post_2025_11_25() {
    scenario("auth/token-endpoint-auth-post", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn token_endpoint_auth_post_2026_07_28() {
    scenario("auth/token-endpoint-auth-post", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn token_endpoint_auth_none_2025_06_18() {
    scenario("auth/token-endpoint-auth-none", "2025-06-18");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn token_endpoint_auth_none_2025_11_25() {
    scenario("auth/token-endpoint-auth-none", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn token_endpoint_auth_none_2026_07_28() {
    scenario("auth/token-endpoint-auth-none", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn pre_registration_2025_11_25() {
    scenario("auth/pre-registration", "2025-11-25");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn pre_registration_2026_07_28() {
    scenario("auth/pre-registration", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn march_oauth_metadata_backcompat_2025_03_26() {
    scenario("auth/2025-03-26-oauth-metadata-backcompat", "2025-03-26");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn march_oauth_endpoint_fallback_2025_03_26() {
    scenario("auth/2025-03-26-oauth-endpoint-fallback", "2025-03-26");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn resource_mismatch_2026_07_28() {
    refused(
        "auth/resource-mismatch",
        "2026-07-28",
        "the protected resource metadata is for \"https://evil.example.com/mcp\"",
        Some("auth-resource-mismatch"),
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn offline_access_scope_2026_07_28() {
    scenario("auth/offline-access-scope", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn offline_access_not_supported_2026_07_28() {
    scenario("auth/offline-access-not-supported", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn authorization_server_migration_2026_07_28() {
    scenario("auth/authorization-server-migration", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn iss_supported_2026_07_28() {
    scenario("auth/iss-supported", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn iss_not_advertised_2026_07_28() {
    scenario("auth/iss-not-advertised", "2026-07-28");
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn iss_supported_missing_2026_07_28() {
    refused(
        "auth/iss-supported-missing",
        "2026-07-28",
        "promises an iss parameter but its response has none",
        Some("auth-issuer-mismatch"),
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn iss_wrong_issuer_2026_07_28() {
    refused(
        "auth/iss-wrong-issuer",
        "2026-07-28",
        "comes from issuer \"https://evil.example.com\"",
        Some("auth-issuer-mismatch"),
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn iss_unexpected_2026_07_28() {
    refused(
        "auth/iss-unexpected",
        "2026-07-28",
        "comes from issuer \"https://evil.example.com\"",
        Some("auth-issuer-mismatch"),
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn iss_normalized_2026_07_28() {
    refused(
        "auth/iss-normalized",
        "2026-07-28",
        "the authorization response comes from issuer",
        Some("auth-issuer-mismatch"),
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn metadata_issuer_mismatch_2026_07_28() {
    refused(
        "auth/metadata-issuer-mismatch",
        "2026-07-28",
        "names issuer \"https://attacker.example.com\"",
        Some("auth-issuer-mismatch"),
    );
}
