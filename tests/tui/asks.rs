//! Server→client requests answered in the TUI: an elicitation form built
//! from `requestedSchema` (field order as the server wrote it, defaults,
//! required fields, validation), URL mode, sampling; the waiting list with
//! its age; snapshots of the overlay at 80×24 and wider.

use crate::support::*;
use mcpscope::client::ServerAsk;
use mcpscope::protocol::IdKey;

fn ask(app: &mut App, sc: &Scenario, id: &str, method: &str, params: Value) -> u64 {
    let text = params.to_string();
    ask_text(app, sc, id, method, &text)
}

/// The request as the server wrote it: the order of its fields is kept.
fn ask_text(app: &mut App, sc: &Scenario, id: &str, method: &str, params: &str) -> u64 {
    let raw = format!(r#"{{"jsonrpc":"2.0","id":{id:?},"method":{method:?},"params":{params}}}"#);
    let params: Value = serde_json::from_str(params).unwrap();
    let seq = sc.raw_in(raw.as_bytes());
    app.on_msg(Msg::ServerAsk(ServerAsk {
        id: IdKey::Str(id.into()),
        seq,
        method: method.into(),
        params,
        raw,
    }));
    seq
}

/// The wizard's first two forms merged: text with a length limit and a
/// default, a required integer with bounds, a boolean, a titled choice,
/// an e-mail, a multi-select. Fields are written out of alphabetical order.
fn form_params() -> &'static str {
    r#"{"message": "New project", "requestedSchema": {"type": "object", "properties": {
            "project_name": {"type": "string", "title": "Project name", "minLength": 1, "maxLength": 12, "default": "demo"},
            "protected_branches": {"type": "integer", "title": "Protected", "minimum": 0, "maximum": 20},
            "readme": {"type": "boolean", "title": "README", "default": true},
            "visibility": {"type": "string", "title": "Visibility", "oneOf": [
                {"const": "private", "title": "Private"}, {"const": "public", "title": "Public"}], "default": "private"},
            "email": {"type": "string", "title": "E-mail", "format": "email"},
            "labels": {"type": "array", "title": "Labels", "items": {"type": "string", "enum": ["bug", "ops", "ui"]}}
        }, "required": ["project_name", "protected_branches"]}}"#
}

fn answer_of(effects: Vec<Effect>) -> (IdKey, Result<Value, (i64, String)>) {
    match effects.as_slice() {
        [Effect::AnswerServer { id, answer }] => (id.clone(), answer.clone()),
        other => panic!("expected one answer, got {other:?}"),
    }
}

#[test]
fn a_form_is_filled_checked_and_sent() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    ask_text(&mut app, &sc, "srv-1", "elicitation/create", form_params());
    // Waiting does not take the keyboard: the overlay opens on request.
    assert!(!app.overlays.asks.open);
    app.apply(Action::AnswerServer);
    assert!(app.overlays.asks.open);
    {
        let mcpscope::tui::overlays::asks::AskKind::Form(f) = &app.overlays.asks.waiting[0].kind
        else {
            panic!("a form")
        };
        let keys: Vec<&str> = f.fields.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "project_name",
                "protected_branches",
                "readme",
                "visibility",
                "email",
                "labels"
            ],
            "the server's order"
        );
    }
    // The required integer is empty: accept is refused, the problem shown.
    assert!(key(&mut app, KeyCode::Enter).is_empty());
    let mcpscope::tui::overlays::asks::AskKind::Form(f) = &app.overlays.asks.waiting[0].kind else {
        unreachable!()
    };
    assert_eq!(f.problems, ["Protected: required"]);

    key(&mut app, KeyCode::Backspace); // "demo" → "dem"
    typed(&mut app, "o-x");
    key(&mut app, KeyCode::Down);
    typed(&mut app, "25"); // above the maximum
    assert!(key(&mut app, KeyCode::Enter).is_empty());
    key(&mut app, KeyCode::Backspace);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Char(' ')); // README off
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Right); // public
    key(&mut app, KeyCode::Down);
    typed(&mut app, "not-an-email");
    assert!(key(&mut app, KeyCode::Enter).is_empty());
    for _ in 0.."not-an-email".len() {
        key(&mut app, KeyCode::Backspace);
    }
    typed(&mut app, "a@b.io");
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Right);
    key(&mut app, KeyCode::Char(' ')); // "ops"
    let (id, answer) = answer_of(key(&mut app, KeyCode::Enter));
    assert_eq!(id, IdKey::Str("srv-1".into()));
    assert_eq!(
        answer.unwrap(),
        json!({"action": "accept", "content": {
            "project_name": "demo-x", "protected_branches": 2, "readme": false,
            "visibility": "public", "email": "a@b.io", "labels": ["ops"]}})
    );
    assert!(app.overlays.asks.waiting.is_empty());
    assert!(!app.overlays.asks.open);
}

