//! Every rule of the catalog against hand-written event sequences with
//! explicit timestamps: a positive case naming the proving frames, and a
//! negative case that must stay silent. The stall rule's live tick runs on a
//! `ManualClock`, so nothing here sleeps.

use mcpscope::checks::{CheckConfig, Checker, Finding, LiveChecks, Rule, Severity};
use mcpscope::protocol::{Era, IdKey};
use mcpscope::trace::{Dir, ManualClock, Store, Trace};

/// (time in ms, direction, channel, frame)
type Ev<'a> = (u64, &'a str, &'a str, &'a str);

fn dir(d: &str) -> Dir {
    Dir::parse(d).expect("dir")
}

fn store(events: &[Ev<'_>]) -> Store {
    let mut s = Store::default();
    for (t, d, ch, f) in events {
        s.append_recorded(dir(d), ch, t * 1000, f.as_bytes(), false);
    }
    s
}

fn check_with(events: &[Ev<'_>], cfg: CheckConfig) -> Vec<Finding> {
    let s = store(events);
    let mut c = Checker::new(cfg);
    let mut out = Vec::new();
    for ev in s.range(0, s.next_seq()) {
        c.observe(&ev, &mut out);
    }
    c.finish(&mut out);
    out
}

/// The calls here that carry no progress token do so on purpose (the
/// scenario is about the server), as with `--token none`; the client-side
/// rule about that is tested in `client.rs`.
fn check(events: &[Ev<'_>]) -> Vec<Finding> {
    check_with(
        events,
        CheckConfig {
            tokenless_by_choice: true,
            ..CheckConfig::default()
        },
    )
}

fn only(findings: &[Finding], rule: Rule) -> Vec<&Finding> {
    findings.iter().filter(|f| f.rule == rule).collect()
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;
const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"logging":{},"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#;
const INIT_NO_LOGGING: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#;
const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"progressToken":"t"}}}"#;
const CALL_NO_TOKEN: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}"#;
const DONE: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}"#;

fn p(progress: &str, total: Option<&str>) -> String {
    match total {
        Some(t) => format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"t","progress":{progress},"total":{t},"message":"m"}}}}"#
        ),
        None => format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"t","progress":{progress}}}}}"#
        ),
    }
}

fn log(level: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"{level}","logger":"l","data":"d"}}}}"#
    )
}

/// Handshake, then a call with token "t": seqs 0..=2.
fn call_with<'a>(rest: &[(u64, &'a str, &'a str, &'a str)]) -> Vec<Ev<'a>> {
    let mut v = vec![
        (0, "out", "stdio", INIT),
        (1, "in", "stdio", INIT_OK),
        (2, "out", "stdio", CALL),
    ];
    v.extend_from_slice(rest);
    v
}

