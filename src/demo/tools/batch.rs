//! `batch_job`: a batch of steps that, in the 2026-07-28 era, runs as a task
//! of the tasks extension when the request declares it (see
//! `demo::ext_tasks`); otherwise it runs inline with progress per step. The
//! plan and the result are shared by both ways of running it.

use serde_json::{Value, json};

use super::{ArgError, Args, MAX_MS, Outcome, ToolResult, object_schema, pause, uint_prop};
use crate::demo::call::Call;

const STEPS_DEFAULT: u64 = 5;
const STEP_MS_DEFAULT: u64 = 300;
const POLL_MS_DEFAULT: u64 = 200;

/// What one run does.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub steps: u64,
    pub step_ms: u64,
    /// Ask once, halfway, whether to go on (an elicitation form).
    pub confirm: bool,
    /// End with a JSON-RPC error instead of a result (a `failed` task).
    pub fail: bool,
    /// The task's `pollIntervalMs` hint.
    pub poll_ms: u64,
}

impl Plan {
    pub fn parse(args: &Args<'_>) -> Result<Plan, ArgError> {
        Ok(Plan {
            steps: args.uint("steps", STEPS_DEFAULT, 1, 1000)?,
            step_ms: args.uint("step_ms", STEP_MS_DEFAULT, 0, MAX_MS)?,
            confirm: args.boolean("confirm", false)?,
            fail: args.boolean("fail", false)?,
            poll_ms: args.uint("poll_ms", POLL_MS_DEFAULT, 1, MAX_MS)?,
        })
    }

    /// The step before which the confirmation is asked.
    pub fn ask_before(&self) -> u64 {
        self.steps.div_ceil(2)
    }

    pub fn status(&self, done: u64) -> String {
        format!("step {done} of {}", self.steps)
    }
}

pub fn schema() -> Value {
    object_schema(vec![
        ("steps", uint_prop("Steps to run.", STEPS_DEFAULT, 1, 1000)),
        (
            "step_ms",
            uint_prop("Time per step in milliseconds.", STEP_MS_DEFAULT, 0, MAX_MS),
        ),
        (
            "confirm",
            json!({"type": "boolean", "default": false,
                   "description": "Ask once, halfway, whether to go on (an elicitation form)."}),
        ),
        (
            "fail",
            json!({"type": "boolean", "default": false,
                   "description": "End with a JSON-RPC error (a failed task) instead of a result."}),
        ),
        (
            "poll_ms",
            uint_prop(
                "The pollIntervalMs hint of the task, when it runs as one.",
                POLL_MS_DEFAULT,
                1,
                MAX_MS,
            ),
        ),
    ])
}

/// The confirmation form (`elicitation/create` params).
pub fn confirm_request(plan: &Plan) -> Value {
    json!({
        "mode": "form",
        "message": format!("{} of {} steps are done. Go on with the batch?", plan.ask_before() - 1, plan.steps),
        "requestedSchema": {
            "type": "object",
            "properties": {
                "proceed": {"type": "boolean", "title": "Go on", "default": true},
                "note": {"type": "string", "title": "Note for the log", "maxLength": 200},
            },
            "required": ["proceed"],
        },
    })
}

/// Whether an `ElicitResult` says to go on, and the note it carries.
pub fn confirmed(answer: &Value) -> (bool, Option<String>) {
    let accepted = answer.get("action").and_then(Value::as_str) == Some("accept");
    let content = answer.get("content");
    let proceed = content
        .and_then(|c| c.get("proceed"))
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let note = content
        .and_then(|c| c.get("note"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    (accepted && proceed, note)
}

/// The result once every step ran (or the run stopped at the question).
pub fn outcome(plan: &Plan, done: u64, note: Option<String>) -> Outcome {
    if done < plan.steps {
        return Outcome {
            structured: Some(json!({"steps": plan.steps, "done": done, "stopped": true})),
            ..Outcome::error(format!(
                "Batch stopped after {done} of {} steps: not confirmed",
                plan.steps
            ))
        };
    }
    let mut structured = json!({"steps": plan.steps, "done": done});
    if let Some(n) = &note {
        structured["note"] = json!(n);
    }
    Outcome::ok(
        format!(
            "Batch done: {done} steps{}",
            note.map(|n| format!(" ({n})")).unwrap_or_default()
        ),
        structured,
    )
}

/// The JSON-RPC error of a run asked to fail.
pub fn failure(plan: &Plan) -> Value {
    json!({"code": -32603, "message": format!("batch failed after {} steps (fail=true)", plan.steps)})
}

/// Inline: progress per step; the question is asked only where the
/// session can carry it (elicitation declared in a handshake session).
pub async fn run(call: &Call, args: &Args<'_>) -> ToolResult {
    let plan = Plan::parse(args)?;
    let mut note = None;
    for step in 1..=plan.steps {
        if plan.confirm && step == plan.ask_before() && call.supports_elicitation() {
            let answer = call
                .elicit(confirm_request(&plan))
                .await
                .unwrap_or(Value::Null);
            let (go, n) = confirmed(&answer);
            if !go {
                return Ok(outcome(&plan, step - 1, None));
            }
            note = n;
        }
        pause(plan.step_ms).await;
        call.progress(step, Some(plan.steps), plan.status(step));
    }
    if plan.fail {
        return Ok(Outcome::error(
            failure(&plan)["message"].as_str().unwrap_or_default(),
        ));
    }
    Ok(outcome(&plan, plan.steps, note))
}
