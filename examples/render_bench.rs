//! Render budget of the TUI (DESIGN §7): one frame at 160×50 with 1,000 and
//! with 1,000,000 stored events, side by side, plus the cost of catching up
//! with a frame's worth of new events at 10,000 notifications/s and the
//! time to the first frame. Both traces carry findings (one per 997 events,
//! at most 1,000) so flagged timeline rows and the Findings pane are in the
//! measured frames. A second pair of traces looks like a Streamable HTTP
//! session (every event on a `post:N` channel, an HTTP exchange per 100
//! events: 10,000 Network rows at 1M) for the Network pane, the channel
//! column and the timeline narrowed to one channel. The Scope view is
//! measured following the live edge, with the whole session on screen
//! (every event binned into the columns), and over HTTP with a lane per
//! stream. Uses ratatui's
//! TestBackend: this measures our work (views, formatting, layout), not a
//! terminal's.
//!
//! Run: `cargo run --release --example render_bench`

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

use mcpscope::checks::{Finding, Rule, Severity};
use mcpscope::protocol::views::InitializeResult;
use mcpscope::trace::{Dir, ManualClock, Store, Trace};
use mcpscope::tui::action::{Action, Msg};
use mcpscope::tui::{App, AppOptions, ui};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;

const W: u16 = 160;
const H: u16 = 50;

/// A session with `n` events: three calls with tokens whose progress makes
/// up most of the trace, logs every 50 events, stderr every 500.
fn build(n: u64) -> (Trace, Arc<ManualClock>) {
    let clock = ManualClock::new();
    let trace = Trace::new(Store::default(), clock.clone());
    trace.append(|s, _| {
        for (id, tool) in [(1, "upload_file"), (2, "context_builder"), (3, "flood")] {
            let f = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": {}, "_meta": {"progressToken": format!("mcpscope-{id}")}}});
            s.append_frame(Dir::Out, "stdio", 0, f.to_string().as_bytes(), &mut Vec::new());
        }
        let mut line = String::with_capacity(256);
        for i in 3..n {
            let t = i * 10;
            line.clear();
            if i % 500 == 0 {
                s.append_stderr("stdio", t, format!("worker {i}: heartbeat").as_bytes());
                continue;
            }
            if i % 50 == 0 {
                line = format!(r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","logger":"tracker","data":"step {i} finished"}}}}"#);
            } else {
                let tok = 1 + i % 3;
                line = format!(
                    r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"mcpscope-{tok}","progress":{i},"total":{n},"message":"Read {i} / {n} bytes"}}}}"#
                );
            }
            s.append_frame(Dir::In, "stdio", t, line.as_bytes(), &mut Vec::new());
        }
    });
    clock.set_us(n * 10);
    (trace, clock)
}

/// An HTTP session with `n` events: three long calls, each on its own POST
/// stream, whose progress makes up most of the trace, and a short exchange
/// (request, `http` meta, priming, response, stream end) every 100 events.
fn build_http(n: u64) -> (Trace, Arc<ManualClock>) {
    let clock = ManualClock::new();
    let trace = Trace::new(Store::default(), clock.clone());
    trace.append(|s, _| {
        let http = json!({"event": "http", "method": "POST", "status": 200,
            "content_type": "text/event-stream", "session": "bench-session-0001", "ms": 2});
        for (id, tool) in [(1, "upload_file"), (2, "context_builder"), (3, "flood")] {
            let ch = format!("post:{id}");
            let f = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": {}, "_meta": {"progressToken": format!("mcpscope-{id}")}}});
            s.append_frame(Dir::Out, &ch, 0, f.to_string().as_bytes(), &mut Vec::new());
            s.append_meta(&ch, 0, &http);
        }
        let mut next_post = 4u64;
        let mut i = 6u64;
        while i < n {
            let t = i * 10;
            if i.is_multiple_of(100) && i + 5 <= n {
                let ch = format!("post:{next_post}");
                let id = next_post + 1000;
                let req = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#);
                s.append_frame(Dir::Out, &ch, t, req.as_bytes(), &mut Vec::new());
                s.append_meta(&ch, t, &http);
                s.append_meta(&ch, t, &json!({"event": "sse-priming", "id": format!("{id}-0"), "retry_ms": 200}));
                let res = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[]}}}}"#);
                s.append_frame(Dir::In, &ch, t, res.as_bytes(), &mut Vec::new());
                s.append_meta(&ch, t, &json!({"event": "stream-end"}));
                next_post += 1;
                i += 5;
                continue;
            }
            let tok = 1 + i % 3;
            let line = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"mcpscope-{tok}","progress":{i},"total":{n},"message":"Read {i} / {n} bytes"}}}}"#
            );
            s.append_frame(Dir::In, &format!("post:{tok}"), t, line.as_bytes(), &mut Vec::new());
            i += 1;
        }
    });
    clock.set_us(n * 10);
    (trace, clock)
}

