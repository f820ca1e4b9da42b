//! `mcpscope export`: HAR of a real Streamable HTTP session with the demo
//! server (its exchanges, their SSE events, no secret), Mermaid diagrams of
//! real sessions (mcpscope's and a proxy's) and of a written trace whose
//! server text tries to break out of the diagram (golden), JSON statistics.
//!
//! The diagrams are checked against Mermaid's own parser (`mermaid` in
//! `jsdom`, pinned among the peers; MCPSCOPE_MERMAID_MODULES names another
//! node_modules holding both). Without the peers, the structure and the
//! golden text are what a plain `cargo test` checks, and
//! `mermaids_parser_is_there_and_can_refuse` (ignored) says the parser is missing.

use crate::support::http::{Bg, start_reporting};
use crate::support::{BIN, headless};
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

const SECRET: &str = "sekrit-7f3a9c";

fn demo_http() -> (Bg, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(["demo-server", "--http", "127.0.0.1:0"]);
    let (srv, port) = start_reporting(cmd);
    (srv, format!("http://127.0.0.1:{port}/mcp"))
}

fn export(trace: &Path, args: &[&str], code: i32) -> String {
    let mut a = vec!["export", trace.to_str().unwrap()];
    a.extend_from_slice(args);
    headless(a).expect(code).stdout.clone()
}

/// The node_modules holding Mermaid's parser and jsdom, if there is one.
fn mermaid_modules() -> Option<String> {
    std::env::var("MCPSCOPE_MERMAID_MODULES").ok().or_else(|| {
        let peers =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/.installed/node/node_modules");
        peers
            .join("mermaid/dist/mermaid.core.mjs")
            .exists()
            .then(|| peers.display().to_string())
    })
}

/// Mermaid's parser accepts the diagram, when it is installed (see above).
fn mermaid_parses(text: &str) {
    let Some(modules) = mermaid_modules() else {
        eprintln!("Mermaid's parser is not installed (tests/peers/install.sh): not run");
        return;
    };
    assert!(
        mermaid_verdict(&modules, text).0,
        "Mermaid refused the diagram:\n{text}"
    );
}

