//! What mcpscope observes besides the frames themselves: one typed enum of
//! connection and session events, written by the transports and the client,
//! recorded as `meta` lines in the trace (`{"event": "exit", ...}`) and read
//! back by the checks, the panes and the printers.
//!
//! It sits below every other module (it needs serde only), so the transports
//! can produce what the checks and both faces consume. Adding a variant makes
//! the compiler show every `match` that must handle it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// One event. The JSON form is the trace's: tagged by `event`, fields in
/// kebab-case tags and the field names traces have always used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// A server process was started.
    Spawn {
        argv: Vec<String>,
        pid: Option<u32>,
        cwd: Option<String>,
    },
    /// The server process ended.
    Exit {
        code: Option<i32>,
        signal: Option<i32>,
    },
    /// Reading the server's stdout failed.
    ReadError {
        error: String,
    },
    /// A stream closed while its process kept running.
    Eof {
        stream: String,
        running: bool,
    },
    /// A frame (or stderr line) over the size cap: `bytes` long at least, its
    /// first `kept` bytes stored; `frame` is the seq of the cut frame.
    Oversized {
        bytes: u64,
        kept: u64,
        frame: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stream: Option<String>,
    },
    /// An HTTP redirect that was followed.
    Redirect {
        status: u16,
        to: String,
        cross_origin: bool,
        not_forwarded: Vec<String>,
    },
    /// One HTTP exchange: what the server answered.
    Http {
        method: String,
        status: Status,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content_type: Option<String>,
        session: Option<String>,
        ms: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        challenge: Option<String>,
    },
    /// One HTTP exchange of the authorization flow (`step`: resource-metadata,
    /// server-metadata, register, authorize, token, refresh); the URL without
    /// its query.
    AuthHttp {
        step: String,
        method: String,
        url: String,
        status: Status,
        ms: u64,
    },
    /// The authorization state changed: authorizing, browser (the detail is
    /// the URL to open), authorized, expired, refreshed, refresh-failed,
    /// client-rejected, failed, cache-error.
    Auth {
        state: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// The authorization flow met a server breaking the authorization spec:
    /// `rule` is the catalog id of the finding it makes.
    AuthProblem {
        rule: String,
        detail: String,
    },
    /// An HTTP request that got no response at all.
    HttpError {
        method: String,
        error: String,
    },
    /// A notification or response waited this long for its `202`.
    SlowDelivery {
        waited_ms: u64,
    },
    /// SEP-2243 per-tool headers sent with a call.
    McpParamHeaders {
        tool: String,
        headers: Vec<String>,
    },
    /// The transport flavour was found by probing.
    TransportDetect {
        flavor: String,
        reason: String,
    },
    /// The server answered `404` for the session.
    SessionExpired {
        status: u16,
    },
    /// A response stream is resumed with `Last-Event-ID`.
    Resume {
        last_event_id: String,
        after_ms: u64,
        attempt: u32,
    },
    /// mcpscope closed a response stream once it had the response.
    StreamReleased {
        reason: String,
    },
    StreamError {
        error: String,
    },
    /// A stream ended mid-event; `partial` is what had arrived of it.
    StreamCut {
        partial: String,
    },
    StreamEnd,
    /// An SSE event with an id and no data (a resumption point).
    SsePriming {
        id: Option<String>,
        retry_ms: Option<u64>,
    },
    /// The standalone GET stream reconnects.
    Reconnect {
        after_ms: u64,
        last_event_id: Option<String>,
    },
    /// The legacy SSE stream named the POST endpoint.
    Endpoint {
        url: String,
    },
    EndpointInvalid {
        data: String,
        error: String,
    },
    /// A frame that is in the trace never left (the send queue was full).
    SendFailed {
        seq: u64,
        error: String,
    },
    /// The session expired and a new one is started.
    Reinitialize {
        reason: String,
    },
    /// The user started the session again after the server exited or the
    /// connection failed (`attempt` counts the restarts, from 1): the
    /// server is spawned again (or connected to again over HTTP) into the
    /// same trace. What follows is a new session, judged on its own by the
    /// checks; its request ids and progress tokens go on from where the
    /// session before left them, so none is used twice in one trace.
    Restart {
        attempt: u32,
    },
    /// A request reached one of its time limits.
    Timeout {
        request: Value,
        method: String,
        limit: String,
        secs: f64,
    },
    /// A request was cancelled without `notifications/cancelled` (closing
    /// its response stream, 2026-07-28 over HTTP).
    Cancel {
        request: Value,
        how: String,
        reason: String,
    },
    /// The protocol revision agreed at the handshake (`requested`,
    /// `supported`) or by discovery (`era: stateless`, `supportedVersions`).
    Negotiated {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        era: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        requested: Option<String>,
        #[serde(rename = "protocolVersion")]
        protocol_version: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        supported: Option<bool>,
        #[serde(
            rename = "supportedVersions",
            default,
            skip_serializing_if = "Option::is_none"
        )]
        supported_versions: Option<Value>,
        #[serde(rename = "serverInfo", default)]
        server_info: Value,
        #[serde(default)]
        capabilities: Value,
    },
    /// A listed tool was left out (its definition is not valid).
    ToolRejected {
        tool: Value,
        reason: String,
    },
    /// Server requests were not answered: too many already waited. One
    /// event stands for the `count` dropped from one read batch, `request`
    /// (frame `seq`) the first of them; `total` counts every one dropped in
    /// the session so far, these included (0 in traces older than it).
    ServerRequestDropped {
        request: Value,
        seq: u64,
        reason: String,
        #[serde(default = "one")]
        count: u64,
        #[serde(default)]
        total: u64,
    },
    /// A server request mcpscope was told how to answer, but that answer
    /// does not fit the request (`--elicit accept:` content the requested
    /// schema rejects: `cancel`; `--elicit defaults` that cannot satisfy
    /// it: `decline`); `answered` says what was sent instead.
    AnswerRefused {
        request: Value,
        seq: u64,
        method: String,
        reason: String,
        answered: String,
    },
    /// A request (or, without one, the whole connection) failed.
    Failed {
        request: Option<Value>,
        error: String,
    },
    /// The era chosen (`handshake` after a failed discovery probe).
    Era {
        era: String,
        reason: String,
        /// The probe was refused with an error (JSON-RPC or HTTP), as a
        /// server of the handshake era refuses it: its normal answer, said
        /// only with `-v`. Any other failure (an answer that is no
        /// discovery, a timeout) is said.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        refused: bool,
    },
    /// A `subscriptions/listen` stream ended.
    ListenEnd {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A proxy forwarded bytes its observer could not keep (it fell behind
    /// its bound): they reached the other side but are missing here.
    ObserverBehind {
        /// `host→server`, `server→host` or `stderr`.
        stream: String,
        /// Bytes forwarded but not observed.
        bytes: u64,
        /// HTTP exchanges forwarded but not observed at all (the observer
        /// was following as many as it may at once); their bytes are in
        /// `bytes`.
        #[serde(default, skip_serializing_if = "is_zero")]
        exchanges: u64,
    },
    /// A host's HTTP request reached the proxy (recorded before its body):
    /// `session` is the host session it names (its `Mcp-Session-Id`, or the
    /// legacy transport's `sessionId` query), so the checks judge each host
    /// session on its own; `protocol` its `MCP-Protocol-Version` header.
    HostRequest {
        method: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session: Option<String>,
        /// [`target_key`] of the request's path and query: a legacy
        /// HTTP+SSE host POSTs to the URL its stream's `endpoint` named,
        /// which ties the POST to that stream (the URL itself may carry
        /// secrets, so only its digest is recorded).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        protocol: Option<String>,
        /// A GET's `Last-Event-ID`: the host resumes the stream that
        /// carried that event.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_event_id: Option<String>,
    },
    /// The server asked for another version; discovery is retried once.
    VersionRetry {
        #[serde(rename = "protocolVersion")]
        protocol_version: String,
        supported: Vec<String>,
    },
    /// A span a server exported to mcpscope's OTLP receiver (see
    /// `docs/traces.md`): ids in lower-case hex, times in unix nanoseconds,
    /// attributes bounded (`dropped_attributes` counts those left out).
    OtelSpan {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        service: Option<String>,
        name: String,
        trace_id: String,
        span_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_span_id: Option<String>,
        /// internal, server, client, producer, consumer or unspecified.
        kind: String,
        start_ns: u64,
        end_ns: u64,
        /// unset, ok or error.
        status: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status_message: Option<String>,
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        attributes: Map<String, Value>,
        #[serde(default, skip_serializing_if = "is_zero")]
        dropped_attributes: u64,
    },
    /// A log record a server exported to the OTLP receiver; `level` is its
    /// severity mapped to the MCP levels.
    OtelLog {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        service: Option<String>,
        time_ns: u64,
        severity_number: i32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        severity_text: Option<String>,
        level: String,
        body: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        trace_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        span_id: Option<String>,
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        attributes: Map<String, Value>,
        #[serde(default, skip_serializing_if = "is_zero")]
        dropped_attributes: u64,
    },
    /// One metrics export to the OTLP receiver, counted: its metrics and
    /// their data points.
    OtelMetrics {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        service: Option<String>,
        metrics: u64,
        points: u64,
    },
    /// Spans or log records the receiver could not keep (`signal`: traces,
    /// logs), with why: past the per-export bound, or exports arriving
    /// faster than they are taken in.
    OtelDropped {
        signal: String,
        count: u64,
        reason: String,
    },
    /// Something other than HTTP/1 arrived at the OTLP receiver (`protocol`:
    /// `OTLP/gRPC`, an HTTP/2 preface; `TLS`; `other`), which it does not
    /// take: recorded once per session and kind, so it is said, not dropped
    /// silently.
    OtelForeign {
        protocol: String,
    },
    /// The proxy changed the traffic on purpose (`proxy --faults`): what
    /// it did, by which rule, to which message. The frames around it are
    /// what each party really sent, so the checks judge those; this says
    /// what the other party got instead.
    /// A resumed stream replayed an SSE event (`id`) the proxy had already
    /// relayed on it, the same message: it is the frame recorded as `of`,
    /// and is not recorded (nor judged) twice.
    SseReplay {
        id: String,
        of: u64,
    },
    Injected {
        /// The rule's number among all `--faults` rules, from 1.
        rule: u32,
        /// The preset (`lose-progress:50%`) or file the rule came from.
        source: String,
        /// delay, drop, duplicate, hold, late, corrupt or close; over HTTP
        /// also status, and close-stream (a response stream closed before
        /// the message: the host may get it when it resumes the stream).
        action: String,
        /// `host→server` or `server→host`.
        stream: String,
        /// The message as its sender wrote it (without its line break),
        /// cut to the trace's frame cap.
        original: String,
        /// Its full length in bytes, when `original` was cut.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        original_bytes: Option<u64>,
        /// What was sent in its place, when that is a different message
        /// (a corrupted one); absent when it was dropped, held or delayed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        sent: Option<String>,
        /// How: `12 ms`, `released after the response`, …
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
}

/// A stable digest of a URL's path and query (FNV-1a, 64 bits, in hex):
/// the same in every version, so a trace recorded by one is read by another.
/// An absolute URL counts by its path and query; a fragment never counts.
pub fn target_key(url: &str) -> String {
    let url = url.trim();
    let url = url.split('#').next().unwrap_or(url);
    let path = match url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |at| &rest[at..]),
        None => url,
    };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in path.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A count read from a trace written before the field existed: one event
/// stood for one.
fn one() -> u64 {
    1
}

/// An HTTP exchange's status: the code, or why there is none (the DELETE
/// that ends a session records its failure here).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Status {
    Code(u16),
    Failed(String),
}

