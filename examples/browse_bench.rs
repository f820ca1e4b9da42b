//! Cost of the Tools pane's Resources and Prompts tabs with what a server
//! can send at most, side by side with a small server: taking in a listing
//! (10 items, and 50,000 of which 5,000 are kept), a frame of the Resources
//! tab at 160×50 with 10 and with 5,000 rows, a frame of a read resource of
//! 10 lines and of 5,000 (the cap; wrapped), and a sync that takes in
//! 100,000 `notifications/resources/updated` against 5,000 resources. Uses
//! ratatui's TestBackend: this measures our work, not a terminal's.
//!
//! Run: `cargo run --release --example browse_bench`

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

use mcpscope::protocol::views::InitializeResult;
use mcpscope::trace::{Dir, ManualClock, Store, Trace};
use mcpscope::tui::action::{Action, Msg};
use mcpscope::tui::browse::Req;
use mcpscope::tui::{App, AppOptions, ui};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn app() -> (App, Trace) {
    let clock = ManualClock::new();
    let trace = Trace::new(Store::default(), clock);
    let mut app = App::new(trace.clone(), AppOptions::default());
    let init: InitializeResult = serde_json::from_value(json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {"resources": {"subscribe": true, "listChanged": true}},
        "serverInfo": {"name": "bench", "version": "1"}
    }))
    .unwrap();
    app.set_server(&init);
    app.on_msg(Msg::Handshake(Ok(init)));
    app.resize(160, 50);
    app.apply(Action::FocusTools);
    app.apply(Action::NextTab);
    (app, trace)
}

fn listing(n: usize) -> Value {
    let items: Vec<Value> = (0..n)
        .map(|i| {
            json!({"uri": format!("file:///project/src/module_{i}/file_{i}.rs"),
                   "name": format!("file_{i}.rs"), "mimeType": "text/x-rust",
                   "description": "A source file of the project, listed for the bench."})
        })
        .collect();
    json!({"resources": items})
}

/// Median time of `f` over `runs` runs.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed()
        })
        .collect();
    t.sort();
    t[runs / 2]
}

fn frame(app: &mut App, trace: &Trace, term: &mut Terminal<TestBackend>) -> Duration {
    median(50, || {
        app.sync();
        let store = trace.read();
        term.draw(|f| ui::draw(f, &app.view(), &store)).unwrap();
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let mut term = Terminal::new(TestBackend::new(160, 50)).unwrap();

    // Taking in a listing.
    let (mut small, small_trace) = app();
    let (mut big, big_trace) = app();
    let l10 = listing(10);
    let l50k = listing(50_000);
    // The clone of the listing is the reply's value arriving; it is not ours.
    let take = |app: &mut App, l: &Value, runs: usize| {
        let mut t: Vec<Duration> = (0..runs)
            .map(|_| {
                let v = l.clone();
                let s = Instant::now();
                app.on_msg(Msg::Browse(Req::ListResources, Ok(v)));
                s.elapsed()
            })
            .collect();
        t.sort();
        t[runs / 2]
    };
    let take10 = take(&mut small, &l10, 21);
    let take50k = take(&mut big, &l50k, 5);
    println!(
        "listing taken in: 10 items {:.3} ms, 50,000 items (5,000 kept) {:.3} ms",
        ms(take10),
        ms(take50k)
    );

    // A frame of the list.
    let f10 = frame(&mut small, &small_trace, &mut term);
    let f5k = frame(&mut big, &big_trace, &mut term);
    println!(
        "Resources frame 160x50: 10 rows {:.3} ms, 5,000 rows {:.3} ms ({:.2}x)",
        ms(f10),
        ms(f5k),
        f5k.as_secs_f64() / f10.as_secs_f64()
    );

    // A frame of a read resource, at the bottom of its text.
    let uri = "file:///project/src/module_0/file_0.rs";
    let text = |n: usize| -> String {
        (0..n)
            .map(|i| format!("line {i}: {}\n", "fn bench() { let x = 1; } ".repeat(4)))
            .collect()
    };
    for (app, n) in [(&mut small, 10), (&mut big, 5_000)] {
        app.apply(Action::Top);
        app.apply(Action::Open);
        app.on_msg(Msg::Browse(
            Req::Read { uri: uri.into() },
            Ok(json!({"contents": [{"uri": uri, "mimeType": "text/x-rust", "text": text(n)}]})),
        ));
        app.apply(Action::Bottom);
    }
    let d10 = frame(&mut small, &small_trace, &mut term);
    let d5k = frame(&mut big, &big_trace, &mut term);
    println!(
        "read view frame 160x50: 10 lines {:.3} ms, 5,000 lines {:.3} ms ({:.2}x)",
        ms(d10),
        ms(d5k),
        d5k.as_secs_f64() / d10.as_secs_f64()
    );

    // Updates: 100,000 notifications for resources among 5,000, in one sync.
    big_trace.append(|s, _| {
        for i in 0..100_000u64 {
            let f = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                "params": {"uri": format!("file:///project/src/module_{}/file_{}.rs", i % 5_000, i % 5_000)}});
            s.append_frame(Dir::In, "stdio", i, f.to_string().as_bytes(), &mut Vec::new());
        }
    });
    let s = Instant::now();
    big.sync();
    let sync = s.elapsed();
    let updates: u64 = big
        .panes
        .tools
        .browse
        .resources
        .resources
        .items
        .iter()
        .map(|r| r.updates)
        .sum();
    assert_eq!(updates, 100_000);
    println!(
        "100,000 resources/updated taken in by one sync: {:.1} ms ({:.2} µs each)",
        ms(sync),
        sync.as_secs_f64() * 1e6 / 100_000.0
    );
}
