//! `mcpscope call` and `mcpscope tools` end to end: the real binary, real
//! child processes, real pipes.

use crate::support::*;
use serde_json::Value;

/// `mcpscope call --demo EXTRA...`
fn demo_call(extra: &[&str]) -> Headless {
    headless(["call", "--demo"]).args(extra)
}

#[test]
fn stdout_is_only_the_result_and_progress_goes_to_stderr() {
    let o = demo_call(&[
        "--tool",
        "upload_file",
        "--args",
        r#"{"size_bytes": 4096, "chunk_bytes": 1024, "delay_ms": 1}"#,
    ])
    .expect(0);
    let result: Value =
        serde_json::from_str(&o.stdout).expect("stdout is exactly one JSON document");
    assert_eq!(result["isError"], false);
    let progress = o.lines("[progress] ");
    assert!(!progress.is_empty(), "{}", o.stderr);
    assert_eq!(
        progress.last().copied(),
        Some(
            "[progress] upload_file 4096/4096 (100%) Read 4096 / 4096 bytes, preparing the upload"
        )
    );
    assert!(o.stderr.contains("[stderr] mcpscope-demo: started"));
}

#[test]
fn compact_json_and_quiet() {
    let o = demo_call(&[
        "--tool", "echo", "-a", "text=hi", "-a", "n=3", "--json", "--quiet",
    ])
    .expect(0);
    assert_eq!(o.stdout.lines().count(), 1);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let text = v["content"][0]["text"].as_str().unwrap();
    let echoed: Value = serde_json::from_str(text).unwrap();
    assert_eq!(echoed, serde_json::json!({"text": "hi", "n": 3}));
    assert!(
        o.lines("[stderr]").is_empty(),
        "quiet hides stderr lines: {}",
        o.stderr
    );
}

#[test]
fn no_token_means_no_progress() {
    let o = demo_call(&[
        "--tool",
        "build_report",
        "-a",
        "tasks=3",
        "-a",
        "delay_ms=1",
        "--token",
        "none",
        "--log-level",
        "debug",
    ])
    .expect(0);
    assert!(o.lines("[progress]").is_empty(), "{}", o.stderr);
    assert!(
        !o.lines("[log]").is_empty(),
        "logs still arrive: {}",
        o.stderr
    );
}

#[test]
fn tokens_are_echoed_exactly_and_steps_count_from_zero() {
    for (token, want) in [
        ("42", serde_json::json!(42)),
        ("my-token", serde_json::json!("my-token")),
    ] {
        let lines = demo_call(&[
            "--tool",
            "interactive_wizard",
            "-a",
            "questions=3",
            "-a",
            "delay_ms=1",
            "--token",
            token,
        ])
        .record()
        .expect(0)
        .trace();
        let call = frames(&lines, "out", "tools/call").next().unwrap();
        assert_eq!(call["params"]["_meta"]["progressToken"], want);
        let progress: Vec<&Value> = frames(&lines, "in", "notifications/progress").collect();
        assert!(!progress.is_empty());
        for p in &progress {
            assert_eq!(p["params"]["progressToken"], want);
        }
        assert_eq!(
            progress[0]["params"]["progress"], 0,
            "step 1 of 3 is sent as 0"
        );
        assert_eq!(progress[0]["params"]["total"], 3);
    }
}

#[test]
fn log_level_is_set_and_honoured() {
    let o = demo_call(&[
        "--tool",
        "build_report",
        "-a",
        "tasks=3",
        "-a",
        "delay_ms=1",
        "--log-level",
        "warning",
    ])
    .expect(0);
    let logs = o.lines("[log] ");
    assert!(!logs.is_empty(), "{}", o.stderr);
    for l in &logs {
        assert!(
            l.starts_with("[log] warning") || l.starts_with("[log] error"),
            "{l}"
        );
    }
}

