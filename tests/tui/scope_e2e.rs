//! End to end: the Scope view in the real binary, in tmux, against the
//! demo server live (a buffered burst, progress after the response, an
//! upload interleaved with them), recorded, and the recording replayed.
//! Synchronisation polls the captured screen with a deadline. Ignored by a
//! plain `cargo test` (they need tmux): `--include-ignored` runs them.

use crate::common::tmux::{Tmux, assert_restored, require_tmux};

/// The call lanes of the capture, top to bottom: each title's seq (`#15`)
/// and tool.
fn lanes(screen: &str) -> Vec<(u64, String)> {
    screen
        .lines()
        .filter_map(|l| {
            let (_, rest) = l.split_once("┃#")?;
            let (n, name) = rest.split_once(' ')?;
            let tool = name.split_whitespace().next()?;
            Some((n.parse().ok()?, tool.to_string()))
        })
        .collect()
}

/// The Scope's readout: the last line inside its border, from the
/// cursor's time on.
fn readout(screen: &str) -> Option<String> {
    screen
        .lines()
        .rev()
        .find(|l| l.contains("· col "))
        .map(|l| l.trim_matches(|c| c == '┃' || c == ' ').to_string())
}

/// The row of the capture whose Scope lane is the call of `tool`: its
/// title names the call as the Timeline does, `#N tool`.
fn lane<'a>(screen: &'a str, tool: &str) -> Option<&'a str> {
    screen.lines().find(|l| {
        l.split_once("┃#").is_some_and(|(_, rest)| {
            rest.split_once(' ').is_some_and(|(n, name)| {
                n.chars().all(|c| c.is_ascii_digit()) && name.starts_with(tool)
            })
        })
    })
}

#[test]
#[ignore = "needs tmux"]
fn scope_live_then_replayed() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("scope.jsonl");
    let t = Tmux::start(
        "scope",
        &format!(
            r#"--record '{}' --run 'upload_file {{"size_bytes": 1048576, "chunk_bytes": 131072, "delay_ms": 120}}' --run 'fault_buffered {{}}' --run 'fault_after_response {{}}'"#,
            trace.display()
        ),
    );
    // Live, while the calls run: the Scope follows the live edge.
    t.wait_for("the calls started", 30, |s| {
        s.contains("fault_after_response")
    });
    t.keys(&["9"]);
    t.wait_for("the Scope focused and following", 20, |s| {
        s.contains("┏ 9 Scope") && s.contains("following")
    });
    t.wait_for("every call done", 60, |s| {
        s.matches("done in").count() >= 3 && s.contains(" 0 in flight")
    });
    // The whole session: each call's lane has its request and its response.
    t.keys(&["w"]);
    // Fitted, the view stays put: it no longer follows.
    let s = t.wait_for("the whole session, fitted", 20, |s| {
        lane(s, "fault_buffered").is_some() && s.contains("paused (f follows)")
    });
    assert!(s.contains("▶"), "{s}");
    assert!(s.contains("◆"), "{s}");
    // Lanes in the order the calls were given (and sent): their requests'
    // seqs go up the screen down, and the replay shows the same order.
    let live = lanes(&s);
    let tools: Vec<&str> = live.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        tools,
        ["upload_file", "fault_buffered", "fault_after_response"],
        "{s}"
    );
    assert!(live.windows(2).all(|w| w[0].0 < w[1].0), "{live:?}\n{s}");
    // ← walks the selected lane event by event: the readout moves to
    // another event each time.
    let before = readout(&s).unwrap_or_else(|| panic!("{s}"));
    t.keys(&["Left"]);
    let moved = t.wait_for("the cursor on the previous event", 20, |s| {
        readout(s).is_some_and(|r| r != before)
    });
    assert!(
        readout(&moved).is_some_and(|r| r.contains("· #")),
        "{moved}"
    );
    // Enter on the cursor shows the event in the Timeline and Raw.
    t.keys(&["Enter"]);
    t.wait_for("the event shown", 20, |s| s.contains("in Timeline and Raw"));
    t.keys(&["q"]);
    assert_restored(&t);

    // The recording replayed: the same lanes, once played to its end.
    let r = Tmux::start_cmd("scope-replay", &format!("replay '{}'", trace.display()));
    r.wait_for("the replay open", 30, |s| s.contains("replay"));
    r.keys(&["E", "9", "w"]);
    let s = r.wait_for("the replayed lanes", 30, |s| {
        s.contains("replay ended")
            && lane(s, "fault_buffered").is_some()
            && lane(s, "upload_file").is_some()
    });
    assert!(s.contains("◆"), "{s}");
    assert_eq!(lanes(&s), live, "{s}");
    r.keys(&["q"]);
    assert_restored(&r);
}
