//! `mcpscope mock` with the official SDK clients as hosts
//! (`tests/peers/mock_host.*`): a session recorded against the real demo
//! server (by `mcpscope call --record`, or by `mcpscope proxy --record`
//! with the Python host in front, whose SDK lists the tools too) is served
//! back over stdio and over Streamable HTTP, and each host's progress,
//! log and elicitation callbacks see the recorded sequence at the recorded
//! pace: every event within 20% (or 50 ms) of its recorded offset from the
//! call — or, after an elicitation, from the host's answer. Times count
//! from when the host's call (or answer) went out, and each event from when
//! it reached the host's transport (the callbacks see them in that order,
//! but can run tens of milliseconds later on a loaded machine: the SDK's
//! time, not the mock's). Ignored by a
//! plain `cargo test` (they need the peers of `tests/peers/install.sh`).

use crate::support::{self, BIN, headless, http::start_reporting};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(Clone, Copy, Debug)]
enum Host {
    Ts,
    Py,
}

fn host_argv(host: Host) -> Vec<String> {
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    let (bin, script) = match host {
        Host::Ts => (
            support::peer("node/node_modules/node/bin/node"),
            here.join("mock_host.mjs"),
        ),
        Host::Py => (support::peer("venv/bin/python"), here.join("mock_host.py")),
    };
    vec![bin.display().to_string(), script.display().to_string()]
}

/// Run the host on `server` (a stdio argv, or `--url URL`): its JSON line.
fn observe(
    host: Host,
    tool: &str,
    args: &str,
    server: &[String],
    answer_ms: u64,
    rt: &Path,
) -> Value {
    observe_with(host, tool, args, server, answer_ms, rt, &[])
}

/// [`observe`] with the host's environment set (`MOCK_HOST_ERA`, …).
fn observe_with(
    host: Host,
    tool: &str,
    args: &str,
    server: &[String],
    answer_ms: u64,
    rt: &Path,
    env: &[(&str, &str)],
) -> Value {
    let argv = host_argv(host);
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .arg(tool)
        .arg(args)
        .args(server)
        .env("MOCK_HOST_ANSWER_MS", answer_ms.to_string())
        .env("MCPSCOPE_RUNTIME_DIR", rt)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = support::finish(cmd.spawn().unwrap());
    assert_eq!(out.code, 0, "{host:?} host failed: {}", out.stderr);
    let line = out.stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {}", out.stdout))
}

/// What the server sent for the recorded `tools/call` of `tool`: each
/// progress, log and elicitation with its recorded time (and, for an
/// elicitation, when the client's answer went out), up to the response.
#[derive(Debug, Clone)]
struct RecEvent {
    t: f64,
    kind: &'static str,
    what: Value,
    answer_t: Option<f64>,
}

fn recorded(trace: &Path, tool: &str) -> (f64, Vec<RecEvent>, f64) {
    let lines = support::trace_lines(trace);
    let call = lines
        .iter()
        .find(|l| {
            l["dir"] == "out"
                && l["json"]["method"] == "tools/call"
                && l["json"]["params"]["name"] == tool
        })
        .expect("the call is recorded");
    let (id, t0) = (call["json"]["id"].clone(), call["t"].as_f64().unwrap());
    let mut events: Vec<RecEvent> = Vec::new();
    for l in lines.iter().skip_while(|l| l["seq"] != call["seq"]).skip(1) {
        let (j, t) = (&l["json"], l["t"].as_f64().unwrap_or(0.0));
        if l["dir"] == "out" {
            if let Some(e) = events
                .iter_mut()
                .find(|e| e.kind == "elicit" && e.what["id"] == j["id"])
            {
                e.answer_t.get_or_insert(t);
            }
            continue;
        }
        if l["dir"] != "in" {
            continue;
        }
        let kind = match j["method"].as_str() {
            Some("notifications/progress") => "progress",
            Some("notifications/message") => "log",
            Some("elicitation/create") => "elicit",
            _ if j["id"] == id => return (t0, events, t),
            _ => continue,
        };
        events.push(RecEvent {
            t,
            kind,
            what: j.clone(),
            answer_t: None,
        });
    }
    panic!("the call's response is not recorded");
}

