//! What can go wrong in an authorization: each variant's text is the
//! sentence shown to the user and written into the trace's `auth` events.

use super::fetch::FetchError;
use std::path::PathBuf;

/// The error of parsing a URL (`url::ParseError`, reached through reqwest).
pub type UrlError = <reqwest::Url as std::str::FromStr>::Err;

/// The plain-http refusal's tail (OAuth 2.1 §1.5).
const TLS_ONLY: &str = "is plain http to a host that is not loopback: OAuth 2.1 requires https \
                        (plain http only to 127.0.0.0/8, ::1 or localhost)";

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("authorization needed and no terminal to ask on")]
    NeedsLogin,
    /// A step of the flow that failed, said as one sentence.
    #[error("{0}")]
    Failed(String),
    /// The authorization server does not know the client (it forgot a
    /// dynamic registration): registering again may help.
    #[error("{0}")]
    ClientRejected(String),
    /// An HTTP exchange of the flow.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error("cannot build the HTTP client: {0}")]
    HttpClient(#[source] reqwest::Error),
    #[error("bad URL {url:?}: {source}")]
    BadUrl {
        url: String,
        #[source]
        source: UrlError,
    },

    // Discovery.
    #[error("the protected resource metadata lists no authorization_servers")]
    NoAuthorizationServers,
    #[error(
        "the protected resource metadata is for {resource:?}, not for {server}; refusing to authorize"
    )]
    ResourceMismatch { resource: String, server: String },
    #[error("authorization server {issuer:?}: {source}")]
    IssuerUrl {
        issuer: String,
        #[source]
        source: UrlError,
    },
    #[error("authorization server {issuer:?} is not an http(s) URL")]
    IssuerNotHttp { issuer: String },
    #[error("authorization server {issuer} publishes no metadata (tried {tried})")]
    NoMetadata { issuer: String, tried: String },
    #[error(
        "authorization server metadata at {url} names issuer {named:?}, not {issuer:?}; refusing to use it"
    )]
    IssuerMismatch {
        url: String,
        named: String,
        issuer: String,
    },
    #[error("authorization server metadata: {name} {url:?} is not an http(s) URL")]
    EndpointNotHttp { name: &'static str, url: String },
    /// `what` names the endpoint (`the authorization server`, …).
    #[error("{what} {url:?} {}", TLS_ONLY)]
    PlainHttp { what: String, url: String },
    /// A document answered with a status that is neither success nor "not here".
    #[error("{what} at {url} answered HTTP {status}")]
    Status {
        what: String,
        url: String,
        status: u16,
    },
    /// A document that is not JSON (an HTML login page, …).
    #[error("{what} at {url} is {content_type}, not JSON: {first_line}")]
    NotJson {
        what: String,
        url: String,
        content_type: String,
        first_line: String,
    },
    #[error("{what} at {url} is not valid: {source}")]
    BadJson {
        what: String,
        url: String,
        #[source]
        source: serde_json::Error,
    },

    // The client identity and the token requests.
    #[error(
        "the authorization server {issuer} offers no dynamic client registration; \
         register mcpscope there and pass --client-id (and --client-secret)"
    )]
    NoRegistration { issuer: String },
    #[error("registration_endpoint: {0}")]
    RegistrationEndpoint(#[source] UrlError),
    #[error("dynamic client registration at {url} was refused: HTTP {status} {error}")]
    RegistrationRefused {
        url: String,
        status: u16,
        error: String,
    },
    #[error("the registration response has no client_id")]
    NoClientId,
    /// An endpoint `oauth2` does not take as a URL.
    #[error("{0}")]
    Endpoint(#[source] UrlError),
    #[error("no refresh token")]
    NoRefreshToken,
    #[error("there is no token to check")]
    NoToken,

    // The token cache.
    #[error("cannot use the token cache directory {0}")]
    CacheDir(#[source] std::io::Error),
    #[error("cannot read the token cache {}: {source}", path.display())]
    CacheRead {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the token cache {} is damaged ({source}); `mcpscope auth logout --all` removes it",
        path.display()
    )]
    CacheDamaged {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("no data directory for the token cache")]
    NoDataDir,
    #[error("{0}")]
    CacheEncode(#[source] serde_json::Error),
    #[error("cannot write the token cache {}: {source}", path.display())]
    CacheWrite {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}
