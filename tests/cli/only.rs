//! `--only FILTER` on the commands that print events: the filter language
//! over a real recorded session, and its errors pointed at their column.

use crate::support::headless;

#[test]
fn replay_print_only_shows_what_the_filter_selects() {
    let run = headless([
        "call",
        "--demo",
        "--tool",
        "upload_file",
        "--args",
        r#"{"size_bytes": 2048, "chunk_bytes": 512, "delay_ms": 30}"#,
    ])
    .record()
    .run();
    let trace = run.trace_path().to_str().unwrap().to_string();
    let all = headless(["replay", "--print", &trace]).expect(0);
    let progress_lines = all
        .stdout
        .lines()
        .filter(|l| l.contains("notifications/progress"))
        .count();
    assert!(progress_lines >= 4, "{}", all.stdout);

    let o = headless(["replay", "--print", &trace, "--only", "progress"]).expect(0);
    assert_eq!(o.stdout.lines().count(), progress_lines, "{}", o.stdout);
    assert!(
        o.stdout
            .lines()
            .all(|l| l.contains("notifications/progress"))
    );

    // The call's request and response, found by its tool.
    let o = headless([
        "replay",
        "--print",
        &trace,
        "--only",
        "tool == upload_file && !progress",
    ])
    .expect(0);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", o.stdout);
    assert!(
        lines.iter().all(|l| l.contains("tools/call")),
        "{}",
        o.stdout
    );

    // A JSON field, numerically.
    let o = headless([
        "replay",
        "--print",
        &trace,
        "--only",
        "params.progress >= 1024 && progress",
    ])
    .expect(0);
    assert_eq!(o.stdout.lines().count(), progress_lines - 1, "{}", o.stdout);
}

#[test]
fn a_filter_that_does_not_parse_is_a_usage_error_pointing_at_its_column() {
    let run = headless([
        "call",
        "--demo",
        "--tool",
        "echo",
        "--args",
        r#"{"text":"x"}"#,
    ])
    .record()
    .run();
    let trace = run.trace_path().to_str().unwrap().to_string();
    let o = headless(["replay", "--print", &trace, "--only", "in && level >= loud"]).expect(2);
    crate::only::says_the_bad_level_at_its_column(&o);
}

/// `check --only` lists the findings about the frames it selects; the
/// counts, the verdict and the exit code stay the whole session's.
#[test]
fn check_only_lists_what_it_selects_and_judges_everything() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("faults.jsonl");
    let t = trace.to_str().unwrap().to_string();
    headless([
        "check",
        "--demo",
        "--tool",
        "fault_not_increasing",
        "--record",
        &t,
    ])
    .expect(1);
    let all = headless(["check", "--trace", &t, "--format", "json"]).expect(1);
    let all = all.json();
    let total = all["findings"].as_array().unwrap().len();
    assert!(total >= 1, "{all}");

    let some = headless([
        "check", "--trace", &t, "--format", "json", "--only", "progress",
    ])
    .expect(1);
    let some = some.json();
    let listed = some["findings"].as_array().unwrap().len();
    assert!(listed >= 1, "{some}");
    assert_eq!(some["summary"]["error"], all["summary"]["error"]);
    assert_eq!(some["summary"]["only"], "progress");
    assert_eq!(
        some["summary"]["not_listed"].as_u64().unwrap_or(0) as usize,
        total - listed
    );

    // Nothing selected: nothing listed, the same verdict, said in the text.
    let none = headless(["check", "--trace", &t, "--only", "stderr"]).expect(1);
    assert!(
        none.stdout.contains(&format!(
            "[only] stderr: {total} findings about other frames not listed"
        )),
        "{}",
        none.stdout
    );
    assert!(none.stdout.contains("FAIL"), "{}", none.stdout);
    // A bad filter stops before the server starts.
    let bad = headless(["check", "--demo", "--tool", "echo", "--only", "tool =="]).expect(2);
    assert!(bad.stderr.contains("--only: column 8"), "{}", bad.stderr);
}

/// Each command's `--help` says what its `--only` selects: printed events,
/// listed findings, listed differences, exported events.
#[test]
fn each_commands_help_says_what_its_only_selects() {
    for (cmd, says) in [
        ("replay", "Print only the events FILTER selects"),
        (
            "check",
            "List only the findings about frames FILTER selects",
        ),
        (
            "diff",
            "List only the differences about frames FILTER selects",
        ),
        ("export", "Export only the events FILTER selects"),
    ] {
        let o = headless([cmd, "--help"]).expect(0);
        let help = o.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(help.contains(says), "{cmd} --help:\n{}", o.stdout);
    }
}

/// `--only 'in && level >= loud'` refused (exit 2, nothing on stdout),
/// its error pointed at the column, as every command that takes it says.
pub fn says_the_bad_level_at_its_column(o: &crate::support::Run) {
    assert!(o.stdout.is_empty(), "{}", o.stdout);
    assert!(
        o.stderr
            .contains("[error] --only: column 16: level is one of"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr
            .contains("[error]   in && level >= loud\n[error]                  ^ level"),
        "{}",
        o.stderr
    );
}
