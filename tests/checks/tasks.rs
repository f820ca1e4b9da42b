//! The task rules against hand-written wire sequences: a task-augmented call
//! answered with a `CreateTaskResult` keeps its progress token until the task
//! is terminal, and a terminal status is never left. Both tasks revisions
//! (2025-11-25 and the 2026-07-28 tasks extension), over stdio and over
//! Streamable HTTP streams that may deliver out of order.

use mcpscope::checks::{CheckConfig, Checker, Finding, Rule, Severity};
use mcpscope::protocol::IdKey;
use mcpscope::trace::{Dir, Store};

/// (time in ms, direction, channel, frame)
type Ev<'a> = (u64, &'a str, &'a str, &'a str);

fn check(events: &[Ev<'_>]) -> Vec<Finding> {
    let mut s = Store::default();
    for (t, d, ch, f) in events {
        s.append_recorded(Dir::parse(d).unwrap(), ch, t * 1000, f.as_bytes(), false);
    }
    let mut c = Checker::new(CheckConfig::default());
    let mut out = Vec::new();
    for ev in s.range(0, s.next_seq()) {
        c.observe(&ev, &mut out);
    }
    c.finish(&mut out);
    out
}

fn only(findings: &[Finding], rule: Rule) -> Vec<&Finding> {
    findings.iter().filter(|f| f.rule == rule).collect()
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"tasks":{"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1"}}}"#;
const TASK_CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"task":{},"_meta":{"progressToken":"t"}}}"#;
const CREATED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"T1","status":"working","createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":null,"pollInterval":100}}}"#;
const GET: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T1"}}"#;
const RESULT: &str = r#"{"jsonrpc":"2.0","id":3,"method":"tasks/result","params":{"taskId":"T1"}}"#;
const RESULT_OK: &str = r#"{"jsonrpc":"2.0","id":3,"result":{"content":[],"isError":false,"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"T1"}}}}"#;

fn p(progress: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"t","progress":{progress},"total":3}}}}"#
    )
}

fn status(method: &str, s: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","method":"{method}","params":{{"taskId":"T1","status":"{s}"}}}}"#)
}

fn note(s: &str) -> String {
    status("notifications/tasks/status", s)
}

fn got(id: u32, s: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"taskId":"T1","status":"{s}","ttl":null}}}}"#)
}

/// Handshake, the task-augmented call and its CreateTaskResult: seqs 0..=3.
fn task_with<'a>(rest: &[Ev<'a>]) -> Vec<Ev<'a>> {
    let mut v = vec![
        (0, "out", "stdio", INIT),
        (1, "in", "stdio", INIT_OK),
        (2, "out", "stdio", TASK_CALL),
        (3, "in", "stdio", CREATED),
    ];
    v.extend_from_slice(rest);
    v
}

#[test]
fn progress_after_the_create_task_result_is_the_task_running() {
    let (one, two, three) = (p(1), p(2), p(3));
    let (working, done) = (note("working"), note("completed"));
    let f = check(&task_with(&[
        (4, "in", "stdio", &one),
        (5, "in", "stdio", &working),
        (6, "out", "stdio", GET),
        (7, "in", "stdio", &got(2, "working")),
        (8, "in", "stdio", &two),
        (9, "out", "stdio", RESULT),
        (10, "in", "stdio", &three),
        (11, "in", "stdio", &done),
        (12, "in", "stdio", RESULT_OK),
    ]));
    assert!(f.is_empty(), "{f:?}");

    // The same progress after a plain result is still late.
    let plain = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}"#;
    let f = check(&[
        (0, "out", "stdio", INIT),
        (1, "in", "stdio", INIT_OK),
        (2, "out", "stdio", TASK_CALL),
        (3, "in", "stdio", plain),
        (4, "in", "stdio", &one),
    ]);
    assert_eq!(only(&f, Rule::ProgressAfterResponse).len(), 1, "{f:?}");
    assert!(only(&f, Rule::TaskProgressAfterTerminal).is_empty());
}

