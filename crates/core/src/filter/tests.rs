use super::*;
use crate::trace::{Dir, Store};
use serde_json::json;

/// A session: the handshake, two concurrent tool calls with progress, a
/// log, a cancel, stderr, invalid bytes.
fn session() -> Store {
    let mut s = Store::default();
    let mut routes = Vec::new();
    let mut frame = |s: &mut Store, dir: Dir, t_ms: u64, v: serde_json::Value| {
        s.append_frame(
            dir,
            "stdio",
            t_ms * 1000,
            v.to_string().as_bytes(),
            &mut routes,
        )
    };
    frame(
        &mut s,
        Dir::Out,
        0,
        json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}),
    );
    frame(
        &mut s,
        Dir::In,
        5,
        json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}),
    );
    frame(
        &mut s,
        Dir::Out,
        10,
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_task","arguments":{},"_meta":{"progressToken":"tok-a"}}}),
    );
    frame(
        &mut s,
        Dir::Out,
        11,
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"upload","arguments":{},"_meta":{"progressToken":7}}}),
    );
    frame(
        &mut s,
        Dir::In,
        20,
        json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok-a","progress":30,"total":100}}),
    );
    frame(
        &mut s,
        Dir::In,
        21,
        json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":60,"total":100,"message":"Half the bytes"}}),
    );
    frame(
        &mut s,
        Dir::In,
        22,
        json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"up","data":"disk slow"}}),
    );
    frame(
        &mut s,
        Dir::In,
        23,
        json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"debug","data":"tick"}}),
    );
    frame(
        &mut s,
        Dir::In,
        30,
        json!({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}],"isError":false}}),
    );
    frame(
        &mut s,
        Dir::Out,
        2500,
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}),
    );
    frame(
        &mut s,
        Dir::In,
        2600,
        json!({"jsonrpc":"2.0","id":2,"error":{"code":-32800,"message":"cancelled"}}),
    );
    s.append_stderr("stdio", 2700, b"server: bye");
    frame(&mut s, Dir::In, 2800, json!({"oops": true}));
    s
}

/// The seqs a filter selects from the session.
fn selected(src: &str) -> Vec<u64> {
    let store = session();
    let mut m = Matcher::new(Filter::parse(src).unwrap_or_else(|e| panic!("{src}: {e}")));
    let mut out = Vec::new();
    let mut seq = store.first_seq();
    while let Some(ev) = store.get(seq) {
        if m.test(&ev) {
            out.push(ev.seq);
        }
        seq += 1;
    }
    out
}

#[test]
fn fields_select_what_they_name() {
    assert_eq!(selected("method == tools/call"), [2, 3, 8, 10]);
    assert_eq!(selected("method == notifications/*"), [4, 5, 6, 7, 9]);
    assert_eq!(selected("progress"), [4, 5]);
    assert_eq!(selected("out && request"), [0, 2, 3]);
    assert_eq!(selected("dir == stderr || meta"), [11]);
    assert_eq!(selected("kind == error"), [10]);
    assert_eq!(selected("invalid"), [12]);
    assert_eq!(selected("id == 2"), [3, 10]);
    assert_eq!(
        selected("id == \"2\""),
        Vec::<u64>::new(),
        "a string id is another id"
    );
}

#[test]
fn a_message_is_labelled_by_its_call() {
    // The request, its progress (by token), its response (by id).
    assert_eq!(selected("tool == slow_task"), [2, 4, 8]);
    // A numeric token; the cancel (by requestId) and the error.
    assert_eq!(selected("tool == upload"), [3, 5, 9, 10]);
    assert_eq!(selected("call == 3"), [3, 5, 9, 10]);
    assert_eq!(selected("call == #2"), [2, 4, 8]);
    assert_eq!(selected("token == tok-a"), [2, 4, 8]);
    assert_eq!(selected("token == 7 && progress"), [5]);
    assert_eq!(selected("tool != slow_task"), [3, 5, 9, 10]);
    assert_eq!(
        selected("!(tool == slow_task) && in && notification"),
        [5, 6, 7]
    );
}

