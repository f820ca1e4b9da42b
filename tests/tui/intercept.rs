//! `attach --intercept`'s side of the TUI, fed the proxy's reports by hand
//! on the manual clock: the status line's indicator and its running ages,
//! the overlay's rows, the commands each key sends (a row changes only on
//! the proxy's report), the breakpoint's parse error shown before anything
//! is sent, the editor of an edit and a forge, a lost connection; at
//! 80×24, 120×30 and 160×48.

use crate::support::*;
use mcpscope::intercept::client::Event;
use mcpscope::intercept::protocol::{Command as Ctl, Report, Side};

fn report(app: &mut App, r: Report) {
    app.on_msg(Msg::Intercept(Event::Report(r)));
}

fn held(id: u64, to: Side, message: &str, age_ms: u64) -> Report {
    Report::Held {
        id,
        to,
        message: message.into(),
        age_ms,
    }
}

fn sent(effects: Vec<Effect>) -> Vec<Ctl> {
    effects
        .into_iter()
        .filter_map(|e| match e {
            Effect::Intercept(c) => Some(c),
            _ => None,
        })
        .collect()
}

fn status_line(screen: &str) -> &str {
    screen.lines().last().unwrap_or("")
}

const RESPONSE: &str =
    r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi\u001b[31m"}]}}"#;

fn intercepting(sc: &Scenario) -> App {
    let mut app = app(sc);
    app.enable_intercept();
    report(
        &mut app,
        Report::Breakpoint {
            filter: Some("in && response".into()),
        },
    );
    app
}

#[test]
fn the_indicator_shows_the_breakpoint_and_the_oldest_age_as_it_runs() {
    let sc = Scenario::new();
    // As `attach` runs it: a session followed, not one of our own.
    let opts = AppOptions {
        live: false,
        ..AppOptions::default()
    };
    let mut app = App::new(sc.trace.clone(), opts);
    app.enable_intercept();
    let s = render(&mut app, 80, 24);
    assert!(status_line(&s).contains("⏸ 0 held no breakpoint"), "{s}");
    assert!(s.lines().next().unwrap().contains("◆ intercepting"), "{s}");
    report(
        &mut app,
        Report::Breakpoint {
            filter: Some("in && response".into()),
        },
    );
    sc.at_ms(10_000);
    report(&mut app, held(1, Side::Host, RESPONSE, 1_500));
    let s = render(&mut app, 80, 24);
    assert!(
        status_line(&s).contains("⏸ 1 held (oldest 1.5s) break: in && response"),
        "{s}"
    );
    // The host's clock keeps running: so does the age.
    sc.at_ms(12_250);
    let s = render(&mut app, 80, 24);
    assert!(status_line(&s).contains("(oldest 3.8s)"), "{s}");
    for (w, h) in [(80, 24), (120, 30), (160, 48)] {
        let s = render(&mut app, w, h);
        assert!(status_line(&s).contains("⏸ 1 held"), "{w}x{h}\n{s}");
    }
}

#[test]
fn the_overlay_lists_held_rows_and_keys_send_commands_the_reports_confirm() {
    let sc = Scenario::new();
    let mut app = intercepting(&sc);
    sc.at_ms(5_000);
    report(&mut app, held(1, Side::Host, RESPONSE, 0));
    report(
        &mut app,
        held(
            2,
            Side::Server,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}"#,
            200,
        ),
    );
    app.apply(Action::Intercept);
    sc.at_ms(6_000);
    for (w, h) in [(80, 24), (120, 30), (160, 48)] {
        let s = render(&mut app, w, h);
        assert!(s.contains("Intercept: 2 held"), "{w}x{h}\n{s}");
        assert!(s.contains("breakpoint: in && response"), "{w}x{h}\n{s}");
        assert!(s.contains("#1    → host"), "{w}x{h}\n{s}");
        assert!(s.contains("1.0s  response #2"), "{w}x{h}\n{s}");
        assert!(s.contains("#2    → server"), "{w}x{h}\n{s}");
        assert!(s.contains("1.2s  tools/call #3"), "{w}x{h}\n{s}");
        // The server's text reaches the screen sanitised.
        assert!(!s.contains('\u{1b}'), "{w}x{h}\n{s}");
    }
    // Forward: sent; the row stays until the proxy says it left the hold.
    assert_eq!(
        sent(key(&mut app, KeyCode::Enter)),
        vec![Ctl::Forward {
            id: 1,
            message: None
        }]
    );
    assert!(render(&mut app, 120, 30).contains("(forwarding…)"));
    report(
        &mut app,
        Report::Released {
            id: 1,
            how: "forwarded".into(),
        },
    );
    let s = render(&mut app, 120, 30);
    assert!(s.contains("Intercept: 1 held"), "{s}");
    assert!(s.contains("held #1 forwarded"), "{s}");
    // Drop the other.
    assert_eq!(
        sent(key(&mut app, KeyCode::Char('d'))),
        vec![Ctl::Drop { id: 2 }]
    );
    report(
        &mut app,
        Report::Released {
            id: 2,
            how: "dropped".into(),
        },
    );
    let s = render(&mut app, 80, 24);
    assert!(s.contains("Nothing held"), "{s}");
    // Errors are said in the status line.
    report(
        &mut app,
        Report::Error {
            message: "no held message 9".into(),
        },
    );
    let s = render(&mut app, 120, 30);
    assert!(
        status_line(&s).contains("intercept: no held message 9"),
        "{s}"
    );
    // Esc closes the overlay; the indicator stays.
    key(&mut app, KeyCode::Esc);
    let s = render(&mut app, 80, 24);
    assert!(!s.contains("Intercept:"), "{s}");
    assert!(status_line(&s).contains("⏸ 0 held"), "{s}");
}

