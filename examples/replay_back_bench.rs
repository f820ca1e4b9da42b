//! Cost of stepping a replay back (`,`): the store is append-only, so a
//! step back starts the trace over, feeds it again up to the earlier event
//! and makes every view again from it, all before the next frame. Measured
//! at the end of recorded traces of 100,000 and 1,000,000 events (three
//! calls whose progress makes up most of the trace, logs every 50 events,
//! stderr every 500), against a step forward and against playing the whole
//! trace to its end.
//!
//! Run: `cargo run --release --example replay_back_bench`

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

use mcpscope::trace::record::RecordedEvent;
use mcpscope::trace::{Dir, ManualClock, Store, Trace};
use mcpscope::tui::action::Action;
use mcpscope::tui::replay::Playback;
use mcpscope::tui::{App, AppOptions};
use serde_json::json;
use std::time::Instant;

fn events(n: u64) -> Vec<RecordedEvent> {
    let mut out = Vec::with_capacity(n as usize);
    let mut push = |t_us: u64, dir: Dir, bytes: Vec<u8>| {
        out.push(RecordedEvent {
            seq: out.len() as u64,
            t_us,
            dir,
            channel: "stdio".into(),
            in_batch: false,
            bytes,
        });
    };
    for (id, tool) in [(1, "upload_file"), (2, "context_builder"), (3, "flood")] {
        let f = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {}, "_meta": {"progressToken": format!("mcpscope-{id}")}}});
        push(0, Dir::Out, f.to_string().into_bytes());
    }
    for i in 3..n {
        let t = i * 10;
        if i % 500 == 0 {
            push(
                t,
                Dir::Stderr,
                format!("worker {i}: heartbeat").into_bytes(),
            );
        } else if i % 50 == 0 {
            push(t, Dir::In, format!(r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","logger":"tracker","data":"step {i} finished"}}}}"#).into_bytes());
        } else {
            let tok = 1 + i % 3;
            push(t, Dir::In, format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"mcpscope-{tok}","progress":{i},"total":{n},"message":"Read {i} / {n} bytes"}}}}"#
            ).into_bytes());
        }
    }
    out
}

/// A replay of `n` events at 160x50, played to its end.
fn at_end(n: u64) -> (App, f64) {
    let clock = ManualClock::new();
    let trace = Trace::new(Store::default(), clock.clone());
    let playback = Playback::new(events(n), trace.clone(), clock);
    let mut app = App::new(
        trace,
        AppOptions {
            live: false,
            playback: Some(playback),
            ..AppOptions::default()
        },
    );
    app.resize(160, 50);
    let t = Instant::now();
    app.apply(Action::ReplayEnd);
    while app.sync() {}
    (app, t.elapsed().as_secs_f64() * 1e3)
}

/// Feeding the store alone (no views): the part of a step back that
/// classifies and indexes the frames again.
fn feed_only(n: u64) -> f64 {
    let clock = ManualClock::new();
    let trace = Trace::new(Store::default(), clock.clone());
    let mut playback = Playback::new(events(n), trace, clock);
    ms(|| playback.jump_to_end())
}

fn ms(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e3
}

fn main() {
    println!(
        "replay at 160x50       play to end   step back (median of 5)   of which the store   step forward"
    );
    for n in [100_000u64, 1_000_000] {
        let (mut app, end_ms) = at_end(n);
        let mut back: Vec<f64> = (0..5)
            .map(|_| {
                ms(|| {
                    app.apply(Action::ReplayBack);
                })
            })
            .collect();
        back.sort_by(f64::total_cmp);
        let fwd = ms(|| {
            app.apply(Action::ReplayStep);
            while app.sync() {}
        });
        let r = app.shell.replay.expect("a replay");
        assert_eq!(r.fed as u64, n - 4, "five back, one forward");
        let store = feed_only(n);
        println!(
            "{:>9} events  {:>9.0} ms  {:>12.0} ms (min {:.0}, max {:.0})  {:>12.0} ms  {:>9.2} ms",
            n, end_ms, back[2], back[0], back[4], store, fwd
        );
    }
}
