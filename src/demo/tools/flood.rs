//! `flood`: a throughput benchmark for clients. Exempt from rate limiting on
//! purpose; lines are built by hand (token serialised once, numbers through
//! itoa) into ~1 MiB buffers so the server, not the client, is never the
//! bottleneck.

use serde_json::{Value, json};

use super::{Args, Outcome, ToolResult, object_schema, uint_prop};
use crate::demo::call::Call;

const COUNT_DEFAULT: u64 = 100_000;
const MAX_COUNT: u64 = 1_000_000_000;
const BUFFER_BYTES: usize = 1 << 20;

pub fn schema() -> Value {
    object_schema(vec![(
        "count",
        uint_prop(
            "Progress notifications to send (only with a progressToken).",
            COUNT_DEFAULT,
            0,
            MAX_COUNT,
        ),
    )])
}

pub async fn run(call: &Call, args: &Args<'_>) -> ToolResult {
    let count = args.uint("count", COUNT_DEFAULT, 0, MAX_COUNT)?;
    let Some(token) = call.token() else {
        return Ok(Outcome::ok(
            "sent 0 progress notifications (the request had no progressToken)",
            json!({"sent": 0}),
        ));
    };
    let token = serde_json::to_string(token).unwrap_or_else(|_| "null".into());
    let head = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":"#
    );
    let middle = format!(r#","total":{count},"message":"item "#);
    let tail = "\"}}\n";
    let line_max = head.len() + middle.len() + tail.len() + 2 * 20;

    let mut numbers = itoa::Buffer::new();
    let mut buf = Vec::with_capacity(BUFFER_BYTES + line_max);
    for i in 1..=count {
        let n = numbers.format(i).as_bytes();
        buf.extend_from_slice(head.as_bytes());
        buf.extend_from_slice(n);
        buf.extend_from_slice(middle.as_bytes());
        buf.extend_from_slice(n);
        buf.extend_from_slice(tail.as_bytes());
        if buf.len() >= BUFFER_BYTES {
            let full = std::mem::replace(&mut buf, Vec::with_capacity(BUFFER_BYTES + line_max));
            if !call.link().send_bulk(full).await {
                break;
            }
            // Acquiring a free permit need not yield; a cancellation should
            // not have to wait for the whole flood.
            tokio::task::yield_now().await;
        }
    }
    if !buf.is_empty() {
        call.link().send_bulk(buf).await;
    }
    Ok(Outcome::ok(
        format!("sent {count} progress notifications"),
        json!({"sent": count}),
    ))
}