#[test]
fn progress_not_increasing() {
    let (a, b, c) = (p("1", Some("5")), p("3", Some("5")), p("2", Some("5")));
    let f = check(&call_with(&[
        (3, "in", "stdio", &a),
        (4, "in", "stdio", &b),
        (5, "in", "stdio", &c),
        (6, "in", "stdio", DONE),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::ProgressNotIncreasing);
    assert_eq!(f[0].severity, Severity::Error);
    assert_eq!(f[0].seqs, vec![4, 5]);
    assert_eq!(f[0].token, Some(IdKey::Str("t".into())));
    assert_eq!(f[0].request_id, Some(IdKey::Int(1)));
    assert!(f[0].message.contains("from 3 to 2"), "{}", f[0].message);

    // Floats that increase, and an equal value (which is not an increase).
    let (a, b) = (p("0.5", None), p("1.5", None));
    assert!(
        check(&call_with(&[
            (3, "in", "stdio", &a),
            (4, "in", "stdio", &b)
        ]))
        .is_empty()
    );
    let f = check(&call_with(&[
        (3, "in", "stdio", &b),
        (4, "in", "stdio", &b),
    ]));
    assert_eq!(only(&f, Rule::ProgressNotIncreasing)[0].seqs, vec![3, 4]);
}

#[test]
fn token_reuse_starts_a_new_stream() {
    let call2 = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}"#;
    let (one, two) = (p("1", Some("2")), p("2", Some("2")));
    let f = check(&call_with(&[
        (3, "in", "stdio", &one),
        (4, "in", "stdio", &two),
        (5, "in", "stdio", DONE),
        (6, "out", "stdio", call2),
        (7, "in", "stdio", &one),
        (8, "in", "stdio", r#"{"jsonrpc":"2.0","id":2,"result":{}}"#),
    ]));
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn progress_after_response_and_after_cancel() {
    let a = p("1", None);
    let f = check(&call_with(&[
        (3, "in", "stdio", DONE),
        (4, "in", "stdio", &a),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::ProgressAfterResponse);
    assert_eq!(f[0].seqs, vec![3, 4]);
    assert!(
        check(&call_with(&[
            (3, "in", "stdio", &a),
            (4, "in", "stdio", DONE)
        ]))
        .is_empty()
    );

    let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"r"}}"#;
    let b = p("2", None);
    // In flight when we cancelled: fine. Two seconds later: the server ignored it.
    let f = check(&call_with(&[
        (100, "out", "stdio", cancel),
        (150, "in", "stdio", &a),
        (2100, "in", "stdio", &b),
    ]));
    let after = only(&f, Rule::ProgressAfterResponse);
    assert_eq!(after.len(), 1, "{f:?}");
    assert_eq!(after[0].seqs, vec![3, 5]);
}

#[test]
fn progress_unknown_token() {
    let other = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"nobody","progress":1}}"#;
    let f = check(&call_with(&[(3, "in", "stdio", other)]));
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].rule, Rule::ProgressUnknownToken);
    assert_eq!(f[0].seqs, vec![3]);
    assert_eq!(f[0].token, Some(IdKey::Str("nobody".into())));
    // Integer 7 and string "7" are different tokens.
    let call7 = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7}}}"#;
    let str7 = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"7","progress":1}}"#;
    let int7 = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}"#;
    let f = check(&[
        (0, "out", "stdio", call7),
        (1, "in", "stdio", int7),
        (2, "in", "stdio", str7),
    ]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].seqs, vec![2]);
    // Progress for a request sent without a token.
    let t = p("1", None);
    let f = check(&[(0, "out", "stdio", CALL_NO_TOKEN), (1, "in", "stdio", &t)]);
    assert_eq!(f[0].rule, Rule::ProgressUnknownToken);
}

#[test]
fn progress_invalid() {
    for bad in [
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1.5,"progress":1}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":"1"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":"9"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"message":3}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#,
    ] {
        let f = check(&call_with(&[(3, "in", "stdio", bad)]));
        assert_eq!(f.len(), 1, "{bad}: {f:?}");
        assert_eq!(f[0].rule, Rule::ProgressInvalid);
        assert_eq!(f[0].seqs, vec![3]);
    }
    let ok = p("1", Some("2"));
    assert!(check(&call_with(&[(3, "in", "stdio", &ok)])).is_empty());
}

#[test]
fn progress_exceeds_and_total_changed() {
    let (a, b, c) = (p("5", Some("10")), p("11", Some("10")), p("12", Some("20")));
    let f = check(&call_with(&[
        (3, "in", "stdio", &a),
        (4, "in", "stdio", &b),
        (5, "in", "stdio", &c),
    ]));
    let ex = only(&f, Rule::ProgressExceedsTotal);
    assert_eq!(ex.len(), 1, "{f:?}");
    assert_eq!(ex[0].seqs, vec![4]);
    assert_eq!(ex[0].severity, Severity::Warning);
    let ch = only(&f, Rule::ProgressTotalChanged);
    assert_eq!(ch.len(), 1);
    assert_eq!(ch[0].seqs, vec![4, 5]);

    // progress == total is fine; a total that appears later is not a change.
    let (a, b, c) = (p("1", None), p("5", Some("10")), p("10", Some("10")));
    assert!(
        check(&call_with(&[
            (3, "in", "stdio", &a),
            (4, "in", "stdio", &b),
            (5, "in", "stdio", &c),
        ]))
        .is_empty()
    );
}

