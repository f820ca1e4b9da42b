//! The Progress pane: calls found in the trace and their endings, gauges,
//! cancelling, the details view, answering an `input_required` result.

use crate::support::*;
use mcpscope::protocol::IdKey;
use mcpscope::tui::calls::{ByteMode, CallStatus, Gauge};
use mcpscope::tui::pane::Pane;
use mcpscope::tui::shell::Conn;

#[test]
fn calls_are_found_in_the_trace_and_keep_their_final_state() {
    let sc = mid_progress();
    let mut app = app(&sc);
    assert_eq!(app.panes.progress.calls.list.len(), 5);
    assert_eq!(status(&app, 1), CallStatus::Running);
    assert_eq!(status(&app, 4), CallStatus::Done);
    assert_eq!(
        status(&app, 5),
        CallStatus::Cancelled,
        "a late response does not undo the cancel"
    );
    assert_eq!(app.panes.progress.calls.running(), 3);

    sc.at_ms(1500).result(1, "uploaded", false);
    sc.at_ms(1510)
        .inn(json!({"jsonrpc": "2.0", "id": 2, "result": {"content": [], "isError": true}}));
    sc.at_ms(1520).meta(json!({"event": "timeout", "request": 3, "method": "tools/call", "limit": "idle", "secs": 1.0}));
    app.sync();
    assert_eq!(status(&app, 1), CallStatus::Done);
    assert_eq!(status(&app, 2), CallStatus::ToolError);
    assert_eq!(status(&app, 3), CallStatus::TimedOut);
    let c = app.panes.progress.calls.get(&IdKey::Int(1)).unwrap();
    assert_eq!(c.end_us, Some(1_500_000));
    assert_eq!(c.sent_us, 100_000);
}

#[test]
fn a_server_exit_crashes_running_calls_and_shows_in_the_header() {
    let sc = mid_progress();
    let mut app = app(&sc);
    sc.at_ms(2000)
        .meta(json!({"event": "exit", "code": null, "signal": 9}));
    app.sync();
    assert_eq!(status(&app, 1), CallStatus::Crashed);
    assert_eq!(status(&app, 4), CallStatus::Done);
    assert!(matches!(&app.shell.conn, Conn::Exited(why) if why.contains("signal 9")));
}

#[test]
fn a_gauge_whose_progress_came_in_one_burst_shows_no_rate() {
    let sc = Scenario::new();
    sc.at_ms(0).call(7, "buffered", json!({}), Some(json!("b")));
    // Ten notifications within 5 ms: a burst, not a pace (the "rate"
    // would read 1,800/s).
    for i in 1..=10 {
        sc.at_ms(1000 + i / 2)
            .progress(json!("b"), i as f64, Some(10.0), "chunk");
    }
    let mut app = app(&sc);
    app.sync();
    let store = sc.trace.read();
    let c = app.panes.progress.calls.get(&IdKey::Int(7)).unwrap();
    let g = Gauge::of(c, &store, ByteMode::Auto);
    assert_eq!(g.notifications, 10);
    assert_eq!(g.rate, None, "{g:?}");
    assert_eq!(g.eta_us(), None);
    drop(store);
    let s = render(&mut app, 160, 48);
    let bar = s
        .lines()
        .find(|l| l.contains("100%"))
        .unwrap_or_else(|| panic!("no gauge row:\n{s}"));
    assert!(!bar.contains("/s") && !bar.contains("ETA"), "{bar}");
}

#[test]
fn a_call_whose_progress_came_after_its_result_says_so_on_its_row() {
    let sc = Scenario::new();
    sc.at_ms(0).call(7, "late", json!({}), Some(json!("l")));
    sc.at_ms(0).call(8, "fine", json!({}), Some(json!("f")));
    sc.at_ms(50).progress(json!("f"), 1.0, Some(1.0), "ok");
    sc.at_ms(60).result(8, "fine", false);
    sc.at_ms(100).result(7, "late", false);
    sc.at_ms(150)
        .progress(json!("l"), 1.0, Some(1.0), "too late");
    let mut app = app(&sc);
    app.sync();
    let s = render(&mut app, 160, 48);
    let row = |tool: &str| {
        s.lines()
            .find(|l| l.contains(&format!("✓ {tool}")))
            .unwrap_or_else(|| panic!("no {tool} row:\n{s}"))
            .to_string()
    };
    assert!(row("late").contains("progress after the result"), "{s}");
    assert!(!row("fine").contains("progress after the result"), "{s}");
}

