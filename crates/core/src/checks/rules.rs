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
    ProtocolVersionNewer,
    ToolLessSafeInSession,
}

impl Rule {
    pub const ALL: [Rule; 57] = [
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
        Rule::ProtocolVersionNewer,
        Rule::ToolLessSafeInSession,
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
            Rule::ProtocolVersionNewer => "protocol-version-newer",
            Rule::ToolLessSafeInSession => "tool-less-safe-in-session",
        }
    }

    /// Judged from one frame (or one exchange) alone, whichever host
    /// session it belongs to: such a rule stays sound on a recording whose
    /// host sessions cannot be told apart. Every other rule keeps a
    /// session's ids, tokens, levels or capabilities.
    pub fn frame_local(self) -> bool {
        matches!(
            self,
            Rule::ProgressInvalid
                | Rule::ProgressExceedsTotal
                | Rule::LogInvalidLevel
                | Rule::LogInvalid
                | Rule::JsonrpcInvalid
                | Rule::StdoutNotJsonrpc
                | Rule::ResultNotObject
                | Rule::ResponseNullId
                | Rule::HttpContentType
                | Rule::FrameOversized
                | Rule::ElicitationSchemaInvalid
                | Rule::TraceContextInvalid
                | Rule::ClientTraceContextInvalid
                | Rule::ClientNoProgressToken
        )
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
            | Rule::ServerRequestsUnanswered
            | Rule::ToolLessSafeInSession => Severity::Warning,
            Rule::ProgressStalled
            | Rule::ClientNoProgressToken
            | Rule::ResponseAfterCancel
            | Rule::DeprecatedFeature
            | Rule::ClientDeprecatedFeature
            | Rule::ServerSpanTraceNotContinued
            | Rule::ProtocolVersionNewer => Severity::Info,
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
            Rule::ProtocolVersionNewer => {
                "the initialize result names a protocolVersion newer than any revision mcpscope knows (a dated revision after 2026-07-28): what it adds is not judged, and the session goes on at the revision the client offered"
            }
            Rule::ToolLessSafeInSession => {
                "a tool listed again within one session (after notifications/tools/list_changed, or without it) is less safe than the same session listed it before: readOnlyHint true → false, destructiveHint false → true, idempotentHint true → false, openWorldHint false → true, or a new required input"
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

/// A page (and section) of the specification at modelcontextprotocol.io.
macro_rules! spec {
    ($rev:literal, $path:literal) => {
        concat!(
            "https://modelcontextprotocol.io/specification/",
            $rev,
            "/",
            $path
        )
    };
}

impl Rule {
    /// How a finding of this rule is usually fixed: the common cause in the
    /// judged party's code (the server's, or the host's for a `client-`
    /// rule) and the change that removes it. Shown with every group of
    /// findings (`check`, SARIF `help`, the TUI, `rules`, docs/checks.md).
    pub fn fix(self) -> &'static str {
        match self {
            Rule::ProgressNotIncreasing => {
                "the reported counter goes back or repeats (steps reported by parallel workers, a counter reset per phase, a retry that starts over): report one running total of the work done, and skip a report that would not raise it"
            }
            Rule::ProgressAfterResponse => {
                "a throttled or background reporter fired after the handler returned: flush or cancel it before returning the result"
            }
            Rule::ProgressUnknownToken => {
                "the server made up a token, kept one from an earlier request, or reports progress to a request that sent none: report only to the _meta.progressToken of the request being handled, exactly as received, and send nothing when it carried none"
            }
            Rule::ProgressInvalid => {
                "the notification is built by hand with the wrong types (progress as a string, the token wrapped in an object, params as an array): send progressToken as received, progress and total as JSON numbers, message as a string — or use the SDK's progress helper"
            }
            Rule::ProgressExceedsTotal => {
                "the total is an estimate the work outgrew, or is counted in another unit than progress (items vs bytes): compute total from the real work in the same unit, or leave total out while it is not known"
            }
            Rule::ProgressTotalChanged => {
                "the total is recomputed while the work runs (a listing that grows, a second phase added): settle it before the first report, or leave total out until it is known"
            }
            Rule::ProgressFlood => {
                "progress is sent on every loop iteration or chunk: throttle the reporter (e.g. at most every 100 ms or every 1% of the total) and always send the final value"
            }
            Rule::ProgressBuffered => {
                "the notifications are held in a buffer flushed only with the response (a block-buffered stdout, a framework or proxy that collects the HTTP body): flush after each notification, and over HTTP answer with text/event-stream and write each event as it happens"
            }
            Rule::ProgressStalled => {
                "the handler blocks in one long step without reporting (a download, a subprocess, a query): report from inside that step — per chunk read or per poll — or split it into steps that each report"
            }
            Rule::LogInvalidLevel => {
                "a logging library's level name is passed through unmapped (warn, fatal, trace, a number): map your levels to the RFC 5424 names debug, info, notice, warning, error, critical, alert, emergency"
            }
            Rule::LogBelowLevel => {
                "the handler logs to the client through a logger that ignores the level the client set: keep the level from logging/setLevel (or the request's _meta logLevel) and drop messages below it before sending"
            }
            Rule::LogWithoutCapability => {
                "logs are forwarded to the client but the initialize result declares no logging capability: declare capabilities.logging (and handle logging/setLevel), or log to stderr instead. The Python SDK declares it only when a setLevel handler is registered (low-level Server: `@server.set_logging_level()`); where the SDK, not your code, leaves it out, `check --allow log-without-capability` keeps it out of the verdict"
            }
            Rule::LogUnrequested => {
                "the server logs to every request as it did with a session-wide level: at 2026-07-28 send notifications/message only for a request whose _meta carries io.modelcontextprotocol/logLevel, at that level or above"
            }
            Rule::LogAfterResponse => {
                "a logger bound to the request is used after the handler returned (a background task, a deferred cleanup): stop logging to the request once its result is sent, and log later events to stderr"
            }
            Rule::ResponseUnknownId => {
                "the server answers with an id it made up or converted (its own counter, a string id turned into a number): echo the request's id exactly, with its JSON type"
            }
            Rule::ResponseDuplicate => {
                "the request is answered twice (an error path that also falls through to the normal reply, a timeout handler and the handler both answering): answer exactly once, e.g. return right after sending an error"
            }
            Rule::JsonrpcInvalid => {
                "the message is assembled by hand and breaks the JSON-RPC envelope (no \"jsonrpc\": \"2.0\", both or neither of result and error, an id that is not a string or integer): build messages with the SDK's types or a JSON-RPC library"
            }
            Rule::StdoutNotJsonrpc => {
                "something prints to stdout (a print or console.log, a library's banner, a logger's default handler): send all diagnostics to stderr and keep stdout for MCP messages only"
            }
            Rule::NotificationWrongStream => {
                "the request's notifications go out on a session-wide channel (the standalone GET stream, another request's stream): send them on the request's own response stream, before its response — pass the request's context to the code that notifies"
            }
            Rule::InitializeUnsupportedVersion => {
                "the server answers initialize with a fixed protocolVersion instead of negotiating: answer with the version the client asked for when you support it, else the latest one you support"
            }
            Rule::TaskProgressAfterTerminal => {
                "a task's worker keeps reporting after the task's terminal status was stored: stop the reporter before storing completed, failed or cancelled, or check the status before each report"
            }
            Rule::TaskStatusRegressed => {
                "status writes race: a late worker update overwrites a terminal status (working after cancelled): make the terminal transition final in the task store (compare-and-set) and drop later updates"
            }
            Rule::TaskCancelNotCancelled => {
                "the handler answers from a snapshot read before the cancel was applied: write the cancelled status to the task store first, and build the answer from what was written"
            }
            Rule::ResultNotObject => {
                "the handler's return value is sent as the result as it is (a string, an array, a number): wrap it in the method's result object, e.g. {\"content\": [...]} for tools/call"
            }
            Rule::ResponseNullId => {
                "the server failed to read a request before it knew the id (its parser rejects a valid message: an unknown field, an id type it does not expect): accept every valid JSON-RPC request, and answer with the request's id whenever it can be read"
            }
            Rule::HttpContentType => {
                "the web framework's default content type was left in place (text/plain, text/html, a proxy's error page): answer a request with Content-Type application/json for one JSON body, or text/event-stream for a stream"
            }
            Rule::FrameOversized => {
                "one message carries a huge payload (a whole file, base64 media, a listing without pages): paginate with nextCursor, return a resource link instead of the content, or cut it"
            }
            Rule::ClientDuplicateProgressToken => {
                "the host derives tokens from something that repeats (a constant per tool, a counter reset per connection): give each request a fresh unique token, e.g. a UUID"
            }
            Rule::ClientRequestIdReused => {
                "the host's request id counter repeats (restarted per connection or retry, shared between workers): keep one increasing counter per connection and never reuse an id still awaiting its response"
            }
            Rule::ClientCancelInitialize => {
                "a host-wide timeout or shutdown cancels every pending request, initialize included: close the connection instead of cancelling initialize"
            }
            Rule::ClientCancelUnknownRequest => {
                "the host cancels after the response arrived (a timer not cleared on response) or names a wrong id: clear the request's timer when its response arrives, and cancel only ids still in flight"
            }
            Rule::ClientSetlevelWithoutCapability => {
                "the host sends logging/setLevel whatever the server declared: send it only when the initialize result declares capabilities.logging"
            }
            Rule::ClientCancelledDuringProgress => {
                "the host's timeout is fixed and ignores progress: reset the timeout on each progress notification of the request, and enforce a separate maximum"
            }
            Rule::ClientNoProgressToken => {
                "the host calls tools without _meta.progressToken, so the server cannot report progress: add a unique progressToken to each tools/call whose progress you want to show"
            }
            Rule::ClientResponseUnknownId => {
                "the host answers a server request with an id it did not receive (its own counter, a converted type): echo the server request's id exactly"
            }
            Rule::AuthResourceMismatch => {
                "the protected resource metadata's resource is a hard-coded or internal URL (the server behind a proxy, another host or path): serve the server's public canonical URI as resource"
            }
            Rule::AuthIssuerMismatch => {
                "the authorization server's issuer is configured apart from the URL it is served under (an internal hostname, a trailing slash): set issuer to exactly the URL the metadata is fetched from, and send that same value as iss"
            }
            Rule::AuthPkceUnsupported => {
                "the identity provider was set up without PKCE, or offers only the plain method: turn on S256 PKCE in its configuration and publish it in the discovery document (code_challenge_methods_supported)"
            }
            Rule::AuthMetadataMissing => {
                "the authorization server named in authorization_servers serves no /.well-known/oauth-authorization-server or openid-configuration: publish its metadata there, or name an authorization server that does"
            }
            Rule::ServerRequestWithoutCapability => {
                "the server asks the client without looking at what it declared: check the client's capabilities from initialize before sending elicitation/create, sampling/createMessage or roots/list, and fall back (e.g. to a tool argument) when absent"
            }
            Rule::ResponseAfterCancel => {
                "the handler never looks at cancellation, so it runs to the end and answers: check the request's cancellation signal (abort signal, cancellation token) during long work and stop without answering"
            }
            Rule::LoggingSetlevelRefused => {
                "logging is declared but no logging/setLevel handler is registered: register one (store the level and filter by it), or stop declaring logging"
            }
            Rule::DeprecatedFeature => {
                "the server still declares or uses logging, sampling or roots, which 2026-07-28 deprecates: log to stderr (stdio) or export OpenTelemetry, and take directories and model answers as tool arguments or through input_required results; keep the old feature only for older clients"
            }
            Rule::ClientDeprecatedFeature => {
                "the host still asks for a log level or declares sampling or roots at 2026-07-28: leave the logLevel _meta and those capabilities out for servers of that revision, keeping them only for older ones"
            }
            Rule::ToolOutputInvalid => {
                "the tool's return value and its declared outputSchema drifted apart (a renamed field, a number returned as a string, structuredContent left out): return structuredContent that validates, e.g. by generating the schema from the type the handler returns"
            }
            Rule::ToolSchemaInvalid => {
                "the schema is written by hand or generated from a type the generator does not understand (an inputSchema without \"type\": \"object\", a schema that is not an object): emit a JSON Schema object, inputSchema of type object, and check it with a validator"
            }
            Rule::ToolNameDuplicate => {
                "two tools are registered under one name (two modules, a plugin loaded twice): give each tool a unique name, e.g. prefixed by its module"
            }
            Rule::ToolNameInvalid => {
                "the tool name has spaces, slashes, colons or other characters, or is longer than 128: use only A-Z, a-z, 0-9, _, - and ."
            }
            Rule::LogInvalid => {
                "the log call puts the payload in another field (message, text) or none: put it in data, and make logger a string or leave it out"
            }
            Rule::ElicitationSchemaInvalid => {
                "the form's requestedSchema is a model type exported as it is (nested objects, arrays of objects): flatten the form to top-level string, number, integer, boolean or enum properties, and ask in several forms if needed"
            }
            Rule::TaskStatusUnknown => {
                "a status notification names an id the client never received (an internal job id, a status sent before the answer that creates the task): send the taskId of the CreateTaskResult, after that result"
            }
            Rule::ServerRequestsUnanswered => {
                "the server fires requests in a loop without awaiting the answers (one sampling request per item): await each answer, or bound how many are in flight"
            }
            Rule::TraceContextInvalid => {
                "the _meta trace keys are filled by hand (a span id as traceparent, uppercase or wrong-length ids, an object as baggage): inject them with an OpenTelemetry W3C TraceContext and Baggage propagator"
            }
            Rule::ClientTraceContextInvalid => {
                "the host fills the _meta trace keys by hand (a span id as traceparent, uppercase or wrong-length ids, an object as baggage): inject them with an OpenTelemetry W3C TraceContext and Baggage propagator"
            }
            Rule::ProtocolVersionNewer => {
                "the server answers initialize with its own newest revision whatever the client asked: when it supports the version in the request, answer with that one (the spec's MUST), so older clients keep the revision they know"
            }
            Rule::ServerSpanTraceNotContinued => {
                "the server starts a new root span per request instead of reading the request's _meta.traceparent: extract the context with the W3C propagator and start the SERVER span as its child"
            }
            Rule::ToolLessSafeInSession => {
                "the annotations or schema are computed from runtime state (a mode switch, a plugin reloaded, a login that widens access), so a tool the user approved changes what it does: keep each tool's hints and required inputs fixed for a connection, and register wider behaviour as a separate tool under its own name"
            }
        }
    }

    /// The section of the specification the rule rests on.
    pub fn spec(self) -> &'static str {
        match self {
            Rule::ProgressNotIncreasing
            | Rule::ProgressUnknownToken
            | Rule::ProgressInvalid
            | Rule::ProgressExceedsTotal
            | Rule::ProgressTotalChanged
            | Rule::ProgressAfterResponse
            | Rule::ClientDuplicateProgressToken
            | Rule::ClientNoProgressToken => {
                spec!(
                    "2025-11-25",
                    "basic/utilities/progress#behavior-requirements"
                )
            }
            Rule::ProgressFlood | Rule::ProgressBuffered | Rule::ProgressStalled => {
                spec!(
                    "2025-11-25",
                    "basic/utilities/progress#implementation-notes"
                )
            }
            Rule::LogInvalidLevel => spec!("2025-11-25", "server/utilities/logging#log-levels"),
            Rule::LogBelowLevel | Rule::LoggingSetlevelRefused => {
                spec!("2025-11-25", "server/utilities/logging#setting-log-level")
            }
            Rule::LogWithoutCapability | Rule::ClientSetlevelWithoutCapability => {
                spec!("2025-11-25", "server/utilities/logging#capabilities")
            }
            Rule::LogInvalid => {
                spec!(
                    "2025-11-25",
                    "server/utilities/logging#log-message-notifications"
                )
            }
            Rule::LogUnrequested | Rule::LogAfterResponse => {
                spec!("2026-07-28", "changelog#major-changes")
            }
            Rule::ResponseUnknownId
            | Rule::ResponseDuplicate
            | Rule::ResultNotObject
            | Rule::ResponseNullId
            | Rule::ClientResponseUnknownId => spec!("2025-11-25", "basic#responses"),
            Rule::JsonrpcInvalid => spec!("2025-11-25", "basic#messages"),
            Rule::ClientRequestIdReused | Rule::ServerRequestsUnanswered => {
                spec!("2025-11-25", "basic#requests")
            }
            Rule::StdoutNotJsonrpc => spec!("2025-11-25", "basic/transports#stdio"),
            Rule::NotificationWrongStream | Rule::HttpContentType => {
                spec!("2025-11-25", "basic/transports#streamable-http")
            }
            Rule::FrameOversized => spec!("2025-11-25", "server/utilities/pagination"),
            Rule::InitializeUnsupportedVersion | Rule::ProtocolVersionNewer => {
                spec!("2025-11-25", "basic/lifecycle#version-negotiation")
            }
            Rule::ServerRequestWithoutCapability => {
                spec!("2025-11-25", "basic/lifecycle#capability-negotiation")
            }
            Rule::ClientCancelledDuringProgress => spec!("2025-11-25", "basic/lifecycle#timeouts"),
            Rule::TaskProgressAfterTerminal
            | Rule::TaskStatusRegressed
            | Rule::TaskCancelNotCancelled
            | Rule::TaskStatusUnknown => spec!("2025-11-25", "basic/utilities/tasks"),
            Rule::ClientCancelInitialize
            | Rule::ClientCancelUnknownRequest
            | Rule::ResponseAfterCancel => spec!("2025-11-25", "basic/utilities/cancellation"),
            Rule::AuthResourceMismatch
            | Rule::AuthIssuerMismatch
            | Rule::AuthPkceUnsupported
            | Rule::AuthMetadataMissing => spec!("2025-11-25", "basic/authorization"),
            Rule::DeprecatedFeature | Rule::ClientDeprecatedFeature => {
                spec!("2026-07-28", "deprecated")
            }
            Rule::ToolOutputInvalid => spec!("2025-11-25", "server/tools#output-schema"),
            Rule::ToolSchemaInvalid | Rule::ToolNameDuplicate => {
                spec!("2025-11-25", "server/tools#tool")
            }
            Rule::ToolLessSafeInSession => {
                spec!("2025-11-25", "server/tools#list-changed-notification")
            }
            Rule::ToolNameInvalid => spec!("2025-11-25", "server/tools#tool-names"),
            Rule::ElicitationSchemaInvalid => {
                spec!("2025-11-25", "client/elicitation#requested-schema")
            }
            Rule::TraceContextInvalid
            | Rule::ClientTraceContextInvalid
            | Rule::ServerSpanTraceNotContinued => spec!("2026-07-28", "changelog#minor-changes"),
        }
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

    /// Every rule says how to fix it — not in the words of its description —
    /// and where the specification says so.
    #[test]
    fn every_rule_has_a_fix_and_a_spec_section() {
        let words = |s: &str| -> std::collections::BTreeSet<String> {
            s.split(|c: char| !c.is_alphanumeric())
                .filter(|w| w.len() > 3)
                .map(str::to_lowercase)
                .collect()
        };
        let mut fixes = std::collections::BTreeSet::new();
        for r in Rule::ALL {
            let fix = r.fix();
            assert!(
                fix.len() >= 40,
                "{r}: the fix is too short to act on: {fix:?}"
            );
            assert_ne!(fix, r.description(), "{r}: the fix restates the rule");
            assert!(
                !r.description().contains(fix),
                "{r}: the fix restates the rule"
            );
            // A cause, then the change: "cause: change".
            assert!(fix.contains(": "), "{r}: the fix names no change: {fix:?}");
            // Mostly new words: a fix that only reuses the description's words restates it.
            let (d, f) = (words(r.description()), words(fix));
            let new = f.difference(&d).count();
            assert!(
                new * 2 >= f.len(),
                "{r}: the fix mostly restates the description"
            );
            assert!(fixes.insert(fix), "{r}: the same fix as another rule");
            let spec = r.spec();
            assert!(
                spec.starts_with("https://modelcontextprotocol.io/specification/2025-11-25/")
                    || spec
                        .starts_with("https://modelcontextprotocol.io/specification/2026-07-28/"),
                "{r}: {spec} is no page of a known revision"
            );
            assert!(!spec.contains(' '), "{r}: {spec}");
        }
    }
}
