//! The 2026-07-28 tasks extension in the TUI, on a trace fed by hand on a
//! manual clock: a call answered with a task handle (`resultType: "task"`)
//! keeps one gauge as its task, whose status and history come from the
//! `tasks/get` answers; an `input_required` task's `inputRequests` open
//! the forms once (repeated polls repeat them) and the answer goes out as
//! `tasks/update`; the answer that says `completed` carries the result
//! and ends the call; a failed task ends it with its error; a task that
//! moves on withdraws its forms; Ctrl-C's sibling, the cancel key, sends
//! `tasks/cancel`. The task rules stay silent. Snapshot at 80×24.

use crate::support::*;
use mcpscope::protocol::IdKey;
use mcpscope::tui::calls::CallStatus;
use mcpscope::tui::overlays::asks::Route;

const TASK: &str = "52a47ed4ebb1a791abe4058a64784a0b";

fn task(status: &str, msg: &str) -> Value {
    json!({"taskId": TASK, "status": status, "statusMessage": msg,
        "createdAt": "2026-12-01T10:00:00Z", "lastUpdatedAt": "2026-12-01T10:00:01Z",
        "ttlMs": 3600000, "pollIntervalMs": 200})
}

fn confirm() -> Value {
    json!({"confirm-1": {"method": "elicitation/create", "params": {"mode": "form",
        "message": "2 of 4 steps are done. Go on with the batch?",
        "requestedSchema": {"type": "object", "properties": {
            "proceed": {"type": "boolean", "title": "Go on", "default": true}},
            "required": ["proceed"]}}}})
}

/// `tasks/get` id `id` at `ms`, answered two ms later with `result`.
fn poll(sc: &Scenario, ms: u64, id: i64, result: Value) {
    sc.at_ms(ms).out(
        json!({"jsonrpc": "2.0", "id": id, "method": "tasks/get", "params": {"taskId": TASK}}),
    );
    let mut r = result;
    r["resultType"] = json!("complete");
    sc.at_ms(ms + 2)
        .inn(json!({"jsonrpc": "2.0", "id": id, "result": r}));
}

/// The `tasks/update` the forms send for the confirmation, accepted (the
/// rounds' first message, under the Composer's default limits).
fn confirmed_update() -> Effect {
    Effect::Raw {
        id: Some(IdKey::Str("task-update-1".into())),
        method: "tasks/update".into(),
        params: Some(json!({"taskId": TASK, "inputResponses": {
            "confirm-1": {"action": "accept", "content": {"proceed": true}}}})),
        limits: mcpscope::client::Limits {
            idle: Some(std::time::Duration::from_secs(60)),
            max: Some(std::time::Duration::from_secs(600)),
        },
    }
}

/// `batch_job confirm=true` sent at 10 ms, answered with its task handle.
fn started(sc: &Scenario) {
    sc.at_ms(10).out(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "batch_job", "arguments": {"steps": 4, "confirm": true},
        "_meta": {"progressToken": "mcpscope-1",
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}}}}));
    let mut handle = task("working", "step 0 of 4");
    handle["resultType"] = json!("task");
    sc.at_ms(12)
        .inn(json!({"jsonrpc": "2.0", "id": 1, "result": handle}));
}

/// The demo's `batch_job confirm=true`: the handle, a working poll, then
/// `input_required` twice (the same request repeated).
fn waiting_task() -> Scenario {
    let sc = Scenario::new();
    started(&sc);
    poll(&sc, 212, 2, task("working", "step 1 of 4"));
    let mut waiting = task("input_required", "waiting for confirmation");
    waiting["inputRequests"] = confirm();
    poll(&sc, 412, 3, waiting.clone());
    poll(&sc, 612, 4, waiting);
    sc.at_ms(700);
    sc
}

