//! One redaction for every output: the secret-named arguments of a real
//! recorded call never reach a Mermaid diagram, `replay --print`, or the
//! mock's refusal (to the host or on its stderr); HAR hides a URL's
//! password and secret query even of a `--no-redact` trace.

use crate::support::http::{Bg, start_reporting};
use crate::support::{BIN, headless};
use std::process::Command;

const ARGS: &str = r#"{"text":"hi","api_key":"sekrit-ak1","password":"sekrit-pw2"}"#;

fn no_secret(what: &str, text: &str) {
    assert!(!text.contains("sekrit"), "{what} leaked a secret:\n{text}");
}

#[test]
fn mermaid_and_replay_redact_secret_arguments() {
    let run = headless(["call", "--demo", "--tool", "echo", "--args", ARGS])
        .record()
        .run();
    let trace = run.trace_path().to_str().unwrap().to_string();
    // The recording itself keeps the arguments as sent (they are the
    // server's input, replayed by `mock`).
    assert!(
        std::fs::read_to_string(&trace)
            .unwrap()
            .contains("sekrit-ak1")
    );
    let o = headless(["export", &trace, "--format", "mermaid"]).expect(0);
    assert!(o.stdout.contains("echo"), "{}", o.stdout);
    assert!(o.stdout.contains("[redacted]"), "{}", o.stdout);
    no_secret("mermaid", &o.stdout);
    let o = headless(["replay", "--print", &trace]).expect(0);
    assert!(o.stdout.contains(r#""text":"hi""#), "{}", o.stdout);
    assert!(o.stdout.contains("[redacted]"), "{}", o.stdout);
    no_secret("replay --print", &o.stdout);
}

#[test]
fn the_mock_refuses_a_near_miss_without_quoting_secrets() {
    let run = headless(["call", "--demo", "--tool", "echo", "--args", ARGS])
        .record()
        .run();
    let trace = run.trace_path().to_str().unwrap().to_string();
    let o = headless([
        "call",
        "--tool",
        "echo",
        "--args",
        r#"{"text":"ho","api_key":"sekrit-other","password":"sekrit-pw3"}"#,
    ])
    .server([BIN, "mock", &trace])
    .run();
    assert_ne!(o.code, 0, "{}", o.stderr);
    // What differed is still said, the secret values are not.
    assert!(
        o.stderr
            .contains(r#"arguments.text: recorded "hi", got "ho""#),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("arguments.api_key"), "{}", o.stderr);
    assert!(
        o.stderr.contains("[stderr] [mock] refused a request"),
        "{}",
        o.stderr
    );
    no_secret("the mock's refusal", &o.stderr);
    no_secret("the mock's refusal", &o.stdout);
}

fn demo_http() -> (Bg, u16) {
    let mut cmd = Command::new(BIN);
    cmd.args(["demo-server", "--http", "127.0.0.1:0"]);
    start_reporting(cmd)
}

#[test]
fn har_hides_the_urls_password_and_secret_query_of_a_no_redact_trace() {
    let (_srv, port) = demo_http();
    let url = format!("http://user:sekrit-pw@127.0.0.1:{port}/mcp?api_key=sekrit-q&region=eu");
    let run = headless([
        "call",
        "--protocol",
        "legacy",
        "--url",
        &url,
        "--no-redact",
        "--tool",
        "echo",
        "--args",
        r#"{"text":"hi"}"#,
        "-q",
    ])
    .record()
    .expect(0);
    let trace = run.trace_path().to_str().unwrap().to_string();
    assert!(
        std::fs::read_to_string(&trace)
            .unwrap()
            .contains("sekrit-pw"),
        "--no-redact keeps it in the trace"
    );
    let o = headless(["export", &trace, "--format", "har"]).expect(0);
    assert!(o.stdout.contains("region=eu"), "{}", o.stdout);
    no_secret("HAR", &o.stdout);
}