#[test]
fn progress_flood_is_a_sliding_window() {
    let lines: Vec<String> = (1..=60).map(|i| p(&i.to_string(), Some("60"))).collect();
    // 60 notifications 1 ms apart: the 51st lands within 1 s of the 1st.
    let mut evs = call_with(&[]);
    for (i, l) in lines.iter().enumerate() {
        evs.push((10 + i as u64, "in", "stdio", l));
    }
    let f = check(&evs);
    let fl = only(&f, Rule::ProgressFlood);
    assert_eq!(fl.len(), 1, "{f:?}");
    assert_eq!(fl[0].seqs, vec![3, 53]);
    // The same 60 spread 25 ms apart (40/s): no flood.
    let mut evs = call_with(&[]);
    for (i, l) in lines.iter().enumerate() {
        evs.push((10 + 25 * i as u64, "in", "stdio", l));
    }
    assert!(check(&evs).is_empty());
    // A higher configured rate lets the burst through.
    let mut evs = call_with(&[]);
    for (i, l) in lines.iter().enumerate() {
        evs.push((10 + i as u64, "in", "stdio", l));
    }
    let cfg = CheckConfig {
        flood_rate: 100.0,
        ..CheckConfig::default()
    };
    assert!(check_with(&evs, cfg).is_empty());
}

#[test]
fn progress_buffered() {
    let (a, b, c) = (p("1", Some("3")), p("2", Some("3")), p("3", Some("3")));
    let f = check(&call_with(&[
        (1500, "in", "stdio", &a),
        (1500, "in", "stdio", &b),
        (1501, "in", "stdio", &c),
        (1520, "in", "stdio", DONE),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::ProgressBuffered);
    assert_eq!(f[0].seqs, vec![2, 3, 5, 6]);
    // Live progress over the same call: fine.
    assert!(
        check(&call_with(&[
            (300, "in", "stdio", &a),
            (800, "in", "stdio", &b),
            (1300, "in", "stdio", &c),
            (1520, "in", "stdio", DONE),
        ]))
        .is_empty()
    );
    // A late start, then live progress 10 ms apart: a burst, not a buffer.
    assert!(
        check(&call_with(&[
            (1500, "in", "stdio", &a),
            (1510, "in", "stdio", &b),
            (1520, "in", "stdio", &c),
            (1525, "in", "stdio", DONE),
        ]))
        .is_empty()
    );
    // A quick call may well deliver everything at once.
    assert!(
        check(&call_with(&[
            (500, "in", "stdio", &a),
            (500, "in", "stdio", &b),
            (510, "in", "stdio", DONE),
        ]))
        .is_empty()
    );
}

#[test]
fn progress_stalled_offline() {
    let (a, b) = (p("1", None), p("2", None));
    let f = check(&call_with(&[
        (10_000, "in", "stdio", &a),
        (45_000, "in", "stdio", &b),
        (46_000, "in", "stdio", DONE),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::ProgressStalled);
    assert_eq!(f[0].severity, Severity::Info);
    assert_eq!(f[0].seqs, vec![3, 4]);
    // Heartbeats every 20 s keep it alive.
    let c = p("3", None);
    assert!(
        check(&call_with(&[
            (20_000, "in", "stdio", &a),
            (40_000, "in", "stdio", &b),
            (60_000, "in", "stdio", &c),
            (61_000, "in", "stdio", DONE),
        ]))
        .is_empty()
    );
    // A trace that ends in the middle of a silence.
    let f = check_with(
        &call_with(&[
            (10, "in", "stdio", &a),
            (5_000, "meta", "stdio", r#"{"event":"exit","code":0}"#),
        ]),
        CheckConfig {
            stall_us: 2_000_000,
            ..CheckConfig::default()
        },
    );
    assert_eq!(only(&f, Rule::ProgressStalled)[0].seqs, vec![3]);
}

#[test]
fn time_waiting_for_the_users_answer_is_not_a_stall() {
    let a = p("1", None);
    let ask = r#"{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object","properties":{}}}}"#;
    let answer = r#"{"jsonrpc":"2.0","id":"e1","result":{"action":"accept","content":{}}}"#;
    // The user takes 60 s over the form; the server answers 10 s later.
    let f = check(&call_with(&[
        (1_000, "in", "stdio", &a),
        (2_000, "in", "stdio", ask),
        (62_000, "out", "stdio", answer),
        (72_000, "in", "stdio", DONE),
    ]));
    assert!(only(&f, Rule::ProgressStalled).is_empty(), "{f:?}");
    // The server's own silence after the answer still counts.
    let f = check(&call_with(&[
        (1_000, "in", "stdio", &a),
        (2_000, "in", "stdio", ask),
        (3_000, "out", "stdio", answer),
        (40_000, "in", "stdio", DONE),
    ]));
    assert_eq!(only(&f, Rule::ProgressStalled).len(), 1, "{f:?}");
}

#[tokio::test]
async fn progress_stalled_live_tick_on_a_manual_clock() {
    let clock = ManualClock::new();
    let trace = Trace::new(Store::default(), clock.clone());
    let live = LiveChecks::spawn(
        trace.clone(),
        CheckConfig {
            stall_us: 30_000_000,
            ..CheckConfig::default()
        },
    );
    let a = p("1", None);
    trace.append(|s, now| {
        s.append_frame(Dir::Out, "stdio", now, CALL.as_bytes(), &mut Vec::new());
    });
    clock.set_us(1_000_000);
    trace.append(|s, now| {
        s.append_frame(Dir::In, "stdio", now, a.as_bytes(), &mut Vec::new());
    });
    clock.set_us(25_000_000);
    live.tick();
    assert!(live.is_empty());
    clock.set_us(31_500_000);
    live.tick();
    let f = live.findings();
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::ProgressStalled);
    assert_eq!(f[0].seqs, vec![1]);
    assert_eq!(live.counts_by_severity().info, 1);
    // Reported once per silence, not on every tick or when it ends.
    clock.set_us(40_000_000);
    live.tick();
    trace.append(|s, now| {
        s.append_frame(Dir::In, "stdio", now, DONE.as_bytes(), &mut Vec::new());
    });
    live.sync();
    assert_eq!(live.len(), 1);
    live.stop();
}

#[test]
fn log_invalid_level() {
    let (bad, good) = (log("verbose"), log("info"));
    let f = check(&call_with(&[
        (3, "in", "stdio", &bad),
        (4, "in", "stdio", &good),
    ]));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::LogInvalidLevel);
    assert_eq!(f[0].seqs, vec![3]);
    let missing = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"x"}}"#;
    assert_eq!(
        check(&call_with(&[(3, "in", "stdio", missing)]))[0].rule,
        Rule::LogInvalidLevel
    );
}

#[test]
fn log_below_level_after_set_level() {
    let set =
        r#"{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"warning"}}"#;
    let set_ok = r#"{"jsonrpc":"2.0","id":5,"result":{}}"#;
    let (debug, error) = (log("debug"), log("error"));
    let f = check(&[
        (0, "out", "stdio", INIT),
        (1, "in", "stdio", INIT_OK),
        (2, "in", "stdio", &debug), // before setLevel: anything goes
        (3, "out", "stdio", set),
        (4, "in", "stdio", set_ok),
        (5, "in", "stdio", &debug),
        (6, "in", "stdio", &error),
    ]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::LogBelowLevel);
    assert_eq!(f[0].seqs, vec![3, 5]);
}

#[test]
fn log_without_capability() {
    let info = log("info");
    let f = check(&[
        (0, "out", "stdio", INIT),
        (1, "in", "stdio", INIT_NO_LOGGING),
        (2, "in", "stdio", &info),
    ]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::LogWithoutCapability);
    assert_eq!(f[0].seqs, vec![2]);
    assert!(
        check(&[
            (0, "out", "stdio", INIT),
            (1, "in", "stdio", INIT_OK),
            (2, "in", "stdio", &info)
        ])
        .is_empty()
    );
}

const SL_CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;
const SL_CALL_LEVEL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}}"#;