fn num(v: &Value) -> Option<f64> {
    v.as_f64()
}

/// The host saw `rec` in order, with the same content, each event within
/// 20% (or 50 ms) of its recorded offset divided by `speed`. `lost_tail`:
/// progress recorded in the same instant as the response may be missing
/// from the end (the TypeScript SDK client drops what the response
/// overtakes — DESIGN §7 — against the real server as against the mock).
fn assert_paced(
    rec: &[RecEvent],
    t0: f64,
    response_t: f64,
    observed: &Value,
    speed: f64,
    lost_tail: bool,
) {
    let seen = observed["events"].as_array().expect("events");
    let mut expected: Vec<&RecEvent> = rec.iter().collect();
    let progress_seen = seen.iter().filter(|e| e["kind"] == "progress").count();
    if lost_tail {
        let mut n = 0;
        expected.retain(|e| {
            if e.kind != "progress" {
                return true;
            }
            n += 1;
            if n <= progress_seen {
                return true;
            }
            // The TypeScript SDK host drops progress that races its
            // response. Replayed times may drift by the 50 ms every event
            // below is allowed, so progress recorded that close to the
            // response may arrive with it (one recorded 8 ms before it
            // was lost once on a loaded machine).
            assert!(
                response_t - e.t < 0.050,
                "only progress sent with the response may be lost: {e:?}\nseen: {observed}"
            );
            false
        });
    }
    assert_eq!(
        seen.len(),
        expected.len(),
        "recorded {expected:#?}\nseen {observed}"
    );
    let (mut anchor_rec, mut anchor_obs) = (t0, 0.0);
    for (r, o) in expected.iter().zip(seen) {
        assert_eq!(o["kind"], r.kind, "{observed}");
        let p = &r.what["params"];
        match r.kind {
            "progress" => {
                assert_eq!(num(&o["progress"]), num(&p["progress"]), "{o}");
                assert_eq!(num(&o["total"]), num(&p["total"]), "{o}");
                assert_eq!(o["message"], p["message"], "{o}");
            }
            "log" => {
                assert_eq!(
                    (&o["level"], &o["logger"], &o["data"]),
                    (&p["level"], &p["logger"], &p["data"])
                );
            }
            _ => assert_eq!(o["message"], p["message"], "{o}"),
        }
        let gap = (r.t - anchor_rec) * 1000.0 / speed;
        let want = anchor_obs + gap;
        // When it reached the host's transport (its callback may run later
        // on a loaded machine), else when its callback ran.
        let got = o["arrived_ms"].as_f64().or(o["ms"].as_f64()).unwrap();
        let tolerance = (0.2 * gap).max(50.0);
        assert!(
            (got - want).abs() <= tolerance,
            "{} {}: at {got:.1} ms, recorded {want:.1} ms (± {tolerance:.1})\n{observed}",
            r.kind,
            o
        );
        if r.kind == "elicit" {
            anchor_rec = r.answer_t.expect("the answer is recorded");
            anchor_obs = o["answered_ms"].as_f64().unwrap();
            assert!(anchor_obs >= got, "{o}");
        }
    }
}

/// `mcpscope call --demo` recorded into `dir`, in the handshake era unless
/// `extra` names one: the SDK hosts here speak it, and a mock serves the
/// era it recorded.
fn record_call(dir: &Path, tool: &str, args: &str, extra: &[&str]) -> PathBuf {
    let trace = dir.join(format!("{tool}.jsonl"));
    let era: &[&str] = if extra.contains(&"--protocol") {
        &[]
    } else {
        &["--protocol", "legacy"]
    };
    headless(["call", "--demo", "--tool", tool, "--args", args, "--record"])
        .args([trace.to_str().unwrap()])
        .args(era)
        .args(extra)
        .expect(0);
    trace
}