/// Whether Mermaid's parser accepts `text`, and what it said.
fn mermaid_verdict(modules: &str, text: &str) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("parse.mjs");
    std::fs::write(
        &script,
        format!(
            r#"import {{ createRequire }} from 'module';
const require = createRequire({modules:?} + '/');
const {{ JSDOM }} = require('jsdom');
const dom = new JSDOM('<!doctype html><body></body>');
globalThis.window = dom.window; globalThis.document = dom.window.document;
const mermaid = (await import({modules:?} + '/mermaid/dist/mermaid.core.mjs')).default;
const text = require('fs').readFileSync(0, 'utf8');
try {{ await mermaid.parse(text); console.log('parsed'); }}
catch (e) {{ console.log(e.message); process.exit(1); }}"#
        ),
    )
    .unwrap();
    let mut child = Command::new("node")
        .arg(&script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("node runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The parser the diagram tests rely on is there, and it is a check that
/// can fail: a broken diagram is refused.
#[test]
#[ignore = "needs peers (tests/peers/install.sh): Mermaid's parser"]
fn mermaids_parser_is_there_and_can_refuse() {
    let modules = mermaid_modules().expect("Mermaid's parser among the peers");
    let (ok, said) = mermaid_verdict(
        &modules,
        "sequenceDiagram\n    participant A\n    A->>B: hi\n",
    );
    assert!(ok, "{said}");
    let (ok, said) = mermaid_verdict(
        &modules,
        "sequenceDiagram\n    A-->>>: broken ::\n    Note over: \n",
    );
    assert!(!ok, "a broken diagram passed: {said}");
}

/// HAR 1.2's required fields (spec: http://www.softwareishard.com/blog/har-12-spec/).
fn assert_har_shape(doc: &Value) {
    let log = &doc["log"];
    assert_eq!(log["version"], "1.2");
    assert!(log["creator"]["name"].is_string() && log["creator"]["version"].is_string());
    for e in log["entries"].as_array().expect("entries") {
        assert!(e["startedDateTime"].as_str().unwrap().ends_with('Z'), "{e}");
        assert!(e["time"].as_f64().unwrap() >= 0.0);
        let (req, res) = (&e["request"], &e["response"]);
        for k in ["method", "url", "httpVersion"] {
            assert!(req[k].is_string(), "request.{k}: {e}");
        }
        for k in ["cookies", "headers", "queryString"] {
            assert!(req[k].is_array(), "request.{k}: {e}");
        }
        assert!(req["headersSize"].is_i64() && req["bodySize"].is_i64());
        assert!(res["status"].is_u64() && res["statusText"].is_string());
        assert!(res["cookies"].is_array() && res["headers"].is_array());
        assert!(res["content"]["size"].is_u64() && res["content"]["mimeType"].is_string());
        assert!(res["redirectURL"].is_string());
        assert!(e["cache"].is_object());
        for k in ["send", "wait", "receive"] {
            assert!(e["timings"][k].as_f64().unwrap() >= 0.0, "timings.{k}: {e}");
        }
    }
}

#[test]
fn har_of_an_http_session_has_each_exchange_its_sse_events_and_no_secret() {
    let (_srv, url) = demo_http();
    let bearer = format!("Authorization: Bearer {SECRET}");
    // A handshake session: initialize, the GET stream and the DELETE are
    // exchanges of their own (2026-07-28 has neither GET nor DELETE).
    let run = headless([
        "call",
        "--protocol",
        "legacy",
        "--url",
        &url,
        "-H",
        &bearer,
        "--no-redact",
        "--tool",
        "build_report",
        "--args",
        r#"{"tasks":3,"delay_ms":5}"#,
        "-q",
    ])
    .record()
    .expect(0);
    let trace = run.trace_path();
    // Recorded with --no-redact, the trace itself keeps the token.
    assert!(std::fs::read_to_string(trace).unwrap().contains(SECRET));
    let out = export(trace, &["--format", "har"], 0);
    assert!(!out.contains(SECRET), "the token leaked:\n{out}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_har_shape(&doc);
    let entries = doc["log"]["entries"].as_array().unwrap();
    let call = entries
        .iter()
        .find(|e| {
            e["request"]["postData"]["text"]
                .as_str()
                .is_some_and(|t| t.contains("build_report"))
        })
        .expect("the tools/call exchange");
    assert_eq!(call["request"]["method"], "POST");
    assert_eq!(call["request"]["url"], url.as_str());
    assert_eq!(call["response"]["status"], 200);
    assert_eq!(call["response"]["content"]["mimeType"], "text/event-stream");
    let auth = call["request"]["headers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == "Authorization")
        .expect("the configured header");
    assert_eq!(auth["value"], "[redacted]");
    let events = call["_sseEvents"].as_array().unwrap();
    let progress = events
        .iter()
        .filter(|e| {
            e["data"]
                .as_str()
                .unwrap()
                .contains("notifications/progress")
        })
        .count();
    // Every progress notification the trace has (the demo server sends
    // them latest-wins, so two or three).
    let recorded = run
        .trace()
        .iter()
        .filter(|l| l["dir"] == "in" && l["json"]["method"] == "notifications/progress")
        .count();
    assert!(recorded >= 2);
    assert_eq!(progress, recorded, "{events:?}");
    assert!(
        events.last().unwrap()["data"]
            .as_str()
            .unwrap()
            .contains("\"result\""),
        "the response ends the stream"
    );
    let times: Vec<f64> = events.iter().map(|e| e["time"].as_f64().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    let text = call["response"]["content"]["text"].as_str().unwrap();
    assert_eq!(text.matches("data: ").count(), events.len());
    // The session's other exchanges: initialize, the GET stream, the DELETE.
    let methods: Vec<&str> = entries
        .iter()
        .map(|e| e["request"]["method"].as_str().unwrap())
        .collect();
    assert!(
        methods.contains(&"GET") && methods.contains(&"DELETE"),
        "{methods:?}"
    );
    assert!(entries.iter().any(|e| {
        e["request"]["postData"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("\"initialize\""))
    }));
    // The session id is a secret too.
    assert!(entries.iter().any(|e| {
        e["response"]["headers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["name"] == "Mcp-Session-Id" && h["value"] == "[redacted]")
    }));
    for fmt in ["mermaid", "json"] {
        let out = export(trace, &["--format", fmt], 0);
        assert!(!out.contains(SECRET), "{fmt} leaked the token:\n{out}");
    }
    // -o writes the file instead of stdout.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.har");
    let o = export(trace, &["--format", "har", "-o", file.to_str().unwrap()], 0);
    assert!(o.is_empty());
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(written, doc);
}

#[test]
fn har_of_a_stdio_trace_is_refused() {
    let run = headless(["call", "--demo", "--tool", "echo", "--args", "{}", "-q"])
        .record()
        .expect(0);
    let o = headless([
        "export",
        run.trace_path().to_str().unwrap(),
        "--format",
        "har",
    ])
    .expect(2);
    assert!(
        o.stderr.contains("HAR needs an HTTP session"),
        "{}",
        o.stderr
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn mermaid_folds_a_progress_burst_and_notes_the_finding_that_breaks_it() {
    let run = headless([
        "call",
        "--demo",
        "--tool",
        "fault_not_increasing",
        "--args",
        "{}",
        "-q",
    ])
    .record()
    .run();
    let out = export(run.trace_path(), &["--format", "mermaid"], 0);
    mermaid_parses(&out);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "sequenceDiagram");
    assert_eq!(lines[1], "    participant C as mcpscope");
    assert_eq!(lines[2], "    participant S as mcpscope-demo");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("    C->>S: #35;") && l.contains("tools/call"))
    );
    // 1, 2, 3 in one note; the 2 that went backwards on its own, the
    // finding after it; then the 4.
    let fold = lines
        .iter()
        .position(|l| l.contains(" 3 progress tok="))
        .unwrap_or_else(|| panic!("no fold of three:\n{out}"));
    assert!(lines[fold].contains("first 1/5") && lines[fold].contains("last 3/5"));
    assert!(
        lines[fold + 1].contains(" 1 progress tok=\"mcpscope-1\": 2/5"),
        "{out}"
    );
    assert!(
        lines[fold + 2].contains("⚠ progress-not-increasing (error)"),
        "{out}"
    );
    assert!(lines[fold + 3].contains(" 1 progress tok=") && lines[fold + 3].contains("4/5"));
    let response = lines
        .iter()
        .position(|l| l.starts_with("    S-->>C:") && l.contains("tools/call"))
        .unwrap();
    assert!(response > fold + 3);
    // No line but the header and participants lacks an arrow or a note.
    for l in &lines[3..] {
        assert!(
            l.starts_with("    Note over C,S: ") || l.contains(">>") || l.contains("-)"),
            "{l}"
        );
    }
}

#[test]
fn mermaid_of_a_proxy_recording_names_host_proxy_and_server() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("proxy.jsonl");
    let mut child = Command::new(BIN)
        .args([
            "proxy",
            "--record",
            rec.to_str().unwrap(),
            "--",
            BIN,
            "demo-server",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut until_id = |id: u64| loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "the proxy closed its stdout"
        );
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["id"] == id {
            break;
        }
    };
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"host","version":"1"}}}}}}"#).unwrap();
    until_id(0);
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"pipeline_wait","arguments":{{"polls":4,"interval_ms":1}},"_meta":{{"progressToken":"host-1"}}}}}}"#).unwrap();
    until_id(1);
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let out = export(&rec, &["--format", "mermaid", "--call", "1"], 0);
    mermaid_parses(&out);
    assert!(out.starts_with(
        "sequenceDiagram\n    participant H as host\n    participant P as mcpscope proxy\n    participant S as mcpscope-demo\n"
    ), "{out}");
    // Only the call: no initialize.
    assert!(!out.contains("initialize"), "{out}");
    assert!(out.contains("H->>S: #35;") && out.contains("pipeline_wait"));
    // The demo server sends progress latest-wins: the first poll and the last.
    assert!(
        out.contains(" progress tok=\"host-1\": first 1, last 4"),
        "{out}"
    );
    assert!(out.lines().any(|l| l.starts_with("    S-->>H:")));
}

