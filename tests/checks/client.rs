//! The client-side rules' edges over hand-written event sequences with
//! explicit timestamps (the trace's clock): grace windows at and past their
//! bounds, in flight versus finished, what the client recorded about its
//! own requests, and the bounds of the state kept about server requests.

use mcpscope::checks::{CheckConfig, Checker, Finding, Party, Rule, Severity};
use mcpscope::protocol::IdKey;
use mcpscope::trace::{Dir, Store};

/// (time in ms, direction, frame)
type Ev = (u64, &'static str, String);

fn run(events: &[Ev], cfg: CheckConfig) -> Vec<Finding> {
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
    let mut c = Checker::new(cfg);
    let mut out = Vec::new();
    for ev in s.range(0, s.next_seq()) {
        c.observe(&ev, &mut out);
    }
    c.finish(&mut out);
    out
}

/// Only the client findings, as (rule, seqs).
fn client(events: &[Ev]) -> Vec<(Rule, Vec<u64>)> {
    client_with(events, CheckConfig::default())
}

fn client_with(events: &[Ev], cfg: CheckConfig) -> Vec<(Rule, Vec<u64>)> {
    run(events, cfg)
        .into_iter()
        .filter(|f| f.party == Party::Client)
        .map(|f| (f.rule, f.seqs))
        .collect()
}

fn init() -> String {
    r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#.into()
}

fn init_ok(logging: bool) -> String {
    let caps = if logging {
        r#"{"logging":{},"tools":{}}"#
    } else {
        r#"{"tools":{}}"#
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"result":{{"protocolVersion":"2025-11-25","capabilities":{caps},"serverInfo":{{"name":"s","version":"1"}}}}}}"#
    )
}

fn call(id: i64, token: Option<&str>) -> String {
    match token {
        Some(t) => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"x","arguments":{{}},"_meta":{{"progressToken":"{t}"}}}}}}"#
        ),
        None => format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"x","arguments":{{}}}}}}"#
        ),
    }
}

fn done(id: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[]}}}}"#)
}

fn cancel(id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id}}}}}"#
    )
}

fn progress(token: &str, p: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"{token}","progress":{p}}}}}"#
    )
}

fn meta(json: &str) -> String {
    json.into()
}

fn handshake(logging: bool) -> Vec<Ev> {
    vec![(0, "out", init()), (1, "in", init_ok(logging))]
}

#[test]
fn every_client_rule_is_of_the_client_party() {
    let f = run(&[(0, "out", call(1, None))], CheckConfig::default());
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].rule, Rule::ClientNoProgressToken);
    assert_eq!(f[0].severity, Severity::Info);
    assert_eq!(f[0].party, Party::Client);
    assert_eq!(f[0].request_id, Some(IdKey::Int(1)));
    let json = serde_json::to_value(&f[0]).unwrap();
    assert_eq!(json["party"], "client");
    assert!(
        f[0].to_string()
            .starts_with("client-no-progress-token (info) #0: "),
        "{}",
        f[0]
    );
}

#[test]
fn cancel_grace_window_at_and_past_its_bound() {
    let at = |ms: u64| {
        let mut e = handshake(true);
        e.extend([
            (10, "out", call(1, Some("a"))),
            (20, "in", done("1")),
            (20 + ms, "out", cancel("1")),
        ]);
        client(&e)
    };
    assert_eq!(at(0), vec![]);
    assert_eq!(at(250), vec![], "at the 250 ms bound");
    assert_eq!(
        at(251),
        vec![(Rule::ClientCancelUnknownRequest, vec![3, 4])]
    );
    // Configurable: a slow host may be given longer.
    let mut e = handshake(true);
    e.extend([
        (10, "out", call(1, Some("a"))),
        (20, "in", done("1")),
        (1020, "out", cancel("1")),
    ]);
    let cfg = CheckConfig {
        cancel_race_us: 2_000_000,
        ..CheckConfig::default()
    };
    assert_eq!(client_with(&e, cfg), vec![]);
    // In flight: a cancel is what it is for.
    let mut e = handshake(true);
    e.extend([(10, "out", call(1, Some("a"))), (20, "out", cancel("1"))]);
    assert_eq!(client(&e), vec![]);
    // A second cancel of one in flight is no unknown request either.
    e.push((30, "out", cancel("1")));
    assert_eq!(client(&e), vec![]);
    // Never sent, with a string id.
    assert_eq!(
        client(&[(0, "out", cancel("\"zz\""))]),
        vec![(Rule::ClientCancelUnknownRequest, vec![0])]
    );
}

