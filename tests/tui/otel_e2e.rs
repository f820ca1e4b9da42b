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

/// `--otlp` in the TUI: the notice says where the session goes, the calls
/// made in it leave as spans while it runs (a span is queued a moment after
/// its response), and what was sent is said once the terminal is restored.
#[test]
#[ignore = "needs tmux"]
fn the_tui_exports_its_session_to_an_otlp_backend() {
    require_tmux();
    let sink = crate::common::otlp::Sink::accepting();
    let t = Tmux::start(
        "otlp",
        &format!(
            r#"--otlp '{}' --run 'echo {{"message": "hi"}}'"#,
            sink.url()
        ),
    );
    t.wait_for("the export notice", 30, |s| {
        s.contains("exporting the session to http://127.0.0.1:")
    });
    t.wait_for("the call done", 30, |s| s.contains("done in"));
    // Exported while the TUI runs, not only at the end (polled: the span
    // leaves after its linger and the exporter's batch delay).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !sink
        .spans()
        .iter()
        .any(|(_, s)| s.name == "tools/call echo")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "no span while the TUI ran"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    t.keys(&["q"]);
    let screen = t.wait_for("the shell after mcpscope", 20, |s| s.contains("EXIT="));
    assert!(screen.contains("EXIT=0"), "{screen}");
    assert!(screen.contains("[otel] exported"), "{screen}");
    let names: Vec<String> = sink.spans().into_iter().map(|(_, s)| s.name).collect();
    assert!(names.iter().any(|n| n == "mcpscope session"), "{names:?}");
}

/// `--otel-receiver`: the TUI's receiver listens where the user asked, and
/// the notice for an HTTP server (whose environment mcpscope cannot set)
/// names that address.
#[test]
#[ignore = "needs tmux"]
fn the_tui_receiver_listens_where_asked() {
    require_tmux();
    let mut demo = std::process::Command::new(crate::common::BIN);
    demo.args(["demo-server", "--http", "127.0.0.1:0"]);
    let (_demo, port) = crate::common::http::start_reporting(demo);
    let otel = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let t = Tmux::start_cmd(
        "otelat",
        &format!("--url http://127.0.0.1:{port}/mcp --otel-receiver 127.0.0.1:{otel}"),
    );
    t.wait_for("the receiver notice", 30, |s| {
        s.contains(&format!("OTLP receiver at http://127.0.0.1:{otel}"))
    });
    t.quit();
}
