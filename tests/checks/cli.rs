//! The `check`, `rules` and `replay --print` commands as CI sees them: the
//! JSON report round-trips through its schema types, the JUnit XML parses
//! with a real XML parser, exit codes follow DESIGN §3, the rule catalog is
//! what `rules` lists and the README documents, and replaying a recorded
//! demo session prints exactly the live session's timeline.

use crate::support::rows::run_rows;
use crate::support::{BIN, Run, headless};
use mcpscope::checks::Rule;
use mcpscope::cli::check::Report;
use mcpscope::cli::replay::{format_store, load};
use mcpscope::client::{ClientOptions, Limits, Session, TokenPolicy};
use mcpscope::trace::record::Recorder;
use mcpscope::trace::{MonotonicClock, Store, Trace};
use mcpscope::transport::stdio::CommandSpec;
use serde_json::{Value, json};
use std::time::Duration;

fn fixture(name: &str) -> String {
    format!(
        "{}/tests/fixtures/checks/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// `mcpscope ARGS...`, whatever its exit code.
fn mcpscope(args: &[&str]) -> Run {
    headless(args).run()
}

#[test]
fn json_report_round_trips_through_its_schema() {
    for name in ["clean", "violations", "warnings_only", "stateless_http"] {
        let path = fixture(name);
        let out = mcpscope(&["check", "--trace", &path, "--format", "json"]);
        let raw: Value = serde_json::from_str(&out.stdout).expect("JSON");
        let report: Report = serde_json::from_value(raw.clone()).expect("Report schema");
        assert_eq!(serde_json::to_value(&report).unwrap(), raw, "{name}");
        assert_eq!(report.mcpscope_check, 1);
        assert_eq!(report.source, json!({"trace": path}));
        // Every finding carries the documented fields.
        for f in raw["findings"].as_array().unwrap() {
            assert!(f["rule"].as_str().unwrap().parse::<Rule>().is_ok());
            assert!(["error", "warning", "info"].contains(&f["severity"].as_str().unwrap()));
            assert!(!f["seq"].as_array().unwrap().is_empty());
            assert!(f["message"].is_string());
        }
    }
    let out = mcpscope(&[
        "check",
        "--trace",
        &fixture("violations"),
        "--format",
        "json",
    ]);
    let r: Report = serde_json::from_str(&out.stdout).unwrap();
    let rules: Vec<&str> = r.findings.iter().map(|f| f.rule.id()).collect();
    assert_eq!(
        rules,
        [
            "progress-not-increasing",
            "progress-exceeds-total",
            "stdout-not-jsonrpc"
        ]
    );
    assert_eq!(
        r.findings[0].token,
        Some(mcpscope::protocol::IdKey::Str("a".into()))
    );
    assert_eq!(
        (r.summary.error, r.summary.warning, r.summary.passed),
        (2, 1, false)
    );
    let c = &r.calls[0];
    assert_eq!(c.notifications, 4);
    assert_eq!(c.first_progress_ms, Some(180.0));
    let ia = c.inter_arrival_ms.unwrap();
    assert_eq!((ia.min, ia.median, ia.max), (100.0, 100.0, 100.0));
}

/// The test cases of a suite: (name, whether it failed, whether it errored).
fn cases(suite: &roxmltree::Node) -> Vec<(String, bool, bool)> {
    suite
        .children()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|c| {
            (
                c.attribute("name").unwrap().to_string(),
                c.children().any(|n| n.has_tag_name("failure")),
                c.children().any(|n| n.has_tag_name("error")),
            )
        })
        .collect()
}

#[test]
fn junit_parses_with_one_case_per_call_plus_one_per_group_that_fired() {
    let out = mcpscope(&[
        "check",
        "--trace",
        &fixture("violations"),
        "--format",
        "junit",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let xml = out.stdout.clone();
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let suites: Vec<_> = root
        .children()
        .filter(|n| n.has_tag_name("testsuite"))
        .collect();
    // Two calls plus the session-level suite, which holds a group.
    assert_eq!(suites.len(), 3, "{xml}");
    assert_eq!(suites[2].attribute("name"), Some("session"));
    let case = |name: &str, failed: bool| (name.to_string(), failed, false);
    // Never the rule set: the call's own case, then the groups that fired.
    assert_eq!(
        cases(&suites[0]),
        [
            case("call-completed", false),
            case("progress-not-increasing", true),
            case("progress-exceeds-total", false),
        ]
    );
    assert_eq!(cases(&suites[1]), [case("call-completed", false)]);
    assert_eq!(cases(&suites[2]), [case("stdout-not-jsonrpc", true)]);
    for s in &suites {
        assert_eq!(
            s.attribute("tests"),
            Some(cases(s).len().to_string().as_str())
        );
    }
    assert_eq!(root.attribute("tests"), Some("5"));
    assert_eq!(root.attribute("failures"), Some("2"));
    assert_eq!(root.attribute("skipped"), Some("0"));
    // The warning passes, its finding and the fix kept in system-out; --strict fails it.
    let exceeds = suites[0]
        .children()
        .find(|c| c.attribute("name") == Some("progress-exceeds-total"))
        .unwrap();
    let out_text = exceeds
        .children()
        .find(|n| n.has_tag_name("system-out"))
        .and_then(|n| n.text())
        .expect("system-out");
    assert!(
        out_text.contains(&format!("fix: {}", Rule::ProgressExceedsTotal.fix())),
        "{out_text}"
    );
    // A failure names the group: its count and frames.
    let not_inc = suites[0]
        .children()
        .find(|c| c.attribute("name") == Some("progress-not-increasing"))
        .unwrap();
    let failure = not_inc
        .children()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert!(
        failure
            .attribute("message")
            .unwrap()
            .starts_with("progress-not-increasing (error) ×1 first #"),
        "{:?}",
        failure.attribute("message")
    );
    let strict = mcpscope(&[
        "check",
        "--trace",
        &fixture("violations"),
        "--format",
        "junit",
        "--strict",
    ]);
    let xml = strict.stdout.clone();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    assert_eq!(doc.root_element().attribute("failures"), Some("3"));

    // Stateless-era and HTTP rules fire in a 2026-07-28 HTTP session.
    let out = mcpscope(&[
        "check",
        "--trace",
        &fixture("stateless_http"),
        "--format",
        "junit",
    ]);
    let xml = out.stdout.clone();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    assert_eq!(doc.root_element().attribute("failures"), Some("2"));

    // A clean trace: every call passes its one case; never zero cases.
    let out = mcpscope(&["check", "--trace", &fixture("clean"), "--format", "junit"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let xml = out.stdout.clone();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let root = doc.root_element();
    assert_eq!(root.attribute("failures"), Some("0"));
    let all: Vec<_> = root
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert!(!all.is_empty(), "{xml}");
    assert!(
        all.iter()
            .all(|c| c.attribute("name") == Some("call-completed")),
        "{xml}"
    );
}

/// A trace with no call and no finding still has a test case: CI counts
/// zero test cases as a broken run.
#[test]
fn junit_of_an_empty_session_has_one_passing_case() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("empty.jsonl");
    let header = std::fs::read_to_string(fixture("clean")).unwrap();
    std::fs::write(&path, format!("{}\n", header.lines().next().unwrap())).unwrap();
    let out = mcpscope(&[
        "check",
        "--trace",
        path.to_str().unwrap(),
        "--format",
        "junit",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = roxmltree::Document::parse(&out.stdout).unwrap();
    let root = doc.root_element();
    assert_eq!(root.attribute("tests"), Some("1"), "{}", out.stdout);
    let names: Vec<_> = root
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|c| c.attribute("name").unwrap())
        .collect();
    assert_eq!(names, ["session"]);
}

/// `check` arguments (`@NAME` stands for the path of the fixture NAME),
/// the exit code DESIGN §3 gives them, and why.
const EXIT_CODES: &[(&[&str], i32, &str)] = &[
    (&["--trace", "@clean"], 0, "no finding"),
    (&["--trace", "@clean", "--strict"], 0, "no finding"),
    (&["--trace", "@violations"], 1, "errors"),
    (&["--trace", "@warnings_only"], 0, "warnings pass"),
    (
        &["--trace", "@warnings_only", "--strict"],
        1,
        "strict fails warnings",
    ),
    (&["--trace", "@stateless_http"], 1, "stateless rules broken"),
    (
        &["--trace", "@stateless_http", "--era", "handshake"],
        0,
        "the era override switches the stateless rules off",
    ),
    (&["--demo"], 2, "no --tool"),
    (&["--trace", "/nonexistent/trace.jsonl"], 2, "no such trace"),
    (&["--trace", "@clean", "--demo"], 2, "--trace with a server"),
    (
        &["--trace", "@clean", "--stall-secs", "-1"],
        2,
        "a negative stall",
    ),
    (
        &["--trace", "@clean", "--format", "xml"],
        2,
        "no such format",
    ),
    (
        &["--tool", "x", "--", "/nonexistent/server"],
        3,
        "a command that does not exist",
    ),
    (
        &["--tool", "x", "--", "true"],
        3,
        "a server that exits at once",
    ),
];

#[test]
fn exit_codes() {
    run_rows(
        EXIT_CODES,
        |(args, code, why)| format!("check {} exits {code} ({why})", args.join(" ")),
        |&(args, code, _)| {
            let args = args
                .iter()
                .map(|a| a.strip_prefix('@').map_or(a.to_string(), fixture));
            headless(["check"]).args(args).expect(code);
        },
    );
}

/// Each rule's id and severity, in catalog order.
fn catalog() -> Vec<(String, String)> {
    Rule::ALL
        .iter()
        .map(|r| (r.id().to_string(), r.severity().to_string()))
        .collect()
}

/// Ids are unique kebab-case names that parse back to their rule, each with
/// a description, and `rules` prints exactly the catalog, in its order, with
/// each rule's severity.
#[test]
fn rules_lists_exactly_the_catalog() {
    let mut ids = std::collections::HashSet::new();
    for r in Rule::ALL {
        let id = r.id();
        assert!(ids.insert(id), "{id} is in the catalog twice");
        assert!(
            id.split('-')
                .all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase())),
            "{id} is not kebab-case"
        );
        assert_eq!(id.parse::<Rule>(), Ok(r), "{id} does not parse back");
        assert!(!r.description().is_empty(), "{id} has no description");
    }

    let out = mcpscope(&["rules"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let listed: Vec<(String, String)> = out
        .stdout
        .clone()
        .lines()
        .map(|l| {
            let mut words = l.split_whitespace().map(String::from);
            (
                words.next().unwrap_or_default(),
                words.next().unwrap_or_default(),
            )
        })
        .collect();
    for (id, severity) in &listed {
        assert!(
            ["error", "warning", "info"].contains(&severity.as_str()),
            "`rules` gives {id} the severity {severity:?}"
        );
    }
    let want = catalog();
    for (at, (got, want)) in listed.iter().zip(&want).enumerate() {
        assert_eq!(
            got,
            want,
            "`rules` line {} is not the catalog's rule",
            at + 1
        );
    }
    assert_eq!(listed.len(), want.len(), "`rules` lists every rule once");
}

#[test]
fn replay_print_of_a_recording_equals_the_live_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("demo.jsonl");
    let header = json!({"mcpscope_trace": 1, "version": "test", "started": "now", "server": {}});
    let mut store = Store::default();
    store.set_recorder(Recorder::create(&path, &header).unwrap());
    let trace = Trace::new(store, MonotonicClock::new());
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let spec = CommandSpec {
            argv: vec![BIN.into(), "demo-server".into()],
            ..Default::default()
        };
        let session = Session::spawn_stdio(&spec, ClientOptions::default(), trace.clone())
            .expect("spawn demo server");
        session.initialize().await.expect("initialize");
        let limits = Limits {
            idle: Some(Duration::from_secs(30)),
            max: Some(Duration::from_secs(60)),
        };
        for (tool, args) in [
            ("build_report", json!({"tasks": 3, "delay_ms": 1})),
            ("fault_stdout_garbage", json!({})),
            ("echo", json!({"text": "a\u{1b}[31m\nb"})),
        ] {
            session
                .call_tool(tool, &args, &TokenPolicy::AutoString, limits)
                .await
                .expect("call");
        }
        session.shutdown().await;
    });
    let live = format_store(&trace.read());
    // The session's threads may still hold the trace a moment after the
    // server's exit is stored: finish the recording here, not on drop.
    trace.finish_recording();
    drop(trace);
    let (_, recorded) = load(&path).unwrap();
    let replayed = format_store(&recorded);
    assert_eq!(replayed, live);
    assert!(live.lines().count() > 20, "{live}");
    assert!(live.contains("notifications/progress"), "{live}");
    assert!(live.contains("not-json"), "{live}");
    assert!(!live.contains('\u{1b}'), "escape sequences are neutralised");

    let out = mcpscope(&["replay", path.to_str().unwrap(), "--print"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.clone(), live);
    // Without --print the TUI replay is not in this build: a clear usage error.
    let out = mcpscope(&["replay", path.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("--print"));
}

#[test]
fn headless_call_prints_findings_after_the_events() {
    let out = mcpscope(&[
        "call",
        "--demo",
        "--tool",
        "fault_not_increasing",
        "-a",
        "delay_ms=1",
        "--json",
    ]);
    // The call itself succeeded: its exit code does not change.
    assert_eq!(out.code, 0, "{}", out.stderr);
    let err = &out.stderr;
    let lines: Vec<&str> = err.lines().collect();
    let finding = lines
        .iter()
        .position(|l| l.starts_with("[finding] progress-not-increasing (error) #"))
        .unwrap_or_else(|| panic!("{err}"));
    let backwards = lines
        .iter()
        .position(|l| *l == "[progress] fault_not_increasing 2/5 (40%)")
        .unwrap();
    assert!(backwards < finding, "{err}");
    // One line as the cause opens, one per cause at the end: the error, and
    // the demo's logging, deprecated at 2026-07-28 (the era `auto` finds),
    // an info said only at the end (it is no defect to stop the run for).
    let findings: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("[finding]"))
        .collect();
    assert_eq!(findings.len(), 3, "{err}");
    assert!(
        findings[1].starts_with("[finding] progress-not-increasing ×1 first #")
            && findings[1].contains(" (error): "),
        "{err}"
    );
    assert!(
        findings[2].starts_with("[finding] deprecated-feature ×1 first #")
            && findings[2].contains(" (info): "),
        "{err}"
    );
    assert!(
        lines[lines.len() - 2..].contains(&findings[2]),
        "the summary is at the end: {err}"
    );
    // With -v the info is said as it opens too.
    let verbose = mcpscope(&[
        "call",
        "--demo",
        "--tool",
        "fault_not_increasing",
        "-a",
        "delay_ms=1",
        "-v",
    ]);
    assert_eq!(verbose.code, 0, "{}", verbose.stderr);
    assert_eq!(
        verbose
            .stderr
            .matches("[finding] deprecated-feature (info) #")
            .count(),
        1,
        "{}",
        verbose.stderr
    );
    let out = mcpscope(&[
        "call",
        "--demo",
        "--tool",
        "build_report",
        "-a",
        "tasks=2",
        "-a",
        "delay_ms=1",
    ]);
    let findings: Vec<_> = out
        .stderr
        .lines()
        .filter(|l| l.starts_with("[finding]"))
        .collect();
    assert!(
        matches!(&findings[..], [f] if f.starts_with("[finding] deprecated-feature ×1 first #")),
        "{}",
        out.stderr
    );
}

/// A user who took 30 s to answer a form mid-call: `check`'s statistics of
/// the call leave that time out of its gaps (the server's own silences are
/// 100 and 200 ms), and it is no `progress-stalled`.
#[test]
fn time_a_user_took_to_answer_is_not_in_the_calls_gaps() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("form.jsonl");
    let lines = [
        r#"{"mcpscope_trace": 1, "version": "0.1.0", "started": "2026-01-01T00:00:00Z", "server": {"name": "fixture", "transport": "stdio", "argv": ["fixture-server"]}}"#,
        r#"{"seq":0,"t":0.0,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"mcpscope","version":"0.1.0"}}}}"#,
        r#"{"seq":1,"t":0.01,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fixture","version":"1"}}}}"#,
        r#"{"seq":2,"t":0.02,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","method":"notifications/initialized"}}"#,
        r#"{"seq":3,"t":1.0,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wizard","arguments":{},"_meta":{"progressToken":"t"}}}}"#,
        r#"{"seq":4,"t":1.1,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2}}}"#,
        r#"{"seq":5,"t":1.15,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}"#,
        r#"{"seq":6,"t":31.15,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","id":"srv-1","result":{"action":"accept","content":{"name":"Ada"}}}}"#,
        r#"{"seq":7,"t":31.3,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2,"total":2}}}"#,
        r#"{"seq":8,"t":31.4,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}}"#,
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let out = mcpscope(&[
        "check",
        "--trace",
        path.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let r: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let gaps = &r["calls"][0]["inter_arrival_ms"];
    // 1.1 → 31.3 s less the 30 s the client took: 200 ms.
    assert_eq!(gaps["max"], 200.0, "{r:#}");
    let rules: Vec<&str> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(!rules.contains(&"progress-stalled"), "{rules:?}");
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// One planted bug is one cause however many messages broke the rule:
/// `check` gives at most two warning-or-error groups (text, JSON), with
/// every finding still listed in the JSON, and a headless `call` says each
/// such cause once as it opens and once at the end.
#[test]
fn one_planted_bug_is_at_most_two_warning_or_error_groups() {
    let cases: [(&str, &[&str], Rule, usize); 3] = [
        ("fault_after_response", &[], Rule::ProgressAfterResponse, 2),
        (
            "fault_log_below_level",
            &["--log-level", "warning"],
            Rule::LogBelowLevel,
            2,
        ),
        (
            "fault_not_increasing",
            &["-a", "delay_ms=1"],
            Rule::ProgressNotIncreasing,
            1,
        ),
    ];
    for (tool, extra, rule, instances) in cases {
        let mut args = vec!["check", "--demo", "--tool", tool];
        args.extend_from_slice(extra);
        let json = mcpscope(&[&args[..], &["--format", "json"]].concat());
        let r: Report = serde_json::from_str(&json.stdout).expect("JSON");
        let serious: Vec<_> = r
            .groups
            .iter()
            .filter(|g| g.severity >= mcpscope::checks::Severity::Warning)
            .collect();
        assert!((1..=2).contains(&serious.len()), "{tool}: {:#?}", r.groups);
        let g = serious
            .iter()
            .find(|g| g.rule == rule)
            .expect("the bug's group");
        assert_eq!(g.count, instances, "{tool}: {:#?}", r.findings);
        // Every finding is kept, in exactly one group.
        let mut listed: Vec<usize> = r.groups.iter().flat_map(|g| g.findings.clone()).collect();
        listed.sort();
        assert_eq!(listed, (0..r.findings.len()).collect::<Vec<_>>(), "{tool}");
        assert!(r.findings.iter().filter(|f| f.rule == rule).count() == instances);
        // Text: one line for the cause, with its fix once.
        let text = mcpscope(&args);
        let lines: Vec<&str> = text
            .stdout
            .lines()
            .filter(|l| l.starts_with(rule.id()))
            .collect();
        assert_eq!(lines.len(), 1, "{tool}: {}", text.stdout);
        assert!(
            lines[0].starts_with(&format!(
                "{} ({}) ×{instances} first #",
                rule.id(),
                rule.severity()
            )),
            "{}",
            lines[0]
        );
        assert_eq!(
            text.stdout
                .matches(&format!("  fix: {}", rule.fix()))
                .count(),
            1,
            "{}",
            text.stdout
        );
        // Headless call: the cause opens once, and is summed up once. Over
        // stdio `call` hangs up at the response; the late progress of
        // `fault_after_response` is written right behind it, and on a busy
        // machine the server may see its input close first: listening on a
        // moment keeps what the assertions count from racing that.
        let mut call = vec!["call", "--demo", "--settle-ms", "500", "--tool", tool];
        call.extend_from_slice(extra);
        let out = mcpscope(&call);
        let said: Vec<&str> = out
            .stderr
            .lines()
            .filter(|l| {
                l.starts_with("[finding]") && (l.contains("(error)") || l.contains("(warning)"))
            })
            .collect();
        assert!(said.len() <= 4, "{tool}: {}", out.stderr);
        let opened = format!("[finding] {} ({}) #", rule.id(), rule.severity());
        let summed = format!("[finding] {} ×{instances} first #", rule.id());
        assert_eq!(
            said.iter().filter(|l| l.starts_with(&opened)).count(),
            1,
            "{}",
            out.stderr
        );
        assert_eq!(
            said.iter().filter(|l| l.starts_with(&summed)).count(),
            1,
            "{}",
            out.stderr
        );
    }
}

/// `deprecated-feature` says what was seen: a server that only declares
/// `logging` (the demo at 2026-07-28, asked for no level, sends no log) is
/// not said to use it; one that sent a log is said to have sent it.
#[test]
fn deprecated_feature_is_worded_by_what_was_observed() {
    let out = mcpscope(&[
        "check",
        "--demo",
        "--protocol",
        "2026-07-28",
        "--tool",
        "echo",
        "-a",
        "text=x",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let r: Report = serde_json::from_str(&out.stdout).unwrap();
    let said: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.rule == Rule::DeprecatedFeature)
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(said.len(), 1, "{:#?}", r.findings);
    assert!(
        said[0].starts_with(
            "the server declares the `logging` capability in its server/discover result"
        ),
        "{}",
        said[0]
    );
    assert!(!said[0].contains("uses"), "{}", said[0]);
    assert!(
        r.calls.iter().all(|c| c.notifications == 0),
        "no log was sent"
    );
    // A session where the server logged (and declared nothing).
    let out = mcpscope(&[
        "check",
        "--trace",
        &fixture("stateless_http"),
        "--format",
        "json",
    ]);
    let r: Report = serde_json::from_str(&out.stdout).unwrap();
    let said: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| f.rule == Rule::DeprecatedFeature)
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(said.len(), 1, "{:#?}", r.findings);
    assert!(
        said[0].starts_with("the server sent notifications/message: logging is a feature"),
        "{}",
        said[0]
    );
}
