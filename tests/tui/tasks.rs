//! Task-augmented calls in the TUI (2025-11-25 tasks), on a trace fed by
//! hand on a manual clock: one gauge per call across the `CreateTaskResult`
//! (its progress token stays valid for the task), the task's status from
//! the `CreateTaskResult`, `tasks/get` answers and `notifications/tasks/status`,
//! its history, the end at `tasks/result`, failure and cancellation; the
//! composer asking for task execution where the tool allows it; cancelling
//! a task with `tasks/cancel`. Snapshots of a task gauge at 160×48 and 80×24.

use crate::support::*;
use mcpscope::protocol::IdKey;
use mcpscope::tui::calls::CallStatus;

const TASK: &str = "7f3a9c2e-51b4-4f0e-9d1a-0c6b8e2f4a11";

/// Tools with each `execution.taskSupport`.
fn task_tools() -> Vec<Value> {
    let mut t = tools();
    t.push(json!({"name": "research", "title": "Research a topic",
        "description": "Runs as a task.", "execution": {"taskSupport": "required"},
        "inputSchema": {"type": "object", "properties": {"topic": {"type": "string", "default": "rust"}}}}));
    t.push(json!({"name": "export", "title": "Export",
        "description": "May run as a task.", "execution": {"taskSupport": "optional"},
        "inputSchema": {"type": "object", "properties": {}}}));
    t
}

fn task_app(sc: &Scenario) -> App {
    let mut app = app(sc);
    app.on_msg(Msg::Tools(Ok(task_tools())));
    app.sync();
    app
}

fn status(status: &str, msg: Option<&str>) -> Value {
    let mut t = json!({"taskId": TASK, "status": status, "pollInterval": 1000,
        "createdAt": "2026-12-01T10:00:00Z", "lastUpdatedAt": "2026-12-01T10:00:01Z", "ttl": 300000});
    if let Some(m) = msg {
        t["statusMessage"] = json!(m);
    }
    t
}

/// A research task: created (a status notification arrives before the
/// `CreateTaskResult`), progress on the call's token after it, polled with
/// `tasks/get`, a status notification, then `input_required`.
fn running_task() -> Scenario {
    let sc = Scenario::new();
    sc.at_ms(10).out(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "research", "arguments": {"topic": "rust"}, "task": {},
        "_meta": {"progressToken": "mcpscope-1"}}}),
    );
    sc.at_ms(25).inn(
        json!({"jsonrpc": "2.0", "method": "notifications/tasks/status",
        "params": status("working", Some("Gathering sources..."))}),
    );
    sc.at_ms(30)
        .inn(json!({"jsonrpc": "2.0", "id": 2, "result": {"task": status("working", None)}}));
    sc.at_ms(31).out(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/result", "params": {"taskId": TASK}}),
    );
    sc.at_ms(400)
        .progress(json!("mcpscope-1"), 1.0, Some(4.0), "stage 1 of 4");
    sc.at_ms(1031)
        .out(json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/get", "params": {"taskId": TASK}}));
    sc.at_ms(1033).inn(json!({"jsonrpc": "2.0", "id": 4, "result": status("working", Some("Analyzing content..."))}));
    sc.at_ms(1500)
        .progress(json!("mcpscope-1"), 2.0, Some(4.0), "stage 2 of 4");
    sc.at_ms(2040).inn(
        json!({"jsonrpc": "2.0", "method": "notifications/tasks/status",
        "params": status("input_required", Some("Which interpretation?"))}),
    );
    sc.at_ms(2500);
    sc
}

