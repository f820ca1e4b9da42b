//! What a call's row says of how it ended: a [`CallStatus`] (icon, colour,
//! label, a view of [`Ending`]) and the note beside it. Texts are made
//! safe for one row here (a server chooses them).

use super::Ending;
use crate::event::ExitInfo;
use crate::protocol::sanitize::one_line_max;

/// Characters of a note kept.
pub const NOTE_CHARS: usize = 400;

/// Server text for a note: one line, bounded.
pub fn safe_note(s: &str) -> String {
    one_line_max(s, NOTE_CHARS)
}

/// How a call ended, as its row shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallStatus {
    Running,
    Done,
    /// The tool answered with `isError: true`.
    ToolError,
    /// A JSON-RPC error response.
    RpcError,
    Cancelled,
    TimedOut,
    /// The server exited while the call was in flight.
    Crashed,
    /// The request could not be completed for another reason (see the note).
    Failed,
    /// The result asks for input (`resultType: input_required`).
    InputRequired,
}

impl CallStatus {
    pub fn label(self) -> &'static str {
        match self {
            CallStatus::Running => "running",
            CallStatus::Done => "done",
            CallStatus::ToolError => "error",
            CallStatus::RpcError => "rpc error",
            CallStatus::Cancelled => "cancelled",
            CallStatus::TimedOut => "timed out",
            CallStatus::Crashed => "crashed",
            CallStatus::Failed => "failed",
            CallStatus::InputRequired => "input required",
        }
    }

    pub fn is_running(self) -> bool {
        self == CallStatus::Running
    }

    /// The status an end gives a call; `None` for a closed stdout, which
    /// leaves it running here: the server's exit (or the transport's
    /// failure) that follows ends it, with the reason worth showing.
    pub fn of(how: &Ending) -> Option<CallStatus> {
        Some(match how {
            Ending::Running => CallStatus::Running,
            Ending::Done => CallStatus::Done,
            Ending::ToolError => CallStatus::ToolError,
            Ending::RpcError { .. } => CallStatus::RpcError,
            Ending::InputRequired { .. } => CallStatus::InputRequired,
            Ending::Cancelled { .. } => CallStatus::Cancelled,
            Ending::TimedOut { .. } => CallStatus::TimedOut,
            Ending::Exited(_) => CallStatus::Crashed,
            Ending::Failed { .. } => CallStatus::Failed,
            Ending::Eof => return None,
        })
    }
}

/// The note shown beside a call that ended this way.
pub fn note(how: &Ending) -> String {
    match how {
        Ending::RpcError { message } => message.as_deref().map(safe_note).unwrap_or_default(),
        Ending::Cancelled { reason, how: None } => {
            reason.as_deref().map(safe_note).unwrap_or_default()
        }
        Ending::Cancelled {
            reason,
            how: Some(how),
        } => format!(
            "{} ({})",
            safe_note(reason.as_deref().unwrap_or_default()),
            safe_note(how)
        ),
        Ending::TimedOut { limit, secs } => format!(
            "{} timeout of {}s",
            safe_note(limit),
            crate::format::num(*secs)
        ),
        Ending::Exited(exit) => exit_note(*exit),
        Ending::Failed { error } => safe_note(error),
        Ending::Running
        | Ending::Done
        | Ending::ToolError
        | Ending::InputRequired { .. }
        | Ending::Eof => String::new(),
    }
}

/// The server's exit, for the call notes and the header.
pub fn exit_note(exit: ExitInfo) -> String {
    match (exit.code, exit.signal) {
        (Some(c), _) => format!("the server exited with status {c}"),
        (None, Some(s)) => format!("the server was killed by signal {s}"),
        _ => "the server exited".to_string(),
    }
}
