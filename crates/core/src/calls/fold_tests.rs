use super::*;
use serde_json::json;

/// A hand-made session: frames appended in order, each at a time.
struct S(Store);

impl S {
    fn new() -> S {
        S(Store::default())
    }
    fn out(&mut self, t_us: u64, v: Value) -> u64 {
        let line = v.to_string();
        self.0
            .append_frame(Dir::Out, "stdio", t_us, line.as_bytes(), &mut Vec::new())
    }
    fn inn(&mut self, t_us: u64, v: Value) -> u64 {
        let line = v.to_string();
        self.0
            .append_frame(Dir::In, "stdio", t_us, line.as_bytes(), &mut Vec::new())
    }
    fn calls(&self) -> Calls {
        Calls::of(&self.0)
    }
}

fn kinds(c: &ToolCall) -> Vec<StepKind> {
    c.steps.list.iter().map(|s| s.kind).collect()
}

/// call → input_required → retry with inputResponses → result.
fn one_round(s: &mut S) {
    s.out(
        10,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
            "name":"wizard","arguments":{},"_meta":{"progressToken":"a"}}}),
    );
    s.inn(
        20,
        json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required",
            "inputRequests":{"q":{"method":"elicitation/create","params":{"message":"Name?"}}},
            "requestState":"s1"}}),
    );
    s.out(
        30,
        json!({"jsonrpc":"2.0","id":"r1","method":"tools/call","params":{
            "name":"wizard","arguments":{},"_meta":{"progressToken":"b"},
            "inputResponses":{"q":{"action":"accept","content":{"n":"x"}}},"requestState":"s1"}}),
    );
}

#[test]
fn a_call_and_its_input_round_are_one_call_with_three_steps() {
    let mut s = S::new();
    one_round(&mut s);
    let mid = s.calls();
    assert_eq!(mid.list.len(), 1);
    let c = &mid.list[0];
    assert_eq!(c.status, CallStatus::Running, "answered: running again");
    assert_eq!(kinds(c), [StepKind::Asked, StepKind::Answered]);
    assert_eq!(
        c.input.as_ref().unwrap().answered_by,
        Some(IdKey::Str("r1".into()))
    );
    s.inn(
        40,
        json!({"jsonrpc":"2.0","id":"r1","result":{"content":[{"type":"text","text":"ok"}]}}),
    );
    let calls = s.calls();
    assert_eq!(calls.list.len(), 1, "{:#?}", calls.list);
    let c = &calls.list[0];
    assert_eq!((c.id.clone(), c.request_seq), (IdKey::Int(1), 0));
    assert_eq!(c.latest.id, IdKey::Str("r1".into()));
    assert_eq!(c.latest.token, Some(IdKey::Str("b".into())));
    assert_eq!(c.status, CallStatus::Done, "the final round's status");
    assert_eq!(c.end_us, Some(40));
    assert_eq!(
        kinds(c),
        [StepKind::Asked, StepKind::Answered, StepKind::Resumed]
    );
    let at: Vec<(u64, u64)> = c.steps.list.iter().map(|s| (s.seq, s.t_us)).collect();
    assert_eq!(at, [(1, 20), (2, 30), (3, 40)]);
    assert_eq!(c.steps.list[1].by, Some(IdKey::Str("r1".into())));
    // Either id names the call.
    assert_eq!(
        calls.get(&IdKey::Str("r1".into())).map(|c| c.request_seq),
        Some(0)
    );
}

#[test]
fn a_retrys_first_progress_resumes_the_call() {
    let mut s = S::new();
    one_round(&mut s);
    s.inn(
        35,
        json!({"jsonrpc":"2.0","method":"notifications/progress",
            "params":{"progressToken":"b","progress":1}}),
    );
    let calls = s.calls();
    let c = &calls.list[0];
    assert_eq!(
        kinds(c),
        [StepKind::Asked, StepKind::Answered, StepKind::Resumed]
    );
    assert_eq!(c.steps.list[2].t_us, 35);
    assert!(c.status.is_running());
}

#[test]
fn a_retry_of_nothing_asked_is_a_call_of_its_own() {
    let mut s = S::new();
    s.out(
        10,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{
            "name":"wizard","arguments":{},"inputResponses":{},"requestState":"s9"}}),
    );
    s.out(
        11,
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"other"}}),
    );
    assert_eq!(s.calls().list.len(), 2);
}

#[test]
fn a_finished_call_forgotten_is_not_answered() {
    let mut s = S::new();
    one_round(&mut s);
    let mut calls = Calls::default();
    // Up to the input_required result, then forget finished calls.
    calls.sync(&s.0, 2);
    assert_eq!(calls.list[0].status, CallStatus::InputRequired);
    calls.clear_finished();
    assert!(calls.list.is_empty());
    calls.sync(&s.0, 10);
    assert_eq!(calls.list.len(), 1);
    assert_eq!(calls.list[0].id, IdKey::Str("r1".into()));
}