fn init() -> InitializeResult {
    serde_json::from_value(
        json!({"protocolVersion": "2025-11-25", "capabilities": {"logging": {}},
        "serverInfo": {"name": "bench", "version": "1"}}),
    )
    .unwrap_or_default()
}

/// Findings on every 997th event (at most 1,000), as the checks would publish them.
fn findings(n: u64) -> Vec<Finding> {
    (0..n.min(997_000))
        .step_by(997)
        .map(|s| Finding {
            rule: Rule::ProgressNotIncreasing,
            party: Rule::ProgressNotIncreasing.party(),
            severity: Severity::Error,
            seqs: vec![s.saturating_sub(3), s],
            token: None,
            request_id: None,
            message: format!("progress went backwards at #{s}"),
            session: None,
        })
        .collect()
}

fn app(trace: &Trace) -> App {
    let mut app = App::new(trace.clone(), AppOptions::default());
    let n = trace.read().next_seq();
    app.add_findings(findings(n));
    app.on_msg(Msg::Handshake(Ok(init())));
    app.on_msg(Msg::Tools(Ok(vec![json!({"name": "upload_file", "description": "Upload",
        "inputSchema": {"type": "object", "properties": {"size_bytes": {"type": "integer", "default": 1}}}})])));
    app.resize(W, H);
    while app.sync() {}
    app
}

fn frame(app: &mut App, term: &mut Terminal<TestBackend>) {
    let trace = app.trace().clone();
    let store = trace.read();
    app.sync_with(&store);
    term.draw(|f| ui::draw(f, &app.view(), &store))
        .expect("draw");
}

/// Median and mean of `reps` frames, in microseconds.
fn measure(app: &mut App, reps: usize) -> (f64, f64) {
    let mut term = Terminal::new(TestBackend::new(W, H)).expect("terminal");
    for _ in 0..20 {
        frame(app, &mut term);
    }
    let mut v: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            frame(app, &mut term);
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v.iter().sum::<f64>() / v.len() as f64)
}

