//! DNS-rebinding protection for every HTTP listener mcpscope opens on this
//! machine (the demo server, the HTTP proxy, the OAuth callback): which addresses a
//! listener may bind without asking, and which `Host`/`Origin` headers a
//! request may carry.
//!
//! A page on a foreign site can make a browser send requests to a server on
//! 127.0.0.1 by pointing its own name at that address (DNS rebinding). The
//! browser then still says `Host: evil.example` and `Origin: http://evil.example`,
//! so a loopback listener refuses any request whose `Host` is not a loopback
//! name with the listener's port, or whose `Origin` (browsers send it on
//! every cross-site POST) is not a loopback origin. `--allow-origin` (where
//! a command has it) widens both for a name the user vouches for (its
//! `host[:port]` is then accepted as `Host` whatever port the listener
//! bound, as behind a reverse proxy). Binding beyond loopback needs an
//! explicit `--allow-remote`, and is refused to commands without it,
//! because there the `Host` check cannot know which names are legitimate.
//!
//! A request carrying two `Host` or two `Origin` headers is malformed (RFC
//! 9112 §3.2 says so of Host; a browser sends one Origin) and refused
//! whatever the values: a listener that checked one value and a framework
//! that later read the other would let the second past the check.
//!
//! A refusal says how to get through, naming only flags of the command that
//! owns the listener ([`Flags`]): `demo-server` has `--allow-origin` and
//! `--allow-remote`, `mcpscope proxy` neither.
//!
//! The module is transport-agnostic: callers pass header values in and get a
//! [`Refusal`] out, which knows its HTTP status and JSON-RPC body.

use std::net::{IpAddr, SocketAddr};

/// Status of a refused request: the client is not allowed, whatever it sends.
pub const REFUSED_STATUS: u16 = 403;
/// Status of a request whose `Host` or `Origin` is malformed (sent twice, or
/// not text).
pub const MALFORMED_STATUS: u16 = 400;

/// The flags of the command that owns a listener which widen what it
/// accepts: the only ones its refusals suggest.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    /// `--allow-origin ORIGIN`.
    pub allow_origin: bool,
    /// `--allow-remote`.
    pub allow_remote: bool,
}

impl Flags {
    /// A command with neither flag (`mcpscope proxy`, the OAuth callback).
    pub const NONE: Flags = Flags {
        allow_origin: false,
        allow_remote: false,
    };
}

/// Host names that always mean "this machine" (besides the bound address).
const LOOPBACK_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// What a listener accepts. Built once per listener, from the address it
/// actually bound (so port 0 is resolved) and the user's `--allow-origin`s.
#[derive(Debug, Clone)]
pub struct ListenGuard {
    bound: SocketAddr,
    /// Normalised with [`parse_origin`].
    allowed_origins: Vec<String>,
    /// What refusals may suggest.
    flags: Flags,
}

/// A request the guard turned away; `message` says what and how to allow it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// [`REFUSED_STATUS`] or [`MALFORMED_STATUS`].
    pub status: u16,
    pub message: String,
}

impl Refusal {
    /// The JSON-RPC error body sent with [`Refusal::status`]; `id` is null
    /// because the request body was never read.
    pub fn body(&self) -> String {
        serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32000, "message": self.message},
        })
        .to_string()
    }

    /// The refusal as a response: its status and JSON-RPC body.
    pub fn response(&self) -> hyper::Response<http_body_util::Full<bytes::Bytes>> {
        let mut r =
            hyper::Response::new(http_body_util::Full::new(bytes::Bytes::from(self.body())));
        *r.status_mut() = self.status_code();
        r.headers_mut().insert(
            hyper::header::CONTENT_TYPE,
            hyper::header::HeaderValue::from_static("application/json"),
        );
        r
    }

    /// The same response as HTTP/1.1 bytes, for a listener that speaks it
    /// on a raw socket; it closes the connection.
    pub fn http1(&self) -> String {
        let status = self.status_code();
        let body = self.body();
        format!(
            "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
             connection: close\r\n\r\n{body}",
            status.as_u16(),
            status.canonical_reason().unwrap_or(""),
            body.len()
        )
    }

    fn status_code(&self) -> hyper::StatusCode {
        hyper::StatusCode::from_u16(self.status).unwrap_or(hyper::StatusCode::FORBIDDEN)
    }
}