#[test]
fn tool_error_exits_1_and_rpc_error_exits_1() {
    let o = demo_call(&[
        "--tool",
        "pipeline_wait",
        "-a",
        "polls=1",
        "-a",
        "interval_ms=1",
        "-a",
        "outcome=failed",
    ])
    .expect(1);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["isError"], true);

    let o = demo_call(&["--tool", "no_such_tool"]).expect(1);
    assert!(o.stdout.is_empty());
    assert!(o.stderr.contains("JSON-RPC error -32602"), "{}", o.stderr);
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["call", "--tool", "x"],
        vec!["call", "--demo", "--tool", "x", "--args", "{nope"],
        vec!["call", "--demo", "--tool", "x", "--timeout", "0"],
        vec!["call", "--demo", "--tool", "x", "-e", "NOEQUALS"],
        vec!["call", "--demo", "--tool", "x", "--protocol", "1999-01-01"],
        vec![
            "call",
            "--config",
            "/nonexistent/config.json",
            "--tool",
            "x",
        ],
        vec!["call", "--bogus-flag"],
    ] {
        let o = headless(&args).expect(2);
        assert!(!o.stderr.is_empty());
    }
}

#[test]
fn idle_timeout_is_reset_by_progress() {
    // Progress every ~250 ms keeps a 1 s idle timeout from firing during a 2 s call.
    let o = demo_call(&[
        "--tool",
        "sleep",
        "-a",
        "ms=2000",
        "--timeout",
        "1",
        "--max-timeout",
        "30",
    ])
    .expect(0);
    assert!(o.lines("[progress] sleep").len() >= 4);
}

#[test]
fn idle_timeout_without_progress_cancels_and_exits_4() {
    let o = demo_call(&[
        "--tool",
        "sleep",
        "-a",
        "ms=30000",
        "--token",
        "none",
        "--timeout",
        "0.3",
    ])
    .record()
    .expect(4);
    assert!(o.stderr.contains("idle timeout"), "{}", o.stderr);
    let lines = o.trace();
    let cancel = frames(&lines, "out", "notifications/cancelled")
        .next()
        .expect("a cancellation was sent");
    assert_eq!(cancel["params"]["requestId"], 1);
    assert!(
        lines
            .iter()
            .any(|l| l["dir"] == "meta" && l["json"]["event"] == "timeout")
    );
}

#[test]
fn hard_maximum_is_not_reset_by_progress() {
    let o = demo_call(&[
        "--tool",
        "sleep",
        "-a",
        "ms=30000",
        "--timeout",
        "10",
        "--max-timeout",
        "0.8",
    ])
    .expect(4);
    assert!(o.stderr.contains("max timeout"), "{}", o.stderr);
    assert!(
        !o.lines("[progress] sleep").is_empty(),
        "progress arrived yet the cap held"
    );
}

#[test]
fn ctrl_c_cancels_then_exits_130() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("t.jsonl");
    let mut child = Command::new(BIN)
        .args([
            "call",
            "--demo",
            "--tool",
            "sleep",
            "-a",
            "ms=30000",
            "--record",
            rec.to_str().unwrap(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let dog = watchdog(&child, std::time::Duration::from_secs(60));
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    // Wait until the call is running: its first progress line.
    while err.read_line(&mut line).unwrap() > 0 && !line.starts_with("[progress]") {
        line.clear();
    }
    assert!(line.starts_with("[progress]"), "no progress before EOF");
    // SAFETY: kill(2) has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    dog.disarm();
    assert_eq!(status.code(), Some(130));
    let lines = trace_lines(&rec);
    let cancel = frames(&lines, "out", "notifications/cancelled")
        .next()
        .expect("cancelled before exit");
    assert_eq!(cancel["params"]["requestId"], 1);
    assert!(
        cancel["params"]["reason"]
            .as_str()
            .unwrap()
            .contains("Ctrl-C")
    );
}

/// A tiny stdio server in sh: answers initialize (id 0), then does `after`.
fn sh_server(after: &str) -> Vec<String> {
    let init = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"sh"}}}"#;
    vec![
        "sh".into(),
        "-c".into(),
        format!("read l; echo '{init}'; read l; {after}"),
    ]
}

