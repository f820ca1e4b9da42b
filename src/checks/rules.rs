//! The rule catalog of DESIGN §5: ids, severities and descriptions are a
//! contract (CI scripts match on them), so they live in one table.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// How bad a finding is. Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub const ALL: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The side of a session a rule judges.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Party {
    #[default]
    Server,
    Client,
}

impl Party {
    pub fn as_str(self) -> &'static str {
        match self {
            Party::Server => "server",
            Party::Client => "client",
        }
    }
}

/// What a session must have for a rule to apply to it: a rule that cannot
/// apply is not reported as passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    Nothing,
    /// An HTTP transport (Streamable HTTP or legacy HTTP+SSE).
    Http,
    /// An authorization flow (OAuth discovery) in the session.
    Authorization,
}

/// One rule of the catalog. Serialised as its id (`progress-not-increasing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    ProgressNotIncreasing,
    ProgressAfterResponse,
    ProgressUnknownToken,
    ProgressInvalid,
    ProgressExceedsTotal,
    ProgressTotalChanged,
    ProgressFlood,
    ProgressBuffered,
    ProgressStalled,
    LogInvalidLevel,
    LogBelowLevel,
    LogWithoutCapability,
    LogUnrequested,
    LogAfterResponse,
    ResponseUnknownId,
    ResponseDuplicate,
    JsonrpcInvalid,
    StdoutNotJsonrpc,
    NotificationWrongStream,
    InitializeUnsupportedVersion,
    TaskProgressAfterTerminal,
    TaskStatusRegressed,
    TaskCancelNotCancelled,
    ResultNotObject,
    ResponseNullId,
    HttpContentType,
    FrameOversized,
    ClientDuplicateProgressToken,
    ClientRequestIdReused,
    ClientCancelInitialize,
    ClientCancelUnknownRequest,
    ClientSetlevelWithoutCapability,
    ClientCancelledDuringProgress,
    ClientNoProgressToken,
    ClientResponseUnknownId,
    AuthResourceMismatch,
    AuthIssuerMismatch,
    AuthPkceUnsupported,
    AuthMetadataMissing,
    ServerRequestWithoutCapability,
    ResponseAfterCancel,
    LoggingSetlevelRefused,
    DeprecatedFeature,
    ClientDeprecatedFeature,
    ToolOutputInvalid,
    ToolSchemaInvalid,
    ToolNameDuplicate,
    ToolNameInvalid,
    LogInvalid,
    ElicitationSchemaInvalid,
    TaskStatusUnknown,
    ServerRequestsUnanswered,
    TraceContextInvalid,
    ClientTraceContextInvalid,
    ServerSpanTraceNotContinued,
}