fn finish(sc: &Scenario) {
    sc.at_ms(3000)
        .out(json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/get", "params": {"taskId": TASK}}));
    sc.at_ms(3002).inn(json!({"jsonrpc": "2.0", "id": 5, "result": status("working", Some("Generating report..."))}));
    sc.at_ms(3600)
        .progress(json!("mcpscope-1"), 4.0, Some(4.0), "stage 4 of 4");
    sc.at_ms(4000)
        .inn(json!({"jsonrpc": "2.0", "id": 3, "result": {
        "content": [{"type": "text", "text": "# Research Report: rust"}],
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": TASK}}}}));
    sc.at_ms(4100);
}

#[test]
fn a_task_call_keeps_one_gauge_and_follows_the_task_to_its_result() {
    let sc = running_task();
    let mut app = task_app(&sc);
    let screen = render(&mut app, 160, 48);
    assert_eq!(
        app.panes.progress.calls.list.len(),
        1,
        "one gauge for the call and its task"
    );
    let c = &app.panes.progress.calls.list[0];
    assert_eq!(
        c.status,
        CallStatus::Running,
        "the CreateTaskResult does not end it"
    );
    let task = c.task.as_ref().unwrap();
    assert_eq!(task.id, TASK);
    assert_eq!(task.status, "input_required");
    assert_eq!(task.message.as_deref(), Some("Which interpretation?"));
    let steps: Vec<(&str, Option<&str>, &str)> = task
        .history
        .iter()
        .map(|s| (s.status.as_str(), s.message.as_deref(), s.source))
        .collect();
    assert_eq!(
        steps,
        [
            ("working", None, "created"),
            ("working", Some("Gathering sources..."), "notification"),
            ("working", Some("Analyzing content..."), "tasks/get"),
            (
                "input_required",
                Some("Which interpretation?"),
                "notification"
            ),
        ]
    );
    assert!(
        screen.contains("task 7f3a9c2e… input_required  running 2.5s"),
        "{screen}"
    );
    assert!(
        screen.contains("2 / 4"),
        "progress after the CreateTaskResult: {screen}"
    );
    assert!(screen.contains("Which interpretation?"), "{screen}");

    finish(&sc);
    let screen = render(&mut app, 160, 48);
    let c = &app.panes.progress.calls.list[0];
    assert_eq!(c.status, CallStatus::Done);
    assert_eq!(c.end_us, Some(4_000_000));
    let task = c.task.as_ref().unwrap();
    assert_eq!(task.status, "completed");
    assert_eq!(task.history.last().unwrap().source, "tasks/result");
    assert!(
        screen.contains("task 7f3a9c2e… completed  done in 4.0s"),
        "{screen}"
    );
    assert!(screen.contains("4 / 4"), "{screen}");
}

#[test]
fn the_details_view_lists_the_status_history_with_times() {
    let sc = running_task();
    finish(&sc);
    let mut app = task_app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::Details);
    app.apply(Action::Zoom);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains(&format!("── task {TASK} ──")), "{screen}");
    for row in [
        "+20ms      working        (created)",
        "+15ms      working        Gathering sources... (notification)",
        "+1.0s      working        Analyzing content... (tasks/get)",
        "+2.0s      input_required Which interpretation? (notification)",
        "+3.0s      working        Generating report... (tasks/get)",
        "+4.0s      completed      (tasks/result)",
    ] {
        assert!(screen.contains(row), "{row:?} in {screen}");
    }
}

#[test]
fn a_failed_or_cancelled_task_ends_its_call() {
    let sc = running_task();
    sc.at_ms(2600).out(
        json!({"jsonrpc": "2.0", "id": 9, "method": "tasks/cancel", "params": {"taskId": TASK}}),
    );
    sc.at_ms(2605).inn(json!({"jsonrpc": "2.0", "id": 9, "result": status("cancelled", Some("Client cancelled task execution."))}));
    // Anything after a terminal status changes nothing.
    sc.at_ms(2700).inn(
        json!({"jsonrpc": "2.0", "method": "notifications/tasks/status",
        "params": status("working", None)}),
    );
    let mut app = task_app(&sc);
    let screen = render(&mut app, 160, 48);
    let c = &app.panes.progress.calls.list[0];
    assert_eq!(c.status, CallStatus::Cancelled);
    assert_eq!(c.end_us, Some(2_605_000));
    assert_eq!(c.task.as_ref().unwrap().status, "cancelled");
    assert!(
        screen.contains("task 7f3a9c2e… cancelled  cancelled in 2.6s"),
        "{screen}"
    );

    let sc = running_task();
    sc.at_ms(2600).inn(
        json!({"jsonrpc": "2.0", "method": "notifications/tasks/status",
        "params": status("failed", None)}),
    );
    let mut app = task_app(&sc);
    let screen = render(&mut app, 160, 48);
    let c = &app.panes.progress.calls.list[0];
    assert_eq!(c.status, CallStatus::Failed);
    assert_eq!(c.note, "task failed");
    assert!(screen.contains("task 7f3a9c2e… failed"), "{screen}");
}

#[test]
fn a_task_created_failed_ends_its_call_at_once() {
    let sc = Scenario::new();
    sc.at_ms(10).out(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "research", "arguments": {}, "task": {}, "_meta": {"progressToken": "mcpscope-1"}}}));
    sc.at_ms(30).inn(
        json!({"jsonrpc": "2.0", "id": 2, "result": {"task": status("failed", Some("no quota"))}}),
    );
    let mut app = task_app(&sc);
    app.sync();
    let c = &app.panes.progress.calls.list[0];
    assert_eq!(c.status, CallStatus::Failed);
    assert_eq!(c.end_us, Some(30_000));
    assert_eq!(
        c.task.as_ref().unwrap().message.as_deref(),
        Some("no quota")
    );
}

