//! End to end: the real binary in tmux against the built-in demo server.
//! `--run` progress tools and watch the gauges reach their final state,
//! compose and send a call with keys, quit (and SIGTERM) and check the
//! terminal was restored; a fault tool's finding in the header and the
//! Findings pane; a recorded session replayed to its end; the demo server
//! over Streamable HTTP with the Network pane. Synchronisation is by polling the captured screen
//! with a deadline, never by fixed sleeps. Ignored by a plain `cargo test`
//! (they need tmux): `cargo test -- --include-ignored` runs them.

use crate::common::BIN;
use crate::common::tmux::{Tmux, assert_restored, assert_restored_with, require_tmux};
use std::process::Command;
use std::time::{Duration, Instant};

fn count(s: &str, needle: &str) -> usize {
    s.matches(needle).count()
}

#[test]
#[ignore = "needs tmux"]
fn run_calls_compose_send_and_quit() {
    require_tmux();
    let t = Tmux::start(
        "run",
        r#"--run 'upload_file {"size_bytes": 2097152, "chunk_bytes": 262144, "delay_ms": 120}' --run 'pipeline_wait {"polls": 4, "interval_ms": 150}'"#,
    );
    // A gauge mid-way: bytes against the total, a percentage.
    let mid = t.wait_for("the upload gauge in progress", 30, |s| {
        s.contains("upload_file") && s.contains(" / 2.0 MiB") && !s.contains("2.0 MiB / 2.0 MiB")
    });
    assert!(mid.contains("█"), "{mid}");
    assert!(mid.contains("running"), "{mid}");
    // Both calls reach their final state.
    let done = t.wait_for("both calls done", 30, |s| count(s, "done in") >= 2);
    assert!(
        done.contains("2.0 MiB / 2.0 MiB") && done.contains("100%"),
        "{done}"
    );
    assert!(
        done.contains("8 updates"),
        "one update per 256 KiB chunk: {done}"
    );
    assert!(done.contains("0 in flight"), "{done}");
    // Timeline rows: the calls, the progress, the responses.
    assert!(done.contains("→ req   tools/call"), "{done}");
    assert!(done.contains("← ntf   progress"), "{done}");
    assert!(done.contains("← res   tools/call"), "{done}");

    // Compose: pick echo in Tools, type arguments, send.
    t.keys(&["5", "/"]);
    t.literal("echo");
    t.keys(&["Enter", "Enter"]);
    t.wait_for("echo in the composer", 10, |s| s.contains("tool echo"));
    t.keys(&["e", "Right"]);
    t.literal(r#""text": "hello e2e""#);
    t.wait_for("the typed arguments", 10, |s| {
        s.contains(r#"{"text": "hello e2e"}"#)
    });
    t.keys(&["Escape"]);
    t.wait_for("editing stopped", 10, |s| !s.contains("EDITING"));
    t.keys(&["s"]);
    let sent = t.wait_for("the echo call done", 20, |s| count(s, "done in") >= 3);
    assert!(sent.contains("echo  id"), "{sent}");
    t.keys(&["1"]);
    t.wait_for("progress focused", 10, |s| s.contains("c cancel"));

    if let Ok(timings) = std::fs::read_to_string(t.dir().join("timings")) {
        eprintln!("time to first frame: {}", timings.trim());
    }
    t.keys(&["q"]);
    assert_restored(&t);
}

#[test]
#[ignore = "needs tmux"]
fn cancel_a_running_call_from_the_progress_pane() {
    require_tmux();
    let t = Tmux::start(
        "cancel",
        r#"--run 'pipeline_wait {"polls": 50, "interval_ms": 200}'"#,
    );
    t.wait_for("the poll running", 30, |s| {
        s.contains("pipeline_wait") && s.contains("1 update")
    });
    t.keys(&["1", "c"]);
    let s = t.wait_for("the call cancelled", 20, |s| s.contains("cancelled in"));
    assert!(
        s.contains("→ ntf   cancelled"),
        "the cancellation is in the timeline: {s}"
    );
    t.keys(&["q"]);
    assert_restored(&t);
}

/// The pid of mcpscope: the pane's shell's child.
fn mcpscope_pid(t: &Tmux) -> i32 {
    let sh: u32 = t.display("#{pane_pid}").parse().unwrap();
    let children = std::fs::read_to_string(format!("/proc/{sh}/task/{sh}/children")).unwrap();
    children.split_whitespace().next().unwrap().parse().unwrap()
}

/// A stdio server that writes its pid to a file, runs the demo server, and
/// then stays: like a server that ignores a closed stdin, only a signal
/// ends it. Its pid stays the same throughout (`exec`).
struct PidServer {
    dir: tempfile::TempDir,
}

impl PidServer {
    fn new() -> PidServer {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display();
        let script = format!(
            "#!/bin/sh\necho $$ > '{d}/pid.tmp' && mv '{d}/pid.tmp' '{d}/pid'\n'{BIN}' demo-server\nexec sleep 600\n"
        );
        std::fs::write(dir.path().join("server.sh"), script).unwrap();
        PidServer { dir }
    }

    /// The SERVER part of an mcpscope command line.
    fn args(&self) -> String {
        format!("-- sh '{}'", self.dir.path().join("server.sh").display())
    }

    fn pid(&self) -> i32 {
        let path = self.dir.path().join("pid");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(p) = std::fs::read_to_string(&path) {
                return p.trim().parse().unwrap();
            }
            assert!(Instant::now() < deadline, "the server never started");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Poll /proc until the server is gone (or only a zombie waiting for
    /// its parent); fail after `secs`.
    fn assert_gone(&self, pid: i32, secs: u64) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| {
                    s.rsplit(')')
                        .next()
                        .and_then(|r| r.split_whitespace().next())
                        .map(str::to_owned)
                });
            match state.as_deref() {
                None | Some("Z") | Some("X") => return,
                Some(_) => {}
            }
            if Instant::now() > deadline {
                // SAFETY: ending the process this test started, so it does not outlive the test.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                panic!("the server (pid {pid}) outlived mcpscope by {secs} s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

#[test]
#[ignore = "needs tmux"]
fn sigterm_restores_the_terminal() {
    require_tmux();
    let server = PidServer::new();
    let t = Tmux::start_cmd("sigterm", &server.args());
    t.wait_for("connected", 30, |s| s.contains("connected"));
    let pid = server.pid();
    // SAFETY: sending a signal to a process this test started.
    assert_eq!(unsafe { libc::kill(mcpscope_pid(&t), libc::SIGTERM) }, 0);
    assert_restored_with(&t, 143);
    server.assert_gone(pid, 20);
}

#[test]
#[ignore = "needs tmux"]
fn sighup_stops_the_server_and_exits_129() {
    require_tmux();
    let server = PidServer::new();
    let t = Tmux::start_cmd("sighup", &server.args());
    t.wait_for("connected", 30, |s| s.contains("connected"));
    let pid = server.pid();
    // SAFETY: sending a signal to a process this test started.
    assert_eq!(unsafe { libc::kill(mcpscope_pid(&t), libc::SIGHUP) }, 0);
    assert_restored_with(&t, 129);
    server.assert_gone(pid, 20);
}

/// SIGINT from another process (`kill -INT`; in raw mode Ctrl-C is a key,
/// not a signal) ends the UI as SIGTERM does: terminal restored, server
/// stopped, 130.
#[test]
#[ignore = "needs tmux"]
fn sigint_from_another_process_restores_the_terminal() {
    require_tmux();
    let server = PidServer::new();
    let t = Tmux::start_cmd("sigint", &server.args());
    t.wait_for("connected", 30, |s| s.contains("connected"));
    let pid = server.pid();
    // SAFETY: sending a signal to a process this test started.
    assert_eq!(unsafe { libc::kill(mcpscope_pid(&t), libc::SIGINT) }, 0);
    assert_restored_with(&t, 130);
    server.assert_gone(pid, 20);
}

#[test]
#[ignore = "needs tmux"]
fn quitting_stops_a_server_that_ignores_its_closed_stdin() {
    require_tmux();
    let server = PidServer::new();
    let t = Tmux::start_cmd("quit-server", &server.args());
    t.wait_for("connected", 30, |s| s.contains("connected"));
    let pid = server.pid();
    t.keys(&["q"]);
    assert_restored(&t);
    server.assert_gone(pid, 20);
}

#[test]
#[ignore = "needs tmux"]
fn a_recording_that_stops_is_shown_and_fails_the_exit() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("t.jsonl");
    // Files may not grow past 64 KiB (writes beyond fail, as on a full
    // disk); the flood's recording needs far more.
    let t = Tmux::start_with(
        "rec-stopped",
        "trap '' XFSZ\nulimit -f 128\n",
        &format!(
            "demo --record '{}' --run 'flood {{\"count\": 3000}}'",
            rec.display()
        ),
        160,
        48,
    );
    let s = t.wait_for("the stopped recording in the header", 30, |s| {
        s.lines()
            .next()
            .is_some_and(|h| h.contains("recording stopped at event"))
    });
    assert!(!s.lines().next().unwrap_or("").contains("● REC"), "{s}");
    t.keys(&["q"]);
    assert_restored_with(&t, 2);
    assert!(t.capture().contains("[error] recording stopped at event"));
}

#[test]
#[ignore = "needs tmux"]
fn closing_the_terminal_stops_the_server() {
    require_tmux();
    let server = PidServer::new();
    // 80x24: the narrow layout, where the close was first seen to orphan.
    let t = Tmux::start_sized("closed", &server.args(), 80, 24);
    t.wait_for("connected", 30, |s| s.contains("connected"));
    let pid = server.pid();
    // The terminal goes away under mcpscope: SIGHUP, and every write fails.
    assert!(t.cmd(&["kill-session"]).status().unwrap().success());
    server.assert_gone(pid, 20);
}

#[test]
fn a_panic_in_the_ui_still_stops_the_server() {
    let server = PidServer::new();
    let spec = mcpscope::transport::stdio::CommandSpec {
        argv: vec![
            "sh".into(),
            server.dir.path().join("server.sh").display().to_string(),
        ],
        ..Default::default()
    };
    let trace = mcpscope::trace::Trace::new(
        mcpscope::trace::Store::default(),
        mcpscope::trace::MonotonicClock::new(),
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    let result = rt.block_on(async {
        let session = mcpscope::client::Session::spawn_stdio(
            &spec,
            mcpscope::client::ClientOptions::default(),
            trace,
        )
        .unwrap();
        let pid = server.pid();
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let exec = mcpscope::tui::runtime::Executor::new(Some(session), tx);
        let ui = async { panic!("a bug in a pane") };
        let r: std::thread::Result<()> = mcpscope::tui::exit::stop_after(ui, exec.close()).await;
        (r, pid)
    });
    let (r, pid) = result;
    assert!(r.is_err(), "the panic is handed back");
    assert_eq!(
        mcpscope::tui::exit::code_of(r.map(|()| Ok(mcpscope::tui::exit::Ended::Quit))),
        101
    );
    server.assert_gone(pid, 10);
}

/// `--run A --run B …` and calls sent in quick succession reach the server
/// in the order they were asked for, whatever the first one waits for
/// (here `logging/setLevel`, a round trip the others need not make): the
/// same list gives the same Progress rows and Scope lanes on every run.
#[test]
fn calls_reach_the_server_in_the_order_they_were_asked_for() {
    use mcpscope::trace::Dir;
    use mcpscope::tui::action::Effect;
    const CALLS: usize = 12;
    let spec = mcpscope::transport::stdio::CommandSpec {
        argv: vec![BIN.into(), "demo-server".into()],
        ..Default::default()
    };
    let trace = mcpscope::trace::Trace::new(
        mcpscope::trace::Store::default(),
        mcpscope::trace::MonotonicClock::new(),
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let session = mcpscope::client::Session::spawn_stdio(
            &spec,
            mcpscope::client::ClientOptions::default(),
            trace.clone(),
        )
        .unwrap();
        session.start().await.unwrap();
        let mut changed = trace.subscribe();
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        let exec = mcpscope::tui::runtime::Executor::new(Some(session), tx);
        for i in 0..CALLS {
            let call = Effect::Call {
                tool: "echo".into(),
                args: serde_json::json!({"text": format!("call {i}")}),
                token: mcpscope::client::TokenPolicy::None,
                // Only the first sets a level: it alone waits for an answer.
                level: (i == 0).then_some(mcpscope::protocol::views::LogLevel::Debug),
                limits: mcpscope::client::Limits::default(),
                task: false,
            };
            assert!(exec.run(call, &mut std::io::sink()).is_some());
        }
        let answered = |t: &mcpscope::trace::Trace| {
            let store = t.read();
            store
                .range(0, store.next_seq())
                .filter(|e| {
                    e.dir == Dir::In
                        && e.text().contains("\"result\"")
                        && e.text().contains("call ")
                })
                .count()
        };
        tokio::time::timeout(Duration::from_secs(30), async {
            while answered(&trace) < CALLS {
                changed.changed().await.unwrap();
            }
        })
        .await
        .expect("every call answered");
        exec.close().await;
    });
    let store = trace.read();
    let sent: Vec<String> = store
        .range(0, store.next_seq())
        .filter(|e| e.dir == Dir::Out && e.text().contains("tools/call"))
        .map(|e| {
            let v: serde_json::Value = serde_json::from_str(&e.text()).unwrap();
            v["params"]["arguments"]["text"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    let asked: Vec<String> = (0..CALLS).map(|i| format!("call {i}")).collect();
    assert_eq!(sent, asked);
}

#[test]
fn without_a_terminal_it_points_to_the_headless_commands() {
    let out = Command::new(BIN)
        .arg("demo")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("needs a terminal") && err.contains("mcpscope call"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
#[ignore = "needs tmux"]
fn a_fault_tool_shows_its_finding_in_the_header_and_the_findings_pane() {
    require_tmux();
    // The handshake era: the fault's finding is the only one (at
    // 2026-07-28 the demo's logging is also said to be deprecated).
    let t = Tmux::start("fault", "--protocol legacy --run 'fault_not_increasing {}'");
    let s = t.wait_for("an error counted in the header", 30, |s| {
        s.lines()
            .next()
            .is_some_and(|h| h.contains(" error") && !h.contains("0 findings"))
    });
    let header = s.lines().next().unwrap_or("");
    assert!(
        header.contains("1 error") || header.contains(" errors"),
        "{header}"
    );
    t.keys(&["7"]);
    let s = t.wait_for("the Findings pane", 10, |s| {
        s.contains("7 Findings") && s.contains("progress-not-increasing")
    });
    assert!(s.contains("✗ error"), "{s}");
    // Enter shows the first proving frame, then the next.
    t.keys(&["Enter"]);
    t.wait_for("the first frame shown", 10, |s| {
        s.contains("(1 of 2) in Timeline and Raw")
    });
    t.keys(&["Enter"]);
    t.wait_for("the second frame shown", 10, |s| {
        s.contains("(2 of 2) in Timeline and Raw")
    });
    t.keys(&["q"]);
    assert_restored(&t);
}

#[test]
#[ignore = "needs tmux"]
fn replay_plays_a_recorded_session_to_its_end() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("session.jsonl");
    let out = Command::new(BIN)
        .args([
            "call",
            "--demo",
            "--tool",
            "upload_file",
            "--args",
            r#"{"size_bytes": 1048576, "chunk_bytes": 262144, "delay_ms": 300}"#,
            "-q",
            "--record",
        ])
        .arg(&trace)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = Tmux::start_cmd("replay", &format!("replay '{}'", trace.display()));
    t.wait_for("the replay screen", 30, |s| {
        s.contains("replay") && s.contains("2 Timeline")
    });
    // Paused, then jump to the end: the whole recording at once.
    t.keys(&["Space"]);
    t.keys(&["E"]);
    // A capture can land between two writes of one frame: wait until the
    // frame that shows the end has been written out in full.
    let s = t.wait_for("the end of the replay", 20, |s| {
        s.contains("replay ended") && s.contains("← res   tools/call") && s.contains("4 updates")
    });
    let header = s.lines().next().unwrap_or("");
    let events = header
        .split('│')
        .find(|p| p.contains(" events"))
        .unwrap_or("")
        .trim()
        .trim_end_matches(" events")
        .to_string();
    let (fed, total) = events.split_once('/').unwrap_or(("?", "!"));
    assert_eq!(fed, total, "every event fed: {header}");
    assert!(s.contains("→ req   tools/call"), "{s}");
    assert!(s.contains("← ntf   progress"), "{s}");
    assert!(s.contains("← res   tools/call"), "{s}");
    assert!(s.contains("done in"), "the call's final state: {s}");
    assert!(s.contains("4 updates"), "one per 256 KiB chunk: {s}");
    // `,` steps back: past the exit, stderr and the response, the call
    // runs again; `.` feeds the response once more.
    let total: usize = total.parse().unwrap();
    for _ in 0..3 {
        t.keys(&[","]);
    }
    let want = format!("{}/{total} events", total - 3);
    let s = t.wait_for("three steps back", 20, |s| {
        s.contains(&want) && s.contains("running") && !s.contains("done in")
    });
    assert!(s.contains("paused"), "{s}");
    t.keys(&["."]);
    let want = format!("{}/{total} events", total - 2);
    t.wait_for("the response fed again", 20, |s| {
        s.contains(&want) && s.contains("done in")
    });
    // Nothing can be sent to a recording: there is no Composer to go to.
    assert!(!s.contains("6 Composer"), "{s}");
    t.keys(&["6"]);
    t.wait_for("the composer refused", 10, |s| s.contains("read-only"));
    t.keys(&["q"]);
    assert_restored(&t);
}

#[test]
#[ignore = "needs tmux"]
fn replay_of_a_cut_trace_plays_every_event_before_the_cut() {
    require_tmux();
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.jsonl");
    let out = Command::new(BIN)
        .args([
            "call", "--demo", "--tool", "echo", "-a", "text=hi", "-q", "--record",
        ])
        .arg(&whole)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Cut in the middle of the last line, as a full disk leaves a recording.
    let bytes = std::fs::read(&whole).unwrap();
    let last_len = bytes[..bytes.len() - 1]
        .iter()
        .rev()
        .position(|b| *b == b'\n')
        .unwrap();
    let trace = dir.path().join("cut.jsonl");
    std::fs::write(&trace, &bytes[..bytes.len() - last_len / 2]).unwrap();
    let events = bytes.iter().filter(|b| **b == b'\n').count() - 2;
    let t = Tmux::start_cmd("replay-cut", &format!("replay '{}'", trace.display()));
    let s = t.wait_for("the cut reported", 30, |s| {
        s.contains("trace ends mid-line after event")
    });
    assert!(s.contains("the last line is incomplete"), "{s}");
    t.keys(&["E"]);
    // A frame is painted top to bottom: the header can show the end before
    // the timeline below it does, so the wait covers both.
    let s = t.wait_for("the end of the replay", 20, |s| {
        s.contains("replay ended") && s.contains("(trace cut)") && s.contains("← res   tools/call")
    });
    let header = s.lines().next().unwrap_or("");
    assert!(
        header.contains(&format!("{events}/{events} events")),
        "every complete event: {header}"
    );
    assert!(s.contains("← res   tools/call"), "{s}");
    t.keys(&["q"]);
    assert_restored(&t);
    let screen = t.capture();
    assert!(
        screen.contains("[warning]") && screen.contains("trace ends mid-line"),
        "the cut is said again on the normal screen: {screen}"
    );
}

#[test]
fn replay_without_a_terminal_points_to_print() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    std::fs::write(
        &trace,
        "{\"mcpscope_trace\": 1, \"version\": \"x\", \"started\": \"2026-01-01T00:00:00Z\", \"server\": {}}\n",
    )
    .unwrap();
    let out = Command::new(BIN)
        .arg("replay")
        .arg(&trace)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("needs a terminal") && err.contains("--print"),
        "{err}"
    );
}

/// The demo server over Streamable HTTP on the loopback port it bound,
/// killed when dropped.
struct DemoHttp {
    #[allow(dead_code)] // held to keep the server running
    srv: crate::common::http::Bg,
    port: u16,
}

impl DemoHttp {
    fn start() -> DemoHttp {
        let mut cmd = Command::new(BIN);
        cmd.args(["demo-server", "--http", "127.0.0.1:0"]);
        let (srv, port) = crate::common::http::start_reporting(cmd);
        DemoHttp { srv, port }
    }
}

#[test]
#[ignore = "needs tmux"]
fn http_session_shows_network_rows_and_the_post_streams_progress() {
    require_tmux();
    let server = DemoHttp::start();
    let t = Tmux::start_cmd(
        "http",
        &format!(
            // A handshake session: initialize and the standalone GET stream.
            r#"--protocol legacy --url http://127.0.0.1:{}/mcp --run 'upload_file {{"size_bytes": 1048576, "chunk_bytes": 262144, "delay_ms": 150}}'"#,
            server.port
        ),
    );
    // Progress arrives on the call's own POST stream: timeline rows name it.
    let s = t.wait_for("progress on a POST stream", 30, |s| {
        s.lines()
            .any(|l| l.contains("← post:") && l.contains("ntf   progress"))
    });
    assert!(s.contains("8 Network"), "the Network pane is offered: {s}");
    let done = t.wait_for("the upload done", 30, |s| s.contains("done in"));
    assert!(done.contains("4 updates"), "{done}");
    // The Network pane, from the top: the initialize POST (200 over SSE)
    // and the standalone GET stream.
    t.keys(&["8", "g"]);
    let top = t.wait_for("the first exchanges", 10, |s| {
        s.lines()
            .any(|l| l.contains("POST") && l.contains(" 200 sse") && l.contains("initialize"))
    });
    assert!(
        top.lines()
            .any(|l| l.contains("GET") && l.contains("(server stream)")),
        "{top}"
    );
    // The last exchange is the call's POST: five frames on its stream (four
    // progress notifications, then the response), after the priming event.
    t.keys(&["G"]);
    let net = t.wait_for("the call's exchange selected", 10, |s| {
        s.lines()
            .any(|l| l.contains("▸post:") && l.contains("tools/call upload_file"))
    });
    let row = net
        .lines()
        .find(|l| {
            l.contains("POST") && l.contains(" 200 sse") && l.contains("tools/call upload_file")
        })
        .unwrap_or("");
    assert!(row.contains("  5 primed"), "{net}");
    // Enter on it: the timeline shows that channel alone.
    t.keys(&["Enter"]);
    let lane = t.wait_for("the channel in the timeline", 10, |s| {
        s.contains("timeline: channel post:")
    });
    // One stream's rows: the title names it, the rows need no channel column.
    assert!(
        lane.contains("· channel post:") && lane.contains("→ req   tools/call"),
        "{lane}"
    );
    t.keys(&["q"]);
    assert_restored(&t);
}

#[test]
#[ignore = "needs tmux"]
fn the_wizard_form_answered_by_hand() {
    require_tmux();
    let rec = tempfile::tempdir().unwrap();
    let trace = rec.path().join("w.jsonl");
    let t = Tmux::start_sized(
        "wizard",
        &format!(
            r#"demo --record '{}' --run 'interactive_wizard {{"questions": 2, "delay_ms": 0}}'"#,
            trace.display()
        ),
        100,
        30,
    );
    // The question waits without taking the keyboard; A opens it.
    t.wait_for("the waiting request", 30, |s| {
        s.contains("⚑ 1 waiting (elicitation/create")
    });
    t.keys(&["A"]);
    t.wait_for("the first form", 10, |s| {
        s.contains("Project name") && s.contains("mcpscope-demo")
    });
    t.keys(&["-N", "13", "BSpace"]);
    t.literal("gizmo");
    t.keys(&["Enter"]);
    // The second form: a titled choice and a boolean.
    // Its progress ("Step 2 of 2: Who can see it?") comes before the
    // request itself: A waits for the request, or it finds nothing.
    t.wait_for("the second question", 20, |s| {
        s.contains("Who can see it?") && s.contains("⚑ 1 waiting (elicitation/create")
    });
    t.keys(&["A"]);
    t.wait_for("the second form", 10, |s| {
        s.contains("◉ Private: only members")
    });
    t.keys(&["Right", "Right", "Down", "Space", "Enter"]);
    t.wait_for("the wizard done", 30, |s| s.contains("done in"));
    t.keys(&["q"]);
    assert_restored(&t);
    let lines = crate::common::trace_lines(&trace);
    let result = lines
        .iter()
        .find(|l| l["dir"] == "in" && l["json"]["result"]["structuredContent"].is_object())
        .expect("the wizard's result");
    assert_eq!(
        result["json"]["result"]["structuredContent"]["answers"],
        serde_json::json!({
            "project_name": "gizmo",
            "summary": "A project created by the mcpscope demo wizard",
            "visibility": "public",
            "with_readme": false,
        })
    );
}

/// server-everything asks for sampling as a task (client-side tasks): the
/// TUI answers with a working task at once, the user's reply completes it,
/// and the server's polls and `tasks/result` get it.
#[test]
#[ignore = "needs tmux and test peers: bash tests/peers/install.sh"]
fn a_sampling_task_answered_by_hand() {
    require_tmux();
    let rec = tempfile::tempdir().unwrap();
    let trace = rec.path().join("s.jsonl");
    let t = Tmux::start_sized(
        "sampling-task",
        &format!(
            r#"--record '{}' --run 'trigger-sampling-request-async {{"prompt": "hi"}}' -- '{}' stdio"#,
            trace.display(),
            crate::common::everything().display()
        ),
        120,
        36,
    );
    t.wait_for("the waiting request", 30, |s| {
        s.contains("⚑ 1 waiting (sampling/createMessage")
    });
    t.keys(&["A"]);
    t.wait_for("the sampling form", 10, |s| s.contains("hi"));
    t.literal("answered by hand");
    t.keys(&["C-s"]);
    t.wait_for("the call done", 60, |s| s.contains("done in"));
    t.keys(&["q"]);
    assert_restored(&t);
    let lines = crate::common::trace_lines(&trace);
    let sent = |method: &str| {
        lines
            .iter()
            .filter(|l| l["dir"] == "in" && l["json"]["method"] == method)
            .count()
    };
    // The request was answered with a working task, then polled and fetched.
    let created = lines
        .iter()
        .find(|l| l["dir"] == "out" && l["json"]["result"]["task"].is_object())
        .expect("a CreateTaskResult");
    assert_eq!(created["json"]["result"]["task"]["status"], "working");
    assert!(sent("tasks/get") >= 1);
    assert_eq!(sent("tasks/result"), 1);
    let result = lines
        .iter()
        .find(|l| {
            l["dir"] == "in"
                && l["json"]["result"]["content"][0]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("[COMPLETED]"))
        })
        .expect("the tool's result");
    let text = result["json"]["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(text.contains("answered by hand"), "{text}");
}

/// A call waiting on a form the user takes their time with does not time
/// out: the time a server request waits for the user's answer does not
/// count against the idle timeout (here 1 s).
#[test]
#[ignore = "needs tmux"]
fn a_slow_answer_does_not_time_the_call_out() {
    require_tmux();
    let t = Tmux::start_with(
        "slow-user",
        "printf 'idle_timeout_secs = 1\\n' > \"$MCPSCOPE_CONFIG_DIR/settings.toml\"\n",
        // A request from the server mid-call: the handshake era's.
        r#"demo --protocol legacy --run 'interactive_wizard {"questions": 1, "delay_ms": 0}'"#,
        120,
        36,
    );
    t.wait_for("the waiting request", 30, |s| {
        s.contains("⚑ 1 waiting (elicitation/create")
    });
    // Well past the idle timeout, the call still runs.
    let screen = t.wait_for("the call running for 3 s", 30, |s| {
        s.contains("interactive_wizard") && s.contains("running 3.")
    });
    assert!(!screen.contains("timed out"), "{screen}");
    t.keys(&["A"]);
    t.wait_for("the form", 10, |s| s.contains("Project name"));
    t.keys(&["Enter"]);
    t.wait_for("the wizard done", 30, |s| s.contains("done in"));
    t.keys(&["q"]);
    assert_restored(&t);
}

/// `y` inside tmux: under tmux's default `set-clipboard external` an
/// application's OSC 52 is dropped, so the frame goes through tmux's own
/// buffer, and the notice says where it landed — also when set-clipboard
/// is off and only the paste buffer has it.
#[test]
#[ignore = "needs tmux"]
fn copy_inside_tmux_lands_in_tmuxs_buffer_and_says_so() {
    require_tmux();
    let t = Tmux::start("clip", r#"--run 'echo {"text": "on the clipboard"}'"#);
    t.wait_for("the echo call done", 30, |s| s.contains("done in"));
    // The Raw pane follows the newest frame: the echo's response.
    t.keys(&["4"]);
    t.wait_for("the echo response in Raw", 10, |s| {
        s.contains("on the clipboard")
    });
    t.keys(&["y"]);
    let said = t.wait_for("the copy notice", 10, |s| {
        s.contains("tmux's paste buffer and the clipboard")
    });
    assert!(!said.contains("OSC 52"), "{said}");
    let buffer = t.cmd(&["show-buffer"]).output().expect("tmux show-buffer");
    let buffer = String::from_utf8_lossy(&buffer.stdout);
    assert!(buffer.contains("on the clipboard"), "{buffer}");
    assert!(buffer.contains("\"jsonrpc\""), "{buffer}");

    assert!(
        t.cmd(&["set-option", "-g", "set-clipboard", "off"])
            .status()
            .expect("tmux set-option")
            .success()
    );
    t.keys(&["y"]);
    let only = t.wait_for("the buffer-only notice", 10, |s| {
        s.contains("paste buffer only")
    });
    assert!(only.contains("set-clipboard"), "{only}");
    t.keys(&["q"]);
    assert_restored(&t);
}
