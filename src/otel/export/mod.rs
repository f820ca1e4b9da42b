//! Sending sessions to an OpenTelemetry backend (`--otlp URL`): each
//! request becomes a span following the OpenTelemetry semantic conventions
//! for MCP ([`fold`]), with its progress notifications and the findings
//! about it as span events; the conventions' duration histograms are
//! aggregated beside ([`metrics`]); both leave over OTLP/HTTP protobuf from
//! a bounded queue ([`send`]), encoded with `opentelemetry-proto` (the
//! crate the receiver decodes with). A live session is followed by a task
//! ([`live`]); a recorded one is folded in one pass ([`recorded`]).
//!
//! A backend that is down or slow never slows the session: spans that do
//! not fit the queue, or that the backend never took, are counted and said.

pub mod attrs;
pub mod fold;
pub mod ids;
pub mod live;
pub mod metrics;
pub mod recorded;
pub mod send;

pub use live::LiveExport;
pub use send::Report;

use super::OtelError;
use serde_json::Value;

/// Spans the exporter holds at most (queued and being sent).
pub const DEFAULT_QUEUE: usize = 4096;

/// How long the end of an export may wait for the backend to take what is
/// left; what it has not taken by then is counted as not delivered and
/// said. Every export path reads its figure here.
pub mod deadline {
    use std::time::Duration;

    /// A session's end (`call`, `check`, `check --trace`, the TUI, the proxy).
    pub const SESSION: Duration = Duration::from_secs(5);
    /// A recording's export (`export TRACE --otlp`).
    pub const RECORDING: Duration = Duration::from_secs(30);
    /// For tests only: replaces both, in milliseconds, so a test of a
    /// backend that never answers does not wait 30 s.
    pub const VAR: &str = "MCPSCOPE_OTLP_DEADLINE_MS";

    pub fn session() -> Duration {
        chosen(SESSION)
    }

    pub fn recording() -> Duration {
        chosen(RECORDING)
    }

    fn chosen(d: Duration) -> Duration {
        std::env::var(VAR)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .map_or(d, Duration::from_millis)
    }

    /// As said to the user: `30 s`, `1.5 s`.
    pub fn said(d: Duration) -> String {
        let ms = d.as_millis();
        if ms.is_multiple_of(1000) {
            format!("{} s", ms / 1000)
        } else {
            format!("{} s", d.as_secs_f64())
        }
    }
}

/// Where and how to export.
#[derive(Clone)]
pub struct Config {
    /// The backend's base URL (`http://127.0.0.1:6006`); `/v1/traces` and
    /// `/v1/metrics` are added, as `OTEL_EXPORTER_OTLP_ENDPOINT` is read.
    pub url: String,
    /// Headers sent with every export (`--otlp-header`): credentials, so
    /// their values are never printed.
    pub headers: Vec<(String, String)>,
    /// Spans held at most.
    pub queue: usize,
}

/// Header values are credentials: the debug form names the headers only.
impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("Config")
            .field("url", &self.shown())
            .field("headers", &names)
            .field("queue", &self.queue)
            .finish()
    }
}

impl Config {
    pub fn new(url: &str) -> Result<Config, OtelError> {
        let parsed = reqwest::Url::parse(url).map_err(|source| OtelError::NotUrl {
            url: quoted(url),
            source,
        })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(OtelError::NotHttp { url: quoted(url) });
        }
        Ok(Config {
            url: url.to_string(),
            headers: Vec::new(),
            queue: DEFAULT_QUEUE,
        })
    }

    /// Add `NAME=VALUE` (`--otlp-header`).
    pub fn header(mut self, kv: &str) -> Result<Config, OtelError> {
        let (k, v) = kv.split_once('=').ok_or(OtelError::HeaderForm)?;
        let name = k.trim();
        if name.is_empty() || reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_err() {
            return Err(OtelError::HeaderName);
        }
        if reqwest::header::HeaderValue::from_str(v.trim()).is_err() {
            return Err(OtelError::HeaderValue {
                name: name.to_string(),
            });
        }
        self.headers.push((name.to_string(), v.trim().to_string()));
        Ok(self)
    }

    /// The URL a signal is posted to: `/v1/{signal}` added to the base's
    /// path (a path that already names a signal's has it replaced), its
    /// query kept (`http://h/base?token=X` → `http://h/base/v1/traces?token=X`).
    pub fn signal_url(&self, signal: &str) -> String {
        let Ok(mut u) = reqwest::Url::parse(&self.url) else {
            // `new` parsed it already.
            return self.url.clone();
        };
        let path = u.path().trim_end_matches('/');
        let base = ["/v1/traces", "/v1/metrics", "/v1/logs"]
            .iter()
            .find_map(|p| path.strip_suffix(p))
            .unwrap_or(path);
        let joined = format!("{base}/v1/{signal}");
        u.set_path(&joined);
        u.set_fragment(None);
        u.to_string()
    }

    /// The URL as said to the user: no query, no credentials.
    pub fn shown(&self) -> String {
        match reqwest::Url::parse(&self.url) {
            Ok(mut u) => {
                let _ = u.set_password(None);
                let _ = u.set_username("");
                u.set_query(None);
                crate::protocol::sanitize::one_line(u.as_str()).into_owned()
            }
            Err(_) => "(the --otlp URL)".into(),
        }
    }
}