#[test]
fn reuse_is_judged_against_requests_in_flight_only() {
    let mut e = handshake(true);
    e.extend([
        (10, "out", call(1, Some("a"))),
        (20, "in", done("1")),
        (30, "out", call(1, Some("a"))),
    ]);
    assert_eq!(client(&e), vec![], "the first had finished");
    // Cancelled long ago: no response can still be racing.
    let mut e = handshake(true);
    e.extend([
        (10, "out", call(1, Some("a"))),
        (20, "out", cancel("1")),
        (1000, "out", call(1, Some("a"))),
    ]);
    assert_eq!(client(&e), vec![]);
    // Cancelled just now: its response may still come, under the same id.
    let mut e = handshake(true);
    e.extend([
        (10, "out", call(1, Some("a"))),
        (20, "out", cancel("1")),
        (30, "out", call(1, Some("a"))),
    ]);
    assert_eq!(
        client(&e),
        vec![
            (Rule::ClientRequestIdReused, vec![2, 4]),
            (Rule::ClientDuplicateProgressToken, vec![2, 4]),
        ]
    );
}

#[test]
fn what_the_client_recorded_about_its_own_requests() {
    // mcpscope's own timeout: the meta event, then the cancel. Its idle
    // timeout resets on progress and its cap is the maximum, so the
    // cancel is deliberate even with progress just before it.
    let timeout =
        meta(r#"{"event":"timeout","request":1,"method":"tools/call","limit":"max","secs":1.0}"#);
    let mut e = handshake(true);
    e.extend([
        (10, "out", call(1, Some("a"))),
        (500, "in", progress("a", 1)),
        (1010, "meta", timeout),
        (1010, "out", cancel("1")),
    ]);
    assert_eq!(client(&e), vec![]);
    // The same without the meta event: a host whose timeout ignored progress.
    e.remove(4);
    assert_eq!(
        client(&e),
        vec![(Rule::ClientCancelledDuringProgress, vec![3, 4])]
    );
    // A lost session: what was in flight is gone, and its retry may carry
    // the same token.
    let reinit = meta(r#"{"event":"reinitialize","reason":"session expired"}"#);
    let mut e = handshake(true);
    e.extend([
        (10, "out", call(1, Some("a"))),
        (20, "meta", reinit),
        (30, "out", call(2, Some("a"))),
    ]);
    assert_eq!(client(&e), vec![]);
}

#[test]
fn progress_window_before_a_cancel() {
    let at = |gap: u64| {
        let mut e = handshake(true);
        e.extend([
            (10, "out", call(1, Some("a"))),
            (100, "in", progress("a", 1)),
            (100 + gap, "out", cancel("1")),
        ]);
        client(&e)
    };
    assert_eq!(
        at(2000),
        vec![(Rule::ClientCancelledDuringProgress, vec![3, 4])]
    );
    assert_eq!(at(2001), vec![]);
    // No progress at all: nothing shows the request alive.
    let mut e = handshake(true);
    e.extend([(10, "out", call(1, Some("a"))), (20, "out", cancel("1"))]);
    assert_eq!(client(&e), vec![]);
}

#[test]
fn set_level_against_the_declared_capabilities() {
    let set = r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}"#;
    let mut e = handshake(false);
    e.push((10, "out", set.into()));
    assert_eq!(
        client(&e),
        vec![(Rule::ClientSetlevelWithoutCapability, vec![1, 2])]
    );
    let mut e = handshake(true);
    e.push((10, "out", set.into()));
    assert_eq!(client(&e), vec![]);
    // Capabilities not known (no handshake seen): nothing to judge by.
    assert_eq!(client(&[(0, "out", set.into())]), vec![]);
}

#[test]
fn tokenless_calls_by_choice_and_the_cap() {
    let mut e = handshake(true);
    for i in 1..=15 {
        e.push((10 + i as u64, "out", call(i, None)));
    }
    let f = client(&e);
    assert_eq!(f.len(), 10, "max_per_key caps a session's worth");
    assert!(f.iter().all(|(r, _)| *r == Rule::ClientNoProgressToken));
    let cfg = CheckConfig {
        tokenless_by_choice: true,
        ..CheckConfig::default()
    };
    assert_eq!(client_with(&e, cfg), vec![]);
    let mut c = Checker::new(CheckConfig::default());
    let mut s = Store::default();
    for (t, d, f) in &e {
        s.append_recorded(
            Dir::parse(d).unwrap(),
            "stdio",
            t * 1000,
            f.as_bytes(),
            false,
        );
    }
    let mut out = Vec::new();
    for ev in s.range(0, s.next_seq()) {
        c.observe(&ev, &mut out);
    }
    assert_eq!(c.suppressed().get(&Rule::ClientNoProgressToken), Some(&5));
}

#[test]
fn answers_to_server_requests() {
    let ask = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"roots/list"}}"#);
    let answer = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"roots":[]}}}}"#);
    let mut e = handshake(true);
    e.extend([
        (10, "in", ask("7")),
        (11, "out", answer("7")),
        // A second answer is not "never sent".
        (12, "out", answer("7")),
        (13, "out", answer("8")),
        // An error answer to one never sent counts too; `id: null` does not.
        (
            14,
            "out",
            r#"{"jsonrpc":"2.0","id":"q","error":{"code":-32601,"message":"no"}}"#.into(),
        ),
        (
            15,
            "out",
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}"#.into(),
        ),
    ]);
    assert_eq!(
        client(&e),
        vec![
            (Rule::ClientResponseUnknownId, vec![5]),
            (Rule::ClientResponseUnknownId, vec![6]),
        ]
    );
}