impl Status {
    pub fn code(&self) -> Option<u16> {
        match self {
            Status::Code(c) => Some(*c),
            Status::Failed(_) => None,
        }
    }
}

impl Event {
    /// Read a stored meta event; `None` for one this version does not know
    /// (a newer trace, a damaged line): callers show those raw.
    pub fn parse(bytes: &[u8]) -> Option<Event> {
        serde_json::from_slice(bytes).ok()
    }

    /// The `event` tag.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Spawn { .. } => "spawn",
            Event::Exit { .. } => "exit",
            Event::ReadError { .. } => "read-error",
            Event::Eof { .. } => "eof",
            Event::Oversized { .. } => "oversized",
            Event::Redirect { .. } => "redirect",
            Event::Http { .. } => "http",
            Event::AuthHttp { .. } => "auth-http",
            Event::Auth { .. } => "auth",
            Event::AuthProblem { .. } => "auth-problem",
            Event::HttpError { .. } => "http-error",
            Event::SlowDelivery { .. } => "slow-delivery",
            Event::McpParamHeaders { .. } => "mcp-param-headers",
            Event::TransportDetect { .. } => "transport-detect",
            Event::SessionExpired { .. } => "session-expired",
            Event::Resume { .. } => "resume",
            Event::StreamReleased { .. } => "stream-released",
            Event::StreamError { .. } => "stream-error",
            Event::StreamCut { .. } => "stream-cut",
            Event::StreamEnd => "stream-end",
            Event::SsePriming { .. } => "sse-priming",
            Event::Reconnect { .. } => "reconnect",
            Event::Endpoint { .. } => "endpoint",
            Event::EndpointInvalid { .. } => "endpoint-invalid",
            Event::SendFailed { .. } => "send-failed",
            Event::Reinitialize { .. } => "reinitialize",
            Event::Restart { .. } => "restart",
            Event::Timeout { .. } => "timeout",
            Event::Cancel { .. } => "cancel",
            Event::Negotiated { .. } => "negotiated",
            Event::ToolRejected { .. } => "tool-rejected",
            Event::ServerRequestDropped { .. } => "server-request-dropped",
            Event::AnswerRefused { .. } => "answer-refused",
            Event::Failed { .. } => "failed",
            Event::Era { .. } => "era",
            Event::ListenEnd { .. } => "listen-end",
            Event::VersionRetry { .. } => "version-retry",
            Event::HostRequest { .. } => "host-request",
            Event::ObserverBehind { .. } => "observer-behind",
            Event::OtelSpan { .. } => "otel-span",
            Event::OtelLog { .. } => "otel-log",
            Event::OtelMetrics { .. } => "otel-metrics",
            Event::OtelDropped { .. } => "otel-dropped",
            Event::OtelForeign { .. } => "otel-foreign",
            Event::SseReplay { .. } => "sse-replay",
            Event::Injected { .. } => "injected",
        }
    }

    /// The JSON written to the trace.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    pub fn exit(exit: ExitInfo) -> Event {
        Event::Exit {
            code: exit.code,
            signal: exit.signal,
        }
    }

    /// How an `injected` event reads on a line: `drop by rule 1
    /// (lose-progress:50%) server→host`, and what it was about.
    pub fn injected_line(&self) -> Option<String> {
        let Event::Injected {
            rule,
            source,
            action,
            stream,
            detail,
            ..
        } = self
        else {
            return None;
        };
        let how = detail
            .as_ref()
            .map(|d| format!(", {d}"))
            .unwrap_or_default();
        Some(format!("{action} by rule {rule} ({source}) {stream}{how}"))
    }

    /// The `oversized` event for a frame cut at the cap.
    pub fn oversized(kept: usize, total: u64, frame: Option<u64>) -> Event {
        Event::Oversized {
            bytes: total,
            kept: kept as u64,
            frame,
            stream: None,
        }
    }
}

