//! Two more SDKs nobody here wrote, as real peers: a server on FastMCP
//! (`tests/peers/fastmcp_server.py`) and one on rmcp, the official Rust SDK
//! (`tests/peers/rmcp_server`), each over stdio and over Streamable HTTP.
//! `call` shows their progress, logs and results; `check --strict` passes
//! them with no finding (both declare `logging` and honour
//! `logging/setLevel`, and elicit only a client that declared it);
//! `request` reads their resource and prompt; two SDK hosts at once through
//! the HTTP proxy are each served and the recording passes `check --trace`.
//! Their deviation tools (`elicit_unchecked`, `sample_unchecked`,
//! `roots_unchecked`, rmcp's `--no-set-level`) still send what they are
//! meant to reproduce. Ignored by a plain `cargo test`: they need
//! `bash tests/peers/install.sh`.

use crate::support;

use crate::support::http::{Bg, start_reporting};
use crate::support::*;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

#[derive(Clone, Copy, Debug)]
enum Sdk {
    FastMcp,
    Rmcp,
}

impl Sdk {
    fn argv(self) -> Vec<String> {
        match self {
            Sdk::FastMcp => fastmcp_server(),
            Sdk::Rmcp => rmcp_server(),
        }
    }

    /// The server's text resource.
    fn notes(self) -> &'static str {
        match self {
            Sdk::FastMcp => "mcpscope fastmcp peer: notes",
            Sdk::Rmcp => "mcpscope rmcp peer: notes",
        }
    }

    /// The `[log]` line `call` prints for the server's message `text`:
    /// FastMCP sends `data` as `{"msg", "extra"}` and no logger; the rmcp
    /// peer sends the text under the logger `rmcp-peer`.
    fn log_line(self, level: &str, text: &str) -> String {
        match self {
            Sdk::FastMcp => format!(r#"[log] {level}: {{"extra":null,"msg":"{text}"}}"#),
            Sdk::Rmcp => format!("[log] {level} rmcp-peer: {text}"),
        }
    }

    /// The server on Streamable HTTP at a port it bound itself.
    fn http(self, extra: &[&str]) -> (Bg, String) {
        let argv = self.argv();
        let mut c = Command::new(&argv[0]);
        c.args(&argv[1..]).args(["--http", "0"]).args(extra);
        let (bg, port) = start_reporting(c);
        (bg, format!("http://127.0.0.1:{port}/mcp"))
    }
}

#[derive(Clone, Copy, Debug)]
enum Via {
    Stdio,
    Http,
}

/// A server to point mcpscope at: the SERVER arguments (last on the
/// command line), and the HTTP server's process while it is needed.
struct Server {
    args: Vec<String>,
    _http: Option<Bg>,
}

fn server(sdk: Sdk, via: Via) -> Server {
    match via {
        Via::Stdio => {
            let mut args = vec!["--".to_string()];
            args.extend(sdk.argv());
            Server { args, _http: None }
        }
        Via::Http => {
            let (bg, url) = sdk.http(&[]);
            Server {
                args: vec!["--url".into(), url],
                _http: Some(bg),
            }
        }
    }
}

impl Server {
    /// `mcpscope COMMAND OPTS... SERVER`, in the handshake era unless OPTS
    /// name one: the tests here say where they mean 2026-07-28 (and
    /// `the_default_finds_both_stateless_and_clean` runs the default).
    fn run(&self, command: &str, opts: &[&str]) -> Output {
        let mut args = vec![command];
        if !opts.contains(&"--protocol") {
            args.extend(["--protocol", "legacy"]);
        }
        args.extend_from_slice(opts);
        args.extend(self.args.iter().map(String::as_str));
        run(&args)
    }

    /// `check --strict --format json OPTS... SERVER`: exit code and report.
    fn check(&self, opts: &[&str]) -> (i32, Value, String) {
        let mut all = vec!["--strict", "--format", "json"];
        all.extend_from_slice(opts);
        let o = self.run("check", &all);
        let report: Value = serde_json::from_str(&o.stdout)
            .unwrap_or_else(|e| panic!("bad report ({e}): {}\n{}", o.stdout, o.stderr));
        (o.code, report, o.stderr)
    }
}

