//! `mcpscope diff A B` over sessions recorded with the real demo server:
//! the same behaviour is no difference (whichever two recordings of it),
//! each real change is reported with the frames that show it, in text and
//! JSON; listings (the demo server with and without its conformance
//! fixtures; a less safe tool by editing a recorded listing); bad traces.

use crate::support::{BIN, Run, headless};
use serde_json::{Value, json};
use std::path::Path;

/// `mcpscope call --demo --tool TOOL --args ARGS`, recorded.
fn record(tool: &str, args: &str) -> Run {
    headless(["call", "--demo", "--tool", tool, "--args", args])
        .record()
        .run()
}

fn diff(a: &Path, b: &Path, extra: &[&str], code: i32) -> Run {
    headless(["diff"])
        .args([a.display().to_string(), b.display().to_string()])
        .args(extra)
        .expect(code)
}

const REPORT: (&str, &str) = ("build_report", r#"{"tasks":3,"delay_ms":60}"#);

#[test]
fn the_same_behaviour_is_no_difference() {
    let a = record(REPORT.0, REPORT.1);
    let b = record(REPORT.0, REPORT.1);
    // A trace with itself, and two sessions of the same call, both ways.
    for (x, y) in [(&a, &a), (&a, &b), (&b, &a)] {
        let o = diff(x.trace_path(), y.trace_path(), &[], 0);
        assert!(o.stdout.ends_with("no differences\n"), "{}", o.stdout);
        let j = diff(x.trace_path(), y.trace_path(), &["--format", "json"], 0).json();
        assert_eq!(j["same"], true);
        assert_eq!(j["summary"]["differences"], 0);
    }
}

#[test]
fn progress_after_the_response_is_an_order_change_and_a_new_finding() {
    let a = record("fault_exceeds_total", "{}");
    let b = record("fault_after_response", "{}");
    let o = diff(a.trace_path(), b.trace_path(), &[], 1);
    let t = &o.stdout;
    assert!(
        t.contains("~ tool fault_exceeds_total → fault_after_response"),
        "{t}"
    );
    assert!(t.contains("~ progress now after the response (2)"), "{t}");
    assert!(
        t.contains("+ progress-after-response (error) (call 1): "),
        "{t}"
    );
    assert!(
        t.contains("- progress-exceeds-total (warning) (call 1): "),
        "{t}"
    );
    // The frames named are the late progress in B's file.
    let j = diff(a.trace_path(), b.trace_path(), &["--format", "json"], 1).json();
    let late = j["calls"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["what"] == "progress now after the response (2)")
        .expect("the change");
    let line = late["at_b"][0]["line"].as_u64().unwrap() as usize;
    let file = std::fs::read_to_string(b.trace_path()).unwrap();
    let frame: Value = serde_json::from_str(file.lines().nth(line - 1).unwrap()).unwrap();
    assert_eq!(frame["json"]["method"], "notifications/progress");
    assert_eq!(frame["seq"], late["at_b"][0]["seq"]);
    // The other way round, the same change reversed.
    let o = diff(b.trace_path(), a.trace_path(), &[], 1);
    assert!(
        o.stdout
            .contains("~ progress no longer after the response (was 2)"),
        "{}",
        o.stdout
    );
}

#[test]
fn outcome_and_timing_beyond_the_tolerances() {
    let ok = record(
        "pipeline_wait",
        r#"{"polls":2,"interval_ms":30,"outcome":"success"}"#,
    );
    let failed = record(
        "pipeline_wait",
        r#"{"polls":2,"interval_ms":30,"outcome":"failed"}"#,
    );
    let o = diff(ok.trace_path(), failed.trace_path(), &[], 1);
    assert!(o.stdout.contains("~ outcome ok → is-error"), "{}", o.stdout);
    assert!(o.stdout.contains("~ arguments differ"), "{}", o.stdout);

    let fast = record("sleep", r#"{"ms":10}"#);
    let slow = record("sleep", r#"{"ms":900}"#);
    let o = diff(fast.trace_path(), slow.trace_path(), &[], 1);
    assert!(o.stdout.contains("~ took "), "{}", o.stdout);
    // Within wide tolerances only the arguments differ.
    let o = diff(
        fast.trace_path(),
        slow.trace_path(),
        &["--time-ratio", "1000", "--min-ms", "5000"],
        1,
    );
    assert!(!o.stdout.contains("~ took "), "{}", o.stdout);
    assert!(o.stdout.contains("1 difference(s)"), "{}", o.stdout);
}

/// Drop what depends on the machine (paths, event counts, lines, times),
/// keep what the golden fixes.
fn stable(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for k in ["trace", "events", "at", "at_a", "at_b", "duration_ms"] {
                m.remove(k);
            }
            if m.get("aspect") == Some(&json!("timing")) {
                m.clear();
            }
            m.values_mut().for_each(stable);
        }
        Value::Array(xs) => {
            xs.iter_mut().for_each(stable);
            xs.retain(|x| x != &json!({}));
        }
        _ => {}
    }
}

#[test]
fn the_json_report_golden() {
    let a = record(
        "pipeline_wait",
        r#"{"polls":2,"interval_ms":30,"outcome":"success"}"#,
    );
    let b = record(
        "pipeline_wait",
        r#"{"polls":3,"interval_ms":30,"outcome":"failed"}"#,
    );
    let mut j = diff(
        a.trace_path(),
        b.trace_path(),
        &["--format", "json", "--min-ms", "100000"],
        1,
    )
    .json();
    stable(&mut j);
    let want = json!({
        "mcpscope_diff": 1,
        "a": {"calls": 1},
        "b": {"calls": 1},
        "tolerances": {"time_ratio": 2.0, "min_ms": 100000},
        "same": false,
        "listings": [],
        "calls": [{
            "call": 1,
            "title": "pipeline_wait {\"interval_ms\":30,\"outcome\":\"success\",\"polls\":2}",
            "status": "changed",
            "a": {"id": 1, "outcome": "ok"},
            "b": {"id": 1, "outcome": "is-error"},
            "changes": [
                {"aspect": "arguments", "what": "arguments differ",
                 "a": {"interval_ms": 30, "outcome": "success", "polls": 2},
                 "b": {"interval_ms": 30, "outcome": "failed", "polls": 3}},
                {"aspect": "outcome", "what": "outcome ok → is-error", "a": "ok", "b": "is-error"},
                {"aspect": "progress", "what": "progress notifications 2 → 3", "a": 2, "b": 3}
            ]
        }],
        "findings": [],
        "summary": {"differences": 1, "listings": 0, "less_safe": 0, "calls": 1, "findings": 0}
    });
    assert_eq!(j, want, "{}", serde_json::to_string_pretty(&j).unwrap());
}

/// Rewrite the tools/list answer of a recorded trace: `edit` gets each tool.
fn edit_tools(from: &Path, to: &Path, edit: impl Fn(&mut Value)) {
    let text = std::fs::read_to_string(from).unwrap();
    let mut out = String::new();
    let mut edited = false;
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if let Some(tools) = v
            .pointer_mut("/json/result/tools")
            .and_then(Value::as_array_mut)
        {
            tools.iter_mut().for_each(&edit);
            edited = true;
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    assert!(edited, "no tools/list answer in {}", from.display());
    std::fs::write(to, out).unwrap();
}

#[test]
fn listings_added_tools_and_a_less_safe_change() {
    // `check` lists the tools after its call; --conformance adds fixtures.
    let plain = headless(["check", "--demo", "--tool", "echo"])
        .record()
        .expect(0);
    let more = headless(["check", "--tool", "echo"])
        .record()
        .server([BIN, "demo-server", "--conformance"])
        .expect(0);
    let o = diff(plain.trace_path(), more.trace_path(), &[], 1);
    assert!(
        o.stdout
            .contains("+ tool test_simple_text: added  [B line "),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("0 call(s)"), "{}", o.stdout);
    let o = diff(more.trace_path(), plain.trace_path(), &[], 1);
    assert!(
        o.stdout
            .contains("- tool test_simple_text: removed  [A line "),
        "{}",
        o.stdout
    );

    // The demo's tools carry no annotations: the test writes them into
    // copies of one recorded listing, read-only in A and not in B.
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    edit_tools(plain.trace_path(), &a, |t| {
        if t["name"] == "echo" {
            t["annotations"] = json!({"readOnlyHint": true, "destructiveHint": false});
        }
    });
    edit_tools(plain.trace_path(), &b, |t| {
        if t["name"] == "echo" {
            t["annotations"] = json!({"readOnlyHint": false, "destructiveHint": false});
            t["inputSchema"]["required"] = json!(["text", "confirm"]);
        }
    });
    let o = diff(&a, &b, &[], 1);
    let t = &o.stdout;
    assert!(t.contains("! tool echo: changed"), "{t}");
    assert!(
        t.contains("    less safe: readOnlyHint true → false"),
        "{t}"
    );
    assert!(
        t.contains("    less safe: new required input \"confirm\""),
        "{t}"
    );
    assert!(t.contains("(1 less safe)"), "{t}");
    // Back the other way it is safer: a change, not flagged.
    let o = diff(&b, &a, &[], 1);
    assert!(o.stdout.contains("~ tool echo: changed"), "{}", o.stdout);
    assert!(!o.stdout.contains("less safe:"), "{}", o.stdout);
    // The unchanged copy is the same session.
    let c = dir.path().join("c.jsonl");
    edit_tools(plain.trace_path(), &c, |_| {});
    diff(plain.trace_path(), &c, &[], 0);
}

#[test]
fn secrets_stay_redacted_and_trace_text_is_sanitised() {
    let a = record("echo", r#"{"text":"a","api_key":"sekrit-one"}"#);
    let b = record(
        "echo",
        "{\"text\":\"b\\u001b[31m\",\"api_key\":\"sekrit-two\"}",
    );
    for format in ["text", "json"] {
        let o = diff(a.trace_path(), b.trace_path(), &["--format", format], 1);
        assert!(!o.stdout.contains("sekrit"), "{}", o.stdout);
        assert!(!o.stdout.contains('\u{1b}'), "{}", o.stdout);
    }
}

#[test]
fn unreadable_and_damaged_traces() {
    let a = record("echo", r#"{"text":"a"}"#);
    let o = headless(["diff", "/nonexistent/a.jsonl"])
        .args([a.trace_path().display().to_string()])
        .expect(2);
    assert!(
        o.stderr.contains("cannot read trace /nonexistent/a.jsonl"),
        "{}",
        o.stderr
    );
    headless(["diff", "only-one.jsonl"]).expect(2);
    // Cut mid-line: read up to the cut, and never "the same".
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.jsonl");
    let text = std::fs::read(a.trace_path()).unwrap();
    std::fs::write(&cut, &text[..text.len() - 20]).unwrap();
    let o = diff(a.trace_path(), &cut, &[], 1);
    assert!(
        o.stdout.contains("! B is damaged: trace ends mid-line"),
        "{}",
        o.stdout
    );
}

/// A live B runs A's calls in A's era: a handshake recording (logs at the
/// server's default, no level asked) against the demo, which the default
/// probe would find at 2026-07-28 (logs only when asked), is no difference.
/// A stateless recording that asked a level in its call's `_meta` has B ask
/// the same.
#[test]
fn a_live_b_speaks_the_era_and_level_a_was_recorded_in() {
    let legacy = headless(["call", "--demo", "--protocol", "legacy", "--tool", REPORT.0])
        .args(["--args", REPORT.1])
        .record()
        .expect(0);
    assert!(!legacy.lines("[log]").is_empty(), "{}", legacy.stderr);
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("b.jsonl");
    let o = headless(["diff"])
        .args([legacy.trace_path().display().to_string()])
        .args(["--demo", "--record", rec.to_str().unwrap()])
        .expect(0);
    assert!(o.stdout.ends_with("no differences\n"), "{}", o.stdout);
    let b = std::fs::read_to_string(&rec).unwrap();
    assert!(b.contains("\"initialize\"") && !b.contains("server/discover"));

    let stateless = headless(["call", "--demo", "--tool", REPORT.0, "--args", REPORT.1])
        .args(["--log-level", "info"])
        .record()
        .expect(0);
    assert!(
        stateless.stderr.contains("(stateless)"),
        "{}",
        stateless.stderr
    );
    assert!(!stateless.lines("[log]").is_empty(), "{}", stateless.stderr);
    let o = headless(["diff"])
        .args([stateless.trace_path().display().to_string()])
        .args(["--demo"])
        .expect(0);
    assert!(o.stdout.ends_with("no differences\n"), "{}", o.stdout);
}

#[test]
fn a_live_server_as_b_runs_a_calls_again() {
    let a = record(REPORT.0, REPORT.1);
    let o = headless(["diff"])
        .args([a.trace_path().display().to_string()])
        .args(["--demo"])
        .expect(0);
    assert!(
        o.stdout.contains("+++ B mcpscope-demo (run now)"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.ends_with("no differences\n"), "{}", o.stdout);
    // B's run starts no OTLP receiver: an address for one is refused, not
    // ignored (a server pointed there would send into nothing).
    let o = headless(["diff"])
        .args([a.trace_path().display().to_string()])
        .args(["--demo", "--otel-receiver", "127.0.0.1:4318"])
        .expect(2);
    assert!(
        o.stderr.contains("this command starts no OTLP receiver"),
        "{}",
        o.stderr
    );
    // A listed the conformance fixtures; the plain demo server lacks them.
    let more = headless(["check", "--tool", "echo", "--args", "{}"])
        .record()
        .server([BIN, "demo-server", "--conformance"])
        .expect(0);
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("b.jsonl");
    let o = headless(["diff"])
        .args([more.trace_path().display().to_string()])
        .args([
            "--demo".to_string(),
            "--record".to_string(),
            rec.display().to_string(),
        ])
        .expect(1);
    assert!(
        o.stdout.contains("- tool test_simple_text: removed"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("0 call(s)"), "{}", o.stdout);
    assert!(rec.exists(), "the session run now is recorded where asked");
    // A trace and a server at once is a usage error.
    headless(["diff"])
        .args([
            a.trace_path().display().to_string(),
            a.trace_path().display().to_string(),
        ])
        .args(["--demo"])
        .expect(2);
}

/// Move the last log before the response to just after it, keeping the
/// file's seq and time order (the demo server never logs after a result).
fn log_after_response(from: &Path, to: &Path) {
    let text = std::fs::read_to_string(from).unwrap();
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let resp = lines
        .iter()
        .position(|v| v["dir"] == "in" && v["json"]["id"] == 1 && v["json"].get("result").is_some())
        .expect("the response");
    let log = (0..resp)
        .rev()
        .find(|&i| lines[i]["json"]["method"] == "notifications/message")
        .expect("a log before the response");
    let moved = lines.remove(log);
    lines.insert(resp, moved);
    // Renumber seq and t in file order.
    let mut stamps: Vec<(Value, Value)> = lines[1..]
        .iter()
        .map(|v| (v["seq"].clone(), v["t"].clone()))
        .collect();
    stamps.sort_by_key(|s| s.0.as_u64());
    for (v, (seq, t)) in lines[1..].iter_mut().zip(stamps) {
        v["seq"] = seq;
        v["t"] = t;
    }
    let out: String = lines.iter().map(|v| v.to_string() + "\n").collect();
    std::fs::write(to, out).unwrap();
}

#[test]
fn a_log_that_moved_past_the_result_and_server_requests() {
    // A 2026-07-28 server logs only for a request that asks a level.
    let a = headless(["call", "--demo", "--tool", REPORT.0, "--args", REPORT.1])
        .args(["--log-level", "debug"])
        .record()
        .run();
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("b.jsonl");
    log_after_response(a.trace_path(), &b);
    let o = diff(a.trace_path(), &b, &[], 1);
    assert!(
        o.stdout
            .contains("~ log(notice tracker) came before the response, now after it  [A line "),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("1 call(s)"), "{}", o.stdout);
    let o = diff(&b, a.trace_path(), &[], 1);
    assert!(
        o.stdout
            .contains("~ log(notice tracker) came after the response, now before it"),
        "{}",
        o.stdout
    );

    // Elicitation asked and answered, or not asked at all: server requests
    // are the handshake era's (2026-07-28 asks by input_required rounds).
    let args = r#"{"questions":2,"delay_ms":30}"#;
    let wizard = || {
        headless([
            "call",
            "--protocol",
            "legacy",
            "--demo",
            "--tool",
            "interactive_wizard",
            "--args",
            args,
        ])
    };
    let asked = wizard().args(["--elicit", "defaults"]).record().expect(0);
    let not = wizard().record().expect(0);
    let o = diff(asked.trace_path(), not.trace_path(), &[], 1);
    assert!(
        o.stdout
            .contains("~ server requests: elicitation/create, elicitation/create → none"),
        "{}",
        o.stdout
    );
}

/// A real recording of one `echo` call, its call and answer replaced by
/// one `echo` per text, one after the other (seqs renumbered).
fn echoes(from: &Path, to: &Path, texts: &[&str]) {
    let text = std::fs::read_to_string(from).unwrap();
    let mut lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let at = lines
        .iter()
        .position(|v| v.pointer("/json/method") == Some(&json!("tools/call")))
        .expect("a tools/call");
    // Its answer, which need not be the next line: the server's stderr
    // may land between.
    let ans = (at + 1..lines.len())
        .find(|&k| lines[k]["dir"] == "in" && lines[k]["json"]["id"] == lines[at]["json"]["id"])
        .expect("the call's answer");
    let answer = lines.remove(ans);
    let call = lines[at].clone();
    let mut new = Vec::new();
    for (n, t) in texts.iter().enumerate() {
        let id = 100 + n as u64;
        let mut c = call.clone();
        c["json"]["id"] = json!(id);
        c["json"]["params"]["arguments"] = json!({"text": t});
        c["json"]["params"]["_meta"]["progressToken"] = json!(format!("tok-{id}"));
        let mut r = answer.clone();
        r["json"]["id"] = json!(id);
        r["json"]["result"]["structuredContent"] = json!({"text": t});
        new.push(c);
        new.push(r);
    }
    lines.splice(at..at + 1, new);
    let mut out = String::new();
    let mut seq = 0u64;
    for mut v in lines {
        if v.get("seq").is_some() {
            v["seq"] = json!(seq);
            seq += 1;
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    std::fs::write(to, out).unwrap();
}

#[test]
fn calls_run_in_another_order_are_a_difference() {
    let one = record("echo", r#"{"text":"a"}"#);
    let dir = tempfile::tempdir().unwrap();
    let (a, b, same) = (
        dir.path().join("a.jsonl"),
        dir.path().join("b.jsonl"),
        dir.path().join("same.jsonl"),
    );
    echoes(one.trace_path(), &a, &["a", "b", "c"]);
    echoes(one.trace_path(), &b, &["c", "b", "a"]);
    echoes(one.trace_path(), &same, &["a", "b", "c"]);
    let o = diff(&a, &b, &[], 1);
    assert!(o.stdout.contains("@@ call order"), "{}", o.stdout);
    assert!(
        o.stdout
            .contains(r#"~ call 3 echo {"text":"c"} ran before call 2 echo {"text":"b"}"#),
        "{}",
        o.stdout
    );
    let j = diff(&a, &b, &["--format", "json"], 1).json();
    assert_eq!(j["same"], false);
    assert_eq!(j["summary"]["call_order"], 2, "{j:#}");
    assert_eq!(j["call_order"][1]["call"], 2);
    assert_eq!(j["call_order"][1]["before"], 1);
    // The same order: no difference.
    let o = diff(&a, &same, &[], 0);
    assert!(o.stdout.contains("no differences"), "{}", o.stdout);
}

#[test]
fn direction_changing_characters_are_escaped_in_the_json_report() {
    let plain = headless(["check", "--demo", "--tool", "echo"])
        .record()
        .expect(0);
    let dir = tempfile::tempdir().unwrap();
    let b = dir.path().join("b.jsonl");
    edit_tools(plain.trace_path(), &b, |t| {
        if t["name"] == "echo" {
            t["description"] = json!("safe\u{202e}txt.exe\u{9b}[31m");
        }
    });
    for format in ["text", "json"] {
        let o = diff(plain.trace_path(), &b, &["--format", format], 1);
        assert!(
            !o.stdout.contains('\u{202e}') && !o.stdout.contains('\u{9b}'),
            "{format}: {:?}",
            o.stdout
        );
    }
    let o = diff(plain.trace_path(), &b, &["--format", "json"], 1);
    assert!(o.stdout.contains(r"txt.exe\u009b"), "{}", o.stdout);
    let fields = &o.json()["listings"][0]["fields"];
    assert_eq!(fields[0]["b"], "safe\u{202e}txt.exe\u{9b}[31m", "{fields}");
}

#[test]
fn ctrl_c_while_b_runs_exits_130() {
    let a = headless([
        "call",
        "--demo",
        "--protocol",
        "legacy",
        "--tool",
        "echo",
        "--args",
        r#"{"text":"a"}"#,
    ])
    .record()
    .expect(0);
    // The server sends mcpscope SIGINT when the call reaches it.
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/servers/hostile_stdio.py"
    );
    let o = headless(["diff"])
        .args([a.trace_path().display().to_string()])
        .server(["python3", script, "interrupt-parent"])
        .run();
    assert_eq!(o.code, 130, "{}", o.stderr);
    assert!(o.stderr.contains("interrupted"), "{}", o.stderr);
    assert!(
        o.stdout.is_empty(),
        "no report of a B cut short: {}",
        o.stdout
    );
}

/// `diff --only FILTER` lists the differences about what the filter
/// selects, a call's whole when any of its frames is; both sessions are
/// still compared whole, so the counts, `same` and the exit code do not
/// move, and the report says how many differences it did not list.
#[test]
fn only_lists_the_differences_about_what_the_filter_selects() {
    let one = record("echo", r#"{"text":"a"}"#);
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    // Calls 2 and 3 differ in their arguments; call 1 is the same.
    echoes(one.trace_path(), &a, &["a", "b", "c"]);
    echoes(one.trace_path(), &b, &["a", "B", "C"]);
    let all = diff(&a, &b, &["--format", "json"], 1).json();
    assert_eq!(all["summary"]["calls"], 2, "{all:#}");
    assert!(all["summary"].get("only").is_none(), "{all:#}");
    assert!(all["summary"].get("not_listed").is_none(), "{all:#}");
    let plain = diff(&a, &b, &[], 1);
    assert!(!plain.stdout.contains("[only]"), "{}", plain.stdout);

    // A's request of call 2 only: call 2 is listed, call 3 is not.
    let filter = "params.arguments.text == b";
    let j = diff(&a, &b, &["--format", "json", "--only", filter], 1).json();
    let calls: Vec<u64> = j["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["call"].as_u64().unwrap())
        .collect();
    assert_eq!(calls, [2], "{j:#}");
    assert_eq!(j["same"], false);
    assert_eq!(j["summary"], {
        let mut s = all["summary"].clone();
        s["only"] = json!(filter);
        s["not_listed"] = json!(1);
        s
    });
    let t = diff(&a, &b, &["--only", filter], 1).stdout.clone();
    assert!(t.contains(r#"@@ call 2 echo {"text":"b"}"#), "{t}");
    assert!(!t.contains("@@ call 3"), "{t}");
    assert!(
        t.contains(&format!(
            "[only] {filter}: 1 difference about other frames not listed"
        )),
        "{t}"
    );
    assert!(
        t.ends_with("2 difference(s): 0 in listings (0 less safe), 2 call(s), 0 finding(s)\n"),
        "{t}"
    );

    // Only B's response of call 3 is selected: the difference is about
    // that call (its arguments, named by its request), so it is listed.
    let j = diff(
        &a,
        &b,
        &[
            "--format",
            "json",
            "--only",
            "response && result.structuredContent.text == C",
        ],
        1,
    )
    .json();
    assert_eq!(j["calls"].as_array().unwrap().len(), 1, "{j:#}");
    assert_eq!(j["calls"][0]["call"], 3, "{j:#}");
    assert_eq!(j["summary"]["not_listed"], 1, "{j:#}");

    // Nothing selected: nothing listed, the same verdict and exit code.
    let t = diff(&a, &b, &["--only", "method == no/such"], 1)
        .stdout
        .clone();
    assert!(!t.contains("@@ call"), "{t}");
    assert!(
        t.contains("[only] method == no/such: 2 differences about other frames not listed"),
        "{t}"
    );
    assert!(t.contains("2 difference(s)"), "{t}");
    // No differences stays exit 0, whatever the filter.
    let t = diff(&a, &a, &["--only", "tool == echo"], 0).stdout.clone();
    assert!(
        t.ends_with("[only] tool == echo: 0 differences about other frames not listed (the counts below are the whole comparison's)\nno differences\n"),
        "{t}"
    );
}

/// The call order changes `--only` leaves out are counted as not listed,
/// not as the "… and N more" past the listing's bound.
#[test]
fn only_leaves_out_call_order_changes_about_other_calls() {
    let one = record("echo", r#"{"text":"a"}"#);
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    echoes(one.trace_path(), &a, &["a", "b", "c"]);
    echoes(one.trace_path(), &b, &["c", "b", "a"]);
    let j = diff(&a, &b, &["--format", "json", "--only", "stderr"], 1).json();
    assert!(j.get("call_order").is_none(), "{j:#}");
    assert_eq!(j["summary"]["call_order"], 2, "{j:#}");
    assert_eq!(j["summary"]["not_listed"], j["summary"]["differences"]);
    let t = diff(&a, &b, &["--only", "stderr"], 1).stdout.clone();
    assert!(!t.contains("@@ call order"), "{t}");
    assert!(!t.contains("more"), "{t}");
    // The change naming call 1 (text "a", B's last) is listed, and only it.
    let j = diff(
        &a,
        &b,
        &["--format", "json", "--only", "params.arguments.text == a"],
        1,
    )
    .json();
    let order = j["call_order"].as_array().unwrap();
    assert_eq!(order.len(), 1, "{j:#}");
    assert!(
        order[0]["title"].as_str().unwrap().contains(r#""a""#)
            || order[0]["before_title"]
                .as_str()
                .unwrap()
                .contains(r#""a""#),
        "{j:#}"
    );
}

#[test]
fn only_that_does_not_parse_is_a_usage_error_pointing_at_its_column() {
    let one = record("echo", r#"{"text":"a"}"#);
    let o = diff(
        one.trace_path(),
        one.trace_path(),
        &["--only", "in && level >= loud"],
        2,
    );
    crate::only::says_the_bad_level_at_its_column(&o);
}