/// How a server process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExitInfo {
    pub code: Option<i32>,
    pub signal: Option<i32>,
}

impl fmt::Display for ExitInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code, self.signal) {
            (Some(c), _) => write!(f, "exited with status {c}"),
            (None, Some(s)) => write!(f, "was killed by signal {s} ({})", signal_name(s)),
            (None, None) => write!(f, "ended (status unknown)"),
        }
    }
}

/// The usual name of a Unix signal number (a trace recorded on Linux or
/// macOS reads the same everywhere).
pub fn signal_name(sig: i32) -> &'static str {
    use crate::signals;
    match sig {
        signals::HANGUP => "SIGHUP",
        signals::INTERRUPT => "SIGINT",
        signals::QUIT => "SIGQUIT",
        signals::ABORT => "SIGABRT",
        signals::KILL => "SIGKILL",
        signals::SEGV => "SIGSEGV",
        signals::PIPE => "SIGPIPE",
        signals::TERMINATE => "SIGTERM",
        _ => "signal",
    }
}

/// Why a request (or the whole connection) can get no response: the kinds
/// the client acts on are variants, the rest is the transport's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loss {
    /// The server answered `404` for the session id (stateful HTTP).
    SessionExpired,
    /// The server closed its stdout and kept running.
    StdoutClosed,
    /// The server refused without authorization (HTTP 401/403) and none
    /// could be had: no other request would fare better.
    Unauthorized(String),
    /// The server could not be reached at all (HTTP: the connection was
    /// refused or could not be made): it is gone, not one request.
    Unreachable(String),
    /// Anything else: an HTTP status, a reset connection, a closed stream.
    Other(String),
}

