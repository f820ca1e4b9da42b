//! `mcpscope proxy` between a raw host (this test) and real servers: what
//! the host receives through the proxy equals, byte for byte, what it
//! receives directly; what the server receives equals what the host sent;
//! the recording has every frame of both directions in wire order; ends,
//! exit statuses and signals pass through as a direct connection shows
//! them. Plus `sessions`, `attach --print` and `wrap`.

use crate::support::proxy::*;
use serde_json::json;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

/// A server writing garbage: invalid UTF-8, CRLF, a line in two writes, a
/// last line without terminator; it copies its stdin to `$1` and exits 7.
fn garbage_server(copy: &Path) -> Vec<String> {
    let script = r#"printf 'garbage \377\376 not utf8\r\n'
printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"crlf"}}\r\n'
printf 'partial-'
sleep 0.05
printf 'line\n\n'
printf 'no newline at the end'
cat > "$1"
exit 7"#;
    vec![
        "sh".into(),
        "-c".into(),
        script.into(),
        "sh".into(),
        copy.display().to_string(),
    ]
}

/// What the host writes to the garbage server, in pieces.
const HOST_PIECES: &[&[u8]] = &[
    b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\xff",
    b"\xfe\n",
    b"\n   spaces   \n",
    b"tail without newline",
];

fn run_garbage(argv: &[String], rt: &Path) -> (Vec<u8>, std::process::ExitStatus) {
    let mut h = Host::start(argv, rt);
    for p in HOST_PIECES {
        h.write(p);
    }
    let (out, st, _) = h.finish();
    (out, st)
}

#[test]
fn garbage_and_invalid_utf8_pass_unchanged_both_ways_and_are_recorded_in_order() {
    let d = tempfile::tempdir().unwrap();
    let direct_copy = d.path().join("direct-in");
    let proxied_copy = d.path().join("proxied-in");
    let trace = d.path().join("t.jsonl");
    let (direct_out, direct_st) = run_garbage(&garbage_server(&direct_copy), d.path());
    let (proxied_out, proxied_st) = run_garbage(
        &proxied(&garbage_server(&proxied_copy), &trace, &[]),
        d.path(),
    );
    let sent: Vec<u8> = HOST_PIECES.concat();
    assert_eq!(
        direct_out, proxied_out,
        "host stdout differs through the proxy"
    );
    assert!(proxied_out.starts_with(b"garbage \xff\xfe not utf8\r\n"));
    assert_eq!(std::fs::read(&direct_copy).unwrap(), sent);
    assert_eq!(std::fs::read(&proxied_copy).unwrap(), sent);
    assert_eq!(direct_st.code(), Some(7));
    assert_eq!(proxied_st.code(), Some(7));

    // Every frame of both directions, exactly, in each direction's order.
    let recs = recorded(&trace);
    assert_eq!(dir_frames(&recs, "in"), split_lines(&proxied_out));
    assert_eq!(dir_frames(&recs, "out"), split_lines(&sent));
    assert!(recs.iter().any(|r| r.dir == "meta"
        && String::from_utf8_lossy(&r.bytes).contains("\"event\":\"exit\"")
        && String::from_utf8_lossy(&r.bytes).contains("\"code\":7")));
}

/// initialize; a 20,000-notification flood; plain text and non-JSON-RPC on
/// stdout; the host's bytes and the recording.
fn demo_session(argv: &[String], rt: &Path) -> (Vec<u8>, Vec<u8>, std::process::ExitStatus) {
    let mut h = Host::start(argv, rt);
    h.initialize();
    let call = |tool: &str, args: serde_json::Value, tok: &str| json!({"name": tool, "arguments": args, "_meta": {"progressToken": tok}});
    let r = h.request(
        2,
        "tools/call",
        call("fault_flood", json!({"count": 20000}), "f"),
    );
    assert_eq!(r["result"]["isError"], json!(false), "{r}");
    h.request(
        3,
        "tools/call",
        call("fault_stdout_garbage", json!({}), "g"),
    );
    h.request(4, "tools/call", call("fault_not_jsonrpc", json!({}), "n"));
    let sent = h.sent.clone();
    let (out, st, _) = h.finish();
    (out, sent, st)
}

