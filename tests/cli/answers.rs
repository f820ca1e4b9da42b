//! Server→client requests answered headless: `--elicit accept:JSON`
//! (checked against the requested schema), `--sample TEXT|decline`, and
//! `--root`, against the demo server's wizard and server-everything.

use crate::support::*;
use serde_json::Value;

/// The demo wizard with `questions`, answered per `elicit`, recorded.
fn wizard(questions: &str, elicit: &str) -> Headless {
    headless(["call", "--demo", "--tool", "interactive_wizard"])
        .args(["-a", questions, "-a", "delay_ms=1", "--elicit", elicit])
        .record()
}

/// The elicitation answers mcpscope sent, in order: results of
/// `elicitation/create` requests (handshake era), or the `inputResponses`
/// of the retries of an `input_required` call (2026-07-28).
fn elicitation_answers(lines: &[Value]) -> Vec<&Value> {
    lines
        .iter()
        .skip(1)
        .filter(|l| l["dir"] == "out")
        .flat_map(|l| {
            let round = l["json"]["params"]["inputResponses"]
                .as_object()
                .into_iter()
                .flat_map(|r| r.values());
            l["json"]["result"]
                .get("action")
                .map(|_| &l["json"]["result"])
                .into_iter()
                .chain(round)
        })
        .collect()
}

#[test]
fn one_accepted_answer_fills_every_form_of_the_wizard() {
    let o = wizard(
        "questions=3",
        r#"accept:{"project_name":"gizmo","visibility":"public","with_readme":false,"default_branch":"trunk","protected_branches":3}"#,
    )
    .expect(0);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        v["structuredContent"]["answers"],
        serde_json::json!({
            "project_name": "gizmo",
            "summary": "A project created by the mcpscope demo wizard",
            "visibility": "public",
            "with_readme": false,
            "default_branch": "trunk",
            "protected_branches": 3,
        })
    );
    // Each form got only the members it asks for.
    let lines = o.trace();
    let answers: Vec<&Value> = elicitation_answers(&lines)
        .into_iter()
        .filter(|a| a["action"] == "accept")
        .map(|a| &a["content"])
        .collect();
    assert_eq!(
        answers,
        [
            &serde_json::json!({"project_name": "gizmo"}),
            &serde_json::json!({"visibility": "public", "with_readme": false}),
            &serde_json::json!({"default_branch": "trunk", "protected_branches": 3}),
        ]
    );
}

#[test]
fn content_the_schema_rejects_is_not_sent_and_fails_the_run() {
    let o = wizard("questions=1", r#"accept:{"project_name":"","summary":7}"#).expect(2);
    let errors = o.lines("[error] elicitation/create #");
    assert_eq!(errors.len(), 1, "{}", o.stderr);
    assert!(
        errors[0].contains("/summary: expected a string, got a number")
            && errors[0].contains("/project_name: at least 1 characters (got 0)")
            && errors[0].ends_with("answered cancel"),
        "{}",
        errors[0]
    );
    // The call itself still completed (the wizard takes its defaults).
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        v["structuredContent"]["answers"]["project_name"],
        "mcpscope-demo"
    );
    let lines = o.trace();
    assert!(
        elicitation_answers(&lines)
            .iter()
            .any(|a| a["action"] == "cancel"),
        "answered cancel"
    );
    assert!(
        lines
            .iter()
            .any(|l| l["dir"] == "meta" && l["json"]["event"] == "answer-refused"),
        "the refusal is in the trace"
    );
}

#[test]
fn a_malformed_accept_is_a_usage_error() {
    for bad in ["accept:[1]", "accept:{", "maybe"] {
        let o = run(&["call", "--demo", "--tool", "echo", "--elicit", bad]);
        assert_eq!(o.code, 2, "{bad}: {}", o.stderr);
        assert!(o.stderr.contains("--elicit"), "{bad}: {}", o.stderr);
    }
}

/// `mcpscope call EXTRA... -- server-everything stdio`, whatever its exit code.
fn everything_call(extra: &[&str]) -> Run {
    headless(["call"])
        .args(extra)
        .server([everything().display().to_string(), "stdio".into()])
        .run()
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn everything_elicitation_accepted_with_typed_content() {
    let o = everything_call(&[
        "--tool",
        "trigger-elicitation-request",
        "--elicit",
        r#"accept:{"name":"Ada Lovelace","check":true,"email":"ada@example.org","integer":7,"number":2.5,"untitledSingleSelectEnum":"Joey","untitledMultipleSelectEnum":["Piano","Drums"]}"#,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    for want in [
        "User provided the requested information",
        "- Name: Ada Lovelace",
        "- Agreed to terms: true",
        "- Email: ada@example.org",
        "- Favorite Integer: 7",
        "- Favorite Number: 2.5",
    ] {
        assert!(o.stdout.contains(want), "{want}: {}", o.stdout);
    }

    // Out of range for `integer` (1..100): not sent; the server hears cancel.
    let o = everything_call(&[
        "--tool",
        "trigger-elicitation-request",
        "--elicit",
        r#"accept:{"name":"Ada","integer":500}"#,
    ]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("/integer: 500 is above the maximum 100"),
        "{}",
        o.stderr
    );
    assert!(o.stdout.contains("User cancelled"), "{}", o.stdout);

    let o = everything_call(&[
        "--tool",
        "trigger-elicitation-request",
        "--elicit",
        "decline",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("User declined"), "{}", o.stdout);
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn everything_sampling_answered_or_declined() {
    // Without --sample the client declares no sampling and the tool is not offered.
    let o = everything_call(&["--tool", "trigger-sampling-request", "-a", "prompt=hi"]);
    assert_ne!(o.code, 0, "{}", o.stdout);

    let o = everything_call(&[
        "--tool",
        "trigger-sampling-request",
        "-a",
        "prompt=Say hi",
        "--sample",
        "Hi from the operator",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let text = v["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("Hi from the operator"), "{text}");
    assert!(text.contains("\"model\": \"mcpscope\""), "{text}");

    let o = everything_call(&[
        "--tool",
        "trigger-sampling-request",
        "-a",
        "prompt=Say hi",
        "--sample",
        "decline",
    ]);
    assert_eq!(
        o.code, 1,
        "the tool fails when sampling is refused: {}",
        o.stderr
    );
    assert!(
        o.stdout.contains("User rejected sampling request"),
        "{}",
        o.stdout
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn everything_roots_come_from_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let o = everything_call(&["--tool", "get-roots-list", "--root", root.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains(&format!("URI: file://{}", root.display())),
        "{}",
        o.stdout
    );
}
