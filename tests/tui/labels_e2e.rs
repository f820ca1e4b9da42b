//! End to end: the real binary in tmux on `mcpscope demo` with two calls
//! at once, at 160×48 and 120×30: the Timeline names each row's call by
//! its request's seq and tool (`#5 upload_file`), so the two read apart,
//! and never shows the raw progress tokens. Ignored by a plain `cargo
//! test` (they need tmux): `--include-ignored` runs them.

use crate::common::tmux::{Tmux, assert_restored, require_tmux};

/// The `#N tool` labels on the screen's rows that show `tool`.
fn labels(screen: &str, tool: &str) -> Vec<u64> {
    let mut out: Vec<u64> = screen
        .match_indices(&format!(" {tool}"))
        .filter_map(|(at, _)| {
            let before = &screen[..at];
            let hash = before.rfind('#')?;
            let digits = &before[hash + 1..];
            (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()))
                .then(|| digits.parse().ok())
                .flatten()
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[test]
#[ignore = "needs tmux"]
fn the_timeline_tells_two_concurrent_calls_apart_at_160x48_and_120x30() {
    require_tmux();
    for (w, h) in [(160, 48), (120, 30)] {
        let t = Tmux::start_sized(
            "labels",
            r#"demo --run 'upload_file {"size_bytes": 4194304, "chunk_bytes": 262144, "delay_ms": 150}' --run 'pipeline_wait {"polls": 12, "interval_ms": 200}'"#,
            w,
            h,
        );
        t.wait_for("both calls running", 30, |s| {
            s.contains("upload_file") && s.contains("pipeline_wait") && s.contains("running")
        });
        t.keys(&["2"]);
        // Both calls' progress rows, each naming its call.
        let progress_of = |s: &str, tool: &str| {
            s.lines()
                .any(|l| l.contains(" progress ") && labels(l, tool).len() == 1)
        };
        let s = t.wait_for("both calls' progress in the Timeline", 30, |s| {
            s.contains("┏ 2 Timeline")
                && progress_of(s, "upload_file")
                && progress_of(s, "pipeline_wait")
        });
        let (up, pipe) = (labels(&s, "upload_file"), labels(&s, "pipeline_wait"));
        assert_ne!(up, pipe, "{w}x{h}: two calls, two labels:\n{s}");
        assert!(s.contains(" call "), "{w}x{h}: the call column:\n{s}");
        assert!(!s.contains("tok="), "{w}x{h}: no raw tokens:\n{s}");
        assert!(!s.contains("{\"_meta\""), "{w}x{h}:\n{s}");
        t.keys(&["q"]);
        assert_restored(&t);
    }
}
