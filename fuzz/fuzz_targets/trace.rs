//! Any bytes as a trace file: read (or refused with a reason), replayed into
//! a store, checked and formatted as `mcpscope replay` and `check --trace` do.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpscope::checks::CheckConfig;
use mcpscope::cli::check::check_store;
use mcpscope::cli::replay::{format_store, load};
use std::path::PathBuf;
use std::sync::OnceLock;

fn scratch() -> &'static PathBuf {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        std::env::temp_dir().join(format!("mcpscope-fuzz-trace-{}.jsonl", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    let path = scratch();
    std::fs::write(path, data).expect("write the scratch trace");
    match load(path) {
        Ok((_header, store)) => {
            let report = check_store(
                &store,
                CheckConfig::default(),
                serde_json::Value::Null,
                false,
            );
            assert_eq!(report.summary.events, store.len());
            let _ = format_store(&store);
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
