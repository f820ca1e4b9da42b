//! Two sides folded from small stores: the same session is no difference,
//! each kind of change is one.

use super::*;
use crate::trace::Store;

/// A side from `(dir, json)` lines, one event each (seq = index, line =
/// seq + 2 as `--record` writes them), at `t` = index ms.
pub(crate) fn side(lines: &[(&str, &str)]) -> Side {
    let mut s = Store::default();
    let mut f = Folder::default();
    for (i, (dir, json)) in lines.iter().enumerate() {
        let d = Dir::parse(dir).unwrap();
        let seq = s.append_recorded(d, "stdio", i as u64 * 1000, json.as_bytes(), false);
        let ev = s.get(seq).unwrap();
        f.observe(&ev, seq + 2);
    }
    f.finish("t".into(), Vec::new(), None)
}

const LIST: (&str, &str) = ("out", r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#);
const CALL: (&str, &str) = (
    "out",
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"build","arguments":{"n":2},"_meta":{"progressToken":"t"}}}"#,
);
const P1: (&str, &str) = (
    "in",
    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2}}"#,
);
const P2: (&str, &str) = (
    "in",
    r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2,"total":2}}"#,
);
const LOG: (&str, &str) = (
    "in",
    r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"tracker","data":"x"}}"#,
);
const OK: (&str, &str) = (
    "in",
    r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}"#,
);

fn tools(list: &str) -> (&'static str, String) {
    (
        "in",
        format!(r#"{{"jsonrpc":"2.0","id":9,"result":{{"tools":{list}}}}}"#),
    )
}

fn session(tool_list: &str, frames: &[(&str, &str)]) -> Side {
    let t = tools(tool_list);
    let mut lines: Vec<(&str, &str)> = vec![LIST, (t.0, t.1.as_str())];
    lines.extend_from_slice(frames);
    side(&lines)
}

const TOOLS: &str =
    r#"[{"name":"build","annotations":{"readOnlyHint":true},"inputSchema":{"type":"object"}}]"#;

#[test]
fn the_same_session_is_no_difference() {
    let a = session(TOOLS, &[CALL, P1, LOG, P2, OK]);
    let b = session(TOOLS, &[CALL, P1, LOG, P2, OK]);
    let r = report::diff(&a, &b, Tolerances::default());
    assert!(r.same, "{}", report::text(&r));
    assert!(report::text(&r).ends_with("no differences\n"));
}

#[test]
fn a_log_after_the_result_and_a_less_safe_tool_are_differences() {
    let a = session(TOOLS, &[CALL, P1, LOG, P2, OK]);
    let b = session(
        r#"[{"name":"build","annotations":{"readOnlyHint":false},"inputSchema":{"type":"object"}}]"#,
        &[CALL, P1, P2, OK, LOG],
    );
    let r = report::diff(&a, &b, Tolerances::default());
    assert!(!r.same);
    assert_eq!(r.summary.less_safe, 1);
    assert_eq!(r.listings[0].less_safe, ["readOnlyHint true → false"]);
    let c = &r.calls[0];
    let what: Vec<&str> = c.changes.iter().map(|c| c.what.as_str()).collect();
    assert!(
        what.contains(&"log(info tracker) came before the response, now after it"),
        "{what:?}"
    );
    let moved = c
        .changes
        .iter()
        .find(|c| c.what.starts_with("log("))
        .unwrap();
    // A's log is line 6 (seq 4); B's is line 8 (seq 6).
    assert_eq!(moved.at_a, [At { seq: 4, line: 6 }]);
    assert_eq!(moved.at_b, [At { seq: 6, line: 8 }]);
    let text = report::text(&r);
    assert!(text.contains("! tool build: changed"), "{text}");
}

#[test]
fn outcome_progress_and_missing_calls_are_differences() {
    let err = (
        "in",
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"no"}],"isError":true}}"#,
    );
    let a = session(TOOLS, &[CALL, P1, P2, OK]);
    let b = session(TOOLS, &[CALL, P2, err]);
    let r = report::diff(&a, &b, Tolerances::default());
    let what: Vec<&str> = r.calls[0].changes.iter().map(|c| c.what.as_str()).collect();
    assert!(what.contains(&"outcome ok → is-error"), "{what:?}");
    assert!(what.contains(&"progress notifications 2 → 1"), "{what:?}");
    assert!(
        what.iter()
            .any(|w| w.starts_with("result shape: added .isError")),
        "{what:?}"
    );
    let c = session(TOOLS, &[]);
    let r = report::diff(&a, &c, Tolerances::default());
    assert_eq!(r.calls[0].status, report::CallStatus::OnlyA);
    let r = report::diff(&c, &c, Tolerances::default());
    assert!(r.same);
}

