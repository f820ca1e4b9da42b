//! MCP authorization (OAuth 2.1 as the MCP spec profiles it, 2025-03-26
//! to 2026-07-28) for HTTP servers: on a `401` the [`Authorizer`] finds the
//! authorization server (`discovery`), gets a client identity and runs the
//! authorization code flow with PKCE (`flow`, the redirect coming back to
//! a loopback listener, `callback`; the token endpoint's answers reviewed
//! by `token`), and keeps the tokens — in memory, and
//! in the token cache (`store`) unless told not to. A `403` with
//! `insufficient_scope` asks again with the union of the scopes; tokens
//! are refreshed before they expire and when the server refuses them.
//!
//! Every HTTP exchange of the flow and every change of state is an event in
//! the session's trace (`auth-http`, `auth`); tokens and secrets never are.
//! The transport knows only the [`crate::transport::http::Authorize`] trait.

pub mod callback;
pub mod challenge;
pub mod discovery;
mod error;
pub mod fetch;
pub mod flow;
pub mod probe;
pub mod store;
pub mod token;

use crate::event::Event;
use callback::Callback;
use challenge::Challenge;
use discovery::Discovered;
pub use error::AuthError;
use fetch::{Emit, Fetcher};
use reqwest::Url;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use store::{Entry, now};

/// Who carries out the authorization request.
#[derive(Clone)]
pub enum Agent {
    /// A person with a browser: the URL is shown (`show`), the system
    /// browser opened when `open`, and the redirect taken from the loopback
    /// listener or, when `paste`, from a URL typed on stdin.
    Browser {
        open: bool,
        paste: bool,
        show: Arc<dyn Fn(&str) + Send + Sync>,
    },
    /// Follow the authorization endpoint's redirects with an HTTP client:
    /// for authorization servers that approve without a person (test and
    /// conformance servers).
    Fetch,
    /// Nobody to ask: fail, saying what to run.
    Refuse,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Agent::Browser { .. } => "Browser",
            Agent::Fetch => "Fetch",
            Agent::Refuse => "Refuse",
        })
    }
}

/// How to authorize.
#[derive(Debug, Clone)]
pub struct AuthConfig {
    /// Pre-registered client credentials.
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    /// A Client ID Metadata Document URL, used where the server takes them.
    pub client_metadata_url: Option<String>,
    /// Read and write the token cache.
    pub cache: bool,
    pub agent: Agent,
    /// Deadline of each HTTP exchange of the flow.
    pub timeout: Duration,
    /// How long to wait for the person at the browser.
    pub wait: Duration,
    pub client_name: String,
    /// The loopback port of the redirect URI (a pre-registered client's
    /// registered one); otherwise any free port.
    pub callback_port: Option<u16>,
}

impl Default for AuthConfig {
    fn default() -> Self {
        AuthConfig {
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            cache: true,
            agent: Agent::Refuse,
            timeout: Duration::from_secs(30),
            wait: Duration::from_secs(300),
            client_name: "mcpscope".into(),
            callback_port: None,
        }
    }
}

/// How many authorizations one request may trigger (the first, then
/// step-ups) before its refusal is final.
const MAX_AUTHORIZATIONS: u32 = 3;

/// Authorization for one MCP server URL.
pub struct Authorizer {
    server: Url,
    cfg: AuthConfig,
    emit: Mutex<Emit>,
    entry: Mutex<Option<Entry>>,
    /// One flow or refresh at a time; requests refused meanwhile wait and
    /// then retry with what it got.
    flow: tokio::sync::Mutex<()>,
    /// The header a refresh forced by a refusal produced: refused again,
    /// it is not refreshed again but authorized anew (the server may have
    /// moved to another authorization server).
    refreshed_on_refusal: Mutex<Option<String>>,
    /// Time spent in finished flows, and when the running one started.
    paused: Mutex<(Duration, Option<std::time::Instant>)>,
}

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authorizer")
            .field("server", &self.server.as_str())
            .field("cfg", &self.cfg)
            .finish_non_exhaustive()
    }
}

