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

use crate::support::rows::run_rows;
use crate::support::{BIN, suite};

const MAR: &str = "2025-03-26";
const JUN: &str = "2025-06-18";
const NOV: &str = "2025-11-25";
const JUL_2026: &str = "2026-07-28";

/// What the client must do in a scenario.
#[derive(Clone, Copy, Debug)]
enum Outcome {
    /// Authorize, and the trace says so.
    Authorized,
    /// Stop, saying `why`; where the server broke the authorization spec,
    /// the trace has the problem that makes the finding `rule`.
    Refused {
        why: &'static str,
        rule: Option<&'static str>,
    },
}
use Outcome::{Authorized, Refused};

/// Each scenario with the spec versions it runs at and its outcome.
const SCENARIOS: &[(&str, &[&str], Outcome)] = &[
    ("auth/metadata-default", &[NOV, JUL_2026], Authorized),
    ("auth/metadata-var1", &[NOV, JUL_2026], Authorized),
    ("auth/metadata-var2", &[NOV, JUL_2026], Authorized),
    ("auth/metadata-var3", &[NOV, JUL_2026], Authorized),
    ("auth/basic-cimd", &[NOV, JUL_2026], Authorized),
    (
        "auth/scope-from-www-authenticate",
        &[NOV, JUL_2026],
        Authorized,
    ),
    (
        "auth/scope-from-scopes-supported",
        &[NOV, JUL_2026],
        Authorized,
    ),
    (
        "auth/scope-omitted-when-undefined",
        &[NOV, JUL_2026],
        Authorized,
    ),
    ("auth/scope-step-up", &[NOV, JUL_2026], Authorized),
    (
        "auth/scope-retry-limit",
        &[NOV, JUL_2026],
        Refused {
            why: "HTTP 403 Forbidden",
            rule: None,
        },
    ),
    (
        "auth/token-endpoint-auth-basic",
        &[JUN, NOV, JUL_2026],
        Authorized,
    ),
    (
        "auth/token-endpoint-auth-post",
        &[JUN, NOV, JUL_2026],
        Authorized,
    ),
    (
        "auth/token-endpoint-auth-none",
        &[JUN, NOV, JUL_2026],
        Authorized,
    ),
    ("auth/pre-registration", &[NOV, JUL_2026], Authorized),
    (
        "auth/2025-03-26-oauth-metadata-backcompat",
        &[MAR],
        Authorized,
    ),
    (
        "auth/2025-03-26-oauth-endpoint-fallback",
        &[MAR],
        Authorized,
    ),
    (
        "auth/resource-mismatch",
        &[JUL_2026],
        Refused {
            why: "the protected resource metadata is for \"https://evil.example.com/mcp\"",
            rule: Some("auth-resource-mismatch"),
        },
    ),
    ("auth/offline-access-scope", &[JUL_2026], Authorized),
    ("auth/offline-access-not-supported", &[JUL_2026], Authorized),
    (
        "auth/authorization-server-migration",
        &[JUL_2026],
        Authorized,
    ),
    ("auth/iss-supported", &[JUL_2026], Authorized),
    ("auth/iss-not-advertised", &[JUL_2026], Authorized),
    (
        "auth/iss-supported-missing",
        &[JUL_2026],
        Refused {
            why: "promises an iss parameter but its response has none",
            rule: Some("auth-issuer-mismatch"),
        },
    ),
    (
        "auth/iss-wrong-issuer",
        &[JUL_2026],
        Refused {
            why: "comes from issuer \"https://evil.example.com\"",
            rule: Some("auth-issuer-mismatch"),
        },
    ),
    (
        "auth/iss-unexpected",
        &[JUL_2026],
        Refused {
            why: "comes from issuer \"https://evil.example.com\"",
            rule: Some("auth-issuer-mismatch"),
        },
    ),
    (
        "auth/iss-normalized",
        &[JUL_2026],
        Refused {
            why: "the authorization response comes from issuer",
            rule: Some("auth-issuer-mismatch"),
        },
    ),
    (
        "auth/metadata-issuer-mismatch",
        &[JUL_2026],
        Refused {
            why: "names issuer \"https://attacker.example.com\"",
            rule: Some("auth-issuer-mismatch"),
        },
    ),
];

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

/// One scenario at one spec version: the client ends as `outcome` says.
fn scenario(name: &str, spec_version: &str, outcome: Outcome) {
    let (run, trace) = run(name, spec_version);
    match outcome {
        Authorized => {
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
        Refused { why, rule } => {
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
    }
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn every_authorization_scenario_ends_as_it_must_at_every_version() {
    let rows: Vec<(&str, &str, Outcome)> = SCENARIOS
        .iter()
        .flat_map(|&(name, versions, outcome)| versions.iter().map(move |&v| (name, v, outcome)))
        .collect();
    run_rows(
        &rows,
        |(name, v, _)| format!("{name} at {v}"),
        |&(name, v, outcome)| scenario(name, v, outcome),
    );
}
