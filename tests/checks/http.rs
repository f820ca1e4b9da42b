//! The checks' view of HTTP exchanges, over hand-written traces: the body of
//! an error status is an HTTP error (no `jsonrpc-invalid`), a non-JSON body
//! with a success status still is a protocol error, and `http-content-type`
//! fires exactly for a POST carrying a request answered with another type.

use mcpscope::checks::{CheckConfig, Checker, Finding, Rule};
use mcpscope::trace::{Dir, Store};

/// (direction, channel, bytes)
type Ev<'a> = (&'a str, &'a str, &'a str);

fn check(events: &[Ev<'_>]) -> Vec<Rule> {
    let mut s = Store::default();
    for (i, (d, ch, f)) in events.iter().enumerate() {
        s.append_recorded(
            Dir::parse(d).unwrap(),
            ch,
            i as u64 * 1000,
            f.as_bytes(),
            false,
        );
    }
    // These calls carry no progress token on purpose (they are about HTTP,
    // not progress): the client chose that, as `--token none` does.
    let mut c = Checker::new(CheckConfig {
        tokenless_by_choice: true,
        ..CheckConfig::default()
    });
    let mut out: Vec<Finding> = Vec::new();
    for ev in s.range(0, s.next_seq()) {
        c.observe(&ev, &mut out);
    }
    c.finish(&mut out);
    out.into_iter().map(|f| f.rule).collect()
}

const CALL: &str =
    r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}"#;
const DONE: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}"#;
const NOTE: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

fn http(status: u16, ct: &str) -> String {
    format!(
        r#"{{"event":"http","method":"POST","status":{status},"content_type":"{ct}","session":null,"ms":1}}"#
    )
}

#[test]
fn an_error_status_body_is_no_protocol_finding_but_a_success_body_still_is() {
    for status in [401, 403, 500, 502] {
        let meta = http(status, "text/html");
        let rules = check(&[
            ("out", "post:1", CALL),
            ("meta", "post:1", &meta),
            ("in", "post:1", "<html>sign in</html>"),
        ]);
        assert_eq!(rules, [], "HTTP {status}");
    }
    let json_not_rpc = check(&[
        ("out", "post:1", CALL),
        ("meta", "post:1", &http(401, "application/json")),
        ("in", "post:1", r#"{"error":"unauthorized"}"#),
    ]);
    assert_eq!(json_not_rpc, []);

    let ok = http(200, "application/json");
    let rules = check(&[
        ("out", "post:1", CALL),
        ("meta", "post:1", &ok),
        ("in", "post:1", "<html>not json</html>"),
    ]);
    assert_eq!(rules, [Rule::JsonrpcInvalid]);
    // Another channel's error does not excuse this one.
    let rules = check(&[
        ("out", "post:1", CALL),
        ("meta", "post:2", &http(500, "text/html")),
        ("meta", "post:1", &ok),
        ("in", "post:1", "<html>not json</html>"),
    ]);
    assert_eq!(rules, [Rule::JsonrpcInvalid]);
}

#[test]
fn http_content_type_fires_for_a_request_answered_with_another_type() {
    let plain = http(200, "text/plain");
    assert_eq!(
        check(&[
            ("out", "post:1", CALL),
            ("meta", "post:1", &plain),
            ("in", "post:1", DONE)
        ]),
        [Rule::HttpContentType]
    );
    let missing = r#"{"event":"http","method":"POST","status":200,"content_type":null,"session":null,"ms":1}"#;
    assert_eq!(
        check(&[
            ("out", "post:1", CALL),
            ("meta", "post:1", missing),
            ("in", "post:1", DONE)
        ]),
        [Rule::HttpContentType]
    );
    for ok in [
        "application/json",
        "application/json; charset=utf-8",
        "Text/Event-Stream",
    ] {
        let meta = http(200, ok);
        assert_eq!(
            check(&[
                ("out", "post:1", CALL),
                ("meta", "post:1", &meta),
                ("in", "post:1", DONE)
            ]),
            [],
            "{ok}"
        );
    }
    // A notification's 202 and a legacy endpoint's acknowledgement carry no answer.
    assert_eq!(
        check(&[
            ("out", "post:1", NOTE),
            ("meta", "post:1", &http(202, "text/plain"))
        ]),
        []
    );
    assert_eq!(
        check(&[("out", "post:1", NOTE), ("meta", "post:1", &plain)]),
        []
    );
    let sse_get = r#"{"event":"http","method":"GET","status":200,"content_type":"text/event-stream","session":null,"ms":1}"#;
    assert_eq!(
        check(&[
            ("meta", "sse", sse_get),
            ("out", "post:1", CALL),
            ("meta", "post:1", &plain),
            ("in", "sse", DONE),
        ]),
        []
    );
}
