//! `pipeline_wait` and `job_wait`: poll a CI object until it finishes. The
//! end is unknown while polling, so progress is the poll number without a
//! total — the shape clients must render as indeterminate.

use serde_json::json;

use super::{Args, MAX_MS, Outcome, ToolResult, enum_prop, object_schema, pause, uint_prop};
use crate::demo::call::Call;

const OUTCOMES: [&str; 3] = ["success", "failed", "canceled"];
const MAX_POLLS: u64 = 100_000;

pub struct Polling {
    /// As it appears in messages: "Pipeline #4711".
    subject: &'static str,
    kind: &'static str,
    id: u64,
    polls: u64,
    interval_ms: u64,
}

pub const PIPELINE: Polling = Polling {
    subject: "Pipeline #4711",
    kind: "pipeline",
    id: 4711,
    polls: 6,
    interval_ms: 700,
};

pub const JOB: Polling = Polling {
    subject: "Job #90210",
    kind: "job",
    id: 90210,
    polls: 5,
    interval_ms: 600,
};

impl Polling {
    pub fn schema(&self) -> serde_json::Value {
        object_schema(vec![
            (
                "polls",
                uint_prop(
                    "Polls until it finishes (one progress update each).",
                    self.polls,
                    1,
                    MAX_POLLS,
                ),
            ),
            (
                "interval_ms",
                uint_prop("Milliseconds between polls.", self.interval_ms, 0, MAX_MS),
            ),
            ("outcome", enum_prop("How it ends.", OUTCOMES[0], &OUTCOMES)),
        ])
    }

    pub async fn run(&self, call: &Call, args: &Args<'_>) -> ToolResult {
        let polls = args.uint("polls", self.polls, 1, MAX_POLLS)?;
        let interval = args.uint("interval_ms", self.interval_ms, 0, MAX_MS)?;
        let outcome = args.choice("outcome", OUTCOMES[0], &OUTCOMES)?;
        let subject = self.subject;
        for poll in 1..=polls {
            if poll > 1 {
                pause(interval).await;
            }
            let message = if poll == polls {
                format!("{subject} finished: {outcome}")
            } else {
                format!("{subject} is running (poll {poll})")
            };
            call.progress(poll, None, message);
        }
        let structured = json!({
            "kind": self.kind,
            "id": self.id,
            "status": outcome,
            "polls": polls,
        });
        let text = format!("{subject} finished: {outcome} after {polls} polls");
        Ok(if outcome == "failed" {
            Outcome {
                is_error: true,
                ..Outcome::ok(text, structured)
            }
        } else {
            Outcome::ok(text, structured)
        })
    }
}
