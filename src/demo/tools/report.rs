//! `build_report`: per-task progress plus `notifications/message` logs from
//! the "tracker" logger at every interesting level (debug, info, notice,
//! warning, error), so level filtering can be watched. The error is logged,
//! not returned: the run still succeeds.

use serde_json::json;

use super::{Args, MAX_MS, Outcome, ToolResult, object_schema, pause, uint_prop};
use crate::demo::call::Call;
use crate::demo::session::Level;

const LOGGER: &str = "tracker";
const TASKS_DEFAULT: u64 = 5;
const DELAY_DEFAULT: u64 = 600;
const MAX_TASKS: u64 = 100_000;

const TASK_NAMES: [&str; 6] = [
    "Resolve dependencies",
    "Compile sources",
    "Run unit tests",
    "Run integration tests",
    "Package artifacts",
    "Publish report",
];

pub fn schema() -> serde_json::Value {
    object_schema(vec![
        (
            "tasks",
            uint_prop("Number of tasks.", TASKS_DEFAULT, 1, MAX_TASKS),
        ),
        (
            "delay_ms",
            uint_prop("Time per task in milliseconds.", DELAY_DEFAULT, 0, MAX_MS),
        ),
    ])
}

pub async fn run(call: &Call, args: &Args<'_>) -> ToolResult {
    let tasks = args.uint("tasks", TASKS_DEFAULT, 1, MAX_TASKS)?;
    let delay = args.uint("delay_ms", DELAY_DEFAULT, 0, MAX_MS)?;
    // Which tasks get the warning and the error, even when there are few.
    let warn_at = tasks.min(2);
    let error_at = tasks.min(4);
    for i in 1..=tasks {
        let name = TASK_NAMES[((i - 1) % TASK_NAMES.len() as u64) as usize];
        call.log(
            Level::Debug,
            LOGGER,
            format!("Starting task {i}/{tasks}: {name}"),
        );
        pause(delay).await;
        if i == warn_at {
            call.log(
                Level::Warning,
                LOGGER,
                format!("Task {i}/{tasks}: 2 flaky tests needed a retry"),
            );
        }
        if i == error_at {
            call.log(
                Level::Error,
                LOGGER,
                format!("Task {i}/{tasks}: coverage upload failed (non-fatal, continuing)"),
            );
        }
        call.progress(i, Some(tasks), format!("Task {i}/{tasks}: {name}"));
        call.log(
            Level::Info,
            LOGGER,
            format!("Finished task {i}/{tasks}: {name}"),
        );
    }
    call.log(
        Level::Notice,
        LOGGER,
        format!("Build report ready: {tasks} tasks, 1 warning, 1 non-fatal error"),
    );
    Ok(Outcome::ok(
        format!("Build report: {tasks}/{tasks} tasks passed, 1 warning, 1 non-fatal error"),
        json!({"tasks": tasks, "passed": tasks, "warnings": 1, "errors": 1}),
    ))
}
