//! MCP method names used by the inspector.

pub const INITIALIZE: &str = "initialize";
pub const INITIALIZED: &str = "notifications/initialized";
pub const PING: &str = "ping";
pub const TOOLS_LIST: &str = "tools/list";
pub const TOOLS_CALL: &str = "tools/call";
pub const SET_LEVEL: &str = "logging/setLevel";
pub const PROGRESS: &str = "notifications/progress";
pub const MESSAGE: &str = "notifications/message";
pub const CANCELLED: &str = "notifications/cancelled";
pub const ROOTS_LIST: &str = "roots/list";
pub const ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
pub const ELICIT: &str = "elicitation/create";
pub const SERVER_DISCOVER: &str = "server/discover";
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
pub const RESOURCES_LIST: &str = "resources/list";
pub const RESOURCE_TEMPLATES_LIST: &str = "resources/templates/list";
pub const PROMPTS_LIST: &str = "prompts/list";
pub const SAMPLING: &str = "sampling/createMessage";
pub const TASKS_GET: &str = "tasks/get";
pub const TASKS_RESULT: &str = "tasks/result";
pub const TASKS_CANCEL: &str = "tasks/cancel";
/// The 2026-07-28 tasks extension: input responses for a task.
pub const TASKS_UPDATE: &str = "tasks/update";
/// The 2026-07-28 tasks extension's status notification.
pub const TASKS_NOTIFY: &str = "notifications/tasks";
pub const TASKS_LIST: &str = "tasks/list";
pub const TASKS_STATUS: &str = "notifications/tasks/status";

/// JSON-RPC error codes mcpscope sends or interprets.
pub mod codes {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
}