/// The Python host's session with the demo server through `mcpscope proxy --record`.
fn record_python_session(dir: &Path, tool: &str, args: &str) -> PathBuf {
    let trace = dir.join(format!("{tool}-proxy.jsonl"));
    let server = [
        BIN,
        "proxy",
        "--record",
        trace.to_str().unwrap(),
        "--",
        BIN,
        "demo-server",
    ]
    .map(String::from);
    let direct = observe(Host::Py, tool, args, &server, 0, dir);
    assert!(direct["error"].is_null(), "{direct}");
    trace
}

fn mock_stdio(trace: &Path, speed: &str) -> Vec<String> {
    [BIN, "mock", trace.to_str().unwrap(), "--speed", speed]
        .map(String::from)
        .to_vec()
}

/// `mcpscope mock --http 127.0.0.1:0`, and the URL it reported.
fn mock_http(trace: &Path) -> (support::http::Bg, Vec<String>) {
    mock_http_at(trace, "1")
}

fn mock_http_at(trace: &Path, speed: &str) -> (support::http::Bg, Vec<String>) {
    let mut cmd = Command::new(BIN);
    cmd.args(["mock", trace.to_str().unwrap(), "--http", "127.0.0.1:0"])
        .args(["--speed", speed]);
    let (bg, port) = start_reporting(cmd);
    (
        bg,
        vec!["--url".into(), format!("http://127.0.0.1:{port}/mcp")],
    )
}

/// One paced test at a time: the tolerances are about the mock's pace, not
/// about how five hosts and their mocks share two cores.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

const REPORT: &str = r#"{"tasks":3,"delay_ms":150}"#;

/// `call --demo` of build_report with every log, recorded: the trace,
/// when the call went out, what the server sent for it, when it answered.
fn record_report(dir: &Path) -> (PathBuf, f64, Vec<RecEvent>, f64) {
    let trace = record_call(dir, "build_report", REPORT, &["--log-level", "debug"]);
    let (t0, rec, response_t) = recorded(&trace, "build_report");
    (trace, t0, rec, response_t)
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn typescript_host_sees_the_recorded_progress_and_logs_at_the_recorded_pace() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (trace, t0, rec, response_t) = record_report(dir.path());
    assert!(
        rec.iter().filter(|e| e.kind == "log").count() >= 8,
        "{rec:?}"
    );
    let (_bg, url) = mock_http(&trace);
    for server in [mock_stdio(&trace, "1"), url] {
        let seen = observe(Host::Ts, "build_report", REPORT, &server, 0, dir.path());
        assert!(seen["error"].is_null(), "{seen}");
        assert_eq!(seen["server"]["name"], "mcpscope-demo");
        assert_eq!(seen["result"]["structuredContent"]["passed"], 3, "{seen}");
        assert_paced(&rec, t0, response_t, &seen, 1.0, true);
    }
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn python_host_sees_its_proxied_session_again_at_the_recorded_pace() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let trace = record_python_session(dir.path(), "build_report", REPORT);
    let (t0, rec, response_t) = recorded(&trace, "build_report");
    assert!(
        rec.iter().filter(|e| e.kind == "progress").count() == 3,
        "{rec:?}"
    );
    let (_bg, url) = mock_http(&trace);
    for server in [mock_stdio(&trace, "1"), url] {
        let seen = observe(Host::Py, "build_report", REPORT, &server, 0, dir.path());
        assert!(seen["error"].is_null(), "{seen}");
        assert_eq!(seen["result"]["structuredContent"]["tasks"], 3, "{seen}");
        assert_paced(&rec, t0, response_t, &seen, 1.0, false);
    }
}