#[test]
fn json_paths_levels_text_size_and_time() {
    assert_eq!(selected("params.progress > 50"), [5]);
    assert_eq!(
        selected("params.progress >= 30 && params.total == 100"),
        [4, 5]
    );
    assert_eq!(selected("result.isError == false"), [8]);
    assert_eq!(selected("result.content[0].text == done"), [8]);
    assert_eq!(selected("result.content.0.text ~ DON"), [8]);
    assert_eq!(selected("error.code == -32800"), [10]);
    assert_eq!(selected("params._meta[\"progressToken\"] == 7"), [3]);
    assert_eq!(selected("params.message"), [5]);
    assert_eq!(selected("level >= warning"), [6]);
    assert_eq!(selected("level < info"), [7]);
    assert_eq!(selected("log && text ~ \"DISK\""), [6]);
    assert_eq!(selected("text ~ bye"), [11]);
    assert_eq!(selected("time >= 2.5s && time < 2700ms"), [9, 10]);
    assert_eq!(selected("size > 100 && request"), [2, 3]);
    assert_eq!(selected("seq <= 1"), [0, 1]);
    assert_eq!(selected("not in and not out"), [11]);
}

#[test]
fn errors_point_at_their_column() {
    let e = |s: &str| Filter::parse(s).unwrap_err();
    assert_eq!(e("").column, 1);
    let x = e("method == tools/call && bogus == 1");
    assert_eq!(x.column, 25, "{x}");
    assert!(x.message.contains("unknown field `bogus`"), "{x}");
    let x = e("level >= loud");
    assert_eq!(
        (x.column, x.message.contains("level is one of")),
        (10, true),
        "{x}"
    );
    let x = e("(in || out");
    assert_eq!(x.column, 1, "{x}");
    assert!(x.message.contains("never closed"), "{x}");
    let x = e("in out");
    assert_eq!(x.column, 4, "{x}");
    assert!(x.message.contains("&&"), "{x}");
    let x = e("method > a");
    assert_eq!(x.column, 8, "{x}");
    let x = e("text ~ \"open");
    assert_eq!(x.column, 8, "{x}");
    let x = e("params.total >");
    assert_eq!(x.column, 15, "{x}");
    assert!(x.message.contains("expected a value after `>`"), "{x}");
    let x = e("in & out");
    assert_eq!(x.column, 4, "{x}");
    assert_eq!(
        x.pointed("in & out"),
        "in & out\n   ^ `&` alone is not an operator: `&&`"
    );
}

#[test]
fn the_call_index_is_bounded_and_counts_what_it_forgot() {
    let mut s = Store::default();
    let mut routes = Vec::new();
    let mut m = Matcher::new(Filter::parse("tool == t0").unwrap_or_else(|e| panic!("{e}")));
    let n = calls::MAX as u64 + 10;
    for i in 0..n {
        let v =
            json!({"jsonrpc":"2.0","id":i,"method":"tools/call","params":{"name":format!("t{i}")}});
        let seq = s.append_frame(Dir::Out, "stdio", i, v.to_string().as_bytes(), &mut routes);
        if let Some(ev) = s.get(seq) {
            m.test(&ev);
        }
    }
    assert_eq!(m.forgotten(), 10);
    // The first request is forgotten: its response names no tool now.
    let v = json!({"jsonrpc":"2.0","id":0,"result":{}});
    let seq = s.append_frame(Dir::In, "stdio", n, v.to_string().as_bytes(), &mut routes);
    let ev = s.get(seq).unwrap_or_else(|| panic!("stored"));
    assert!(!m.test(&ev));
}

#[test]
fn needs_are_read_from_the_top_and_chain() {
    let n = Filter::parse("in && progress && params.progress > 3")
        .unwrap()
        .needs();
    assert_eq!(n.dir, Some(crate::trace::Dir::In));
    assert_eq!(n.texts, vec!["\"notifications/progress\"".to_string()]);
    let n = Filter::parse("out && method == tools/call")
        .unwrap()
        .needs();
    assert_eq!(n.dir, Some(crate::trace::Dir::Out));
    assert_eq!(n.texts, vec!["\"tools/call\"".to_string()]);
    // Nothing is needed of what an `||`, a `!` or a wildcard selects.
    let n = Filter::parse("progress || log").unwrap().needs();
    assert_eq!((n.dir, n.texts.len()), (None, 0));
    assert!(
        Filter::parse("!in && method == tools/*")
            .unwrap()
            .needs()
            .texts
            .is_empty()
    );
}
