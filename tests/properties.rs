//! Properties of the parsers and formatters that take whatever a server (or a
//! config file, or a damaged trace) hands them: each invariant is checked over
//! generated inputs, not just the examples that came to mind.

use mcpscope::cli::spec::{ServerSpec, from_config};
use std::path::Path;

fn config(dir: &Path, text: &str) -> Result<ServerSpec, String> {
    let p = dir.join("mcp.json");
    std::fs::write(&p, text).unwrap();
    from_config(&p, None).map_err(|e| e.to_string())
}

#[test]
fn jsonc_trailing_comma_before_a_comment_is_dropped() {
    let d = tempfile::tempdir().unwrap();
    for text in [
        "{\"servers\": {\"a\": {\"command\": \"x\"}, // x\n}}",
        "{\"servers\": {\"a\": {\"command\": \"x\", \"args\": [\"1\", /* y */]}, /* z */ }}",
    ] {
        let spec = config(d.path(), text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        assert_eq!(spec.name(), "a", "{text:?}");
    }
}
