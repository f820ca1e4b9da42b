//! An input round is one call (2026-07-28): a `tools/call` ending with
//! `resultType: input_required`, retried with `inputResponses` and the
//! echoed `requestState`, is one Progress row and one Scope lane, its
//! rounds shown as steps on it (asked, answered, resumed); the row's status
//! is the final round's.

use crate::support::*;
use mcpscope::calls::input::StepKind;
use mcpscope::protocol::IdKey;
use mcpscope::tui::calls::CallStatus;

/// The demo wizard's two questions, as the TUI's forms answer them: the
/// call, then each `input_required` result answered by a retry under a new
/// id and token, then the result.
fn wizard_rounds() -> Scenario {
    let sc = Scenario::new();
    let meta = |tok: &str| json!({"progressToken": tok, "io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let asks = |step: u64, msg: &str| {
        json!({"jsonrpc": "2.0", "id": "_", "result": {
            "resultType": "input_required",
            "inputRequests": {format!("step-{step}"): {"method": "elicitation/create", "params": {
                "message": msg,
                "requestedSchema": {"type": "object", "properties": {"v": {"type": "string"}}}}}},
            "requestState": format!("state-{step}")}})
    };
    let with_id = |mut v: Value, id: Value| {
        v["id"] = id;
        v
    };
    sc.at_ms(100).out(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "interactive_wizard", "arguments": {"questions": 2}, "_meta": meta("mcpscope-1")}}),
    );
    sc.at_ms(110).progress(
        json!("mcpscope-1"),
        0.0,
        Some(2.0),
        "Step 1 of 2: Project name",
    );
    sc.at_ms(120)
        .inn(with_id(asks(1, "Project name?"), json!(1)));
    sc.at_ms(900).out(
        json!({"jsonrpc": "2.0", "id": "input-1", "method": "tools/call", "params": {
        "name": "interactive_wizard", "arguments": {"questions": 2}, "_meta": meta("input-1"),
        "inputResponses": {"step-1": {"action": "accept", "content": {"v": "gizmo"}}},
        "requestState": "state-1"}}),
    );
    sc.at_ms(910)
        .progress(json!("input-1"), 1.0, Some(2.0), "Step 2 of 2: Visibility");
    sc.at_ms(920)
        .inn(with_id(asks(2, "Who can see it?"), json!("input-1")));
    sc.at_ms(1500).out(
        json!({"jsonrpc": "2.0", "id": "input-2", "method": "tools/call", "params": {
        "name": "interactive_wizard", "arguments": {"questions": 2}, "_meta": meta("input-2"),
        "inputResponses": {"step-2": {"action": "accept", "content": {"v": "public"}}},
        "requestState": "state-2"}}),
    );
    sc.at_ms(1510)
        .progress(json!("input-2"), 2.0, Some(2.0), "Creating the project");
    sc.at_ms(1600)
        .inn(json!({"jsonrpc": "2.0", "id": "input-2", "result": {
        "content": [{"type": "text", "text": "Created project gizmo"}]}}));
    sc.at_ms(2000);
    sc
}

#[test]
fn the_wizards_rounds_are_one_progress_row_with_its_steps() {
    let sc = wizard_rounds();
    let mut app = app(&sc);
    let calls = &app.panes.progress.calls;
    assert_eq!(calls.list.len(), 1, "{:#?}", calls.list);
    let c = &calls.list[0];
    assert_eq!(c.id, IdKey::Int(1));
    assert_eq!(c.status, CallStatus::Done, "the final round's status");
    // Every request of it names the one call.
    for id in [IdKey::Str("input-1".into()), IdKey::Str("input-2".into())] {
        assert_eq!(calls.get(&id).map(|c| c.request_seq), Some(c.request_seq));
    }
    let steps: Vec<StepKind> = c.steps.list.iter().map(|s| s.kind).collect();
    use StepKind::*;
    assert_eq!(
        steps,
        [Asked, Answered, Resumed, Asked, Answered, Resumed],
        "{:?}",
        c.steps
    );
    let screen = render(&mut app, 160, 48);
    let pane = progress_pane(&screen);
    assert!(!pane.contains("input required"), "{screen}");
    assert!(!pane.contains("needs "), "answered: {screen}");
    // One row (the Tools list beside it names the tool too).
    assert_eq!(
        screen.matches("interactive_wizard  id").count(),
        1,
        "{screen}"
    );
    assert!(pane.contains("✓ interactive_wizard  id 1"), "{screen}");
    assert!(
        pane.contains("2 input rounds: asked · answered · resumed"),
        "{screen}"
    );
    // The details list the steps.
    app.apply(Action::FocusProgress);
    app.apply(Action::Details);
    let screen = render(&mut app, 160, 48);
    for step in [
        "round 1 asked",
        "round 1 answered #3 · id \"input-1\"",
        "round 2 answered #6",
    ] {
        assert!(screen.contains(step), "{step}: {screen}");
    }
}

