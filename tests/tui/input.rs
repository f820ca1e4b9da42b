//! `input_required` results (2026-07-28) answered through the forms: each
//! entry of `inputRequests` waits like a server request (elicitation form,
//! sampling reply, roots), and the retry — original name and arguments,
//! `inputResponses`, the echoed `requestState`, a new id — goes out once
//! the last one is answered. A round the forms cannot finish is left to
//! the composer's retry; a retry composed by hand withdraws the forms; a
//! replay offers nothing. A server request tied to a task names it.

use crate::support::*;
use mcpscope::calls::input::StepKind;
use mcpscope::client::ServerAsk;
use mcpscope::protocol::IdKey;
use mcpscope::tui::calls::CallStatus;
use mcpscope::tui::overlays::asks::Route;

/// A stateless-era call whose result asks for `requests`.
fn asking(requests: Value) -> Scenario {
    let sc = Scenario::new();
    sc.at_ms(10).out(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "interactive_wizard", "arguments": {"questions": 2},
        "_meta": {"progressToken": "mcpscope-1", "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}));
    sc.at_ms(12).inn(json!({"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required", "inputRequests": requests, "requestState": "opaque-state-1"}}));
    sc.at_ms(20);
    sc
}

fn project_and_roots() -> Scenario {
    asking(json!({
        "project": {"method": "elicitation/create", "params": {
            "message": "Project name?",
            "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string"},
                "visibility": {"type": "string", "enum": ["private", "public"], "default": "private"}},
                "required": ["name"]}}},
        "where": {"method": "roots/list", "params": {}}
    }))
}

fn live(sc: &Scenario) -> App {
    let mut app = app(sc);
    app.on_msg(Msg::Roots(vec!["file:///srv/project".into()]));
    app.sync();
    app
}

