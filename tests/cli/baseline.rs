//! `check --write-baseline` / `check --baseline` against the real demo
//! server: a pin written from a live server and from a trace is the same
//! stable file; the same server does not drift; another tool list, an
//! edited definition and a kind the session did not list do (exit 1, in
//! text, JSON, JUnit).

use crate::support::{BIN, headless};
use serde_json::Value;

#[test]
fn a_pin_of_the_same_server_does_not_drift() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live.json");
    let again = dir.path().join("again.json");
    let from_trace = dir.path().join("trace.json");
    // From a live server, with no tool to call: the server is only listed.
    headless(["check", "--demo", "--write-baseline"])
        .args([live.display().to_string()])
        .expect(0);
    headless(["check", "--demo", "--write-baseline"])
        .args([again.display().to_string()])
        .expect(0);
    let run = headless(["check", "--demo", "--tool", "echo"])
        .record()
        .expect(0);
    headless(["check", "--trace"])
        .args([run.trace_path().display().to_string()])
        .args([
            "--write-baseline".to_string(),
            from_trace.display().to_string(),
        ])
        .expect(0);
    let text = std::fs::read_to_string(&live).unwrap();
    assert_eq!(text, std::fs::read_to_string(&again).unwrap());
    assert_eq!(text, std::fs::read_to_string(&from_trace).unwrap());
    let pin: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(pin["mcpscope_baseline"], 1);
    let names: Vec<&str> = pin["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "tools are pinned in name order");
    assert!(names.contains(&"echo"));

    let o = headless(["check", "--demo", "--baseline"])
        .args([live.display().to_string()])
        .expect(0);
    assert!(o.stdout.contains("no drift"), "{}", o.stdout);
    let o = headless(["check", "--trace"])
        .args([run.trace_path().display().to_string()])
        .args(["--baseline".to_string(), live.display().to_string()])
        .args(["--format", "json"])
        .expect(0);
    assert_eq!(o.json()["baseline"]["drift"], serde_json::json!([]));
}

#[test]
fn drift_fails_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let pin = dir.path().join("pin.json");
    headless(["check", "--demo", "--write-baseline"])
        .args([pin.display().to_string()])
        .expect(0);
    // More tools: each one a drift line.
    let o = headless(["check", "--baseline"])
        .args([pin.display().to_string()])
        .server([BIN, "demo-server", "--conformance"])
        .expect(1);
    assert!(
        o.stdout
            .contains("  drift: tool test_simple_text: not pinned (added)  [line "),
        "{}",
        o.stdout
    );
    let verdict = o.stdout.lines().last().unwrap_or_default();
    assert!(
        verdict.starts_with("FAIL: ") && verdict.contains("definitions drifted from the baseline;"),
        "{verdict}"
    );

    // An edited pin: echo's description and annotations as they were.
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&pin).unwrap()).unwrap();
    for t in v["tools"].as_array_mut().unwrap() {
        if t["name"] == "echo" {
            t["description"] = "Echo, as pinned".into();
            t["annotations"] = serde_json::json!({"readOnlyHint": true});
        }
    }
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let o = headless(["check", "--demo", "--tool", "echo", "--baseline"])
        .args([edited.display().to_string()])
        .args(["--format", "json"])
        .expect(1);
    let j = o.json();
    assert_eq!(j["summary"]["passed"], false);
    let drift = j["baseline"]["drift"].as_array().unwrap();
    assert_eq!(drift.len(), 1, "{drift:?}");
    assert_eq!(drift[0]["name"], "echo");
    assert_eq!(drift[0]["change"], "changed");
    let fields: Vec<&str> = drift[0]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["annotations", "description"]);
    assert_eq!(drift[0]["less_safe"][0], "readOnlyHint true → absent");
    let o = headless([
        "check",
        "--demo",
        "--tool",
        "echo",
        "--format",
        "junit",
        "--baseline",
    ])
    .args([edited.display().to_string()])
    .expect(1);
    assert!(
        o.stdout.contains("name=\"baseline-drift\"><failure"),
        "{}",
        o.stdout
    );

    // A pinned kind the session never listed cannot be vouched for.
    let call = headless(["call", "--demo", "--tool", "echo", "--args", "{}"])
        .record()
        .run();
    let o = headless(["check", "--trace"])
        .args([call.trace_path().display().to_string()])
        .args(["--baseline".to_string(), pin.display().to_string()])
        .expect(1);
    assert!(
        o.stdout.contains("not listed in the session"),
        "{}",
        o.stdout
    );

    // A baseline that cannot be read is a usage error.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{}").unwrap();
    let o = headless(["check", "--demo", "--baseline"])
        .args([bad.display().to_string()])
        .expect(2);
    assert!(
        o.stderr.contains("not an mcpscope baseline"),
        "{}",
        o.stderr
    );
}