fn json_of(o: &Output) -> Value {
    assert_eq!(o.code, 0, "{}", o.stderr);
    serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}\n{}", o.stdout, o.stderr))
}

fn text_of(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content: {result:#}"))
}

/// A clean report: passed, strict, with no finding at all but, in a
/// 2026-07-28 session, the notes that its logging is deprecated there.
fn assert_clean(what: &str, (code, report, stderr): &(i32, Value, String)) {
    let stateless = report["era"] == "stateless";
    let others: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            !(stateless
                && f["severity"] == "info"
                && matches!(
                    f["rule"].as_str(),
                    Some("deprecated-feature" | "client-deprecated-feature")
                ))
        })
        .collect();
    assert!(others.is_empty(), "{what}: {report:#}\n{stderr}");
    assert_eq!(report["summary"]["strict"], true, "{what}: {report:#}");
    assert_eq!(report["summary"]["passed"], true, "{what}: {report:#}");
    assert_eq!(*code, 0, "{what}: {stderr}");
}

/// Every test of one body for both SDKs over both transports.
macro_rules! per_server {
    ($group:ident, $body:ident) => {
        mod $group {
            use super::*;
            #[test]
            #[ignore = "needs peers (tests/peers/install.sh): FastMCP"]
            fn fastmcp_stdio() {
                $body(Sdk::FastMcp, Via::Stdio);
            }
            #[test]
            #[ignore = "needs peers (tests/peers/install.sh): FastMCP"]
            fn fastmcp_http() {
                $body(Sdk::FastMcp, Via::Http);
            }
            #[test]
            #[ignore = "needs peers (tests/peers/install.sh): rmcp"]
            fn rmcp_stdio() {
                $body(Sdk::Rmcp, Via::Stdio);
            }
            #[test]
            #[ignore = "needs peers (tests/peers/install.sh): rmcp"]
            fn rmcp_http() {
                $body(Sdk::Rmcp, Via::Http);
            }
        }
    };
}

const SLOW: [&str; 6] = ["--tool", "slow_task", "-a", "steps=3", "-a", "delay_ms=100"];

per_server!(call_shows_progress_logs_and_result, call_progress_and_logs);
fn call_progress_and_logs(sdk: Sdk, via: Via) {
    let s = server(sdk, via);
    let progress = vec![
        "[progress] slow_task 1/3 (33%) step 1 of 3",
        "[progress] slow_task 2/3 (66%) step 2 of 3",
        "[progress] slow_task 3/3 (100%) step 3 of 3",
    ];
    let all_logs = [
        ("debug", "slow_task debug: starting 3 steps"),
        ("info", "slow_task info: delay 100 ms per step"),
        ("warning", "slow_task warning: almost done"),
        ("error", "slow_task error: not really an error"),
    ];

    let mut opts = SLOW.to_vec();
    opts.extend(["--log-level", "debug"]);
    let o = s.run("call", &opts);
    assert_eq!(text_of(&json_of(&o)), "slow_task finished 3 steps");
    assert_eq!(o.lines("[progress]"), progress, "{}", o.stderr);
    let want: Vec<String> = all_logs.iter().map(|(l, t)| sdk.log_line(l, t)).collect();
    assert_eq!(o.lines("[log]"), want, "{}", o.stderr);
    assert!(o.lines("[finding]").is_empty(), "{}", o.stderr);
    assert!(o.lines("[protocol]").is_empty(), "{}", o.stderr);

    // logging/setLevel is honoured: nothing below warning.
    let mut opts = SLOW.to_vec();
    opts.extend(["--log-level", "warning"]);
    let o = s.run("call", &opts);
    assert_eq!(text_of(&json_of(&o)), "slow_task finished 3 steps");
    assert_eq!(o.lines("[log]"), want[2..].to_vec(), "{}", o.stderr);
    assert_eq!(o.lines("[progress]"), progress, "{}", o.stderr);

    // No progressToken, no progress.
    let mut opts = SLOW.to_vec();
    opts.extend(["--token", "none"]);
    let o = s.run("call", &opts);
    assert_eq!(text_of(&json_of(&o)), "slow_task finished 3 steps");
    assert!(o.lines("[progress]").is_empty(), "{}", o.stderr);
}

