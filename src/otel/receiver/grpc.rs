//! OTLP over gRPC on the receiver's port (what the official Go SDK's
//! servers and any exporter set to `grpc` send): the three unary `Export`
//! methods over h2c — HTTP/2 without TLS, told apart from HTTP/1 by its
//! preface — each request one length-prefixed protobuf message, decoded
//! as an OTLP/HTTP protobuf body is, the answer the same empty response
//! with `grpc-status: 0` in the trailers. Errors are gRPC statuses the
//! exporters understand: UNAVAILABLE when busy (they retry), the others
//! final. A browser cannot speak h2c with prior knowledge; a request that
//! carries an `Origin` is refused all the same.

use super::super::decode::{self, Encoding, Signal};
use super::State;
use bytes::{BufMut, Bytes, BytesMut};
use http_body_util::{BodyExt, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper::{HeaderMap, Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

/// How often an idle connection is pinged.
const KEEP_ALIVE: Duration = Duration::from_secs(30);
/// Streams (exports) at once on one connection.
const MAX_STREAMS: u32 = 16;

type Frames = futures_util::stream::Iter<std::vec::IntoIter<Result<Frame<Bytes>, Infallible>>>;
type Body = StreamBody<Frames>;

/// gRPC status codes used here.
mod code {
    pub const OK: u32 = 0;
    pub const INVALID_ARGUMENT: u32 = 3;
    pub const DEADLINE_EXCEEDED: u32 = 4;
    pub const PERMISSION_DENIED: u32 = 7;
    pub const RESOURCE_EXHAUSTED: u32 = 8;
    pub const UNIMPLEMENTED: u32 = 12;
    pub const UNAVAILABLE: u32 = 14;
}

/// Serve one h2c connection until the exporter closes it.
pub(super) async fn serve(state: Arc<State>, stream: tokio::net::TcpStream, head: Duration) {
    let svc = service_fn(move |req| {
        let state = state.clone();
        async move { Ok::<_, Infallible>(handle(&state, req).await) }
    });
    let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
        .timer(TokioTimer::new())
        .max_concurrent_streams(MAX_STREAMS)
        .max_header_list_size(64 * 1024)
        // A peer that no longer answers pings (gone, or holding the
        // connection open without speaking) is closed: its connection slot
        // is freed. An idle exporter answers them and keeps its channel.
        .keep_alive_interval(Some(KEEP_ALIVE))
        .keep_alive_timeout(head)
        .serve_connection(TokioIo::new(stream), svc)
        .await;
}

/// The signal of an OTLP `Export` method's path.
pub fn signal_of(path: &str) -> Option<Signal> {
    match path {
        "/opentelemetry.proto.collector.trace.v1.TraceService/Export" => Some(Signal::Traces),
        "/opentelemetry.proto.collector.logs.v1.LogsService/Export" => Some(Signal::Logs),
        "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export" => Some(Signal::Metrics),
        _ => None,
    }
}

fn grpc_headers(h: &mut HeaderMap) {
    h.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/grpc"),
    );
}

/// A status with no message body (gRPC's "trailers-only" response).
fn status(code: u32, message: &str) -> Response<Body> {
    let mut r = Response::new(StreamBody::new(futures_util::stream::iter(Vec::new())));
    let h = r.headers_mut();
    grpc_headers(h);
    h.insert("grpc-status", code.into());
    // grpc-message is percent-encoded UTF-8 (gRPC over HTTP/2, "Responses").
    let text: String = message
        .bytes()
        .map(|b| match b {
            b' '..=b'~' if b != b'%' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect();
    if let Ok(v) = hyper::header::HeaderValue::from_str(&text) {
        h.insert("grpc-message", v);
    }
    r
}

/// One length-prefixed, uncompressed message: the request's whole body.
pub fn unframe(body: &[u8]) -> Result<&[u8], (u32, &'static str)> {
    let [flag, a, b, c, d, rest @ ..] = body else {
        return Err((code::INVALID_ARGUMENT, "the request holds no gRPC message"));
    };
    if *flag != 0 {
        return Err((
            code::UNIMPLEMENTED,
            "compressed exports are not accepted: set OTEL_EXPORTER_OTLP_COMPRESSION=none",
        ));
    }
    let len = u32::from_be_bytes([*a, *b, *c, *d]) as usize;
    if rest.len() != len {
        return Err((
            code::INVALID_ARGUMENT,
            "the request is not one whole gRPC message",
        ));
    }
    Ok(rest)
}

async fn handle(state: &State, req: Request<Incoming>) -> Response<Body> {
    if req.headers().contains_key(hyper::header::ORIGIN) {
        return status(
            code::PERMISSION_DENIED,
            "a request from a web page is not accepted",
        );
    }
    let Some(signal) = signal_of(req.uri().path()) else {
        return status(
            code::UNIMPLEMENTED,
            "the methods are the OTLP Export of TraceService, LogsService and MetricsService",
        );
    };
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string()
    };
    if !header("content-type").starts_with("application/grpc") {
        return status(
            code::INVALID_ARGUMENT,
            "Content-Type must be application/grpc",
        );
    }
    let coding = header("grpc-encoding");
    if !coding.is_empty() && !coding.eq_ignore_ascii_case("identity") {
        return status(
            code::UNIMPLEMENTED,
            "compressed exports are not accepted: set OTEL_EXPORTER_OTLP_COMPRESSION=none",
        );
    }
    let Ok(_reading) = state.reading.try_acquire() else {
        return status(code::UNAVAILABLE, "busy: retry the export later");
    };
    let read = Limited::new(req.into_body(), super::MAX_BODY + 5).collect();
    let body = match tokio::time::timeout(state.body_timeout, read).await {
        Ok(Ok(b)) => b.to_bytes(),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            return status(
                code::RESOURCE_EXHAUSTED,
                "export over 16 MiB: export smaller batches",
            );
        }
        Ok(Err(_)) => return status(code::INVALID_ARGUMENT, "the export was cut"),
        Err(_) => return status(code::DEADLINE_EXCEEDED, "the export did not arrive in time"),
    };
    let message = match unframe(&body) {
        Ok(m) => m,
        Err((c, m)) => return status(c, m),
    };
    let Ok(_decoding) = state.in_flight.acquire().await else {
        return status(code::UNAVAILABLE, "the receiver is closing");
    };
    let decoded = match decode::decode(signal, Encoding::Protobuf, message) {
        Ok(d) => d,
        Err(e) => return status(code::INVALID_ARGUMENT, &e.to_string()),
    };
    state.append(signal, &decoded);
    let (reply, _) = super::response_body(signal, Encoding::Protobuf, &decoded);
    let mut framed = BytesMut::with_capacity(reply.len() + 5);
    framed.put_u8(0);
    framed.put_u32(reply.len() as u32);
    framed.put_slice(&reply);
    let mut trailers = HeaderMap::new();
    trailers.insert("grpc-status", code::OK.into());
    let frames = vec![
        Ok(Frame::data(framed.freeze())),
        Ok(Frame::trailers(trailers)),
    ];
    let mut r = Response::new(StreamBody::new(futures_util::stream::iter(frames)));
    grpc_headers(r.headers_mut());
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_message_is_percent_encoded_utf8() {
        let r = status(code::INVALID_ARGUMENT, "100% \u{e9}t\u{e9}");
        assert_eq!(r.headers()["grpc-message"], "100%25 %C3%A9t%C3%A9");
        assert_eq!(r.headers()["grpc-status"], "3");
    }

    #[test]
    fn one_whole_uncompressed_message_is_taken() {
        assert_eq!(unframe(&[0, 0, 0, 0, 2, 7, 8]), Ok(&[7u8, 8][..]));
        assert_eq!(unframe(&[0, 0, 0, 0, 0]), Ok(&[][..]));
        assert_eq!(
            unframe(&[1, 0, 0, 0, 1, 9]).unwrap_err().0,
            code::UNIMPLEMENTED
        );
        assert_eq!(
            unframe(&[0, 0, 0, 0, 3, 9]).unwrap_err().0,
            code::INVALID_ARGUMENT
        );
        assert_eq!(unframe(&[0, 0, 0]).unwrap_err().0, code::INVALID_ARGUMENT);
        assert_eq!(
            signal_of("/opentelemetry.proto.collector.logs.v1.LogsService/Export"),
            Some(Signal::Logs)
        );
        assert_eq!(signal_of("/v1/traces"), None);
    }
}
