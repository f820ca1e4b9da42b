//! Any text as an MCP client config (JSON or JSONC): a server spec or a
//! usage error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpscope::cli::spec::config_from_text;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let path = Path::new("fuzz.json");
    for server in [None, Some("a")] {
        match config_from_text(&text, path, server) {
            Ok(spec) => {
                let _ = spec.to_json(true);
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    }
});
