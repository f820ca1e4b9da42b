//! The control connection of `proxy --intercept`: JSON lines over TCP on
//! 127.0.0.1. The controller (`attach --intercept`) writes [`Command`]s,
//! the first of which is `hello` with the token from the proxy's registry
//! entry (anything else first, or a wrong token, closes the connection);
//! the proxy writes [`Report`]s. One controller at a time: a second is
//! refused. When the controller goes, the breakpoint is cleared and what
//! is held is forwarded as it was, so a closed TUI never strands a message.

use serde::{Deserialize, Serialize};

/// A line longer than this is no command (an edited message included).
pub const MAX_LINE: usize = 16 << 20;
/// Messages held at once, at most: past it, a message a breakpoint
/// selects passes, and the controller is told.
pub const MAX_HELD: usize = 1024;

/// Where a message goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    Host,
    Server,
}

impl Side {
    /// `host` or `server`, in a sentence.
    pub fn name(self) -> &'static str {
        match self {
            Side::Host => "host",
            Side::Server => "server",
        }
    }

    /// The stream label of `injected` events: `server→host`, `host→server`.
    pub fn stream(self) -> &'static str {
        match self {
            Side::Host => "server→host",
            Side::Server => "host→server",
        }
    }
}

/// What the controller asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Command {
    /// The first line: the token of the proxy's registry entry.
    Hello { token: String },
    /// Hold every message `filter` selects (the filter language,
    /// docs/filters.md) from now on; `None` holds nothing more (what is
    /// held stays held).
    Break { filter: Option<String> },
    /// Send held message `id` on: as it was, or as `message` (edited).
    Forward {
        id: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// Never send held message `id`.
    Drop { id: u64 },
    /// Send `message` to `to`, which its peer never sent.
    Forge { to: Side, message: String },
}

/// What the proxy says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "report", rename_all = "kebab-case")]
pub enum Report {
    /// The breakpoint in force: after `hello` and after each `break`.
    Breakpoint { filter: Option<String> },
    /// Message `id`, on its way to `to`, is held; it was read `age_ms` ago
    /// (0 when just held; more for what was held before the controller
    /// connected).
    Held {
        id: u64,
        to: Side,
        message: String,
        age_ms: u64,
    },
    /// Held message `id` left the hold: `forwarded`, `edited`, `dropped`,
    /// or `gone` (its stream ended).
    Released { id: u64, how: String },
    /// A message was forged and sent to `to`.
    Forged { to: Side },
    /// A command that could not be done, or what a bound refused.
    Error { message: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_reports_read_back_as_written() {
        let c = Command::Forward {
            id: 3,
            message: None,
        };
        let line = serde_json::to_string(&c).unwrap();
        assert_eq!(line, r#"{"op":"forward","id":3}"#);
        assert_eq!(serde_json::from_str::<Command>(&line).unwrap(), c);
        let r = Report::Held {
            id: 1,
            to: Side::Host,
            message: "{}".into(),
            age_ms: 0,
        };
        let line = serde_json::to_string(&r).unwrap();
        assert_eq!(
            line,
            r#"{"report":"held","id":1,"to":"host","message":"{}","age_ms":0}"#
        );
        assert_eq!(serde_json::from_str::<Report>(&line).unwrap(), r);
        let forge: Command =
            serde_json::from_str(r#"{"op":"forge","to":"server","message":"{}"}"#).unwrap();
        assert_eq!(
            forge,
            Command::Forge {
                to: Side::Server,
                message: "{}".into()
            }
        );
    }
}