#[test]
fn an_input_required_task_opens_the_form_once_and_the_answer_goes_as_tasks_update() {
    let sc = waiting_task();
    let mut app = app(&sc);
    app.sync();
    assert_eq!(
        app.panes.progress.calls.list.len(),
        1,
        "one gauge for call and task"
    );
    let c = &app.panes.progress.calls.list[0];
    assert_eq!(c.status, CallStatus::Running, "the handle does not end it");
    let t = c.task.as_ref().unwrap();
    assert_eq!(t.id, TASK);
    assert_eq!(t.status, "input_required");
    let steps: Vec<(&str, &str)> = t
        .history
        .iter()
        .map(|s| (s.status.as_str(), s.source))
        .collect();
    assert_eq!(
        steps,
        [
            ("working", "created"),
            ("working", "tasks/get"),
            ("input_required", "tasks/get")
        ]
    );
    // Asked twice, offered once.
    let routes: Vec<&Route> = app.overlays.asks.waiting.iter().map(|a| &a.route).collect();
    assert_eq!(
        routes,
        [&Route::Input {
            call: IdKey::Int(1),
            key: "confirm-1".into()
        }]
    );
    assert!(
        app.shell
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("the server needs input (1 request) — A to answer")),
        "{:?}",
        app.shell.notice
    );

    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains("needs elicitation/create") && screen.contains("A answers it"),
        "{screen}"
    );
    // The hand-composed retry is for results, not tasks.
    app.apply(Action::FocusProgress);
    app.apply(Action::AnswerInput);
    assert_eq!(
        app.shell.notice.as_deref(),
        Some("batch_job (id 1) waits for its task's input: A answers it (sent as tasks/update)")
    );

    app.apply(Action::AnswerServer);
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains("2 of 4 steps are done. Go on with the batch?"),
        "{screen}"
    );
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(effects, vec![confirmed_update()]);
    assert_eq!(
        app.shell.notice.as_deref(),
        Some("answered: the task of id 1 got its inputs (tasks/update)")
    );
    assert!(app.overlays.asks.waiting.is_empty());

    // The update, then the task works again and completes with the result.
    sc.at_ms(720).out(json!({"jsonrpc": "2.0", "id": "task-update-1", "method": "tasks/update",
        "params": {"taskId": TASK, "inputResponses": {"confirm-1": {"action": "accept", "content": {"proceed": true}}}}}));
    sc.at_ms(722).inn(
        json!({"jsonrpc": "2.0", "id": "task-update-1", "result": {"resultType": "complete"}}),
    );
    poll(&sc, 812, 5, task("working", "step 3 of 4"));
    let mut done = task("completed", "done");
    done["result"] = json!({"content": [{"type": "text", "text": "Batch done: 4 steps"}],
        "isError": false});
    poll(&sc, 1012, 6, done);
    sc.at_ms(1100);
    app.sync();
    assert!(app.overlays.asks.waiting.is_empty(), "nothing asked again");
    let c = &app.panes.progress.calls.list[0];
    assert_eq!(c.status, CallStatus::Done);
    assert_eq!(c.end_us, Some(1_014_000));
    let t = c.task.as_ref().unwrap();
    let statuses: Vec<&str> = t.history.iter().map(|s| s.status.as_str()).collect();
    assert_eq!(
        statuses,
        [
            "working",
            "working",
            "input_required",
            "working",
            "completed"
        ]
    );
    let screen = render(&mut app, 160, 48);
    assert!(!screen.contains("needs elicitation"), "{screen}");
    let screen = render(&mut app, 80, 24);
    insta_like(&screen, "task 52a47ed4… completed");
    assert!(
        check_all(&sc).is_empty(),
        "the task rules stay silent: {:?}",
        check_all(&sc)
    );
}

/// The screen holds `needle` (on one line).
fn insta_like(screen: &str, needle: &str) {
    assert!(
        screen.lines().any(|l| l.contains(needle)),
        "{needle:?} not on screen:\n{screen}"
    );
}

