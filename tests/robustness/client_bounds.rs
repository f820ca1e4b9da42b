//! mcpscope's own bounds, said where they bite, against real processes: a
//! hostile stdio server (tests/servers/hostile_stdio.py) for the headless
//! client, the stdio proxy with a raw host, `attach --print` on a proxy
//! that is killed, and the HTTP proxy on a port already taken.

use crate::support;
use crate::support::proxy;

use crate::support::{BIN, Output, Run, finish, headless};
use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// `python3 tests/servers/hostile_stdio.py MODE [N]`.
fn hostile(mode: &str, n: Option<usize>) -> Vec<String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/hostile_stdio.py");
    let mut v = vec![
        "python3".to_string(),
        script.display().to_string(),
        mode.into(),
    ];
    v.extend(n.map(|n| n.to_string()));
    v
}

/// `mcpscope call --tool t EXTRA... -- SERVER...`, recorded, whatever
/// its exit code.
/// `call` of a scripted server that answers its first line as
/// `initialize`: the handshake era, with no `server/discover` probe.
fn call(server: &[String], extra: &[&str]) -> Run {
    headless(["call", "--protocol", "legacy", "--tool", "t"])
        .args(extra)
        .server(server)
        .record()
        .run()
}

/// The `json` of every recorded meta event of kind `event`.
fn meta(lines: &[Value], event: &str) -> Vec<Value> {
    lines
        .iter()
        .filter(|l| l["dir"] == "meta" && l["json"]["event"] == event)
        .map(|l| l["json"].clone())
        .collect()
}

/// The text of the call's result (the hostile server answers with one text).
fn result_text(o: &Output) -> Value {
    let v: Value = serde_json::from_str(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is the result ({e}): {}\n{}", o.stdout, o.stderr));
    serde_json::from_str(v["content"][0]["text"].as_str().unwrap()).unwrap()
}

#[test]
fn elicit_defaults_that_leave_a_required_field_empty_are_declined_and_said() {
    let o = call(&hostile("elicit-required", None), &["--elicit", "defaults"]);
    // Declining is an answer the server handles: the call itself succeeded.
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        result_text(&o),
        serde_json::json!({"action": "decline"}),
        "defaults without the required name are never sent: {}",
        o.stderr
    );
    let said: Vec<&str> = o
        .stderr
        .lines()
        .filter(|l| l.contains("elicitation/create"))
        .collect();
    assert_eq!(said.len(), 1, "{}", o.stderr);
    assert!(
        said[0].contains("/name: required, missing") && said[0].contains("answered decline"),
        "{}",
        said[0]
    );
    let refused = meta(&o.trace(), "answer-refused");
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0]["answered"], "decline");
}

