//! `context_builder`: modelled on RepoPrompt CE's context builder. Progress
//! is a bare event counter (no total) over named stage events, with
//! heartbeats filling long stages, and one `soft_bound_exceeded` event that
//! looks alarming but never fails the run.

use std::time::Duration;

use serde_json::json;
use tokio::time::{Instant, sleep_until};

use super::{Args, MAX_MS, Outcome, ToolResult, object_schema, uint_prop};
use crate::demo::call::Call;

const DURATION_DEFAULT: u64 = 6000;
const HEARTBEAT_DEFAULT: u64 = 1500;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Discovering,
    Generating,
    Processing,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Discovering => "discovering",
            Phase::Generating => "generating",
            Phase::Processing => "processing",
        }
    }
}

/// (when, in thousandths of the duration; phase; event). Deliberately
/// uneven: the streaming stretch is long enough for heartbeats at the
/// default settings, the rest is quick.
const EVENTS: [(u32, Phase, &str); 9] = [
    (0, Phase::Discovering, "provider_process_starting"),
    (40, Phase::Discovering, "child_connection_observed"),
    (80, Phase::Discovering, "routing_confirmed"),
    (140, Phase::Generating, "model_resolution"),
    (200, Phase::Generating, "payload_packaging"),
    (260, Phase::Generating, "streaming"),
    (550, Phase::Generating, "soft_bound_exceeded"),
    (880, Phase::Generating, "message_finalization"),
    (940, Phase::Processing, "selection_reply_rendering"),
];

pub fn schema() -> serde_json::Value {
    object_schema(vec![
        (
            "duration_ms",
            uint_prop(
                "Total run time in milliseconds.",
                DURATION_DEFAULT,
                0,
                MAX_MS,
            ),
        ),
        (
            "heartbeat_ms",
            uint_prop(
                "Heartbeat after this many milliseconds without an event (0: none).",
                HEARTBEAT_DEFAULT,
                0,
                MAX_MS,
            ),
        ),
    ])
}

/// Time keeping for events and heartbeats.
struct Clock {
    start: Instant,
    heartbeat: Option<Duration>,
    last_event: Instant,
    phase: Phase,
    phase_start: Instant,
    events: u64,
}

impl Clock {
    fn emit(&mut self, call: &Call, message: String) {
        self.events += 1;
        self.last_event = Instant::now();
        call.progress(self.events, None, message);
    }

    fn event(&mut self, call: &Call, phase: Phase, name: &str) {
        if phase != self.phase {
            self.phase = phase;
            self.phase_start = Instant::now();
        }
        self.emit(call, format!("[{}] {name}", phase.name()));
    }

    /// Sleep until `target`, sending a heartbeat whenever nothing was sent
    /// for a heartbeat interval.
    async fn wait_until(&mut self, call: &Call, target: Instant) {
        loop {
            match self.heartbeat.map(|h| self.last_event + h) {
                Some(beat) if beat < target => {
                    sleep_until(beat).await;
                    let now = Instant::now();
                    let message = format!(
                        "Still in {} (phase {}s, total {}s)",
                        self.phase.name(),
                        (now - self.phase_start).as_secs(),
                        (now - self.start).as_secs(),
                    );
                    self.emit(call, message);
                }
                _ => return sleep_until(target).await,
            }
        }
    }
}

pub async fn run(call: &Call, args: &Args<'_>) -> ToolResult {
    let duration = args.uint("duration_ms", DURATION_DEFAULT, 0, MAX_MS)?;
    let heartbeat = args.uint("heartbeat_ms", HEARTBEAT_DEFAULT, 0, MAX_MS)?;
    let start = Instant::now();
    let mut clock = Clock {
        start,
        heartbeat: (heartbeat > 0).then(|| Duration::from_millis(heartbeat)),
        last_event: start,
        phase: Phase::Discovering,
        phase_start: start,
        events: 0,
    };
    let at = |permille: u32| start + Duration::from_millis(duration * u64::from(permille) / 1000);
    for (permille, phase, name) in EVENTS {
        clock.wait_until(call, at(permille)).await;
        clock.event(call, phase, name);
    }
    clock.wait_until(call, at(1000)).await;

    // Fixed numbers: the demo is about the progress, not the context.
    let (files, directories, tokens) = (37, 6, 48_213);
    Ok(Outcome::ok(
        format!(
            "Context ready: {files} files from {directories} directories, {tokens} tokens \
             ({} progress events; soft token bound exceeded once, continued)",
            clock.events
        ),
        json!({
            "files": files,
            "directories": directories,
            "tokens": tokens,
            "events": clock.events,
            "soft_bound_exceeded": true,
        }),
    ))
}