#[test]
fn a_breakpoint_that_does_not_parse_is_pointed_at_and_not_sent() {
    let sc = Scenario::new();
    let mut app = intercepting(&sc);
    app.apply(Action::Intercept);
    key(&mut app, KeyCode::Char('b'));
    // The field starts from the breakpoint in force.
    ctrl(&mut app, 'u');
    typed(&mut app, "in && method ==");
    let s = render(&mut app, 80, 24);
    assert!(s.contains("breakpoint: in && method ==█"), "{s}");
    assert!(s.contains("^ "), "{s}");
    assert!(sent(key(&mut app, KeyCode::Enter)).is_empty());
    typed(&mut app, " tools/call");
    let s = render(&mut app, 80, 24);
    assert!(!s.contains("^ "), "{s}");
    assert_eq!(
        sent(key(&mut app, KeyCode::Enter)),
        vec![Ctl::Break {
            filter: Some("in && method == tools/call".into())
        }]
    );
    assert_eq!(
        sent(key(&mut app, KeyCode::Char('B'))),
        vec![Ctl::Break { filter: None }]
    );
}

#[test]
fn edit_and_forge_go_through_the_editor_as_one_line_of_json() {
    let sc = Scenario::new();
    let mut app = intercepting(&sc);
    report(&mut app, held(4, Side::Host, RESPONSE, 0));
    app.apply(Action::Intercept);
    key(&mut app, KeyCode::Char('e'));
    let s = render(&mut app, 80, 24);
    assert!(s.contains("Edit held #4, then forward it"), "{s}");
    assert!(s.contains("\"jsonrpc\": \"2.0\","), "{s}");
    // Typing goes into the editor: the keys of the list are text here.
    typed(&mut app, "d");
    // Not JSON any more: said, and nothing sent.
    assert!(sent(ctrl(&mut app, 's')).is_empty());
    assert!(render(&mut app, 80, 24).contains("not JSON"));
    // Fixed, the error goes with the typing.
    key(&mut app, KeyCode::Backspace);
    assert!(!render(&mut app, 80, 24).contains("not JSON"));
    let got = sent(ctrl(&mut app, 's'));
    let [
        Ctl::Forward {
            id: 4,
            message: Some(m),
        },
    ] = got.as_slice()
    else {
        panic!("{got:?}");
    };
    assert!(!m.contains('\n'), "{m}");
    let a: Value = serde_json::from_str(m).unwrap();
    assert_eq!(a, serde_json::from_str::<Value>(RESPONSE).unwrap());
    // Forge: to the host first, Ctrl-O turns it to the server.
    key(&mut app, KeyCode::Char('n'));
    let s = render(&mut app, 120, 30);
    assert!(s.contains("Forge a message → host"), "{s}");
    assert!(s.contains("notifications/message"), "{s}");
    ctrl(&mut app, 'o');
    assert!(render(&mut app, 120, 30).contains("Forge a message → server"));
    let got = sent(ctrl(&mut app, 's'));
    assert_eq!(
        got,
        vec![Ctl::Forge {
            to: Side::Server,
            message: r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"forged"}}"#.into()
        }]
    );
}