impl Authorizer {
    /// For `server`, with the cached tokens when the cache is on.
    pub fn new(server: &str, cfg: AuthConfig) -> Result<Arc<Authorizer>, AuthError> {
        let url = Url::parse(server).map_err(|source| AuthError::BadUrl {
            url: server.to_string(),
            source,
        })?;
        // A damaged cache is replaced by the next authorization.
        let entry = if cfg.cache {
            store::get(url.as_str()).unwrap_or(None)
        } else {
            None
        };
        Ok(Arc::new(Authorizer {
            server: url,
            cfg,
            emit: Mutex::new(Arc::new(|_| {})),
            entry: Mutex::new(entry),
            flow: tokio::sync::Mutex::new(()),
            refreshed_on_refusal: Mutex::new(None),
            paused: Mutex::new((Duration::ZERO, None)),
        }))
    }

    /// Send the flow's events to `emit` from now on.
    pub fn attach(&self, emit: Emit) {
        *self.emit.lock().unwrap_or_else(|e| e.into_inner()) = emit;
    }

    fn emit(&self, ev: Event) {
        let e = self.emit.lock().unwrap_or_else(|e| e.into_inner()).clone();
        e(ev);
    }

    fn state(&self, state: &str, detail: Option<String>) {
        self.emit(Event::Auth {
            state: state.to_string(),
            detail,
        });
    }

    fn fetcher(&self) -> Result<Fetcher, AuthError> {
        let emit = self.emit.lock().unwrap_or_else(|e| e.into_inner()).clone();
        Fetcher::new(self.cfg.timeout, emit)
    }

    pub fn server(&self) -> &str {
        self.server.as_str()
    }

    /// The current grant, if any.
    pub fn entry(&self) -> Option<Entry> {
        self.entry.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The `Authorization` header value to send now.
    pub fn header(&self) -> Option<String> {
        self.entry
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|e| format!("Bearer {}", e.tokens.access_token))
    }

    fn keep(&self, e: Entry) {
        if self.cfg.cache
            && let Err(why) = store::put(e.clone())
        {
            self.state("cache-error", Some(why.to_string()));
        }
        *self.entry.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
    }

    /// Refresh a token that expires within a minute (before a request).
    pub async fn ready(&self) {
        let due = |e: &Option<Entry>| {
            e.as_ref().is_some_and(|e| {
                e.tokens.refresh_token.is_some()
                    && e.tokens.expires_at.is_some_and(|t| t <= now() + 60)
            })
        };
        if !due(&self.entry.lock().unwrap_or_else(|e| e.into_inner())) {
            return;
        }
        let _g = self.flow.lock().await;
        let current = self.entry();
        if due(&current)
            && let Some(e) = current
        {
            self.state(
                "expired",
                Some("the access token is about to expire".into()),
            );
            let _ = self.refresh(e).await;
        }
    }

    async fn refresh(&self, e: Entry) -> Result<(), AuthError> {
        let f = self.fetcher()?;
        match flow::refresh(&f, &e.meta, &e.client, &e.resource, &e.tokens).await {
            Ok(tokens) => {
                let detail = describe(&e.client, &tokens);
                self.keep(Entry {
                    tokens,
                    saved: now(),
                    ..e
                });
                self.state("refreshed", Some(detail));
                Ok(())
            }
            Err(why) => {
                self.state("refresh-failed", Some(why.to_string()));
                Err(why)
            }
        }
    }

