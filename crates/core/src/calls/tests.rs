use super::*;
use crate::event::Event;
use crate::trace::Store;
use serde_json::json;

/// A hand-made session: frames and events appended in order, each at a time.
struct S(Store);

impl S {
    fn new() -> S {
        S(Store::default())
    }
    fn out(&mut self, t_us: u64, v: Value) -> u64 {
        let line = v.to_string();
        self.0
            .append_frame(Dir::Out, "stdio", t_us, line.as_bytes(), &mut Vec::new())
    }
    fn inn(&mut self, t_us: u64, v: Value) -> u64 {
        let line = v.to_string();
        self.0
            .append_frame(Dir::In, "stdio", t_us, line.as_bytes(), &mut Vec::new())
    }
    fn event(&mut self, t_us: u64, e: Event) -> u64 {
        self.0.append_event("stdio", t_us, &e)
    }
    fn call(&mut self, t_us: u64, id: i64, token: Option<&str>) -> u64 {
        let mut params = json!({"name": "work", "arguments": {}});
        if let Some(t) = token {
            params["_meta"] = json!({"progressToken": t});
        }
        self.out(
            t_us,
            json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":params}),
        )
    }
    fn result(&mut self, t_us: u64, id: i64, result: Value) -> u64 {
        self.inn(t_us, json!({"jsonrpc":"2.0","id":id,"result":result}))
    }
    fn progress(&mut self, t_us: u64, token: &str, p: u64) -> u64 {
        self.inn(
            t_us,
            json!({"jsonrpc":"2.0","method":"notifications/progress",
                   "params":{"progressToken":token,"progress":p}}),
        )
    }
    fn tracker(&self) -> Tracker {
        Tracker::of(&self.0)
    }
}

fn ending_of(s: &S, id: i64) -> Ending {
    s.tracker().get(&IdKey::Int(id)).unwrap().ending()
}

#[test]
fn responses_end_calls() {
    let mut s = S::new();
    for id in 1..=5 {
        s.call(id as u64, id, None);
    }
    s.result(10, 1, json!({"content": []}));
    s.result(11, 2, json!({"content": [], "isError": true}));
    s.inn(
        12,
        json!({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad"}}),
    );
    s.result(
        13,
        4,
        json!({"resultType":"input_required","inputRequests":{}}),
    );
    assert_eq!(ending_of(&s, 1), Ending::Done);
    assert_eq!(ending_of(&s, 2), Ending::ToolError);
    assert_eq!(
        ending_of(&s, 3),
        Ending::RpcError {
            message: Some("bad".into())
        }
    );
    assert_eq!(ending_of(&s, 4), Ending::InputRequired { is_error: false });
    assert_eq!(ending_of(&s, 5), Ending::Running);
    let t = s.tracker();
    let c = t.get(&IdKey::Int(1)).unwrap();
    assert_eq!(c.method, "tools/call");
    assert_eq!(c.tool.as_deref(), Some("work"));
    assert_eq!((c.request_seq, c.sent_us), (0, 1));
    assert_eq!(c.response_seq(), Some(5));
    assert_eq!(c.ended().unwrap().t_us, 10);
    assert!(t.get(&IdKey::Int(5)).unwrap().is_running());
}

#[test]
fn ends_we_or_the_connection_give() {
    let mut s = S::new();
    for id in 1..=4 {
        s.call(id as u64, id, None);
    }
    s.out(
        10,
        json!({"jsonrpc":"2.0","method":"notifications/cancelled",
               "params":{"requestId":1,"reason":"user"}}),
    );
    s.event(
        11,
        Event::Timeout {
            request: json!(2),
            method: "tools/call".into(),
            limit: "idle".into(),
            secs: 1.5,
        },
    );
    s.event(
        12,
        Event::Cancel {
            request: json!(3),
            how: "stream closed".into(),
            reason: "user".into(),
        },
    );
    s.event(
        13,
        Event::Failed {
            request: Some(json!(4)),
            error: "HTTP 500".into(),
        },
    );
    assert_eq!(
        ending_of(&s, 1),
        Ending::Cancelled {
            reason: Some("user".into()),
            how: None
        }
    );
    assert_eq!(
        ending_of(&s, 2),
        Ending::TimedOut {
            limit: "idle".into(),
            secs: 1.5
        }
    );
    assert_eq!(
        ending_of(&s, 3),
        Ending::Cancelled {
            reason: Some("user".into()),
            how: Some("stream closed".into())
        }
    );
    assert_eq!(
        ending_of(&s, 4),
        Ending::Failed {
            error: "HTTP 500".into()
        }
    );
}

#[test]
fn ends_naming_no_request_reach_every_call_in_flight() {
    let mut s = S::new();
    s.call(1, 1, None);
    s.call(2, 2, None);
    s.result(3, 1, json!({}));
    s.event(
        4,
        Event::Eof {
            stream: "stdout".into(),
            running: true,
        },
    );
    s.event(
        5,
        Event::Exit {
            code: Some(3),
            signal: None,
        },
    );
    s.event(
        6,
        Event::Failed {
            request: None,
            error: "gone".into(),
        },
    );
    let t = s.tracker();
    let done = t.get(&IdKey::Int(1)).unwrap();
    assert_eq!(done.ends.len(), 1, "{:?}", done.ends);
    let lost = t.get(&IdKey::Int(2)).unwrap();
    assert_eq!(lost.ending(), Ending::Eof);
    let exit = ExitInfo {
        code: Some(3),
        signal: None,
    };
    // After the exit the call takes in nothing more that names no request.
    assert_eq!(
        lost.ends.iter().map(|e| e.how.clone()).collect::<Vec<_>>(),
        vec![Ending::Eof, Ending::Exited(exit)]
    );
    assert_eq!(lost.lost().unwrap().seq, 3);
    assert_eq!(lost.response(), None);

    let mut s = S::new();
    s.call(1, 1, None);
    s.event(
        2,
        Event::Failed {
            request: None,
            error: "connection refused".into(),
        },
    );
    assert_eq!(
        ending_of(&s, 1),
        Ending::Failed {
            error: "connection refused".into()
        }
    );
}

#[test]
fn the_first_end_of_each_kind_is_kept_and_a_late_response_too() {
    let mut s = S::new();
    s.call(0, 1, None);
    s.event(
        10,
        Event::Timeout {
            request: json!(1),
            method: "tools/call".into(),
            limit: "max".into(),
            secs: 2.0,
        },
    );
    s.out(
        11,
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}),
    );
    s.out(
        12,
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"again"}}),
    );
    let late = s.result(13, 1, json!({"isError": true}));
    s.result(14, 1, json!({}));
    let t = s.tracker();
    let c = t.get(&IdKey::Int(1)).unwrap();
    assert!(matches!(c.ending(), Ending::TimedOut { .. }));
    assert_eq!(c.ends.len(), 3);
    assert_eq!(
        c.cancel().unwrap().how,
        Ending::Cancelled {
            reason: None,
            how: None
        }
    );
    // The duplicate response is not an end.
    assert_eq!(c.response().unwrap().how, Ending::ToolError);
    assert_eq!(c.response_seq(), Some(late));
}

