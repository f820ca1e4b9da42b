//! Thresholds and switches of the rule engine (`check` flags, settings file).

use crate::protocol::Era;

/// Tunables of the time- and rate-based rules, and the era override.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckConfig {
    /// `progress-flood`: notifications per second a token may sustain…
    pub flood_rate: f64,
    /// …measured over a sliding window of this length.
    pub flood_window_us: u64,
    /// `progress-buffered`: all notifications and the response within this span…
    pub buffered_window_us: u64,
    /// …for a call that lasted at least this long, and no two consecutive
    /// notifications further apart than this: a buffer is flushed back to
    /// back, while a live server that only started late (a slow first call)
    /// still spaces its notifications as its work goes.
    pub buffered_min_call_us: u64,
    pub buffered_gap_us: u64,
    /// `progress-stalled`: silence longer than this on an active request with a token.
    pub stall_us: u64,
    /// Progress arriving this long after we cancelled a request counts as
    /// after the response: the server had time to see the cancellation, so
    /// it is no longer a message already in flight. The task rules give a
    /// message on another stream than a task's terminal status the same
    /// grace (Streamable HTTP streams may deliver out of order).
    pub cancel_grace_us: u64,
    /// `client-cancel-unknown-request`: a cancel this soon after the
    /// request's response raced it (the client decided to cancel before it
    /// read the response), so it is not reported.
    pub cancel_race_us: u64,
    /// `client-cancelled-during-progress`: progress this recent before a
    /// cancel shows the request was alive when the client gave up on it.
    pub cancel_progress_window_us: u64,
    /// The session's own client sends `tools/call` without a progressToken
    /// because the user asked for that (`--token none`):
    /// `client-no-progress-token` has nothing to tell them.
    pub tokenless_by_choice: bool,
    /// The client is mcpscope itself: it drops the token only when the user
    /// chose so, and it cancels on its own only at a timeout it records
    /// (`timeout` event; its idle limit resets on progress); any other
    /// cancel is the user's (Ctrl-C, the cancel key). Live, and for a
    /// recording of such a session (`for_recording`); a proxy's recording
    /// of a host is not one.
    pub own_client: bool,
    /// The recording is the HTTP proxy's (several hosts may have shared
    /// it): if it names no host session (`host-request` events, recorded
    /// since the proxy told them apart), what concerns one session cannot
    /// be judged once a second may have begun (`checks::Sessions`).
    pub http_proxy: bool,
    /// Force an era; `None` infers it from the trace (initialize result, or
    /// requests carrying the stateless `_meta` protocol version).
    pub era: Option<Era>,
    /// Findings reported per rule and token/request before further ones are
    /// only counted: a server that breaks a rule on every notification should
    /// not bury everything else.
    pub max_per_key: u32,
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig {
            flood_rate: 50.0,
            flood_window_us: 1_000_000,
            buffered_window_us: 50_000,
            buffered_min_call_us: 1_000_000,
            buffered_gap_us: 5_000,
            stall_us: 30_000_000,
            cancel_grace_us: 1_000_000,
            cancel_race_us: 250_000,
            cancel_progress_window_us: 2_000_000,
            tokenless_by_choice: false,
            own_client: false,
            http_proxy: false,
            era: None,
            max_per_key: 10,
        }
    }
}

impl CheckConfig {
    /// How many notifications the flood window may hold before the rule fires.
    pub fn flood_limit(&self) -> usize {
        let n = (self.flood_rate * self.flood_window_us as f64 / 1e6).floor();
        if n.is_finite() && n >= 1.0 {
            n as usize
        } else {
            1
        }
    }
}

impl CheckConfig {
    /// The configuration for checking a recording with this header: one
    /// of mcpscope's own sessions says `"recorded_as": "client"`; a proxy's
    /// recording of a host, an older recording or another tool's does not,
    /// and its client is judged like any host.
    pub fn for_recording(mut self, header: &serde_json::Value) -> CheckConfig {
        self.own_client = header.get("recorded_as").and_then(|v| v.as_str()) == Some("client");
        self.http_proxy = crate::trace::reader::is_proxy_recording(header)
            && header["server"]["transport"].as_str() == Some("http");
        self
    }
}
