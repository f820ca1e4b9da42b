//! `check --format sarif`, validated against the SARIF 2.1.0 JSON schema
//! (OASIS, vendored as tests/fixtures/sarif-schema-2.1.0.json) with the
//! `boon` validator: findings of real demo-server faults, an incomplete
//! call, baseline drift; each result located at its frame's trace line.

use crate::support::{BIN, headless};
use serde_json::Value;
use std::path::Path;

pub fn validate(doc: &Value) {
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
    // The line holds the frame that broke the rule (the late progress, not
    // the response it came after), the first finding's last frame.
    let line = loc["region"]["startLine"].as_u64().unwrap() as usize;
    let file = std::fs::read_to_string(run.trace_path()).unwrap();
    let lines: Vec<&str> = file.lines().collect();
    let frame: Value = serde_json::from_str(lines[line - 1]).unwrap();
    let seqs = r["properties"]["seq"].as_array().unwrap();
    assert_eq!(&frame["seq"], seqs.last().unwrap());
    assert_eq!(frame["json"]["method"], "notifications/progress");
    // Both late notifications are one result: the second is related.
    let same: Vec<&Value> = results
        .iter()
        .filter(|r| r["ruleId"] == "progress-after-response")
        .collect();
    assert_eq!(same.len(), 1, "one result per cause");
    assert_eq!(r["properties"]["count"], 2);
    let related: Vec<u64> = r["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            l["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
        })
        .collect();
    let last: Value = serde_json::from_str(lines[*related.last().unwrap() as usize - 1]).unwrap();
    assert_eq!(last["seq"], r["properties"]["lastSeq"]);
    assert_eq!(last["json"]["method"], "notifications/progress");
    // The rule says how to fix it, and where the specification says so.
    let rule = &rules[i];
    assert_eq!(
        rule["helpUri"],
        mcpscope::checks::Rule::ProgressAfterResponse.spec()
    );
    assert!(
        rule["help"]["text"]
            .as_str()
            .unwrap()
            .contains(mcpscope::checks::Rule::ProgressAfterResponse.fix())
    );
    assert!(
        rule["help"]["markdown"]
            .as_str()
            .unwrap()
            .contains("**How to fix:**")
    );
}

