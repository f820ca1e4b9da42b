//! The OTLP/HTTP listener: `POST /v1/traces`, `/v1/logs`, `/v1/metrics` on
//! 127.0.0.1, behind the Host/Origin guard of every local listener. Each
//! export is decoded off the trace's lock and appended in one short batch;
//! the exporter gets its answer once its data is in the trace. A request's
//! head and body must each arrive in time, and a body is read whole before
//! its export takes a decoding slot, so a sender that stalls holds neither
//! a slot nor a connection for long. OTLP/gRPC (HTTP/2, told apart by its
//! preface) is served on the same port (`grpc`); anything else (TLS, not
//! HTTP) is said once per session and closed.

mod grpc;

use super::OtelError;
use super::decode::{self, Encoding, Signal};
use crate::event::Event;
use crate::listen_guard::{Flags, ListenGuard};
use crate::trace::Trace;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// The largest export body taken (the Python exporter's batches of 512
/// spans are well under 1 MiB).
pub const MAX_BODY: usize = 16 * 1024 * 1024;
/// Exports being decoded at once; one more waits for a slot (its body is
/// read already, and bounded by [`MAX_READING`]).
pub const MAX_IN_FLIGHT: usize = 4;
/// Export bodies being read or held at once; one more is answered 503
/// with `Retry-After`, which OTLP exporters retry (so a flood cannot pile
/// up memory or CPU in mcpscope).
pub const MAX_READING: usize = 16;
/// How long a request's head may take to arrive once the connection is
/// open (or the previous request is answered); the connection is closed then.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an export's body may take to arrive once its head has; it is
/// answered 408 then.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once.
const MAX_CONNECTIONS: usize = 64;

/// The channel the receiver's events are recorded on.
pub const CHANNEL: &str = "otel";

/// Where the receiver listens: nowhere (`--no-otel-receiver`), on a port
/// of the OS's choosing on 127.0.0.1 (the default: each session its own),
/// or on the loopback address the user gave (`--otel-receiver ADDR`, so a
/// server already running can be pointed at it once for every session).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReceiverAt {
    Off,
    #[default]
    Any,
    At(SocketAddr),
}

impl ReceiverAt {
    /// From the command line's `--no-otel-receiver` and `--otel-receiver`.
    pub fn of(off: bool, at: Option<SocketAddr>) -> ReceiverAt {
        match (off, at) {
            (true, _) => ReceiverAt::Off,
            (false, Some(a)) => ReceiverAt::At(a),
            (false, None) => ReceiverAt::Any,
        }
    }

    /// Start a receiver as asked, appending to `trace`: `None` when off;
    /// a bind that fails is `cannot listen on ADDR: why`.
    pub async fn start(self, trace: Trace) -> Option<Result<Receiver, OtelError>> {
        let at = match self {
            ReceiverAt::Off => return None,
            ReceiverAt::Any => SocketAddr::from(([127, 0, 0, 1], 0)),
            ReceiverAt::At(a) => a,
        };
        let shown = match self {
            ReceiverAt::At(a) => a.to_string(),
            _ => "127.0.0.1".to_string(),
        };
        Some(
            Receiver::listen_at(trace, at, HEAD_TIMEOUT, BODY_TIMEOUT)
                .await
                .map_err(|source| OtelError::Listen { at: shown, source }),
        )
    }
}

/// `--otel-receiver ADDR`: a loopback `HOST:PORT` (`127.0.0.1:4318`,
/// `[::1]:4318`, `localhost:4318`); the receiver takes no traffic from
/// beyond this machine.
pub fn parse_receiver_addr(s: &str) -> Result<SocketAddr, OtelError> {
    use std::net::ToSocketAddrs;
    let addrs: Vec<SocketAddr> = s
        .to_socket_addrs()
        .map_err(OtelError::ReceiverAddr)?
        .collect();
    addrs
        .iter()
        .find(|a| crate::listen_guard::is_loopback(a))
        .copied()
        .ok_or_else(|| OtelError::NotLoopback {
            addr: s.to_string(),
        })
}

/// A running receiver; dropping it stops listening.
pub struct Receiver {
    addr: SocketAddr,
    task: tokio::task::JoinHandle<()>,
}

impl Receiver {
    /// Listen on 127.0.0.1 (a port of the OS's choosing) and append what
    /// arrives to `trace`.
    pub async fn start(trace: Trace) -> std::io::Result<Receiver> {
        Receiver::listen(trace, HEAD_TIMEOUT, BODY_TIMEOUT).await
    }