#[test]
fn a_demo_session_with_a_flood_reaches_the_host_unchanged() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (direct, _, direct_st) = demo_session(&demo(), d.path());
    let (through, sent, st) = demo_session(&proxied(&demo(), &trace, &[]), d.path());
    assert_eq!(direct.len(), through.len());
    assert!(direct == through, "host stdout differs through the proxy");
    assert_eq!(direct_st.code(), st.code());
    let recs = recorded(&trace);
    let ins = dir_frames(&recs, "in");
    assert_eq!(ins, split_lines(&through));
    assert_eq!(dir_frames(&recs, "out"), split_lines(&sent));
    assert!(ins.iter().filter(|l| l.starts_with(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"")).count() >= 20_000);
    // Wire order across directions: each response comes after its request.
    let seq_of = |dir: &str, needle: &str| {
        recs.iter()
            .find(|r| r.dir == dir && String::from_utf8_lossy(&r.bytes).contains(needle))
            .unwrap_or_else(|| panic!("no {dir} frame with {needle}"))
            .seq
    };
    for id in 2..=4 {
        let req = seq_of(
            "out",
            &format!("\"id\":{id},\"jsonrpc\":\"2.0\",\"method\""),
        );
        let resp = seq_of("in", &format!("\"id\":{id},\"jsonrpc\":\"2.0\",\"result\""));
        assert!(req < resp, "request {id} at {req}, response at {resp}");
    }
}

/// A server that answers `initialize`, then on the next request sends one
/// progress notification and dies of SIGKILL mid-call.
fn dying_server() -> Vec<String> {
    let script = r#"read -r l
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"dying","version":"1"}}}'
read -r l
read -r l
printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}'
echo 'dying mid-call' >&2
kill -KILL $$"#;
    vec!["sh".into(), "-c".into(), script.into()]
}

#[test]
fn a_server_dying_mid_call_ends_the_host_side_as_directly() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let run = |argv: &[String]| {
        let mut h = Host::start(argv, d.path());
        h.initialize();
        h.write(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":{},\"_meta\":{\"progressToken\":1}}}\n");
        // No response comes: the host sees its stdout end.
        let (out, st, _) = h.finish();
        (out, st)
    };
    let (direct, direct_st) = run(&dying_server());
    let (through, st) = run(&proxied(&dying_server(), &trace, &[]));
    assert_eq!(direct, through);
    assert!(through.ends_with(b"\"progress\":1}}\n"));
    assert_eq!(direct_st.signal(), Some(libc::SIGKILL));
    assert_eq!(st.signal(), Some(libc::SIGKILL));
    let recs = recorded(&trace);
    assert!(
        recs.iter()
            .any(|r| r.dir == "stderr" && r.bytes == b"dying mid-call")
    );
    assert!(
        recs.iter()
            .any(|r| r.dir == "meta" && String::from_utf8_lossy(&r.bytes).contains("\"signal\":9"))
    );
}

#[test]
fn stderr_written_after_the_server_closed_stdout_is_recorded() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    // The server exits at once; a process it leaves behind (its stdout
    // closed) writes to the stderr it shares a moment later.
    let argv: Vec<String> = vec![
        "sh".into(),
        "-c".into(),
        "read -r l; (exec 1>&-; sleep 0.2; echo 'late words' >&2) & exit 3".into(),
    ];
    let mut h = Host::start(&proxied(&argv, &trace, &[]), d.path());
    h.write(b"{}\n");
    let (_, st, err) = h.finish();
    assert_eq!(st.code(), Some(3));
    assert!(String::from_utf8_lossy(&err).contains("late words"));
    let recs = recorded(&trace);
    assert!(
        recs.iter()
            .any(|r| r.dir == "stderr" && r.bytes == b"late words"),
        "{recs:?}"
    );
}

#[test]
fn the_proxy_ends_with_the_server_even_while_the_host_keeps_its_stdin_open() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    // Exits 5 mid-call (the tests' watchdog would kill with SIGKILL instead).
    let exiting: Vec<String> = dying_server()
        .into_iter()
        .map(|a| a.replace("kill -KILL $$", "exit 5"))
        .collect();
    let mut h = Host::start(&proxied(&exiting, &trace, &[]), d.path());
    h.initialize();
    h.write(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":{}}}\n");
    let (out, st, _) = h.wait_stdin_open();
    assert!(out.ends_with(b"\"progress\":1}}\n"));
    assert_eq!(st.code(), Some(5));
    let recs = recorded(&trace);
    assert_eq!(dir_frames(&recs, "out").len(), 3);
}