/// `mcpscope call --protocol legacy --tool t EXTRA... -- sh_server(after)`:
/// the script answers its first line whatever it is, as a server of the
/// handshake era would answer `initialize`, so no probe is sent.
fn call_sh(after: &str, extra: &[&str]) -> Headless {
    headless(["call", "--protocol", "legacy", "--tool", "t"])
        .args(extra)
        .server(sh_server(after))
}

#[test]
fn crash_mid_call_exits_3_naming_the_status() {
    let o = call_sh("read l; echo partial >&2; exit 7", &[]).expect(3);
    assert!(o.stderr.contains("exited with status 7"), "{}", o.stderr);
    assert!(o.stderr.contains("[stderr] partial"), "{}", o.stderr);
}

#[test]
fn killed_by_signal_is_named() {
    let o = call_sh("read l; kill -9 $$", &[]).expect(3);
    assert!(o.stderr.contains("signal 9 (SIGKILL)"), "{}", o.stderr);
}

#[test]
fn garbage_on_stdout_is_reported_and_the_call_still_succeeds() {
    let after = r#"read l; printf 'Server listening on :3000\n\033[31mred\033[0m\n{"half":\n'; echo '{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}'"#;
    let o = call_sh(after, &[]).expect(0);
    let protocol = o.lines("[protocol]");
    assert_eq!(protocol.len(), 3, "{}", o.stderr);
    assert!(protocol[0].contains("Server listening on :3000"));
    assert!(
        protocol[1].contains("␛[31mred"),
        "escape sequences are neutralised: {}",
        protocol[1]
    );
    assert!(!o.stderr.contains('\x1b'));
}

#[test]
fn handshake_failure_exits_3() {
    let o = headless([
        "call",
        "--tool",
        "t",
        "--",
        "sh",
        "-c",
        "read l; echo 'not json'; exit 0",
    ])
    .expect(3);
    assert!(o.stderr.contains("handshake failed"), "{}", o.stderr);
    let o = headless(["call", "--tool", "t", "--", "/nonexistent/server"]).expect(3);
    assert!(o.stderr.contains("cannot start"), "{}", o.stderr);
}

#[test]
fn unknown_server_requests_get_method_not_found() {
    // The server asks us something we do not handle, then reports our answer on stderr.
    let after = r#"read l; echo '{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}'; read -r a; echo "$a" >&2; echo '{"jsonrpc":"2.0","id":"s2","method":"ping"}'; read -r b; echo "$b" >&2; echo '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'"#;
    let o = call_sh(after, &[]).expect(0);
    let answers: Vec<Value> = o
        .lines("[stderr] ")
        .iter()
        .filter_map(|l| serde_json::from_str(&l["[stderr] ".len()..]).ok())
        .collect();
    assert_eq!(answers.len(), 2, "{}", o.stderr);
    assert_eq!(answers[0]["id"], "s1");
    assert_eq!(answers[0]["error"]["code"], -32601);
    assert_eq!(answers[1]["id"], "s2");
    assert_eq!(answers[1]["result"], serde_json::json!({}));
}

#[test]
fn env_and_cwd_reach_the_server_and_secrets_are_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let after = r#"read l; echo "FOO=$FOO API_TOKEN=$API_TOKEN" >&2; pwd >&2; echo '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'"#;
    let cwd = dir.path().canonicalize().unwrap();
    let o = call_sh(
        after,
        &[
            "-e",
            "FOO=bar",
            "-e",
            "API_TOKEN=s3cret",
            "--cwd",
            cwd.to_str().unwrap(),
        ],
    )
    .record()
    .expect(0);
    assert!(
        o.stderr.contains("[stderr] FOO=bar API_TOKEN=s3cret"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains(&format!("[stderr] {}", cwd.display())),
        "{}",
        o.stderr
    );
    let header = std::fs::read_to_string(o.trace_path()).unwrap();
    let header = header.lines().next().unwrap();
    assert!(!header.contains("s3cret"), "{header}");
    assert!(header.contains("[redacted]"), "{header}");
    assert!(header.contains("\"mcpscope_trace\":1"), "{header}");
}

