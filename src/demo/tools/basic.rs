//! The plain tools: `echo` (no progress, ever) and `sleep` (time-based
//! progress in milliseconds).

use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio::time::Instant;

use super::{Args, MAX_MS, Outcome, ToolResult, object_schema, uint_prop};
use crate::demo::call::Call;

const SLEEP_DEFAULT: u64 = 3000;
const TICK: Duration = Duration::from_millis(250);

pub fn echo_schema() -> Value {
    let mut schema = object_schema(vec![(
        "text",
        json!({"type": "string", "description": "Text to echo; any other argument is echoed too."}),
    )]);
    schema["additionalProperties"] = true.into();
    schema
}

pub fn echo(args: &Map<String, Value>) -> Outcome {
    let text = serde_json::to_string(args).unwrap_or_default();
    Outcome::ok(text, Value::Object(args.clone()))
}

pub fn sleep_schema() -> Value {
    object_schema(vec![(
        "ms",
        uint_prop(
            "How long to sleep in milliseconds.",
            SLEEP_DEFAULT,
            0,
            MAX_MS,
        ),
    )])
}

pub async fn sleep(call: &Call, args: &Args<'_>) -> ToolResult {
    let ms = args.uint("ms", SLEEP_DEFAULT, 0, MAX_MS)?;
    let start = Instant::now();
    let end = start + Duration::from_millis(ms);
    loop {
        let now = Instant::now();
        if now >= end {
            break;
        }
        let elapsed = (now - start).as_millis() as u64;
        call.progress(elapsed, Some(ms), format!("Sleeping: {elapsed} of {ms} ms"));
        tokio::time::sleep_until(end.min(now + TICK)).await;
    }
    call.progress(ms, Some(ms), format!("Sleeping: {ms} of {ms} ms"));
    Ok(Outcome::ok(
        format!("Slept {ms} ms"),
        json!({"slept_ms": ms}),
    ))
}
