//! Authorization on the command line: the options every server-taking
//! command has (`--client-id`, `--client-secret`, `--no-auth-cache`, …) and
//! `mcpscope auth login|status|logout`, which manage the token cache.
//! Tokens and secrets are never printed, and every line is sanitised: the
//! authorization server chose much of what is in it (client ids, issuers,
//! scopes, the reasons it refused).

/// A line of the command's result on stdout (checked: `super::stdout`).
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(super::stdout::lock(), $($t)*);
    }};
}

use super::spec::{ServerArgs, ServerSpec, UsageError};
use crate::auth::probe::Verdict;
use crate::auth::{Agent, Authorizer, describe, store};
use crate::event::{Event, Status};
use crate::protocol::sanitize::one_line;
use clap::{Args, Subcommand};
use serde_json::json;
use std::sync::Arc;

use super::auth_args::browser;
pub use super::auth_args::{AgentArg, AuthArgs, Face};

#[derive(Args, Debug)]
pub struct AuthCmdArgs {
    #[command(subcommand)]
    pub cmd: AuthCmd,
}

#[derive(Subcommand, Debug)]
pub enum AuthCmd {
    /// Authorize now and cache the tokens.
    Login(ServerArgs),
    /// The cached authorizations (all, or SERVER's): no tokens shown.
    Status {
        #[command(flatten)]
        server: ServerArgs,
        /// One JSON object per server.
        #[arg(long)]
        json: bool,
    },
    /// Forget SERVER's tokens and client registration (or every server's with --all).
    Logout {
        #[command(flatten)]
        server: ServerArgs,
        #[arg(long)]
        all: bool,
    },
}

pub async fn run(a: AuthCmdArgs) -> i32 {
    match a.cmd {
        AuthCmd::Login(s) => login(&s).await,
        AuthCmd::Status { server, json } => status(&server, json),
        AuthCmd::Logout { server, all } => logout(&server, all),
    }
}

/// The URL of the HTTP server the arguments name.
fn server_url(s: &ServerArgs) -> Result<String, UsageError> {
    http_server(s).map(|(url, _)| url)
}

/// The URL and the headers (`-H`, a config entry's) of the HTTP server the
/// arguments name.
fn http_server(s: &ServerArgs) -> Result<(String, Vec<(String, String)>), UsageError> {
    match s.resolve()? {
        ServerSpec::Http { url, headers, .. } => Ok((url, headers)),
        ServerSpec::Stdio { .. } => Err(UsageError(
            "authorization is for HTTP servers: give --url URL (or a config entry with a url)"
                .into(),
        )),
    }
}

fn has_server(s: &ServerArgs) -> bool {
    s.url.is_some() || s.config.is_some()
}

async fn login(s: &ServerArgs) -> i32 {
    let (url, headers) = match http_server(s) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("[error] {e}");
            return 2;
        }
    };
    let Some(mut cfg) = s.auth_config(Face::Headless) else {
        eprintln!("[error] --no-auth and auth login contradict each other");
        return 2;
    };
    // Said before the browser opens, not after the person signed in.
    if cfg.cache
        && let Err(e) = store::check_dir()
    {
        eprintln!("[error] {}", one_line(&e.to_string()));
        return 2;
    }
    let cache = cfg.cache;
    if matches!(cfg.agent, Agent::Refuse) && s.auth.auth_agent.is_none() {
        // Asked explicitly: print the URL and wait even without a terminal.
        cfg.agent = browser(Face::Headless, !s.auth.no_browser);
    }
    let auth = match Authorizer::new(&url, cfg) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("[error] {e}");
            return 2;
        }
    };
    auth.attach(Arc::new(print_event));
    let e = match auth.login_now().await {
        Ok(e) => e,
        Err(e) => {
            eprintln!("[error] authorization failed: {}", one_line(&e.to_string()));
            return 3;
        }
    };
    let verdict = auth.check_token(&headers).await.map_err(|e| e.to_string());
    report_login(&e, verdict, cache)
}

/// What `auth login` says once authorized, by what the server made of the
/// token (`Err`: it could not be asked); the exit code.
fn report_login(e: &store::Entry, verdict: Result<Verdict, String>, cache: bool) -> i32 {
    match verdict {
        Ok(Verdict::Accepted(_)) => {
            let line = format!(
                "authorized {} by {}: {}",
                crate::session::spec::redact_url(&e.server),
                e.issuer,
                describe(&e.client, &e.tokens)
            );
            out!("{}", one_line(&line));
            0
        }
        Ok(Verdict::Refused(status, error)) => {
            // A token the server does not take would only be refused again.
            if cache {
                let _ = store::remove(Some(&e.server));
            }
            let error = error.map_or(String::new(), |e| format!(", {}", one_line(&e)));
            eprintln!(
                "[error] the server refused the new token (HTTP {status}{error}), so it was not kept: \
                 the authorization server may have issued it for another resource"
            );
            3
        }
        Err(why) => {
            let kept = if cache {
                "; it is cached (`mcpscope auth status`)"
            } else {
                ""
            };
            eprintln!(
                "[error] the new token could not be checked with the server: {}{kept}",
                one_line(&why)
            );
            3
        }
    }
}