    async fn listen(trace: Trace, head: Duration, body: Duration) -> std::io::Result<Receiver> {
        Receiver::listen_at(trace, SocketAddr::from(([127, 0, 0, 1], 0)), head, body).await
    }

    async fn listen_at(
        trace: Trace,
        at: SocketAddr,
        head: Duration,
        body: Duration,
    ) -> std::io::Result<Receiver> {
        let listener = tokio::net::TcpListener::bind(at).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(State {
            guard: ListenGuard::new(addr, Vec::new()).with_flags(Flags::NONE),
            trace,
            in_flight: Semaphore::new(MAX_IN_FLIGHT),
            reading: Semaphore::new(MAX_READING),
            body_timeout: body,
            foreign_said: Default::default(),
        });
        let connections = Arc::new(Semaphore::new(MAX_CONNECTIONS));
        let task = tokio::spawn(async move {
            loop {
                let Ok(permit) = connections.clone().acquire_owned().await else {
                    return;
                };
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let state = state.clone();
                tokio::spawn(async move {
                    match first_bytes(&stream, head).await {
                        First::Http1 => {}
                        First::Grpc => {
                            grpc::serve(state, stream, head).await;
                            drop(permit);
                            return;
                        }
                        First::Nothing => return,
                        First::Foreign(protocol) => {
                            state.say_foreign(protocol);
                            return;
                        }
                    }
                    let svc = service_fn(move |req| {
                        let state = state.clone();
                        async move { Ok::<_, Infallible>(state.handle(req).await) }
                    });
                    let _ = http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(head)
                        .serve_connection(TokioIo::new(stream), svc)
                        .await;
                    drop(permit);
                });
            }
        });
        Ok(Receiver { addr, task })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// What `OTEL_EXPORTER_OTLP_ENDPOINT` is set to.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct State {
    guard: ListenGuard,
    trace: Trace,
    in_flight: Semaphore,
    reading: Semaphore,
    body_timeout: Duration,
    /// The foreign protocols said so far (each once per session).
    foreign_said: std::sync::Mutex<Vec<&'static str>>,
}

/// What a connection's first bytes say it speaks.
enum First {
    Http1,
    /// The HTTP/2 preface: OTLP/gRPC.
    Grpc,
    /// Nothing arrived in time, or the peer went away.
    Nothing,
    Foreign(&'static str),
}

/// Peek at a connection's first bytes (hyper still reads them): the HTTP/2
/// preface (`PRI * HTTP/2.0`, what an OTLP/gRPC exporter sends), a TLS
/// handshake, or anything that cannot start an HTTP/1 request line. A
/// lone `P` that could still become `PRI` is taken as HTTP/1 (hyper then
/// refuses it silently).
async fn first_bytes(stream: &tokio::net::TcpStream, wait: Duration) -> First {
    let mut buf = [0u8; 3];
    let n = match tokio::time::timeout(wait, stream.peek(&mut buf)).await {
        Ok(Ok(n)) if n > 0 => n,
        _ => return First::Nothing,
    };
    match &buf[..n] {
        b"PRI" => First::Grpc,
        [0x16, ..] => First::Foreign("TLS"),
        [c, ..] if !c.is_ascii_uppercase() => First::Foreign("other"),
        _ => First::Http1,
    }
}

type Body = Full<Bytes>;

fn plain(status: StatusCode, msg: &str) -> Response<Body> {
    let mut r = Response::new(Full::new(Bytes::from(msg.to_string())));
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain"),
    );
    r
}

impl State {
    /// Record that `protocol` arrived, the first time it does.
    fn say_foreign(&self, protocol: &'static str) {
        {
            let mut said = self.foreign_said.lock().unwrap_or_else(|e| e.into_inner());
            if said.contains(&protocol) {
                return;
            }
            said.push(protocol);
        }
        let ev = Event::OtelForeign {
            protocol: protocol.into(),
        };
        self.trace
            .append(|store, t| store.append_event(CHANNEL, t, &ev));
    }