/// A written trace whose server says things that would end a Mermaid
/// statement, open a comment or a directive, draw an arrow or inject
/// markup, with two calls at once.
const HOSTILE: &str = r##"{"mcpscope_trace":1,"recorded_as":"client","server":{"name":"evil;server#1","transport":"stdio"},"started":"2026-01-01T00:00:00Z","version":"0.1.0"}
{"seq":0,"t":0.001,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{},"_meta":{"progressToken":"t1"}}}}
{"seq":1,"t":0.002,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b","arguments":{},"_meta":{"progressToken":"t2"}}}}
{"seq":2,"t":0.003,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1,"total":2}}}
{"seq":3,"t":0.004,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":2,"total":2}}}
{"seq":4,"t":0.005,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"done; end\nS-->>C: forged\n%%{init: {'theme':'dark'}}%% <img src=x> #59;"}}}
{"seq":5,"t":0.006,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok;#"}]}}}
{"seq":6,"t":0.007,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t2","progress":1}}}
{"seq":7,"t":0.008,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","id":2,"result":{"content":[]}}}
"##;

const HOSTILE_SESSION: &str = r##"sequenceDiagram
    participant C as mcpscope
    participant S as evil#59;server#35;1
    C->>S: #35;0 tools/call id=1 tok="t1" a {}
    C->>S: #35;1 tools/call id=2 tok="t2" b {}
    Note over C,S: #35;2–#35;3 2 progress tok="t1": first 1/2 (50#37;), last 2/2 (100#37;)
    S-)C: #35;4 notifications/message info: done#59; end⏎S--#gt;#gt;C: forged⏎#37;#37;{init: {'theme':'dark'}}#37;#37; #lt;img src=x#gt; #35;59…
    S-->>C: #35;5 result tools/call id=1 {"content":[{"text":"ok#59;#35;","type":"text"}]}
    Note over C,S: #35;6 1 progress tok="t2": 1
    S-->>C: #35;7 result tools/call id=2 {"content":[]}
"##;

const HOSTILE_CALL_2: &str = r##"sequenceDiagram
    participant C as mcpscope
    participant S as evil#59;server#35;1
    C->>S: #35;1 tools/call id=2 tok="t2" b {}
    Note over C,S: #35;6 1 progress tok="t2": 1
    S-->>C: #35;7 result tools/call id=2 {"content":[]}
"##;

#[test]
fn mermaid_escapes_what_the_server_says_golden() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("hostile.jsonl");
    std::fs::write(&t, HOSTILE).unwrap();
    let out = export(&t, &["--format", "mermaid"], 0);
    assert_eq!(out, HOSTILE_SESSION);
    mermaid_parses(&out);
    let call = export(&t, &["--format", "mermaid", "--call", "2"], 0);
    assert_eq!(call, HOSTILE_CALL_2);
    let o = headless([
        "export",
        t.to_str().unwrap(),
        "--format",
        "mermaid",
        "--call",
        "9",
    ])
    .expect(2);
    assert!(o.stderr.contains("--call 9"), "{}", o.stderr);
    let o = headless([
        "export",
        t.to_str().unwrap(),
        "--format",
        "json",
        "--call",
        "1",
    ])
    .expect(2);
    assert!(o.stderr.contains("mermaid only"), "{}", o.stderr);
}

#[test]
fn json_has_latency_percentiles_counts_and_findings_by_rule() {
    // In the handshake era: the statistics count initialize, and the demo
    // has no finding there (at 2026-07-28 its logging is deprecated).
    let run = headless([
        "check",
        "--protocol",
        "legacy",
        "--demo",
        "--tool",
        "sleep",
        "--args",
        r#"{"ms":30}"#,
        "--repeat",
        "4",
        "--settle-ms",
        "0",
    ])
    .record()
    .expect(0);
    let v: Value =
        serde_json::from_str(&export(run.trace_path(), &["--format", "json"], 0)).unwrap();
    assert_eq!(v["mcpscope_export"], 1);
    let sleep = &v["tools"]["sleep"];
    assert_eq!(sleep["count"], 4);
    assert_eq!(sleep["ok"], 4);
    let lat = &sleep["latency_ms"];
    let (p50, p95, p99, max) = (
        lat["p50"].as_f64().unwrap(),
        lat["p95"].as_f64().unwrap(),
        lat["p99"].as_f64().unwrap(),
        lat["max"].as_f64().unwrap(),
    );
    assert!(p50 >= 30.0, "a 30 ms sleep took {p50} ms");
    assert!(p50 <= p95 && p95 <= p99 && p99 <= max);
    assert_eq!(v["methods"]["tools/call"]["count"], 4);
    assert_eq!(v["methods"]["initialize"]["count"], 1);
    assert!(
        v["methods"]["initialize"]["latency_ms"]["max"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert_eq!(v["findings"], serde_json::json!({}));

    let v = stats_of_call("fault_after_response");
    // Two notifications follow the response, both heard within the settle time.
    let late = v["findings"]["progress-after-response"]["count"]
        .as_u64()
        .unwrap_or_else(|| panic!("no finding: {v:#}"));
    assert_eq!(late, 2, "{v:#}");
    assert_eq!(
        v["findings"]["progress-after-response"]["severity"],
        "error"
    );
    // The call's progress is what came before its response; the session's all of it.
    assert_eq!(v["tools"]["fault_after_response"]["progress"], 1);
    assert_eq!(v["progress"]["notifications"], 1 + late);

    let v = stats_of_call("no_such_tool");
    let errors = v["errors"].as_object().unwrap();
    assert!(
        errors.contains_key("rpc-error") || errors.contains_key("tool-error"),
        "{v:#}"
    );
}

/// `export --format json` of a demo session calling `tool` once.
fn stats_of_call(tool: &str) -> Value {
    // Listening on after the response keeps what a fault sends after it,
    // however loaded the machine.
    let run = headless(["call", "--demo", "--tool", tool, "--args", "{}", "-q"])
        .args(["--settle-ms", "500"])
        .record()
        .run();
    serde_json::from_str(&export(run.trace_path(), &["--format", "json"], 0)).unwrap()
}

/// A session that authorized (OAuth against the loopback fixture
/// authorization server): the flow's exchanges are entries of their own,
/// the MCP requests after it carry `Authorization: [redacted]`, and no
/// token is in any export.
#[test]
fn har_of_an_authorized_session_lists_the_flow_and_hides_the_tokens() {
    use crate::support::auth::{Fault, mcpscope, server, url};
    let (port, _seen) = server(Fault::None);
    let data = tempfile::tempdir().unwrap();
    let rec = data.path().join("auth.jsonl");
    let u = url(port);
    let out = mcpscope(
        data.path(),
        &[
            "call",
            "--url",
            &u,
            "--auth-agent",
            "fetch",
            "--tool",
            "hello",
            "-q",
            "--record",
            rec.to_str().unwrap(),
        ],
    );
    // The fixture lists tools but answers tools/call with -32601: exit 1,
    // after the whole flow and an authorized request.
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("[auth] authorized"), "{}", out.stderr);
    let har = export(&rec, &["--format", "har"], 0);
    let doc: Value = serde_json::from_str(&har).unwrap();
    assert_har_shape(&doc);
    let entries = doc["log"]["entries"].as_array().unwrap();
    let steps: Vec<&str> = entries
        .iter()
        .filter_map(|e| e["comment"].as_str())
        .collect();
    assert!(
        steps.iter().any(|s| s.contains("token")),
        "no token step among {steps:?}"
    );
    let authorized = entries.iter().any(|e| {
        e["request"]["headers"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["name"] == "Authorization" && h["value"] == "[redacted]")
    });
    assert!(authorized, "{har}");
    for fmt in ["har", "mermaid", "json"] {
        let text = export(&rec, &["--format", fmt], 0);
        assert!(
            !text.contains("access-0") && !text.contains("refresh-0"),
            "{fmt} leaked a token"
        );
    }
}

/// `export … --only FILTER` of a real session (run with `headless`, the
/// stderr kept).
fn export_only(trace: &Path, args: &[&str], code: i32) -> crate::support::Run {
    let mut a = vec!["export", trace.to_str().unwrap()];
    a.extend_from_slice(args);
    headless(a).expect(code)
}

/// `export --only` keeps a call whole when the filter selects any of its
/// frames: selecting one call's response exports its request too, so its
/// latency is still there; the rest of the session is left out, and with
/// it the findings about it.
#[test]
fn export_only_keeps_each_selected_call_whole() {
    let run = headless([
        "check",
        "--protocol",
        "legacy",
        "--demo",
        "--tool",
        "sleep",
        "--args",
        r#"{"ms":30}"#,
        "--repeat",
        "3",
        "--settle-ms",
        "0",
    ])
    .record()
    .expect(0);
    let trace = run.trace_path();
    let text = std::fs::read_to_string(trace).unwrap();
    let ids: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["dir"] == "out" && v["json"]["method"] == "tools/call")
        .map(|v| v["json"]["id"].clone())
        .collect();
    assert_eq!(ids.len(), 3, "{text}");

    let all: Value = serde_json::from_str(&export(trace, &["--format", "json"], 0)).unwrap();
    assert_eq!(all["tools"]["sleep"]["count"], 3);
    let filter = format!("response && id == {}", ids[1]);
    let o = export_only(trace, &["--format", "json", "--only", &filter], 0);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    // The request, the progress and the response of that call, and
    // nothing else.
    let progress = v["tools"]["sleep"]["progress"].as_u64().unwrap();
    assert!(progress >= 1, "{v:#}");
    assert_eq!(v["progress"]["notifications"], progress, "{v:#}");
    assert_eq!(v["events"], 2 + progress, "{v:#}");
    assert_eq!(v["tools"]["sleep"]["count"], 1, "{v:#}");
    assert_eq!(v["tools"]["sleep"]["ok"], 1, "{v:#}");
    assert!(v["tools"]["sleep"]["latency_ms"]["max"].as_f64().unwrap() >= 30.0);
    assert!(v["methods"].get("initialize").is_none(), "{v:#}");
    assert!(
        o.stderr.contains(&format!(
            "[only] {filter}: {} of {} events exported",
            2 + progress,
            all["events"]
        )),
        "{}",
        o.stderr
    );

    // The diagram draws that call's request and response, numbered as the
    // exported events are.
    let o = export_only(trace, &["--format", "mermaid", "--only", &filter], 0);
    let arrows = |a: &str| o.stdout.lines().filter(|l| l.contains(a)).count();
    assert_eq!(arrows("-->>"), 1, "{}", o.stdout);
    assert_eq!(arrows("->>") - arrows("-->>"), 1, "{}", o.stdout);
    mermaid_parses(&o.stdout);

    // Nothing selected: an empty export, still written (exit 0).
    let o = export_only(
        trace,
        &["--format", "json", "--only", "method == no/such"],
        0,
    );
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["events"], 0, "{v:#}");
    assert_eq!(v["tools"], serde_json::json!({}), "{v:#}");
}