/// `[auth] …` lines for the flow's events (no secrets are in them).
pub fn print_event(ev: Event) {
    if let Some(line) = auth_line(&ev) {
        eprintln!("{}", one_line(&line));
    }
}

/// The `[auth]` line of an authorization event (unsanitised).
pub fn auth_line(ev: &Event) -> Option<String> {
    match ev {
        Event::AuthHttp {
            step,
            method,
            url,
            status,
            ms,
        } => {
            let st = match status {
                Status::Code(c) => c.to_string(),
                Status::Failed(w) => w.clone(),
            };
            Some(format!("[auth] {step}: {method} {url} -> {st} ({ms} ms)"))
        }
        Event::Auth { state, detail } => Some(match detail {
            Some(d) => format!("[auth] {state}: {d}"),
            None => format!("[auth] {state}"),
        }),
        _ => None,
    }
}

fn status(s: &ServerArgs, json_out: bool) -> i32 {
    let wanted = if has_server(s) {
        match server_url(s) {
            Ok(u) => Some(u),
            Err(e) => {
                eprintln!("[error] {e}");
                return 2;
            }
        }
    } else {
        None
    };
    let entries = match store::all() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("[error] {e}");
            return 2;
        }
    };
    let norm = |u: &str| reqwest::Url::parse(u).map_or(u.to_string(), |u| u.to_string());
    let shown: Vec<_> = entries
        .iter()
        .filter(|e| wanted.as_deref().is_none_or(|w| norm(w) == e.server))
        .collect();
    for e in &shown {
        let now = store::now();
        let expired = e.tokens.expires_at.is_some_and(|t| t <= now);
        if json_out {
            let line = json!({
                "server": crate::session::spec::redact_url(&e.server),
                "issuer": e.issuer,
                "client_id": e.client.client_id,
                "registration": e.client.how,
                "scope": e.tokens.scope,
                "expires_at": e.tokens.expires_at,
                "expired": expired,
                "refreshable": e.tokens.refresh_token.is_some(),
            });
            out!("{}", terminal_json(&line));
        } else {
            let line = format!(
                "{}  {}  by {}: {}",
                crate::session::spec::redact_url(&e.server),
                if expired { "expired" } else { "authorized" },
                e.issuer,
                describe(&e.client, &e.tokens)
            );
            out!("{}", one_line(&line));
        }
    }
    if shown.is_empty() {
        match &wanted {
            Some(w) => eprintln!("not authorized: {}", crate::session::spec::redact_url(w)),
            None => eprintln!("no cached authorizations"),
        }
        if wanted.is_some() {
            return 1;
        }
    }
    if let Some(p) = store::path() {
        eprintln!("token cache: {}", p.display());
    }
    0
}

/// `v` as one line of JSON whose invisible and control characters are `\u`
/// escapes: the same value, nothing a terminal would act on.
fn terminal_json(v: &serde_json::Value) -> String {
    let text = v.to_string();
    crate::protocol::json_text::reformat(&text, false)
        .unwrap_or_else(|_| one_line(&text).into_owned())
}

fn logout(s: &ServerArgs, all: bool) -> i32 {
    let target = match (all, has_server(s)) {
        (true, true) => {
            eprintln!("[error] give a server or --all, not both");
            return 2;
        }
        (true, false) => None,
        (false, false) => {
            eprintln!("[error] which server? give --url URL (or --all)");
            return 2;
        }
        (false, true) => match server_url(s) {
            Ok(u) => Some(reqwest::Url::parse(&u).map_or(u.clone(), |x| x.to_string())),
            Err(e) => {
                eprintln!("[error] {e}");
                return 2;
            }
        },
    };
    match store::remove(target.as_deref()) {
        Ok(n) => {
            match &target {
                Some(t) if n == 0 => {
                    out!("not authorized: {}", crate::session::spec::redact_url(t))
                }
                Some(t) => out!("logged out: {}", crate::session::spec::redact_url(t)),
                None => out!("logged out of {n} server(s)"),
            }
            0
        }
        Err(e) => {
            eprintln!("[error] {e}");
            2
        }
    }
}