const WIZARD: &str = r#"{"questions":2,"delay_ms":250}"#;
/// Longer than any recorded gap: a mock that did not wait would be seen.
const ANSWER_MS: u64 = 400;

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn elicitations_are_replayed_and_wait_for_the_hosts_answer() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let call_trace = record_call(
        dir.path(),
        "interactive_wizard",
        WIZARD,
        &["--elicit", "defaults"],
    );
    let proxy_trace = record_python_session(dir.path(), "interactive_wizard", WIZARD);
    for (host, trace) in [(Host::Ts, &call_trace), (Host::Py, &proxy_trace)] {
        let (t0, rec, response_t) = recorded(trace, "interactive_wizard");
        assert_eq!(
            rec.iter().filter(|e| e.kind == "elicit").count(),
            2,
            "{rec:?}"
        );
        let (_bg, url) = mock_http(trace);
        for server in [mock_stdio(trace, "1"), url] {
            let seen = observe(
                host,
                "interactive_wizard",
                WIZARD,
                &server,
                ANSWER_MS,
                dir.path(),
            );
            assert!(seen["error"].is_null(), "{host:?}: {seen}");
            assert_eq!(
                seen["result"]["structuredContent"]["elicited"], true,
                "{seen}"
            );
            // assert_paced checks every event after an elicitation against
            // the host's answer, which came ANSWER_MS after the question.
            assert_paced(&rec, t0, response_t, &seen, 1.0, false);
        }
    }
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn speed_scales_the_pace_and_zero_sends_everything_at_once_before_the_response() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (trace, t0, rec, response_t) = record_report(dir.path());
    assert!(response_t - t0 > 0.4, "the recorded call takes time");
    let seen = observe(
        Host::Ts,
        "build_report",
        REPORT,
        &mock_stdio(&trace, "2"),
        0,
        dir.path(),
    );
    assert_paced(&rec, t0, response_t, &seen, 2.0, true);
    let (_bg, url) = mock_http_at(&trace, "0");
    for server in [mock_stdio(&trace, "0"), url] {
        let seen = observe(Host::Ts, "build_report", REPORT, &server, 0, dir.path());
        let count = |kind: &str| {
            let seen = seen["events"].as_array().unwrap();
            seen.iter().filter(|e| e["kind"] == kind).count()
        };
        let recorded = |kind: &str| rec.iter().filter(|e| e.kind == kind).count();
        assert_eq!(count("log"), recorded("log"), "{seen}");
        // All at once, yet the host takes each progress before the
        // response: the TypeScript SDK forgets a call's progress handler as
        // it reads the response, so progress read with it would be lost.
        assert_eq!(
            count("progress"),
            recorded("progress"),
            "every recorded progress: {seen}"
        );
        let last = seen["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["ms"].as_f64().unwrap())
            .fold(0.0, f64::max);
        assert!(
            last < 50.0,
            "at once, not over the recorded {:.0} ms: {seen}",
            (response_t - t0) * 1000.0
        );
    }
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn an_unmatched_call_fails_naming_the_nearest_recorded_request() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let trace = record_call(dir.path(), "build_report", REPORT, &[]);
    let line = support::trace_lines(&trace)
        .iter()
        .position(|l| l["json"]["method"] == "tools/call")
        .unwrap()
        + 1;
    let other = r#"{"tasks":5,"delay_ms":150}"#;
    let (_bg, url) = mock_http(&trace);
    for (host, server) in [(Host::Ts, mock_stdio(&trace, "1")), (Host::Py, url)] {
        let seen = observe(host, "build_report", other, &server, 0, dir.path());
        let error = seen["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{host:?}: {seen}"));
        assert!(
            error.contains(&format!("nearest: the tools/call at line {line} "))
                && error.contains("arguments.tasks: recorded 3, got 5"),
            "{host:?}: {error}"
        );
        assert!(seen["events"].as_array().unwrap().is_empty(), "{seen}");
    }
}

