//! The Scope view: a session on a time axis. Snapshots at 80×24, 120×30
//! and 160×48 of a session with interleaved calls, a buffered burst
//! (`fault_buffered`: every tick piled up just before the response),
//! progress after the response (`fault_after_response`) and logs before
//! and after a result; the keys (zoom, pan, cursor, follow, Enter showing
//! the event in the Timeline and Raw), and the same view in a replay.

use crate::support::*;

/// Interleaved calls on a manual clock, shaped as the demo server's tools
/// behave: an upload ticking every 250 ms, a buffered call whose twenty
/// ticks arrive within 5 ms of its response, a call whose progress goes on
/// after its response, logs at several levels, a stderr line.
pub fn scope_session() -> Scenario {
    let sc = Scenario::new();
    sc.at_ms(1)
        .meta(json!({"event": "spawn", "argv": ["mcpscope", "demo-server"], "pid": 4242}));
    sc.at_ms(2).out(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}));
    sc.at_ms(5).stderr("mcpscope-demo: started");
    sc.at_ms(9).inn(json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {"logging": {}}, "serverInfo": {"name": "mcpscope-demo", "version": "0.1.0"}}}));
    sc.at_ms(10)
        .out(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    sc.at_ms(100).call(
        1,
        "upload_file",
        json!({"size_bytes": 2621440}),
        Some(json!("mcpscope-1")),
    );
    sc.at_ms(300)
        .call(2, "fault_buffered", json!({}), Some(json!("mcpscope-2")));
    sc.at_ms(1200)
        .call(3, "fault_after_response", json!({}), Some(json!(3)));
    // (ms, what): merged in time order below.
    enum Ev {
        Progress(Value, f64, f64, String),
        Result(i64, &'static str),
        Log(&'static str, &'static str),
    }
    let mut events: Vec<(u64, Ev)> = Vec::new();
    for k in 1..=10u64 {
        let b = k * 262_144;
        let text = format!("Read {b} / 2621440 bytes");
        events.push((
            100 + 250 * k,
            Ev::Progress(json!("mcpscope-1"), b as f64, 2_621_440.0, text),
        ));
    }
    events.push((2700, Ev::Result(1, "uploaded")));
    for k in 0..20u64 {
        let p = (k + 1) as f64;
        events.push((
            3990 + k / 4,
            Ev::Progress(json!("mcpscope-2"), p, 20.0, "tick".into()),
        ));
    }
    events.push((3996, Ev::Result(2, "done")));
    for (ms, p) in [(1300, 1.0), (1500, 2.0), (1700, 3.0), (1900, 4.0)] {
        events.push((ms, Ev::Progress(json!(3), p, 4.0, "step".into())));
    }
    events.push((1600, Ev::Result(3, "answered early")));
    for (ms, level, text) in [
        (500, "info", "upload started"),
        (2000, "warning", "slow disk"),
        (2650, "error", "checksum retry"),
        (2750, "info", "upload finished"),
    ] {
        events.push((ms, Ev::Log(level, text)));
    }
    events.sort_by_key(|(ms, _)| *ms);
    for (ms, ev) in events {
        sc.at_ms(ms);
        match ev {
            Ev::Progress(tok, p, total, text) => {
                sc.progress(tok, p, Some(total), &text);
            }
            Ev::Result(id, text) => {
                sc.result(id, text, false);
            }
            Ev::Log(level, text) => {
                sc.log(level, "tracker", json!(text));
            }
        }
    }
    sc.at_ms(4500);
    sc
}

fn scope_app(sc: &Scenario) -> App {
    let mut app = app(sc);
    app.apply(Action::FocusScope);
    // The whole session in one screen: 5 s per width.
    app.apply(Action::ZoomFit);
    app
}

#[test]
fn snapshot_scope_at_160x48() {
    let sc = scope_session();
    let mut app = scope_app(&sc);
    insta::assert_snapshot!(render(&mut app, 160, 48));
}

#[test]
fn snapshot_scope_at_120x30() {
    let sc = scope_session();
    let mut app = scope_app(&sc);
    insta::assert_snapshot!(render(&mut app, 120, 30));
}

#[test]
fn snapshot_scope_at_80x24() {
    let sc = scope_session();
    let mut app = scope_app(&sc);
    insta::assert_snapshot!(render(&mut app, 80, 24));
}

#[test]
fn snapshot_scope_zoomed_on_the_buffered_burst() {
    let sc = scope_session();
    let mut app = app(&sc);
    app.apply(Action::FocusScope);
    app.apply(Action::Zoom);
    render(&mut app, 120, 30);
    // 10 ms per width, panned back to the burst at 3.990 s and its
    // response at 3.996 s.
    for _ in 0..9 {
        app.apply(Action::ZoomIn);
    }
    assert!(app.panes.scope.follow);
    while app.panes.scope.window(100, 4_500_000).start_us > 3_985_000 {
        app.apply(Action::PanLeft);
    }
    app.apply(Action::PanRight);
    assert!(!app.panes.scope.follow);
    let s = render(&mut app, 120, 30);
    assert!(lane_row(&s, "#6 fault_buffered").contains('◆'), "{s}");
    insta::assert_snapshot!(s);
}

/// The Scope's row labelled `label`, from the label on; a call's lane is
/// two rows (its progress, then its line), both returned.
fn lane_row(screen: &str, label: &str) -> String {
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains(&format!("┃{label}")))
        .unwrap_or_else(|| panic!("no lane {label}:\n{screen}"));
    let tail = |l: &str| l[l.find('┃').map_or(0, |i| i + '┃'.len_utf8())..].to_string();
    let mut out = tail(lines[at]);
    if let Some(next) = lines.get(at + 1)
        && next.contains("┃  ")
    {
        out.push('\n');
        out.push_str(&tail(next));
    }
    out
}

