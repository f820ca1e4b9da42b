//! End to end in tmux: the real binary against server-everything and the
//! demo server. `simulate-research-query` (taskSupport required) runs as a
//! task and its gauge follows the task's status to completed; its
//! ambiguous variant goes `input_required` and the clarification is answered
//! through the form; a task is cancelled from the Progress pane; a
//! 2026-07-28 `input_required` result is answered through the form and
//! retried. Synchronisation is by polling the screen with a deadline.

use crate::common::BIN;
use crate::common::tmux::{Tmux, require_tmux};
use std::process::Command;

fn research(trace: &std::path::Path, args: &str) -> String {
    format!(
        "--record '{}' --run 'simulate-research-query {args}' -- '{}' stdio",
        trace.display(),
        crate::common::everything().display()
    )
}

/// The text of the tool result in the trace.
fn result_text(trace: &std::path::Path) -> String {
    crate::common::trace_lines(trace)
        .iter()
        .filter(|l| l["dir"] == "in")
        .filter_map(|l| {
            l["json"]["result"]["content"][0]["text"]
                .as_str()
                .map(str::to_string)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
#[ignore = "needs tmux and test peers: bash tests/peers/install.sh"]
fn a_task_required_tool_runs_as_a_task_and_its_gauge_reaches_completed() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let t = Tmux::start_cmd("run", &research(&trace, r#"{"topic": "rust"}"#));
    t.wait_for("the task working", 30, |s| {
        s.contains("simulate-research-query") && s.contains("… working") && s.contains("...")
    });
    let screen = t.wait_for("the task completed", 30, |s| {
        s.contains("… completed  done in")
    });
    assert_eq!(
        screen.matches("simulate-research-query  id").count(),
        1,
        "one gauge: {screen}"
    );
    t.quit();
    let lines = crate::common::trace_lines(&trace);
    let call = crate::common::frames(&lines, "out", "tools/call")
        .next()
        .unwrap();
    assert!(call["params"]["task"].is_object(), "{call}");
    assert!(crate::common::frames(&lines, "out", "tasks/get").count() >= 1);
    assert_eq!(
        crate::common::frames(&lines, "out", "tasks/result").count(),
        1
    );
    assert!(result_text(&trace).contains("# Research Report: rust"));
}

#[test]
#[ignore = "needs tmux and test peers: bash tests/peers/install.sh"]
fn a_task_in_input_required_is_answered_through_the_form() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let t = Tmux::start_cmd(
        "ask",
        &research(&trace, r#"{"topic": "rust", "ambiguous": true}"#),
    );
    t.wait_for("the task asking", 30, |s| {
        s.contains("… input_required") && s.contains("⚑ 1 waiting (elicitation/create")
    });
    t.keys(&["A"]);
    t.wait_for("the clarification form", 10, |s| {
        s.contains("elicitation/create #") && s.contains("· task ") && s.contains("Clarification")
    });
    // The second interpretation: historical.
    t.keys(&["Right", "Right", "Enter"]);
    t.wait_for("the task completed", 30, |s| {
        s.contains("… completed  done in")
    });
    t.quit();
    assert!(
        result_text(&trace).contains("**Clarification**: historical"),
        "{}",
        result_text(&trace)
    );
}

#[test]
#[ignore = "needs tmux and test peers: bash tests/peers/install.sh"]
fn a_task_is_cancelled_from_the_progress_pane() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let t = Tmux::start_cmd("cancel", &research(&trace, r#"{"topic": "rust"}"#));
    t.wait_for("the task working", 30, |s| s.contains("… working"));
    t.keys(&["1", "c"]);
    t.wait_for("the task cancelled", 20, |s| {
        s.contains("… cancelled  cancelled in") && s.contains("0 in flight")
    });
    t.quit();
    let lines = crate::common::trace_lines(&trace);
    let cancel = crate::common::frames(&lines, "out", "tasks/cancel")
        .next()
        .expect("tasks/cancel");
    let call_answer = lines
        .iter()
        .find(|l| l["dir"] == "in" && l["json"]["result"]["task"].is_object())
        .unwrap();
    assert_eq!(
        cancel["params"]["taskId"],
        call_answer["json"]["result"]["task"]["taskId"]
    );
}

#[test]
#[ignore = "needs tmux"]
fn a_stateless_input_required_result_is_answered_through_the_form() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("m.jsonl");
    let t = Tmux::start_cmd(
        "modern",
        &format!(
            "--protocol modern --record '{}' --run 'test_input_required_result_elicitation {{}}' -- '{BIN}' demo-server --conformance",
            trace.display()
        ),
    );
    t.wait_for("the input required", 30, |s| {
        s.contains("input required in") && s.contains("⚑ 1 waiting (elicitation/create")
    });
    t.keys(&["A"]);
    t.wait_for("the form", 10, |s| s.contains("What is your name?"));
    t.literal("Ada");
    t.keys(&["Enter"]);
    // The retry is the call's next round: its one row ends done.
    t.wait_for("the retry done", 20, |s| {
        s.contains("✓ test_input_required_result_elicitation")
            && s.contains("1 input round: asked · answered · resumed")
    });
    t.quit();
    assert!(
        result_text(&trace).contains("Hello, Ada!"),
        "{}",
        result_text(&trace)
    );
    let lines = crate::common::trace_lines(&trace);
    let retry = crate::common::frames(&lines, "out", "tools/call")
        .nth(1)
        .unwrap();
    assert_eq!(
        retry["params"]["inputResponses"]["user_name"],
        serde_json::json!({"action": "accept", "content": {"name": "Ada"}})
    );
}

#[test]
#[ignore = "needs tmux and test peers: bash tests/peers/install.sh"]
fn a_task_over_streamable_http_answered_while_input_required() {
    require_tmux();
    let preload = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/report_port.cjs");
    let mut cmd = Command::new(crate::common::everything());
    cmd.arg("streamableHttp")
        .env("PORT", "0")
        .env("NODE_OPTIONS", format!("--require {preload}"));
    let (_srv, port) = crate::common::http::start_reporting(cmd);
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("h.jsonl");
    let t = Tmux::start_cmd(
        "http",
        &format!(
            "--url http://127.0.0.1:{port}/mcp --record '{}' --run 'simulate-research-query {{\"topic\": \"http\", \"ambiguous\": true}}'",
            trace.display()
        ),
    );
    t.wait_for("the task asking", 30, |s| {
        s.contains("… input_required") && s.contains("⚑ 1 waiting (elicitation/create")
    });
    t.keys(&["A"]);
    t.wait_for("the clarification form", 10, |s| {
        s.contains("Clarification")
    });
    t.keys(&["Right", "Enter"]);
    t.wait_for("the task completed", 30, |s| {
        s.contains("… completed  done in")
    });
    t.quit();
    assert!(
        result_text(&trace).contains("**Clarification**: technical"),
        "{}",
        result_text(&trace)
    );
}

#[test]
#[ignore = "needs tmux and test peers: bash tests/peers/install.sh"]
fn quitting_cancels_the_tasks_still_running() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let t = Tmux::start_cmd("quit", &research(&trace, r#"{"topic": "rust"}"#));
    t.wait_for("the task working", 30, |s| s.contains("… working"));
    t.quit();
    let lines = crate::common::trace_lines(&trace);
    let created = lines
        .iter()
        .find(|l| l["dir"] == "in" && l["json"]["result"]["task"].is_object())
        .unwrap();
    let cancel = crate::common::frames(&lines, "out", "tasks/cancel")
        .next()
        .expect("tasks/cancel on the way out");
    assert_eq!(
        cancel["params"]["taskId"],
        created["json"]["result"]["task"]["taskId"]
    );
}

#[test]
#[ignore = "needs tmux"]
fn a_2026_task_in_input_required_is_answered_through_the_form_with_tasks_update() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("x.jsonl");
    let t = Tmux::start_cmd(
        "ext",
        &format!(
            "--protocol modern --record '{}' --run 'batch_job {{\"steps\":4,\"step_ms\":100,\"poll_ms\":100,\"confirm\":true}}' -- '{BIN}' demo-server",
            trace.display()
        ),
    );
    t.wait_for("the task waiting for input", 30, |s| {
        s.contains("input_required") && s.contains("⚑ 1 waiting (elicitation/create")
    });
    t.keys(&["A"]);
    t.wait_for("the form", 10, |s| s.contains("Go on with the batch?"));
    t.keys(&["Enter"]);
    let screen = t.wait_for("the task completed", 30, |s| {
        s.contains("completed") && s.contains("done in")
    });
    assert!(!screen.contains("⚑"), "nothing waits any more:\n{screen}");
    t.quit();
    let lines = crate::common::trace_lines(&trace);
    let updates: Vec<&serde_json::Value> =
        crate::common::frames(&lines, "out", "tasks/update").collect();
    assert_eq!(updates.len(), 1, "one tasks/update");
    assert_eq!(
        updates[0]["params"]["inputResponses"]["confirm-1"],
        serde_json::json!({"action": "accept", "content": {"proceed": true}})
    );
    let done = lines
        .iter()
        .filter(|l| l["dir"] == "in")
        .find(|l| l["json"]["result"]["status"] == "completed")
        .expect("the completed task");
    assert_eq!(
        done["json"]["result"]["result"]["content"][0]["text"],
        "Batch done: 4 steps"
    );
    let o = crate::common::run(&[
        "check",
        "--trace",
        trace.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    // The one note of a 2026-07-28 session whose server logs: deprecated.
    let rules: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(rules, ["deprecated-feature"], "{report}");
    assert_eq!(o.code, 0, "{report}");
}
