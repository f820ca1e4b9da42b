//! `check --format sarif`, validated against the SARIF 2.1.0 JSON schema
//! (OASIS, vendored as tests/fixtures/sarif-schema-2.1.0.json) with the
//! `boon` validator: findings of real demo-server faults, an incomplete
//! call, baseline drift; each result located at its frame's trace line.

use crate::support::{BIN, headless};
use serde_json::Value;
use std::path::Path;

fn validate(doc: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif-schema-2.1.0.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut c = boon::Compiler::new();
    let loc = "urn:test:sarif-schema-2.1.0";
    c.add_resource(loc, schema).expect("the schema loads");
    let idx = c.compile(loc, &mut schemas).expect("the schema compiles");
    if let Err(e) = schemas.validate(doc, idx) {
        panic!(
            "not valid SARIF 2.1.0: {e:#}\n{}",
            serde_json::to_string_pretty(doc).unwrap()
        );
    }
}

/// The schema rejects what is not SARIF: the validator really runs.
#[test]
fn the_validator_rejects_a_broken_log() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sarif-schema-2.1.0.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut c = boon::Compiler::new();
    c.add_resource("urn:test:sarif", schema).unwrap();
    let idx = c.compile("urn:test:sarif", &mut schemas).unwrap();
    let bad = serde_json::json!({"version": "2.1.0", "runs": [{"results": [{"level": "fatal"}]}]});
    assert!(schemas.validate(&bad, idx).is_err());
}

#[test]
fn findings_are_results_at_their_trace_lines() {
    let run = headless([
        "call",
        "--demo",
        "--tool",
        "fault_after_response",
        "--args",
        "{}",
    ])
    .record()
    .run();
    let trace = run.trace_path().display().to_string();
    let o = headless(["check", "--trace", &trace, "--format", "sarif"]).expect(1);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    validate(&doc);
    let run0 = &doc["runs"][0];
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    assert!(rules.iter().any(|r| r["id"] == "progress-after-response"));
    assert!(rules.iter().any(|r| r["id"] == "baseline-drift"));
    let results = run0["results"].as_array().unwrap();
    let r = results
        .iter()
        .find(|r| r["ruleId"] == "progress-after-response")
        .expect("the finding");
    assert_eq!(r["level"], "error");
    let i = r["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(rules[i]["id"], "progress-after-response");
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], trace.as_str());
    // The line holds the finding's first frame.
    let line = loc["region"]["startLine"].as_u64().unwrap() as usize;
    let file = std::fs::read_to_string(run.trace_path()).unwrap();
    let frame: Value = serde_json::from_str(file.lines().nth(line - 1).unwrap()).unwrap();
    assert_eq!(frame["seq"], r["properties"]["seq"][0]);
}

#[test]
fn incomplete_calls_warnings_and_drift_are_valid_sarif() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("crash.jsonl");
    let o = headless([
        "check",
        "--demo",
        "--tool",
        "fault_crash",
        "--format",
        "sarif",
        "--record",
    ])
    .args([rec.display().to_string()])
    .run();
    assert_ne!(o.code, 0, "{}", o.stderr);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    validate(&doc);
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let r = results
        .iter()
        .find(|r| r["ruleId"] == "call-completed")
        .expect("the incomplete call");
    assert_eq!(r["level"], "error");
    // A live session with --record is located in the recording.
    let line = r["locations"][0]["physicalLocation"]["region"]["startLine"]
        .as_u64()
        .unwrap() as usize;
    let file = std::fs::read_to_string(&rec).unwrap();
    let frame: Value = serde_json::from_str(file.lines().nth(line - 1).unwrap()).unwrap();
    assert_eq!(frame["json"]["method"], "tools/call");

    let o = headless([
        "check",
        "--demo",
        "--tool",
        "fault_exceeds_total",
        "--format",
        "sarif",
    ])
    .expect(0);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    validate(&doc);
    assert!(
        doc["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["ruleId"] == "progress-exceeds-total" && r["level"] == "warning")
    );

    let pin = dir.path().join("pin.json");
    headless(["check", "--demo", "--write-baseline"])
        .args([pin.display().to_string()])
        .expect(0);
    let o = headless(["check", "--format", "sarif", "--baseline"])
        .args([pin.display().to_string()])
        .server([BIN, "demo-server", "--conformance"])
        .expect(1);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    validate(&doc);
    assert!(
        doc["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["ruleId"] == "baseline-drift")
    );
}