#[test]
fn lanes_read_the_story_at_a_glance() {
    let sc = scope_session();
    let mut app = scope_app(&sc);
    let s = render(&mut app, 160, 48);
    // One lane per call, in the order they started, then logs and the rest.
    let order: Vec<usize> = [
        "#5 upload_file",
        "#6 fault_buffered",
        "#7 fault_after_response",
        "logs",
        "session",
        "stderr · transport",
    ]
    .iter()
    .map(|l| s.find(&format!("┃{l}")).unwrap())
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{s}");
    // The buffered call: a line while it waits, then one tall column
    // (twenty ticks) right before its response.
    let buffered = lane_row(&s, "#6 fault_buffered");
    assert!(buffered.contains("▶─"), "{buffered}");
    assert!(
        buffered.contains('▆'),
        "16 to 31 ticks in one column: {buffered}"
    );
    assert!(buffered.contains('◆'), "{buffered}");
    // Progress after the response: ticks right of the response's column.
    let after = lane_row(&s, "#7 fault_after_response");
    let (ticks, line) = after.split_once('\n').unwrap();
    let resp = line.chars().position(|c| c == '◆').expect("response mark");
    assert!(
        ticks.chars().skip(resp + 1).any(|c| c == '▂'),
        "progress after the response: {after}"
    );
}

#[test]
fn enter_shows_the_event_under_the_cursor_in_timeline_and_raw() {
    let sc = scope_session();
    let mut app = scope_app(&sc);
    render(&mut app, 160, 48);
    // The second lane, the buffered call; the cursor walks left from the
    // right edge to the response's column.
    app.apply(Action::Down);
    let cols = mcpscope::tui::panes::scope::plot_cols(
        app.layout().rect(mcpscope::tui::pane::Pane::Scope).unwrap(),
    );
    let win = app.panes.scope.window(cols, 4_500_000);
    let target = win.col_of(3_996_000).unwrap();
    for _ in target..cols - 1 {
        app.apply(Action::CursorLeft);
    }
    let s = render(&mut app, 160, 48);
    let readout = s.lines().rev().nth(2).unwrap();
    assert!(readout.contains("#6 fault_buffered"), "{readout}");
    assert!(readout.contains("← res"), "{readout}");
    app.apply(Action::ShowEvent);
    assert_eq!(app.shell.focus, mcpscope::tui::pane::Pane::Timeline);
    let s = render(&mut app, 160, 48);
    assert!(s.contains("event #"), "{s}");
    assert!(
        s.contains(r#""result": {"#) || s.contains("\"result\""),
        "{s}"
    );
    // The Timeline's selected row is the response.
    let sel = app.panes.timeline.cursor.selected;
    let trace = app.trace().clone();
    let store = trace.read();
    let seq = app.panes.timeline.view.seq_at(sel, &store).unwrap();
    assert!(store.get(seq).unwrap().text().contains(r#""id":2"#));
}

#[test]
fn follow_resumes_the_live_edge() {
    let sc = scope_session();
    let mut app = scope_app(&sc);
    render(&mut app, 120, 30);
    app.apply(Action::ZoomIn);
    app.apply(Action::PanLeft);
    assert!(!app.panes.scope.follow);
    let s = render(&mut app, 120, 30);
    assert!(s.contains("paused (f follows)"), "{s}");
    app.apply(Action::Follow);
    assert!(app.panes.scope.follow);
    let s = render(&mut app, 120, 30);
    assert!(s.contains("following"), "{s}");
}

#[test]
fn replay_draws_the_scope_as_events_are_fed() {
    use mcpscope::trace::{ManualClock, Store, Trace};
    let sc = scope_session();
    let clock = ManualClock::new();
    let trace = Trace::new(Store::default(), clock.clone());
    let playback = mcpscope::tui::replay::Playback::new(recorded(&sc), trace.clone(), clock);
    let mut app = App::new(
        trace,
        AppOptions {
            live: false,
            playback: Some(playback),
            ..AppOptions::default()
        },
    );
    app.sync();
    app.apply(Action::FocusScope);
    app.apply(Action::ReplayEnd);
    while app.sync() {}
    app.apply(Action::ZoomFit);
    let s = render(&mut app, 160, 48);
    assert!(lane_row(&s, "#6 fault_buffered").contains('◆'), "{s}");
    assert!(lane_row(&s, "#5 upload_file").contains('▶'), "{s}");
}

#[test]
fn over_http_a_lane_per_stream_on_request() {
    let sc = Scenario::new();
    for (ms, id, ch) in [(100, 1, "post:1"), (200, 2, "post:2")] {
        sc.at_ms(ms).out_on(
            ch,
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "upload_file", "arguments": {}, "_meta": {"progressToken": id}}}),
        );
    }
    for k in 1..=5u64 {
        let ch = if k % 2 == 0 { "post:2" } else { "post:1" };
        sc.at_ms(200 + 100 * k).inn_on(
            ch,
            json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": 1 + (k % 2 == 0) as i64, "progress": k}}),
        );
    }
    sc.at_ms(900).inn_on(
        "get",
        json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
    );
    sc.at_ms(1000);
    let mut app = http_app(&sc);
    app.apply(Action::FocusScope);
    app.apply(Action::ZoomFit);
    let s = render(&mut app, 160, 48);
    assert!(!s.contains("┃post:1"), "streams are hidden at first: {s}");
    assert!(
        s.contains("s: streams"),
        "the title says how to show them: {s}"
    );
    app.apply(Action::ToggleStreams);
    let s = render(&mut app, 160, 48);
    for lane in ["post:1", "post:2", "get", "notifications"] {
        assert!(s.contains(&format!("┃{lane}")), "lane {lane}: {s}");
    }
    assert!(lane_row(&s, "post:2").contains('▶'), "{s}");
}

