//! What can go wrong with OpenTelemetry: the receiver's address and
//! listener, an export it was sent, and the exporter's URL, headers and
//! requests.

/// The error of parsing a URL (`url::ParseError`, reached through reqwest).
type UrlError = <reqwest::Url as std::str::FromStr>::Err;

#[derive(Debug, thiserror::Error)]
pub enum OtelError {
    // The receiver.
    #[error("expected a loopback HOST:PORT such as 127.0.0.1:4318 ({0})")]
    ReceiverAddr(#[source] std::io::Error),
    #[error("the OTLP receiver listens on loopback only (127.0.0.1, [::1], localhost), not {addr}")]
    NotLoopback { addr: String },
    #[error("cannot listen on {at}: {source}")]
    Listen {
        at: String,
        #[source]
        source: std::io::Error,
    },
    #[error("not an OTLP protobuf: {0}")]
    NotProtobuf(#[source] prost::DecodeError),
    #[error("not an OTLP JSON body: {0}")]
    NotJson(#[source] serde_json::Error),

    // The exporter (`--otlp`, `--otlp-header`); `url` is quoted without
    // its credentials.
    #[error("--otlp {url}: not a URL: {source}")]
    NotUrl {
        url: String,
        #[source]
        source: UrlError,
    },
    #[error("--otlp {url}: the exporter speaks OTLP/HTTP: give an http:// or https:// URL")]
    NotHttp { url: String },
    #[error("--otlp-header expects NAME=VALUE")]
    HeaderForm,
    #[error("--otlp-header: not a header name")]
    HeaderName,
    #[error("--otlp-header {name}: the value is not a header value")]
    HeaderValue { name: String },
    /// The backend refused an export, said in one line.
    #[error("{0}")]
    Refused(String),
    /// The backend kept failing (unreachable, busy) past the retries.
    #[error("{why} (after {retries} retries)")]
    GaveUp { why: String, retries: u32 },
}
