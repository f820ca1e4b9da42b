//! The trace's order of outgoing frames is the order on the wire, even when
//! many tasks send at once: recording and writing are one step.

use mcpscope::client::{ClientOptions, Session};
use mcpscope::trace::{Dir, MonotonicClock, Store, Trace};
use mcpscope::transport::stdio::CommandSpec;

#[test]
fn concurrent_sends_are_recorded_in_wire_order() {
    let dir = tempfile::tempdir().unwrap();
    let wire = dir.path().join("wire.txt");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .unwrap();
    let trace = Trace::new(Store::default(), MonotonicClock::new());
    rt.block_on(async {
        // A server that keeps exactly what it received, in order.
        let spec = CommandSpec {
            argv: vec![
                "sh".into(),
                "-c".into(),
                format!("exec cat > {}", wire.display()),
            ],
            ..Default::default()
        };
        let session = Session::spawn_stdio(&spec, ClientOptions::default(), trace.clone()).unwrap();
        let mut tasks = Vec::new();
        for t in 0..8 {
            let s = session.clone();
            tasks.push(tokio::spawn(async move {
                for i in 0..500 {
                    s.notify("test/order", Some(serde_json::json!({"t": t, "i": i})))
                        .unwrap();
                    if i % 16 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        // Closing stdin ends `cat` once everything is written.
        session.shutdown().await;
    });
    let received = std::fs::read_to_string(&wire).unwrap();
    let received: Vec<&str> = received.lines().collect();
    let store = trace.read();
    let recorded: Vec<String> = store
        .range(0, store.next_seq())
        .filter(|e| e.dir == Dir::Out)
        .map(|e| e.text().into_owned())
        .collect();
    assert_eq!(received.len(), 4000);
    assert_eq!(recorded.len(), 4000);
    let first_difference = received
        .iter()
        .zip(&recorded)
        .position(|(a, b)| *a != b.as_str());
    assert_eq!(
        first_difference, None,
        "the trace order differs from the wire"
    );
}