    /// The server refused a request sent with `sent` (`status` 401, or 403
    /// with `insufficient_scope`): get credentials worth retrying with.
    pub async fn refused(
        &self,
        status: u16,
        challenges: &[String],
        sent: Option<&str>,
    ) -> Result<(), AuthError> {
        let ch = Challenge::parse(challenges.iter().map(String::as_str));
        let _g = self.flow.lock().await;
        let current = self.header();
        if current.is_some() && current.as_deref() != sent {
            // Renewed while this request was out.
            return Ok(());
        }
        let step_up = status == 403 && ch.insufficient_scope();
        let refused_after_refresh = sent.is_some()
            && self
                .refreshed_on_refusal
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_deref()
                == sent;
        if !step_up
            && !refused_after_refresh
            && let Some(e) = self.entry()
            && e.tokens.refresh_token.is_some()
            && sent.is_some()
        {
            self.state(
                "expired",
                Some("the server refused the access token".into()),
            );
            if self.refresh(e).await.is_ok() {
                *self
                    .refreshed_on_refusal
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()) = self.header();
                return Ok(());
            }
        }
        self.login(&ch, step_up).await.map(|_| ())
    }

    /// Run the whole flow (the caller holds `flow`, or nobody else runs).
    async fn login(&self, ch: &Challenge, step_up: bool) -> Result<Entry, AuthError> {
        self.state(
            "authorizing",
            Some(if step_up {
                format!(
                    "the server wants scope {:?}",
                    ch.scope.as_deref().unwrap_or("")
                )
            } else {
                format!("authorization needed for {}", fetch::no_query(&self.server))
            }),
        );
        self.paused.lock().unwrap_or_else(|e| e.into_inner()).1 = Some(std::time::Instant::now());
        let r = self.login_inner(ch).await;
        {
            let mut p = self.paused.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(since) = p.1.take() {
                p.0 += since.elapsed();
            }
        }
        match &r {
            Ok(e) => self.state("authorized", Some(describe(&e.client, &e.tokens))),
            Err(AuthError::NeedsLogin) => self.state(
                "failed",
                Some(format!(
                    "authorization needed: run `mcpscope auth login --url {}`",
                    self.server
                )),
            ),
            Err(e) => self.state("failed", Some(e.to_string())),
        }
        r
    }

    async fn login_inner(&self, ch: &Challenge) -> Result<Entry, AuthError> {
        if matches!(self.cfg.agent, Agent::Refuse) {
            return Err(AuthError::NeedsLogin);
        }
        let f = self.fetcher()?;
        let d: Discovered =
            discovery::discover(&f, &self.server, ch.resource_metadata.as_deref()).await?;
        let prior = self.entry();
        // Credentials belong to the authorization server that issued them.
        let same_as = prior
            .as_ref()
            .filter(|p| discovery::same_issuer(&p.issuer, &d.issuer));
        let cached_reg = same_as.map(|p| p.client.clone());
        let prior_scope = same_as.and_then(|p| p.tokens.scope.clone());
        let scope = flow::select_scope(
            ch.scope.as_deref(),
            d.prm.as_ref(),
            &d.meta,
            prior_scope.as_deref(),
        );
        let (reg, tokens) = match self
            .authorize_as(&f, &d, cached_reg.as_ref(), scope.as_deref())
            .await
        {
            // A dynamic registration the server no longer knows (it was
            // restarted, it expires them): register once more.
            Err(AuthError::ClientRejected(why))
                if cached_reg.as_ref().is_some_and(|r| r.how == "dynamic") =>
            {
                self.state("client-rejected", Some(why));
                self.authorize_as(&f, &d, None, scope.as_deref()).await?
            }
            r => r?,
        };
        let e = Entry {
            server: self.server.to_string(),
            issuer: d.issuer.clone(),
            resource: d.resource.clone(),
            meta: d.meta.clone(),
            client: reg,
            tokens,
            saved: now(),
        };
        self.keep(e.clone());
        Ok(e)
    }

    /// Get a client identity (`cached` if usable) and run the authorization.
    async fn authorize_as(
        &self,
        f: &Fetcher,
        d: &Discovered,
        cached: Option<&store::Registration>,
        scope: Option<&str>,
    ) -> Result<(store::Registration, store::Tokens), AuthError> {
        let wanted_port = cached
            .and_then(|r| r.redirect_uri.as_deref())
            .and_then(|u| Url::parse(u).ok())
            .and_then(|u| u.port())
            .unwrap_or(0);
        if let Some(port) = self.cfg.callback_port {
            // Registered with this port: no other will do.
            let cb = Callback::bind(port).await.map_err(|e| {
                AuthError::Failed(format!(
                    "cannot listen on 127.0.0.1:{port} for the redirect: {e}"
                ))
            })?;
            let reg = flow::identity(f, &self.cfg, d, &cb.redirect_uri, cached).await?;
            let tokens = flow::authorize(f, &self.cfg, d, &reg, scope, cb).await?;
            return Ok((reg, tokens));
        }
        let cb = match Callback::bind(wanted_port).await {
            Ok(cb) => cb,
            Err(_) if wanted_port != 0 => Callback::bind(0).await.map_err(|e| {
                AuthError::Failed(format!("cannot listen on 127.0.0.1 for the redirect: {e}"))
            })?,
            Err(e) => {
                return Err(AuthError::Failed(format!(
                    "cannot listen on 127.0.0.1 for the redirect: {e}"
                )));
            }
        };
        let reg = flow::identity(f, &self.cfg, d, &cb.redirect_uri, cached).await?;
        let tokens = flow::authorize(f, &self.cfg, d, &reg, scope, cb).await?;
        Ok((reg, tokens))
    }

    /// Time spent in authorization flows so far, a running one included.
    pub fn paused(&self) -> Duration {
        let p = self.paused.lock().unwrap_or_else(|e| e.into_inner());
        p.0 + p.1.map_or(Duration::ZERO, |s| s.elapsed())
    }

    /// `mcpscope auth login`: authorize now, without waiting for a `401`.
    pub async fn login_now(&self) -> Result<Entry, AuthError> {
        let _g = self.flow.lock().await;
        self.login(&Challenge::default(), false).await
    }

    /// `mcpscope auth login`, once authorized: does the server take the
    /// token? One `initialize` with it (and the user's `extra` headers);
    /// the verdict is a `checked` state too. `Err`: no answer to tell.
    pub async fn check_token(
        &self,
        extra: &[(String, String)],
    ) -> Result<probe::Verdict, AuthError> {
        let authorization = self.header().ok_or(AuthError::NoToken)?;
        let f = self.fetcher()?;
        let verdict = probe::check(&f, &self.server, &authorization, extra).await?;
        self.state("checked", Some(verdict.to_string()));
        Ok(verdict)
    }
}

