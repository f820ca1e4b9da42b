//! End to end: the real binary in tmux against server-everything over
//! stdio. Browse its resources, read one, subscribe and see the server's
//! updates arrive on it, fill a resource template's variable with a
//! completion and read the binary result, then get a prompt whose second
//! argument's completions depend on the first. Synchronisation is by
//! polling the captured screen with a deadline, never by fixed sleeps.
//! Ignored by a plain `cargo test` (it needs tmux and the peer).

use crate::common::tmux::{Tmux, require_tmux};
use std::process::Command;

#[test]
#[ignore = "needs tmux and server-everything (tests/peers/install.sh)"]
fn browse_everything_over_stdio() {
    let bin = crate::common::everything();
    browse_everything(&format!("-- '{}' stdio", bin.display()));
}

/// Over Streamable HTTP the updates come on the session's GET stream.
#[test]
#[ignore = "needs tmux and server-everything (tests/peers/install.sh)"]
fn browse_everything_over_streamable_http() {
    let preload = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/report_port.cjs");
    let mut cmd = Command::new(crate::common::everything());
    cmd.arg("streamableHttp")
        .env("PORT", "0")
        .env("NODE_OPTIONS", format!("--require {preload}"));
    let (_srv, port) = crate::common::http::start_reporting(cmd);
    browse_everything(&format!("--url http://127.0.0.1:{port}/mcp"));
}

/// Browse resources, read, subscribe and see updates, a template with a
/// completion, a prompt with dependent completions; `server` names the
/// server on mcpscope's command line.
fn browse_everything(server: &str) {
    require_tmux();
    let t = Tmux::start_sized(
        "browse",
        &format!("--run 'toggle-subscriber-updates {{}}' {server}"),
        160,
        48,
    );
    t.wait_for("the connection", 30, |s| s.contains("● connected"));
    t.keys(&["5", "t"]);
    let s = t.wait_for("the resources", 20, |s| {
        s.contains("architecture.md") && s.contains("Dynamic Blob Resource")
    });
    assert!(s.contains("Tools │ Resources │ Prompts (t)"), "{s}");

    // Read the first resource: its text, scrollable.
    t.keys(&["Enter"]);
    t.wait_for("the read contents", 20, |s| {
        s.contains("resources/read demo://resource/static")
            && s.contains("Everything Server – Architecture")
    });
    // Escape is awaited alone: followed at once by a key, the terminal
    // reads the pair as Alt+key.
    t.keys(&["Escape"]);
    t.wait_for("the contents closed", 20, |s| {
        !s.contains("resources/read demo://resource/static")
    });

    // Subscribe: marked, and the server's updates (toggled on at start) count on it.
    t.keys(&["s"]);
    t.wait_for("the subscription mark", 20, |s| {
        s.contains("●architecture.md")
    });
    t.wait_for("an update", 30, |s| s.contains("↻1") || s.contains("↻2"));

    // The blob template: a form for its variable, completed, then read.
    t.keys(&["G", "Enter"]);
    t.wait_for("the template form", 20, |s| {
        s.contains("resources/read demo://resource/dynamic/blob/{resourceId}")
            && s.contains("resourceId")
    });
    t.literal("7");
    t.wait_for("the completion", 20, |s| s.contains("Tab take value"));
    t.keys(&["Tab"]);
    t.wait_for("the value taken", 20, |s| !s.contains("Tab take value"));
    t.keys(&["Enter"]);
    t.wait_for("the binary contents", 20, |s| {
        s.contains("resources/read demo://resource/dynamic/")
            && s.contains("binary,")
            && s.contains("0000  ")
    });
    t.keys(&["Escape"]);
    t.wait_for("the contents closed", 20, |s| !s.contains("binary,"));

    // Prompts: the second argument's values depend on the first.
    t.keys(&["t"]);
    t.wait_for("the prompts", 20, |s| s.contains("completable-prompt"));
    t.keys(&["g", "j", "j", "Enter"]);
    t.wait_for("the prompt form", 20, |s| {
        s.contains("prompts/get completable-prompt")
    });
    t.literal("Eng");
    t.wait_for("department completions", 20, |s| {
        s.contains("Engineering") && s.contains("Tab take value")
    });
    t.keys(&["Tab", "Down"]);
    t.literal("A");
    t.wait_for("name completions from the context", 20, |s| {
        s.contains("Alice")
    });
    t.keys(&["Tab", "Enter"]);
    t.wait_for("the prompt's messages", 20, |s| {
        s.contains("Please promote Alice")
    });
    // Zoomed, the whole message shows.
    t.keys(&["z"]);
    t.wait_for("the prompt's message in full", 20, |s| {
        s.contains("Please promote Alice to the head of the Engineering team.")
    });
    t.keys(&["q"]);
    t.wait_for("the exit", 20, |s| s.contains("EXIT=0"));
}

/// 2026-07-28 removed `resources/subscribe`: `s` opens a
/// `subscriptions/listen` stream for the resource, and the demo server's
/// `test_touch_resource`, sent from the Composer, reaches it on that stream.
#[test]
#[ignore = "needs tmux"]
fn watch_a_resource_in_the_stateless_revision() {
    require_tmux();
    let t = Tmux::start_sized(
        "watch-2026",
        &format!(
            "--protocol 2026-07-28 -- '{}' demo-server --conformance",
            crate::common::BIN
        ),
        160,
        48,
    );
    t.wait_for("the connection", 30, |s| s.contains("● connected"));
    t.keys(&["5", "t"]);
    t.wait_for("the resources", 20, |s| s.contains("watched-resource"));
    t.keys(&["j", "j", "s"]);
    let s = t.wait_for("the watch", 20, |s| {
        s.contains("●watched-resource") && s.contains("← ntf   subscriptions/a")
    });
    assert!(s.contains("→ req   subscriptions/l"), "{s}");
    // Back to the Tools tab: send test_touch_resource from the Composer.
    t.keys(&["t", "t", "/"]);
    t.literal("touch");
    t.keys(&["Enter", "Enter"]);
    t.wait_for("test_touch_resource in the composer", 10, |s| {
        s.contains("tool test_touch_resource")
    });
    t.keys(&["s"]);
    t.wait_for("the update in the timeline", 20, |s| {
        s.contains("← ntf   resources/updat")
    });
    // Counted on the resource, in the Resources tab.
    t.keys(&["5", "t"]);
    t.wait_for("the update on the resource", 20, |s| {
        s.contains("●watched-resource") && s.contains("↻1")
    });
    t.quit();
}
