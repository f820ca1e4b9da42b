//! What `proxy --faults` changed on the way (the `injected` events) is
//! blamed on neither party: each is judged on what it really received.
//! Every case runs twice: with the `injected` event beside the frames (the
//! proxy did it: no finding), and without it (the same frames, nothing
//! changed on the way: the party did it, and the rule fires).

use mcpscope::checks::{CheckConfig, Checker, Finding, Rule};
use mcpscope::trace::{Dir, Store};
use serde_json::json;

/// (time in ms, direction, frame or meta event)
type Ev = (u64, &'static str, String);

fn check(events: &[Ev]) -> Vec<Finding> {
    let mut s = Store::default();
    for (t, d, f) in events {
        s.append_recorded(
            Dir::parse(d).unwrap(),
            "stdio",
            t * 1000,
            f.as_bytes(),
            false,
        );
    }
    let mut c = Checker::new(CheckConfig {
        tokenless_by_choice: true,
        ..CheckConfig::default()
    });
    let mut out = Vec::new();
    for ev in s.range(0, s.next_seq()) {
        c.observe(&ev, &mut out);
    }
    c.finish(&mut out);
    out
}

/// The rules found, in order.
fn rules(events: &[Ev]) -> Vec<Rule> {
    check(events).iter().map(|f| f.rule).collect()
}

/// `events` without their `injected` events: what the same frames mean
/// when nothing was changed on the way.
fn uninjected(events: &[Ev]) -> Vec<Ev> {
    events
        .iter()
        .filter(|(_, d, f)| !(*d == "meta" && f.contains("\"injected\"")))
        .cloned()
        .collect()
}

fn inj(
    stream: &str,
    action: &str,
    original: &str,
    sent: Option<&str>,
    detail: Option<&str>,
) -> String {
    let mut v = json!({"event": "injected", "rule": 1, "source": "faults.toml",
        "action": action, "stream": stream, "original": original});
    if let Some(s) = sent {
        v["sent"] = json!(s);
    }
    if let Some(d) = detail {
        v["detail"] = json!(d);
    }
    v.to_string()
}

const TO_SERVER: &str = "host→server";
const TO_HOST: &str = "server→host";

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#;
const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":"t"}}}"#;
const CALL_RENAMED: &str = r#"{"id":"1-wrong-id","jsonrpc":"2.0","method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":"t"}}}"#;
const DONE: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}"#;
const DONE_RENAMED: &str =
    r#"{"jsonrpc":"2.0","id":"1-wrong-id","result":{"content":[],"isError":false}}"#;
const CANCEL: &str =
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#;
const PARSE_ERROR: &str =
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#;

fn p(n: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"t","progress":{n}}}}}"#
    )
}