/// The findings are the whole trace's: those about exported frames go
/// with them (the progress after the response is the call's, by token),
/// the others are left out.
#[test]
fn export_only_carries_the_findings_about_what_it_exports() {
    // In the handshake era, where the demo has no finding of its own.
    let run = headless([
        "call",
        "--protocol",
        "legacy",
        "--demo",
        "--tool",
        "fault_after_response",
        "--args",
        "{}",
        "-q",
    ])
    .args(["--settle-ms", "500"])
    .record()
    .run();
    let trace = run.trace_path();
    let o = export_only(
        trace,
        &[
            "--format",
            "json",
            "--only",
            "tool == fault_after_response && request",
        ],
        0,
    );
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        v["findings"]["progress-after-response"]["count"], 2,
        "{v:#}"
    );
    // The late progress went with its call.
    assert_eq!(v["progress"]["notifications"], 3, "{v:#}");
    assert_eq!(v["tools"]["fault_after_response"]["progress"], 1, "{v:#}");

    let o = export_only(
        trace,
        &["--format", "json", "--only", "method == initialize"],
        0,
    );
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["findings"], serde_json::json!({}), "{v:#}");
    assert!(v["tools"].as_object().unwrap().is_empty(), "{v:#}");
    assert_eq!(v["methods"]["initialize"]["count"], 1, "{v:#}");
    assert!(
        o.stderr.contains("; 0 of 2 findings about them"),
        "{}",
        o.stderr
    );
}

