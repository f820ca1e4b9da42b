//! End to end in tmux: the real binary against the official Python SDK
//! server exporting OpenTelemetry (`MCPSCOPE_PEER_OTEL=1`) to the receiver
//! the TUI starts. Its `logging` record through the OTel log handler shows
//! in the Logs pane marked `otel`, and its `tools/call` SERVER span under
//! the call in the Progress details, whenever the batch exporter sends it.
//! Synchronisation is by polling the screen with a deadline.

use crate::common::tmux::{Tmux, require_tmux};

#[test]
#[ignore = "needs tmux and test peers: bash tests/peers/install.sh"]
fn the_python_sdks_span_and_otel_log_show_in_the_tui() {
    require_tmux();
    let server = crate::common::python_server()
        .iter()
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    // The batch exporters' delays shortened: the span comes while the
    // session runs, not only as the server exits.
    let t = Tmux::start_cmd(
        "otel",
        &format!(
            r#"-e MCPSCOPE_PEER_OTEL=1 -e OTEL_BSP_SCHEDULE_DELAY=200 -e OTEL_BLRP_SCHEDULE_DELAY=200 --run 'slow_task {{"steps": 2, "delay_ms": 10}}' -- {server}"#
        ),
    );
    t.wait_for("the call done", 30, |s| s.contains("done in"));
    t.keys(&["3"]);
    let logs = t.wait_for("the OTel log record in Logs", 30, |s| {
        s.contains("slow_task done after 2 steps")
    });
    assert!(
        logs.lines()
            .any(|l| l.contains("otel   info      python       slow_task done after 2 steps")),
        "{logs}"
    );
    // The details are taller than Progress's place in the layout: zoomed.
    t.keys(&["1", "d", "z"]);
    let details = t.wait_for("the SERVER span under the call", 30, |s| {
        s.contains("── server spans (") && s.contains("tools/call slow_task")
    });
    assert!(
        details
            .lines()
            .any(|l| l.contains("tools/call slow_task") && l.contains("server")),
        "{details}"
    );
    t.quit();
}