/// A log below the level set is located at the log that broke the rule,
/// not at the request or the level it was judged against.
#[test]
fn log_below_level_points_at_the_log_frame() {
    let run = headless([
        "call",
        "--demo",
        "--protocol",
        "legacy",
        "--tool",
        "fault_log_below_level",
        "--log-level",
        "warning",
    ])
    .record()
    .run();
    let trace = run.trace_path().display().to_string();
    let o = headless(["check", "--trace", &trace, "--format", "sarif"]).expect(0);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    validate(&doc);
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let below: Vec<&Value> = results
        .iter()
        .filter(|r| r["ruleId"] == "log-below-level")
        .collect();
    assert_eq!(below.len(), 1, "the debug and the info log are one cause");
    let r = below[0];
    assert_eq!(r["properties"]["count"], 2);
    let file = std::fs::read_to_string(run.trace_path()).unwrap();
    let lines: Vec<&str> = file.lines().collect();
    let at = |l: &Value| -> Value {
        let n = l["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .unwrap() as usize;
        serde_json::from_str(lines[n - 1]).unwrap()
    };
    let first = at(&r["locations"][0]);
    assert_eq!(first["json"]["method"], "notifications/message", "{first}");
    assert_eq!(first["json"]["params"]["level"], "debug");
    // The other log is related, as is the request the level was set by.
    let related: Vec<Value> = r["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(at)
        .collect();
    assert!(
        related
            .iter()
            .any(|f| f["json"]["params"]["level"] == "info"),
        "{related:?}"
    );
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

/// Characters that change how the text around them reads (U+202E, U+009B,
/// zero-width) from a hostile server: JSON and SARIF carry them as `\u`
/// escapes (the same value), and SARIF's message text — which GitHub
/// renders — names them visibly (`<U+202E>`).
#[test]
fn direction_changing_characters_are_escaped_in_json_and_sarif() {
    let server = [
        "python3",
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/servers/shifting_tools.py"
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let pin = dir.path().join("pin.json");
    headless(["check", "--write-baseline"])
        .args([pin.display().to_string()])
        .server(server)
        .expect(0);
    // The pinned description differs, so the drift quotes both.
    let text = std::fs::read_to_string(&pin).unwrap();
    std::fs::write(&pin, text.replace("\"reads ", "\"reads plain ")).unwrap();
    let raw = |s: &str| s.chars().any(|c| matches!(c, '\u{202E}' | '\u{9B}'));
    let tool = "odd\u{202E}tool";
    let o = headless(["check", "--tool", tool, "--format", "json", "--baseline"])
        .args([pin.display().to_string()])
        .server(server)
        .expect(1);
    assert!(!raw(&o.stdout), "raw in the JSON report:\n{}", o.stdout);
    assert!(o.stdout.contains("\\u202e") && o.stdout.contains("\\u009b"));
    // The same value: only its writing changed.
    let doc = o.json();
    assert_eq!(doc["source"]["tool"], tool);
    let drift = &doc["baseline"]["drift"];
    assert!(
        drift.to_string().contains('\u{202E}'),
        "the description's drift is reported, its value unchanged: {drift}"
    );
    let rec = dir.path().join("rec.jsonl");
    let o = headless(["check", "--tool", tool, "--format", "sarif", "--record"])
        .args([rec.display().to_string(), "--baseline".into()])
        .args([pin.display().to_string()])
        .server(server)
        .expect(1);
    assert!(!raw(&o.stdout), "raw in the SARIF log:\n{}", o.stdout);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    validate(&doc);
    let results = doc["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["ruleId"] == "baseline-drift"));
    let named = results
        .iter()
        .find(|r| r["ruleId"] == "tool-name-invalid")
        .expect("the odd name is found");
    let message = named["message"]["text"].as_str().unwrap();
    assert!(message.contains("odd<U+202E>tool"), "{message}");
    for r in results {
        let m = r["message"]["text"].as_str().unwrap();
        assert!(!raw(m), "a message GitHub renders: {m:?}");
    }
    // JUnit: character references, the same text to an XML reader.
    let o = headless(["check", "--tool", tool, "--format", "junit", "--baseline"])
        .args([pin.display().to_string()])
        .server(server)
        .expect(1);
    assert!(!raw(&o.stdout), "raw in the JUnit report:\n{}", o.stdout);
    assert!(o.stdout.contains("&#x202E;"), "{}", o.stdout);
    let xml = roxmltree::Document::parse(&o.stdout).unwrap();
    assert!(
        xml.descendants()
            .filter_map(|n| n.attribute("name"))
            .any(|m| m.ends_with(tool)),
        "the name, read back, is the server's: {}",
        o.stdout
    );
}

/// A drift is located first in the committed file — the baseline, at the
/// line naming the pinned tool — and the frame that listed the tool is a
/// related location in the recording.
#[test]
fn drift_points_at_the_pinned_tool_in_the_baseline() {
    let server = [
        "python3",
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/servers/shifting_tools.py"
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let pin = dir.path().join("pin.json");
    headless(["check", "--write-baseline"])
        .args([pin.display().to_string()])
        .server(server)
        .expect(0);
    // Calling flip makes its listing drift from the pin.
    let rec = dir.path().join("rec.jsonl");
    let o = headless(["check", "--tool", "flip", "--format", "sarif", "--record"])
        .args([rec.display().to_string(), "--baseline".into()])
        .args([pin.display().to_string()])
        .server(server)
        .expect(1);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    validate(&doc);
    let r = doc["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "baseline-drift")
        .expect("the drift");
    let loc = &r["locations"][0]["physicalLocation"];
    assert_eq!(
        loc["artifactLocation"]["uri"],
        pin.display().to_string(),
        "{r}"
    );
    let line = loc["region"]["startLine"].as_u64().unwrap() as usize;
    let text = std::fs::read_to_string(&pin).unwrap();
    assert_eq!(
        text.lines().nth(line - 1).unwrap().trim(),
        r#""name": "flip""#
    );
    let rel = &r["relatedLocations"][0]["physicalLocation"];
    assert_eq!(rel["artifactLocation"]["uri"], rec.display().to_string());
    let n = rel["region"]["startLine"].as_u64().unwrap() as usize;
    let frame: Value = serde_json::from_str(
        std::fs::read_to_string(&rec)
            .unwrap()
            .lines()
            .nth(n - 1)
            .unwrap(),
    )
    .unwrap();
    assert!(frame["json"]["result"]["tools"].is_array(), "{frame}");
}