/// A recording made by `call` holds the call but no listing; the SDK hosts
/// list tools before they call. The mock answers the listing with the tools
/// the recording calls, and the call is served as recorded.
#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn a_call_recording_serves_a_host_that_lists_tools_first() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("echo.jsonl");
    let t = trace.display().to_string();
    let o = support::run(&[
        "call",
        "--demo",
        "--protocol",
        "legacy",
        "--tool",
        "echo",
        "-a",
        "text=hi",
        "--record",
        &t,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    let hosts = [
        vec![
            support::peer("venv/bin/python").display().to_string(),
            here.join("sdk_host.py").display().to_string(),
        ],
        vec![
            "node".to_string(),
            here.join("sdk_host.mjs").display().to_string(),
        ],
    ];
    for host in hosts {
        let mut cmd = Command::new(&host[0]);
        cmd.args(&host[1..])
            .args(["echo", r#"{"text":"hi"}"#, BIN, "mock", &t])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let out = support::finish(cmd.spawn().unwrap());
        assert_eq!(out.code, 0, "{host:?}: {}", out.stderr);
        let v: Value = serde_json::from_str(out.stdout.lines().last().unwrap()).unwrap();
        assert_eq!(v["tools"], serde_json::json!(["echo"]), "{host:?}: {v}");
        assert_eq!(
            v["result"]["content"][0]["text"], r#"{"text":"hi"}"#,
            "{host:?}: {v}"
        );
    }
}

/// A recording made at 2026-07-28 serves hosts of the `initialize`
/// handshake (both SDK clients, over stdio and HTTP): the handshake is
/// answered from the recorded `server/discover`, and each host sees the
/// recorded progress and logs at the recorded pace (a handshake host that
/// asked no level gets every recorded log).
#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn a_2026_recording_serves_hosts_of_the_initialize_handshake() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let trace = record_call(
        dir.path(),
        "build_report",
        REPORT,
        &["--protocol", "2026-07-28", "--log-level", "debug"],
    );
    let (t0, rec, response_t) = recorded(&trace, "build_report");
    assert!(
        rec.iter().filter(|e| e.kind == "log").count() >= 8,
        "{rec:?}"
    );
    for host in [Host::Ts, Host::Py] {
        let (_bg, url) = mock_http(&trace);
        for server in [mock_stdio(&trace, "1"), url] {
            let seen = observe(host, "build_report", REPORT, &server, 0, dir.path());
            assert!(seen["error"].is_null(), "{host:?}: {seen}");
            assert_eq!(seen["server"]["name"], "mcpscope-demo", "{seen}");
            assert_eq!(seen["result"]["structuredContent"]["passed"], 3, "{seen}");
            if matches!(host, Host::Ts) {
                // As received (the Python SDK's model adds its default).
                assert!(seen["result"].get("resultType").is_none(), "{seen}");
            }
            assert_paced(&rec, t0, response_t, &seen, 1.0, matches!(host, Host::Ts));
        }
    }
}

/// A recording of the `initialize` handshake serves a host that speaks
/// 2026-07-28 (the Python SDK's Client, which probes `server/discover`):
/// it adopts 2026-07-28 from the answer made from the recorded
/// `initialize`, and gets logs only at the level each request asks, as a
/// 2026-07-28 server sends them — none when it asks none.
#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn a_handshake_recording_serves_a_2026_host_with_logs_at_its_level() {
    let _serial = serial();
    let dir = tempfile::tempdir().unwrap();
    let (trace, t0, rec, response_t) = record_report(dir.path());
    let at_warning: Vec<RecEvent> = rec
        .iter()
        .filter(|e| {
            e.kind != "log"
                || matches!(
                    e.what["params"]["level"].as_str(),
                    Some("warning" | "error" | "critical" | "alert" | "emergency")
                )
        })
        .cloned()
        .collect();
    assert!(at_warning.len() < rec.len(), "{rec:?}");
    assert!(at_warning.iter().any(|e| e.kind == "log"), "{rec:?}");
    let no_logs: Vec<RecEvent> = rec.iter().filter(|e| e.kind != "log").cloned().collect();
    let (_bg, url) = mock_http(&trace);
    for server in [mock_stdio(&trace, "1"), url] {
        for (level, expected) in [(Some("warning"), &at_warning), (None, &no_logs)] {
            let mut env = vec![("MOCK_HOST_ERA", "auto")];
            if let Some(l) = level {
                env.push(("MOCK_HOST_LOG_LEVEL", l));
            }
            let seen = observe_with(
                Host::Py,
                "build_report",
                REPORT,
                &server,
                0,
                dir.path(),
                &env,
            );
            assert!(seen["error"].is_null(), "{seen}");
            assert_eq!(seen["protocol"], "2026-07-28", "{seen}");
            assert_eq!(seen["server"]["name"], "mcpscope-demo", "{seen}");
            assert_eq!(seen["result"]["structuredContent"]["passed"], 3, "{seen}");
            assert_paced(expected, t0, response_t, &seen, 1.0, false);
        }
    }
}