/// The `--otlp` argument as an error quotes it: one line, its password and
/// secret query values redacted (the project's URL redaction); one that
/// does not parse as a URL with a host loses its query and what could be
/// credentials (all between `://`, or the start, and the last `@`).
fn quoted(url: &str) -> String {
    use crate::protocol::{sanitize::one_line, secrets};
    if reqwest::Url::parse(url).is_ok_and(|u| u.has_host()) {
        return one_line(&secrets::redact_url(url)).into_owned();
    }
    let mut s = url.split(['?', '#']).next().unwrap_or_default().to_string();
    let start = s.find("://").map_or(0, |i| i + 3);
    if let Some(at) = s.rfind('@').filter(|at| *at >= start) {
        s.replace_range(start..at, secrets::REDACTED);
    }
    one_line(&s).into_owned()
}

/// What the spans say of the session as a whole.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The session's start by the wall clock (microseconds since the
    /// epoch): event times are offsets from it.
    pub wall_start_us: u64,
    /// A proxy's recording: the requests are the host's, observed.
    pub proxy: bool,
    /// `pipe` (stdio) or `tcp` (HTTP).
    pub transport: &'static str,
    /// An HTTP server's host and port.
    pub server: Option<(String, u16)>,
}

impl Context {
    /// From a trace header (`started`, `server`, `proxy`, `recorded_as`),
    /// as recorded or as a live session would record it. `exact_start_us`
    /// is the start to the microsecond when it is known (a live session);
    /// a header says it to the second.
    pub fn of_header(header: &Value, exact_start_us: Option<u64>) -> Context {
        let started = header
            .get("started")
            .and_then(Value::as_str)
            .and_then(crate::format::rfc3339_unix_secs)
            .and_then(|s| u64::try_from(s).ok())
            .map_or(0, |s| s * 1_000_000);
        let server = header.get("server");
        let url = server
            .and_then(|s| s.get("url"))
            .and_then(Value::as_str)
            .and_then(|u| reqwest::Url::parse(u).ok());
        let http = url.is_some()
            || server
                .and_then(|s| s.get("transport"))
                .and_then(Value::as_str)
                .is_some_and(|t| t != "stdio");
        Context {
            wall_start_us: exact_start_us.unwrap_or(started),
            proxy: crate::trace::reader::is_proxy_recording(header),
            transport: if http { "tcp" } else { "pipe" },
            server: url.and_then(|u| Some((u.host_str()?.to_string(), u.port_or_known_default()?))),
        }
    }

    /// A live session's: `server` as a trace header names it, started
    /// `elapsed_us` ago (to the microsecond).
    pub fn live(server: Value, proxy: bool, elapsed_us: u64) -> Context {
        let mut header = serde_json::json!({ "server": server });
        if proxy {
            header["proxy"] = serde_json::json!({});
        }
        Context::of_header(&header, Some(Context::now_minus(elapsed_us)))
    }

    /// The wall clock now, as a live session's exact start.
    pub fn now_minus(elapsed_us: u64) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64)
            .saturating_sub(elapsed_us)
    }

    /// A trace time as Unix nanoseconds.
    pub fn unix_ns(&self, t_us: u64) -> u64 {
        self.wall_start_us.saturating_add(t_us).saturating_mul(1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn signal_urls_follow_the_endpoint_variable_rules() {
        let c = Config::new("http://127.0.0.1:6006").unwrap();
        assert_eq!(c.signal_url("traces"), "http://127.0.0.1:6006/v1/traces");
        let c = Config::new("http://h:4318/otlp/v1/traces").unwrap();
        assert_eq!(c.signal_url("metrics"), "http://h:4318/otlp/v1/metrics");
        assert!(Config::new("grpc://h:4317").is_err());
        assert!(Config::new("not a url").is_err());
        // Paths are added to the path; the query stays a query.
        let c = Config::new("http://h/base?token=X").unwrap();
        assert_eq!(c.signal_url("traces"), "http://h/base/v1/traces?token=X");
        let c = Config::new("http://h:4318/otlp/v1/logs/?a=1&b=2").unwrap();
        assert_eq!(
            c.signal_url("metrics"),
            "http://h:4318/otlp/v1/metrics?a=1&b=2"
        );
    }

    #[test]
    fn a_refused_url_is_quoted_without_its_credentials() {
        for url in [
            "grpc://user:sekrit@h:4317/?token=sekrit",
            "http://user:sekrit@h:99999/?api_key=sekrit",
            "user:sekrit@h:4318",
        ] {
            let e = Config::new(url).unwrap_err().to_string();
            assert!(e.starts_with("--otlp "), "{e}");
            assert!(!e.contains("sekrit"), "{e}");
        }
    }

    #[test]
    fn credentials_in_the_url_or_headers_are_never_shown() {
        let c = Config::new("https://user:secret@h.example/v1?api_key=k")
            .unwrap()
            .header("Authorization=Bearer abc")
            .unwrap();
        let shown = c.shown();
        assert!(
            !shown.contains("secret") && !shown.contains("api_key"),
            "{shown}"
        );
        assert!(!format!("{c:?}").contains("abc"));
        assert!(Config::new("http://h").unwrap().header("novalue").is_err());
    }

    #[test]
    fn the_context_of_a_header() {
        let h = json!({"started": "2026-12-01T21:19:33Z",
            "server": {"transport": "http", "url": "http://127.0.0.1:8080/mcp"},
            "proxy": {"name": "p"}});
        let c = Context::of_header(&h, None);
        assert_eq!(c.wall_start_us, 1_796_159_973_000_000);
        assert!(c.proxy);
        assert_eq!(c.transport, "tcp");
        assert_eq!(c.server, Some(("127.0.0.1".into(), 8080)));
        let c = Context::of_header(
            &json!({"recorded_as": "client", "proxy": {}, "server": {"transport": "stdio"}}),
            Some(5),
        );
        assert!(!c.proxy);
        assert_eq!((c.transport, c.wall_start_us, c.server), ("pipe", 5, None));
    }
}