/// A call whose server exported spans: a third row draws them as bars over
/// the time they cover, late ones too; the readout names the span under
/// the cursor. Without an exact session start (as here, and in a replay)
/// the earliest span starts with the request.
#[test]
fn the_servers_spans_are_bars_under_their_call() {
    let sc = Scenario::new();
    sc.at_ms(1).out(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}));
    sc.at_ms(2).inn(json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}}));
    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    sc.at_ms(1000)
        .out(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "slow_task", "arguments": {},
            "_meta": {"traceparent": format!("00-{trace_id}-00f067aa0ba902b7-01")}}}));
    sc.at_ms(3000).result(1, "done", false);
    // The spans come after the response, as batch exporters send them:
    // the call's span (2 s) and a failed child of 0.5 s, a second in.
    let base: u64 = 1_800_000_000_000_000_000;
    for (name, span, parent, from_ms, to_ms, status) in [
        (
            "tools/call slow_task",
            "1111111111111111",
            Some("00f067aa0ba902b7"),
            0,
            2000,
            "unset",
        ),
        (
            "db query",
            "2222222222222222",
            Some("1111111111111111"),
            1000,
            1500,
            "error",
        ),
    ] {
        sc.at_ms(4000).meta(
            json!({"event": "otel-span", "service": "python", "name": name,
            "trace_id": trace_id, "span_id": span, "parent_span_id": parent, "kind": "server",
            "start_ns": base + from_ms * 1_000_000, "end_ns": base + to_ms * 1_000_000,
            "status": status}),
        );
    }
    // A span of another trace is no call's.
    sc.at_ms(4001).meta(json!({"event": "otel-span", "name": "other", "trace_id": "0af7651916cd43dd8448eb211c80319c",
        "span_id": "3333333333333333", "kind": "server", "start_ns": base, "end_ns": base + 1, "status": "ok"}));
    sc.at_ms(4500);
    let mut app = app(&sc);
    app.apply(Action::FocusScope);
    app.apply(Action::ZoomFit);
    let s = render(&mut app, 120, 30);
    let lines: Vec<&str> = s.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("  spans 2"))
        .unwrap_or_else(|| panic!("no spans row:\n{s}"));
    assert!(lines[at - 2].contains("#2 slow_task"), "{s}");
    let bar = lines[at];
    assert!(bar.contains('━'), "{s}");
    // The bar starts under the request's column (▶ on the call's line).
    let request_col = lines[at - 1].chars().position(|c| c == '▶').unwrap();
    let bar_col = bar.chars().position(|c| c == '━').unwrap();
    assert!(bar_col.abs_diff(request_col) <= 1, "{s}");
    assert!(!s.contains("  spans 3"), "{s}");
    // The readout names the innermost span under the cursor.
    for _ in 0..200 {
        app.apply(Action::CursorLeft);
    }
    let mut named = None;
    for _ in 0..120 {
        let s = render(&mut app, 120, 30);
        if let Some(l) = s.lines().find(|l| l.contains("· span db query")) {
            named = Some(l.to_string());
            break;
        }
        app.apply(Action::CursorRight);
    }
    let named = named.expect("the cursor reached the failed span");
    assert!(
        named.contains("500ms error") || named.contains("0.5s error"),
        "{named}"
    );
}
