//! Damaged answers from a real stdio server: each scripted server (a small
//! python3 process) answers `initialize`, then writes the exact bytes under
//! test after the `tools/call`, then keeps its stdout open. A call that waits
//! for a malformed answer would hang until the watchdog kills it, so every
//! test here also proves mcpscope does not wait out the (hour-long) timeout.

use crate::support::{Output, run};

const INIT_OK: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"py"}}}"#;

/// The server: answer `initialize` with `init`, read `notifications/initialized`
/// and the `tools/call`, write each of `frames` as one line (exact UTF-8), then
/// hold stdout open until mcpscope closes stdin.
const SCRIPT: &str = r#"
import sys
out = sys.stdout.buffer
def line():
    return sys.stdin.buffer.readline()
line()
out.write(sys.argv[1].encode() + b"\n"); out.flush()
line(); line()
for f in sys.argv[2:]:
    out.write(f.encode() + b"\n"); out.flush()
sys.stdin.buffer.read()
"#;

fn server(init: &str, frames: &[&str]) -> Vec<String> {
    let mut argv = vec![
        "python3".to_string(),
        "-c".into(),
        SCRIPT.into(),
        init.into(),
    ];
    argv.extend(frames.iter().map(|f| f.to_string()));
    argv
}

fn call_with(cmd: &str, init: &str, frames: &[&str], extra: &[&str]) -> Output {
    // The scripts answer their first line as `initialize`: the handshake
    // era, with no `server/discover` probe.
    let mut args: Vec<String> = vec![
        cmd.into(),
        "--protocol".into(),
        "legacy".into(),
        "--tool".into(),
        "t".into(),
        "--token".into(),
        "tok".into(),
        "--timeout".into(),
        "3600".into(),
        "--max-timeout".into(),
        "3600".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    args.push("--".into());
    args.extend(server(init, frames));
    run(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn call(frames: &[&str]) -> Output {
    call_with("call", INIT_OK, frames, &[])
}

fn has(o: &Output, prefix: &str, needle: &str) -> bool {
    o.lines(prefix).iter().any(|l| l.contains(needle))
}

#[test]
fn an_out_of_range_number_is_kept_as_written_and_its_place_named() {
    let o = call(&[
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"big":1e999,"neg":-2E+400,"n":10},"isError":false}}"#,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains(r#""big": 1e999"#), "{}", o.stdout);
    assert!(o.stdout.contains(r#""neg": -2E+400"#), "{}", o.stdout);
    assert!(o.stdout.contains(r#""n": 10"#), "{}", o.stdout);
    assert!(
        has(&o, "[protocol]", "1e999") && has(&o, "[protocol]", "/structuredContent/big"),
        "{}",
        o.stderr
    );
    assert!(
        has(&o, "[protocol]", "/structuredContent/neg"),
        "{}",
        o.stderr
    );
    assert!(!o.stderr.contains("[error]"), "{}", o.stderr);
    // --json: one line, the same tokens.
    let o = call_with(
        "call",
        INIT_OK,
        &[r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"x":[1e999, 2]}}"#],
        &["--json"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, "{\"content\":[],\"x\":[1e999,2]}\n");
}

#[test]
fn progress_params_that_are_an_array_are_progress_invalid() {
    let o = call(&[
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":["tok",1,2]}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(has(&o, "[finding]", "progress-invalid"), "{}", o.stderr);
    assert!(has(&o, "[protocol]", "not an object"), "{}", o.stderr);
    assert!(o.lines("[progress]").is_empty(), "{}", o.stderr);
}

#[test]
fn an_unsupported_protocol_version_is_reported_and_the_call_goes_on() {
    let init = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"1999-01-01","capabilities":{"tools":{}},"serverInfo":{"name":"py"}}}"#;
    let frames = [r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#];
    let o = call_with("call", init, &frames, &[]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        has(&o, "[finding]", "initialize-unsupported-version")
            && has(&o, "[finding]", "1999-01-01"),
        "{}",
        o.stderr
    );
    // `check` fails the session on it: the finding is an error.
    let o = call_with("check", init, &frames, &[]);
    assert_eq!(o.code, 1, "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stdout.contains("initialize-unsupported-version"),
        "{}",
        o.stdout
    );
}

#[test]
fn a_result_that_is_not_an_object_fails_the_call() {
    let o = call(&[r#"{"jsonrpc":"2.0","id":1,"result":5}"#]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(o.stdout.is_empty(), "{}", o.stdout);
    assert!(has(&o, "[finding]", "result-not-object"), "{}", o.stderr);
    assert!(has(&o, "[protocol]", "not an object"), "{}", o.stderr);
    assert!(has(&o, "[error]", "not an object"), "{}", o.stderr);
}

#[test]
fn an_error_with_a_null_id_answers_the_only_request_in_flight() {
    let o =
        call(&[r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(has(&o, "[finding]", "response-null-id"), "{}", o.stderr);
    assert!(has(&o, "[protocol]", "id null"), "{}", o.stderr);
    assert!(
        has(&o, "[error]", "-32700") && has(&o, "[error]", "id null"),
        "{}",
        o.stderr
    );
}

#[test]
fn malformed_answers_to_a_pending_request_fail_it_at_once_with_the_reason() {
    let cases: &[(&str, &str, &str)] = &[
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]},"error":{"code":1,"message":"m"}}"#,
            "both \"result\" and \"error\"",
            "jsonrpc-invalid",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.0,"result":{"content":[]}}"#,
            "1.0",
            "jsonrpc-invalid",
        ),
        (
            "\u{FEFF}{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}",
            "byte order mark",
            "stdout-not-jsonrpc",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]},"result":{"content":[]}}"#,
            "duplicate key \"result\"",
            "jsonrpc-invalid",
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":"it broke"}"#,
            "\"error\" must be an object",
            "jsonrpc-invalid",
        ),
    ];
    for (frame, why, rule) in cases {
        let o = call(&[frame]);
        assert_eq!(o.code, 3, "{frame}: {}", o.stderr);
        assert!(o.stdout.is_empty(), "{frame}: {}", o.stdout);
        assert!(has(&o, "[protocol]", why), "{frame}: {}", o.stderr);
        assert!(
            has(&o, "[error]", "malformed") && has(&o, "[error]", why),
            "{frame}: {}",
            o.stderr
        );
        assert!(has(&o, "[finding]", rule), "{frame}: {}", o.stderr);
    }
}

#[test]
fn invisible_characters_are_shown_and_stdout_escapes_them() {
    let o = call(&[
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"logger\":\"a\u{200B}b\",\"data\":\"x\u{202E}y\u{2066}z\u{200E}\u{200F}\u{200D}\u{FEFF}\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"evil\u{202E}txt.exe\"}]}}",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let log = o.lines("[log]");
    assert_eq!(
        log,
        ["[log] info a<U+200B>b: x<U+202E>y<U+2066>z<U+200E><U+200F><U+200D><U+FEFF>"],
        "{}",
        o.stderr
    );
    assert!(o.stdout.contains(r#""evil\u202etxt.exe""#), "{}", o.stdout);
    assert!(!o.stdout.contains('\u{202E}'), "{}", o.stdout);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["content"][0]["text"], "evil\u{202E}txt.exe");
}

#[test]
fn tools_that_differ_only_by_an_invisible_character_look_different() {
    let list = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{}},{\"name\":\"ec\u{200B}ho\",\"inputSchema\":{}}]}}";
    let o = run(&{
        let mut a = vec![
            "tools".to_string(),
            "--protocol".into(),
            "legacy".into(),
            "--".into(),
        ];
        // `tools` sends no tools/call: the list answers the line after initialized.
        a.extend(server(INIT_OK, &[list]));
        a
    }
    .iter()
    .map(String::as_str)
    .collect::<Vec<_>>());
    assert_eq!(o.code, 0, "{}", o.stderr);
    let names: Vec<&str> = o
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(names, ["echo", "ec<U+200B>ho"], "{}", o.stdout);
}

#[test]
fn the_store_routes_a_malformed_answer_only_to_a_pending_request_of_ours() {
    use mcpscope::protocol::IdKey;
    use mcpscope::trace::{Dir, Route, Store};
    let mut s = Store::default();
    let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#;
    s.append_frame(Dir::Out, "stdio", 0, call, &mut Vec::new());
    let routed = |s: &mut Store, frame: &str| {
        let mut r = Vec::new();
        s.append_frame(Dir::In, "stdio", 0, frame.as_bytes(), &mut r);
        r
    };
    // Not ours, or not an answer: nothing to fail.
    for frame in [
        r#"{"jsonrpc":"2.0","id":2,"error":"x"}"#,
        r#"{"jsonrpc":"2.0","id":1.5,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}"#,
    ] {
        let r = routed(&mut s, frame);
        assert!(r.is_empty(), "{frame}: {r:?}");
    }
    for (frame, why) in [
        (r#"{"jsonrpc":"2.0","id":1.0,"result":{}}"#, "1.0"),
        (
            r#"{"jsonrpc":"1.0","id":1,"result":{}}"#,
            "\"jsonrpc\" is \"1.0\"",
        ),
    ] {
        let r = routed(&mut s, frame);
        assert!(
            matches!(&r[..], [Route::Malformed { id: IdKey::Int(1), why: w, .. }] if w.contains(why)),
            "{frame}: {r:?}"
        );
    }
    // Once answered properly, a later malformed frame is no longer routed.
    routed(&mut s, r#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    assert!(routed(&mut s, r#"{"jsonrpc":"2.0","id":1,"error":"x"}"#).is_empty());
}