#[test]
fn decline_cancel_and_later() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    ask_text(&mut app, &sc, "a", "elicitation/create", form_params());
    ask_text(&mut app, &sc, "b", "elicitation/create", form_params());
    app.apply(Action::AnswerServer);
    key(&mut app, KeyCode::Esc);
    assert!(!app.overlays.asks.open, "Esc hides it");
    assert_eq!(app.overlays.asks.waiting.len(), 2, "still waiting");
    app.apply(Action::AnswerServer);
    let (id, answer) = answer_of(ctrl(&mut app, 'n'));
    assert_eq!(
        (id, answer.unwrap()),
        (IdKey::Str("a".into()), json!({"action": "decline"}))
    );
    assert!(app.overlays.asks.open, "the next one is shown");
    let (id, answer) = answer_of(ctrl(&mut app, 'x'));
    assert_eq!(
        (id, answer.unwrap()),
        (IdKey::Str("b".into()), json!({"action": "cancel"}))
    );
    assert!(!app.overlays.asks.open);
    app.apply(Action::AnswerServer);
    assert!(!app.overlays.asks.open, "nothing to open");
}

#[test]
fn url_mode_and_sampling() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    ask(
        &mut app,
        &sc,
        "u",
        "elicitation/create",
        json!({"mode": "url", "url": "https://example.com/auth?x=1", "message": "Sign in",
               "elicitationId": "e1"}),
    );
    app.apply(Action::AnswerServer);
    assert_eq!(
        key(&mut app, KeyCode::Char('o')),
        [Effect::OpenUrl("https://example.com/auth?x=1".into())]
    );
    let (_, answer) = answer_of(key(&mut app, KeyCode::Enter));
    assert_eq!(answer.unwrap(), json!({"action": "accept"}));

    ask(
        &mut app,
        &sc,
        "s",
        "sampling/createMessage",
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Say hi"}}],
               "systemPrompt": "Be brief.", "maxTokens": 50}),
    );
    app.apply(Action::AnswerServer);
    typed(&mut app, "Hi");
    key(&mut app, KeyCode::Enter); // a new line in the reply, not a send
    typed(&mut app, "there");
    let (_, answer) = answer_of(ctrl(&mut app, 's'));
    let r = answer.unwrap();
    assert_eq!(r["content"]["text"], "Hi\nthere");
    assert_eq!(r["role"], "assistant");

    ask(
        &mut app,
        &sc,
        "s2",
        "sampling/createMessage",
        json!({"messages": []}),
    );
    app.apply(Action::AnswerServer);
    let (_, answer) = answer_of(ctrl(&mut app, 'n'));
    assert_eq!(answer.unwrap_err().0, -1);
}

#[test]
fn a_schema_outside_the_spec_can_only_be_declined() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    ask(
        &mut app,
        &sc,
        "n",
        "elicitation/create",
        json!({"message": "m", "requestedSchema": {"properties": {"x": {"type": "object"}}}}),
    );
    app.apply(Action::AnswerServer);
    assert!(key(&mut app, KeyCode::Enter).is_empty());
    let (_, answer) = answer_of(ctrl(&mut app, 'n'));
    assert_eq!(answer.unwrap(), json!({"action": "decline"}));
}

#[test]
fn snapshot_form_at_80x24() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    sc.at_ms(1000);
    ask_text(&mut app, &sc, "srv-1", "elicitation/create", form_params());
    sc.at_ms(4000);
    let waiting = render(&mut app, 80, 24);
    assert!(
        waiting.contains("⚑ 1 waiting (elicitation/create 3s)"),
        "{waiting}"
    );
    app.apply(Action::AnswerServer);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    insta::assert_snapshot!(render(&mut app, 80, 24));
}