#[test]
fn export_only_that_does_not_parse_is_a_usage_error_pointing_at_its_column() {
    let run = headless([
        "call",
        "--demo",
        "--tool",
        "echo",
        "--args",
        r#"{"text":"x"}"#,
    ])
    .record()
    .run();
    let o = export_only(
        run.trace_path(),
        &["--format", "json", "--only", "in && level >= loud"],
        2,
    );
    crate::only::says_the_bad_level_at_its_column(&o);
}

/// Over HTTP, a call exported whole takes its POST exchange with it: the
/// HAR has that one entry, with its status and its whole event stream, as
/// the export of the whole session has it.
#[test]
fn export_only_keeps_a_calls_http_exchange_whole() {
    let (_srv, url) = demo_http();
    let run = headless([
        "call",
        "--protocol",
        "legacy",
        "--url",
        &url,
        "--tool",
        "build_report",
        "--args",
        r#"{"tasks":3,"delay_ms":5}"#,
        "-q",
    ])
    .record()
    .expect(0);
    let trace = run.trace_path();
    let all: Value = serde_json::from_str(&export(trace, &["--format", "har"], 0)).unwrap();
    let call_of = |doc: &Value| -> Vec<Value> {
        doc["log"]["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| {
                e["request"]["postData"]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains("build_report"))
            })
            .cloned()
            .collect()
    };
    let whole = call_of(&all);
    assert_eq!(whole.len(), 1);
    assert!(all["log"]["entries"].as_array().unwrap().len() > 1);

    // One progress notification selects the call.
    let o = export_only(
        trace,
        &[
            "--format",
            "har",
            "--only",
            "progress && params.progress == 1",
        ],
        0,
    );
    let doc: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_har_shape(&doc);
    let entries = doc["log"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{doc:#}");
    let got = &call_of(&doc)[0];
    assert_eq!(got["response"]["status"], 200, "{got:#}");
    assert_eq!(got["response"]["content"]["mimeType"], "text/event-stream");
    assert_eq!(
        got["_sseEvents"].as_array().unwrap().len(),
        whole[0]["_sseEvents"].as_array().unwrap().len()
    );
    assert_eq!(
        got["response"]["content"]["text"],
        whole[0]["response"]["content"]["text"]
    );
}
