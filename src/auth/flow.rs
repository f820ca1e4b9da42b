//! The steps of one authorization: who mcpscope is to the authorization
//! server (pre-registered, a Client ID Metadata Document, or Dynamic Client
//! Registration, in the spec's order), which scopes to ask for, the
//! authorization request (PKCE S256, `state`, `resource`) carried out by an
//! [`Agent`], the checks on what comes back (`state`, `iss`), and the token
//! and refresh exchanges (the `oauth2` crate over the flow's own HTTP).

use super::callback::{Callback, Returned, pasted};
use super::discovery::{Discovered, ResourceMetadata, ServerMetadata};
use super::fetch::{FetchError, Fetcher, no_query};
use super::store::{Registration, Tokens, now};
use super::{Agent, AuthConfig, AuthError};
use crate::protocol::sanitize::one_line;
use crate::transport::http::report::first_line;
use oauth2::basic::{BasicClient, BasicErrorResponseType, BasicTokenResponse};
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointNotSet,
    EndpointSet, PkceCodeChallenge, RedirectUrl, RefreshToken, RequestTokenError, Scope,
    TokenResponse, TokenUrl,
};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue, LOCATION};
use reqwest::{Method, Url};
use serde_json::{Value, json};

type OClient =
    BasicClient<EndpointSet, EndpointNotSet, EndpointNotSet, EndpointNotSet, EndpointSet>;

/// Redirects the fetch agent follows from the authorization endpoint.
const MAX_AGENT_HOPS: usize = 10;

/// The client identity to use with this authorization server: the cached
/// one if it was made with the same issuer, else pre-registered
/// credentials, a metadata document URL when the server takes one, or a
/// dynamic registration.
pub async fn identity(
    f: &Fetcher,
    cfg: &AuthConfig,
    d: &Discovered,
    redirect_uri: &str,
    cached: Option<&Registration>,
) -> Result<Registration, AuthError> {
    let m = &d.meta;
    if let Some(id) = &cfg.client_id {
        let secret = cfg.client_secret.clone();
        let auth_method = match &secret {
            None => "none",
            Some(_) if m.supports_auth_method("client_secret_basic") => "client_secret_basic",
            Some(_) if m.supports_auth_method("client_secret_post") => "client_secret_post",
            Some(_) => "client_secret_basic",
        };
        return Ok(Registration {
            client_id: id.clone(),
            client_secret: secret,
            auth_method: auth_method.into(),
            redirect_uri: None,
            how: "pre-registered".into(),
        });
    }
    if let Some(r) = cached
        && (r.how != "dynamic" || r.redirect_uri.as_deref() == Some(redirect_uri))
    {
        return Ok(r.clone());
    }
    if m.client_id_metadata_document_supported
        && let Some(url) = &cfg.client_metadata_url
    {
        return Ok(Registration {
            client_id: url.clone(),
            client_secret: None,
            auth_method: "none".into(),
            redirect_uri: None,
            how: "metadata-document".into(),
        });
    }
    let Some(endpoint) = &m.registration_endpoint else {
        return Err(AuthError::NoRegistration {
            issuer: d.issuer.clone(),
        });
    };
    register(f, cfg, m, endpoint, redirect_uri).await
}