/// A 2026-07-28 session's findings, but the once-per-session notes that
/// its logging is deprecated (`servers.rs` tests those).
fn check_sl(events: &[Ev<'_>]) -> Vec<Finding> {
    check(events)
        .into_iter()
        .filter(|f| {
            !matches!(
                f.rule,
                Rule::DeprecatedFeature | Rule::ClientDeprecatedFeature
            )
        })
        .collect()
}

#[test]
fn stateless_log_rules_switch_on_with_the_era() {
    let (info, debug) = (log("info"), log("debug"));
    // No logLevel on the request: the log is unrequested.
    let f = check_sl(&[
        (0, "out", "stdio", SL_CALL),
        (1, "in", "stdio", &info),
        (2, "in", "stdio", DONE),
    ]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::LogUnrequested);
    assert_eq!(f[0].seqs, vec![0, 1]);
    assert_eq!(f[0].request_id, Some(IdKey::Int(1)));
    // With a logLevel: fine at the level, below-level under it, and an error after the response.
    let f = check_sl(&[
        (0, "out", "post:1", SL_CALL_LEVEL),
        (1, "in", "post:1", &info),
        (2, "in", "post:1", &debug),
        (3, "in", "post:1", DONE),
        (4, "in", "post:1", &info),
    ]);
    let rules: Vec<(Rule, Vec<u64>)> = f.iter().map(|f| (f.rule, f.seqs.clone())).collect();
    assert_eq!(
        rules,
        vec![
            (Rule::LogBelowLevel, vec![0, 2]),
            (Rule::LogAfterResponse, vec![3, 4])
        ]
    );
    // The same frames in a handshake session: the stateless rules are off.
    let cfg = CheckConfig {
        era: Some(Era::Handshake),
        tokenless_by_choice: true,
        ..CheckConfig::default()
    };
    let f = check_with(
        &[
            (0, "out", "stdio", SL_CALL),
            (1, "in", "stdio", &info),
            (2, "in", "stdio", DONE),
            (3, "in", "stdio", &info),
        ],
        cfg,
    );
    assert!(f.is_empty(), "{f:?}");
    let c = Checker::new(CheckConfig::default());
    assert!(!c.applies(Rule::LogUnrequested));
}

#[test]
fn responses_unknown_and_duplicate() {
    let f = check(&call_with(&[
        (3, "in", "stdio", r#"{"jsonrpc":"2.0","id":99,"result":{}}"#),
        (4, "in", "stdio", DONE),
        (5, "in", "stdio", DONE),
        // JSON-RPC's answer to an unparseable request: not about any id of
        // ours (no response-unknown-id), but the server could not read a
        // request, which is worth a warning of its own.
        (
            6,
            "in",
            "stdio",
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        ),
    ]));
    let rules: Vec<(Rule, Vec<u64>)> = f.iter().map(|f| (f.rule, f.seqs.clone())).collect();
    assert_eq!(
        rules,
        vec![
            (Rule::ResponseUnknownId, vec![3]),
            (Rule::ResponseDuplicate, vec![4, 5]),
            (Rule::ResponseNullId, vec![6])
        ]
    );
    assert_eq!(f[0].request_id, Some(IdKey::Int(99)));
}

#[test]
fn invalid_frames_by_channel() {
    let f = check(&[
        (0, "in", "stdio", r#"{"jsonrpc":"1.0","method":"x"}"#),
        (1, "in", "stdio", "Listening on port 3000"),
        (2, "stderr", "stdio", "plain stderr is fine"),
        (3, "in", "post:1", "<html>502</html>"),
        (
            4,
            "in",
            "stdio",
            r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#,
        ),
        (5, "in", "stdio", ""),
    ]);
    let rules: Vec<(Rule, Vec<u64>)> = f.iter().map(|f| (f.rule, f.seqs.clone())).collect();
    assert_eq!(
        rules,
        vec![
            (Rule::JsonrpcInvalid, vec![0]),
            (Rule::StdoutNotJsonrpc, vec![1]),
            (Rule::JsonrpcInvalid, vec![3]),
        ]
    );
}

#[test]
fn notification_wrong_stream() {
    let a = p("1", None);
    let f = check(&[
        (0, "out", "post:1", CALL),
        (1, "in", "post:1", &a),
        (2, "in", "get", &p("2", None)),
        (3, "in", "post:1", DONE),
    ]);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].rule, Rule::NotificationWrongStream);
    assert_eq!(f[0].seqs, vec![0, 2]);
}

#[test]
fn repeated_findings_are_capped_and_counted() {
    let lines: Vec<String> = (0..30).map(|i| p(&(100 - i).to_string(), None)).collect();
    let mut evs = call_with(&[]);
    for (i, l) in lines.iter().enumerate() {
        evs.push((10 + 100 * i as u64, "in", "stdio", l));
    }
    let s = store(&evs);
    let mut c = Checker::new(CheckConfig::default());
    let mut out = Vec::new();
    for ev in s.range(0, s.next_seq()) {
        c.observe(&ev, &mut out);
    }
    assert_eq!(out.len(), 10);
    assert_eq!(c.suppressed().get(&Rule::ProgressNotIncreasing), Some(&19));
}

#[test]
fn initialize_version_and_result_shape() {
    let bad_init = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"s"}}}"#;
    let f = check(&[
        (0, "out", "stdio", INIT),
        (1, "in", "stdio", bad_init),
        (2, "out", "stdio", CALL_NO_TOKEN),
        (3, "in", "stdio", r#"{"jsonrpc":"2.0","id":1,"result":5}"#),
    ]);
    let rules: Vec<(Rule, Vec<u64>)> = f.iter().map(|f| (f.rule, f.seqs.clone())).collect();
    assert_eq!(
        rules,
        vec![
            (Rule::InitializeUnsupportedVersion, vec![0, 1]),
            (Rule::ResultNotObject, vec![3]),
        ]
    );
    assert!(f[0].message.contains("1999-01-01") && f[0].message.contains("2025-11-25"));
    assert_eq!(
        Rule::InitializeUnsupportedVersion.severity(),
        Severity::Error
    );
    assert_eq!(Rule::ResultNotObject.severity(), Severity::Error);
    assert_eq!(Rule::ResponseNullId.severity(), Severity::Warning);

    // Another revision the client speaks is a negotiation, not a violation.
    let older = INIT_OK.replace("2025-11-25", "2025-03-26");
    let f = check(&[
        (0, "out", "stdio", INIT),
        (1, "in", "stdio", &older),
        (2, "out", "stdio", CALL_NO_TOKEN),
        (3, "in", "stdio", DONE),
    ]);
    assert!(f.is_empty(), "{f:?}");
}

