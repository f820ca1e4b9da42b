//! Ingest benchmark (DESIGN §7): 1,000,000 progress notifications from the
//! demo server's `flood` tool through the real stdio transport into the
//! store, measured side by side with a bare `serde_json` parse loop over the
//! very same bytes.
//!
//! Run: `cargo build --release && cargo run --release --example flood_bench [COUNT]`
//! `FLOOD_SERVER="python3 flood_server.py"` measures another flood server
//! (any server with a `flood {count}` tool) instead of the demo server.

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

#[path = "support/release_bin.rs"]
mod release_bin;

use mcpscope::client::{ClientOptions, Limits, Session, TokenPolicy};
use mcpscope::trace::{Dir, MonotonicClock, Store, Trace};
use mcpscope::transport::lines::read_lines;
use mcpscope::transport::stdio::CommandSpec;
use serde_json::json;
use std::time::{Duration, Instant};

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let bin = release_bin::release_bin();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");

    // 1. End to end: demo server → pipe → reader thread → classify → store.
    let trace = Trace::new(Store::default(), MonotonicClock::new());
    let (call_s, received) = rt.block_on(async {
        let argv = match std::env::var("FLOOD_SERVER") {
            Ok(cmd) => cmd.split_whitespace().map(str::to_string).collect(),
            Err(_) => vec![bin.display().to_string(), "demo-server".into()],
        };
        let spec = CommandSpec {
            argv,
            ..Default::default()
        };
        let session =
            Session::spawn_stdio(&spec, ClientOptions::default(), trace.clone()).expect("spawn");
        session.initialize().await.expect("initialize");
        let limits = Limits {
            idle: Some(Duration::from_secs(60)),
            max: Some(Duration::from_secs(600)),
        };
        let t0 = Instant::now();
        let out = session
            .call_tool(
                "flood",
                &json!({"count": count}),
                &TokenPolicy::AutoString,
                limits,
            )
            .await
            .expect("flood call");
        let dt = t0.elapsed().as_secs_f64();
        let received = {
            let store = trace.read();
            store
                .token(out.token.as_ref().expect("token"))
                .map_or(0, |t| t.notifications)
        };
        session.shutdown().await;
        (dt, received)
    });

    // The exact bytes the server sent, for the side-by-side loops.
    let store = trace.read();
    let mut raw = Vec::new();
    let mut raw_lines = 0u64;
    for ev in store.range(0, store.next_seq()) {
        if ev.dir == Dir::In {
            raw.extend_from_slice(ev.bytes);
            raw.push(b'\n');
            raw_lines += 1;
        }
    }
    let raw_bytes = raw.len() as f64;
    let stored = store.mem_bytes() as f64;
    let indexes = store.index_bytes() as f64;
    drop(store);

    // 2. Bare serde_json parse loop over the same bytes (Value per line).
    let t0 = Instant::now();
    let mut n = 0u64;
    for line in raw.split(|b| *b == b'\n') {
        if let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) {
            n += u64::from(v.is_object());
        }
    }
    let parse_s = t0.elapsed().as_secs_f64();
    assert!(n >= raw_lines - 1);

    // 3. Ingest alone, without the server: the same bytes through framing,
    // classification, indexing and storage.
    let mut best_ingest = f64::MAX;
    for _ in 0..3 {
        let mut store = Store::default();
        let t0 = Instant::now();
        let mut routes = Vec::new();
        read_lines(&raw[..], |lines| {
            for l in lines {
                store.append_frame(Dir::In, "stdio", 0, l, &mut routes);
            }
        })
        .expect("read");
        best_ingest = best_ingest.min(t0.elapsed().as_secs_f64());
        assert_eq!(store.len(), raw_lines);
    }

    let m = |s: f64| count as f64 / s / 1e6;
    println!(
        "flood of {count} progress notifications ({:.1} MB on the wire)",
        raw_bytes / 1e6
    );
    println!("  received (lossless check)      {received} of {count}");
    println!(
        "  end to end (server+pipe+store)  {call_s:.3} s   {:.2} M notif/s",
        m(call_s)
    );
    println!(
        "  ingest alone (frame+classify+store) {best_ingest:.3} s   {:.2} M notif/s",
        m(best_ingest)
    );
    println!(
        "  bare serde_json Value loop      {parse_s:.3} s   {:.2} M notif/s",
        m(parse_s)
    );
    println!(
        "  ingest speed / parse-loop speed: {:.2}x (budget >= 0.50)",
        parse_s / best_ingest
    );
    println!(
        "  end-to-end speed / parse-loop speed: {:.2}x",
        parse_s / call_s
    );
    println!(
        "  stored bytes / raw bytes: {:.2}x, with indexes {:.2}x (budget <= 2.00)",
        stored / raw_bytes,
        (stored + indexes) / raw_bytes
    );
    println!(
        "  vs TypeScript SDK client (44,100/s on the same kind of flood): {:.0}x",
        count as f64 / call_s / 44_100.0
    );
}
