//! `attach --intercept` in tmux, controlling a real `proxy --intercept`
//! between a raw host (this test) and the demo server: a breakpoint typed
//! in the TUI holds the server's responses, or the host's request (the row
//! shows, its age runs, the host has nothing yet); each is then forwarded,
//! edited or dropped, and a message is forged to the host; the trace
//! records each change as an `injected` event. At 80×24, 120×30, 160×48. Synchronisation is by polling the screen and the
//! host's stdout with deadlines. The tmux tests are ignored by a plain
//! `cargo test` (they need tmux); the refusals below are not.

use crate::support::proxy::{BIN, Host, demo, recorded_when_ended};
use crate::support::tmux::{Tmux, require_tmux};
use serde_json::{Value, json};
use std::path::Path;

fn intercepting_proxy(name: &str, trace: &Path) -> Vec<String> {
    [
        vec![
            BIN.to_string(),
            "proxy".into(),
            "--intercept".into(),
            "--name".into(),
            name.into(),
            "--record".into(),
            trace.display().to_string(),
            "--".into(),
        ],
        demo(),
    ]
    .concat()
}

pub(crate) fn attach(rt: &Path, name: &str, w: u16, h: u16) -> Tmux {
    let prelude = format!("export MCPSCOPE_RUNTIME_DIR='{}'\n", rt.display());
    Tmux::start_with(
        "intercept",
        &prelude,
        &format!("attach {name} --intercept"),
        w,
        h,
    )
}

fn echo(h: &mut Host, id: u64, text: &str) {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}}});
    h.write(format!("{call}\n").as_bytes());
}

fn is_response(v: &Value, id: u64) -> bool {
    v["id"] == id && v.get("method").is_none()
}

/// What the host has received so far, as JSON lines.
fn received(h: &Host) -> Vec<Value> {
    let out = h.stdout.lock().unwrap().clone();
    out.split(|b| *b == b'\n')
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect()
}

/// The trace's `injected` events, once the proxy ended it.
fn injected(trace: &Path) -> Vec<Value> {
    recorded_when_ended(trace)
        .into_iter()
        .filter(|r| r.dir == "meta")
        .filter_map(|r| serde_json::from_slice::<Value>(&r.bytes).ok())
        .filter(|v| v["event"] == "injected")
        .collect()
}

pub(crate) fn status_line(screen: &str) -> &str {
    screen.trim_end().lines().last().unwrap_or("")
}

/// Open the overlay and set `filter` as the breakpoint; returns once the
/// proxy says it is in force (the status line shows it).
pub(crate) fn set_breakpoint(t: &Tmux, filter: &str) {
    t.keys(&["I"]);
    t.wait_for("the overlay", 20, |s| s.contains("Intercept: 0 held"));
    t.keys(&["b"]);
    t.wait_for("the breakpoint's field", 20, |s| {
        s.contains("breakpoint: █")
    });
    t.literal(filter);
    t.keys(&["Enter"]);
    t.wait_for("the breakpoint in force", 20, |s| {
        status_line(s).contains(&format!("break: {filter}"))
    });
}