    async fn handle(&self, req: Request<Incoming>) -> Response<Body> {
        if let Err(refusal) = self.guard.admit(req.headers()) {
            return refusal.response();
        }
        let Some(signal) = Signal::of_path(req.uri().path()) else {
            return plain(
                StatusCode::NOT_FOUND,
                "not found: the endpoints are /v1/traces, /v1/logs and /v1/metrics",
            );
        };
        if req.method() != Method::POST {
            return plain(StatusCode::METHOD_NOT_ALLOWED, "POST an OTLP export");
        }
        let header = |name| {
            req.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string()
        };
        let coding = header(hyper::header::CONTENT_ENCODING);
        if !coding.is_empty() && !coding.eq_ignore_ascii_case("identity") {
            // The exporters' default is no compression.
            return plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "compressed exports are not accepted: set OTEL_EXPORTER_OTLP_COMPRESSION=none",
            );
        }
        let Some(enc) = Encoding::of_content_type(&header(hyper::header::CONTENT_TYPE)) else {
            return plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Content-Type must be application/x-protobuf or application/json",
            );
        };
        let Ok(_reading) = self.reading.try_acquire() else {
            let mut r = plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "busy: retry the export later",
            );
            r.headers_mut().insert(
                hyper::header::RETRY_AFTER,
                hyper::header::HeaderValue::from_static("1"),
            );
            return r;
        };
        let read = Limited::new(req.into_body(), MAX_BODY).collect();
        let body = match tokio::time::timeout(self.body_timeout, read).await {
            Ok(Ok(b)) => b.to_bytes(),
            Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
                return plain(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "export body over 16 MiB: export smaller batches",
                );
            }
            Ok(Err(_)) => return plain(StatusCode::BAD_REQUEST, "the export's body was cut"),
            Err(_) => {
                return plain(
                    StatusCode::REQUEST_TIMEOUT,
                    "the export's body did not arrive in time",
                );
            }
        };
        // Only a whole body takes a decoding slot: a sender that stalls
        // never holds one.
        let Ok(_decoding) = self.in_flight.acquire().await else {
            return plain(StatusCode::SERVICE_UNAVAILABLE, "the receiver is closing");
        };
        let decoded = match decode::decode(signal, enc, &body) {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!(signal = signal.as_str(), why = %e, "OTLP export refused");
                return plain(StatusCode::BAD_REQUEST, &e.to_string());
            }
        };
        self.append(signal, &decoded);
        tracing::debug!(
            signal = signal.as_str(),
            events = decoded.events.len(),
            dropped = decoded.dropped,
            invalid = decoded.invalid,
            "OTLP export received"
        );
        success(signal, enc, &decoded)
    }

    fn append(&self, signal: Signal, decoded: &decode::Decoded) {
        self.trace.append(|store, t| {
            for ev in &decoded.events {
                store.append_event(CHANNEL, t, ev);
            }
            // Said only when something was left out: most exports are whole.
            let reports: [(u64, fn() -> String); 2] = [
                (decoded.dropped, || {
                    format!("over {} items in one export", decode::MAX_PER_EXPORT)
                }),
                (decoded.invalid, || decode::INVALID_IDS.to_string()),
            ];
            for (count, reason) in reports {
                if count > 0 {
                    let signal = signal.as_str().into();
                    store.append_event(
                        CHANNEL,
                        t,
                        &Event::OtelDropped {
                            signal,
                            count,
                            reason: reason(),
                        },
                    );
                }
            }
        });
    }
}

/// The empty `Export*ServiceResponse` in the request's encoding, with a
/// partial success when items were left out (past the bound, or refused
/// for an invalid id).
fn success(signal: Signal, enc: Encoding, decoded: &decode::Decoded) -> Response<Body> {
    let (body, ctype) = response_body(signal, enc, decoded);
    let mut r = Response::new(Full::new(Bytes::from(body)));
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(ctype),
    );
    r
}