#[test]
fn a_running_task_counts_down_its_max_limit_from_its_creation_and_no_idle() {
    let sc = running_task();
    let mut app = task_app(&sc);
    app.on_msg(Msg::CallPrepared {
        id: IdKey::Int(2),
        limits: mcpscope::client::Limits {
            idle: Some(std::time::Duration::from_secs(60)),
            max: Some(std::time::Duration::from_secs(600)),
        },
    });
    let screen = render(&mut app, 200, 48);
    // Created at 30 ms, now 2.5 s: 597.53 s left of the max.
    assert!(screen.contains("· max 9m57s"), "{screen}");
    assert!(!screen.contains("· idle "), "{screen}");
}

#[test]
fn an_error_from_tasks_result_and_a_server_exit_end_the_call() {
    let sc = running_task();
    sc.at_ms(3000).inn(
        json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32603, "message": "task expired"}}),
    );
    let mut app = task_app(&sc);
    app.sync();
    let c = &app.panes.progress.calls.list[0];
    assert_eq!(c.status, CallStatus::RpcError);
    assert_eq!(c.note, "tasks/result: task expired");

    let sc = running_task();
    sc.at_ms(3000)
        .meta(json!({"event": "exit", "code": 1, "signal": null}));
    let mut app = task_app(&sc);
    app.sync();
    let c = &app.panes.progress.calls.list[0];
    assert_eq!(c.status, CallStatus::Crashed);
    assert_eq!(c.note, "the server exited with status 1");
}

#[test]
fn cancel_sends_tasks_cancel_once_the_task_runs() {
    // Before the CreateTaskResult: the request itself is cancelled.
    let sc = Scenario::new();
    sc.at_ms(10).out(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "research", "arguments": {}, "task": {}, "_meta": {"progressToken": "mcpscope-1"}}}));
    let mut app = task_app(&sc);
    app.apply(Action::FocusProgress);
    assert_eq!(
        app.apply(Action::CancelCall),
        vec![Effect::Cancel { id: IdKey::Int(2) }]
    );

    let sc = running_task();
    let mut app = task_app(&sc);
    app.apply(Action::FocusProgress);
    assert_eq!(
        app.apply(Action::CancelCall),
        vec![Effect::CancelTask {
            task_id: TASK.into()
        }]
    );
    assert_eq!(
        app.shell.notice.as_deref(),
        Some("cancelling research (task 7f3a9c2e…)")
    );
    assert!(
        app.panes.progress.calls.list[0]
            .task
            .as_ref()
            .unwrap()
            .cancel_sent
    );
}