fn session(rest: &[(u64, &'static str, String)]) -> Vec<Ev> {
    let mut v: Vec<Ev> = vec![
        (0, "out", INIT.into()),
        (5, "in", INIT_OK.into()),
        (10, "out", CALL.into()),
    ];
    v.extend(rest.iter().cloned());
    v
}

#[test]
fn a_request_whose_id_the_proxy_changed_is_answered_by_the_id_the_server_got() {
    let events = session(&[
        (
            10,
            "meta",
            inj(
                TO_SERVER,
                "corrupt",
                CALL,
                Some(CALL_RENAMED),
                Some("wrong-id"),
            ),
        ),
        (20, "in", p(1)),
        (30, "in", DONE_RENAMED.into()),
    ]);
    assert_eq!(rules(&events), Vec::<Rule>::new());
    // The same answer to a request the server got as sent is its own error.
    assert_eq!(rules(&uninjected(&events)), vec![Rule::ResponseUnknownId]);
    // The host never got an answer to its request 1: cancelling it is no
    // cancel of a finished request.
    let mut cancelled = events.clone();
    cancelled.push((3000, "out", CANCEL.into()));
    assert_eq!(rules(&cancelled), Vec::<Rule>::new());
}

#[test]
fn answering_the_id_the_host_sent_when_the_server_got_another_is_still_wrong() {
    let events = session(&[
        (
            10,
            "meta",
            inj(
                TO_SERVER,
                "corrupt",
                CALL,
                Some(CALL_RENAMED),
                Some("wrong-id"),
            ),
        ),
        (30, "in", DONE.into()),
    ]);
    let found = check(&events);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule, Rule::ResponseUnknownId);
    assert!(
        found[0].message.contains("never got"),
        "{}",
        found[0].message
    );
}

#[test]
fn a_request_the_proxy_dropped_is_no_silence_of_the_servers() {
    // The last event is 40 s on: past the stall threshold (30 s).
    let events = session(&[
        (10, "meta", inj(TO_SERVER, "drop", CALL, None, None)),
        (
            40_000,
            "out",
            r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#.into(),
        ),
    ]);
    assert_eq!(rules(&events), Vec::<Rule>::new());
    assert_eq!(rules(&uninjected(&events)), vec![Rule::ProgressStalled]);
    // An answer to what the server never got is its own error.
    let mut answered = events.clone();
    answered.insert(4, (30, "in", DONE.into()));
    assert_eq!(rules(&answered), vec![Rule::ResponseUnknownId]);
}

/// Over HTTP a `status` rule answers the host's request in the server's
/// place: the server never got it, as with a drop.
#[test]
fn a_request_the_proxy_answered_with_a_status_is_no_silence_of_the_servers() {
    let events = session(&[
        (
            10,
            "meta",
            inj(
                TO_SERVER,
                "status",
                CALL,
                None,
                Some("answered HTTP 503 in the server's place"),
            ),
        ),
        (
            40_000,
            "out",
            r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#.into(),
        ),
    ]);
    assert_eq!(rules(&events), Vec::<Rule>::new());
    assert_eq!(rules(&uninjected(&events)), vec![Rule::ProgressStalled]);
}

#[test]
fn a_request_the_proxy_sent_twice_is_answered_twice() {
    let events = session(&[
        (
            10,
            "meta",
            inj(TO_SERVER, "duplicate", CALL, None, Some("sent twice")),
        ),
        (20, "in", p(1)),
        (21, "in", p(1)),
        (30, "in", p(2)),
        (31, "in", DONE.into()),
        (40, "in", p(2)),
        (41, "in", DONE.into()),
    ]);
    assert_eq!(rules(&events), Vec::<Rule>::new());
    let found = rules(&uninjected(&events));
    for r in [
        Rule::ProgressNotIncreasing,
        Rule::ProgressAfterResponse,
        Rule::ResponseDuplicate,
    ] {
        assert!(found.contains(&r), "{r:?} not in {found:?}");
    }
    // A third answer is one more than the server was sent.
    let mut thrice = events.clone();
    thrice.push((50, "in", DONE.into()));
    assert_eq!(rules(&thrice), vec![Rule::ResponseDuplicate]);
}

#[test]
fn a_parse_error_for_a_line_the_proxy_broke_is_the_right_answer() {
    for how in ["invalid-json", "cut"] {
        let broken = CALL.replacen(':', "=", 1);
        let events = session(&[
            (
                10,
                "meta",
                inj(TO_SERVER, "corrupt", CALL, Some(&broken), Some(how)),
            ),
            (20, "in", PARSE_ERROR.into()),
        ]);
        assert_eq!(rules(&events), Vec::<Rule>::new(), "{how}");
        assert_eq!(rules(&uninjected(&events)), vec![Rule::ResponseNullId]);
        // One broken line excuses one parse error, not two.
        let mut twice = events.clone();
        twice.push((30, "in", PARSE_ERROR.into()));
        assert_eq!(rules(&twice), vec![Rule::ResponseNullId], "{how}");
    }
}

#[test]
fn a_cancel_the_proxy_dropped_never_reached_the_server() {
    let events = session(&[
        (100, "out", CANCEL.into()),
        (100, "meta", inj(TO_SERVER, "drop", CANCEL, None, None)),
        (5000, "in", p(1)),
        (5100, "in", DONE.into()),
    ]);
    assert_eq!(rules(&events), Vec::<Rule>::new());
    let found = rules(&uninjected(&events));
    assert!(found.contains(&Rule::ResponseAfterCancel), "{found:?}");
    assert!(found.contains(&Rule::ProgressAfterResponse), "{found:?}");
}

#[test]
fn a_response_the_host_never_got_may_be_cancelled() {
    let events = session(&[
        (20, "in", DONE.into()),
        (20, "meta", inj(TO_HOST, "drop", DONE, None, None)),
        (5000, "out", CANCEL.into()),
    ]);
    assert_eq!(rules(&events), Vec::<Rule>::new());
    assert_eq!(
        rules(&uninjected(&events)),
        vec![Rule::ClientCancelUnknownRequest]
    );
}

#[test]
fn a_server_request_whose_id_the_proxy_changed_is_answered_by_the_id_the_host_got() {
    const PING: &str = r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#;
    const PING_RENAMED: &str = r#"{"id":"7-wrong-id","jsonrpc":"2.0","method":"ping"}"#;
    let events = session(&[
        (20, "in", PING.into()),
        (
            20,
            "meta",
            inj(
                TO_HOST,
                "corrupt",
                PING,
                Some(PING_RENAMED),
                Some("wrong-id"),
            ),
        ),
        (
            30,
            "out",
            r#"{"jsonrpc":"2.0","id":"7-wrong-id","result":{}}"#.into(),
        ),
        (40, "in", DONE.into()),
    ]);
    assert_eq!(rules(&events), Vec::<Rule>::new());
    assert_eq!(
        rules(&uninjected(&events)),
        vec![Rule::ClientResponseUnknownId]
    );
}

/// `forge` (`server-request-storm`): the host got a request the server
/// never sent, and answered it; the answer was kept from the server.
#[test]
fn a_request_the_proxy_forged_is_answered_by_the_host_it_reached() {
    const FORGED: &str = r#"{"jsonrpc":"2.0","id":"mcpscope-forged-1","method":"ping"}"#;
    const ANSWER: &str = r#"{"jsonrpc":"2.0","id":"mcpscope-forged-1","result":{}}"#;
    let events = session(&[
        (
            20,
            "meta",
            inj(
                TO_HOST,
                "forge",
                FORGED,
                Some(FORGED),
                Some("forged by rule 1 (1 of 1)"),
            ),
        ),
        (30, "out", ANSWER.into()),
        (
            30,
            "meta",
            inj(
                TO_SERVER,
                "forge",
                ANSWER,
                None,
                Some("the host's answer to a forged request, kept from the server"),
            ),
        ),
        (40, "in", DONE.into()),
    ]);
    assert_eq!(rules(&events), Vec::<Rule>::new());
    assert_eq!(
        rules(&uninjected(&events)),
        vec![Rule::ClientResponseUnknownId]
    );
}

#[test]
fn requests_after_the_proxy_closed_the_servers_input_never_reached_it() {
    let events = session(&[
        (
            10,
            "meta",
            inj(
                TO_SERVER,
                "close",
                CALL,
                None,
                Some("closed the stream towards the server"),
            ),
        ),
        (
            20,
            "out",
            CALL.replace("\"id\":1", "\"id\":2")
                .replace("\"t\"", "\"u\""),
        ),
        (
            40_000,
            "out",
            r#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#.into(),
        ),
    ]);
    assert_eq!(rules(&events), Vec::<Rule>::new());
    let found = rules(&uninjected(&events));
    assert_eq!(found, vec![Rule::ProgressStalled, Rule::ProgressStalled]);
}
