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