/// True for addresses only this machine can reach.
pub fn is_loopback(addr: &SocketAddr) -> bool {
    match addr.ip() {
        IpAddr::V4(ip) => ip.is_loopback(),
        // `::ffff:127.0.0.1` is loopback too, though `Ipv6Addr::is_loopback` says no.
        IpAddr::V6(ip) => {
            ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback())
        }
    }
}

/// A listener refused a non-loopback address (a usage error): `remote`
/// lists the addresses; `or_flag` suggests `--allow-remote` where the
/// command has it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{remote} is not a loopback address: other machines could reach this server. \
     Bind 127.0.0.1 (or localhost){or_flag}"
)]
pub struct RemoteBind {
    pub remote: String,
    pub or_flag: &'static str,
}

/// Decide whether a listener of a command without `--allow-remote` may bind
/// `addrs` (what its ADDR resolved to); see [`check_bind_with`].
pub fn check_bind(addrs: &[SocketAddr], allow_remote: bool) -> Result<Option<String>, RemoteBind> {
    check_bind_with(addrs, allow_remote, Flags::NONE)
}

/// Decide whether a listener may bind `addrs` (what its ADDR resolved to).
/// `Ok(Some(warning))`: allowed, but the warning belongs on stderr;
/// `Err`: a usage error — a non-loopback address without
/// `allow_remote`, which suggests `--allow-remote` only if `flags` has it.
pub fn check_bind_with(
    addrs: &[SocketAddr],
    allow_remote: bool,
    flags: Flags,
) -> Result<Option<String>, RemoteBind> {
    let remote: Vec<String> = addrs
        .iter()
        .filter(|a| !is_loopback(a))
        .map(ToString::to_string)
        .collect();
    if remote.is_empty() {
        return Ok(None);
    }
    if !allow_remote {
        let or_flag = if flags.allow_remote {
            ", or pass --allow-remote to serve the network anyway"
        } else {
            ""
        };
        return Err(RemoteBind {
            remote: remote.join(", "),
            or_flag,
        });
    }
    Ok(Some(format!(
        "warning: serving on {} with --allow-remote: any machine that can reach it can use \
         this server, and Host headers are not checked",
        remote.join(", ")
    )))
}

/// Normalise an origin (`scheme://host[:port]`, or the literal `null` that
/// sandboxed pages send) for comparison: lower case, no trailing slash, no
/// default port. Errs on anything else, so a typo in `--allow-origin` is a
/// usage error instead of a rule that never matches.
pub fn parse_origin(s: &str) -> Result<String, String> {
    let s = s.trim().trim_end_matches('/').to_ascii_lowercase();
    if s == "null" {
        return Ok(s);
    }
    let (scheme, rest) = s
        .split_once("://")
        .ok_or_else(|| format!("{s:?} is not an origin: expected scheme://host[:port]"))?;
    if scheme.is_empty() || rest.is_empty() || rest.contains(['/', '?', '#', '@', ' ']) {
        return Err(format!(
            "{s:?} is not an origin: expected scheme://host[:port] (no path)"
        ));
    }
    let (host, port) =
        split_host_port(rest).ok_or_else(|| format!("{s:?} is not an origin: bad host or port"))?;
    let default = match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    };
    Ok(match port {
        Some(p) if Some(p) != default => format!("{scheme}://{host}:{p}"),
        _ => format!("{scheme}://{host}"),
    })
}