/// The interactive wizard (two questions), recorded; returns the trace lines.
fn wizard_trace(extra: &[&str]) -> Vec<Value> {
    demo_call(&[
        "--tool",
        "interactive_wizard",
        "-a",
        "questions=2",
        "-a",
        "delay_ms=1",
    ])
    .args(extra)
    .record()
    .expect(0)
    .trace()
}

#[test]
fn elicitation_is_answered_only_when_asked() {
    let legacy = ["--protocol", "legacy"];
    let lines = wizard_trace(&[&legacy[..], &["--elicit", "defaults"]].concat());
    let init = frames(&lines, "out", "initialize").next().unwrap();
    assert!(init["params"]["capabilities"]["elicitation"].is_object());
    assert_eq!(frames(&lines, "in", "elicitation/create").count(), 2);
    let answers = lines
        .iter()
        .skip(1)
        .filter(|l| l["dir"] == "out" && l["json"]["result"]["action"] == "accept")
        .count();
    assert_eq!(answers, 2);

    let lines = wizard_trace(&legacy);
    let init = frames(&lines, "out", "initialize").next().unwrap();
    assert!(init["params"]["capabilities"].get("elicitation").is_none());
    assert_eq!(frames(&lines, "in", "elicitation/create").count(), 0);
}

/// At 2026-07-28 the same wizard asks by `input_required` rounds: one per
/// form, each answered in the retry's `inputResponses`; a client that
/// declares no elicitation gets the defaults in one round.
#[test]
fn stateless_elicitation_is_one_input_round_per_form() {
    let caps = "io.modelcontextprotocol/clientCapabilities";
    let lines = wizard_trace(&["--elicit", "defaults"]);
    let calls: Vec<&Value> = frames(&lines, "out", "tools/call").collect();
    assert_eq!(calls.len(), 3, "the call and a retry per form");
    assert!(calls[0]["params"]["_meta"][caps]["elicitation"].is_object());
    let rounds = lines
        .iter()
        .filter(|l| l["dir"] == "in" && l["json"]["result"]["resultType"] == "input_required")
        .count();
    assert_eq!(rounds, 2);
    for retry in &calls[1..] {
        let answer = retry["params"]["inputResponses"]
            .as_object()
            .and_then(|r| r.values().next())
            .expect("an answer");
        assert_eq!(answer["action"], "accept", "{retry}");
        assert!(retry["params"]["requestState"].is_string(), "{retry}");
    }

    let lines = wizard_trace(&[]);
    let calls: Vec<&Value> = frames(&lines, "out", "tools/call").collect();
    assert_eq!(calls.len(), 1);
    assert!(
        calls[0]["params"]["_meta"][caps]
            .get("elicitation")
            .is_none()
    );
}

#[test]
fn tools_lists_every_page_and_config_files_work() {
    let o = headless(["tools", "--demo", "--json"]).expect(0);
    let tools: Vec<Value> = serde_json::from_str(&o.stdout).unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for want in [
        "upload_file",
        "publish_package",
        "pipeline_wait",
        "job_wait",
        "interactive_wizard",
        "context_builder",
        "build_report",
        "echo",
        "sleep",
        "flood",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }

    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("claude_desktop_config.json");
    std::fs::write(
        &cfg,
        serde_json::json!({"mcpServers": {
        "demo": {"command": BIN, "args": ["demo-server"], "env": {"X": "1"}},
        "other": {"command": "false"}}})
        .to_string(),
    )
    .unwrap();
    let o = headless([
        "tools",
        "--config",
        cfg.to_str().unwrap(),
        "--server",
        "demo",
    ])
    .expect(0);
    assert!(
        o.stdout.lines().any(|l| l.starts_with("upload_file ")),
        "{}",
        o.stdout
    );
    let o = run(&["tools", "--config", cfg.to_str().unwrap()]);
    assert_eq!(o.code, 2, "two servers and no --server: {}", o.stderr);
}