pub const SESSION_EXPIRED: &str = "session expired (HTTP 404)";
pub const EOF_RUNNING: &str = "the server closed its stdout and is still running";

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Loss::SessionExpired => f.write_str(SESSION_EXPIRED),
            Loss::StdoutClosed => f.write_str(EOF_RUNNING),
            Loss::Unauthorized(why) | Loss::Unreachable(why) | Loss::Other(why) => f.write_str(why),
        }
    }
}

impl From<&str> for Loss {
    fn from(why: &str) -> Loss {
        Loss::Other(why.to_string())
    }
}

impl From<String> for Loss {
    fn from(why: String) -> Loss {
        Loss::Other(why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as traces recorded them before the enum existed.
    const OLD: &[&str] = &[
        r#"{"argv":["node","s.js"],"cwd":null,"event":"spawn","pid":42}"#,
        r#"{"code":null,"event":"exit","signal":9}"#,
        r#"{"event":"eof","running":true,"stream":"stdout"}"#,
        r#"{"bytes":9000000,"event":"oversized","frame":7,"kept":8388608}"#,
        r#"{"content_type":"text/event-stream","event":"http","method":"POST","ms":3,"session":"abc","status":200}"#,
        r#"{"event":"http","method":"DELETE","ms":1,"session":null,"status":204}"#,
        r#"{"event":"http","method":"DELETE","ms":1,"session":"s","status":"timed out"}"#,
        r#"{"event":"timeout","limit":"idle","method":"tools/call","request":1,"secs":0.3}"#,
        r#"{"event":"cancel","how":"closed the response stream","reason":"user","request":"r-2"}"#,
        r#"{"capabilities":{"tools":{}},"event":"negotiated","protocolVersion":"2025-06-18","requested":"2025-06-18","serverInfo":{"name":"x"},"supported":true}"#,
        r#"{"capabilities":{},"era":"stateless","event":"negotiated","protocolVersion":"2026-07-28","serverInfo":{},"supportedVersions":["2026-07-28"]}"#,
        r#"{"error":"boom","event":"failed","request":null}"#,
        r#"{"event":"listen-end"}"#,
        r#"{"event":"stream-end"}"#,
        r#"{"event":"sse-priming","id":"e1","retry_ms":null}"#,
    ];

    #[test]
    fn old_lines_read_and_write_back_the_same_value() {
        for line in OLD {
            let ev = Event::parse(line.as_bytes()).unwrap_or_else(|| panic!("unread: {line}"));
            let old: Value = serde_json::from_str(line).unwrap();
            assert_eq!(ev.to_json(), old, "{line}");
            assert_eq!(old["event"], ev.kind());
        }
    }

    #[test]
    fn unknown_or_damaged_events_are_none() {
        assert_eq!(Event::parse(br#"{"event":"from-the-future","x":1}"#), None);
        assert_eq!(Event::parse(br#"{"event":"exit","code":"nine"}"#), None);
        assert_eq!(Event::parse(b"not json"), None);
    }

    #[test]
    fn the_tag_is_the_kind() {
        let ev = Event::exit(ExitInfo {
            code: Some(0),
            signal: None,
        });
        assert_eq!(ev.to_json()["event"], "exit");
        assert_eq!(ev.kind(), "exit");
        assert_eq!(
            Event::StreamEnd.to_json(),
            serde_json::json!({"event": "stream-end"})
        );
        let restart = Event::Restart { attempt: 2 };
        assert_eq!(
            restart.to_json(),
            serde_json::json!({"event": "restart", "attempt": 2})
        );
        assert_eq!(
            Event::parse(br#"{"event":"restart","attempt":2}"#),
            Some(restart)
        );
    }

    #[test]
    fn losses_say_what_happened() {
        assert_eq!(Loss::SessionExpired.to_string(), SESSION_EXPIRED);
        assert_eq!(Loss::StdoutClosed.to_string(), EOF_RUNNING);
        assert_eq!(Loss::from("x".to_string()).to_string(), "x");
    }
}