/// A call that drew findings carries its worst one's mark and rule on its
/// gauge row (and how many more), so the Progress pane says which call to
/// look at; a call without findings has none.
#[test]
fn a_call_that_drew_findings_shows_its_mark_on_its_gauge_row() {
    let sc = with_faults();
    let mut app = app(&sc);
    let found = check_all(&sc);
    assert!(
        found
            .iter()
            .any(|f| f.rule.id() == "progress-not-increasing"),
        "{found:#?}"
    );
    app.add_findings(found);
    app.sync();
    let s = render(&mut app, 160, 48);
    let row = |tool: &str| {
        s.lines()
            .find(|l| l.contains(&format!(" {tool} ")) && l.contains(" id "))
            .unwrap_or_else(|| panic!("no {tool} row:\n{s}"))
            .to_string()
    };
    let upload = row("upload_file");
    assert!(upload.contains("✗ progress-not-increasing"), "{s}");
    let wizard = row("interactive_wizard");
    assert!(wizard.contains("▲ progress-exceeds-total"), "{s}");
    assert!(!row("context_builder").contains('✗'), "{s}");
    assert!(!row("context_builder").contains('▲'), "{s}");
}

#[test]
fn gauges_read_bytes_steps_rates_and_etas() {
    let sc = mid_progress();
    let app = app(&sc);
    let store = sc.trace.read();
    let upload = app.panes.progress.calls.get(&IdKey::Int(1)).unwrap();
    let g = Gauge::of(upload, &store, ByteMode::Auto);
    assert_eq!(g.notifications, 4);
    assert!(g.bytes);
    assert_eq!(g.progress, Some(2_097_152.0));
    assert_eq!(g.ratio(), Some(0.4));
    assert_eq!(g.first_us, Some(350_000));
    // 3 chunks of 512 KiB in 750 ms.
    assert_eq!(g.rate.map(|r| r.round()), Some(2_097_152.0));
    assert_eq!(g.eta_us(), Some(1_500_000));
    assert!(!Gauge::of(upload, &store, ByteMode::Plain).bytes);

    let wizard = app.panes.progress.calls.get(&IdKey::Int(3)).unwrap();
    let g = Gauge::of(wizard, &store, ByteMode::Auto);
    assert!(g.zero_based_steps);
    assert_eq!((g.progress, g.total), (Some(1.0), Some(3.0)));

    let ctx = app.panes.progress.calls.get(&IdKey::Int(2)).unwrap();
    let g = Gauge::of(ctx, &store, ByteMode::Auto);
    assert_eq!((g.notifications, g.total, g.ratio()), (3, None, None));
    assert_eq!(
        g.message.as_deref(),
        Some("[discovering] routing_confirmed")
    );
}

#[test]
fn cancel_targets_the_selected_running_call() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::Top);
    assert_eq!(
        app.apply(Action::CancelCall),
        vec![Effect::Cancel { id: IdKey::Int(1) }]
    );
    app.apply(Action::Down);
    app.apply(Action::Down);
    app.apply(Action::Down); // echo, finished
    assert!(app.apply(Action::CancelCall).is_empty());
    assert!(
        app.shell
            .notice
            .as_deref()
            .unwrap()
            .contains("already done")
    );
    // From the timeline: a progress row names its call through the token.
    app.apply(Action::FocusTimeline);
    let pos = {
        let store = sc.trace.read();
        let seq = store
            .token_seqs(&IdKey::Str("mcpscope-2".into()))
            .nth(1)
            .expect("a second seq");
        app.panes.timeline.view.position_of(seq, &store)
    };
    app.apply(Action::Top);
    for _ in 0..pos {
        app.apply(Action::Down);
    }
    assert_eq!(
        app.apply(Action::CancelCall),
        vec![Effect::Cancel { id: IdKey::Int(2) }]
    );
}