/// The response message of an export and its content type.
fn response_body(
    signal: Signal,
    enc: Encoding,
    decoded: &decode::Decoded,
) -> (Vec<u8>, &'static str) {
    use opentelemetry_proto::tonic::collector as c;
    use prost::Message;
    let dropped = decoded.dropped + decoded.invalid;
    let over = format!("over {} items in one export", decode::MAX_PER_EXPORT);
    let msg = match (decoded.dropped, decoded.invalid) {
        (0, _) => decode::INVALID_IDS.to_string(),
        (_, 0) => over,
        _ => format!("{over}; {}", decode::INVALID_IDS),
    };
    let partial = |n: u64| (n > 0).then_some(n as i64);
    let answer: (Vec<u8>, &'static str) = match (signal, enc) {
        // Serde would write `"partialSuccess": null`; the empty message is `{}`.
        (_, Encoding::Json) if dropped == 0 => (b"{}".to_vec(), "application/json"),
        (Signal::Traces, _) => {
            let r = c::trace::v1::ExportTraceServiceResponse {
                partial_success: partial(dropped).map(|n| {
                    c::trace::v1::ExportTracePartialSuccess {
                        rejected_spans: n,
                        error_message: msg.clone(),
                    }
                }),
            };
            encode(&r, enc)
        }
        (Signal::Logs, _) => {
            let r = c::logs::v1::ExportLogsServiceResponse {
                partial_success: partial(dropped).map(|n| c::logs::v1::ExportLogsPartialSuccess {
                    rejected_log_records: n,
                    error_message: msg.clone(),
                }),
            };
            encode(&r, enc)
        }
        (Signal::Metrics, _) => {
            let r = c::metrics::v1::ExportMetricsServiceResponse {
                partial_success: None,
            };
            encode(&r, enc)
        }
    };
    fn encode<T: Message + serde::Serialize>(r: &T, enc: Encoding) -> (Vec<u8>, &'static str) {
        match enc {
            Encoding::Protobuf => (r.encode_to_vec(), "application/x-protobuf"),
            Encoding::Json => (
                serde_json::to_vec(r).unwrap_or_else(|_| b"{}".to_vec()),
                "application/json",
            ),
        }
    }
    answer
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{MonotonicClock, Store};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// One HTTP/1.1 exchange over a real loopback connection: status and body.
    async fn post(
        addr: SocketAddr,
        host: &str,
        path: &str,
        headers: &str,
        body: &[u8],
    ) -> (u16, String) {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Length: {}\r\nConnection: close\r\n{headers}\r\n",
            body.len()
        );
        s.write_all(head.as_bytes()).await.unwrap();
        s.write_all(body).await.unwrap();
        let mut out = Vec::new();
        s.read_to_end(&mut out).await.unwrap();
        let text = String::from_utf8_lossy(&out).to_string();
        let status = text[9..12].parse().unwrap();
        let body = text
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_string())
            .unwrap_or_default();
        (status, body)
    }

    fn span_json() -> Vec<u8> {
        serde_json::json!({"resourceSpans": [{"scopeSpans": [{"spans": [{
            "traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174",
            "name": "tools/call echo", "kind": 2,
            "startTimeUnixNano": "1000000", "endTimeUnixNano": "3000000"
        }]}]}]})
        .to_string()
        .into_bytes()
    }

    fn otel_events(trace: &Trace) -> Vec<Event> {
        let store = trace.read();
        store
            .range(0, store.next_seq())
            .filter_map(|e| e.event())
            .collect()
    }

    #[tokio::test]
    async fn a_json_export_is_taken_in_and_answered_with_an_empty_response() {
        let trace = Trace::new(Store::default(), MonotonicClock::new());
        let r = Receiver::start(trace.clone()).await.unwrap();
        let host = r.addr().to_string();
        let json = "Content-Type: application/json\r\n";
        let (status, body) = post(r.addr(), &host, "/v1/traces", json, &span_json()).await;
        assert_eq!((status, body.as_str()), (200, "{}"));
        let evs = otel_events(&trace);
        assert!(
            matches!(&evs[..], [Event::OtelSpan { name, end_ns: 3000000, .. }] if name == "tools/call echo"),
            "{evs:?}"
        );
        // The data is in the trace before the exporter has its answer.
        let metrics = br#"{"resourceMetrics":[{"scopeMetrics":[{"metrics":[{"name":"m","sum":{"dataPoints":[{"asInt":"1"},{"asInt":"2"}]}}]}]}]}"#;
        let (status, _) = post(r.addr(), &host, "/v1/metrics", json, metrics).await;
        assert_eq!(status, 200);
        assert_eq!(
            otel_events(&trace).last(),
            Some(&Event::OtelMetrics {
                service: None,
                metrics: 1,
                points: 2
            })
        );
    }

    #[tokio::test]
    async fn foreign_hosts_and_bad_exports_are_refused_and_nothing_is_kept() {
        let trace = Trace::new(Store::default(), MonotonicClock::new());
        let r = Receiver::start(trace.clone()).await.unwrap();
        let host = r.addr().to_string();
        let json = "Content-Type: application/json\r\n";
        let (status, body) = post(r.addr(), "evil.example", "/v1/traces", json, &span_json()).await;
        assert_eq!(status, 403, "{body}");
        let origin = "Content-Type: application/json\r\nOrigin: http://evil.example\r\n";
        assert_eq!(
            post(r.addr(), &host, "/v1/traces", origin, &span_json())
                .await
                .0,
            403
        );
        let gz = "Content-Type: application/x-protobuf\r\nContent-Encoding: gzip\r\n";
        let (status, body) = post(r.addr(), &host, "/v1/traces", gz, b"x").await;
        assert_eq!(status, 415);
        assert!(
            body.contains("OTEL_EXPORTER_OTLP_COMPRESSION=none"),
            "{body}"
        );
        let pb = "Content-Type: application/x-protobuf\r\n";
        assert_eq!(
            post(r.addr(), &host, "/v1/traces", pb, b"\xff\xff\xff")
                .await
                .0,
            400
        );
        assert_eq!(post(r.addr(), &host, "/v1/other", json, b"{}").await.0, 404);
        let text = "Content-Type: text/plain\r\n";
        assert_eq!(post(r.addr(), &host, "/v1/logs", text, b"{}").await.0, 415);
        assert!(otel_events(&trace).is_empty());
    }

    /// An export whose body is announced and never sent whole, stalled once
    /// the receiver has started reading it (its `100 Continue` says so).
    async fn stalled_in_body(addr: SocketAddr) -> tokio::net::TcpStream {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        let head = format!(
            "POST /v1/traces HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n"
        );
        s.write_all(head.as_bytes()).await.unwrap();
        let mut cont = [0u8; 25];
        s.read_exact(&mut cont).await.unwrap();
        assert_eq!(&cont, b"HTTP/1.1 100 Continue\r\n\r\n");
        s.write_all(br#"{"resourceSpans":"#).await.unwrap();
        s
    }

    /// What comes back on `s` up to the end of a response's head or the
    /// connection's end, waiting at most 10 s (the receiver's own timeouts
    /// are far shorter in these tests).
    async fn answer(s: &mut tokio::net::TcpStream) -> String {
        let mut out = Vec::new();
        let mut buf = [0u8; 1024];
        let read = async {
            while !out.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut buf).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => out.extend_from_slice(&buf[..n]),
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(10), read)
            .await
            .expect("the stalled request was cut off");
        String::from_utf8_lossy(&out).into_owned()
    }

    #[tokio::test]
    async fn senders_that_stall_mid_body_hold_no_decoding_slot() {
        let trace = Trace::new(Store::default(), MonotonicClock::new());
        let r = Receiver::start(trace.clone()).await.unwrap();
        let mut stalled = Vec::new();
        for _ in 0..MAX_IN_FLIGHT {
            stalled.push(stalled_in_body(r.addr()).await);
        }
        let host = r.addr().to_string();
        let json = "Content-Type: application/json\r\n";
        let (status, body) = post(r.addr(), &host, "/v1/traces", json, &span_json()).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(otel_events(&trace).len(), 1);
    }

    #[tokio::test]
    async fn a_head_or_a_body_that_does_not_arrive_in_time_is_cut_off() {
        let trace = Trace::new(Store::default(), MonotonicClock::new());
        let short = Duration::from_millis(200);
        let r = Receiver::listen(trace.clone(), short, short).await.unwrap();
        let mut body = stalled_in_body(r.addr()).await;
        let mut head = tokio::net::TcpStream::connect(r.addr()).await.unwrap();
        head.write_all(format!("POST /v1/traces HTTP/1.1\r\nHost: {}\r\n", r.addr()).as_bytes())
            .await
            .unwrap();
        let cut = answer(&mut body).await;
        assert!(cut.starts_with("HTTP/1.1 408"), "{cut}");
        // The head's connection is closed (hyper may say 408 first).
        let cut = answer(&mut head).await;
        assert!(cut.is_empty() || cut.starts_with("HTTP/1.1 408"), "{cut}");
        assert!(otel_events(&trace).is_empty());
    }

    #[tokio::test]
    async fn tls_is_recorded_once_and_closed_and_http2_is_spoken() {
        let trace = Trace::new(Store::default(), MonotonicClock::new());
        let r = Receiver::start(trace.clone()).await.unwrap();
        for _ in 0..2 {
            let mut tls = tokio::net::TcpStream::connect(r.addr()).await.unwrap();
            tls.write_all(&[0x16, 0x03, 0x01, 0x00]).await.unwrap();
            // Closed at once, with nothing said on the wire.
            assert_eq!(answer(&mut tls).await, "");
        }
        assert_eq!(
            otel_events(&trace),
            [Event::OtelForeign {
                protocol: "TLS".into()
            }]
        );
        // The HTTP/2 preface (OTLP/gRPC) is answered with the server's SETTINGS frame.
        let mut s = tokio::net::TcpStream::connect(r.addr()).await.unwrap();
        s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
            .await
            .unwrap();
        s.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).await.unwrap();
        let mut head = [0u8; 9];
        s.read_exact(&mut head).await.unwrap();
        assert_eq!(head[3], 4, "a SETTINGS frame: {head:?}");
        // HTTP/1 still works.
        let host = r.addr().to_string();
        let json = "Content-Type: application/json\r\n";
        assert_eq!(
            post(r.addr(), &host, "/v1/traces", json, &span_json())
                .await
                .0,
            200
        );
    }
}
