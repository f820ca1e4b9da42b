//! `mcpscope test` through the real binary: test files against the demo
//! server and a small server whose behaviour a variant changes
//! (tests/servers/progress_variants.py); a recording made into a test
//! (`--from`) passes against its server unedited and fails, naming the
//! change, against a changed one; every report format read by its consumer
//! (JUnit by an XML parser, the GitHub commands by their grammar).

use crate::support::{BIN, run};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn variants() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/servers/progress_variants.py")
        .display()
        .to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// `mcpscope ARGS` in `dir` (or here) with `env` set, to its end.
fn run_env(
    args: &[&str],
    dir: Option<&Path>,
    env: &[(&str, &std::ffi::OsStr)],
) -> crate::support::Output {
    let mut cmd = std::process::Command::new(BIN);
    cmd.args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    crate::support::finish(cmd.spawn().unwrap())
}

fn test(args: &[&str]) -> crate::support::Output {
    let mut all = vec!["test"];
    all.extend_from_slice(args);
    run(&all)
}

/// A passing case, then one whose expectations the demo's
/// `fault_after_response` breaks; the line of each expectation is known.
const DEMO: &str = r#"[server]
demo = true

[[case]]
name = "upload reports bytes"
tool = "upload_file"
arguments = { size = 2048 }

[case.expect]
is_error = false
result = { content = [{ type = "text" }] }
progress = { count = 10, increasing = true, reaches_total = true }
order = ["progress", "response"]

[[case]]
name = "late progress"
tool = "fault_after_response"

[case.expect]
progress_before_response = true
progress = { max = 1 }
"#;

#[test]
fn allowed_rules_do_not_fail_a_case_and_others_still_do() {
    let dir = tempfile::tempdir().unwrap();
    let case = |findings: &str| {
        format!(
            "[server]\ndemo = true\n\n[[case]]\nname = \"late\"\ntool = \"fault_after_response\"\n\n[case.expect]\n{findings}\n"
        )
    };
    // The rule the tool breaks, allowed: the case passes.
    let f = write(
        dir.path(),
        "allowed.toml",
        &case(r#"findings = { allow = ["progress-after-response"] }"#),
    );
    let o = test(&[&f.display().to_string()]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout.ends_with("1 case: 1 passed, 0 failed\n"),
        "{}",
        o.stdout
    );
    // Shown, marked allowed, with its fix: allowed is not hidden.
    assert!(
        o.stdout.contains("×2 first #8 last #9 (allowed)"),
        "{}",
        o.stdout
    );
    // Another rule allowed: the finding still fails the case.
    let f = write(
        dir.path(),
        "other.toml",
        &case(r#"findings = { allow = ["progress-not-increasing"] }"#),
    );
    let o = test(&[&f.display().to_string()]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout
            .contains("findings: [error] progress-after-response"),
        "{}",
        o.stdout
    );
}

#[test]
fn a_failing_expectation_is_reported_at_its_line_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "demo.toml", DEMO);
    let f = file.display().to_string();

    let o = test(&[&f]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout
            .contains(&format!("PASS  {f}:4  upload reports bytes")),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains(&format!("FAIL  {f}:15  late progress")),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains(&format!("{f}:20: progress_before_response: call 1: 2 progress notification(s) arrived after its response")),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains(&format!(
            "{f}:21: progress.max: call 1: 3 progress notification(s), expected at most 1"
        )),
        "{}",
        o.stdout
    );
    // The rule's findings are one failure, counted, with the fix once.
    let findings: Vec<&str> = o
        .stdout
        .lines()
        .filter(|l| l.contains("findings: [error] progress-after-response"))
        .collect();
    assert_eq!(findings.len(), 1, "{}", o.stdout);
    assert!(findings[0].contains("×2"), "{}", findings[0]);
    assert!(
        o.stdout.contains("fix: a throttled or background reporter"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.ends_with("2 cases: 1 passed, 1 failed\n"),
        "{}",
        o.stdout
    );

    let o = test(&[&f, "--format", "json"]);
    assert_eq!(o.code, 1);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["mcpscope_test"], 1);
    assert_eq!(v["cases"][0]["passed"], true);
    assert_eq!(v["cases"][0]["seen"]["progress"], serde_json::json!([10]));
    let failures = v["cases"][1]["failures"].as_array().unwrap();
    let lines: Vec<(String, u64)> = failures
        .iter()
        .map(|f| {
            (
                f["what"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            ("progress.max".to_string(), 21),
            ("progress_before_response".to_string(), 20),
            ("findings".to_string(), 15)
        ]
    );
    assert_eq!(
        v["cases"][1]["groups"][0]["rule"],
        "progress-after-response"
    );

    // JUnit: one test case per case, the failing one with its failures.
    let o = test(&[&f, "--format", "junit"]);
    assert_eq!(o.code, 1);
    let doc = roxmltree::Document::parse(&o.stdout).unwrap();
    let cases: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), 2);
    assert_eq!(cases[0].attribute("name"), Some("upload reports bytes"));
    assert!(cases[0].children().all(|c| !c.has_tag_name("failure")));
    let failure = cases[1]
        .children()
        .find(|c| c.has_tag_name("failure"))
        .unwrap();
    assert!(
        failure
            .text()
            .unwrap()
            .contains(":20: progress_before_response")
    );
    let suites = doc.root_element();
    assert_eq!(
        (suites.attribute("tests"), suites.attribute("failures")),
        (Some("2"), Some("1"))
    );

    // GitHub: each line a workflow command of the documented grammar,
    // annotating the expectation's line in the test file.
    let o = test(&[&f, "--format", "github"]);
    assert_eq!(o.code, 1);
    assert_workflow_commands(&o.stdout);
    let errors: Vec<&str> = o
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error"))
        .collect();
    assert_eq!(errors.len(), 3, "{}", o.stdout);
    assert!(
        errors
            .iter()
            .any(|l| l.contains(",line=20,") && l.contains("progress_before_response"))
    );
    assert!(
        errors
            .iter()
            .any(|l| l.contains(",line=15,") && l.contains("%0Afix: "))
    );
    assert!(
        o.stdout
            .ends_with("::notice title=mcpscope test::2 cases: 1 passed, 1 failed\n")
    );
}