#[test]
fn a_host_gone_mid_call_ends_the_server_and_the_proxy() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let run = |argv: &[String]| {
        let mut h = Host::start(argv, d.path());
        h.initialize();
        h.write(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"fault_hang\",\"arguments\":{},\"_meta\":{\"progressToken\":1}}}\n");
        h.wait_line(|v| v["method"] == "notifications/progress");
        // The host goes away mid-call: its end of stdin closes.
        let (_, st, _) = h.finish();
        st
    };
    let direct = run(&demo());
    let through = run(&proxied(&demo(), &trace, &[]));
    assert_eq!(direct.code(), through.code());
    assert_eq!(direct.signal(), through.signal());
    // The server the proxy started is gone, and said so in the trace.
    let recs = recorded(&trace);
    let spawn = recs
        .iter()
        .find(|r| String::from_utf8_lossy(&r.bytes).contains("\"event\":\"spawn\""))
        .unwrap();
    let pid = serde_json::from_slice::<serde_json::Value>(&spawn.bytes).unwrap()["pid"]
        .as_i64()
        .unwrap();
    // SAFETY: kill(2) with signal 0 only checks for the process.
    let alive = unsafe { libc::kill(pid as i32, 0) };
    assert_ne!(alive, 0, "server {pid} still runs");
    assert!(
        recs.last()
            .is_some_and(|r| String::from_utf8_lossy(&r.bytes).contains("\"event\":\"exit\""))
    );
}

#[test]
fn sigterm_to_the_proxy_reaches_the_server_and_its_end_is_the_proxys() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let run = |argv: &[String]| {
        let mut h = Host::start(argv, d.path());
        h.initialize();
        // SAFETY: kill(2) on our own child.
        unsafe { libc::kill(h.child.id() as i32, libc::SIGTERM) };
        // stdin stays open: closing it now would race the forwarded signal
        // (a server that ends on EOF could end before the TERM reaches it
        // through the proxy), which is not what this test is about.
        let (_, st, _) = h.wait_stdin_open();
        st
    };
    // A server that exits 143 on SIGTERM, and one left to die of it. Its
    // sleeper is killed with KILL: a TERM reaching the forked child before
    // it execs `sleep` would be caught by the trap it inherited, and the
    // sleeper would outlive the shell holding stdout open.
    let trapping: Vec<String> = [
        "sh",
        "-c",
        "trap 'kill -KILL $!; exit 143' TERM; read -r l; printf '%s\\n' '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}'; sleep 1000 & wait; exit 3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let direct = run(&trapping);
    let through = run(&proxied(&trapping, &trace, &[]));
    assert_eq!(direct.code(), Some(143));
    assert_eq!(through.code(), Some(143));
    let direct = run(&demo());
    let through = run(&proxied(&demo(), &trace, &[]));
    assert_eq!(
        (direct.code(), direct.signal()),
        (through.code(), through.signal())
    );
}

#[test]
fn a_command_that_cannot_start_is_an_error_on_stderr() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let argv = proxied(&["/nonexistent/server".to_string()], &trace, &[]);
    let h = Host::start(&argv, d.path());
    let (out, st, err) = h.finish();
    assert!(out.is_empty());
    assert_eq!(st.code(), Some(3));
    let err = String::from_utf8_lossy(&err);
    assert!(
        err.starts_with("[mcpscope] error: cannot start \"/nonexistent/server\""),
        "{err}"
    );
}