/// `call --timeout 30` on a server whose answer to the call is `mode`: it
/// must fail at once (exit 3, not a timeout's 4) naming the defect.
fn a_malformed_answer_fails_the_call(mode: &str, defect: &str) {
    let o = call(&hostile(mode, None), &["--timeout", "30"]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(o.stdout.is_empty(), "no result is printed: {}", o.stdout);
    let error = o.lines("[error]");
    assert_eq!(error.len(), 1, "{}", o.stderr);
    assert!(
        error[0].contains("tools/call") && error[0].contains(defect),
        "{}",
        error[0]
    );
    assert!(meta(&o.trace(), "timeout").is_empty());
}

#[test]
fn an_answer_that_is_not_utf8_fails_the_call_at_once() {
    a_malformed_answer_fails_the_call("answer-invalid-utf8", "invalid UTF-8");
}

#[test]
fn an_answer_with_a_key_written_twice_fails_the_call() {
    a_malformed_answer_fails_the_call("answer-duplicate-top", "duplicate key \"result\"");
    // The id itself: whichever of its values is the call's, the call has
    // its (malformed) answer and does not wait out the idle timeout.
    a_malformed_answer_fails_the_call("answer-duplicate-id", "duplicate key \"id\"");
    // Inside the result as well: clients would disagree on which value counts.
    a_malformed_answer_fails_the_call(
        "answer-duplicate-inner",
        "duplicate key \"content\" at /result",
    );
}

#[test]
fn a_roots_list_storm_says_how_many_requests_went_unanswered() {
    let n = 100_000;
    let o = call(
        &hostile("roots-storm", Some(n)),
        &["--quiet", "--root", "/tmp"],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines = o.trace();
    let asked = lines
        .iter()
        .filter(|l| l["dir"] == "in" && l["json"]["method"] == "roots/list")
        .count();
    assert_eq!(asked, n);
    let answered = lines
        .iter()
        .filter(|l| l["dir"] == "out" && l["json"]["result"]["roots"].is_array())
        .count();
    let dropped = meta(&lines, "server-request-dropped");
    let count: u64 = dropped.iter().map(|e| e["count"].as_u64().unwrap()).sum();
    // 100,000 at once against a backlog of 1,024: most are dropped.
    assert!(count > 0, "the storm outran the backlog");
    // One event per read batch, not per request, and each carries the total so far.
    assert!(dropped.len() as u64 <= count);
    assert!(dropped.len() < 1_000, "{} events", dropped.len());
    assert_eq!(dropped.last().unwrap()["total"].as_u64(), Some(count));
    let waiting = n - answered - count as usize;
    assert!(waiting <= 1024, "{waiting} were still waiting");
    let said = o.lines("[protocol]");
    assert_eq!(said.len(), 1, "{}", o.stderr);
    assert!(
        said[0].contains(&format!("{count} server requests were dropped")),
        "{}",
        said[0]
    );
    // And a finding: the server asked faster than it could be answered.
    let check = support::run(&["check", "--trace", o.trace_path().to_str().unwrap()]);
    assert!(
        check
            .stdout
            .contains("server-requests-unanswered (warning)"),
        "{}",
        check.stdout
    );
}

#[test]
fn progress_for_tokens_no_request_carried_is_counted_not_printed_line_by_line() {
    let n = 20_000;
    let o = call(&hostile("stray-progress", Some(n)), &[]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let progress = o.lines("[progress]");
    assert!(
        progress.len() < 30,
        "{} lines: {:?}",
        progress.len(),
        &progress[..30]
    );
    // The first few of each token as they come, then what the rest came to.
    for token in ["stray-a", "stray-b"] {
        let total: Vec<&&str> = progress
            .iter()
            .filter(|l| l.contains(&format!("\"{token}\": {} notifications in all", n / 2)))
            .collect();
        assert_eq!(total.len(), 1, "{token}: {progress:#?}");
        assert!(total[0].contains("no request carried"), "{}", total[0]);
    }
    assert!(progress[0].starts_with("[progress] ? 0"), "{progress:#?}");
    let recorded = o
        .trace()
        .iter()
        .filter(|l| l["json"]["method"] == "notifications/progress")
        .count();
    assert_eq!(recorded, n, "the trace keeps every one");
}

#[test]
fn a_frame_larger_than_a_quarter_of_max_store_is_cut() {
    // A 5 MiB log line, then the result, with the smallest store (16 MiB).
    let script = r#"read -r l; printf '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"sh"}}}\n'
read -r l; read -r l
printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"'
head -c 5242880 /dev/zero | tr '\0' x
printf '"}}\n{"jsonrpc":"2.0","id":1,"result":{"content":[]}}\n'
read -r l"#;
    let server = vec!["sh".to_string(), "-c".into(), script.into()];
    let o = call(&server, &["--quiet", "--max-store", "16MiB"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines = o.trace();
    let cut = meta(&lines, "oversized");
    assert_eq!(cut.len(), 1, "{}", o.stderr);
    assert_eq!(cut[0]["kept"], 4 << 20);
    assert_eq!(cut[0]["bytes"], 5242880 + 86);
}

#[test]
fn an_answer_cut_to_the_frame_cap_fails_the_call_at_once() {
    let script = r#"read -r l; printf '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"sh"}}}\n'
read -r l; read -r l
printf '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"'
head -c 5242880 /dev/zero | tr '\0' x
printf '"}]}}\n'
read -r l"#;
    let server = vec!["sh".to_string(), "-c".into(), script.into()];
    let o = call(
        &server,
        &["--quiet", "--max-store", "16MiB", "--timeout", "30"],
    );
    assert_eq!(o.code, 3, "{}", o.stderr);
    let error = o.lines("[error]");
    assert_eq!(error.len(), 1, "{}", o.stderr);
    assert!(
        error[0].contains("over the frame cap") && error[0].contains("4194304"),
        "{}",
        error[0]
    );
    assert!(meta(&o.trace(), "timeout").is_empty());
}

/// Through the stdio proxy, with an observer queue of 64 KiB: the start of
/// a line is observed, the middle of it cannot be (pieces of 256 KiB do
/// not fit the queue), and the whole line is counted as missing — every
/// byte the host got is either in the trace or in an `observer-behind`.
#[test]
fn the_stdio_proxy_counts_the_whole_line_a_gap_cut_through() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let argv = proxy::proxied(&hostile("split-line", Some(4 << 20)), &trace, &[]);
    let mut proxy = Command::new(&argv[0])
        .args(&argv[1..])
        .env("MCPSCOPE_RUNTIME_DIR", d.path())
        .env("MCPSCOPE_PROXY_QUEUE", "65536")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let dog = support::watchdog(&proxy, std::time::Duration::from_secs(120));
    let mut out = proxy.stdout.take().unwrap();
    // The line's first 1,000 bytes (and its opening) reached the host, so
    // the observer was offered them on their own; only then the rest.
    let mut start = vec![0u8; 83 + 1000];
    out.read_exact(&mut start).unwrap();
    let mut stdin = proxy.stdin.take().unwrap();
    stdin.write_all(b"go\n").unwrap();
    drop(stdin);
    let mut rest = Vec::new();
    out.read_to_end(&mut rest).unwrap();
    let mut err = String::new();
    proxy
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(proxy.wait().unwrap().success(), "{err}");
    dog.disarm();
    let host_got = [start, rest].concat();

    let recs = proxy::recorded(&trace);
    let stored: usize = proxy::dir_frames(&recs, "in")
        .iter()
        .map(|f| f.len() + 1)
        .sum();
    let missing: u64 = recs
        .iter()
        .filter(|r| r.dir == "meta")
        .filter_map(|r| serde_json::from_slice::<Value>(&r.bytes).ok())
        .filter(|v| v["event"] == "observer-behind" && v["stream"] == "server→host")
        .map(|v| v["bytes"].as_u64().unwrap())
        .sum();
    assert!(missing > 0, "the queue could not hold the line: {err}");
    assert_eq!(
        stored as u64 + missing,
        host_got.len() as u64,
        "every forwarded byte is stored or counted missing"
    );
    assert!(
        err.contains(&format!("{missing} bytes were forwarded but are missing")),
        "{err}"
    );
}

#[test]
fn attach_print_on_a_proxy_killed_mid_session_says_so_and_fails() {
    let d = tempfile::tempdir().unwrap();
    let mut argv = vec![
        BIN.to_string(),
        "proxy".into(),
        "--name".into(),
        "doomed".into(),
        "--".into(),
    ];
    argv.extend(proxy::demo());
    let mut h = proxy::Host::start(&argv, d.path());
    h.initialize();
    let mut attach = Command::new(BIN)
        .args(["attach", "doomed", "--print"])
        .env("MCPSCOPE_RUNTIME_DIR", d.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let dog = support::watchdog(&attach, std::time::Duration::from_secs(60));
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(attach.stdout.take().unwrap()));
    // Following: the handshake so far is printed.
    assert!(
        lines
            .by_ref()
            .map(|l| l.unwrap())
            .any(|l| l.contains("initialize")),
        "attach printed the session"
    );
    // SAFETY: kill(2) on our own unreaped child.
    unsafe { libc::kill(h.child.id() as i32, libc::SIGKILL) };
    h.child.wait().unwrap();
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    let mut err = String::new();
    attach
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let st = attach.wait().unwrap();
    assert!(!dog.disarm(), "attach ended by itself");
    assert_eq!(st.code(), Some(3), "{err}\n{rest:#?}");
    // Last, after a word on a cut last line if the kill cut one.
    let said = err.lines().last().unwrap_or_default();
    assert!(
        said.contains("ended without closing the session")
            && said.contains(&h.child.id().to_string()),
        "{err}"
    );
}

#[test]
fn an_http_proxy_on_a_busy_port_fails_before_creating_its_recording() {
    let d = tempfile::tempdir().unwrap();
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = busy.local_addr().unwrap().to_string();
    let rec = d.path().join("never.jsonl");
    let o = finish(
        Command::new(BIN)
            .args([
                "proxy",
                "--listen",
                &addr,
                "--url",
                "http://127.0.0.1:9/mcp",
            ])
            .args(["--record", rec.to_str().unwrap()])
            .env("MCPSCOPE_RUNTIME_DIR", d.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("cannot listen on"), "{}", o.stderr);
    assert!(!rec.exists(), "no empty trace is left behind");
    // Without --record, no trace of its own is left in the sessions directory.
    let o = finish(
        Command::new(BIN)
            .args([
                "proxy",
                "--listen",
                &addr,
                "--url",
                "http://127.0.0.1:9/mcp",
            ])
            .env("MCPSCOPE_RUNTIME_DIR", d.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    let left: Vec<_> = std::fs::read_dir(d.path().join("sessions"))
        .map(|r| r.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    drop(busy);
}
