//! What the user chose for a session and for each request.

use crate::protocol::{IdKey, Revision};
use std::time::Duration;

/// Which progress token a request carries.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TokenPolicy {
    /// No `_meta.progressToken`: a correct server sends no progress.
    None,
    /// A fresh string unique in this session (`"mcpscope-3"`).
    #[default]
    AutoString,
    /// A fresh integer unique in this session.
    AutoInt,
    /// Exactly this token (string or integer).
    Explicit(IdKey),
}

impl TokenPolicy {
    /// `auto`, `none`, a number (an integer token) or any other string.
    pub fn parse(s: &str) -> TokenPolicy {
        match s {
            "auto" => TokenPolicy::AutoString,
            "auto-int" => TokenPolicy::AutoInt,
            "none" => TokenPolicy::None,
            _ => match s.parse::<i64>() {
                Ok(i) => TokenPolicy::Explicit(IdKey::Int(i)),
                Err(_) => TokenPolicy::Explicit(IdKey::Str(s.into())),
            },
        }
    }
}

/// How to answer `elicitation/create`; the capability is declared only when set.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitMode {
    Decline,
    /// Accept with the schema's defaults.
    Defaults,
    /// Accept with this content, once it passes the requested schema;
    /// content that does not is answered `cancel` and reported.
    Accept(serde_json::Map<String, serde_json::Value>),
}

impl ElicitMode {
    /// `decline`, `defaults` or `accept:JSON` (a JSON object).
    pub fn parse(s: &str) -> Result<ElicitMode, String> {
        match s {
            "decline" => Ok(ElicitMode::Decline),
            "defaults" => Ok(ElicitMode::Defaults),
            _ => match s.strip_prefix("accept:") {
                Some(json) => match serde_json::from_str(json) {
                    Ok(serde_json::Value::Object(m)) => Ok(ElicitMode::Accept(m)),
                    Ok(_) => Err("accept:JSON needs a JSON object".into()),
                    Err(e) => Err(format!("accept:JSON is not valid JSON: {e}")),
                },
                None => Err(format!(
                    "expected decline, defaults or accept:JSON, got {s:?}"
                )),
            },
        }
    }
}

/// How to answer `sampling/createMessage`; `sampling` is declared only when set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SampleMode {
    /// The user rejects the request (JSON-RPC error -1).
    Decline,
    /// An assistant message with this text.
    Text(String),
}

impl SampleMode {
    /// `decline`, or the reply text.
    pub fn parse(s: &str) -> SampleMode {
        match s {
            "decline" => SampleMode::Decline,
            _ => SampleMode::Text(s.to_string()),
        }
    }
}

/// How a session is established (`--protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EraChoice {
    /// `initialize` handshake at `ClientOptions::revision`.
    #[default]
    Handshake,
    /// 2026-07-28: no handshake, `server/discover`, per-request `_meta`.
    Modern,
    /// Probe `server/discover`; fall back to `initialize` on any
    /// non-modern answer or a timeout.
    Auto,
}

/// Session-wide options.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub era: EraChoice,
    /// The revision asked for in `initialize` (handshake era).
    pub revision: Revision,
    /// Stateless era: open a `subscriptions/listen` stream after discovery.
    pub listen: bool,
    /// Redact secrets in what mcpscope itself records (the spawn event's argv and env).
    pub redact: bool,
    /// Each request carries a fresh W3C `traceparent` in its `_meta`.
    pub trace_context: bool,
    /// How long `--protocol auto` waits for `server/discover`.
    pub probe_timeout: Duration,
    /// `roots/list` answers (paths or file:// URIs); the capability is declared when non-empty.
    pub roots: Vec<String>,
    pub elicit: Option<ElicitMode>,
    pub sample: Option<SampleMode>,
    /// Elicitation and sampling requests the options above do not answer go
    /// to the user ([`crate::client::Session::take_asks`]); `elicitation`
    /// (form and URL) and `sampling` are then declared.
    pub ask_user: bool,
    pub client_name: String,
    /// Limits for the handshake and the short requests around calls: the
    /// user's own `--timeout`/`--max-timeout` (there is no progress to reset
    /// the idle one, so the smaller wins).
    pub handshake: Limits,
    pub shutdown_grace: Duration,
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            era: EraChoice::Handshake,
            revision: Revision::LATEST_HANDSHAKE,
            probe_timeout: Duration::from_secs(5),
            listen: false,
            redact: true,
            trace_context: true,
            roots: Vec::new(),
            elicit: None,
            sample: None,
            ask_user: false,
            client_name: "mcpscope".into(),
            handshake: Limits {
                idle: Some(Duration::from_secs(60)),
                max: Some(Duration::from_secs(600)),
            },
            shutdown_grace: Duration::from_secs(2),
        }
    }
}

/// Per-request time limits (MCP: reset on progress if you like, but always cap).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// Idle timeout, reset by each progress notification for the request's token.
    pub idle: Option<Duration>,
    /// Hard maximum, never reset.
    pub max: Option<Duration>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answer_modes() {
        assert_eq!(ElicitMode::parse("decline"), Ok(ElicitMode::Decline));
        assert_eq!(ElicitMode::parse("defaults"), Ok(ElicitMode::Defaults));
        let ElicitMode::Accept(m) = ElicitMode::parse(r#"accept:{"a":1}"#).unwrap() else {
            panic!("accept")
        };
        assert_eq!(m["a"], 1);
        assert!(
            ElicitMode::parse("accept:[1]")
                .unwrap_err()
                .contains("object")
        );
        assert!(
            ElicitMode::parse("accept:{")
                .unwrap_err()
                .contains("not valid JSON")
        );
        assert!(
            ElicitMode::parse("yes")
                .unwrap_err()
                .contains("accept:JSON")
        );
        assert_eq!(SampleMode::parse("decline"), SampleMode::Decline);
        assert_eq!(SampleMode::parse("hi"), SampleMode::Text("hi".into()));
    }

    #[test]
    fn token_policies() {
        assert_eq!(TokenPolicy::parse("auto"), TokenPolicy::AutoString);
        assert_eq!(TokenPolicy::parse("none"), TokenPolicy::None);
        assert_eq!(
            TokenPolicy::parse("42"),
            TokenPolicy::Explicit(IdKey::Int(42))
        );
        assert_eq!(
            TokenPolicy::parse("abc"),
            TokenPolicy::Explicit(IdKey::Str("abc".into()))
        );
    }
}