#[test]
fn the_composer_asks_for_a_task_where_the_tool_allows_it() {
    let sc = Scenario::new();
    let mut app = task_app(&sc);
    let send = |app: &mut App| match &app.apply(Action::Send)[..] {
        [Effect::Call { task, .. }] => *task,
        other => panic!("{other:?}"),
    };
    let pick = |app: &mut App, name: &str| {
        app.apply(Action::FocusTools);
        app.apply(Action::Top);
        while app.panes.tools.selected().map(|t| t.name.as_str()) != Some(name) {
            app.apply(Action::Down);
        }
        app.apply(Action::UseTool);
    };
    // Required: always a task, the toggle says so.
    pick(&mut app, "research");
    assert!(send(&mut app));
    app.apply(Action::ToggleTask);
    assert_eq!(
        app.shell.notice.as_deref(),
        Some("research always runs as a task (taskSupport: required)")
    );
    assert!(send(&mut app));
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains("Composer · tools/call · task: required"),
        "{screen}"
    );

    // Optional: a plain call until asked.
    pick(&mut app, "export");
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("tools/call · task: off [x]"), "{screen}");
    assert!(!send(&mut app));
    assert!(!app.view().composer_command().contains("--task"));
    app.apply(Action::ToggleTask);
    assert!(send(&mut app));
    assert_eq!(
        app.view().composer_command(),
        "mcpscope call --demo --tool export --task"
    );
    assert_eq!(
        app.shell.notice.as_deref(),
        Some("sent tools/call export as a task")
    );
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("tools/call · task: on [x]"), "{screen}");

    // Forbidden: never.
    pick(&mut app, "echo");
    app.apply(Action::ToggleTask);
    assert_eq!(
        app.shell.notice.as_deref(),
        Some("echo does not run as a task (no taskSupport)")
    );
    assert!(!send(&mut app));
}

#[test]
fn run_at_start_up_makes_a_task_of_a_tool_that_requires_it() {
    let sc = Scenario::new();
    let opts = mcpscope::tui::AppOptions {
        runs: vec![
            ("research".into(), json!({"topic": "rust"})),
            ("echo".into(), json!({"text": "x"})),
        ],
        ..Default::default()
    };
    let mut app = App::new(sc.trace.clone(), opts);
    app.on_msg(Msg::Handshake(Ok(init_result())));
    let fired = app.on_msg(Msg::Tools(Ok(task_tools())));
    let tasks: Vec<(String, bool)> = fired
        .iter()
        .map(|e| match e {
            Effect::Call { tool, task, .. } => (tool.clone(), *task),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        tasks,
        [("research".to_string(), true), ("echo".to_string(), false)]
    );
}

#[test]
fn snapshot_task_gauge() {
    let sc = running_task();
    let mut app = task_app(&sc);
    insta::assert_snapshot!(render(&mut app, 160, 48));
}

#[test]
fn snapshot_task_gauge_at_80x24() {
    let sc = running_task();
    let mut app = task_app(&sc);
    app.apply(Action::FocusProgress);
    insta::assert_snapshot!(render(&mut app, 80, 24));
}

#[test]
fn a_task_in_input_required_points_to_its_waiting_request() {
    let sc = running_task();
    let mut app = task_app(&sc);
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains("Which interpretation? · waiting for its request"),
        "{screen}"
    );
    // Another task's request is not its own.
    let ask = |task: &str, id: i64| {
        let params = json!({"message": "Which one?", "requestedSchema": {"type": "object",
            "properties": {"x": {"type": "string"}}},
            "_meta": {"io.modelcontextprotocol/related-task": {"taskId": task}}});
        let raw =
            json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create", "params": params})
                .to_string();
        let seq = sc.raw_in(raw.as_bytes());
        mcpscope::client::ServerAsk {
            id: IdKey::Int(id),
            seq,
            method: "elicitation/create".into(),
            params,
            raw,
        }
    };
    app.on_msg(Msg::ServerAsk(ask("another-task", 0)));
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("waiting for its request"), "{screen}");
    app.on_msg(Msg::ServerAsk(ask(TASK, 1)));
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains("Which interpretation? · A answers it"),
        "{screen}"
    );
}
