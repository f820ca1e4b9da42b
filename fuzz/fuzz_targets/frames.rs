//! Any bytes as a session: each line is a frame (its first byte picks the
//! direction and the time step), classified, stored with a small byte bound
//! so eviction runs, checked by every rule, and laid out as the TUI shows it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpscope::checks::CheckConfig;
use mcpscope::cli::check::check_store;
use mcpscope::cli::replay::format_store;
use mcpscope::protocol::frame::{FrameKind, classify, well_formed_progress};
use mcpscope::protocol::views::ProgressView;
use mcpscope::trace::store::{Dir, Store, StoreLimits};
use mcpscope::tui::jsonfmt::{exact_bytes, pretty};

fuzz_target!(|data: &[u8]| {
    let mut store = Store::new(StoreLimits {
        max_bytes: 16 << 10,
    });
    let mut t_us = 0u64;
    let mut routes = Vec::new();
    for line in data.split(|&b| b == b'\n') {
        let Some((&head, frame)) = line.split_first() else {
            continue;
        };
        t_us += u64::from(head >> 2) * 7_919;
        match head & 3 {
            0 => store.append_frame(Dir::In, "stdio", t_us, frame, &mut routes),
            1 => store.append_frame(Dir::Out, "stdio", t_us, frame, &mut routes),
            2 => store.append_stderr("stdio", t_us, frame),
            _ => store.append_frame(Dir::In, "get", t_us, frame, &mut routes),
        };
        routes.clear();
        // The flood fast path recognises only what the general parse reads
        // as the same progress notification.
        if let Some(p) = well_formed_progress(frame) {
            let f = classify(frame);
            assert_eq!(f.kind, FrameKind::Notification);
            assert_eq!(f.method.as_deref(), Some("notifications/progress"));
            let q = ProgressView::parse(f.params).expect("general parse of the params");
            assert_eq!(p.token.get(), q.token.get());
            assert_eq!((p.progress, p.total, &p.message), (q.progress, q.total, &q.message));
        }
        let _ = pretty(&String::from_utf8_lossy(frame), 200);
        let _ = exact_bytes(frame, 80, 200);
    }
    let cfg = CheckConfig {
        max_per_key: 3,
        ..CheckConfig::default()
    };
    let report = check_store(&store, cfg, serde_json::Value::Null, false);
    assert_eq!(report.summary.events, store.len());
    let _ = format_store(&store);
});