/// A task (tasks extension) that asks, is answered by `tasks/update`,
/// then completes with the tool's result in its status.
#[test]
fn a_tasks_input_rounds_are_steps_of_its_call() {
    let mut s = S::new();
    s.out(
        10,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{}}}),
    );
    s.inn(
        20,
        json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"task",
            "task":{"taskId":"T","status":"working"}}}),
    );
    s.out(
        30,
        json!({"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"T"}}),
    );
    s.inn(
        40,
        json!({"jsonrpc":"2.0","id":2,"result":{"taskId":"T","status":"input_required",
            "inputRequests":{"k":{"method":"elicitation/create","params":{"message":"Sure?"}}}}}),
    );
    let asked = s.calls();
    let c = &asked.list[0];
    assert!(c.status.is_running());
    assert_eq!(c.input.as_ref().unwrap().task.as_deref(), Some("T"));
    assert_eq!(kinds(c), [StepKind::Asked]);
    s.out(
        50,
        json!({"jsonrpc":"2.0","id":"u1","method":"tasks/update","params":{"taskId":"T",
            "inputResponses":{"k":{"action":"accept"}}}}),
    );
    s.out(
        60,
        json!({"jsonrpc":"2.0","id":3,"method":"tasks/get","params":{"taskId":"T"}}),
    );
    s.inn(
        70,
        json!({"jsonrpc":"2.0","id":3,"result":{"taskId":"T","status":"completed",
            "result":{"content":[],"isError":true}}}),
    );
    let calls = s.calls();
    let c = &calls.list[0];
    assert_eq!(
        kinds(c),
        [StepKind::Asked, StepKind::Answered, StepKind::Resumed]
    );
    assert_eq!(c.steps.list[1].by, Some(IdKey::Str("u1".into())));
    assert_eq!(
        c.input.as_ref().unwrap().answered_by,
        Some(IdKey::Int(1)),
        "the task moved on"
    );
    assert_eq!((c.status, c.end_us), (CallStatus::ToolError, Some(70)));
}

#[test]
fn a_task_ends_with_its_result_and_early_statuses_are_kept() {
    let mut s = S::new();
    s.out(
        10,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}),
    );
    // A status before the CreateTaskResult that names the task.
    s.inn(
        15,
        json!({"jsonrpc":"2.0","method":"notifications/tasks/status",
            "params":{"taskId":"T","status":"working","statusMessage":"half"}}),
    );
    s.inn(
        20,
        json!({"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"T","status":"working"}}}),
    );
    let running = s.calls();
    let c = &running.list[0];
    assert!(c.status.is_running(), "a task's call runs on");
    assert_eq!(
        c.task.as_ref().unwrap().message.as_deref(),
        Some("half"),
        "the early status"
    );
    s.out(
        30,
        json!({"jsonrpc":"2.0","id":2,"method":"tasks/result","params":{"taskId":"T"}}),
    );
    s.inn(
        40,
        json!({"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"boom"}}),
    );
    let calls = s.calls();
    let c = &calls.list[0];
    assert_eq!(c.status, CallStatus::RpcError);
    assert_eq!(c.note, "tasks/result: boom");
    assert_eq!(c.end_us, Some(40));
}

#[test]
fn a_failed_task_ends_its_call_with_the_error() {
    let mut s = S::new();
    s.out(
        10,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}),
    );
    s.inn(
        20,
        json!({"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"T","status":"working"}}}),
    );
    s.inn(
        30,
        json!({"jsonrpc":"2.0","method":"notifications/tasks/status",
            "params":{"taskId":"T","status":"failed","error":{"message":"disk\nfull"}}}),
    );
    let calls = s.calls();
    let c = &calls.list[0];
    assert_eq!((c.status, c.end_us), (CallStatus::Failed, Some(30)));
    assert_eq!(c.note, "task failed: disk⏎full");
}

#[test]
fn statuses_and_notes_of_ends() {
    let mut s = S::new();
    for id in 1..=3 {
        s.out(
            id,
            json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"t"}}),
        );
    }
    s.inn(
        10,
        json!({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad\targs"}}),
    );
    s.out(
        11,
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}),
    );
    let calls = s.calls();
    let got: Vec<(CallStatus, &str)> = calls
        .list
        .iter()
        .map(|c| (c.status, c.note.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (CallStatus::RpcError, "bad args"),
            (CallStatus::Cancelled, "user"),
            (CallStatus::Running, ""),
        ]
    );
}