/// `client X (dynamic), scope "a b", expires in 3600s` — no secrets, and
/// the client id the authorization server chose sanitised.
pub fn describe(client: &store::Registration, t: &store::Tokens) -> String {
    let mut s = format!(
        "client {} ({})",
        crate::protocol::sanitize::one_line(&client.client_id),
        client.how
    );
    if let Some(sc) = &t.scope {
        s.push_str(&format!(", scope {sc:?}"));
    }
    if let Some(at) = t.expires_at {
        let left = at.saturating_sub(now());
        s.push_str(&format!(", expires in {left}s"));
    }
    if t.refresh_token.is_some() {
        s.push_str(", refreshable");
    }
    s
}

impl crate::transport::http::Authorize for Authorizer {
    fn header(&self) -> Option<String> {
        Authorizer::header(self)
    }

    fn attach(&self, emit: Emit) {
        Authorizer::attach(self, emit);
    }

    fn paused(&self) -> Duration {
        Authorizer::paused(self)
    }

    fn ready(&self) -> futures_util::future::BoxFuture<'_, ()> {
        Box::pin(Authorizer::ready(self))
    }

    /// A 401, or a 403 whose Bearer challenge asks for more scope (a step
    /// up), while the request has had fewer than `MAX_AUTHORIZATIONS`.
    fn wants(&self, status: u16, challenges: &[String], attempts: u32) -> bool {
        attempts < MAX_AUTHORIZATIONS
            && (status == 401
                || (status == 403
                    && Challenge::parse(challenges.iter().map(String::as_str))
                        .insufficient_scope()))
    }

    fn refused<'a>(
        &'a self,
        status: u16,
        challenges: &'a [String],
        sent: Option<&'a str>,
    ) -> futures_util::future::BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            self.refused(status, challenges, sent)
                .await
                .map_err(|e| match e {
                    AuthError::NeedsLogin => format!(
                        "there is no terminal to authorize on: run `mcpscope auth login --url {}` first \
                         (or pass -H 'Authorization: Bearer …')",
                        self.server
                    ),
                    e => format!("authorization failed: {e}"),
                })
        })
    }
}