#[test]
fn progress_after_the_task_ended() {
    let (one, two) = (p(1), p(2));
    // Ended by a status notification.
    let done = note("completed");
    let f = check(&task_with(&[
        (4, "in", "stdio", &one),
        (5, "in", "stdio", &done),
        (6, "in", "stdio", &two),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::TaskProgressAfterTerminal);
    assert_eq!(f[0].severity, Severity::Error);
    assert_eq!(f[0].seqs, vec![5, 6]);
    assert_eq!(f[0].token, Some(IdKey::Str("t".into())));
    assert_eq!(f[0].request_id, Some(IdKey::Int(1)));
    assert!(
        f[0].message
            .contains("after task T1 (request 1) was completed (#5)"),
        "{}",
        f[0].message
    );

    // Ended as a tasks/get answer said.
    let failed = got(2, "failed");
    let f = check(&task_with(&[
        (4, "out", "stdio", GET),
        (5, "in", "stdio", &failed),
        (6, "in", "stdio", &one),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::TaskProgressAfterTerminal);
    assert!(f[0].message.contains("was failed (#5)"), "{}", f[0].message);

    // Cancelled by tasks/cancel: its answer is the task, cancelled.
    let cancel = r#"{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"T1"}}"#;
    let cancelled = got(2, "cancelled");
    let f = check(&task_with(&[
        (4, "out", "stdio", cancel),
        (5, "in", "stdio", &cancelled),
        (6, "in", "stdio", &one),
    ]));
    assert_eq!(
        only(&f, Rule::TaskProgressAfterTerminal)[0].seqs,
        vec![5, 6]
    );

    // Created finished: no progress may follow at all.
    let instant =
        r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"T1","status":"completed"}}}"#;
    let f = check(&[
        (0, "out", "stdio", INIT),
        (1, "in", "stdio", INIT_OK),
        (2, "out", "stdio", TASK_CALL),
        (3, "in", "stdio", instant),
        (4, "in", "stdio", &one),
    ]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::TaskProgressAfterTerminal);
    assert_eq!(f[0].seqs, vec![3, 4]);
}

#[test]
fn a_terminal_status_is_never_left() {
    let (done, working, again) = (note("completed"), note("working"), note("completed"));
    let f = check(&task_with(&[
        (4, "in", "stdio", &done),
        // Repeating the terminal status is no change.
        (5, "in", "stdio", &again),
        (6, "out", "stdio", GET),
        (7, "in", "stdio", &got(2, "completed")),
        (8, "in", "stdio", &working),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::TaskStatusRegressed);
    assert_eq!(f[0].severity, Severity::Error);
    assert_eq!(f[0].seqs, vec![4, 8]);
    assert_eq!(f[0].request_id, Some(IdKey::Int(1)));
    assert!(
        f[0].message.contains(
            "task T1 (request 1) reported status \"working\" after it was completed (#4)"
        ),
        "{}",
        f[0].message
    );

    // From one terminal status to another, as a poll answers.
    let cancelled = note("cancelled");
    let f = check(&task_with(&[
        (4, "in", "stdio", &cancelled),
        (5, "out", "stdio", GET),
        (6, "in", "stdio", &got(2, "completed")),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::TaskStatusRegressed);
    assert_eq!(f[0].seqs, vec![4, 6]);

    // Before the end, any order the lifecycle allows is fine.
    let (input, working2) = (note("input_required"), note("working"));
    let f = check(&task_with(&[
        (4, "in", "stdio", &input),
        (5, "in", "stdio", &working2),
        (6, "in", "stdio", &done),
    ]));
    assert!(f.is_empty(), "{f:?}");

    // Statuses of a task no answer created and the client never named:
    // no lifecycle rule judges them, but they name no task (once).
    let other = r#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"T9","status":"completed"}}"#;
    let other_working = r#"{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"T9","status":"working"}}"#;
    let f = check(&task_with(&[
        (4, "in", "stdio", other),
        (5, "in", "stdio", other_working),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::TaskStatusUnknown);
    assert_eq!(f[0].seqs, vec![4]);
    // One the client follows (it asked about T9) exists elsewhere: silent.
    let get_other = r#"{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":{"taskId":"T9"}}"#;
    let f = check(&task_with(&[
        (4, "out", "stdio", get_other),
        (5, "in", "stdio", other),
        (6, "in", "stdio", other_working),
    ]));
    assert!(f.is_empty(), "{f:?}");
}

/// Streamable HTTP: the call on `post:1`, its progress after the
/// CreateTaskResult on the GET stream, polls on their own POST streams.
#[test]
fn over_http_streams_only_what_must_be_late_is_judged() {
    let (one, two) = (p(1), p(2));
    let done = note("completed");
    let get3 = r#"{"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"T1"}}"#;
    let base = |rest: &[Ev<'static>]| -> Vec<Ev<'static>> {
        let mut v: Vec<Ev<'static>> = vec![
            (0, "out", "post:0", INIT),
            (1, "in", "post:0", INIT_OK),
            (2, "out", "post:1", TASK_CALL),
            (3, "in", "post:1", CREATED),
        ];
        v.extend_from_slice(rest);
        v
    };
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let (one, two, done) = (leak(one), leak(two), leak(done));
    // Progress on another stream than the call's, while the task runs: no
    // notification-wrong-stream (the call's stream ended with its answer).
    let f = check(&base(&[(4, "in", "get", one), (5, "in", "get", two)]));
    assert!(f.is_empty(), "{f:?}");

    // A task's messages may come on any stream, even before the
    // CreateTaskResult on the call's own stream is read.
    let f = check(&[
        (0, "out", "post:0", INIT),
        (1, "in", "post:0", INIT_OK),
        (2, "out", "post:1", TASK_CALL),
        (3, "in", "get", one),
        (4, "in", "post:1", CREATED),
        (5, "in", "get", two),
    ]);
    assert!(f.is_empty(), "{f:?}");

    // A poll sent before the end was seen may answer with older news; one
    // sent after it may not.
    let f = check(&base(&[
        (4, "out", "post:2", GET),
        (10, "in", "get", done),
        (11, "in", "post:2", leak(got(2, "working"))),
        (12, "out", "post:3", get3),
        (13, "in", "post:3", leak(got(3, "working"))),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::TaskStatusRegressed);
    assert_eq!(f[0].seqs, vec![5, 8]);

    // Progress on another stream just after the end may have been sent
    // before it (within the 1 s grace); later, it is late.
    let f = check(&base(&[
        (10, "in", "get", done),
        (11, "in", "post:9", one),
        (2000, "in", "post:9", two),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::TaskProgressAfterTerminal);
    assert_eq!(f[0].seqs, vec![4, 6]);
}

/// The 2026-07-28 tasks extension: `resultType: "task"` with the task's
/// fields at the top, and `notifications/tasks`.
#[test]
fn the_tasks_extension_shape() {
    let sl_call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}"#;
    let created = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"task","taskId":"T1","status":"working","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}"#;
    let (one, two) = (p(1), p(2));
    let (working, done, back) = (
        status("notifications/tasks", "working"),
        status("notifications/tasks", "completed"),
        status("notifications/tasks", "working"),
    );
    let f = check(&[
        (0, "out", "stdio", sl_call),
        (1, "in", "stdio", created),
        (2, "in", "stdio", &one),
        (3, "in", "stdio", &working),
        (4, "in", "stdio", &done),
        (5, "in", "stdio", &two),
        (6, "in", "stdio", &back),
    ]);
    let rules: Vec<Rule> = f.iter().map(|f| f.rule).collect();
    assert_eq!(
        rules,
        vec![Rule::TaskProgressAfterTerminal, Rule::TaskStatusRegressed],
        "{f:?}"
    );
    assert_eq!(f[0].seqs, vec![4, 5]);
    assert_eq!(f[1].seqs, vec![4, 6]);
}

#[test]
fn a_successful_cancel_leaves_the_task_cancelled() {
    let cancel = r#"{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"T1"}}"#;
    let still = got(2, "working");
    let f = check(&task_with(&[
        (4, "out", "stdio", cancel),
        (5, "in", "stdio", &still),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::TaskCancelNotCancelled);
    assert_eq!(f[0].severity, Severity::Error);
    assert_eq!(f[0].seqs, vec![4, 5]);
    assert_eq!(f[0].request_id, Some(IdKey::Int(2)));
    assert!(
        f[0].message
            .contains("tasks/cancel for task T1 succeeded, but the task is \"working\""),
        "{}",
        f[0].message
    );

    // A task that had completed must be refused, not answered as completed.
    let done = note("completed");
    let completed = got(2, "completed");
    let f = check(&task_with(&[
        (4, "in", "stdio", &done),
        (5, "out", "stdio", cancel),
        (6, "in", "stdio", &completed),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::TaskCancelNotCancelled);

    // Cancelled, or refused: as the spec asks.
    let cancelled = got(2, "cancelled");
    let refused = r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"task T1 is already completed"}}"#;
    for answer in [cancelled.as_str(), refused] {
        let f = check(&task_with(&[
            (4, "out", "stdio", cancel),
            (5, "in", "stdio", answer),
        ]));
        assert!(f.is_empty(), "{answer}: {f:?}");
    }

    // The 2026-07-28 extension acknowledges a cancel without a status, and
    // its requests are not judged by the 2025-11-25 rule.
    let sl_cancel = r#"{"jsonrpc":"2.0","id":2,"method":"tasks/cancel","params":{"taskId":"T1","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let ack = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete"}}"#;
    let odd = r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","taskId":"T1","status":"completed"}}"#;
    for answer in [ack, odd] {
        let f = check(&[(0, "out", "stdio", sl_cancel), (1, "in", "stdio", answer)]);
        assert!(only(&f, Rule::TaskCancelNotCancelled).is_empty(), "{f:?}");
    }
}

/// Over Streamable HTTP a task's statuses on the GET stream may overtake the
/// CreateTaskResult on the call's stream; they count once it names the task.
#[test]
fn statuses_that_overtake_the_create_task_result() {
    let (done, working, late) = (note("completed"), note("working"), p(2));
    let f = check(&[
        (0, "out", "post:0", INIT),
        (1, "in", "post:0", INIT_OK),
        (2, "out", "post:1", TASK_CALL),
        (3, "in", "get", &done),
        (4, "in", "get", &working),
        (5, "in", "post:1", CREATED),
        (6, "in", "get", &late),
    ]);
    let got: Vec<(Rule, Vec<u64>)> = f.iter().map(|f| (f.rule, f.seqs.clone())).collect();
    assert_eq!(
        got,
        vec![
            (Rule::TaskStatusRegressed, vec![3, 4]),
            (Rule::TaskProgressAfterTerminal, vec![3, 6]),
        ],
        "{f:?}"
    );

    // The CreateTaskResult's own "working" was written before the end.
    let f = check(&[
        (0, "out", "post:0", INIT),
        (1, "in", "post:0", INIT_OK),
        (2, "out", "post:1", TASK_CALL),
        (3, "in", "get", &done),
        (4, "in", "post:1", CREATED),
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn statuses_of_unknown_tasks_are_kept_bounded() {
    let mut s = Store::default();
    for i in 0..10_000u64 {
        let f = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{{"taskId":"X{i}","status":"working"}}}}"#
        );
        s.append_recorded(Dir::In, "stdio", i, f.as_bytes(), false);
    }
    let mut c = Checker::new(CheckConfig::default());
    let mut out = Vec::new();
    for ev in s.range(0, s.next_seq()) {
        c.observe(&ev, &mut out);
    }
    assert!(out.is_empty(), "{out:?}");
    let (tasks, early, dropped) = c.tracked_tasks();
    assert_eq!(tasks, 0);
    assert_eq!(early, 64);
    assert_eq!(dropped, 10_000 - 64);
}