#[test]
fn snapshot_sampling_at_100x30() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    ask(
        &mut app,
        &sc,
        "s",
        "sampling/createMessage",
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Summarise the release notes"}}],
               "systemPrompt": "You are a helpful test server.", "maxTokens": 100,
               "modelPreferences": {"hints": [{"name": "claude"}], "speedPriority": 0.5}}),
    );
    app.apply(Action::AnswerServer);
    typed(&mut app, "Three fixes.");
    insta::assert_snapshot!(render(&mut app, 100, 30));
}

#[test]
fn roots_are_edited_and_offered() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    app.on_msg(Msg::Roots(vec!["file:///work".into()]));
    app.apply(Action::EditRoots);
    assert!(app.overlays.asks.roots_editor.is_some());
    insta::assert_snapshot!(render(&mut app, 80, 24));
    key(&mut app, KeyCode::Enter);
    typed(&mut app, "/tmp/project");
    key(&mut app, KeyCode::Enter); // a blank line is dropped
    assert_eq!(
        ctrl(&mut app, 's'),
        [Effect::SetRoots(vec![
            "file:///work".into(),
            "/tmp/project".into()
        ])]
    );
    assert!(app.overlays.asks.roots_editor.is_none());
    // Esc drops an edit.
    app.apply(Action::EditRoots);
    typed(&mut app, "x");
    assert!(key(&mut app, KeyCode::Esc).is_empty());
    assert_eq!(app.overlays.asks.roots, ["file:///work", "/tmp/project"]);
}

#[test]
fn a_withdrawn_request_leaves_the_queue() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    ask_text(&mut app, &sc, "srv-7", "elicitation/create", form_params());
    ask_text(&mut app, &sc, "srv-8", "elicitation/create", form_params());
    app.apply(Action::AnswerServer);
    sc.inn(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": "srv-7", "reason": "the call was cancelled"}}),
    );
    app.sync();
    assert_eq!(app.overlays.asks.waiting.len(), 1);
    assert_eq!(app.overlays.asks.waiting[0].id, IdKey::Str("srv-8".into()));
    assert!(app.overlays.asks.open, "the next one is shown");
    sc.inn(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": "srv-8"}}),
    );
    app.sync();
    assert!(app.overlays.asks.waiting.is_empty());
    assert!(!app.overlays.asks.open);
}

#[test]
fn a_call_waiting_for_the_users_answer_says_so_and_is_not_stale() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    sc.at_ms(0);
    sc.call(
        1,
        "interactive_wizard",
        json!({"questions": 2}),
        Some(json!("w1")),
    );
    sc.at_ms(500);
    sc.progress(json!("w1"), 0.0, Some(2.0), "step 1 of 2");
    sc.at_ms(1000);
    ask_text(&mut app, &sc, "srv-1", "elicitation/create", form_params());
    // Long past the staleness threshold: the user is filling the form.
    sc.at_ms(21_000);
    let screen = render(&mut app, 160, 48);
    assert!(
        screen.contains("⏸ waiting for your answer — A (20.0s)"),
        "{screen}"
    );
    assert!(!screen.contains("stale"), "{screen}");
}

/// At 80×24 a form whose choices take more than a line lists them on the
/// lines below, each label whole; a long message wraps instead of running
/// off the overlay.
#[test]
fn a_forms_choices_and_message_fit_the_terminal_uncut() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    let params = json!({"message": "Pick the region the new project's runners and caches live in, then confirm the ENDOFMESSAGE",
        "requestedSchema": {"type": "object", "properties": {
        "region": {"type": "string", "title": "Region", "oneOf": [
            {"const": "a", "title": "Europe West (Frankfurt)"},
            {"const": "b", "title": "Europe North (Stockholm)"},
            {"const": "c", "title": "US East (Virginia)"},
            {"const": "d", "title": "Asia Pacific (Singapore)"}]}
    }}});
    ask(&mut app, &sc, "srv-1", "elicitation/create", params);
    app.apply(Action::AnswerServer);
    let screen = render(&mut app, 80, 24);
    for label in [
        "Europe West (Frankfurt)",
        "Europe North (Stockholm)",
        "US East (Virginia)",
        "Asia Pacific (Singapore)",
    ] {
        assert!(screen.contains(label), "{label} cut:\n{screen}");
    }
    assert!(screen.contains("ENDOFMESSAGE"), "{screen}");
}