#[test]
fn server_requests_kept_are_bounded() {
    // A server sending requests it never sees answered: the state stays
    // bounded, and once ids were forgotten an unknown answer proves
    // nothing, so it is not reported.
    let mut s = Store::default();
    let n = 70_000u64;
    for i in 0..n {
        let f = format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"ping"}}"#);
        s.append_recorded(Dir::In, "stdio", i, f.as_bytes(), false);
    }
    let a = r#"{"jsonrpc":"2.0","id":"never","result":{}}"#;
    s.append_recorded(Dir::Out, "stdio", n, a.as_bytes(), false);
    let mut c = Checker::new(CheckConfig::default());
    let mut out = Vec::new();
    for ev in s.range(0, s.next_seq()) {
        c.observe(&ev, &mut out);
    }
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(c.client_unjudged(), 1);
    assert!(c.server_requests_kept() <= 4096);
}

#[test]
fn cancelling_initialize() {
    let e = vec![
        (0, "out", init()),
        (5, "out", cancel("0")),
        (6, "in", init_ok(true)),
    ];
    assert_eq!(client(&e), vec![(Rule::ClientCancelInitialize, vec![0, 1])]);
}

#[test]
fn mcpscopes_own_live_session() {
    // Live, mcpscope knows it is the client: a tokenless call was the
    // user's `--token none`, a cancel not recorded as a timeout the user's.
    let mut e = handshake(true);
    e.extend([
        (10, "out", call(1, None)),
        (20, "out", call(2, Some("a"))),
        (100, "in", progress("a", 1)),
        (200, "out", cancel("2")),
    ]);
    assert_eq!(
        client(&e),
        vec![
            (Rule::ClientNoProgressToken, vec![2]),
            (Rule::ClientCancelledDuringProgress, vec![4, 5]),
        ]
    );
    let own = CheckConfig {
        own_client: true,
        ..CheckConfig::default()
    };
    assert_eq!(client_with(&e, own.clone()), vec![]);
    // What it does not excuse: reusing an id or a token, cancelling
    // initialize or a request never sent.
    let mut e = handshake(true);
    e.extend([
        (10, "out", call(1, Some("a"))),
        (11, "out", call(1, Some("a"))),
        (12, "out", cancel("0")),
        (13, "out", cancel("9")),
    ]);
    let rules: Vec<Rule> = client_with(&e, own).into_iter().map(|(r, _)| r).collect();
    assert_eq!(
        rules,
        vec![
            Rule::ClientRequestIdReused,
            Rule::ClientDuplicateProgressToken,
            Rule::ClientCancelInitialize,
            Rule::ClientCancelUnknownRequest,
        ]
    );
}

/// Every finding of `events` as the live checks and `check` judge a trace:
/// the session engines, as (rule, seqs).
fn sessions(events: &[Ev]) -> Vec<(Rule, Vec<u64>)> {
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
    let mut c = mcpscope::checks::Sessions::new(CheckConfig::default());
    let mut out = Vec::new();
    for ev in s.range(0, s.next_seq()) {
        c.observe(&ev, &mut out);
    }
    c.finish(&mut out);
    out.into_iter().map(|f| (f.rule, f.seqs)).collect()
}

#[test]
fn a_restart_starts_a_session_of_its_own_for_the_checks() {
    // A call in flight when the server dies; the user restarts it, and the
    // new session's handshake and first call use what the old one used.
    let mut e = handshake(true);
    e.extend([
        (10, "out", call(1, Some("a"))),
        (20, "in", progress("a", 1)),
        (
            30,
            "meta",
            meta(r#"{"event":"exit","code":70,"signal":null}"#),
        ),
    ]);
    let second = [
        (50, "out", init()),
        (51, "in", init_ok(true)),
        (60, "out", call(1, Some("a"))),
        (70, "in", progress("a", 1)),
        (80, "in", done("1")),
    ];
    let mut without = e.clone();
    without.extend(second.iter().cloned());
    assert!(
        sessions(&without)
            .iter()
            .any(|(r, _)| *r == Rule::ClientRequestIdReused),
        "one session: the id is used twice"
    );
    let mut restarted = e;
    restarted.push((40, "meta", meta(r#"{"event":"restart","attempt":1}"#)));
    restarted.extend(second);
    assert_eq!(sessions(&restarted), vec![], "a new session");
}
