//! `mcpscope attach` in tmux joining a live proxy session: a raw host
//! (this test) drives the demo server through `mcpscope proxy`; the
//! attached TUI shows the session so far and then follows it — the host's
//! call with its gauge moving to its end — and says when the session ended.
//! Synchronisation is by polling the screen (and the host's stdout) with a
//! deadline. Ignored by a plain `cargo test` (it needs tmux).

use crate::support::proxy::{BIN, Host, demo};
use crate::support::tmux::{Tmux, require_tmux};
use serde_json::json;

#[test]
#[ignore = "needs tmux"]
fn attach_joins_a_running_session_and_follows_its_gauge() {
    require_tmux();
    let d = tempfile::tempdir().unwrap();
    let argv = [
        vec![
            BIN.to_string(),
            "proxy".into(),
            "--name".into(),
            "watched".into(),
            "--".into(),
        ],
        demo(),
    ]
    .concat();
    let mut h = Host::start(&argv, d.path());
    h.initialize();
    // The host's call, with the host's token: 8 chunks of 256 KiB, 700 ms apart.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "upload_file",
        "arguments": {"size_bytes": 2097152, "chunk_bytes": 262144, "delay_ms": 700},
        "_meta": {"progressToken": "host-token-7"}}});
    h.write(format!("{call}\n").as_bytes());
    h.wait_line(|v| v["method"] == "notifications/progress");

    // Joining late: the call already runs; its gauge shows mid-way.
    let rt = format!("export MCPSCOPE_RUNTIME_DIR='{}'\n", d.path().display());
    let t = Tmux::start_with("attach", &rt, "attach watched", 160, 48);
    let mid = t.wait_for("the host's call mid-way", 30, |s| {
        s.contains("upload_file") && s.contains(" / 2.0 MiB") && !s.contains("2.0 MiB / 2.0 MiB")
    });
    assert!(mid.contains("attached"), "{mid}");
    // Read-only: said in the header, and no Composer to send from.
    assert!(mid.contains("◆ read-only"), "{mid}");
    assert!(!mid.contains("6 Composer"), "{mid}");
    assert!(mid.contains("█"), "{mid}");
    // It follows the call to its end.
    let done = t.wait_for("the call done", 30, |s| {
        s.contains("2.0 MiB / 2.0 MiB") && s.contains("done in")
    });
    assert!(done.contains("100%"), "{done}");
    assert!(done.contains("→ req   tools/call"), "{done}");
    assert!(done.contains("← res   tools/call"), "{done}");
    h.wait_line(|v| v["id"] == 2);
    let (_, st, _) = h.finish();
    assert!(st.success());
    t.wait_for("the session's end", 20, |s| s.contains("ended"));
    t.quit();
}