/// RFC 7591 dynamic registration as a native public client.
async fn register(
    f: &Fetcher,
    cfg: &AuthConfig,
    m: &ServerMetadata,
    endpoint: &str,
    redirect_uri: &str,
) -> Result<Registration, AuthError> {
    let wanted = match &m.token_endpoint_auth_methods_supported {
        Some(list) if !list.iter().any(|x| x == "none") => {
            if list.iter().any(|x| x == "client_secret_basic") {
                "client_secret_basic"
            } else {
                "client_secret_post"
            }
        }
        _ => "none",
    };
    let body = json!({
        "client_name": cfg.client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": wanted,
        "application_type": "native",
    });
    let url = Url::parse(endpoint).map_err(AuthError::RegistrationEndpoint)?;
    let mut h = HeaderMap::new();
    h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    h.insert(ACCEPT, HeaderValue::from_static("application/json"));
    let a = f
        .send(
            "register",
            Method::POST,
            url,
            h,
            Some(serde_json::to_vec(&body).unwrap_or_default()),
        )
        .await?;
    if !a.status.is_success() {
        return Err(AuthError::RegistrationRefused {
            url: no_query(&a.url),
            status: a.status.as_u16(),
            error: oauth_error(&a.body),
        });
    }
    let v: Value = a.json("the registration response")?;
    let client_id = v
        .get("client_id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or(AuthError::NoClientId)?
        .to_string();
    let client_secret = v
        .get("client_secret")
        .and_then(Value::as_str)
        .map(str::to_string);
    let auth_method = match v.get("token_endpoint_auth_method").and_then(Value::as_str) {
        Some(x) => x.to_string(),
        None if client_secret.is_some() => {
            if m.supports_auth_method("client_secret_post")
                && !m.supports_auth_method("client_secret_basic")
            {
                "client_secret_post".into()
            } else {
                "client_secret_basic".into()
            }
        }
        None => "none".into(),
    };
    Ok(Registration {
        client_id,
        client_secret,
        auth_method,
        redirect_uri: Some(redirect_uri.to_string()),
        how: "dynamic".into(),
    })
}

/// `error: description` of an OAuth error body, else its first line; one
/// line, sanitised, whatever the server wrote.
fn oauth_error(body: &[u8]) -> String {
    match serde_json::from_slice::<Value>(body) {
        Ok(v) if v.get("error").is_some() => oauth_refusal(
            v["error"].as_str().unwrap_or("?"),
            v.get("error_description").and_then(Value::as_str),
        ),
        _ => one_line(&first_line(body)).into_owned(),
    }
}

/// An authorization server's `error` and `error_description` as mcpscope
/// quotes them: sanitised, so a refusal cannot write to the terminal.
fn oauth_refusal(error: &str, description: Option<&str>) -> String {
    match description {
        Some(d) => format!("{}: {}", one_line(error), one_line(d)),
        None => one_line(error).into_owned(),
    }
}

/// The scope to ask for (MCP "scope selection strategy"): the challenge's,
/// else everything the resource lists, else none; joined with what was
/// asked before (a step-up keeps what it had); `offline_access` added only
/// when the authorization server lists it.
pub fn select_scope(
    challenged: Option<&str>,
    prm: Option<&ResourceMetadata>,
    meta: &ServerMetadata,
    prior: Option<&str>,
) -> Option<String> {
    fn add(out: &mut Vec<String>, s: &str) {
        for w in s.split_whitespace() {
            if !out.iter().any(|x| x == w) {
                out.push(w.to_string());
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    if let Some(p) = prior {
        add(&mut out, p);
    }
    match challenged.filter(|s| !s.trim().is_empty()) {
        Some(c) => add(&mut out, c),
        None => {
            if let Some(list) = prm.and_then(|p| p.scopes_supported.as_ref()) {
                add(&mut out, &list.join(" "));
            }
        }
    }
    let offline = meta
        .scopes_supported
        .as_ref()
        .is_some_and(|l| l.iter().any(|s| s == "offline_access"));
    if offline && !out.is_empty() {
        add(&mut out, "offline_access");
    }
    (!out.is_empty()).then(|| out.join(" "))
}

fn client(
    m: &ServerMetadata,
    reg: &Registration,
    redirect_uri: &str,
) -> Result<OClient, AuthError> {
    // Metadata from the cache was written by a version that may not have
    // required https: checked again before anything is sent.
    super::discovery::check_endpoints(m)?;
    let mut c = BasicClient::new(ClientId::new(reg.client_id.clone()))
        .set_auth_uri(AuthUrl::new(m.authorization_endpoint.clone()).map_err(AuthError::Endpoint)?)
        .set_token_uri(TokenUrl::new(m.token_endpoint.clone()).map_err(AuthError::Endpoint)?)
        .set_redirect_uri(RedirectUrl::new(redirect_uri.to_string()).map_err(AuthError::Endpoint)?);
    if reg.auth_method != "none"
        && let Some(s) = &reg.client_secret
    {
        c = c.set_client_secret(ClientSecret::new(s.clone()));
    }
    Ok(
        c.set_auth_type(if reg.auth_method == "client_secret_basic" {
            AuthType::BasicAuth
        } else {
            AuthType::RequestBody
        }),
    )
}

/// Run the authorization request and the code exchange.
pub async fn authorize(
    f: &Fetcher,
    cfg: &AuthConfig,
    d: &Discovered,
    reg: &Registration,
    scope: Option<&str>,
    cb: Callback,
) -> Result<Tokens, AuthError> {
    let m = &d.meta;
    if !m.fallback
        && !m
            .code_challenge_methods_supported
            .as_ref()
            .is_some_and(|l| l.iter().any(|x| x == "S256"))
    {
        let why = format!(
            "the authorization server {} does not advertise PKCE S256 (code_challenge_methods_supported); refusing to authorize without it",
            d.issuer
        );
        f.problem("auth-pkce-unsupported", &why);
        return Err(AuthError::Failed(why));
    }
    let c = client(m, reg, &cb.redirect_uri)?;
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let mut req = c
        .authorize_url(CsrfToken::new_random)
        .set_pkce_challenge(challenge)
        .add_extra_param("resource", d.resource.clone());
    for s in scope.unwrap_or("").split_whitespace() {
        req = req.add_scope(Scope::new(s.to_string()));
    }
    let (url, state) = req.url();
    let returned = run_agent(f, cfg, &url, cb).await?;
    let code = check_response(&returned, state.secret(), m).inspect_err(|e| {
        if iss_broken(&returned, state.secret(), m) {
            f.problem("auth-issuer-mismatch", &e.to_string());
        }
    })?;
    let fc = f.clone();
    let http = move |r: oauth2::HttpRequest| {
        let f = fc.clone();
        async move { oauth_http(&f, "token", r).await }
    };
    let resp = c
        .exchange_code(AuthorizationCode::new(code))
        .set_pkce_verifier(verifier)
        .add_extra_param("resource", d.resource.clone())
        .request_async(&http)
        .await
        .map_err(|e| {
            let rejected = matches!(&e, RequestTokenError::ServerResponse(r)
                if matches!(r.error(), BasicErrorResponseType::InvalidClient | BasicErrorResponseType::UnauthorizedClient));
            let why = token_error("token", e);
            if rejected {
                AuthError::ClientRejected(why)
            } else {
                AuthError::Failed(why)
            }
        })?;
    Ok(tokens(&resp, scope, None))
}

/// Use a refresh token (with the same `resource`).
pub async fn refresh(
    f: &Fetcher,
    m: &ServerMetadata,
    reg: &Registration,
    resource: &str,
    old: &Tokens,
) -> Result<Tokens, AuthError> {
    let Some(rt) = &old.refresh_token else {
        return Err(AuthError::NoRefreshToken);
    };
    let redirect = reg
        .redirect_uri
        .clone()
        .unwrap_or_else(|| "http://127.0.0.1/callback".into());
    let c = client(m, reg, &redirect)?;
    let fc = f.clone();
    let http = move |r: oauth2::HttpRequest| {
        let f = fc.clone();
        async move { oauth_http(&f, "refresh", r).await }
    };
    let rt = RefreshToken::new(rt.clone());
    let resp = c
        .exchange_refresh_token(&rt)
        .add_extra_param("resource", resource.to_string())
        .request_async(&http)
        .await
        .map_err(|e| AuthError::Failed(token_error("refresh", e)))?;
    Ok(tokens(
        &resp,
        old.scope.as_deref(),
        old.refresh_token.clone(),
    ))
}

fn tokens(resp: &BasicTokenResponse, asked: Option<&str>, old_refresh: Option<String>) -> Tokens {
    Tokens {
        access_token: resp.access_token().secret().clone(),
        refresh_token: resp
            .refresh_token()
            .map(|r| r.secret().clone())
            .or(old_refresh),
        expires_at: resp.expires_in().map(|d| now() + d.as_secs()),
        scope: resp
            .scopes()
            .map(|s| s.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(" "))
            .or_else(|| asked.map(str::to_string)),
    }
}

fn token_error(
    step: &str,
    e: RequestTokenError<FetchError, oauth2::basic::BasicErrorResponse>,
) -> String {
    match e {
        RequestTokenError::ServerResponse(r) => format!(
            "the {step} request was refused: {}",
            oauth_refusal(
                r.error().as_ref(),
                r.error_description().map(String::as_str)
            )
        ),
        RequestTokenError::Request(FetchError::Unusable { url, why }) => {
            format!("the {step} response from {url} is unusable: {why}")
        }
        RequestTokenError::Request(e) => format!("the {step} request failed: {e}"),
        // The body passed `token::review`, so this is rare; it is still
        // described by where and what, never echoed.
        RequestTokenError::Parse(err, _) => format!(
            "the {step} response does not parse at {} ({}; its values are not shown: it may hold a token)",
            err.path(),
            parse_problem(err.inner())
        ),
        RequestTokenError::Other(s) => {
            format!("the {step} response is unusable: {}", one_line(&s))
        }
    }
}

fn parse_problem(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Syntax => "not valid JSON",
        serde_json::error::Category::Eof => "cut short",
        serde_json::error::Category::Data => "a value of the wrong kind",
        serde_json::error::Category::Io => "unreadable",
    }
}

/// oauth2's requests (to the token endpoint), sent through the flow's
/// fetcher (so they are traced and have a deadline), their answers
/// reviewed before oauth2 parses them (`token::review`).
async fn oauth_http(
    f: &Fetcher,
    step: &str,
    r: oauth2::HttpRequest,
) -> Result<oauth2::HttpResponse, FetchError> {
    let (parts, body) = r.into_parts();
    let url = Url::parse(&parts.uri.to_string()).map_err(|e| FetchError::Failed {
        method: parts.method.to_string(),
        url: parts.uri.to_string(),
        why: e.to_string(),
    })?;
    let a = f
        .send(step, parts.method, url, parts.headers, Some(body))
        .await?;
    let reviewed =
        super::token::review(a.status.as_u16(), &a.content_type, &a.body).map_err(|why| {
            FetchError::Unusable {
                url: no_query(&a.url),
                why,
            }
        })?;
    let mut resp = oauth2::HttpResponse::new(reviewed.body);
    *resp.status_mut() = reqwest::StatusCode::from_u16(reviewed.status).unwrap_or(a.status);
    *resp.headers_mut() = a.headers;
    // The reviewed body is JSON whatever the server called it.
    resp.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(resp)
}

/// Get the authorization response: from the browser via the loopback
/// listener (or a pasted URL), or by following the redirects ourselves.
async fn run_agent(
    f: &Fetcher,
    cfg: &AuthConfig,
    url: &Url,
    cb: Callback,
) -> Result<Returned, AuthError> {
    match &cfg.agent {
        Agent::Refuse => Err(AuthError::NeedsLogin),
        Agent::Fetch => {
            let waiting = tokio::spawn(async move { cb.wait().await });
            let follow = follow_redirects(f, url.clone()).await;
            if let Err((Some(status), why)) = &follow
                && (400..500).contains(status)
            {
                return Err(AuthError::ClientRejected(why.clone()));
            }
            let follow = follow.map_err(|(_, why)| why);
            let got = match follow {
                Ok(()) => tokio::time::timeout(f.timeout, waiting)
                    .await
                    .map_err(|_| "the redirect never reached the callback listener".to_string()),
                Err(e) => {
                    waiting.abort();
                    return Err(AuthError::Failed(e));
                }
            };
            match got {
                Ok(Ok(Ok(q))) => Ok(q),
                Ok(Ok(Err(e))) => Err(AuthError::Failed(format!("callback listener: {e}"))),
                Ok(Err(e)) => Err(AuthError::Failed(format!("callback listener: {e}"))),
                Err(e) => Err(AuthError::Failed(e)),
            }
        }
        Agent::Browser { open, paste, show } => {
            let text = url.to_string();
            // In the trace and on screen too (the TUI shows no stderr): the
            // URL carries no secret, only the request's state and challenge.
            f.emit(crate::event::Event::Auth {
                state: "browser".into(),
                detail: Some(text.clone()),
            });
            show(&format!(
                "Authorize mcpscope in your browser; if it does not open, visit:\n  {text}"
            ));
            if *open && let Err(e) = crate::browser::open(&text) {
                show(&format!("(could not open a browser: {e})"));
            }
            let pasted_rx = if *paste {
                show(&format!(
                    "Waiting for the redirect to {}; on another machine, paste the URL the browser ends on here.",
                    cb.redirect_uri
                ));
                Some(read_pasted_line())
            } else {
                None
            };
            let from_listener = async { cb.wait().await };
            let from_paste = async move {
                match pasted_rx {
                    Some(mut rx) => loop {
                        match rx.recv().await {
                            Some(line) => {
                                if let Some(q) = pasted(&line) {
                                    break Some(q);
                                }
                            }
                            None => break None,
                        }
                    },
                    None => std::future::pending().await,
                }
            };
            let waited = tokio::time::timeout(cfg.wait, async {
                tokio::select! {
                    r = from_listener => r.map_err(|e| format!("callback listener: {e}")),
                    Some(q) = from_paste => Ok(q),
                }
            })
            .await;
            match waited {
                Ok(Ok(q)) => Ok(q),
                Ok(Err(e)) => Err(AuthError::Failed(e)),
                Err(_) => Err(AuthError::Failed(format!(
                    "no authorization response within {}s",
                    cfg.wait.as_secs()
                ))),
            }
        }
    }
}

/// Lines typed on stdin, read on a thread of their own (a blocking read
/// cannot be cancelled; the thread ends with the process).
fn read_pasted_line() -> tokio::sync::mpsc::Receiver<String> {
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    std::thread::spawn(move || {
        let mut line = String::new();
        loop {
            line.clear();
            match std::io::stdin().read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.blocking_send(line.clone()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    rx
}

/// The fetch agent: GET the authorization URL and follow its redirects
/// (each traced) until one lands on the callback listener. A failure
/// carries the status that ended it, if any.
async fn follow_redirects(f: &Fetcher, url: Url) -> Result<(), (Option<u16>, String)> {
    let mut url = url;
    for _ in 0..MAX_AGENT_HOPS {
        let a = f
            .exchange(
                "authorize",
                Method::GET,
                url.clone(),
                HeaderMap::new(),
                None,
                false,
            )
            .await
            .map_err(|e| (None, e.to_string()))?;
        let next = a
            .headers
            .get(LOCATION)
            .and_then(|l| l.to_str().ok())
            .and_then(|l| a.url.join(l).ok());
        match next {
            Some(n) if a.status.is_redirection() => url = n,
            _ if a.url.host_str() == Some("127.0.0.1") && a.status.is_success() => return Ok(()),
            _ => {
                return Err((
                    Some(a.status.as_u16()),
                    format!(
                        "the authorization endpoint answered HTTP {} without redirecting back ({})",
                        a.status.as_u16(),
                        one_line(&first_line(&a.body))
                    ),
                ));
            }
        }
    }
    Err((
        None,
        format!("more than {MAX_AGENT_HOPS} redirects from the authorization endpoint"),
    ))
}

/// Check the authorization response: an error, `state`, `iss` (RFC 9207:
/// compared as strings with the metadata's issuer whenever present, and
/// required when the server says it sends it), and the code.
pub fn check_response(q: &Returned, state: &str, m: &ServerMetadata) -> Result<String, AuthError> {
    let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    if let Some(e) = get("error") {
        return Err(AuthError::Failed(format!(
            "the authorization server refused: {}",
            oauth_refusal(e, get("error_description"))
        )));
    }
    if get("state") != Some(state) {
        return Err(AuthError::Failed(
            "the authorization response's state does not match the request's; \
             it may not be the answer to this request, so no code was exchanged"
                .into(),
        ));
    }
    match get("iss") {
        Some(iss) if !m.fallback && iss != m.issuer => {
            return Err(AuthError::Failed(format!(
                "the authorization response comes from issuer {iss:?}, not {:?}; no code was exchanged",
                m.issuer
            )));
        }
        None if m.authorization_response_iss_parameter_supported => {
            return Err(AuthError::Failed(
                "the authorization server promises an iss parameter but its response has none; no code was exchanged"
                    .into(),
            ));
        }
        _ => {}
    }
    get("code")
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .ok_or_else(|| AuthError::Failed("the authorization response has no code".into()))
}

/// The response was refused for its `iss` alone: the server's fault.
fn iss_broken(q: &Returned, state: &str, m: &ServerMetadata) -> bool {
    let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    if get("error").is_some() || get("state") != Some(state) {
        return false;
    }
    match get("iss") {
        Some(iss) => !m.fallback && iss != m.issuer,
        None => m.authorization_response_iss_parameter_supported,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(scopes: Option<&[&str]>) -> ServerMetadata {
        ServerMetadata {
            issuer: "http://as".into(),
            scopes_supported: scopes.map(|s| s.iter().map(|x| x.to_string()).collect()),
            ..ServerMetadata::default()
        }
    }

    #[test]
    fn scope_selection_follows_the_spec_order() {
        let prm = ResourceMetadata {
            scopes_supported: Some(vec!["a".into(), "b".into()]),
            ..ResourceMetadata::default()
        };
        let m = meta(None);
        assert_eq!(
            select_scope(Some("x"), Some(&prm), &m, None).as_deref(),
            Some("x")
        );
        assert_eq!(
            select_scope(None, Some(&prm), &m, None).as_deref(),
            Some("a b")
        );
        assert_eq!(select_scope(None, None, &m, None), None);
        assert_eq!(
            select_scope(Some("w"), None, &m, Some("b w")).as_deref(),
            Some("b w")
        );
        let off = meta(Some(&["a", "offline_access"]));
        assert_eq!(
            select_scope(None, Some(&prm), &off, None).as_deref(),
            Some("a b offline_access")
        );
        assert_eq!(select_scope(None, None, &off, None), None);
    }

    fn q(pairs: &[(&str, &str)]) -> Returned {
        pairs
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn the_response_is_checked() {
        let mut m = meta(None);
        assert_eq!(
            check_response(&q(&[("code", "c"), ("state", "s")]), "s", &m).unwrap(),
            "c"
        );
        let bad_state = check_response(&q(&[("code", "c"), ("state", "t")]), "s", &m);
        assert!(
            bad_state
                .unwrap_err()
                .to_string()
                .contains("state does not match")
        );
        let refused = check_response(
            &q(&[
                ("error", "access_denied"),
                ("error_description", "no"),
                ("state", "s"),
            ]),
            "s",
            &m,
        );
        assert!(
            refused
                .unwrap_err()
                .to_string()
                .contains("access_denied: no")
        );
        let wrong_iss = q(&[("code", "c"), ("state", "s"), ("iss", "http://as/")]);
        assert!(check_response(&wrong_iss, "s", &m).is_err());
        let right_iss = q(&[("code", "c"), ("state", "s"), ("iss", "http://as")]);
        assert!(check_response(&right_iss, "s", &m).is_ok());
        m.authorization_response_iss_parameter_supported = true;
        assert!(check_response(&q(&[("code", "c"), ("state", "s")]), "s", &m).is_err());
    }
}