#[test]
fn a_lost_connection_is_shown_and_nothing_stays_held() {
    let sc = Scenario::new();
    let mut app = intercepting(&sc);
    report(&mut app, held(1, Side::Host, RESPONSE, 0));
    app.on_msg(Msg::Intercept(Event::Closed(
        "the proxy closed the control connection".into(),
    )));
    let s = render(&mut app, 80, 24);
    assert!(status_line(&s).contains("⏸ intercept disconnected"), "{s}");
    app.apply(Action::Intercept);
    assert!(sent(key(&mut app, KeyCode::Char('n'))).is_empty());
    let s = render(&mut app, 80, 24);
    assert!(s.contains("Intercept: disconnected"), "{s}");
}

#[test]
fn without_intercept_the_key_says_how_to_get_it() {
    let sc = Scenario::new();
    let mut app = app(&sc);
    app.apply(Action::Intercept);
    let s = render(&mut app, 120, 30);
    assert!(s.contains("--intercept"), "{s}");
    assert!(!s.contains("⏸"), "{s}");
}

#[test]
fn a_long_breakpoint_is_cut_in_the_status_line_and_nothing_pads_it() {
    let sc = Scenario::new();
    let mut app = intercepting(&sc);
    let s = render(&mut app, 120, 30);
    // The keys follow the breakpoint at once.
    assert!(
        status_line(&s).contains("break: in && response I intercept"),
        "{s}"
    );
    report(
        &mut app,
        Report::Breakpoint {
            filter: Some("in && method == tools/call && tool == upload_file".into()),
        },
    );
    let s = render(&mut app, 120, 30);
    assert!(
        status_line(&s).contains("break: in && method == tools/call … I intercept"),
        "{s}"
    );
}

#[test]
fn a_broken_line_is_sent_as_typed_when_asked_twice() {
    let sc = Scenario::new();
    let mut app = intercepting(&sc);
    report(
        &mut app,
        held(5, Side::Host, r#"{"jsonrpc":"2.0","id":5,"result":{}}"#, 0),
    );
    app.apply(Action::Intercept);
    key(&mut app, KeyCode::Char('e'));
    // At the start of the text: `x{…`, no JSON.
    typed(&mut app, "x");
    assert!(sent(ctrl(&mut app, 's')).is_empty());
    let s = render(&mut app, 80, 24);
    assert!(s.contains("not JSON, sent as typed if sent again"), "{s}");
    let got = sent(ctrl(&mut app, 's'));
    let [
        Ctl::Forward {
            id: 5,
            message: Some(m),
        },
    ] = got.as_slice()
    else {
        panic!("{got:?}");
    };
    assert!(m.starts_with("x{"), "{m}");
}

/// The recording has the response the proxy read, so the call reads as
/// done: its Progress row says the result is held (and for how long) until
/// the proxy releases it; a held request says so too.
#[test]
fn a_call_whose_result_or_request_is_held_says_so_in_progress() {
    let sc = Scenario::new();
    let mut app = intercepting(&sc);
    sc.at_ms(1_000).call(2, "echo", json!({}), None);
    sc.at_ms(1_200).result(2, "hi", false);
    sc.at_ms(1_300).call(3, "slow", json!({}), None);
    app.sync();
    sc.at_ms(1_250);
    report(&mut app, held(1, Side::Host, RESPONSE, 0));
    report(
        &mut app,
        held(
            2,
            Side::Server,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow"}}"#,
            0,
        ),
    );
    // A server's request to the host with the same id is no call of the host's.
    report(
        &mut app,
        held(
            3,
            Side::Host,
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
            0,
        ),
    );
    sc.at_ms(4_250);
    for (w, h) in [(80, 24), (120, 30), (160, 48)] {
        let s = render(&mut app, w, h);
        let echo = s.lines().find(|l| l.contains("echo")).unwrap_or("");
        assert!(echo.contains("⏸ result held 3.0s"), "{w}x{h}\n{s}");
        let slow = s.lines().find(|l| l.contains("slow")).unwrap_or("");
        assert!(slow.contains("⏸ request held 3.0s"), "{w}x{h}\n{s}");
    }
    report(
        &mut app,
        Report::Released {
            id: 1,
            how: "forwarded".into(),
        },
    );
    let s = render(&mut app, 160, 48);
    assert!(!s.contains("result held"), "{s}");
    assert!(s.contains("request held"), "{s}");
}