fn main() {
    let t0 = Instant::now();
    let (small, _) = build(1_000);
    let (big, big_clock) = build(1_000_000);
    let (small_http, _) = build_http(1_000);
    let (big_http, _) = build_http(1_000_000);
    eprintln!("built traces in {:.1}s", t0.elapsed().as_secs_f64());

    // Time to first frame: a fresh App over an empty trace, first draw.
    let t = Instant::now();
    let empty = Trace::new(Store::default(), ManualClock::new());
    let mut first = App::new(empty, AppOptions::default());
    first.resize(W, H);
    let mut term = Terminal::new(TestBackend::new(W, H)).expect("terminal");
    frame(&mut first, &mut term);
    let first_ms = t.elapsed().as_secs_f64() * 1e3;

    println!("frame at {W}x{H}            1,000 events   1,000,000 events   ratio");
    // (name, HTTP trace?, actions before measuring)
    let scenarios: [(&str, bool, &[Action]); 11] = [
        ("following (default)", false, &[]),
        (
            "timeline filter: progress",
            false,
            &[
                Action::FocusTimeline,
                Action::CycleKind,
                Action::CycleKind,
                Action::CycleKind,
            ],
        ),
        (
            "findings pane, scrolled up",
            false,
            &[
                Action::FocusFindings,
                Action::Bottom,
                Action::PageUp,
                Action::PageUp,
            ],
        ),
        (
            "progress details (flood)",
            false,
            &[Action::FocusProgress, Action::Bottom, Action::Details],
        ),
        (
            "logs ≥ info, scrolled up",
            false,
            &[
                Action::FocusLogs,
                Action::LevelUp,
                Action::PageUp,
                Action::PageUp,
            ],
        ),
        ("HTTP: following", true, &[]),
        (
            "HTTP: network, scrolled up",
            true,
            &[
                Action::FocusNetwork,
                Action::Bottom,
                Action::PageUp,
                Action::PageUp,
            ],
        ),
        (
            "HTTP: channel post:3 only",
            true,
            &[
                Action::FocusNetwork,
                Action::Top,
                Action::Down,
                Action::Down,
                Action::ShowChannel,
                Action::Bottom,
            ],
        ),
        ("scope, following (10 s)", false, &[Action::FocusScope]),
        (
            "scope, whole session",
            false,
            &[Action::FocusScope, Action::ZoomFit],
        ),
        (
            "HTTP: scope with streams",
            true,
            &[Action::FocusScope, Action::ZoomFit, Action::ToggleStreams],
        ),
    ];
    let mut worst = 0.0f64;
    for (name, http, actions) in scenarios {
        let (mut a, mut b) = if http {
            (app(&small_http), app(&big_http))
        } else {
            (app(&small), app(&big))
        };
        for act in actions {
            a.apply(*act);
            b.apply(*act);
        }
        while a.sync() {}
        while b.sync() {}
        if http && actions.is_empty() {
            println!(
                "(HTTP traces: {} and {} Network rows)",
                a.panes.network.view.len(),
                b.panes.network.view.len()
            );
        }
        let (ma, _) = measure(&mut a, 300);
        let (mb, _) = measure(&mut b, 300);
        worst = worst.max(mb);
        println!(
            "{name:<28} {:>10.0} µs   {:>13.0} µs   {:>5.2}×",
            ma,
            mb,
            mb / ma
        );
    }

    // Latency: at 10,000 notifications/s and 30 fps, each frame catches up
    // with ~334 new events before drawing.
    let mut b = app(&big);
    let mut term = Terminal::new(TestBackend::new(W, H)).expect("terminal");
    let mut costs = Vec::new();
    let mut seq = 1_000_000u64;
    for _ in 0..100 {
        big.append(|s, _| {
            for _ in 0..334 {
                seq += 1;
                let l = format!(r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"mcpscope-3","progress":{seq},"message":"flood {seq}"}}}}"#);
                s.append_frame(Dir::In, "stdio", seq * 10, l.as_bytes(), &mut Vec::new());
            }
        });
        big_clock.set_us(seq * 10);
        let t = Instant::now();
        frame(&mut b, &mut term);
        costs.push(t.elapsed().as_secs_f64() * 1e6);
    }
    costs.sort_by(f64::total_cmp);
    println!(
        "catch up 334 new events + draw (1M stored): median {:.0} µs, max {:.0} µs (frame interval at 30 fps: 33,333 µs)",
        costs[costs.len() / 2],
        costs[costs.len() - 1]
    );
    println!("time to first frame (App::new + sync + draw): {first_ms:.2} ms");
    println!(
        "budget: ≤ 5,000 µs per frame with 1M events — {}",
        if worst <= 5000.0 { "met" } else { "NOT met" }
    );
}