#[test]
fn the_forms_answer_an_input_required_result_and_the_retry_goes_out() {
    let sc = project_and_roots();
    let mut app = live(&sc);
    let routes: Vec<&Route> = app.overlays.asks.waiting.iter().map(|a| &a.route).collect();
    assert_eq!(
        routes,
        [
            &Route::Input {
                call: IdKey::Int(1),
                key: "project".into()
            },
            &Route::Input {
                call: IdKey::Int(1),
                key: "where".into()
            },
        ]
    );
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains("⚑ 2 waiting (elicitation/create"),
        "{screen}"
    );
    // The composer's retry stays offered beside the forms.
    assert!(screen.contains("a answers it"), "{screen}");

    app.apply(Action::AnswerServer);
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains("elicitation/create #1 · input \"project\" for id 1"),
        "{screen}"
    );
    // Required field empty: refused, nothing sent.
    assert!(key(&mut app, KeyCode::Enter).is_empty());
    assert_eq!(app.overlays.asks.waiting.len(), 2);
    typed(&mut app, "gizmo");
    assert!(
        key(&mut app, KeyCode::Enter).is_empty(),
        "one answer still missing"
    );
    assert_eq!(
        app.shell.notice.as_deref(),
        Some("project answered; 1 more for id 1 before the retry")
    );

    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains("roots/list #1 · input \"where\" for id 1"),
        "{screen}"
    );
    assert!(screen.contains("file:///srv/project"), "{screen}");
    let effects = key(&mut app, KeyCode::Enter);
    assert_eq!(
        effects,
        vec![Effect::Raw {
            id: Some(IdKey::Str("input-1".into())),
            method: "tools/call".into(),
            params: Some(json!({
                "name": "interactive_wizard",
                "arguments": {"questions": 2},
                "_meta": {"progressToken": "input-1"},
                "inputResponses": {
                    "project": {"action": "accept", "content": {"name": "gizmo", "visibility": "private"}},
                    "where": {"roots": [{"uri": "file:///srv/project"}]}
                },
                "requestState": "opaque-state-1"
            })),
            limits: mcpscope::client::Limits {
                idle: Some(std::time::Duration::from_secs(60)),
                max: Some(std::time::Duration::from_secs(600)),
            },
        }]
    );
    assert!(app.overlays.asks.waiting.is_empty());
    assert!(!app.overlays.asks.open);
    assert_eq!(
        app.shell.notice.as_deref(),
        Some("answered: id 1 retried with its inputs")
    );

    // The retry is the call's next round, marked as the answer; its own
    // input_required is offered in turn.
    sc.at_ms(30).out(json!({"jsonrpc": "2.0", "id": "input-1", "method": "tools/call", "params": {
        "name": "interactive_wizard", "arguments": {"questions": 2}, "_meta": {"progressToken": "input-1"},
        "inputResponses": {}, "requestState": "opaque-state-1"}}));
    sc.at_ms(32).inn(json!({"jsonrpc": "2.0", "id": "input-1", "result": {
        "resultType": "input_required", "requestState": "opaque-state-2",
        "inputRequests": {"step2": {"method": "elicitation/create", "params": {"message": "Colour?",
            "requestedSchema": {"type": "object", "properties": {"color": {"type": "string"}}}}}}}}));
    app.sync();
    assert_eq!(app.panes.progress.calls.list.len(), 1, "one call");
    let first = app.panes.progress.calls.get(&IdKey::Int(1)).unwrap();
    let answered: Vec<Option<&IdKey>> = first
        .steps
        .list
        .iter()
        .filter(|s| s.kind == StepKind::Answered)
        .map(|s| s.by.as_ref())
        .collect();
    assert_eq!(answered, [Some(&IdKey::Str("input-1".into()))]);
    assert_eq!(first.status, CallStatus::InputRequired, "the final round's");
    assert_eq!(
        first.input.as_ref().unwrap().request_state,
        Some(json!("opaque-state-2"))
    );
    assert_eq!(app.overlays.asks.waiting.len(), 1);
    app.apply(Action::AnswerServer);
    typed(&mut app, "teal");
    match &key(&mut app, KeyCode::Enter)[..] {
        [
            Effect::Raw {
                id,
                params: Some(p),
                ..
            },
        ] => {
            assert_eq!(id, &Some(IdKey::Str("input-2".into())));
            assert_eq!(p["requestState"], "opaque-state-2");
            assert_eq!(p["inputResponses"]["step2"]["content"]["color"], "teal");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_declined_sampling_request_leaves_the_retry_to_the_composer() {
    let sc = asking(json!({
        "greeting": {"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}], "maxTokens": 5}},
        "user_name": {"method": "elicitation/create", "params": {"message": "Name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}
    }));
    let mut app = live(&sc);
    assert_eq!(app.overlays.asks.waiting.len(), 2);
    app.apply(Action::AnswerServer);
    assert!(ctrl(&mut app, 'n').is_empty());
    assert!(
        app.overlays.asks.waiting.is_empty(),
        "the rest of the round went too"
    );
    let notice = app.shell.notice.clone().unwrap();
    assert!(
        notice.starts_with(
            "interactive_wizard (id 1) is not retried: greeting has no answer to send"
        ),
        "{notice}"
    );
    assert!(
        notice.ends_with("a in Progress composes the retry by hand"),
        "{notice}"
    );
    // Offered once only.
    app.sync();
    assert!(app.overlays.asks.waiting.is_empty());
    // The composer's retry still works.
    app.apply(Action::FocusProgress);
    app.apply(Action::AnswerInput);
    assert!(app.panes.composer.raw_mode);
}

#[test]
fn a_sampling_reply_and_an_elicitation_decline_complete_a_round() {
    let sc = asking(json!({
        "greeting": {"method": "sampling/createMessage", "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}], "maxTokens": 5}},
        "user_name": {"method": "elicitation/create", "params": {"message": "Name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}
    }));
    let mut app = live(&sc);
    app.apply(Action::AnswerServer);
    typed(&mut app, "hi!");
    assert!(ctrl(&mut app, 's').is_empty());
    match &ctrl(&mut app, 'n')[..] {
        [
            Effect::Raw {
                params: Some(p), ..
            },
        ] => {
            assert_eq!(p["inputResponses"]["greeting"]["content"]["text"], "hi!");
            assert_eq!(
                p["inputResponses"]["user_name"],
                json!({"action": "decline"})
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_retry_composed_by_hand_withdraws_the_forms() {
    let sc = project_and_roots();
    let mut app = live(&sc);
    assert_eq!(app.overlays.asks.waiting.len(), 2);
    sc.at_ms(40).out(
        json!({"jsonrpc": "2.0", "id": "answer-1", "method": "tools/call", "params": {
        "name": "interactive_wizard", "arguments": {"questions": 2},
        "inputResponses": {"project": {"action": "decline"}, "where": {"roots": []}},
        "requestState": "opaque-state-1"}}),
    );
    app.sync();
    assert!(app.overlays.asks.waiting.is_empty());
}

#[test]
fn a_replay_offers_no_forms() {
    let sc = project_and_roots();
    let opts = AppOptions {
        live: false,
        ..AppOptions::default()
    };
    let mut app = App::new(sc.trace.clone(), opts);
    app.sync();
    assert!(app.overlays.asks.waiting.is_empty());
}

#[test]
fn a_server_request_for_a_task_names_it() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    let params = json!({"message": "Which one?", "requestedSchema": {"type": "object",
        "properties": {"interpretation": {"type": "string", "enum": ["a", "b"]}}},
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "7f3a9c2e-51b4-4f0e-9d1a-0c6b8e2f4a11"}}});
    let raw = json!({"jsonrpc": "2.0", "id": 0, "method": "elicitation/create", "params": params})
        .to_string();
    let seq = sc.raw_in(raw.as_bytes());
    app.on_msg(Msg::ServerAsk(ServerAsk {
        id: IdKey::Int(0),
        seq,
        method: "elicitation/create".into(),
        params,
        raw,
    }));
    app.apply(Action::AnswerServer);
    let screen = render(&mut app, 100, 30);
    assert!(
        screen.contains(&format!("elicitation/create #{seq} · task 7f3a9c2e… · 0s")),
        "{screen}"
    );
}

#[test]
fn snapshot_roots_input_at_80x24() {
    let sc = project_and_roots();
    let mut app = live(&sc);
    app.apply(Action::AnswerServer);
    typed(&mut app, "gizmo");
    key(&mut app, KeyCode::Enter);
    insta::assert_snapshot!(render(&mut app, 80, 24));
}

#[test]
fn the_requests_wait_in_the_order_the_server_wrote_them() {
    let sc = Scenario::new();
    sc.at_ms(10).out(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "echo", "arguments": {}}}),
    );
    sc.at_ms(12).raw_in(
        br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"zeta":{"method":"elicitation/create","params":{"message":"Name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}},"alpha":{"method":"roots/list","params":{}}}}}"#,
    );
    let app = live(&sc);
    let keys: Vec<String> = app
        .overlays
        .asks
        .waiting
        .iter()
        .map(|a| match &a.route {
            Route::Input { key, .. } => key.clone(),
            Route::Server => panic!("a server request"),
        })
        .collect();
    assert_eq!(keys, ["zeta", "alpha"]);
}

#[test]
fn open_rounds_are_bounded_and_the_rest_is_left_to_the_composer() {
    use mcpscope::tui::input_rounds::MAX_ROUNDS;
    let sc = Scenario::new();
    for i in 1..=MAX_ROUNDS as i64 + 1 {
        sc.at_ms(10 * i as u64)
            .out(json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
            "params": {"name": "echo", "arguments": {}}}));
        sc.inn(json!({"jsonrpc": "2.0", "id": i, "result": {"resultType": "input_required",
            "inputRequests": {"name": {"method": "elicitation/create", "params": {"message": "Name?",
                "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}}}}}}}));
    }
    let app = live(&sc);
    assert_eq!(app.overlays.asks.waiting.len(), MAX_ROUNDS);
    assert_eq!(
        app.shell.notice.as_deref(),
        Some(&*format!(
            "the server needs input ({MAX_ROUNDS} requests) — A to answer; 1 call more wait for a in Progress (too much is open)"
        ))
    );
    let last = app
        .panes
        .progress
        .calls
        .get(&IdKey::Int(MAX_ROUNDS as i64 + 1))
        .unwrap();
    assert!(
        last.input.as_ref().unwrap().offered,
        "offered once, to the composer"
    );
}