impl Rule {
    pub const ALL: [Rule; 55] = [
        Rule::ProgressNotIncreasing,
        Rule::ProgressAfterResponse,
        Rule::ProgressUnknownToken,
        Rule::ProgressInvalid,
        Rule::ProgressExceedsTotal,
        Rule::ProgressTotalChanged,
        Rule::ProgressFlood,
        Rule::ProgressBuffered,
        Rule::ProgressStalled,
        Rule::LogInvalidLevel,
        Rule::LogBelowLevel,
        Rule::LogWithoutCapability,
        Rule::LogUnrequested,
        Rule::LogAfterResponse,
        Rule::ResponseUnknownId,
        Rule::ResponseDuplicate,
        Rule::JsonrpcInvalid,
        Rule::StdoutNotJsonrpc,
        Rule::NotificationWrongStream,
        Rule::InitializeUnsupportedVersion,
        Rule::TaskProgressAfterTerminal,
        Rule::TaskStatusRegressed,
        Rule::TaskCancelNotCancelled,
        Rule::ResultNotObject,
        Rule::ResponseNullId,
        Rule::HttpContentType,
        Rule::FrameOversized,
        Rule::ClientDuplicateProgressToken,
        Rule::ClientRequestIdReused,
        Rule::ClientCancelInitialize,
        Rule::ClientCancelUnknownRequest,
        Rule::ClientSetlevelWithoutCapability,
        Rule::ClientCancelledDuringProgress,
        Rule::ClientNoProgressToken,
        Rule::ClientResponseUnknownId,
        Rule::AuthResourceMismatch,
        Rule::AuthIssuerMismatch,
        Rule::AuthPkceUnsupported,
        Rule::AuthMetadataMissing,
        Rule::ServerRequestWithoutCapability,
        Rule::ResponseAfterCancel,
        Rule::LoggingSetlevelRefused,
        Rule::DeprecatedFeature,
        Rule::ClientDeprecatedFeature,
        Rule::ToolOutputInvalid,
        Rule::ToolSchemaInvalid,
        Rule::ToolNameDuplicate,
        Rule::ToolNameInvalid,
        Rule::LogInvalid,
        Rule::ElicitationSchemaInvalid,
        Rule::TaskStatusUnknown,
        Rule::ServerRequestsUnanswered,
        Rule::TraceContextInvalid,
        Rule::ClientTraceContextInvalid,
        Rule::ServerSpanTraceNotContinued,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Rule::ProgressNotIncreasing => "progress-not-increasing",
            Rule::ProgressAfterResponse => "progress-after-response",
            Rule::ProgressUnknownToken => "progress-unknown-token",
            Rule::ProgressInvalid => "progress-invalid",
            Rule::ProgressExceedsTotal => "progress-exceeds-total",
            Rule::ProgressTotalChanged => "progress-total-changed",
            Rule::ProgressFlood => "progress-flood",
            Rule::ProgressBuffered => "progress-buffered",
            Rule::ProgressStalled => "progress-stalled",
            Rule::LogInvalidLevel => "log-invalid-level",
            Rule::LogBelowLevel => "log-below-level",
            Rule::LogWithoutCapability => "log-without-capability",
            Rule::LogUnrequested => "log-unrequested",
            Rule::LogAfterResponse => "log-after-response",
            Rule::ResponseUnknownId => "response-unknown-id",
            Rule::ResponseDuplicate => "response-duplicate",
            Rule::JsonrpcInvalid => "jsonrpc-invalid",
            Rule::StdoutNotJsonrpc => "stdout-not-jsonrpc",
            Rule::NotificationWrongStream => "notification-wrong-stream",
            Rule::InitializeUnsupportedVersion => "initialize-unsupported-version",
            Rule::TaskProgressAfterTerminal => "task-progress-after-terminal",
            Rule::TaskStatusRegressed => "task-status-regressed",
            Rule::TaskCancelNotCancelled => "task-cancel-not-cancelled",
            Rule::ResultNotObject => "result-not-object",
            Rule::ResponseNullId => "response-null-id",
            Rule::HttpContentType => "http-content-type",
            Rule::FrameOversized => "frame-oversized",
            Rule::ClientDuplicateProgressToken => "client-duplicate-progress-token",
            Rule::ClientRequestIdReused => "client-request-id-reused",
            Rule::ClientCancelInitialize => "client-cancel-initialize",
            Rule::ClientCancelUnknownRequest => "client-cancel-unknown-request",
            Rule::ClientSetlevelWithoutCapability => "client-setlevel-without-capability",
            Rule::ClientCancelledDuringProgress => "client-cancelled-during-progress",
            Rule::ClientNoProgressToken => "client-no-progress-token",
            Rule::ClientResponseUnknownId => "client-response-unknown-id",
            Rule::AuthResourceMismatch => "auth-resource-mismatch",
            Rule::AuthIssuerMismatch => "auth-issuer-mismatch",
            Rule::AuthPkceUnsupported => "auth-pkce-unsupported",
            Rule::AuthMetadataMissing => "auth-metadata-missing",
            Rule::ServerRequestWithoutCapability => "server-request-without-capability",
            Rule::ResponseAfterCancel => "response-after-cancel",
            Rule::LoggingSetlevelRefused => "logging-setlevel-refused",
            Rule::DeprecatedFeature => "deprecated-feature",
            Rule::ClientDeprecatedFeature => "client-deprecated-feature",
            Rule::ToolOutputInvalid => "tool-output-invalid",
            Rule::ToolSchemaInvalid => "tool-schema-invalid",
            Rule::ToolNameDuplicate => "tool-name-duplicate",
            Rule::ToolNameInvalid => "tool-name-invalid",
            Rule::LogInvalid => "log-invalid",
            Rule::ElicitationSchemaInvalid => "elicitation-schema-invalid",
            Rule::TaskStatusUnknown => "task-status-unknown",
            Rule::ServerRequestsUnanswered => "server-requests-unanswered",
            Rule::TraceContextInvalid => "trace-context-invalid",
            Rule::ClientTraceContextInvalid => "client-trace-context-invalid",
            Rule::ServerSpanTraceNotContinued => "server-span-trace-not-continued",
        }
    }

    pub fn severity(self) -> Severity {
        match self {
            Rule::ProgressNotIncreasing
            | Rule::ProgressAfterResponse
            | Rule::ProgressUnknownToken
            | Rule::ProgressInvalid
            | Rule::LogInvalidLevel
            | Rule::LogUnrequested
            | Rule::LogAfterResponse
            | Rule::ResponseUnknownId
            | Rule::ResponseDuplicate
            | Rule::JsonrpcInvalid
            | Rule::StdoutNotJsonrpc
            | Rule::InitializeUnsupportedVersion
            | Rule::TaskProgressAfterTerminal
            | Rule::TaskStatusRegressed
            | Rule::TaskCancelNotCancelled
            | Rule::ResultNotObject
            | Rule::HttpContentType
            | Rule::ClientDuplicateProgressToken
            | Rule::ClientRequestIdReused
            | Rule::ClientCancelInitialize
            | Rule::ClientResponseUnknownId
            | Rule::AuthResourceMismatch
            | Rule::AuthIssuerMismatch
            | Rule::AuthPkceUnsupported
            | Rule::AuthMetadataMissing
            | Rule::ServerRequestWithoutCapability
            | Rule::ToolOutputInvalid
            | Rule::ToolSchemaInvalid
            | Rule::ToolNameDuplicate
            | Rule::LogInvalid
            | Rule::ElicitationSchemaInvalid
            | Rule::TraceContextInvalid
            | Rule::ClientTraceContextInvalid => Severity::Error,
            Rule::ProgressExceedsTotal
            | Rule::ProgressTotalChanged
            | Rule::ProgressFlood
            | Rule::ProgressBuffered
            | Rule::LogBelowLevel
            | Rule::LogWithoutCapability
            | Rule::NotificationWrongStream
            | Rule::ResponseNullId
            | Rule::FrameOversized
            | Rule::ClientCancelUnknownRequest
            | Rule::ClientSetlevelWithoutCapability
            | Rule::ClientCancelledDuringProgress
            | Rule::LoggingSetlevelRefused
            | Rule::ToolNameInvalid
            | Rule::TaskStatusUnknown
            | Rule::ServerRequestsUnanswered => Severity::Warning,
            Rule::ProgressStalled
            | Rule::ClientNoProgressToken
            | Rule::ResponseAfterCancel
            | Rule::DeprecatedFeature
            | Rule::ClientDeprecatedFeature
            | Rule::ServerSpanTraceNotContinued => Severity::Info,
        }
    }

    /// When the rule fires, in the words of DESIGN §5.
    pub fn description(self) -> &'static str {
        match self {
            Rule::ProgressNotIncreasing => "a token's progress is <= its previous value",
            Rule::ProgressAfterResponse => {
                "a progress notification for a token arrives after its request's response (or after cancellation completed)"
            }
            Rule::ProgressUnknownToken => {
                "a token that no request of this client carried (includes progress for a request sent without a token)"
            }
            Rule::ProgressInvalid => {
                "progress params malformed: token not string/integer, progress/total not numbers, message not a string"
            }
            Rule::ProgressExceedsTotal => "progress > total",
            Rule::ProgressTotalChanged => "total changes within one token's stream",
            Rule::ProgressFlood => {
                "a token exceeds the rate threshold (default 50 notifications/s over a 1 s window)"
            }
            Rule::ProgressBuffered => {
                "a call lasting >= 1 s whose notifications all arrived in one burst (default: within 50 ms, back to back: no gap over 5 ms) at or just before the response: delivery was buffered, not live"
            }
            Rule::ProgressStalled => {
                "an active request with a token saw no notification for longer than the stall threshold (default 30 s)"
            }
            Rule::LogInvalidLevel => "notifications/message level is not one of debug...emergency",
            Rule::LogBelowLevel => {
                "a message below the level set by logging/setLevel or the request's _meta logLevel"
            }
            Rule::LogWithoutCapability => {
                "notifications/message from a server that did not declare the logging capability"
            }
            Rule::LogUnrequested => {
                "2026-07-28 era: a log for a request that carried no io.modelcontextprotocol/logLevel"
            }
            Rule::LogAfterResponse => {
                "2026-07-28 era: a request-bound log after that request's response"
            }
            Rule::ResponseUnknownId => "a response whose id matches no outstanding request",
            Rule::ResponseDuplicate => "a second response for the same id",
            Rule::JsonrpcInvalid => "a frame that is JSON but not valid JSON-RPC 2.0",
            Rule::StdoutNotJsonrpc => "a stdio server wrote a line to stdout that is not JSON",
            Rule::NotificationWrongStream => {
                "Streamable HTTP: a request-bound notification arrived on a stream other than that request's"
            }
            Rule::InitializeUnsupportedVersion => {
                "the initialize result names a protocolVersion the client did not offer and does not support"
            }
            Rule::TaskProgressAfterTerminal => {
                "progress for a task's token after the task completed, failed or was cancelled (the token stays valid after CreateTaskResult only while the task runs: \"The progressToken provided in the initial request remains valid throughout the task lifetime.\")"
            }
            Rule::TaskStatusRegressed => {
                "a task status after a terminal status (completed, failed, cancelled) that differs from it: \"Tasks with a completed, failed, or cancelled status are in a terminal state and MUST NOT transition to any other status\""
            }
            Rule::TaskCancelNotCancelled => {
                "2025-11-25 tasks: tasks/cancel succeeded but the task it returns is not cancelled: \"Upon receiving a valid cancellation request, receivers SHOULD attempt to stop the task execution and MUST transition the task to cancelled status before sending the response.\" (a task already terminal must be refused with -32602 instead)"
            }
            Rule::ResultNotObject => "a response's result is not a JSON object",
            Rule::ResponseNullId => {
                "an error response with id null: the server could not tell which request it answers"
            }
            Rule::HttpContentType => {
                "Streamable HTTP: a POST carrying a request was answered with a Content-Type other than application/json or text/event-stream"
            }
            Rule::FrameOversized => {
                "a frame (stdio line, SSE event data, HTTP body) exceeded mcpscope's size cap (256 MiB): only its first bytes are kept"
            }
            Rule::ClientDuplicateProgressToken => {
                "a request carries a progressToken already used by another request still in flight"
            }
            Rule::ClientRequestIdReused => {
                "a request reuses the id of a request still awaiting its response"
            }
            Rule::ClientCancelInitialize => "the client cancels initialize",
            Rule::ClientCancelUnknownRequest => {
                "notifications/cancelled names a request the client never sent or that finished (beyond a short grace, default 250 ms)"
            }
            Rule::ClientSetlevelWithoutCapability => {
                "logging/setLevel sent to a server that did not declare logging"
            }
            Rule::ClientCancelledDuringProgress => {
                "the client cancelled a request whose progress arrived within the last 2 s (a timeout that ignored progress: reset on progress, cap with a maximum)"
            }
            Rule::ClientNoProgressToken => {
                "a tools/call without a progressToken (the server may not report progress)"
            }
            Rule::ClientResponseUnknownId => {
                "the client answered a server->client request id that was never sent"
            }
            Rule::AuthResourceMismatch => {
                "authorization: the protected resource metadata names a resource other than the server it was fetched for (RFC 9728 §3.3)"
            }
            Rule::AuthIssuerMismatch => {
                "authorization: the authorization server's metadata names another issuer than the one it was fetched for (RFC 8414 §3.3), or its authorization response carries a wrong iss or none though it promised one (RFC 9207)"
            }
            Rule::AuthPkceUnsupported => {
                "authorization: the authorization server's metadata does not list S256 in code_challenge_methods_supported (PKCE is required)"
            }
            Rule::AuthMetadataMissing => {
                "authorization: the server has protected resource metadata but its authorization server publishes no metadata (RFC 8414 / OpenID Connect discovery)"
            }
            Rule::ServerRequestWithoutCapability => {
                "elicitation/create, sampling/createMessage or roots/list sent to a client that did not declare that capability (or an elicitation in URL mode to one that did not declare elicitation.url)"
            }
            Rule::ResponseAfterCancel => {
                "a response to a request the client cancelled, arriving after a grace for responses already on their way (default 1 s): \"Receivers of a cancellation notification SHOULD NOT send a response for the cancelled request\" (a -32800 \"request cancelled\" error acknowledges the cancel and is not reported)"
            }
            Rule::LoggingSetlevelRefused => {
                "the server declared the logging capability but answered logging/setLevel with -32601 (method not found): a client cannot set the level it promised"
            }
            Rule::DeprecatedFeature => {
                "2026-07-28 era: the server uses a feature that revision deprecates (SEP-2577: logging, sampling, roots), once per feature and session; it still works, but migrate (logs to stderr or OpenTelemetry)"
            }
            Rule::ClientDeprecatedFeature => {
                "2026-07-28 era: the client uses a feature that revision deprecates (SEP-2577: logging levels, sampling, roots capabilities), once per feature and session"
            }
            Rule::ToolOutputInvalid => {
                "a tools/call result whose structuredContent does not validate against the outputSchema the tool declared in tools/list, or is missing though it declared one (2025-06-18 and later: servers MUST provide structured results that conform to it)"
            }
            Rule::ToolSchemaInvalid => {
                "a tool in tools/list whose inputSchema or outputSchema is not a valid JSON Schema object (inputSchema must be a schema of type object)"
            }
            Rule::ToolNameDuplicate => {
                "two tools of one tools/list listing share a name: a client cannot call either unambiguously"
            }
            Rule::ToolNameInvalid => {
                "2025-11-25 and later: a tool name outside the naming rules (1 to 128 characters of A-Z, a-z, 0-9, _, - and .)"
            }
            Rule::LogInvalid => {
                "notifications/message params malformed: no data (required), or a logger that is not a string"
            }
            Rule::ElicitationSchemaInvalid => {
                "elicitation/create in form mode whose requestedSchema is not a flat object schema of primitive properties (string, number, integer, boolean, or an enum array), as the spec restricts it"
            }
            Rule::TaskStatusUnknown => {
                "notifications/tasks/status for a task id that no answer of the server created (5 s after the status, or by the end of the session)"
            }
            Rule::ServerRequestsUnanswered => {
                "the server sent requests (sampling, elicitation, roots, ping) faster than they could be answered: more than mcpscope keeps waiting at once went unanswered; a server should wait for answers before asking more"
            }
            Rule::TraceContextInvalid => {
                "a traceparent, tracestate or baggage key in the _meta of a message the server sent does not follow the W3C Trace Context or Baggage format (SEP-414: these keys \"follow W3C Trace Context and W3C Baggage value formats\")"
            }
            Rule::ClientTraceContextInvalid => {
                "a traceparent, tracestate or baggage key in the _meta of a message the client sent does not follow the W3C Trace Context or Baggage format (SEP-414)"
            }
            Rule::ServerSpanTraceNotContinued => {
                "a SERVER span the server exported to mcpscope's OTLP receiver for a request (matched by its jsonrpc.request.id and, when present, mcp.method.name attributes) is in another trace than the one the request's _meta.traceparent carried: the server did not continue the client's trace (SEP-414 documents this as the convention, not a MUST)"
            }
        }
    }

    /// Which side of the session the rule judges: the `client-` rules judge
    /// what the client (the host, in a proxied session) sent.
    pub fn party(self) -> Party {
        if self.id().starts_with("client-") {
            Party::Client
        } else {
            Party::Server
        }
    }

    /// What a session must have for the rule to be able to fire.
    pub fn needs(self) -> Needs {
        match self {
            Rule::NotificationWrongStream | Rule::HttpContentType => Needs::Http,
            Rule::AuthResourceMismatch
            | Rule::AuthIssuerMismatch
            | Rule::AuthPkceUnsupported
            | Rule::AuthMetadataMissing => Needs::Authorization,
            _ => Needs::Nothing,
        }
    }

    /// Rules that exist only in the 2026-07-28 (stateless) era.
    pub fn stateless_only(self) -> bool {
        matches!(self, Rule::LogUnrequested | Rule::LogAfterResponse)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Rule {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Rule::ALL
            .into_iter()
            .find(|r| r.id() == s)
            .ok_or_else(|| format!("unknown rule {s:?} (see `mcpscope rules`)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_serde_and_from_str() {
        for r in Rule::ALL {
            assert_eq!(r.id().parse::<Rule>(), Ok(r));
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.id()));
            assert_eq!(serde_json::from_str::<Rule>(&json).unwrap(), r);
        }
        for r in Rule::ALL {
            let client = r.id().starts_with("client-");
            assert_eq!(r.party() == Party::Client, client, "{r}");
        }
        assert!(Severity::Info < Severity::Warning && Severity::Warning < Severity::Error);
    }
}