#[test]
fn sessions_lists_a_live_proxy_and_attach_print_follows_it_to_its_end() {
    let d = tempfile::tempdir().unwrap();
    let argv = {
        let mut v = vec![
            BIN.to_string(),
            "proxy".into(),
            "--name".into(),
            "watched".into(),
            "--".into(),
        ];
        v.extend(demo());
        v
    };
    let mut h = Host::start(&argv, d.path());
    h.initialize();
    h.request(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "before attach"}}),
    );
    let out = std::process::Command::new(BIN)
        .args(["sessions", "--json"])
        .env("MCPSCOPE_RUNTIME_DIR", d.path())
        .output()
        .unwrap();
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list.as_array().map(Vec::len), Some(1), "{list}");
    assert_eq!(list[0]["name"], "watched");
    assert_eq!(list[0]["pid"], h.child.id());
    assert_eq!(list[0]["transport"], "stdio");
    assert!(list[0]["server"][1] == "demo-server", "{list}");
    let text = std::process::Command::new(BIN)
        .args(["sessions"])
        .env("MCPSCOPE_RUNTIME_DIR", d.path())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("watched ")),
        "{text}"
    );

    // A viewer joining late gets the session so far, then what follows.
    let mut attach = std::process::Command::new(BIN)
        .args(["attach", "watched", "--print"])
        .env("MCPSCOPE_RUNTIME_DIR", d.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let dog = crate::support::watchdog(&attach, LIMIT);
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(attach.stdout.take().unwrap()));
    let mut seen = Vec::new();
    let mut until = |needle: &str, seen: &mut Vec<String>| {
        for l in lines.by_ref() {
            let l = l.unwrap();
            seen.push(l.clone());
            if l.contains(needle) {
                return;
            }
        }
        panic!("attach ended before {needle:?}: {seen:#?}");
    };
    until("before attach", &mut seen);
    h.request(
        3,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "after attach"}}),
    );
    until("after attach", &mut seen);
    let (_, st, _) = h.finish();
    assert!(st.success());
    // The session ended: attach prints the rest and ends too.
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    assert!(attach.wait().unwrap().success());
    dog.disarm();
    assert!(rest.iter().any(|l| l.contains("exit")), "{rest:#?}");
    let all = [seen, rest].concat();
    let outs = all.iter().filter(|l| l.contains("  out  ")).count();
    let ins = all.iter().filter(|l| l.contains("  in  ")).count();
    assert!(outs >= 4 && ins >= 3, "{all:#?}");
    // Gone from the list, and its own trace file removed.
    let out = std::process::Command::new(BIN)
        .args(["sessions", "--json"])
        .env("MCPSCOPE_RUNTIME_DIR", d.path())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
    let left: Vec<_> = std::fs::read_dir(d.path().join("sessions"))
        .unwrap()
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn entries_of_dead_proxies_are_pruned_and_attach_says_what_is_live() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("sessions");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let mut dead = std::process::Command::new("true").spawn().unwrap();
    let pid = dead.id();
    dead.wait().unwrap();
    let trace = dir.join(format!("{pid}.jsonl"));
    std::fs::write(&trace, "{\"mcpscope_trace\":1}\n").unwrap();
    let entry = json!({"name": "old", "pid": pid, "transport": "stdio", "server": ["x"],
        "trace": trace, "owned_trace": true, "started": "2026-01-01T00:00:00Z",
        "started_ms": 0, "events": 3});
    std::fs::write(dir.join(format!("{pid}.json")), entry.to_string()).unwrap();
    let out = std::process::Command::new(BIN)
        .args(["sessions"])
        .env("MCPSCOPE_RUNTIME_DIR", d.path())
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "no live proxy sessions"
    );
    assert!(std::fs::read_dir(&dir).unwrap().next().is_none());
    let out = std::process::Command::new(BIN)
        .args(["attach", "old", "--print"])
        .env("MCPSCOPE_RUNTIME_DIR", d.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no live proxy session named \"old\""));
}