#[test]
fn markdown_goes_to_the_step_summary_too_with_server_text_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        "v.toml",
        &format!(
            "[server]\ncommand = [\"python3\", {:?}, \"log-added\"]\n\n[[case]]\nname = \"no errors\"\ntool = \"work\"\n[case.expect]\nlogs = {{ absent = [\"error\"] }}\n",
            variants()
        ),
    );
    let summary = write(dir.path(), "summary.md", "earlier step\n");
    let f = file.display().to_string();
    let o = run_env(
        &["test", &f, "--format", "markdown"],
        None,
        &[("GITHUB_STEP_SUMMARY", summary.as_os_str())],
    );
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout.starts_with("## mcpscope test: 1 of 1 failed ❌\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("| ❌ | no errors | work | 1 | 4 | 2 |"),
        "{}",
        o.stdout
    );
    // The server's log text: no markup, no table cell broken.
    assert!(
        o.stdout
            .contains("&lt;img src=x onerror=alert(1)&gt; \\| went wrong"),
        "{}",
        o.stdout
    );
    assert!(!o.stdout.contains("<img"), "{}", o.stdout);
    let written = std::fs::read_to_string(&summary).unwrap();
    assert_eq!(written, format!("earlier step\n{}", o.stdout));
}

/// The recorded test file, its `[server]` command pointed at a variant.
fn with_variant(test_file: &str, variant: &str) -> String {
    let plain = format!("{:?}, \"plain\"]", variants());
    assert!(test_file.contains(&plain), "{test_file}");
    test_file.replace(&plain, &format!("{:?}, \"{variant}\"]", variants()))
}

