//! Copying text to the clipboard (`y`), and saying truthfully where it went.
//!
//! Outside tmux the text goes to the terminal as OSC 52, which most modern
//! terminals put on the clipboard (and some ignore). Inside tmux OSC 52 from
//! an application does nothing under tmux's default `set-clipboard
//! external`, so the text is handed to tmux itself (`load-buffer -w`, which
//! tmux 3.2+ passes to the outer terminal's clipboard unless set-clipboard
//! is off), and the notice says which of those happened. (An OSC 52 from
//! here would reach the clipboard only under `set-clipboard on`.)

use std::io::Write;
use std::process::{Command, Stdio};

/// Where the text went, as the notice tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Landed {
    /// Written to the terminal as OSC 52.
    Osc52,
    /// In tmux's paste buffer, and passed on to the terminal's clipboard.
    TmuxClipboard,
    /// In tmux's paste buffer only: its `set-clipboard` is off.
    TmuxBufferOnly,
    /// In tmux's paste buffer only: this tmux has no `load-buffer -w`.
    TmuxOld,
    /// tmux could not be handed the text (the error): nothing was copied.
    TmuxFailed(String),
}

impl Landed {
    /// The status line after copying `bytes` bytes of `what`.
    pub fn notice(&self, what: &str, bytes: usize) -> String {
        let n = crate::format::thousands(bytes as u64);
        match self {
            Landed::Osc52 => format!(
                "{what} ({n} bytes) sent to the terminal's clipboard with OSC 52 (a terminal without OSC 52 ignores it)"
            ),
            Landed::TmuxClipboard => {
                format!("copied {what} ({n} bytes): tmux's paste buffer and the clipboard")
            }
            Landed::TmuxBufferOnly => format!(
                "copied {what} ({n} bytes) to tmux's paste buffer only (prefix ] pastes it): tmux's set-clipboard is off; `set -g set-clipboard external` lets it reach the clipboard"
            ),
            Landed::TmuxOld => format!(
                "copied {what} ({n} bytes) to tmux's paste buffer only (prefix ] pastes it): this tmux cannot pass it to the clipboard (tmux 3.2 can)"
            ),
            Landed::TmuxFailed(why) => {
                format!("{what} ({n} bytes) not copied: tmux load-buffer failed ({why})")
            }
        }
    }
}

/// Whether mcpscope runs inside tmux (tmux sets `TMUX` for its panes).
pub fn in_tmux() -> bool {
    std::env::var_os("TMUX").is_some_and(|v| !v.is_empty())
}

/// The OSC 52 sequence that puts `text` on the terminal's clipboard.
pub fn osc52(text: &str) -> String {
    use base64::Engine;
    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{b64}\x07")
}

/// Hand `text` to tmux; blocking (run it off the UI thread).
pub fn via_tmux(text: &str) -> Landed {
    match load_buffer(text, true) {
        Ok(()) => match set_clipboard().as_deref() {
            Some("off") => Landed::TmuxBufferOnly,
            _ => Landed::TmuxClipboard,
        },
        // tmux before 3.2 knows no -w: the buffer alone still works there.
        Err(why) if why.unknown_flag() => match load_buffer(text, false) {
            Ok(()) => Landed::TmuxOld,
            Err(why) => Landed::TmuxFailed(why.to_string()),
        },
        Err(why) => Landed::TmuxFailed(why.to_string()),
    }
}

/// Why tmux did not take the text.
#[derive(Debug, thiserror::Error)]
enum TmuxError {
    /// tmux could not be run, fed or waited for.
    #[error("tmux: {0}")]
    Run(#[from] std::io::Error),
    /// tmux said no: its stderr, on one line.
    #[error("{0}")]
    Refused(String),
}

impl TmuxError {
    /// Whether this tmux does not know `load-buffer -w` (before 3.2).
    fn unknown_flag(&self) -> bool {
        let why = self.to_string();
        why.contains("-w") || why.contains("unknown flag")
    }
}

fn load_buffer(text: &str, clipboard: bool) -> Result<(), TmuxError> {
    let mut cmd = Command::new("tmux");
    cmd.arg("load-buffer");
    if clipboard {
        cmd.arg("-w");
    }
    let mut child = cmd
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(text.as_bytes())?;
    }
    let out = child.wait_with_output()?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    Err(TmuxError::Refused(crate::protocol::sanitize::one_line_max(
        err.trim(),
        120,
    )))
}

/// tmux's `set-clipboard` option, as `show-options` prints it.
fn set_clipboard() -> Option<String> {
    let out = Command::new("tmux")
        .args(["show-options", "-gv", "set-clipboard"])
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_carries_the_text_in_base64() {
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
    }

    #[test]
    fn each_notice_says_where_the_text_is() {
        assert!(Landed::Osc52.notice("frame #3", 12).contains("OSC 52"));
        let only = Landed::TmuxBufferOnly.notice("frame #3", 1234);
        assert!(only.contains("1,234 bytes") && only.contains("paste buffer only"));
        assert!(only.contains("set -g set-clipboard external"));
        assert!(!Landed::TmuxClipboard.notice("x", 1).contains("only"));
        let failed = Landed::TmuxFailed("no server".into()).notice("x", 1);
        assert!(failed.contains("not copied") && failed.contains("no server"));
    }
}