#[test]
fn wrap_writes_a_config_that_runs_the_server_through_the_proxy() {
    let d = tempfile::tempdir().unwrap();
    let cfg = d.path().join("claude_desktop_config.json");
    let original = format!(
        "{{\n  // the demo\n  \"mcpServers\": {{\n    \"demo\": {{\"command\": \"{BIN}\", \"args\": [\"demo-server\"]}},\n  }}\n}}\n"
    );
    std::fs::write(&cfg, &original).unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(BIN)
            .args(args)
            .env("MCPSCOPE_RUNTIME_DIR", d.path())
            .output()
            .unwrap()
    };
    let c = cfg.display().to_string();
    let printed = run(&["wrap", "--config", &c, "--server", "demo"]);
    assert!(printed.status.success());
    let entry: serde_json::Value = serde_json::from_slice(&printed.stdout).unwrap();
    assert_eq!(
        entry["demo"]["args"],
        json!(["proxy", "--name", "demo", "--", BIN, "demo-server"])
    );
    assert_eq!(
        std::fs::read_to_string(&cfg).unwrap(),
        original,
        "printing changes nothing"
    );
    let written = run(&["wrap", "--config", &c, "--server", "demo", "--write"]);
    assert!(
        written.status.success(),
        "{}",
        String::from_utf8_lossy(&written.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(d.path().join("claude_desktop_config.json.bak")).unwrap(),
        original
    );
    let now = std::fs::read_to_string(&cfg).unwrap();
    assert!(now.contains("// the demo"), "{now}");
    // A host using the entry now talks to the server through the proxy.
    let tools = run(&["tools", "--config", &c, "--server", "demo"]);
    assert!(
        tools.status.success(),
        "{}",
        String::from_utf8_lossy(&tools.stderr)
    );
    assert!(String::from_utf8_lossy(&tools.stdout).contains("upload_file"));
}

#[test]
fn an_observer_that_cannot_keep_up_costs_the_host_nothing_and_says_so() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (direct, _, _) = demo_session(&demo(), d.path());
    // A queue of one byte: the observer keeps nothing.
    let argv = proxied(&demo(), &trace, &[]);
    let mut h = Host::start(
        &[vec!["env".into(), "MCPSCOPE_PROXY_QUEUE=1".into()], argv].concat(),
        d.path(),
    );
    h.initialize();
    let r = h.request(
        2,
        "tools/call",
        json!({"name": "fault_flood", "arguments": {"count": 20000}, "_meta": {"progressToken": "f"}}),
    );
    assert_eq!(r["result"]["isError"], json!(false));
    h.request(
        3,
        "tools/call",
        json!({"name": "fault_stdout_garbage", "arguments": {}, "_meta": {"progressToken": "g"}}),
    );
    h.request(
        4,
        "tools/call",
        json!({"name": "fault_not_jsonrpc", "arguments": {}, "_meta": {"progressToken": "n"}}),
    );
    let (through, st, err) = h.finish();
    assert!(st.success());
    assert!(direct == through, "host stdout differs through the proxy");
    let err = String::from_utf8_lossy(&err);
    assert!(err.contains("[mcpscope] the observer fell behind"), "{err}");
    let recs = recorded(&trace);
    let behind: Vec<serde_json::Value> = recs
        .iter()
        .filter(|r| r.dir == "meta")
        .filter_map(|r| serde_json::from_slice::<serde_json::Value>(&r.bytes).ok())
        .filter(|v| v["event"] == "observer-behind")
        .collect();
    let lost_in: u64 = behind
        .iter()
        .filter(|v| v["stream"] == "server→host")
        .map(|v| v["bytes"].as_u64().unwrap())
        .sum();
    assert_eq!(lost_in, through.len() as u64, "{behind:?}");
    assert!(dir_frames(&recs, "in").is_empty());
}

#[test]
fn a_response_is_never_recorded_before_its_request() {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    // Answers each request the moment it reads it.
    let answering: Vec<String> = ["sed", "-u", "s/\"method\":\"ping\"/\"result\":{}/"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let mut h = Host::start(&proxied(&answering, &trace, &[]), d.path());
    let n = 2000;
    for id in 1..=n {
        h.write(format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n").as_bytes());
        h.wait_line(|v| v["id"] == id && v.get("result").is_some());
    }
    let (_, st, _) = h.finish();
    assert!(st.success());
    let recs = recorded(&trace);
    let mut asked = std::collections::HashSet::new();
    for r in &recs {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&r.bytes) else {
            continue;
        };
        match r.dir.as_str() {
            "out" => {
                asked.insert(v["id"].as_u64().unwrap());
            }
            "in" => {
                let id = v["id"].as_u64().unwrap();
                assert!(
                    asked.contains(&id),
                    "response {id} recorded before its request"
                );
            }
            _ => {}
        }
    }
    assert_eq!(asked.len(), n as usize);
}