#[test]
fn a_recording_becomes_a_test_that_fails_naming_each_change() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("plain.jsonl");
    let o = run(&[
        "call",
        "--tool",
        "work",
        "--log-level",
        "info",
        "--record",
        &trace.display().to_string(),
        "--",
        "python3",
        &variants(),
        "plain",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let out = dir.path().join("plain.toml");
    let o = test(&[
        "--from",
        &trace.display().to_string(),
        "-o",
        &out.display().to_string(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let text = std::fs::read_to_string(&out).unwrap();
    for expected in [
        "[server]",
        "protocol = \"2025-11-25\"",
        "log_level = \"info\"",
        "tool = \"work\"",
        "is_error = false",
        "count = 4",
        "progress_before_response = true",
        "present = [\"info\"]",
        "absent = [\"warning\", \"error\", \"critical\", \"alert\", \"emergency\"]",
    ] {
        assert!(text.contains(expected), "{expected:?} in:\n{text}");
    }
    // Unedited, against the same server: it passes.
    let o = test(&[&out.display().to_string()]);
    assert_eq!(o.code, 0, "{}{}\n{text}", o.stdout, o.stderr);

    for (variant, names) in [
        (
            "reordered",
            &["progress_before_response", "progress-after-response"][..],
        ),
        ("log-added", &["logs.absent: a log at level error"][..]),
        (
            "fewer",
            &["progress.count: call 1: 2 progress notification(s), expected 4"][..],
        ),
        (
            "error",
            &["is_error: call 1 returned isError true, expected false: failed"][..],
        ),
        ("slower", &["timing.max_ms"][..]),
    ] {
        let changed = write(
            dir.path(),
            &format!("{variant}.toml"),
            &with_variant(&text, variant),
        );
        let o = test(&[&changed.display().to_string()]);
        assert_eq!(o.code, 1, "{variant}: {}{}", o.stdout, o.stderr);
        for name in names {
            assert!(
                o.stdout.contains(name),
                "{variant}: {name:?} in\n{}",
                o.stdout
            );
        }
    }
}

#[test]
fn a_mistake_in_any_file_stops_the_run_before_a_server_starts() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.toml",
        "[server]\ndemo = true\n[[case]]\nname = \"a\"\ntool = \"echo\"\n",
    );
    write(
        dir.path(),
        "b.toml",
        "[server]\ndemo = true\n[[case]]\nname = \"b\"\ntool = \"echo\"\n[case.expect]\nprogress = { most = 3 }\n",
    );
    let o = test(&[&dir.path().display().to_string()]);
    assert_eq!(o.code, 2, "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.is_empty(), "{}", o.stdout);
    assert!(
        o.stderr.contains("b.toml:7: unknown field `most`"),
        "{}",
        o.stderr
    );

    // An unset variable names itself; nothing runs either.
    let c = write(
        dir.path(),
        "c.toml",
        "[server]\nurl = \"${NO_SUCH_MCPSCOPE_VAR}/mcp\"\n[[case]]\nname = \"c\"\ntool = \"echo\"\n",
    );
    let o = test(&[&c.display().to_string()]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("c.toml:1: ${NO_SUCH_MCPSCOPE_VAR} is not set"),
        "{}",
        o.stderr
    );
}

#[test]
fn a_server_that_cannot_start_fails_its_cases_with_checks_code() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "gone.toml",
        "[server]\ncommand = [\"/nonexistent/mcp-server\"]\n[[case]]\nname = \"a\"\ntool = \"echo\"\n[[case]]\nname = \"b\"\ntool = \"echo\"\n",
    );
    let o = test(&[&f.display().to_string(), "--format", "json"]);
    assert_eq!(o.code, 3, "{}{}", o.stdout, o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    for c in v["cases"].as_array().unwrap() {
        assert_eq!(c["passed"], false);
        assert_eq!(c["code"], 3);
    }
}

#[test]
fn cases_can_share_one_server_and_each_is_judged_on_its_own_calls() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        dir.path(),
        "shared.toml",
        "[server]\ndemo = true\nshared = true\n\n[[case]]\nname = \"late\"\ntool = \"fault_after_response\"\n\n[[case]]\nname = \"clean\"\ntool = \"upload_file\"\narguments = { size = 1024 }\nrepeat = 2\n[case.expect]\nprogress = { count = 10 }\ntiming = { p95_ms = 60000 }\n",
    );
    let o = test(&[&f.display().to_string(), "--format", "json"]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let (late, clean) = (&v["cases"][0], &v["cases"][1]);
    assert_eq!(late["passed"], false);
    assert_eq!(late["groups"][0]["rule"], "progress-after-response");
    // The first case's findings are not the second's.
    assert_eq!(clean["passed"], true, "{clean}");
    assert_eq!(clean["seen"]["calls"], 2);
    assert_eq!(clean["seen"]["progress"], serde_json::json!([10, 10]));
    assert!(clean["groups"].as_array().unwrap().is_empty(), "{clean}");
}

/// Recordings of the official Python and TypeScript SDKs' servers and of
/// FastMCP become tests that pass unedited against the same server.
#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn sdk_and_fastmcp_recordings_become_passing_tests() {
    let everything = vec![crate::support::everything().display().to_string()];
    for (name, argv, call) in [
        (
            "python-sdk",
            crate::support::python_server(),
            &["--tool", "slow_task", "--log-level", "debug"][..],
        ),
        (
            "fastmcp",
            crate::support::fastmcp_server(),
            &["--tool", "slow_task", "--log-level", "debug"][..],
        ),
        (
            "typescript-sdk",
            everything,
            &[
                "--tool",
                "trigger-long-running-operation",
                "-a",
                "duration=1",
                "-a",
                "steps=4",
            ][..],
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("t.jsonl");
        let mut args = vec!["call".to_string()];
        args.extend(call.iter().map(|s| s.to_string()));
        args.extend([
            "--record".to_string(),
            trace.display().to_string(),
            "--".into(),
        ]);
        args.extend(argv);
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&a);
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        let out = dir.path().join("t.toml");
        let o = test(&[
            "--from",
            &trace.display().to_string(),
            "-o",
            &out.display().to_string(),
        ]);
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        let text = std::fs::read_to_string(&out).unwrap();
        for expected in [
            "count = 4",
            "increasing = true",
            "progress_before_response = true",
        ] {
            assert!(text.contains(expected), "{name}: {expected:?} in {text}");
        }
        let o = test(&[&out.display().to_string()]);
        assert_eq!(o.code, 0, "{name}: {}{}\n{text}", o.stdout, o.stderr);
        assert!(o.stdout.starts_with("PASS  "), "{name}: {}", o.stdout);
    }
}