#[test]
fn a_task_that_moves_on_withdraws_its_forms() {
    let sc = waiting_task();
    let mut app = app(&sc);
    app.sync();
    assert_eq!(app.overlays.asks.waiting.len(), 1);
    // Answered elsewhere (or withdrawn): the task works again.
    poll(&sc, 800, 5, task("working", "step 2 of 4"));
    sc.at_ms(900);
    app.sync();
    assert!(app.overlays.asks.waiting.is_empty(), "the form went");
    assert_eq!(app.panes.progress.calls.list[0].status, CallStatus::Running);
}

#[test]
fn a_failed_task_ends_its_call_with_the_error_and_cancel_sends_tasks_cancel() {
    let sc = waiting_task();
    let mut first = app(&sc);
    first.sync();
    first.apply(Action::FocusProgress);
    assert_eq!(
        first.apply(Action::CancelCall),
        vec![Effect::CancelTask {
            task_id: TASK.into()
        }]
    );

    let sc = waiting_task();
    let mut failed = task("failed", "failed");
    failed["error"] = json!({"code": -32603, "message": "batch failed after 4 steps"});
    poll(&sc, 800, 5, failed);
    sc.at_ms(900);
    let mut app = app(&sc);
    app.sync();
    let c = &app.panes.progress.calls.list[0];
    assert_eq!(c.status, CallStatus::Failed);
    assert_eq!(c.note, "task failed: batch failed after 4 steps");
    assert_eq!(c.task.as_ref().unwrap().status, "failed");
    assert!(check_all(&sc).is_empty(), "{:?}", check_all(&sc));
}

/// A status pushed on a `subscriptions/listen` stream (`notifications/tasks`,
/// the task's whole state) moves the gauge as a poll does, and its timeline
/// row says the status, not raw JSON.
#[test]
fn a_pushed_status_moves_the_gauge_and_reads_in_the_timeline() {
    let sc = waiting_task();
    let mut pushed = task("working", "confirmation received");
    pushed["_meta"] = json!({"io.modelcontextprotocol/subscriptionId": 9});
    sc.at_ms(800)
        .inn(json!({"jsonrpc": "2.0", "method": "notifications/tasks", "params": pushed}));
    sc.at_ms(900);
    let mut app = app(&sc);
    app.sync();
    assert!(
        app.overlays.asks.waiting.is_empty(),
        "the pushed status withdrew the form"
    );
    assert_eq!(app.panes.progress.calls.list[0].status, CallStatus::Running);
    let screen = render(&mut app, 200, 40);
    let row = screen
        .lines()
        .find(|l| l.contains("← ntf   tasks"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(row.contains("working · confirmation received"), "{row}");
}

/// A task asking two things, one of which the user refuses to give (a
/// declined sampling request has no result to send): the answer given goes
/// as `tasks/update` at once, and the task is said to wait for the rest —
/// no retry to compose, a task is not retried.
#[test]
fn a_refused_task_input_sends_the_rest_and_says_the_task_waits() {
    let sc = Scenario::new();
    started(&sc);
    let mut waiting = task("input_required", "waiting for two answers");
    let mut asks = confirm();
    asks["sample-1"] = json!({"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": "Name the batch"}}],
        "maxTokens": 20}});
    waiting["inputRequests"] = asks;
    poll(&sc, 212, 2, waiting);
    sc.at_ms(300);
    let mut app = app(&sc);
    app.sync();
    assert_eq!(app.overlays.asks.waiting.len(), 2);
    app.apply(Action::AnswerServer);
    assert!(
        key(&mut app, KeyCode::Enter).is_empty(),
        "one more to answer"
    );
    let notice = app.shell.notice.clone().unwrap_or_default();
    assert!(notice.contains("before tasks/update"), "{notice}");
    app.apply(Action::AnswerServer);
    let effects = ctrl(&mut app, 'n');
    assert_eq!(effects, vec![confirmed_update()]);
    let notice = app.shell.notice.clone().unwrap_or_default();
    assert!(
        notice.contains("still waits for sample-1")
            && notice.contains("the other answers went as tasks/update")
            && notice.contains("c in Progress cancels the task")
            && !notice.contains("retry"),
        "{notice}"
    );
    assert!(app.overlays.asks.waiting.is_empty());
}