per_server!(the_default_finds_both_stateless_and_clean, default_era);
/// Without `--protocol`, as the SDK clients do: both servers speak
/// 2026-07-28, so the probe finds them there; the run is clean but for the
/// deprecation of the logging they declare (info), and a level asked for
/// brings their logs.
fn default_era(sdk: Sdk, via: Via) {
    let s = server(sdk, via);
    let mut opts = SLOW.to_vec();
    opts.extend(["--protocol", "auto", "--log-level", "warning"]);
    let o = s.run("call", &opts);
    assert_eq!(text_of(&json_of(&o)), "slow_task finished 3 steps");
    assert!(
        o.stderr.contains("protocol 2026-07-28 (stateless)"),
        "{}",
        o.stderr
    );
    assert_eq!(o.lines("[log]").len(), 2, "warning and error: {}", o.stderr);
    assert_eq!(o.lines("[progress]").len(), 3, "{}", o.stderr);
    assert!(
        o.findings_but_the_logging_deprecation().is_empty(),
        "{}",
        o.stderr
    );
    assert!(o.lines("[protocol]").is_empty(), "{}", o.stderr);
}

per_server!(check_strict_passes_a_clean_run, check_strict_clean);
fn check_strict_clean(sdk: Sdk, via: Via) {
    let s = server(sdk, via);
    for level in ["debug", "warning"] {
        let mut opts = SLOW.to_vec();
        opts.extend(["--log-level", level, "--repeat", "2"]);
        let got = s.check(&opts);
        assert_clean(&format!("{sdk:?} slow_task at {level}"), &got);
        let calls = got.1["calls"].as_array().unwrap();
        assert_eq!(calls.len(), 2, "{:#}", got.1);
        assert!(calls.iter().all(|c| c["notifications"] == 3), "{calls:#?}");
    }
    let got = s.check(&["--tool", "greet", "--elicit", r#"accept:{"name": "Ada"}"#]);
    assert_clean(&format!("{sdk:?} greet, elicitation declared"), &got);
    let got = s.check(&["--tool", "greet"]);
    assert_clean(&format!("{sdk:?} greet, no elicitation"), &got);

    // The 2026-07-28 era: a log only for a request that asks for it (its
    // `_meta` logLevel), input through input_required.
    for level in [None, Some("info")] {
        let mut opts = SLOW.to_vec();
        opts.extend(["--protocol", "2026-07-28"]);
        opts.extend(level.iter().flat_map(|l| ["--log-level", l]));
        let got = s.check(&opts);
        assert_clean(&format!("{sdk:?} slow_task at 2026-07-28, {level:?}"), &got);
        assert_eq!(got.1["era"], "stateless", "{:#}", got.1);
        assert_eq!(got.1["calls"][0]["notifications"], 3, "{:#}", got.1);
    }
    let got = s.check(&[
        "--tool",
        "greet",
        "--protocol",
        "2026-07-28",
        "--elicit",
        r#"accept:{"name": "Ada"}"#,
    ]);
    assert_clean(&format!("{sdk:?} greet at 2026-07-28"), &got);
}

per_server!(elicits_only_a_client_that_declared_it, elicitation);
fn elicitation(sdk: Sdk, via: Via) {
    let s = server(sdk, via);
    let d = tempfile::tempdir().unwrap();
    let rec = d.path().join("asked.jsonl");
    let o = s.run(
        "call",
        &[
            "--tool",
            "greet",
            "--elicit",
            r#"accept:{"name": "Ada"}"#,
            "--record",
            rec.to_str().unwrap(),
        ],
    );
    assert_eq!(text_of(&json_of(&o)), "Hello, Ada!");
    let lines = trace_lines(&rec);
    let asked: Vec<&Value> = frames(&lines, "in", "elicitation/create").collect();
    assert_eq!(asked.len(), 1, "{lines:#?}");
    assert_eq!(asked[0]["params"]["message"], "What is your name?");

    let rec = d.path().join("not-asked.jsonl");
    let o = s.run(
        "call",
        &["--tool", "greet", "--record", rec.to_str().unwrap()],
    );
    assert_eq!(text_of(&json_of(&o)), "Hello, world!");
    let lines = trace_lines(&rec);
    assert_eq!(frames(&lines, "in", "elicitation/create").count(), 0);

    // 2026-07-28: no server->client request; the question comes back as an
    // input_required result, and the retry carries the answer.
    let rec = d.path().join("modern.jsonl");
    let o = s.run(
        "call",
        &[
            "--tool",
            "greet",
            "--protocol",
            "2026-07-28",
            "--elicit",
            r#"accept:{"name": "Ada"}"#,
            "--record",
            rec.to_str().unwrap(),
        ],
    );
    assert_eq!(text_of(&json_of(&o)), "Hello, Ada!");
    let lines = trace_lines(&rec);
    assert_eq!(frames(&lines, "in", "elicitation/create").count(), 0);
    let asked: Vec<&Value> = lines
        .iter()
        .filter(|l| l["dir"] == "in" && l["json"]["result"]["resultType"] == "input_required")
        .collect();
    assert_eq!(asked.len(), 1, "{lines:#?}");
    let question = &asked[0]["json"]["result"]["inputRequests"]["name"];
    assert_eq!(question["method"], "elicitation/create", "{question:#}");
    assert_eq!(question["params"]["message"], "What is your name?");
    let retry = frames(&lines, "out", "tools/call").nth(1).expect("a retry");
    assert_eq!(
        retry["params"]["inputResponses"]["name"]["content"]["name"], "Ada",
        "{retry:#}"
    );
}

per_server!(
    request_reads_the_resource_and_the_prompt,
    resource_and_prompt
);
fn resource_and_prompt(sdk: Sdk, via: Via) {
    let s = server(sdk, via);
    let o = s.run(
        "request",
        &["resources/read", "--params", r#"{"uri": "notes://readme"}"#],
    );
    let v = json_of(&o);
    let contents = &v["contents"][0];
    assert_eq!(contents["uri"], "notes://readme", "{v:#}");
    assert_eq!(contents["mimeType"], "text/plain", "{v:#}");
    assert_eq!(contents["text"], sdk.notes(), "{v:#}");

    let o = s.run(
        "request",
        &[
            "prompts/get",
            "--params",
            r#"{"name": "summarize", "arguments": {"topic": "progress"}}"#,
        ],
    );
    let v = json_of(&o);
    let message = &v["messages"][0];
    assert_eq!(message["role"], "user", "{v:#}");
    assert_eq!(
        message["content"]["text"], "Summarize progress in a short style.",
        "{v:#}"
    );
}

// --- two hosts at once through the HTTP proxy

/// The official Python SDK client as a host over HTTP (`sdk_http_host.py`).
fn py_http_host(url: &str, tool: &str, args: &str) -> Command {
    let py = peer("venv/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/sdk_http_host.py");
    let mut c = Command::new(py);
    c.arg(script).args([url, tool, args]);
    c
}

/// Host A's call waits in its elicitation while host B runs a whole session
/// (both with the same request ids and progress tokens); then A answers.
/// Each gets its own answer, and the proxy's recording passes.
fn two_hosts_through_the_proxy(sdk: Sdk) {
    let d = tempfile::tempdir().unwrap();
    let trace = d.path().join("t.jsonl");
    let (_server, url) = sdk.http(&[]);
    let mut c = Command::new(BIN);
    c.args(["proxy", "--listen", "127.0.0.1:0", "--url", &url])
        .arg("--record")
        .arg(&trace)
        .env("MCPSCOPE_RUNTIME_DIR", d.path());
    let (mut proxy, pport) = start_reporting(c);
    let purl = format!("http://127.0.0.1:{pport}/mcp");

    let mut a = py_http_host(&purl, "greet", "{}")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let dog = watchdog(&a, std::time::Duration::from_secs(120));
    let mut a_out = BufReader::new(a.stdout.take().unwrap());
    let mut line = String::new();
    a_out.read_line(&mut line).unwrap();
    assert!(line.contains("elicited"), "{line}");

    let b = py_http_host(&purl, "slow_task", r#"{"steps": 3, "delay_ms": 100}"#)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let b = finish(b);
    assert_eq!(b.code, 0, "{}", b.stderr);
    let seen: Value = serde_json::from_str(b.stdout.trim()).unwrap();
    let messages: Vec<&str> = seen["progress"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages, ["step 1 of 3", "step 2 of 3", "step 3 of 3"]);
    assert_eq!(text_of(&seen["result"]), "slow_task finished 3 steps");

    a.stdin.take().unwrap().write_all(b"go\n").unwrap();
    let mut rest = String::new();
    a_out.read_to_string(&mut rest).unwrap();
    assert!(a.wait().unwrap().success());
    dog.disarm();
    let seen: Value = serde_json::from_str(rest.trim()).unwrap();
    assert_eq!(text_of(&seen["result"]), "Hello, proxy!");

    // SIGTERM, as a host's user would: the trace is complete once it exits.
    // SAFETY: kill(2) on our own child, which has not been waited for.
    unsafe { libc::kill(proxy.0.id() as i32, libc::SIGTERM) };
    proxy.0.wait().unwrap();
    let o = run(&[
        "check",
        "--trace",
        trace.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let report: Value =
        serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.stdout));
    assert_eq!(report["findings"], json!([]), "{report:#}");
    assert_eq!(report["summary"]["passed"], true, "{report:#}");
    let lines = trace_lines(&trace);
    let sessions: std::collections::BTreeSet<&str> = lines
        .iter()
        .filter(|l| l["json"]["event"] == "host-request")
        .filter_map(|l| l["json"]["session"].as_str())
        .collect();
    assert_eq!(sessions.len(), 2, "{sessions:?}");
    assert_eq!(
        frames(&lines, "in", "elicitation/create").count(),
        1,
        "only host A was asked"
    );
}

#[test]
#[ignore = "needs peers (tests/peers/install.sh): FastMCP, Python SDK"]
fn two_hosts_at_once_through_the_http_proxy_to_fastmcp_are_each_correct() {
    two_hosts_through_the_proxy(Sdk::FastMcp);
}

#[test]
#[ignore = "needs peers (tests/peers/install.sh): rmcp, Python SDK"]
fn two_hosts_at_once_through_the_http_proxy_to_rmcp_are_each_correct() {
    two_hosts_through_the_proxy(Sdk::Rmcp);
}

// --- the deviation tools still send what they reproduce

/// Each `*_unchecked` tool, called by a client that declared nothing, sends
/// its request anyway; mcpscope answers -32601 and the tool says so.
fn unchecked_requests(sdk: Sdk) {
    let s = server(sdk, Via::Stdio);
    let d = tempfile::tempdir().unwrap();
    for (tool, method) in [
        ("elicit_unchecked", "elicitation/create"),
        ("sample_unchecked", "sampling/createMessage"),
        ("roots_unchecked", "roots/list"),
    ] {
        let rec = d.path().join(format!("{tool}.jsonl"));
        let o = s.run("call", &["--tool", tool, "--record", rec.to_str().unwrap()]);
        let text = text_of(&json_of(&o)).to_string();
        assert!(
            text.starts_with(&format!("{method}: error")),
            "{tool}: {text}"
        );
        let lines = trace_lines(&rec);
        let init = frames(&lines, "out", "initialize").next().unwrap();
        assert_eq!(init["params"]["capabilities"], json!({}), "{tool}");
        let sent: Vec<&Value> = lines
            .iter()
            .skip(1)
            .filter(|l| l["dir"] == "in" && l["json"]["method"] == method)
            .collect();
        assert_eq!(sent.len(), 1, "{tool}: {lines:#?}");
        let id = &sent[0]["json"]["id"];
        let answer = lines
            .iter()
            .skip(1)
            .find(|l| l["dir"] == "out" && l["json"]["id"] == *id && l["json"]["error"].is_object())
            .unwrap_or_else(|| panic!("{tool}: no error answer to {id}: {lines:#?}"));
        assert_eq!(answer["json"]["error"]["code"], -32601, "{tool}");
        // The rule judges it: the client never offered to answer.
        let found = o.lines("[finding] server-request-without-capability (error)");
        assert_eq!(found.len(), 1, "{tool}: {}", o.stderr);
        assert!(found[0].contains(method), "{tool}: {}", found[0]);
    }
    // Declared, the same requests break no rule.
    let o = s.run(
        "call",
        &["--tool", "elicit_unchecked", "--elicit", "decline"],
    );
    assert!(
        !o.stderr.contains("server-request-without-capability"),
        "{}",
        o.stderr
    );
}

#[test]
#[ignore = "needs peers (tests/peers/install.sh): FastMCP"]
fn fastmcp_sends_server_requests_a_client_did_not_declare() {
    unchecked_requests(Sdk::FastMcp);
}

#[test]
#[ignore = "needs peers (tests/peers/install.sh): rmcp"]
fn rmcp_sends_server_requests_a_client_did_not_declare() {
    unchecked_requests(Sdk::Rmcp);
}

/// `--no-set-level`: rmcp's default handler refuses `logging/setLevel`
/// (-32601) although the server declares `logging`, and the server goes on
/// logging below the level asked for.
#[test]
#[ignore = "needs peers (tests/peers/install.sh): rmcp"]
fn rmcp_default_set_level_is_refused_with_logging_declared() {
    let mut argv = rmcp_server();
    argv.push("--no-set-level".into());
    // logging/setLevel is the handshake era's.
    let o = headless(["call", "--protocol", "legacy"])
        .args(SLOW)
        .args(["--log-level", "warning"])
        .server(&argv)
        .record()
        .expect(0);
    let lines = o.trace();
    let init = lines
        .iter()
        .find(|l| l["dir"] == "in" && l["json"]["result"]["capabilities"].is_object())
        .unwrap();
    assert_eq!(init["json"]["result"]["capabilities"]["logging"], json!({}));
    let set = frames(&lines, "out", "logging/setLevel").next().unwrap();
    let refused = lines
        .iter()
        .find(|l| l["dir"] == "in" && l["json"]["id"] == set["id"])
        .unwrap();
    assert_eq!(refused["json"]["error"]["code"], -32601, "{refused}");
    let found = o.lines("[finding] logging-setlevel-refused (warning)");
    assert_eq!(found.len(), 1, "{}", o.stderr);
    // Said once, with the method named once.
    assert!(
        o.stderr
            .lines()
            .all(|l| l.matches("logging/setLevel failed").count() <= 1),
        "{}",
        o.stderr
    );
    assert!(
        o.lines("[log]").contains(
            &Sdk::Rmcp
                .log_line("debug", "slow_task debug: starting 3 steps")
                .as_str()
        ),
        "{}",
        o.stderr
    );
}

// --- the terminal UI

#[test]
#[ignore = "needs peers (tests/peers/install.sh) and tmux: rmcp"]
fn tui_runs_a_call_on_the_rmcp_server() {
    use support::tmux::{Tmux, assert_restored, require_tmux};
    require_tmux();
    let bin = rmcp_server().remove(0);
    let t = Tmux::start_cmd(
        "rmcp",
        &format!(r#"--run 'slow_task {{"steps": 3, "delay_ms": 100}}' -- '{bin}'"#),
    );
    let done = t.wait_for("the call and its last log done", 30, |s| {
        s.contains("done in") && s.contains("slow_task error: not really")
    });
    // The header names the server, found at 2026-07-28 (the default probes
    // as the SDK clients do), and counts one finding: the info that the
    // logging it declares is deprecated there. The gauge is full.
    assert!(done.contains("mcpscope-rmcp-peer 1.0.0"), "{done}");
    assert!(done.contains("rev 2026-07-28 stateless"), "{done}");
    assert!(done.contains("│ 1 info │"), "{done}");
    assert!(done.contains("3 / 3  100%"), "{done}");
    assert!(done.contains("step 3 of 3 · 3 updates"), "{done}");
    // The Logs pane: the server's messages, marked mcp, under its logger,
    // by level (the pane's edge cuts the longer ones).
    assert!(done.contains("dbg:1 inf:1 ntc:0 wrn:1 err:1"), "{done}");
    // Each log names its call as the Timeline does.
    assert!(
        done.contains("mcp    #6 slow_task warning   rmcp-peer    slow_task warning: almost"),
        "{done}"
    );
    // The Tools pane, once focused, lists the server's tools.
    t.keys(&["5"]);
    t.wait_for("the Tools pane listing the server's tools", 20, |s| {
        s.contains("roots_unchecked")
    });
    t.keys(&["q"]);
    assert_restored(&t);
}