#[test]
fn details_show_timing_statistics_of_the_selected_call() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::Details);
    assert!(app.panes.progress.details);
    // The upload: notifications at 350, 600, 850 and 1100 ms after a request at 100 ms.
    let tm = &app.panes.progress.timing;
    assert_eq!(tm.id, Some(IdKey::Int(1)));
    assert_eq!(tm.count, 4);
    assert_eq!(tm.first_after_us(), Some(250_000));
    assert_eq!(tm.min_gap_us, Some(250_000));
    assert_eq!(tm.median_gap_us(), Some(250_000));
    assert_eq!(tm.max_gap_us, Some(250_000));
    // New notifications extend the numbers without a rescan.
    sc.at_ms(1150).progress(
        json!("mcpscope-1"),
        2_621_440.0,
        Some(5_242_880.0),
        "Read 2621440 / 5242880 bytes",
    );
    app.sync();
    let tm = &app.panes.progress.timing;
    assert_eq!(tm.count, 5);
    assert_eq!(tm.min_gap_us, Some(50_000));
    assert_eq!(tm.median_gap_us(), Some(250_000));
    // The same numbers as the checks' statistics.
    let stats = mcpscope::checks::stats::call_stats(&sc.trace.read());
    let s = stats
        .iter()
        .find(|c| c.request_id == IdKey::Int(1))
        .unwrap();
    assert_eq!(s.first_progress_ms, Some(250.0));
    let spread = s.inter_arrival_ms.unwrap();
    assert_eq!(
        (spread.min, spread.median, spread.max),
        (50.0, 250.0, 250.0)
    );
    // Another call: the numbers follow the selection.
    app.apply(Action::Down);
    assert_eq!(app.panes.progress.timing.id, Some(IdKey::Int(2)));
    assert_eq!(app.panes.progress.timing.count, 3);
    app.apply(Action::Details);
    assert!(!app.panes.progress.details);
}

/// A stateless-era call whose result asks for an elicitation and roots.
fn input_required_session() -> Scenario {
    let sc = Scenario::new();
    sc.at_ms(10).out_on("post:1", json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "interactive_wizard", "arguments": {"questions": 2},
        "_meta": {"progressToken": "mcpscope-1", "io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}));
    sc.at_ms(12).meta_on("post:1", json!({"event": "http", "method": "POST", "status": 200, "content_type": "application/json", "session": null, "ms": 2}));
    sc.at_ms(12).inn_on("post:1", json!({"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required",
        "inputRequests": {
            "project": {"method": "elicitation/create", "params": {
                "message": "Project name?",
                "requestedSchema": {"type": "object", "properties": {
                    "name": {"type": "string"},
                    "visibility": {"type": "string", "enum": ["private", "public"], "default": "private"},
                    "seats": {"type": "integer"}}}}},
            "where": {"method": "roots/list", "params": {}}
        },
        "requestState": "opaque-state-1"}}));
    sc.at_ms(20);
    sc
}

#[test]
fn an_input_required_result_is_its_own_state_listing_the_requests() {
    let sc = input_required_session();
    let mut app = app(&sc);
    let screen = render(&mut app, 160, 48);
    assert!(screen.contains("input required"), "{screen}");
    assert!(
        screen.contains("needs elicitation/create \"Project name?\" · roots/list · a answers it"),
        "{screen}"
    );
    let c = app.panes.progress.calls.get(&IdKey::Int(1)).unwrap();
    assert_eq!(c.status, CallStatus::InputRequired);
    assert!(!c.status.is_running());
    assert_eq!(c.status.label(), "input required");
    let input = c.input.as_ref().unwrap();
    let asks: Vec<String> = input.asks.iter().map(|a| a.summary()).collect();
    assert_eq!(asks, ["elicitation/create \"Project name?\"", "roots/list"]);
    assert_eq!(input.request_state, Some(json!("opaque-state-1")));
    assert_eq!(input.answered_by, None);
}

#[test]
fn answering_input_composes_a_retry_and_sends_it_as_a_raw_tools_call() {
    let sc = input_required_session();
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    key(&mut app, KeyCode::Char('a'));
    assert_eq!(app.shell.focus, Pane::Composer);
    assert!(app.panes.composer.raw_mode);
    assert_eq!(app.panes.composer.check.error, None);
    let msg: serde_json::Value = serde_json::from_str(&app.panes.composer.text()).unwrap();
    assert_eq!(
        msg,
        json!({
            "jsonrpc": "2.0",
            "id": "answer-1",
            "method": "tools/call",
            "params": {
                "name": "interactive_wizard",
                "arguments": {"questions": 2},
                "_meta": {"progressToken": "answer-1"},
                "inputResponses": {
                    "project": {"action": "accept", "content": {"name": "", "visibility": "private", "seats": 0}},
                    "where": {"roots": []}
                },
                "requestState": "opaque-state-1"
            }
        })
    );
    let e = app.apply(Action::Send);
    match &e[..] {
        [
            Effect::Raw {
                id: Some(IdKey::Str(id)),
                method,
                params: Some(p),
                ..
            },
        ] => {
            assert_eq!(&**id, "answer-1");
            assert_eq!(method, "tools/call");
            assert_eq!(p["requestState"], json!("opaque-state-1"));
            assert_eq!(p["inputResponses"]["project"]["action"], json!("accept"));
        }
        other => panic!("{other:?}"),
    }
    // The retry, once in the trace, answers the first and is its next
    // round: one call, running again, carried by the retry.
    sc.at_ms(30).out_on("post:2", msg);
    app.sync();
    assert_eq!(app.panes.progress.calls.list.len(), 1);
    let first = app.panes.progress.calls.get(&IdKey::Int(1)).unwrap();
    assert_eq!(
        first.input.as_ref().unwrap().answered_by,
        Some(IdKey::Str("answer-1".into()))
    );
    let retry = app
        .panes
        .progress
        .calls
        .get(&IdKey::Str("answer-1".into()))
        .unwrap();
    assert_eq!(retry.request_seq, first.request_seq, "the same call");
    assert_eq!(retry.status, CallStatus::Running);
    assert_eq!(retry.latest.token, Some(IdKey::Str("answer-1".into())));
    // A second answer gets a fresh id, and says the round was answered.
    app.apply(Action::FocusProgress);
    app.apply(Action::Bottom);
    app.apply(Action::AnswerInput);
    assert!(app.panes.composer.text().contains("\"answer-2\""));
    assert!(
        app.shell
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("answered already"))
    );
}