#[test]
fn invented_tokens_keep_no_state_and_reused_store_slots_never_mislead() {
    use mcpscope::trace::StoreLimits;
    // A small store: the flood's tokens are pruned and their slots reused
    // while the checker follows along, as the live checks do.
    let mut s = Store::new(StoreLimits { max_bytes: 8 << 20 });
    let mut c = Checker::new(CheckConfig::default());
    let mut out = Vec::new();
    let mut checked = 0;
    let mut feed = |s: &mut Store, c: &mut Checker, t_ms: u64, d: &str, f: &str| {
        s.append_recorded(dir(d), "stdio", t_ms * 1000, f.as_bytes(), false);
        for ev in s.range(checked, s.next_seq()) {
            c.observe(&ev, &mut out);
        }
        checked = s.next_seq();
    };
    feed(&mut s, &mut c, 0, "out", CALL);
    let n = 200_000u64;
    for i in 0..n {
        let f = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"u{i}","progress":1}}}}"#
        );
        feed(&mut s, &mut c, 1 + i / 100, "in", &f);
        if i % 50_000 == 0 {
            let ours = p(&(i + 1).to_string(), None);
            feed(&mut s, &mut c, 1 + i / 100, "in", &ours);
        }
    }
    assert!(s.pruned().0 > 0, "the store reused token slots");
    let late_call = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"late"}}}"#;
    let late_p = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"late","progress":1}}"#;
    feed(&mut s, &mut c, 5000, "out", late_call);
    feed(&mut s, &mut c, 5001, "in", late_p);
    let back = p("2", None);
    feed(&mut s, &mut c, 5002, "in", &back);
    assert_eq!(
        c.tracked_tokens(),
        2,
        "only the tokens our requests carried"
    );
    let unknown = only(&out, Rule::ProgressUnknownToken);
    assert_eq!(unknown.len(), 1000);
    assert!(
        unknown
            .iter()
            .all(|f| matches!(&f.token, Some(IdKey::Str(t)) if t.starts_with('u')))
    );
    assert_eq!(
        c.suppressed().get(&Rule::ProgressUnknownToken),
        Some(&(n - 1000))
    );
    // Our token's stream is still judged as one: 1, 50001, ..., then 2.
    let not_inc = only(&out, Rule::ProgressNotIncreasing);
    assert_eq!(not_inc.len(), 1, "{not_inc:?}");
    assert_eq!(not_inc[0].token, Some(IdKey::Str("t".into())));
}

