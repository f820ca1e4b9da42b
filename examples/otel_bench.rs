//! The OTLP receiver's budget (issue 24): it takes in at least 50,000
//! spans/s on 2 cores. Exports shaped like the Python SDK's (batches of 512
//! SERVER spans with the MCP attributes, protobuf) are POSTed over loopback
//! by two keep-alive connections to a receiver appending to a real trace;
//! decoding alone is measured beside it, so the HTTP and store share shows.
//!
//! Run: `cargo run --release --example otel_bench [EXPORTS]`

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

use mcpscope::otel::Receiver;
use mcpscope::otel::decode::{Encoding, Signal, decode};
use mcpscope::trace::{MonotonicClock, Store, Trace};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;
use std::time::Instant;

const BATCH: usize = 512;
const BUDGET: f64 = 50_000.0;

fn kv(k: &str, v: &str) -> KeyValue {
    KeyValue {
        key: k.into(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(v.into())),
        }),
        ..Default::default()
    }
}

fn export(n: usize, batch: usize) -> Vec<u8> {
    let spans = (0..batch)
        .map(|i| {
            let id = (n * batch + i) as u64 + 1;
            let mut trace_id = [0u8; 16];
            trace_id[..8].copy_from_slice(&id.to_be_bytes());
            Span {
                trace_id: trace_id.to_vec(),
                span_id: id.to_be_bytes().to_vec(),
                parent_span_id: (id ^ 0xff).to_be_bytes().to_vec(),
                name: "tools/call slow_task".into(),
                kind: 2,
                start_time_unix_nano: 1_000_000,
                end_time_unix_nano: 2_000_000 + id,
                attributes: vec![
                    kv("mcp.method.name", "tools/call"),
                    kv("mcp.protocol.version", "2025-11-25"),
                    kv("jsonrpc.request.id", &id.to_string()),
                    kv("gen_ai.tool.name", "slow_task"),
                    kv("gen_ai.operation.name", "execute_tool"),
                ],
                ..Default::default()
            }
        })
        .collect();
    ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: vec![kv("service.name", "bench")],
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans {
                spans,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
    .encode_to_vec()
}

fn main() {
    let exports: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let bodies: Vec<Vec<u8>> = (0..exports).map(|n| export(n, BATCH)).collect();
    let spans = (exports * BATCH) as f64;

    let t = Instant::now();
    for b in &bodies {
        let d = decode(Signal::Traces, Encoding::Protobuf, b).expect("decodes");
        assert_eq!(d.events.len(), BATCH);
    }
    let decode_s = t.elapsed().as_secs_f64();

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (recv_s, kept, retried) = rt.block_on(async {
        let trace = Trace::new(Store::default(), MonotonicClock::new());
        let r = Receiver::start(trace.clone()).await.expect("listen");
        let url = format!("{}/v1/traces", r.endpoint());
        let bodies = std::sync::Arc::new(bodies);
        let t = Instant::now();
        let mut tasks = Vec::new();
        for c in 0..2 {
            let (url, bodies) = (url.clone(), bodies.clone());
            tasks.push(tokio::spawn(async move {
                let client = reqwest::Client::new();
                let mut retried = 0u64;
                for b in bodies.iter().skip(c).step_by(2) {
                    loop {
                        let resp = client
                            .post(&url)
                            .header("Content-Type", "application/x-protobuf")
                            .body(b.clone())
                            .send()
                            .await
                            .expect("posted");
                        if resp.status() == 200 {
                            break;
                        }
                        assert_eq!(resp.status(), 503, "only busy is retried");
                        retried += 1;
                    }
                }
                retried
            }));
        }
        let mut retried = 0;
        for t in tasks {
            retried += t.await.unwrap();
        }
        let secs = t.elapsed().as_secs_f64();
        let kept = trace.read().len();
        (secs, kept, retried)
    });
    assert_eq!(kept as f64, spans, "every span is in the trace");
    let rate = spans / recv_s;
    println!(
        "otel receiver: {exports} protobuf exports of {BATCH} spans, 2 connections, 2 worker threads"
    );
    println!(
        "  decode only : {:>10.0} spans/s ({decode_s:.3} s)",
        spans / decode_s
    );
    println!(
        "  received    : {rate:>10.0} spans/s ({recv_s:.3} s, {retried} exports retried after 503)"
    );
    println!(
        "  budget      : {BUDGET:>10.0} spans/s -> {:.2}x the budget: {}",
        rate / BUDGET,
        if rate >= BUDGET { "ok" } else { "OVER BUDGET" }
    );
}