/// Each line a workflow command of the documented grammar:
/// `::LEVEL prop=value,…::message`, properties and message escaped.
fn assert_workflow_commands(out: &str) {
    assert!(!out.is_empty());
    for line in out.lines() {
        let (cmd, rest) = line
            .strip_prefix("::")
            .and_then(|l| l.split_once(' '))
            .unwrap_or_else(|| panic!("{line}"));
        assert!(["error", "warning", "notice"].contains(&cmd), "{line}");
        let (props, message) = rest.split_once("::").unwrap_or_else(|| panic!("{line}"));
        for p in props.split(',') {
            let (k, v) = p.split_once('=').unwrap_or_else(|| panic!("{line}"));
            assert!(["file", "line", "title"].contains(&k), "{line}");
            assert!(
                !v.contains(':') && !v.contains(','),
                "unescaped property: {line}"
            );
            if k == "line" {
                assert!(v.parse::<u32>().is_ok_and(|n| n > 0), "{line}");
            }
        }
        assert!(!message.is_empty() && !message.contains('\n'), "{line}");
    }
}

#[test]
fn check_annotates_the_recorded_frame_and_the_drifted_baseline_line() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("late.jsonl");
    let t = trace.display().to_string();
    let o = run(&[
        "check",
        "--demo",
        "--tool",
        "fault_after_response",
        "--record",
        &t,
        "--format",
        "github",
    ]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert_workflow_commands(&o.stdout);
    let error = o.stdout.lines().find(|l| l.starts_with("::error")).unwrap();
    let line: usize = error
        .split(",line=")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(
        error.starts_with(&format!(
            "::error file={t},line={line},title=progress-after-response (error) ×2"
        )),
        "{error}"
    );
    assert!(
        error.contains("%0Afix: a throttled or background reporter"),
        "{error}"
    );
    // That line of the recording is the progress that came after the response.
    let text = std::fs::read_to_string(&trace).unwrap();
    let frame: Value = serde_json::from_str(text.lines().nth(line - 1).unwrap()).unwrap();
    assert_eq!(frame["json"]["method"], "notifications/progress");
    assert!(
        o.stdout
            .lines()
            .last()
            .unwrap()
            .starts_with("::notice title=mcpscope check::FAIL: 2 error"),
        "{}",
        o.stdout
    );

    // A drifted definition is annotated in the committed baseline, at its entry.
    let pin = dir.path().join("pin.json");
    let p = pin.display().to_string();
    assert_eq!(run(&["check", "--demo", "--write-baseline", &p]).code, 0);
    let edited = std::fs::read_to_string(&pin)
        .unwrap()
        .replace("Returns its arguments as JSON text.", "Echoes.");
    std::fs::write(&pin, &edited).unwrap();
    let o = run(&["check", "--demo", "--baseline", &p, "--format", "github"]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert_workflow_commands(&o.stdout);
    let drift = o
        .stdout
        .lines()
        .find(|l| l.contains("title=baseline-drift"))
        .unwrap();
    let at = edited
        .lines()
        .position(|l| l.contains("\"name\": \"echo\""))
        .unwrap()
        + 1;
    assert!(
        drift.starts_with(&format!("::error file={p},line={at},")),
        "{drift}\n{edited}"
    );

    // Markdown: the job summary, appended where the runner says.
    let summary = dir.path().join("summary.md");
    let o = run_env(
        &["check", "--trace", &t, "--format", "markdown"],
        None,
        &[("GITHUB_STEP_SUMMARY", summary.as_os_str())],
    );
    assert_eq!(o.code, 1);
    assert!(
        o.stdout.starts_with("## mcpscope check: failed ❌\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("| 1 | fault\\_after\\_response | ok |"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("- **progress-after-response** (error) ×2:"),
        "{}",
        o.stdout
    );
    assert_eq!(std::fs::read_to_string(&summary).unwrap(), o.stdout);
}

#[test]
fn sarif_points_at_the_test_file_and_validates() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(dir.path(), "demo.toml", DEMO);
    let f = file.display().to_string();
    let o = test(&[&f, "--format", "sarif"]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    crate::sarif::validate(&doc);
    let results = doc["runs"][0]["results"].as_array().unwrap();
    let placed: Vec<(&str, u64)> = results
        .iter()
        .map(|r| {
            let loc = &r["locations"][0]["physicalLocation"];
            assert_eq!(loc["artifactLocation"]["uri"], f.as_str());
            (
                r["ruleId"].as_str().unwrap(),
                loc["region"]["startLine"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        placed,
        [
            ("test-expectation", 21),
            ("test-expectation", 20),
            ("progress-after-response", 15)
        ]
    );
    // A finding's result names its catalog rule, whose help is the fix.
    let rules = doc["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let i = results[2]["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(rules[i]["id"], "progress-after-response");
    assert!(
        rules[i]["help"]["text"]
            .as_str()
            .unwrap()
            .starts_with("a throttled or background reporter")
    );
}

/// `mcpscope test` in `dir` with `VARIANT` set for the server's command.
fn test_variant(dir: &Path, variant: &str, args: &[&str]) -> crate::support::Output {
    let mut all = vec!["test"];
    all.extend_from_slice(args);
    run_env(
        &all,
        Some(dir),
        &[("VARIANT", std::ffi::OsStr::new(variant))],
    )
}

#[test]
fn goldens_are_recorded_then_compared_as_diff_compares_and_updated() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(variants(), dir.path().join("server.py")).unwrap();
    write(
        dir.path(),
        "v.toml",
        "[server]\ncommand = [\"python3\", \"server.py\", \"${VARIANT}\"]\n\n[[case]]\nname = \"work steps\"\ntool = \"work\"\nlog_level = \"info\"\n",
    );
    let golden = dir.path().join("v.golden/work_steps.jsonl");
    let o = test_variant(dir.path(), "plain", &["v.toml", "--record"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(golden.is_file(), "no golden written");
    // The same server: no difference.
    let o = test_variant(dir.path(), "plain", &["v.toml"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    // A log added: the golden names it, at the case.
    let o = test_variant(dir.path(), "log-added", &["v.toml"]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout.contains("v.toml:4: golden: differs from its golden recording v.golden/work_steps.jsonl: @@ call 1 work"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("~ log(error work): 0 → 1"),
        "{}",
        o.stdout
    );
    // --update says what changed and takes the new session as the golden.
    let o = test_variant(dir.path(), "log-added", &["v.toml", "--update"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stderr
            .contains("[golden] v.golden/work_steps.jsonl: changed"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("  ~ log(error work): 0 → 1"),
        "{}",
        o.stderr
    );
    let o = test_variant(dir.path(), "log-added", &["v.toml"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let o = test_variant(dir.path(), "log-added", &["v.toml", "--update"]);
    assert!(
        o.stderr
            .contains("[golden] v.golden/work_steps.jsonl: unchanged"),
        "{}",
        o.stderr
    );

    // A golden the case expects but nobody recorded is a failure at its line.
    write(
        dir.path(),
        "w.toml",
        "[server]\ncommand = [\"python3\", \"server.py\", \"plain\"]\n\n[[case]]\nname = \"w\"\ntool = \"work\"\n[case.expect]\ngolden = { time_ratio = 3.0 }\n",
    );
    let o = test_variant(dir.path(), "plain", &["w.toml"]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout.contains("w.toml:8: golden: no golden recording"),
        "{}",
        o.stdout
    );
}

/// `--record` pins the server's definitions beside the test file
/// (`STEM.baseline.json`); against a server whose input schema changed the
/// run fails at the drifted entry's line of the baseline, in text and as a
/// GitHub annotation; `--update` says what changed and pins the new one.
#[test]
fn the_definitions_are_pinned_and_a_changed_schema_fails_at_its_baseline_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = |variant: &str| {
        format!(
            "[server]\ncommand = [\"python3\", {:?}, \"{variant}\"]\n\n[[case]]\nname = \"work\"\ntool = \"work\"\n",
            variants()
        )
    };
    let file = write(dir.path(), "pins.toml", &text("plain"));
    let f = file.display().to_string();
    let baseline = dir.path().join("pins.baseline.json");
    let b = baseline.display().to_string();
    // No baseline, none asked for: nothing is listed or pinned.
    let o = test(&[&f]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(!o.stdout.contains("pinned definitions"), "{}", o.stdout);
    assert!(!baseline.exists());
    let o = test(&[&f, "--record"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let pinned = std::fs::read_to_string(&baseline).unwrap();
    let v: Value = serde_json::from_str(&pinned).unwrap();
    assert_eq!(v["tools"][0]["name"], "work", "{pinned}");
    // The same server: the pin holds.
    let o = test(&[&f]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout
            .contains(&format!("PASS  {b}:1  pinned definitions")),
        "{}",
        o.stdout
    );
    // The schema changed: a failure at the line naming the tool.
    write(dir.path(), "pins.toml", &text("schema"));
    let line = pinned
        .lines()
        .position(|l| l.trim() == "\"name\": \"work\"")
        .unwrap()
        + 1;
    let o = test(&[&f]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stdout.contains(&format!(
            "{b}:{line}: baseline: tool work: inputSchema changed"
        )),
        "{}",
        o.stdout
    );
    let o = test(&[&f, "--format", "github"]);
    assert_eq!(o.code, 1);
    assert!(
        o.stdout
            .lines()
            .any(|l| l.starts_with(&format!("::error file={b},line={line},"))),
        "{}",
        o.stdout
    );
    // Reviewed: --update says what changed and pins it; then it passes.
    let o = test(&[&f, "--update"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stderr.contains(&format!("[baseline] {b}: changed")),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("tool work: inputSchema changed"),
        "{}",
        o.stderr
    );
    let o = test(&[&f]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&baseline).unwrap()).unwrap();
    assert_eq!(
        v["tools"][0]["inputSchema"]["required"],
        serde_json::json!(["n"])
    );
}