#[test]
fn trace_context_invalid_in_either_direction() {
    let good = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"rojo=00f067aa0ba902b7","baggage":"userId=alice"}}}"#;
    let bad_call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"traceparent":"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"}}}"#;
    let bad_request = r#"{"jsonrpc":"2.0","id":"s1","method":"roots/list","params":{"_meta":{"baggage":"key with space=1"}}}"#;
    let bad_result = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false,"_meta":{"traceparent":"00-00000000000000000000000000000000-00f067aa0ba902b7-01"}}}"#;
    // Clean: valid keys both ways, and a value that only mentions a key.
    let mention = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"traceparent baggage"}],"isError":false}}"#;
    let f = check(&[
        (0, "out", "stdio", INIT),
        (1, "in", "stdio", INIT_OK),
        (2, "out", "stdio", good),
        (3, "in", "stdio", mention),
    ]);
    assert!(only(&f, Rule::TraceContextInvalid).is_empty(), "{f:?}");
    assert!(
        only(&f, Rule::ClientTraceContextInvalid).is_empty(),
        "{f:?}"
    );

    let f = check(&[
        (0, "out", "stdio", INIT),
        (1, "in", "stdio", INIT_OK),
        (2, "out", "stdio", bad_call),
        (3, "in", "stdio", bad_request),
        (4, "in", "stdio", bad_result),
    ]);
    let client = only(&f, Rule::ClientTraceContextInvalid);
    assert_eq!(client.len(), 1, "{f:?}");
    assert_eq!(client[0].seqs, vec![2]);
    assert_eq!(client[0].severity, Severity::Error);
    assert!(
        client[0].message.contains("_meta.traceparent"),
        "{}",
        client[0].message
    );
    assert!(
        client[0].message.contains("lowercase hex"),
        "{}",
        client[0].message
    );
    let server = only(&f, Rule::TraceContextInvalid);
    assert_eq!(
        server.iter().map(|f| f.seqs[0]).collect::<Vec<_>>(),
        vec![3, 4],
        "{f:?}"
    );
    assert!(
        server[0].message.contains("_meta.baggage") && server[0].message.contains("roots/list"),
        "{}",
        server[0].message
    );
    assert!(
        server[1].message.contains("all zeros")
            && server[1].message.contains("the result of tools/call"),
        "{}",
        server[1].message
    );
}