/// `host[:port]` with IPv6 literals in brackets; `None` when malformed.
fn split_host_port(s: &str) -> Option<(&str, Option<u16>)> {
    let (host, port) = if s.starts_with('[') {
        let end = s.find(']')?;
        let (host, rest) = s.split_at(end + 1);
        match rest {
            "" => (host, None),
            _ => (host, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match s.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (s, None),
        }
    };
    if host.is_empty() {
        return None;
    }
    let port = match port {
        Some(p) => Some(p.parse::<u16>().ok()?),
        None => None,
    };
    Some((host, port))
}

impl ListenGuard {
    /// A guard whose refusals suggest no flag (see [`ListenGuard::with_flags`]);
    /// `allowed_origins` must already be normalised ([`parse_origin`]).
    pub fn new(bound: SocketAddr, allowed_origins: Vec<String>) -> Self {
        ListenGuard {
            bound,
            allowed_origins,
            flags: Flags::NONE,
        }
    }

    /// The flags of the command that owns the listener, for its refusals.
    pub fn with_flags(mut self, flags: Flags) -> Self {
        self.flags = flags;
        self
    }

    /// The gate every local listener puts before anything else it does
    /// with a request (even its 404: a rebound page must learn nothing):
    /// every `Host` and `Origin` value the request carries, so a second one
    /// cannot hide behind the first. On `Err`, answer with
    /// [`Refusal::response`] (or [`Refusal::http1`] on a raw socket).
    pub fn admit(&self, headers: &hyper::HeaderMap) -> Result<(), Refusal> {
        let all = |name| headers.get_all(name).iter().map(|v| v.as_bytes());
        self.check_values(all(hyper::header::HOST), all(hyper::header::ORIGIN))
    }

    /// Check every value a request carries of `Host` and of `Origin`, as
    /// raw bytes: more than one of either, or one that is not text, is
    /// malformed ([`MALFORMED_STATUS`]).
    fn check_values<'a>(
        &self,
        hosts: impl IntoIterator<Item = &'a [u8]>,
        origins: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<(), Refusal> {
        let host = single("Host", hosts)?;
        let origin = single("Origin", origins)?;
        self.check(host, origin)
    }

    /// Check one request's headers (`None`: the header is absent). The
    /// caller has made sure there is at most one of each; see
    /// [`ListenGuard::check_values`].
    fn check(&self, host: Option<&str>, origin: Option<&str>) -> Result<(), Refusal> {
        if is_loopback(&self.bound) {
            self.check_host(host)?;
        }
        match origin {
            // Non-browser clients send no Origin: nothing to check.
            None => Ok(()),
            Some(origin) => self.check_origin(origin),
        }
    }

    fn check_host(&self, host: Option<&str>) -> Result<(), Refusal> {
        let port = self.bound.port();
        let Some(raw) = host else {
            return Err(self.refuse(
                "request without a Host header refused: this server only answers requests \
                 addressed to a loopback name",
                "",
            ));
        };
        let lower = raw.trim().to_ascii_lowercase();
        let ok = match split_host_port(&lower) {
            Some((name, p)) => {
                (p.unwrap_or(80) == port && self.is_loopback_name(name)) || self.allows_host(&lower)
            }
            None => false,
        };
        if ok {
            return Ok(());
        }
        Err(self.refuse(
            &format!(
                "Host {raw:?} refused (DNS rebinding protection): this server answers only \
                 localhost:{port}, 127.0.0.1:{port} or [::1]:{port}"
            ),
            &format!(" (e.g. --allow-origin http://{lower})"),
        ))
    }

    fn check_origin(&self, raw: &str) -> Result<(), Refusal> {
        let ok = match parse_origin(raw) {
            Ok(origin) => {
                self.allowed_origins.contains(&origin) || self.is_loopback_origin(&origin)
            }
            Err(_) => false,
        };
        if ok {
            return Ok(());
        }
        Err(self.refuse(
            &format!(
                "Origin {raw:?} refused (DNS rebinding protection): only pages served from \
                 localhost, 127.0.0.1 or [::1] may call this server"
            ),
            &format!(" (--allow-origin {})", raw.trim()),
        ))
    }

    /// A refusal of `what`, with how to allow it where the command has a
    /// flag for that (`example` shows it for this request).
    fn refuse(&self, what: &str, example: &str) -> Refusal {
        let message = if self.flags.allow_origin {
            format!(
                "{what}; to allow another origin, restart the server with --allow-origin ORIGIN{example}"
            )
        } else {
            what.to_string()
        };
        Refusal {
            status: REFUSED_STATUS,
            message,
        }
    }

    /// A loopback name, or the exact address the listener bound.
    fn is_loopback_name(&self, name: &str) -> bool {
        if LOOPBACK_NAMES.contains(&name) {
            return true;
        }
        let bound = match self.bound.ip() {
            IpAddr::V4(ip) => ip.to_string(),
            IpAddr::V6(ip) => format!("[{ip}]"),
        };
        name == bound
    }

    /// `--allow-origin http://name:port` also vouches for `Host: name:port`
    /// (a page and its server behind the same reverse-proxy name, which
    /// forwards to whatever port this listener has).
    fn allows_host(&self, host: &str) -> bool {
        self.allowed_origins.iter().any(|o| {
            let Some((scheme, authority)) = o.split_once("://") else {
                return false;
            };
            // Origins are normalised without their default port; a Host
            // header may carry it or not.
            let default = match scheme {
                "http" => ":80",
                "https" => ":443",
                _ => "",
            };
            host == authority
                || (split_host_port(authority).is_some_and(|(_, p)| p.is_none())
                    && host.strip_suffix(default) == Some(authority))
        })
    }

    fn is_loopback_origin(&self, origin: &str) -> bool {
        let Some((scheme, authority)) = origin.split_once("://") else {
            return false;
        };
        // Any port: a page from another local server is still this machine's,
        // which is all DNS-rebinding protection is about.
        matches!(scheme, "http" | "https")
            && split_host_port(authority).is_some_and(|(name, _)| self.is_loopback_name(name))
    }
}

/// The one value of header `name`, if any, as text; two or more, or one
/// that is not UTF-8, are refused as malformed.
fn single<'a>(
    name: &str,
    values: impl IntoIterator<Item = &'a [u8]>,
) -> Result<Option<&'a str>, Refusal> {
    let malformed = |why: String| Refusal {
        status: MALFORMED_STATUS,
        message: format!("request refused: {why}"),
    };
    let mut values = values.into_iter();
    let Some(first) = values.next() else {
        return Ok(None);
    };
    let more = values.count();
    if more > 0 {
        return Err(malformed(format!(
            "{} {name} headers, where a request has at most one",
            more + 1
        )));
    }
    std::str::from_utf8(first)
        .map(Some)
        .map_err(|_| malformed(format!("its {name} header is not text")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A guard of a command with `--allow-origin` and `--allow-remote`.
    fn guard(addr: &str, allowed: &[&str]) -> ListenGuard {
        let allowed = allowed.iter().map(|o| parse_origin(o).unwrap()).collect();
        ListenGuard::new(addr.parse().unwrap(), allowed).with_flags(Flags {
            allow_origin: true,
            allow_remote: true,
        })
    }

    #[test]
    fn two_hosts_or_two_origins_are_malformed_whatever_their_values() {
        let g = guard("127.0.0.1:8080", &[]);
        let ok: &[u8] = b"127.0.0.1:8080";
        let local: &[u8] = b"http://localhost";
        type Values<'a> = &'a [&'a [u8]];
        let cases: [(Values, Values, &str); 4] = [
            (&[ok, ok], &[], "2 Host headers"),
            (&[ok, b"evil.example"], &[], "2 Host headers"),
            (
                &[ok],
                &[local, local, b"http://evil.example"],
                "3 Origin headers",
            ),
            (&[ok], &[b"http://\xff"], "Origin header is not text"),
        ];
        for (hosts, origins, said) in cases {
            let r = g
                .check_values(hosts.iter().copied(), origins.iter().copied())
                .unwrap_err();
            assert_eq!(r.status, MALFORMED_STATUS, "{r:?}");
            assert!(r.message.contains(said), "{r:?}");
        }
        assert_eq!(g.check_values([ok], [local]), Ok(()));
        assert_eq!(g.check_values([ok], []), Ok(()));
        let absent = g.check_values([], []).unwrap_err();
        assert_eq!(absent.status, REFUSED_STATUS);
    }

    #[test]
    fn refusals_suggest_only_the_commands_flags() {
        let bare = ListenGuard::new("127.0.0.1:8080".parse().unwrap(), Vec::new());
        let host = bare.check(Some("evil.example"), None).unwrap_err();
        let origin = bare
            .check(Some("127.0.0.1:8080"), Some("http://evil.example"))
            .unwrap_err();
        for r in [host, origin] {
            assert_eq!(r.status, REFUSED_STATUS);
            assert!(
                r.message.contains("refused") && !r.message.contains("--"),
                "{r:?}"
            );
        }
        let g = guard("127.0.0.1:8080", &[]);
        let r = g.check(Some("evil.example"), None).unwrap_err();
        assert!(
            r.message.contains("--allow-origin http://evil.example"),
            "{r:?}"
        );
        let any: Vec<SocketAddr> = vec!["0.0.0.0:1".parse().unwrap()];
        assert!(
            !check_bind(&any, false)
                .unwrap_err()
                .to_string()
                .contains("--allow-remote")
        );
        let with = Flags {
            allow_origin: false,
            allow_remote: true,
        };
        assert!(
            check_bind_with(&any, false, with)
                .unwrap_err()
                .to_string()
                .contains("--allow-remote")
        );
    }

    #[test]
    fn loopback_hosts_with_the_bound_port_pass() {
        let g = guard("127.0.0.1:8080", &[]);
        for host in [
            "localhost:8080",
            "127.0.0.1:8080",
            "[::1]:8080",
            "LOCALHOST:8080",
        ] {
            assert_eq!(g.check(Some(host), None), Ok(()), "{host}");
        }
        assert!(g.check(Some("localhost:8081"), None).is_err());
        assert!(g.check(Some("localhost"), None).is_err());
        assert!(g.check(Some("evil.example.com:8080"), None).is_err());
        assert!(g.check(None, None).is_err());
        assert!(
            guard("127.0.0.1:80", &[])
                .check(Some("localhost"), None)
                .is_ok()
        );
    }

    #[test]
    fn origins_must_be_loopback_unless_allowed() {
        let g = guard("127.0.0.1:8080", &["https://app.example/"]);
        let host = Some("127.0.0.1:8080");
        assert!(g.check(host, Some("http://localhost:3000")).is_ok());
        assert!(g.check(host, Some("http://[::1]")).is_ok());
        assert!(g.check(host, Some("https://app.example")).is_ok());
        assert!(g.check(host, Some("https://app.example:443")).is_ok());
        assert!(g.check(host, Some("http://app.example")).is_err());
        assert!(g.check(host, Some("http://evil.example.com")).is_err());
        assert!(g.check(host, Some("null")).is_err());
        let refusal = g.check(host, Some("http://evil.example.com")).unwrap_err();
        assert!(refusal.message.contains("--allow-origin"), "{refusal:?}");
        let body: serde_json::Value = serde_json::from_str(&refusal.body()).unwrap();
        assert_eq!(body["error"]["code"], -32000);
        assert!(body["id"].is_null());
    }

    #[test]
    fn an_allowed_origin_also_allows_its_host() {
        let g = guard(
            "127.0.0.1:8080",
            &["http://mcp.test:9000", "https://proxy.test"],
        );
        let origin = Some("http://mcp.test:9000");
        assert!(g.check(Some("mcp.test:9000"), origin).is_ok());
        assert!(g.check(Some("mcp.test:8080"), None).is_err());
        assert!(g.check(Some("proxy.test"), None).is_ok());
        assert!(g.check(Some("proxy.test:443"), None).is_ok());
        assert!(g.check(Some("proxy.test:80"), None).is_err());
        assert!(g.check(Some("other.test:8080"), None).is_err());
    }

    #[test]
    fn remote_listeners_check_only_origins() {
        let g = guard("0.0.0.0:8080", &[]);
        assert!(g.check(Some("server.lan:8080"), None).is_ok());
        assert!(
            g.check(Some("server.lan:8080"), Some("http://evil.example"))
                .is_err()
        );
    }

    #[test]
    fn binding_beyond_loopback_needs_the_flag() {
        let local: Vec<SocketAddr> =
            vec!["127.0.0.1:1".parse().unwrap(), "[::1]:1".parse().unwrap()];
        assert_eq!(check_bind(&local, false), Ok(None));
        let any: Vec<SocketAddr> = vec!["0.0.0.0:1".parse().unwrap()];
        assert!(check_bind(&any, false).is_err());
        assert!(check_bind(&any, true).unwrap().is_some());
        assert!(is_loopback(&"[::ffff:127.0.0.1]:1".parse().unwrap()));
    }

    #[test]
    fn origins_are_validated() {
        assert_eq!(
            parse_origin("HTTP://Example.com:80/").unwrap(),
            "http://example.com"
        );
        assert_eq!(parse_origin("null").unwrap(), "null");
        assert!(parse_origin("example.com").is_err());
        assert!(parse_origin("http://example.com/path").is_err());
        assert!(parse_origin("http://example.com:99999").is_err());
    }
}