#[test]
fn older_revisions_negotiate() {
    for rev in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let lines = demo_call(&["--tool", "echo", "--protocol", rev])
            .record()
            .expect(0)
            .trace();
        let neg = lines
            .iter()
            .find(|l| l["json"]["event"] == "negotiated")
            .unwrap();
        assert_eq!(neg["json"]["requested"], rev);
        assert_eq!(neg["json"]["protocolVersion"], rev);
    }
}

#[test]
fn flood_is_lossless_and_in_order() {
    let lines = demo_call(&["--tool", "flood", "-a", "count=50000", "--quiet"])
        .record()
        .expect(0)
        .trace();
    let progress: Vec<i64> = frames(&lines, "in", "notifications/progress")
        .map(|p| p["params"]["progress"].as_i64().unwrap())
        .collect();
    assert_eq!(progress.len(), 50_000);
    assert!(progress.iter().enumerate().all(|(i, p)| *p == i as i64 + 1));
    let seqs: Vec<u64> = lines
        .iter()
        .skip(1)
        .map(|l| l["seq"].as_u64().unwrap())
        .collect();
    assert!(
        seqs.windows(2).all(|w| w[1] == w[0] + 1),
        "seq numbers are dense"
    );
}

#[test]
fn secrets_on_the_command_line_are_redacted_in_the_recording() {
    let o = headless(["call", "--tool", "t"])
        .server([
            "sh",
            "-c",
            "exit 0",
            "--api-key",
            "s3cret2",
            "--password=hunter2",
        ])
        .record()
        .expect(3);
    let text = std::fs::read_to_string(o.trace_path()).unwrap();
    assert!(
        !text.contains("s3cret2") && !text.contains("hunter2"),
        "{text}"
    );
    let lines = o.trace();
    let spawn = lines
        .iter()
        .find(|l| l["json"]["event"] == "spawn")
        .unwrap();
    assert_eq!(spawn["json"]["argv"][4], "[redacted]");

    let o = headless(["call", "--tool", "t", "--no-redact"])
        .server(["sh", "-c", "exit 0", "--api-key", "s3cret2"])
        .record()
        .run();
    assert!(
        std::fs::read_to_string(o.trace_path())
            .unwrap()
            .contains("s3cret2"),
        "--no-redact keeps them"
    );
}

/// A handshake-era server that answers what it does not know (here
/// `server/discover`) with `{}` or with its `initialize` result has not
/// discovered anything: the default probe falls back to the handshake,
/// says why, and the call runs there.
#[test]
fn an_answer_to_the_probe_that_is_no_discovery_falls_back_to_the_handshake() {
    let init = r#"{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"1"}}"#;
    for (probe_answer, said) in [
        ("{}", "a result without supportedVersions"),
        (init, "an initialize result (protocolVersion 2025-11-25)"),
    ] {
        let script = format!(
            r#"while IFS= read -r l; do
  id=$(printf '%s' "$l" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$l" in
    *'"server/discover"'*) printf '{{"jsonrpc":"2.0","id":%s,"result":%s}}\n' "$id" '{probe_answer}' ;;
    *'"initialize"'*) printf '{{"jsonrpc":"2.0","id":%s,"result":%s}}\n' "$id" '{init}' ;;
    *'"tools/call"'*) printf '{{"jsonrpc":"2.0","id":%s,"result":{{"content":[{{"type":"text","text":"done"}}]}}}}\n' "$id" ;;
  esac
done"#
        );
        let o = headless(["call", "--tool", "t"])
            .server(["sh".to_string(), "-c".into(), script])
            .expect(0);
        let session = o.lines("[session]");
        assert!(
            session
                .iter()
                .any(|l| l.contains(said) && l.contains("falling back")),
            "{}",
            o.stderr
        );
        assert!(
            session
                .iter()
                .any(|l| l.contains("protocol 2025-11-25 (initialize handshake)")),
            "{}",
            o.stderr
        );
        assert!(o.stdout.contains("done"), "{}", o.stdout);
    }
}
