//! A server to connect to, resolved: a stdio command (with its environment
//! and working directory) or an HTTP endpoint (with its headers and the
//! transport flavour to speak), whichever way the user named it.

use crate::protocol::secrets::redact_json;
pub use crate::protocol::secrets::redact_url;
use crate::transport::http::Flavor;
use crate::transport::stdio::CommandSpec;
use serde_json::{Value, json};

/// A usage or configuration problem: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

pub(crate) fn usage(msg: impl Into<String>) -> UsageError {
    UsageError(msg.into())
}

/// A resolved server to connect to.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerSpec {
    Stdio {
        name: String,
        cmd: CommandSpec,
    },
    Http {
        name: String,
        url: String,
        headers: Vec<(String, String)>,
        /// Streamable HTTP, legacy HTTP+SSE, or found by probing.
        flavor: Flavor,
    },
}

impl ServerSpec {
    pub fn name(&self) -> &str {
        match self {
            ServerSpec::Stdio { name, .. } | ServerSpec::Http { name, .. } => name,
        }
    }

    /// The spec as JSON for trace headers, secrets redacted unless asked not to.
    pub fn to_json(&self, redacted: bool) -> Value {
        let mut v = match self {
            ServerSpec::Stdio { name, cmd } => json!({
                "name": name, "transport": "stdio", "argv": cmd.argv,
                "env": cmd.env.iter().map(|(k, v)| (k.clone(), Value::from(v.clone()))).collect::<serde_json::Map<_, _>>(),
                "cwd": cmd.cwd.as_ref().map(|p| p.display().to_string()),
            }),
            ServerSpec::Http {
                name, url, headers, ..
            } => json!({
                "name": name, "transport": "http", "url": url,
                "headers": headers.iter().map(|(k, v)| format!("{k}: {v}")).collect::<Vec<_>>(),
            }),
        };
        if redacted {
            redact_json(&mut v);
            if let ServerSpec::Http { url, .. } = self {
                v["url"] = Value::String(redact_url(url));
            }
        }
        v
    }
}

/// What can be known wrong before anything starts: a working directory that
/// does not exist (the spawn error would blame the program), a URL that is
/// not an http(s) URL.
pub fn check_spec(spec: &ServerSpec, cwd_flag: bool) -> Result<(), UsageError> {
    match spec {
        ServerSpec::Stdio { cmd, name } => {
            if let Some(dir) = &cmd.cwd
                && !dir.is_dir()
            {
                let what = if cwd_flag {
                    format!("--cwd {}", dir.display())
                } else {
                    format!("the working directory {} of server {name:?}", dir.display())
                };
                return Err(usage(format!(
                    "{what}: {}",
                    if dir.exists() {
                        "not a directory"
                    } else {
                        "no such directory"
                    }
                )));
            }
        }
        ServerSpec::Http { url, .. } => match reqwest::Url::parse(url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.has_host() => {}
            Ok(u) => {
                return Err(usage(format!(
                    "--url {}: mcpscope speaks http:// and https:// URLs, not {}:",
                    redact_url(url),
                    u.scheme()
                )));
            }
            Err(e) => {
                return Err(usage(format!(
                    "--url {}: not a valid URL ({e})",
                    crate::protocol::sanitize::one_line(&redact_url(url))
                )));
            }
        },
    }
    Ok(())
}

/// The server part of the equivalent `mcpscope call` command, already
/// shell-quoted: options, and the stdio command, which must come last
/// (everything after `--` is the server's own argv).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerCli {
    pub options: String,
    /// The server's argv, without the `--`; empty when it is not a stdio command.
    pub command: String,
}

impl From<String> for ServerCli {
    fn from(options: String) -> ServerCli {
        ServerCli {
            options,
            command: String::new(),
        }
    }
}

impl From<&str> for ServerCli {
    fn from(options: &str) -> ServerCli {
        options.to_string().into()
    }
}

/// Quote one argument for a shell, only when it needs it: single quotes,
/// or `$'…'` (bash, zsh, ksh, POSIX.1-2024) when it holds a control or
/// invisible character. Such a character is never written raw: in a
/// command the user pastes into a terminal, an escape can end bracketed
/// paste and a newline run what follows.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        s.to_string()
    } else if s.chars().any(must_escape) {
        dollar_quote(s)
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Characters a shell word must not carry raw: controls (C0, DEL, C1) and
/// the invisible ones the screen names `<U+XXXX>` (bidi overrides,
/// zero-width spaces).
fn must_escape(c: char) -> bool {
    c.is_control() || crate::protocol::sanitize::is_invisible(c)
}

/// `$'…'` with every character that [`must_escape`] as `\xHH` escapes of
/// its UTF-8 bytes (bytes, not `\u`: their meaning does not depend on the
/// shell's locale), and the few with short names by those.
fn dollar_quote(s: &str) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str("$'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '\'' => out.push_str(r"\'"),
            '\n' => out.push_str(r"\n"),
            '\t' => out.push_str(r"\t"),
            '\r' => out.push_str(r"\r"),
            c if must_escape(c) => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    let _ = write!(out, "\\x{b:02x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}