#[test]
fn which_requests_are_calls() {
    let mut s = S::new();
    s.out(
        0,
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}),
    );
    s.out(
        1,
        json!({"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"x","_meta":{"progressToken":7}}}),
    );
    s.call(2, 3, Some("t"));
    // An incoming request is the server's, not a call of ours.
    s.inn(
        3,
        json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x"}}),
    );
    let t = s.tracker();
    let ids: Vec<_> = t.calls.iter().map(|c| c.id.clone()).collect();
    assert_eq!(ids, vec![IdKey::Int(2), IdKey::Int(3)]);
    assert_eq!(t.calls[0].token, Some(IdKey::Int(7)));
    assert_eq!(t.calls[0].tool, None);
    assert_eq!(t.calls[1].token, Some(IdKey::Str("t".into())));
}

#[test]
fn a_request_reusing_an_id_takes_its_responses() {
    let mut s = S::new();
    s.call(0, 1, None);
    s.out(1, json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
    s.result(2, 1, json!({}));
    let t = s.tracker();
    assert!(t.get(&IdKey::Int(1)).is_none());
    assert_eq!(t.calls[0].ending(), Ending::Running);
}

#[test]
fn observe_reports_what_changed() {
    let mut s = S::new();
    s.call(0, 1, None);
    s.result(1, 1, json!({}));
    s.result(2, 1, json!({}));
    s.event(
        3,
        Event::Exit {
            code: None,
            signal: Some(9),
        },
    );
    let mut t = Tracker::default();
    let seen: Vec<Seen> =
        s.0.range(0, s.0.next_seq())
            .map(|e| t.observe(&e))
            .collect();
    assert_eq!(
        seen,
        vec![
            Seen::Sent(0),
            Seen::Ended(0),
            Seen::Nothing,
            Seen::Exit(ExitInfo {
                code: None,
                signal: Some(9)
            })
        ]
    );
}

#[test]
fn timing_of_a_small_session() {
    let mut s = S::new();
    s.call(1_000, 1, Some("t"));
    // Gaps: 10 ms, 30 ms, 20 ms, 40 ms → median of 20 and 30.
    for (t, p) in [
        (5_000, 1),
        (15_000, 2),
        (45_000, 3),
        (65_000, 4),
        (105_000, 5),
    ] {
        s.progress(t, "t", p);
    }
    s.result(200_000, 1, json!({}));
    // After the response: not this call's.
    s.progress(300_000, "t", 6);
    let t = s.tracker();
    let c = t.get(&IdKey::Int(1)).unwrap();
    let tm = Timing::of(c, &s.0);
    assert_eq!(tm.count, 5);
    assert_eq!(tm.first_after_us(), Some(4_000));
    assert_eq!(tm.min_gap_us, Some(10_000));
    assert_eq!(tm.median_gap_us(), Some(25_000));
    assert_eq!(tm.max_gap_us, Some(40_000));
    assert_eq!(tm.last_us, Some(105_000));
    // 5 notifications over the 199 ms from request to response.
    let per_s = tm.per_second(200_000).unwrap();
    assert!((per_s - 5.0 / 0.199).abs() < 1e-9, "{per_s}");

    // Incrementally, a notification at a time, the numbers are the same.
    let mut inc = Timing::default();
    while !inc.sync(c, &s.0, 1) {}
    assert_eq!(
        (
            inc.count,
            inc.min_gap_us,
            inc.median_gap_us(),
            inc.max_gap_us
        ),
        (5, Some(10_000), Some(25_000), Some(40_000))
    );
}

#[test]
fn timing_stops_where_a_later_request_reuses_the_token() {
    let mut s = S::new();
    s.call(0, 1, Some("t"));
    s.progress(10, "t", 1);
    s.progress(30, "t", 2);
    s.progress(40, "t", 3);
    s.call(50, 2, Some("t"));
    s.progress(60, "t", 1);
    let t = s.tracker();
    let first = Timing::of(t.get(&IdKey::Int(1)).unwrap(), &s.0);
    assert_eq!(first.count, 3);
    assert_eq!(first.median_gap_us(), Some(15));
    assert_eq!((first.min_gap_us, first.max_gap_us), (Some(10), Some(20)));
    let second = Timing::of(t.get(&IdKey::Int(2)).unwrap(), &s.0);
    assert_eq!((second.count, second.first_after_us()), (1, Some(10)));
    assert_eq!(second.median_gap_us(), None);
    // A call without a token has nothing to time.
    let mut s = S::new();
    s.call(0, 1, None);
    let t = s.tracker();
    let none = Timing::of(t.get(&IdKey::Int(1)).unwrap(), &s.0);
    assert_eq!((none.count, none.per_second(100)), (0, None));
}

/// A user who takes 30 s to fill a form mid-call: the silence is the
/// client's, so the call's gaps leave it out (the gap around it is the
/// server's own 200 ms); without the waits it reads as a 30.2 s stall.
#[test]
fn time_the_client_was_waited_on_is_not_a_gap() {
    let mut s = S::new();
    s.call(0, 1, Some("t"));
    s.progress(1_000_000, "t", 1);
    s.inn(
        1_100_000,
        json!({"jsonrpc":"2.0","id":"srv-1","method":"elicitation/create","params":{}}),
    );
    s.out(
        31_100_000,
        json!({"jsonrpc":"2.0","id":"srv-1","result":{"action":"decline"}}),
    );
    s.progress(31_200_000, "t", 2);
    s.result(31_300_000, 1, json!({"content": []}));
    let tracker = s.tracker();
    let call = tracker.get(&IdKey::Int(1)).unwrap();
    let plain = Timing::of(call, &s.0);
    assert_eq!(plain.max_gap_us, Some(30_200_000));
    let waits = waits::ClientWaits::of(&s.0);
    assert_eq!(waits.within(0, 40_000_000), 30_000_000);
    let t = Timing::of_excluding(call, &s.0, Some(&waits));
    assert_eq!((t.min_gap_us, t.max_gap_us), (Some(200_000), Some(200_000)));
    assert_eq!(t.count, 2);
}

/// An `injected` event for the last message the host sent to the server.
fn injected(action: &str, original: Value, sent: Option<Value>, detail: Option<&str>) -> Event {
    Event::Injected {
        rule: 1,
        source: "faults.toml".into(),
        action: action.into(),
        stream: "host→server".into(),
        original: original.to_string(),
        original_bytes: None,
        sent: sent.map(|v| v.to_string()),
        detail: detail.map(Into::into),
    }
}

#[test]
fn what_faults_kept_from_the_server_is_no_incomplete_call_of_its() {
    let call = |id: i64| json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"work","arguments":{}}});
    let mut s = S::new();
    // Call 1 reached the server as "1-wrong-id", which it answered.
    s.call(1, 1, None);
    let mut renamed = call(1);
    renamed["id"] = json!("1-wrong-id");
    s.event(
        1,
        injected("corrupt", call(1), Some(renamed), Some("wrong-id")),
    );
    s.inn(
        5,
        json!({"jsonrpc":"2.0","id":"1-wrong-id","result":{"content":[]}}),
    );
    // Call 2 never reached it; call 3 did, and was not answered.
    s.call(6, 2, None);
    s.event(6, injected("drop", call(2), None, None));
    s.call(7, 3, None);
    let t = s.tracker();
    assert_eq!(t.calls[0].ending(), Ending::Done);
    // What the checks count as incomplete (`checks::stats`): unanswered
    // and not kept from the server by a fault.
    let failed: Vec<&IdKey> = t
        .calls
        .iter()
        .filter(|c| c.response().is_none() && !c.faulted)
        .map(|c| &c.id)
        .collect();
    assert_eq!(failed, vec![&IdKey::Int(3)]);
}
