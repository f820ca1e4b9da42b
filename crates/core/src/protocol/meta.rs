//! The `_meta` vocabulary: the keys MCP reserves inside a request's or
//! result's `_meta`, and the `resultType` a 2026-07-28 result declares.
//! Every place that reads or writes one of these spells it from here.

use serde_json::Value;

/// The object that carries the keys below.
pub const META: &str = "_meta";
/// The token a request offers for progress notifications.
pub const PROGRESS_TOKEN: &str = "progressToken";
/// 2026-07-28: the revision each stateless request speaks.
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// 2026-07-28: the client's capabilities, sent with each stateless request.
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// 2026-07-28: who the client is, sent with each stateless request.
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// 2026-07-28: who the server is, in its results.
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// 2026-07-28: the least log level a request wants notifications at.
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// The task a message belongs to (`{taskId}`).
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// 2026-07-28: the `subscriptions/listen` stream a notification answers.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// What a 2026-07-28 result is (`resultType`); a result without one is
/// complete, as every earlier revision's is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResultType {
    Complete,
    InputRequired,
    Task,
    /// A word no revision defines, as sent.
    Other(String),
}

impl ResultType {
    /// The key that carries it.
    pub const KEY: &'static str = "resultType";

    pub fn parse(s: &str) -> ResultType {
        match s {
            "complete" => ResultType::Complete,
            "input_required" => ResultType::InputRequired,
            "task" => ResultType::Task,
            other => ResultType::Other(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
            ResultType::Other(s) => s,
        }
    }

    /// The `resultType` a result declares, when it declares one as a string.
    pub fn of(result: &Value) -> Option<ResultType> {
        result
            .get(ResultType::KEY)
            .and_then(Value::as_str)
            .map(ResultType::parse)
    }
}

/// The task id a message's `_meta` relates it to.
pub fn related_task(v: &Value) -> Option<&str> {
    v.get(META)?.get(RELATED_TASK)?.get("taskId")?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn result_types_read_back_as_sent() {
        for word in ["complete", "input_required", "task", "later"] {
            let t = ResultType::parse(word);
            assert_eq!(t.as_str(), word);
            assert_eq!(ResultType::of(&json!({"resultType": word})), Some(t));
        }
        assert_eq!(ResultType::of(&json!({"content": []})), None);
        assert_eq!(ResultType::of(&json!({"resultType": 1})), None);
        assert_eq!(
            ResultType::parse("later"),
            ResultType::Other("later".into())
        );
    }

    #[test]
    fn the_related_task() {
        let v = json!({"_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t"}}});
        assert_eq!(related_task(&v), Some("t"));
        assert_eq!(related_task(&json!({"_meta": {}})), None);
    }
}