/// A SERVER span for `tools/call` id 1 (the attributes of the MCP semantic
/// conventions), in trace `trace`.
fn server_span(trace: &str, id: &str, method: &str) -> String {
    format!(
        r#"{{"event":"otel-span","service":"s","name":"tools/call x","trace_id":"{trace}","span_id":"aaaa000000000001","parent_span_id":"00f067aa0ba902b7","kind":"server","start_ns":1,"end_ns":2,"status":"unset","attributes":{{"jsonrpc.request.id":"{id}","mcp.method.name":"{method}"}}}}"#
    )
}

#[test]
fn server_span_trace_not_continued() {
    let traced = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{},"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}"#;
    let own = "4bf92f3577b34da6a3ce929d0e0e4736";
    let other = "99c1a0decdd77cade83998973452a4aa";
    // Clean: the span continues the request's trace (arriving after the
    // response, as exported spans do); spans of another method or id, or
    // of another kind, are not this request's SERVER span.
    let continued = server_span(own, "1", "tools/call");
    let other_method = server_span(other, "1", "resources/read");
    let other_id = server_span(other, "2", "tools/call");
    let internal = server_span(other, "1", "tools/call").replace("\"server\"", "\"internal\"");
    let f = check(&[
        (0, "out", "stdio", INIT),
        (1, "in", "stdio", INIT_OK),
        (2, "out", "stdio", traced),
        (3, "in", "stdio", DONE),
        (4, "meta", "otel", &continued),
        (5, "meta", "otel", &other_method),
        (6, "meta", "otel", &other_id),
        (7, "meta", "otel", &internal),
    ]);
    assert!(
        only(&f, Rule::ServerSpanTraceNotContinued).is_empty(),
        "{f:?}"
    );
    // A request without a traceparent gives the server nothing to continue.
    let f = check(&[
        (0, "out", "stdio", INIT),
        (1, "in", "stdio", INIT_OK),
        (2, "out", "stdio", CALL_NO_TOKEN),
        (3, "in", "stdio", DONE),
        (4, "meta", "otel", &server_span(other, "1", "tools/call")),
    ]);
    assert!(
        only(&f, Rule::ServerSpanTraceNotContinued).is_empty(),
        "{f:?}"
    );

    // The true positive: the server's span for id 1 started a trace of its own.
    let f = check(&[
        (0, "out", "stdio", INIT),
        (1, "in", "stdio", INIT_OK),
        (2, "out", "stdio", traced),
        (3, "in", "stdio", DONE),
        (4, "meta", "otel", &server_span(other, "1", "tools/call")),
    ]);
    let found = only(&f, Rule::ServerSpanTraceNotContinued);
    assert_eq!(found.len(), 1, "{f:?}");
    assert_eq!(found[0].seqs, vec![2, 4]);
    assert_eq!(found[0].severity, Severity::Info);
    assert_eq!(found[0].request_id, Some(IdKey::Int(1)));
    assert!(
        found[0].message.contains(other) && found[0].message.contains(own),
        "{}",
        found[0].message
    );
}
