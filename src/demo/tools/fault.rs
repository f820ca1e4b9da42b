//! `fault_*` tools: each deliberately breaks one rule of the protocol (or of
//! good practice) so `mcpscope check` and its tests can watch it being caught.
//! They bypass the call's rate limiter and log filter by writing raw lines;
//! tools that need a progress token send nothing when the request had none,
//! like a correct server, except `fault_unknown_token`.

use std::time::Duration;

use serde_json::{Value, json};

use super::{Args, MAX_MS, Outcome, ToolResult, object_schema, pause, uint_prop};
use crate::demo::call::Call;
use crate::demo::out::{line, notification_line, response_line};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    NotIncreasing,
    AfterResponse,
    UnknownToken,
    InvalidParams,
    ExceedsTotal,
    TotalChanged,
    Flood,
    Buffered,
    Stall,
    LogBelowLevel,
    LogInvalidLevel,
    StdoutGarbage,
    NotJsonRpc,
    DuplicateResponse,
    UnknownResponse,
    Crash,
    Hang,
}

const DELAY_DEFAULT: u64 = 20;

impl Fault {
    pub fn name(self) -> &'static str {
        match self {
            Fault::NotIncreasing => "fault_not_increasing",
            Fault::AfterResponse => "fault_after_response",
            Fault::UnknownToken => "fault_unknown_token",
            Fault::InvalidParams => "fault_invalid_params",
            Fault::ExceedsTotal => "fault_exceeds_total",
            Fault::TotalChanged => "fault_total_changed",
            Fault::Flood => "fault_flood",
            Fault::Buffered => "fault_buffered",
            Fault::Stall => "fault_stall",
            Fault::LogBelowLevel => "fault_log_below_level",
            Fault::LogInvalidLevel => "fault_log_invalid_level",
            Fault::StdoutGarbage => "fault_stdout_garbage",
            Fault::NotJsonRpc => "fault_not_jsonrpc",
            Fault::DuplicateResponse => "fault_duplicate_response",
            Fault::UnknownResponse => "fault_unknown_response",
            Fault::Crash => "fault_crash",
            Fault::Hang => "fault_hang",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Fault::NotIncreasing => "Fault: progress goes backwards",
            Fault::AfterResponse => "Fault: progress after the response",
            Fault::UnknownToken => "Fault: progress for an unknown token",
            Fault::InvalidParams => "Fault: malformed progress params",
            Fault::ExceedsTotal => "Fault: progress beyond total",
            Fault::TotalChanged => "Fault: total changes mid-stream",
            Fault::Flood => "Fault: progress flood",
            Fault::Buffered => "Fault: buffered progress",
            Fault::Stall => "Fault: long silence",
            Fault::LogBelowLevel => "Fault: logs below the set level",
            Fault::LogInvalidLevel => "Fault: invalid log level",
            Fault::StdoutGarbage => "Fault: garbage on stdout",
            Fault::NotJsonRpc => "Fault: JSON that is not JSON-RPC",
            Fault::DuplicateResponse => "Fault: duplicate response",
            Fault::UnknownResponse => "Fault: response for an unknown id",
            Fault::Crash => "Fault: crash mid-call",
            Fault::Hang => "Fault: never answers",
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            Fault::NotIncreasing => {
                "Sends progress 1, 2, 3, 2, 4 of 5: the fourth goes backwards (progress-not-increasing)."
            }
            Fault::AfterResponse => {
                "Answers, then sends two more progress notifications for the finished request (progress-after-response)."
            }
            Fault::UnknownToken => {
                "Sends progress for a token no request carried, even without a progressToken (progress-unknown-token)."
            }
            Fault::InvalidParams => {
                "Sends progress whose `progress` is a string (progress-invalid)."
            }
            Fault::ExceedsTotal => "Sends progress 5/10, then 12/10 (progress-exceeds-total).",
            Fault::TotalChanged => "Sends progress 1/10, then 2/20 (progress-total-changed).",
            Fault::Flood => {
                "Sends `count` progress notifications at once, without rate limiting (progress-flood)."
            }
            Fault::Buffered => {
                "Works for `duration_ms` silently, then flushes every progress notification together with the result, like a buffering transport (progress-buffered)."
            }
            Fault::Stall => {
                "Sends one progress notification, goes silent for `silence_ms`, then finishes (progress-stalled)."
            }
            Fault::LogBelowLevel => {
                "Logs at debug and info whatever level the client set (log-below-level)."
            }
            Fault::LogInvalidLevel => {
                "Logs with the level \"verbose\", which is not an RFC 5424 level (log-invalid-level)."
            }
            Fault::StdoutGarbage => {
                "Prints a plain-text line to stdout before answering (stdout-not-jsonrpc)."
            }
            Fault::NotJsonRpc => {
                "Writes a JSON object that is not a JSON-RPC message before answering (jsonrpc-invalid)."
            }
            Fault::DuplicateResponse => "Answers the request twice (response-duplicate).",
            Fault::UnknownResponse => {
                "Sends a response for an id the client never used, then the real one (response-unknown-id)."
            }
            Fault::Crash => {
                "Sends one progress notification, then the server process exits with status 70."
            }
            Fault::Hang => "Sends one progress notification, then never answers (until cancelled).",
        }
    }

    pub fn schema(self) -> Value {
        let delay = || {
            (
                "delay_ms",
                uint_prop(
                    "Pause between notifications in milliseconds.",
                    DELAY_DEFAULT,
                    0,
                    MAX_MS,
                ),
            )
        };
        match self {
            Fault::Flood => object_schema(vec![(
                "count",
                uint_prop("Notifications to send.", 200, 1, 1_000_000),
            )]),
            Fault::Buffered => object_schema(vec![
                (
                    "duration_ms",
                    uint_prop("How long the call works.", 1200, 0, MAX_MS),
                ),
                ("steps", uint_prop("Progress notifications.", 5, 1, 10_000)),
            ]),
            Fault::Stall => object_schema(vec![(
                "silence_ms",
                uint_prop("Length of the silence in milliseconds.", 2000, 0, MAX_MS),
            )]),
            Fault::NotIncreasing
            | Fault::AfterResponse
            | Fault::ExceedsTotal
            | Fault::TotalChanged => object_schema(vec![delay()]),
            _ => object_schema(vec![]),
        }
    }

    pub async fn run(self, call: &Call, args: &Args<'_>) -> ToolResult {
        let done = |what: &str| Outcome::ok(format!("{}: {what}", self.name()), json!({}));
        match self {
            Fault::NotIncreasing => {
                let delay = args.uint("delay_ms", DELAY_DEFAULT, 0, MAX_MS)?;
                steps(
                    call,
                    &[
                        (1, Some(5)),
                        (2, Some(5)),
                        (3, Some(5)),
                        (2, Some(5)),
                        (4, Some(5)),
                    ],
                    delay,
                )
                .await;
                Ok(done("sent progress 1, 2, 3, 2, 4"))
            }
            Fault::ExceedsTotal => {
                let delay = args.uint("delay_ms", DELAY_DEFAULT, 0, MAX_MS)?;
                steps(call, &[(5, Some(10)), (12, Some(10))], delay).await;
                Ok(done("sent progress 5/10 and 12/10"))
            }
            Fault::TotalChanged => {
                let delay = args.uint("delay_ms", DELAY_DEFAULT, 0, MAX_MS)?;
                steps(call, &[(1, Some(10)), (2, Some(20))], delay).await;
                Ok(done("sent progress 1/10 and 2/20"))
            }
            Fault::AfterResponse => {
                let delay = args.uint("delay_ms", DELAY_DEFAULT, 0, MAX_MS)?;
                steps(call, &[(1, Some(3))], delay).await;
                // Right behind the response, queued with it, so a client
                // that closes the connection straight after the result
                // still receives them.
                let late = call.token().map_or_else(Vec::new, |token| {
                    [2, 3]
                        .into_iter()
                        .flat_map(|p| progress_line(token, json!(p), Some(3)))
                        .collect()
                });
                call.respond_now_then(
                    done("answered, then kept sending progress").into_result(),
                    late,
                );
                Ok(done(""))
            }
            Fault::UnknownToken => {
                let token = match call.token() {
                    Some(Value::String(s)) if s == "fault-unknown-token" => "fault-unknown-token-2",
                    _ => "fault-unknown-token",
                };
                call.send_raw(progress_line(&json!(token), json!(1), Some(2)));
                Ok(done("sent progress for a token nobody sent"))
            }
            Fault::InvalidParams => {
                if let Some(t) = call.token() {
                    call.send_raw(notification_line(
                        "notifications/progress",
                        json!({"progressToken": t, "progress": "half", "total": 2}),
                    ));
                }
                Ok(done("sent progress \"half\""))
            }
            Fault::Flood => {
                let count = args.uint("count", 200, 1, 1_000_000)?;
                if let Some(t) = call.token() {
                    let mut buf = Vec::new();
                    for i in 1..=count {
                        buf.extend(progress_line(t, json!(i), Some(count)));
                    }
                    call.send_raw(buf);
                }
                Ok(done(&format!("sent {count} notifications at once")))
            }
            Fault::Buffered => {
                let duration = args.uint("duration_ms", 1200, 0, MAX_MS)?;
                let n = args.uint("steps", 5, 1, 10_000)?;
                pause(duration).await;
                let mut buf = Vec::new();
                if let Some(t) = call.token() {
                    for i in 1..=n {
                        buf.extend(progress_line(t, json!(i), Some(n)));
                    }
                }
                buf.extend(response_line(
                    call.id(),
                    done("flushed all progress with the result").into_result(),
                ));
                call.take_over_response();
                call.send_raw(buf);
                Ok(done(""))
            }
            Fault::Stall => {
                let silence = args.uint("silence_ms", 2000, 0, MAX_MS)?;
                steps(call, &[(1, Some(2))], 0).await;
                tokio::time::sleep(Duration::from_millis(silence)).await;
                steps(call, &[(2, Some(2))], 0).await;
                Ok(done(&format!("was silent for {silence} ms")))
            }
            Fault::LogBelowLevel => {
                for level in ["debug", "info"] {
                    call.send_raw(notification_line(
                        "notifications/message",
                        json!({"level": level, "logger": "fault", "data": format!("a {level} message, whatever level was set")}),
                    ));
                }
                Ok(done("logged at debug and info"))
            }
            Fault::LogInvalidLevel => {
                call.send_raw(notification_line(
                    "notifications/message",
                    json!({"level": "verbose", "logger": "fault", "data": "verbose is not a level"}),
                ));
                Ok(done("logged at level \"verbose\""))
            }
            Fault::StdoutGarbage => {
                call.send_raw(b"Server ready! (this line is not JSON-RPC)\n".to_vec());
                Ok(done("wrote plain text to stdout"))
            }
            Fault::NotJsonRpc => {
                call.send_raw(line(
                    &json!({"status": "ok", "note": "JSON, but not JSON-RPC"}),
                ));
                Ok(done("wrote a JSON object that is not JSON-RPC"))
            }
            Fault::DuplicateResponse => {
                let result = done("answered twice").into_result();
                call.respond_now(result.clone());
                call.send_raw(response_line(call.id(), result));
                Ok(done(""))
            }
            Fault::UnknownResponse => {
                call.send_raw(response_line(
                    &json!("fault-no-such-request"),
                    json!({"content": [], "isError": false}),
                ));
                Ok(done("also answered a request nobody sent"))
            }
            Fault::Crash => {
                steps(call, &[(1, Some(2))], 0).await;
                // Give the writer thread a moment to get the line out, so the
                // client sees the call start before the process dies.
                tokio::time::sleep(Duration::from_millis(50)).await;
                eprintln!("mcpscope-demo: fault_crash: exiting mid-call");
                std::process::exit(70);
            }
            Fault::Hang => {
                steps(call, &[(1, None)], 0).await;
                std::future::pending::<()>().await;
                Ok(done(""))
            }
        }
    }
}

fn progress_line(token: &Value, progress: Value, total: Option<u64>) -> Vec<u8> {
    let mut params = json!({"progressToken": token, "progress": progress});
    if let Some(t) = total {
        params["total"] = t.into();
    }
    notification_line("notifications/progress", params)
}

/// Raw progress notifications (only with a token), `delay` ms apart.
async fn steps(call: &Call, values: &[(u64, Option<u64>)], delay: u64) {
    let Some(token) = call.token() else { return };
    for (i, (p, t)) in values.iter().enumerate() {
        if i > 0 {
            pause(delay).await;
        }
        call.send_raw(progress_line(token, json!(p), *t));
    }
}