#[test]
fn a_device_as_baseline_is_refused_at_once() {
    let run = headless(["check", "--demo", "--tool", "echo"])
        .record()
        .expect(0);
    let trace = run.trace_path().display().to_string();
    for args in [
        vec!["check", "--demo", "--baseline", "/dev/zero"],
        vec!["check", "--trace", &trace, "--baseline", "/dev/zero"],
    ] {
        let o = headless(&args).expect(2);
        let errors = o.lines("[error]");
        assert!(
            errors.len() == 1
                && errors[0].contains("/dev/zero")
                && errors[0].contains("a character device"),
            "{args:?}: {}",
            o.stderr
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let o = headless(["check", "--demo", "--baseline"])
        .args([dir.path().display().to_string()])
        .expect(2);
    assert!(o.stderr.contains("a directory"), "{}", o.stderr);
}

/// `python3 tests/servers/hostile_listing.py MODE` as the server's argv.
fn listing_server(mode: &str) -> Vec<String> {
    vec![
        "python3".into(),
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/servers/hostile_listing.py"
        )
        .into(),
        mode.into(),
    ]
}

#[test]
fn a_listing_that_never_ends_is_not_pinned() {
    let dir = tempfile::tempdir().unwrap();
    for (mode, says) in [
        ("cursor-loop", "the tool listing never ended"),
        ("endless", "the tool listing never ended"),
        ("listed-twice", "the tool listing names a twice"),
    ] {
        let pin = dir.path().join(format!("{mode}.json"));
        let trace = dir.path().join(format!("{mode}.jsonl"));
        let o = headless(["check", "--protocol", "legacy", "--write-baseline"])
            .args([pin.display().to_string()])
            .args(["--record".to_string(), trace.display().to_string()])
            .server(listing_server(mode))
            .expect(3);
        assert!(
            o.lines("[error]").iter().any(|l| l.contains(says)),
            "{mode}: {}",
            o.stderr
        );
        assert!(!pin.exists(), "{mode}: a pin was written");
        // From the recording, the same.
        let o = headless(["check", "--trace"])
            .args([trace.display().to_string()])
            .args(["--write-baseline".to_string(), pin.display().to_string()])
            .expect(3);
        assert!(o.stderr.contains(says), "{mode}: {}", o.stderr);
        assert!(!pin.exists(), "{mode}: a pin was written from the trace");
    }
}

#[test]
fn direction_changing_characters_are_escaped_in_the_pin_and_the_drift() {
    let dir = tempfile::tempdir().unwrap();
    let pin = dir.path().join("pin.json");
    headless(["check", "--protocol", "legacy", "--write-baseline"])
        .args([pin.display().to_string()])
        .server(listing_server("bidi"))
        .expect(0);
    let text = std::fs::read_to_string(&pin).unwrap();
    assert!(
        !text.contains('\u{202e}') && !text.contains('\u{9b}'),
        "raw in the pin: {text:?}"
    );
    assert!(text.contains(r"safe\u202etxt.exe\u009b[31m"), "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["tools"][0]["description"],
        "safe\u{202e}txt.exe\u{9b}[31m"
    );
    // The same definitions do not drift; another description does, and the
    // drift report shows it escaped too.
    headless(["check", "--protocol", "legacy", "--baseline"])
        .args([pin.display().to_string()])
        .server(listing_server("bidi"))
        .expect(0);
    let o = headless(["check", "--protocol", "legacy", "--baseline"])
        .args([pin.display().to_string()])
        .server(listing_server("listed-twice"))
        .run();
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stdout.contains("drift"), "{}", o.stdout);
    assert!(
        !o.stdout.contains('\u{202e}') && !o.stdout.contains('\u{9b}'),
        "{:?}",
        o.stdout
    );
}

#[test]
fn a_baseline_that_pins_nothing_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text, says) in [
        ("empty.json", r#"{"mcpscope_baseline": 1}"#, "pins nothing"),
        (
            "nameless.json",
            r#"{"mcpscope_baseline": 1, "tools": [{"description": "x"}]}"#,
            r#""tools"[0] has no "name""#,
        ),
        (
            "not-objects.json",
            r#"{"mcpscope_baseline": 1, "prompts": [1]}"#,
            r#""prompts"[0] has no "name""#,
        ),
    ] {
        let f = dir.path().join(name);
        std::fs::write(&f, text).unwrap();
        let o = headless(["check", "--demo", "--baseline"])
            .args([f.display().to_string()])
            .expect(2);
        assert!(o.stderr.contains(says), "{name}: {}", o.stderr);
    }
    // An empty list of a kind still pins it: the server must list none.
    let f = dir.path().join("no-prompts.json");
    std::fs::write(&f, r#"{"mcpscope_baseline": 1, "tools": []}"#).unwrap();
    headless(["check", "--demo", "--baseline"])
        .args([f.display().to_string()])
        .expect(1);
}
