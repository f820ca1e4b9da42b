//! The authorization options every server-taking command has
//! (`--client-id`, `--client-secret`, `--no-auth-cache`, `--auth-agent`, …)
//! and the authorization setup they make. Apart from `auth`, which also
//! manages the token cache, so the server's own options (`spec`) can hold
//! them without naming the `auth` command.

use crate::auth::{Agent, AuthConfig};
use crate::protocol::sanitize::one_line;
use clap::{Args, ValueEnum};
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

#[derive(Args, Debug, Clone)]
pub struct AuthArgs {
    /// OAuth client id registered with the server's authorization server
    /// (otherwise mcpscope registers itself where the server allows it).
    #[arg(long, help_heading = "Authorization")]
    pub client_id: Option<String>,
    /// Its client secret (confidential clients).
    #[arg(
        long,
        env = "MCPSCOPE_CLIENT_SECRET",
        hide_env_values = true,
        help_heading = "Authorization"
    )]
    pub client_secret: Option<String>,
    /// A Client ID Metadata Document URL to use as the client id where the
    /// authorization server accepts them.
    #[arg(long, value_name = "URL", help_heading = "Authorization")]
    pub client_metadata_url: Option<String>,
    /// The loopback port of the redirect URI (what a pre-registered client
    /// registered: http://127.0.0.1:PORT/callback); default: any free port.
    #[arg(long, value_name = "PORT", help_heading = "Authorization")]
    pub callback_port: Option<u16>,
    /// Neither read nor write the token cache (tokens live for this run only).
    #[arg(long, help_heading = "Authorization")]
    pub no_auth_cache: bool,
    /// Do not run the authorization flow on a 401 at all.
    #[arg(long, help_heading = "Authorization")]
    pub no_auth: bool,
    /// Print the authorization URL without opening a browser.
    #[arg(long, help_heading = "Authorization")]
    pub no_browser: bool,
    /// Who carries out the authorization request: a browser (default on a
    /// terminal), `fetch` (follow the redirects over HTTP: servers that
    /// approve without a person), `none` (fail; default without a terminal).
    #[arg(long, value_enum, hide = true)]
    pub auth_agent: Option<AgentArg>,
    /// Deadline of each HTTP exchange of the authorization flow, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30.0, hide = true)]
    pub auth_timeout: f64,
}

impl Default for AuthArgs {
    fn default() -> Self {
        AuthArgs {
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            callback_port: None,
            no_auth_cache: false,
            no_auth: false,
            no_browser: false,
            auth_agent: None,
            auth_timeout: 30.0,
        }
    }
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentArg {
    Browser,
    Fetch,
    None,
}

/// Where the flow may ask a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Face {
    /// A headless command: the URL on stderr, a pasted redirect on stdin.
    Headless,
    /// The TUI owns the terminal: the browser only (the URL is in the
    /// Network pane).
    Tui,
}

impl AuthArgs {
    /// The authorization setup, or `None` with `--no-auth`.
    pub fn config(&self, face: Face) -> Option<AuthConfig> {
        if self.no_auth {
            return None;
        }
        let terminal = std::io::stderr().is_terminal() && std::io::stdin().is_terminal();
        let agent = match self.auth_agent {
            Some(AgentArg::Fetch) => Agent::Fetch,
            Some(AgentArg::None) => Agent::Refuse,
            Some(AgentArg::Browser) => browser(face, !self.no_browser),
            None if terminal || face == Face::Tui => browser(face, !self.no_browser),
            None => Agent::Refuse,
        };
        Some(AuthConfig {
            client_id: self.client_id.clone(),
            client_secret: self.client_secret.clone(),
            client_metadata_url: self.client_metadata_url.clone(),
            cache: !self.no_auth_cache,
            callback_port: self.callback_port,
            agent,
            timeout: Duration::from_secs_f64(self.auth_timeout.clamp(0.01, 3600.0)),
            ..AuthConfig::default()
        })
    }
}

pub(super) fn browser(face: Face, open: bool) -> Agent {
    match face {
        Face::Headless => Agent::Browser {
            open,
            paste: std::io::stdin().is_terminal(),
            // Line by line: the URL stays on a line of its own, to copy.
            show: Arc::new(|s: &str| {
                for (i, line) in s.lines().enumerate() {
                    let tag = if i == 0 { "[auth] " } else { "" };
                    eprintln!("{tag}{}", one_line(line));
                }
            }),
        },
        Face::Tui => Agent::Browser {
            open,
            paste: false,
            show: Arc::new(|_: &str| {}),
        },
    }
}