#[test]
fn answering_a_call_that_needs_no_input_explains_why_not() {
    let sc = mid_progress();
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::AnswerInput);
    assert_eq!(app.shell.focus, Pane::Progress);
    assert!(
        app.shell
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("only an input_required result can be answered")),
        "{:?}",
        app.shell.notice
    );
}

#[test]
fn two_host_sessions_with_one_id_each_settle_their_own_call() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    let call = |tool: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": {"progressToken": "t"}}})
    };
    let start = |s: &str| json!({"event": "host-request", "method": "POST", "session": s});
    sc.at_ms(10);
    sc.meta_on("post:1", start("A"));
    sc.out_on("post:1", call("first"));
    sc.at_ms(20);
    sc.meta_on("post:2", start("B"));
    sc.out_on("post:2", call("second"));
    sc.at_ms(30);
    sc.inn_on(
        "post:1",
        json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": false}}),
    );
    app.sync();
    let status = |tool: &str| {
        app.panes
            .progress
            .calls
            .list
            .iter()
            .find(|c| c.tool == tool)
            .map(|c| c.status)
            .unwrap()
    };
    assert_eq!(
        status("first"),
        CallStatus::Done,
        "host A's answer ends host A's call"
    );
    assert_eq!(status("second"), CallStatus::Running);
}

/// The mid-progress session, then five calls that finished without a
/// progress notification, all there when the App starts.
fn many_calls() -> Scenario {
    let sc = mid_progress();
    for id in 6..=10 {
        let ms = 1200 + id as u64 * 10;
        sc.at_ms(ms).call(
            id,
            "echo",
            json!({"text": "x"}),
            Some(json!(format!("t{id}"))),
        );
        sc.at_ms(ms + 2).result(id, "x", false);
    }
    sc.at_ms(1400);
    sc
}

/// The screen row (index) of the first line containing `what`.
fn row_of(screen: &str, what: &str) -> Option<usize> {
    screen.lines().position(|l| l.contains(what))
}

#[test]
fn a_new_call_is_selected_and_shown_before_the_finished_ones_at_every_size() {
    for (w, h) in [(80, 24), (120, 30), (160, 48)] {
        let sc = many_calls();
        let mut app = app(&sc);
        app.apply(Action::FocusProgress);
        // Calls there at start are history: the selection stays at the top.
        assert_eq!(
            app.apply(Action::CancelCall),
            vec![Effect::Cancel { id: IdKey::Int(1) }]
        );
        sc.at_ms(1500).call(
            11,
            "upload_file",
            json!({"size_bytes": 1}),
            Some(json!("mcpscope-11")),
        );
        let screen = render(&mut app, w, h);
        let new = row_of(&screen, "id 11")
            .unwrap_or_else(|| panic!("{w}x{h}: the new call is on screen:\n{screen}"));
        // Running calls come first: the new one sits above every finished one.
        for done in ["id 4 ", "id 6 ", "id 10 "] {
            if let Some(r) = row_of(&screen, done) {
                assert!(r > new, "{w}x{h}: {done} below the running call:\n{screen}");
            }
        }
        // A finished call that sent no progress takes one row and says so.
        if let Some(r) = row_of(&screen, "id 6 ") {
            let line = screen.lines().nth(r).unwrap();
            assert!(
                line.contains("done in") && line.contains("no progress sent"),
                "{line}"
            );
            let next = screen.lines().nth(r + 1).unwrap();
            assert!(
                next.contains("id 7 ") || !next.contains("░"),
                "{w}x{h}:\n{screen}"
            );
        }
        assert!(!screen.contains("waiting for progress") || screen.contains("running"));
        assert!(!screen.contains("✓ done"), "{screen}");
        // The call keys act on the new call.
        assert_eq!(
            app.apply(Action::CancelCall),
            vec![Effect::Cancel { id: IdKey::Int(11) }],
            "{w}x{h}"
        );
    }
}

