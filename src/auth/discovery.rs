//! Finding the authorization server of an MCP server: its Protected
//! Resource Metadata (RFC 9728; the challenge's `resource_metadata`, else
//! the path-aware then the root well-known URL), the `resource` it names
//! (which must be this server), then the authorization server's metadata
//! (RFC 8414 and OpenID Connect discovery, the path-insertion variants in
//! the spec's order) whose `issuer` must be the one asked for. A server
//! without PRM and without metadata gets the 2025-03-26 default endpoints
//! (`/authorize`, `/token`, `/register` at its origin). Authorization
//! server endpoints must use https, except on loopback (OAuth 2.1 §1.5).

use super::AuthError;
use super::fetch::{Answer, Fetcher, no_query};
use reqwest::Url;
use serde::{Deserialize, Serialize};

/// RFC 9728 §2, the fields the flow uses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceMetadata {
    #[serde(default)]
    pub resource: Option<String>,
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
}

/// RFC 8414 §2, the fields the flow uses.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerMetadata {
    #[serde(default)]
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default)]
    pub client_id_metadata_document_supported: bool,
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: bool,
    /// Not published: the 2025-03-26 default endpoints.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fallback: bool,
}

impl ServerMetadata {
    pub fn supports_auth_method(&self, m: &str) -> bool {
        match &self.token_endpoint_auth_methods_supported {
            Some(list) => list.iter().any(|x| x == m),
            // RFC 8414 §2: the default is client_secret_basic.
            None => m == "client_secret_basic",
        }
    }
}

/// What discovery found.
#[derive(Debug, Clone)]
pub struct Discovered {
    pub prm: Option<ResourceMetadata>,
    /// The authorization server's issuer identifier, as the PRM names it
    /// (or the server's origin without PRM).
    pub issuer: String,
    pub meta: ServerMetadata,
    /// The `resource` parameter (RFC 8707) for authorization and token requests.
    pub resource: String,
}

/// Run discovery for the MCP endpoint `server`, starting from the
/// challenge's `resource_metadata` when there is one.
pub async fn discover(
    f: &Fetcher,
    server: &Url,
    resource_metadata: Option<&str>,
) -> Result<Discovered, AuthError> {
    let prm = fetch_prm(f, server, resource_metadata).await?;
    let canonical = canonical_resource(server);
    let (issuer, resource) = match &prm {
        Some(p) => {
            let resource = match &p.resource {
                Some(r) => {
                    check_resource(server, r)
                        .inspect_err(|e| f.problem("auth-resource-mismatch", &e.to_string()))?;
                    r.clone()
                }
                None => canonical,
            };
            let issuer = p
                .authorization_servers
                .first()
                .cloned()
                .ok_or(AuthError::NoAuthorizationServers)?;
            (issuer, resource)
        }
        // 2025-03-26: the MCP server's origin is the authorization server.
        None => (server.origin().ascii_serialization(), canonical),
    };
    let issuer_url = match Url::parse(&issuer) {
        Ok(u) => u,
        Err(source) => return Err(AuthError::IssuerUrl { issuer, source }),
    };
    if !matches!(issuer_url.scheme(), "http" | "https") {
        return Err(AuthError::IssuerNotHttp { issuer });
    }
    // Before its metadata is asked for: that request would go in the clear.
    require_tls("the authorization server", &issuer_url)?;
    let meta = match fetch_server_metadata(f, &issuer, &issuer_url).await? {
        Some(m) => m,
        None if prm.is_none() => fallback(&issuer_url),
        None => {
            let why = AuthError::NoMetadata {
                tried: metadata_urls(&issuer_url)
                    .iter()
                    .map(no_query)
                    .collect::<Vec<_>>()
                    .join(", "),
                issuer,
            };
            f.problem("auth-metadata-missing", &why.to_string());
            return Err(why);
        }
    };
    Ok(Discovered {
        prm,
        issuer,
        meta,
        resource,
    })
}

/// The PRM, or `None` when the server publishes none (a 2025-03-26 server).
async fn fetch_prm(
    f: &Fetcher,
    server: &Url,
    from_challenge: Option<&str>,
) -> Result<Option<ResourceMetadata>, AuthError> {
    let mut urls = Vec::new();
    if let Some(u) = from_challenge {
        match server.join(u) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => urls.push(u),
            _ => {}
        }
    }
    for u in prm_urls(server) {
        if !urls.contains(&u) {
            urls.push(u);
        }
    }
    let mut problems = Vec::new();
    for u in urls {
        let a = f.get("resource-metadata", u).await?;
        if a.status.is_success() {
            match a.json::<ResourceMetadata>("protected resource metadata") {
                Ok(m) => return Ok(Some(m)),
                Err(e) => problems.push(e),
            }
        } else if !a.status.is_client_error() {
            problems.push(status_problem("protected resource metadata", &a));
        }
    }
    match problems.into_iter().next() {
        // A server error or a document that is not PRM is not "no PRM".
        Some(p) => Err(p),
        None => Ok(None),
    }
}