/// The Progress pane's rows: from its title to its bottom border.
fn progress_pane(screen: &str) -> String {
    screen
        .lines()
        .skip_while(|l| !l.contains("Progress ·"))
        .take_while(|l| !l.starts_with('┗') && !l.starts_with('╰'))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_wizards_rounds_are_one_scope_lane() {
    let sc = wizard_rounds();
    let mut app = app(&sc);
    app.apply(Action::FocusScope);
    app.apply(Action::ZoomFit);
    render(&mut app, 160, 48);
    let lanes: Vec<&str> = app
        .panes
        .scope
        .index
        .calls
        .iter()
        .map(|l| l.label.as_str())
        .collect();
    assert_eq!(lanes, ["interactive_wizard #1"]);
    let lane = &app.panes.scope.index.calls[0];
    use mcpscope::tui::panes::scope::index::Mark;
    // Asked twice, answered twice, one end; progress of every round.
    assert_eq!(lane.track(Mark::Ask).t, [120_000, 920_000]);
    assert_eq!(lane.track(Mark::Answer).t, [900_000, 1_500_000]);
    assert_eq!(lane.track(Mark::Response).t, [1_600_000]);
    assert_eq!(lane.track(Mark::Progress).len(), 3);
}

#[test]
fn snapshot_wizard_rounds_at_160x48() {
    let sc = wizard_rounds();
    let mut app = app(&sc);
    app.apply(Action::FocusScope);
    app.apply(Action::ZoomFit);
    insta::assert_snapshot!(render(&mut app, 160, 48));
}

/// The demo's wizard run for real (2026-07-28: each form an
/// `input_required` round answered by the forms and retried): one row in
/// Progress that ends done, one lane in the Scope.
#[test]
#[ignore = "needs tmux"]
fn the_demo_wizard_is_one_row_and_one_lane() {
    use crate::common::tmux::{Tmux, assert_restored, require_tmux};
    require_tmux();
    let t = Tmux::start_sized(
        "rounds",
        r#"demo --run 'interactive_wizard {"questions": 3, "delay_ms": 0}'"#,
        160,
        48,
    );
    for round in 1..=3 {
        // This round's question: the step's progress beside the waiting
        // request (the last round's may still be on screen until its
        // answer is taken, and A then would find nothing to answer).
        t.wait_for(&format!("question {round}"), 30, |s| {
            s.contains("⚑ 1 waiting (elicitation/create")
                && s.contains(&format!("Step {round} of 3"))
        });
        t.keys(&["A"]);
        t.wait_for(&format!("form {round}"), 10, |s| {
            s.contains(&format!("input \"step-{round}\""))
        });
        t.keys(&["Enter"]);
    }
    let screen = t.wait_for("the wizard done", 30, |s| {
        progress_pane(s).contains("✓ interactive_wizard")
    });
    let pane = progress_pane(&screen);
    assert_eq!(
        screen.matches("interactive_wizard  id").count(),
        1,
        "{screen}"
    );
    assert!(!pane.contains("input required"), "{screen}");
    assert!(pane.contains("3 input rounds"), "{screen}");
    // The Scope: one lane for the call and its rounds.
    t.keys(&["9"]);
    // A lane is titled as the Timeline names its call: `#15 interactive_wizard`.
    let lanes = |s: &str| {
        s.lines()
            .filter(|l| l.contains("┃#") && l.contains(" interactive_wizard"))
            .count()
    };
    let screen = t.wait_for("the scope", 10, |s| lanes(s) > 0);
    assert_eq!(lanes(&screen), 1, "{screen}");
    t.keys(&["q"]);
    assert_restored(&t);
}