#[test]
fn lines_follow_the_file_not_the_seq() {
    let mut m = LineMap::default();
    m.push(0, 2);
    m.push(1, 3);
    m.push(2, 5);
    m.push(3, 6);
    assert_eq!(m.line(0), 2);
    assert_eq!(m.line(1), 3);
    assert_eq!(m.line(2), 5);
    assert_eq!(m.line(3), 6);
    assert_eq!(m.breaks.len(), 2);
}

/// Whether progress carries a message is read from the store's flag, for
/// compact frames (the store's one-parse path) and others alike.
#[test]
fn progress_messages_are_counted_from_the_store() {
    let with_msg = (
        "in",
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":2,"message":"half"}}"#,
    );
    // Keys in another order: not the compact envelope.
    let spaced = (
        "in",
        r#"{ "params": {"message": "all", "progress": 2, "total": 2, "progressToken": "t"}, "method": "notifications/progress", "jsonrpc": "2.0" }"#,
    );
    let a = session(TOOLS, &[CALL, with_msg, spaced, OK]);
    assert_eq!(a.calls[0].progress.with_message, 2);
    assert_eq!(a.calls[0].progress.count, 2);
    let b = session(TOOLS, &[CALL, P1, P2, OK]);
    assert_eq!(b.calls[0].progress.with_message, 0);
    let r = report::diff(&a, &b, Tolerances::default());
    let what: Vec<&str> = r.calls[0].changes.iter().map(|c| c.what.as_str()).collect();
    assert_eq!(
        what,
        ["progress with a message: all → none"],
        "{}",
        report::text(&r)
    );
}

/// `tools/call` of `echo {"text": TEXT}` with id `id`, and its answer.
fn echo(id: u32, text: &str) -> [(&'static str, String); 2] {
    [
        (
            "out",
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{text}"}}}}}}"#
            ),
        ),
        (
            "in",
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{text}"}}]}}}}"#
            ),
        ),
    ]
}

fn owned_side(lines: &[(&'static str, String)]) -> Side {
    let l: Vec<(&str, &str)> = lines.iter().map(|(d, j)| (*d, j.as_str())).collect();
    side(&l)
}

#[test]
fn calls_run_in_reverse_order_are_a_difference() {
    let [a1, r1] = echo(1, "a");
    let [b2, r2] = echo(2, "b");
    let [c3, r3] = echo(3, "c");
    let a = owned_side(&[
        a1.clone(),
        r1.clone(),
        b2.clone(),
        r2.clone(),
        c3.clone(),
        r3.clone(),
    ]);
    // B: the same three calls, one after the other, last first.
    let [c1, s1] = echo(1, "c");
    let [b2r, s2] = echo(2, "b");
    let [a3, s3] = echo(3, "a");
    let b = owned_side(&[c1, s1, b2r, s2, a3, s3]);
    let r = report::diff(&a, &b, Tolerances::default());
    assert!(!r.same, "{}", report::text(&r));
    assert_eq!(r.summary.call_order, 2);
    assert_eq!(r.summary.differences, 2, "{}", report::text(&r));
    let got: Vec<(usize, usize)> = r.call_order.iter().map(|o| (o.call, o.before)).collect();
    assert_eq!(got, [(3, 2), (2, 1)]);
    let text = report::text(&r);
    assert!(
        text.contains(r#"~ call 3 echo {"text":"c"} ran before call 2 echo {"text":"b"}"#),
        "{text}"
    );
    assert!(text.contains("2 in call order"), "{text}");
    let j = serde_json::to_value(&r).unwrap();
    assert_eq!(j["call_order"][0]["call"], 3);
    assert_eq!(j["call_order"][0]["before"], 2);
    assert_eq!(j["summary"]["call_order"], 2);

    // The same order is no difference, and says nothing about order.
    let same = owned_side(&[a1.clone(), r1.clone(), b2.clone(), r2.clone(), c3, r3]);
    let r = report::diff(&a, &same, Tolerances::default());
    assert!(r.same, "{}", report::text(&r));
    let j = serde_json::to_value(&r).unwrap();
    assert!(j.get("call_order").is_none() && j["summary"].get("call_order").is_none());

    // Two calls in flight at once, sent in the other order: a race, not a
    // difference.
    let par_a = owned_side(&[a1.clone(), b2.clone(), r1.clone(), r2.clone()]);
    let par_b = owned_side(&[b2, a1, r2, r1]);
    let r = report::diff(&par_a, &par_b, Tolerances::default());
    assert!(r.call_order.is_empty(), "{}", report::text(&r));
}