#[test]
fn the_selection_stays_on_its_call_when_it_finishes_and_moves_down() {
    let sc = many_calls();
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    sc.at_ms(1500)
        .call(11, "echo", json!({"text": "y"}), Some(json!("t11")));
    app.sync();
    let pos = app.panes.progress.cursor.selected;
    assert_eq!(pos, 3, "after the three running calls");
    sc.at_ms(1510).result(11, "y", false);
    app.sync();
    assert_eq!(
        app.panes.progress.selected_call().unwrap().id,
        IdKey::Int(11)
    );
    assert_eq!(
        app.panes.progress.cursor.selected, 10,
        "the last of the finished calls"
    );
    // The user's own choice is kept while nothing new comes.
    app.apply(Action::Top);
    sc.at_ms(1600).result(2, "built", false);
    app.sync();
    assert_eq!(
        app.panes.progress.selected_call().unwrap().id,
        IdKey::Int(1)
    );
}

#[test]
fn details_show_the_trace_the_request_carried() {
    let sc = Scenario::new();
    sc.at_ms(2).out(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}));
    sc.at_ms(9).inn(json!({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}}));
    sc.at_ms(100).out(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {},
        "_meta": {"progressToken": "mcpscope-1", "traceparent": "00-9fa5806d28a258f47b16ef63667b3963-6e1174658acba428-01"}}}));
    sc.at_ms(120).out(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "echo", "arguments": {},
        "_meta": {"progressToken": "mcpscope-2", "traceparent": "not one"}}}));
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::Top);
    app.apply(Action::Details);
    let shown = |app: &mut App| {
        render(app, 160, 48).lines().any(|l| {
            l.contains("trace (W3C traceparent)")
                && l.contains("9fa5806d28a258f47b16ef63667b3963 · span 6e1174658acba428")
        })
    };
    let mut seen = Vec::new();
    for _ in 0..2 {
        let id = app.panes.progress.selected_call().map(|c| c.id.clone());
        seen.push((id, shown(&mut app)));
        app.apply(Action::Down);
    }
    seen.sort_by_key(|(id, _)| format!("{id:?}"));
    // Only call 1 carried a valid traceparent.
    assert_eq!(
        seen,
        vec![(Some(IdKey::Int(1)), true), (Some(IdKey::Int(2)), false)]
    );
}

/// The time the user took to answer a form is the client's, not a gap of
/// the server's: the details leave it out, as `check`'s statistics do.
#[test]
fn details_leave_the_users_answer_time_out_of_the_gaps() {
    let sc = Scenario::new();
    sc.at_ms(1000)
        .call(1, "wizard", json!({}), Some(json!("t")));
    sc.at_ms(1100)
        .progress(json!("t"), 1.0, Some(2.0), "step 1");
    sc.at_ms(1150).inn(json!({"jsonrpc": "2.0", "id": "srv-1", "method": "elicitation/create",
        "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}));
    sc.at_ms(31_150).out(json!({"jsonrpc": "2.0", "id": "srv-1", "result": {"action": "accept", "content": {"name": "Ada"}}}));
    sc.at_ms(31_300)
        .progress(json!("t"), 2.0, Some(2.0), "step 2");
    sc.at_ms(31_400).result(1, "done", false);
    let mut app = app(&sc);
    app.apply(Action::FocusProgress);
    app.apply(Action::Details);
    let tm = &app.panes.progress.timing;
    assert_eq!(tm.count, 2);
    // 1.1 → 31.3 s less the 30 s the user took: 200 ms.
    assert_eq!(tm.max_gap_us, Some(200_000));
    let stats = mcpscope::checks::stats::call_stats(&sc.trace.read());
    assert_eq!(stats[0].inter_arrival_ms.unwrap().max, 200.0);
}