#[test]
#[ignore = "needs tmux"]
fn held_responses_wait_then_go_on_as_they_were_edited_or_not_at_all() {
    require_tmux();
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("held.jsonl");
    let mut h = Host::start(&intercepting_proxy("held", &trace), d.path());
    h.initialize();
    let t = attach(d.path(), "held", 80, 24);
    t.wait_for("the indicator", 30, |s| {
        status_line(s).contains("⏸ 0 held no breakpoint")
    });
    set_breakpoint(&t, "in && response");

    // Held: the row shows, its age runs, the host has nothing yet.
    echo(&mut h, 2, "one");
    let s = t.wait_for("the held response", 30, |s| {
        s.contains("→ host") && s.contains("response #2")
    });
    assert!(s.contains("Intercept: 1 held"), "{s}");
    t.wait_for("its age running past a second", 30, |s| {
        status_line(s).contains("⏸ 1 held (oldest 1.")
    });
    assert!(!received(&h).iter().any(|v| is_response(v, 2)));

    // Forward: the host gets it as the server sent it.
    t.keys(&["Enter"]);
    let v = h.wait_line(|v| is_response(v, 2));
    assert_eq!(v["result"]["structuredContent"]["text"], "one", "{v}");
    t.wait_for("the row gone", 20, |s| s.contains("Intercept: 0 held"));

    // Edit: a member added at the top of the pretty-printed response.
    echo(&mut h, 3, "two");
    t.wait_for("the second held response", 30, |s| {
        s.contains("response #3")
    });
    t.keys(&["e"]);
    t.wait_for("the editor", 20, |s| s.contains("Edit held #"));
    t.keys(&["End", "Enter"]);
    t.literal(r#""edited": true,"#);
    t.keys(&["C-s"]);
    let v = h.wait_line(|v| is_response(v, 3));
    assert_eq!(v["edited"], true, "{v}");
    assert_eq!(v["result"]["structuredContent"]["text"], "two", "{v}");
    t.wait_for("the edited row gone", 20, |s| {
        s.contains("Intercept: 0 held")
    });

    // Drop: the row goes, and the host never gets it (the next response,
    // sent after it and not held, arrives alone).
    echo(&mut h, 4, "three");
    t.wait_for("the third held response", 30, |s| s.contains("response #4"));
    t.keys(&["d"]);
    t.wait_for("the dropped row gone", 20, |s| {
        s.contains("Intercept: 0 held")
    });
    t.keys(&["B"]);
    t.wait_for("no breakpoint", 20, |s| {
        status_line(s).contains("no breakpoint")
    });
    echo(&mut h, 5, "four");
    h.wait_line(|v| is_response(v, 5));
    assert!(!received(&h).iter().any(|v| is_response(v, 4)));

    t.quit();
    let (_, st, _) = h.finish();
    assert!(st.success());
    let actions: Vec<Value> = injected(&trace)
        .iter()
        .map(|e| e["action"].clone())
        .collect();
    // Forwarded as it was: late, not changed.
    assert!(actions.contains(&json!("hold")), "{actions:?}");
    assert!(actions.contains(&json!("edit")), "{actions:?}");
    assert!(actions.contains(&json!("drop")), "{actions:?}");
}

#[test]
#[ignore = "needs tmux"]
fn a_held_request_reaches_the_server_only_when_forwarded() {
    require_tmux();
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("request.jsonl");
    let mut h = Host::start(&intercepting_proxy("asker", &trace), d.path());
    h.initialize();
    let t = attach(d.path(), "asker", 120, 30);
    t.wait_for("the indicator", 30, |s| status_line(s).contains("⏸ 0 held"));
    set_breakpoint(&t, "out && method == tools/call");
    echo(&mut h, 2, "asked");
    let s = t.wait_for("the held request", 30, |s| {
        s.contains("→ server") && s.contains("tools/call #2")
    });
    assert!(s.contains("\"name\": \"echo\""), "{s}");
    // The server never got it, so nothing can have come back.
    t.wait_for("its age running past a second", 30, |s| {
        status_line(s).contains("(oldest 1.")
    });
    assert!(!received(&h).iter().any(|v| is_response(v, 2)));
    t.keys(&["f"]);
    let v = h.wait_line(|v| is_response(v, 2));
    assert_eq!(v["result"]["structuredContent"]["text"], "asked", "{v}");
    t.wait_for("the row gone", 20, |s| s.contains("Intercept: 0 held"));
    t.quit();
    let (_, st, _) = h.finish();
    assert!(st.success());
    let held: Vec<Value> = injected(&trace)
        .into_iter()
        .filter(|e| e["action"] == "hold")
        .collect();
    assert_eq!(held.len(), 1, "{held:?}");
    assert_eq!(held[0]["stream"], "host→server", "{held:?}");
}

#[test]
#[ignore = "needs tmux"]
fn a_forged_message_reaches_the_host() {
    require_tmux();
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("forged.jsonl");
    let mut h = Host::start(&intercepting_proxy("forger", &trace), d.path());
    h.initialize();
    let t = attach(d.path(), "forger", 160, 48);
    let s = t.wait_for("the indicator", 30, |s| status_line(s).contains("⏸ 0 held"));
    assert!(s.contains("◆ intercepting"), "{s}");
    t.keys(&["I"]);
    t.wait_for("the overlay", 20, |s| s.contains("Intercept: 0 held"));
    t.keys(&["n"]);
    t.wait_for("the forge editor", 20, |s| {
        s.contains("Forge a message → host")
    });
    t.keys(&["C-s"]);
    let v = h.wait_line(|v| v["method"] == "notifications/message");
    assert_eq!(v["params"]["data"], "forged", "{v}");
    t.wait_for("the proxy's word", 20, |s| s.contains("forged → host"));
    t.quit();
    let (_, st, _) = h.finish();
    assert!(st.success());
    let forged: Vec<Value> = injected(&trace)
        .into_iter()
        .filter(|e| e["action"] == "forge")
        .collect();
    assert_eq!(forged.len(), 1, "{forged:?}");
}

#[test]
fn attach_intercept_is_refused_for_a_proxy_without_it_and_with_print() {
    let d = tempfile::tempdir().unwrap();
    let argv = [
        vec![
            BIN.to_string(),
            "proxy".into(),
            "--name".into(),
            "plain".into(),
            "--".into(),
        ],
        demo(),
    ]
    .concat();
    let mut h = Host::start(&argv, d.path());
    h.initialize();
    let run = |args: &[&str]| {
        std::process::Command::new(BIN)
            .args(args)
            .env("MCPSCOPE_RUNTIME_DIR", d.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(&["attach", "plain", "--intercept"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the proxy `plain` was not started with --intercept"),
        "{err}"
    );
    let out = run(&["attach", "plain", "--intercept", "--print"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--print"), "{err}");
    let (_, st, _) = h.finish();
    assert!(st.success());
}