/// RFC 9728 §3.1: the well-known URI inserted before the resource's path,
/// then at the root.
pub fn prm_urls(server: &Url) -> Vec<Url> {
    let origin = server.origin().ascii_serialization();
    let path = server.path().trim_end_matches('/');
    let mut out = Vec::new();
    if !path.is_empty()
        && let Ok(u) = Url::parse(&format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ))
    {
        out.push(u);
    }
    if let Ok(u) = Url::parse(&format!("{origin}/.well-known/oauth-protected-resource")) {
        out.push(u);
    }
    out
}

/// The MCP spec's order: RFC 8414 path insertion, OIDC path insertion, OIDC
/// path appending; without a path, RFC 8414 then OIDC at the root.
pub fn metadata_urls(issuer: &Url) -> Vec<Url> {
    let origin = issuer.origin().ascii_serialization();
    let path = issuer.path().trim_end_matches('/');
    let texts = if path.is_empty() {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ]
    };
    texts.iter().filter_map(|t| Url::parse(t).ok()).collect()
}

async fn fetch_server_metadata(
    f: &Fetcher,
    issuer: &str,
    issuer_url: &Url,
) -> Result<Option<ServerMetadata>, AuthError> {
    let mut problems = Vec::new();
    for u in metadata_urls(issuer_url) {
        let a = f.get("server-metadata", u).await?;
        if !a.status.is_success() {
            if !a.status.is_client_error() {
                problems.push(status_problem("authorization server metadata", &a));
            }
            continue;
        }
        let m = match a.json::<ServerMetadata>("authorization server metadata") {
            Ok(m) => m,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        // RFC 8414 §3.3: the issuer must be the identifier the URL was built
        // from, or the document may come from someone else.
        if !same_issuer(&m.issuer, issuer) {
            let why = AuthError::IssuerMismatch {
                url: no_query(&a.url),
                named: m.issuer,
                issuer: issuer.to_string(),
            };
            f.problem("auth-issuer-mismatch", &why.to_string());
            return Err(why);
        }
        check_endpoints(&m)?;
        return Ok(Some(m));
    }
    match problems.into_iter().next() {
        Some(p) => Err(p),
        None => Ok(None),
    }
}

/// Issuers compare as strings; a lone trailing slash on an empty path is
/// the same URL written two ways.
pub fn same_issuer(a: &str, b: &str) -> bool {
    let trim = |s: &str| {
        let rest = s.split_once("://").map_or(s, |(_, r)| r);
        if rest.find('/') == Some(rest.len() - 1) {
            s[..s.len() - 1].to_string()
        } else {
            s.to_string()
        }
    };
    a == b || (!a.is_empty() && trim(a) == trim(b))
}

/// The metadata's endpoints are http(s) URLs, https off loopback. Checked
/// when the metadata is fetched, and again before a cached copy is used.
pub fn check_endpoints(m: &ServerMetadata) -> Result<(), AuthError> {
    let mut urls = vec![
        ("authorization_endpoint", &m.authorization_endpoint),
        ("token_endpoint", &m.token_endpoint),
    ];
    if let Some(r) = &m.registration_endpoint {
        urls.push(("registration_endpoint", r));
    }
    for (name, u) in urls {
        match Url::parse(u) {
            Ok(p) if matches!(p.scheme(), "http" | "https") => {
                require_tls(&format!("authorization server metadata: {name}"), &p)?;
            }
            _ => {
                return Err(AuthError::EndpointNotHttp {
                    name,
                    url: u.clone(),
                });
            }
        }
    }
    Ok(())
}

/// OAuth 2.1 §1.5: authorization server endpoints over TLS, plain http only
/// to this machine (a server under test, a local gateway), where nobody
/// else sees the codes, secrets and tokens that pass.
pub fn require_tls(what: &str, url: &Url) -> Result<(), AuthError> {
    if url.scheme() != "http" || is_loopback_host(url) {
        return Ok(());
    }
    Err(AuthError::PlainHttp {
        what: what.to_string(),
        url: no_query(url),
    })
}

/// 127.0.0.0/8, ::1 (also as `::ffff:127.x.y.z`) or `localhost`.
fn is_loopback_host(url: &Url) -> bool {
    let host = url.host_str().unwrap_or("");
    let ip = host.trim_start_matches('[').trim_end_matches(']');
    match ip.parse::<std::net::IpAddr>() {
        Ok(ip) => crate::listen_guard::is_loopback(&std::net::SocketAddr::new(ip, 0)),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
    }
}

fn fallback(origin: &Url) -> ServerMetadata {
    let o = origin.origin().ascii_serialization();
    ServerMetadata {
        issuer: o.clone(),
        authorization_endpoint: format!("{o}/authorize"),
        token_endpoint: format!("{o}/token"),
        registration_endpoint: Some(format!("{o}/register")),
        fallback: true,
        ..ServerMetadata::default()
    }
}

fn status_problem(what: &str, a: &Answer) -> AuthError {
    AuthError::Status {
        what: what.to_string(),
        url: no_query(&a.url),
        status: a.status.as_u16(),
    }
}

/// The server URL as a resource indicator: no fragment (RFC 8707 §2).
pub fn canonical_resource(server: &Url) -> String {
    let mut u = server.clone();
    u.set_fragment(None);
    u.to_string()
}

/// The PRM's `resource` must be this server: same origin, and the server's
/// path at or below the resource's path (RFC 9728 §3.3).
pub fn check_resource(server: &Url, resource: &str) -> Result<(), AuthError> {
    let bad = || AuthError::ResourceMismatch {
        resource: resource.to_string(),
        server: no_query(server),
    };
    let r = Url::parse(resource).map_err(|_| bad())?;
    if r.origin() != server.origin() {
        return Err(bad());
    }
    let rp = r.path().trim_end_matches('/');
    let sp = server.path().trim_end_matches('/');
    if sp == rp || sp.starts_with(&format!("{rp}/")) {
        Ok(())
    } else {
        Err(bad())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn well_known_orders() {
        let prm: Vec<String> = prm_urls(&u("http://h:1/a/mcp"))
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            prm,
            [
                "http://h:1/.well-known/oauth-protected-resource/a/mcp",
                "http://h:1/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(prm_urls(&u("http://h/")).len(), 1);
        let md: Vec<String> = metadata_urls(&u("https://as/tenant1"))
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            md,
            [
                "https://as/.well-known/oauth-authorization-server/tenant1",
                "https://as/.well-known/openid-configuration/tenant1",
                "https://as/tenant1/.well-known/openid-configuration"
            ]
        );
        let root: Vec<String> = metadata_urls(&u("https://as"))
            .iter()
            .map(Url::to_string)
            .collect();
        assert_eq!(
            root,
            [
                "https://as/.well-known/oauth-authorization-server",
                "https://as/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn resource_must_be_this_server() {
        let s = u("http://localhost:9/mcp");
        assert!(check_resource(&s, "http://localhost:9/mcp").is_ok());
        assert!(check_resource(&s, "http://localhost:9/").is_ok());
        assert!(check_resource(&s, "http://localhost:9").is_ok());
        assert!(check_resource(&s, "https://evil.example.com/mcp").is_err());
        assert!(check_resource(&s, "http://localhost:9/mc").is_err());
        assert!(check_resource(&s, "http://localhost:10/mcp").is_err());
        assert!(check_resource(&s, "not a url").is_err());
    }

    #[test]
    fn plain_http_is_for_loopback_only() {
        for ok in [
            "https://as.example.com/token",
            "http://127.0.0.1:9/token",
            "http://127.200.3.4/token",
            "http://[::1]:9/token",
            "http://[::ffff:127.0.0.1]/token",
            "http://localhost:9/token",
            "http://LOCALHOST/token",
        ] {
            assert!(require_tls("token_endpoint", &u(ok)).is_ok(), "{ok}");
        }
        for bad in [
            "http://as.example.com/token",
            "http://192.0.2.1/token",
            "http://[2001:db8::1]/token",
            "http://localhost.example.com/token",
            "http://128.0.0.1/token",
        ] {
            let e = require_tls("token_endpoint", &u(bad))
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("requires https") && e.contains("token_endpoint"),
                "{e}"
            );
        }
    }

    #[test]
    fn cached_metadata_with_a_plain_http_endpoint_is_refused() {
        let m = ServerMetadata {
            authorization_endpoint: "https://as.example.com/authorize".into(),
            token_endpoint: "http://as.example.com/token".into(),
            ..ServerMetadata::default()
        };
        let e = check_endpoints(&m).unwrap_err().to_string();
        assert!(
            e.contains("token_endpoint \"http://as.example.com/token\""),
            "{e}"
        );
    }

    #[test]
    fn issuers_compare_exactly_but_for_a_root_slash() {
        assert!(same_issuer("http://a:1", "http://a:1/"));
        assert!(same_issuer("http://a:1/t", "http://a:1/t"));
        assert!(!same_issuer("http://a:1/t", "http://a:1/t/"));
        assert!(!same_issuer("https://attacker.example.com", "http://a:1"));
        assert!(!same_issuer("", "http://a:1"));
    }
}
