//! `mcpscope proxy --faults` between a raw host (this test) and the demo
//! server: the host gets what the rules make of the traffic, the recording
//! has what the server really sent plus an `injected` event per change, and
//! `check --trace` blames the server for none of it.

use crate::support::proxy::*;
use serde_json::{Value, json};
use std::path::Path;

const FLOOD: u64 = 12;

/// What one session through the proxy gave.
struct Run {
    /// The host's stdout, line by line.
    host: Vec<Vec<u8>>,
    recs: Vec<Rec>,
    trace: std::path::PathBuf,
    elapsed: std::time::Duration,
}

fn is_progress(l: &[u8]) -> bool {
    String::from_utf8_lossy(l).contains("\"method\":\"notifications/progress\"")
}

fn progress_of(l: &[u8]) -> Option<u64> {
    let v: Value = serde_json::from_slice(l).ok()?;
    v["params"]["progress"].as_u64()
}

fn is_result(l: &[u8]) -> bool {
    serde_json::from_slice::<Value>(l).is_ok_and(|v| v.get("result").is_some() && v["id"] != 1)
}

/// initialize, then `flood` of FLOOD progress notifications with a token;
/// the host waits for the call's result (any id: a rule may change it).
fn session(faults: &[&str], dir: &Path) -> Run {
    let trace = dir.join(format!(
        "t{}.jsonl",
        faults.join("_").replace(['/', ':', '%', '.'], "-")
    ));
    let mut extra = Vec::new();
    for f in faults {
        extra.push("--faults");
        extra.push(f);
    }
    let mut h = Host::start(&proxied(&demo(), &trace, &extra), dir);
    h.initialize();
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params":
        {"name": "flood", "arguments": {"count": FLOOD}, "_meta": {"progressToken": "f"}}});
    let start = std::time::Instant::now();
    h.write(format!("{call}\n").as_bytes());
    h.wait_line(|v| v.get("result").is_some() && v["id"] != 1);
    let elapsed = start.elapsed();
    let (out, st, err) = h.finish();
    assert!(st.success(), "{st:?} {}", String::from_utf8_lossy(&err));
    Run {
        host: split_lines(&out),
        recs: recorded_when_ended(&trace),
        trace,
        elapsed,
    }
}

impl Run {
    fn host_progress(&self) -> Vec<u64> {
        self.host.iter().filter_map(|l| progress_of(l)).collect()
    }
    /// What the server really sent: every progress, in order, then the result.
    fn assert_server_frames_whole(&self) {
        let ins = dir_frames(&self.recs, "in");
        let p: Vec<u64> = ins.iter().filter_map(|l| progress_of(l)).collect();
        assert_eq!(
            p,
            (1..=FLOOD).collect::<Vec<_>>(),
            "the server's progress as recorded"
        );
        let result = ins
            .iter()
            .position(|l| is_result(l))
            .expect("result recorded");
        let last_progress = ins.iter().rposition(|l| is_progress(l)).unwrap();
        assert!(
            last_progress < result,
            "the server sent its progress before its result"
        );
    }
    fn injected(&self) -> Vec<Value> {
        self.recs
            .iter()
            .filter(|r| r.dir == "meta")
            .filter_map(|r| serde_json::from_slice::<Value>(&r.bytes).ok())
            .filter(|v| v["event"] == "injected")
            .collect()
    }
    /// `check --trace`: nothing blamed on either party for what the proxy did.
    fn assert_nothing_blamed(&self) {
        let out = std::process::Command::new(BIN)
            .args(["check", "--trace"])
            .arg(&self.trace)
            .args(["--format", "json"])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let rules: Vec<&str> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["rule"].as_str())
            .collect();
        for bad in [
            "progress-after-response",
            "progress-not-increasing",
            "response-unknown-id",
            "response-duplicate",
            "jsonrpc-invalid",
            "stdout-not-jsonrpc",
        ] {
            assert!(!rules.contains(&bad), "{bad} found: {v}");
        }
        assert_eq!(out.status.code(), Some(0), "{v}");
    }
    fn printed(&self) -> String {
        let out = std::process::Command::new(BIN)
            .args(["replay", "--print"])
            .arg(&self.trace)
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    }
}

#[test]
fn progress_after_response_sends_every_progress_after_the_result() {
    let d = tempfile::tempdir().unwrap();
    let r = session(&["progress-after-response"], d.path());
    let result = r.host.iter().position(|l| is_result(l)).unwrap();
    let first = r.host.iter().position(|l| is_progress(l)).unwrap();
    assert!(
        first > result,
        "progress before the result on the host side"
    );
    assert_eq!(r.host_progress(), (1..=FLOOD).collect::<Vec<_>>());
    r.assert_server_frames_whole();
    let inj = r.injected();
    assert_eq!(inj.len() as u64, FLOOD);
    assert!(inj.iter().all(|e| e["action"] == "late"
        && e["rule"] == 1
        && e["source"] == "progress-after-response"
        && e["stream"] == "server→host"));
    assert!(
        inj[0]["original"]
            .as_str()
            .unwrap()
            .contains("\"progress\":1,")
    );
    r.assert_nothing_blamed();
    let printed = r.printed();
    assert!(
        printed.contains("injected")
            && printed.contains("late by rule 1 (progress-after-response) server→host"),
        "{printed}"
    );
}

#[test]
fn reorder_progress_swaps_pairs() {
    let d = tempfile::tempdir().unwrap();
    let r = session(&["reorder-progress"], d.path());
    let want: Vec<u64> = (1..=FLOOD / 2).flat_map(|k| [2 * k, 2 * k - 1]).collect();
    assert_eq!(r.host_progress(), want);
    r.assert_server_frames_whole();
    assert_eq!(r.injected().len() as u64, FLOOD / 2);
    assert!(r.injected().iter().all(|e| e["action"] == "hold"));
    r.assert_nothing_blamed();
}

#[test]
fn lose_progress_drops_some_the_same_way_each_run_and_says_which() {
    let d = tempfile::tempdir().unwrap();
    let a = session(&["lose-progress:50%"], d.path());
    let kept = a.host_progress();
    let dropped = a.injected();
    assert!(!dropped.is_empty() && !kept.is_empty(), "{kept:?}");
    assert_eq!(kept.len() + dropped.len(), FLOOD as usize);
    assert!(
        dropped
            .iter()
            .all(|e| e["action"] == "drop" && e["source"] == "lose-progress:50%")
    );
    // The default seed: the same progress is lost in every run.
    let b = session(&["lose-progress:50%"], &d.path().join("b").tap_mkdir());
    assert_eq!(b.host_progress(), kept);
    a.assert_server_frames_whole();
    a.assert_nothing_blamed();
    assert!(
        a.printed()
            .contains("drop by rule 1 (lose-progress:50%) server→host")
    );
}

#[test]
fn slow_server_delays_each_message_without_piling_the_delays_up() {
    let d = tempfile::tempdir().unwrap();
    let r = session(&["slow-server:300ms"], d.path());
    // The result waited its own 300 ms, not 300 ms per message before it.
    assert!(
        r.elapsed >= std::time::Duration::from_millis(300),
        "{:?}",
        r.elapsed
    );
    assert!(
        r.elapsed < std::time::Duration::from_secs(3),
        "{:?}",
        r.elapsed
    );
    assert_eq!(r.host_progress(), (1..=FLOOD).collect::<Vec<_>>());
    let inj = r.injected();
    // initialize's result, FLOOD progress, the call's result.
    assert_eq!(inj.len() as u64, FLOOD + 2);
    assert!(
        inj.iter()
            .all(|e| e["action"] == "delay" && e["detail"] == "300 ms")
    );
    r.assert_nothing_blamed();
}

/// One file, several rules: the matching rules act in order until one
/// changes the message; limits count.
const FILE: &str = r#"
seed = 3
[[rule]]
match = "in && progress && params.progress == 1"
action = "corrupt"
how = "cut"
[[rule]]
match = "in && progress && params.progress == 2"
action = "corrupt"
how = "invalid-json"
[[rule]]
match = "in && progress"
action = "drop"
every = 3
limit = 2
[[rule]]
match = "in && progress && params.progress >= 10"
action = "duplicate"
[[rule]]
match = "in && response && method == tools/call"
action = "corrupt"
how = "wrong-id"
"#;

#[test]
fn a_faults_file_corrupts_drops_and_duplicates_as_its_rules_say() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("faults.toml");
    std::fs::write(&file, FILE).unwrap();
    let r = session(&[file.to_str().unwrap()], d.path());
    // Progress 1 cut, 2 invalid JSON: the host got two lines that are no JSON.
    let not_json: Vec<&Vec<u8>> = r
        .host
        .iter()
        .filter(|l| serde_json::from_slice::<Value>(l).is_err())
        .collect();
    assert_eq!(not_json.len(), 2, "{not_json:?}");
    // Rule 3 acts from progress 3 on (1 and 2 are changed by the first rules):
    // every third it decides drops, so 5 and 8, then its limit is reached;
    // 10..12 go to rule 4, twice each.
    assert_eq!(
        r.host_progress(),
        vec![3, 4, 6, 7, 9, 10, 10, 11, 11, 12, 12]
    );
    let result: Value =
        serde_json::from_slice(r.host.iter().find(|l| is_result(l)).unwrap()).unwrap();
    assert_eq!(result["id"], "2-wrong-id");
    r.assert_server_frames_whole();
    let actions: Vec<(u64, String)> = r
        .injected()
        .iter()
        .map(|e| {
            (
                e["rule"].as_u64().unwrap(),
                e["action"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want: Vec<(u64, String)> = [
        (1, "corrupt"),
        (2, "corrupt"),
        (3, "drop"),
        (3, "drop"),
        (4, "duplicate"),
        (4, "duplicate"),
        (4, "duplicate"),
        (5, "corrupt"),
    ]
    .iter()
    .map(|(n, a)| (*n, a.to_string()))
    .collect();
    assert_eq!(actions, want);
    let wrong = &r.injected()[7];
    assert!(
        wrong["sent"].as_str().unwrap().contains("\"2-wrong-id\""),
        "{wrong}"
    );
    assert!(
        wrong["original"].as_str().unwrap().contains("\"id\":2"),
        "{wrong}"
    );
    r.assert_nothing_blamed();
}

#[test]
fn close_ends_the_hosts_stream_and_the_session() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("close.toml");
    std::fs::write(
        &file,
        "[[rule]]\nmatch = 'in && progress && params.progress == 5'\naction = 'close'\n",
    )
    .unwrap();
    let trace = d.path().join("close.jsonl");
    let mut h = Host::start(
        &proxied(&demo(), &trace, &["--faults", file.to_str().unwrap()]),
        d.path(),
    );
    h.initialize();
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params":
        {"name": "flood", "arguments": {"count": FLOOD}, "_meta": {"progressToken": "f"}}});
    h.write(format!("{call}\n").as_bytes());
    let lines = h.wait_eof();
    let got: Vec<u64> = lines.iter().filter_map(|l| progress_of(l)).collect();
    assert_eq!(got, vec![1, 2, 3, 4]);
    // The host ends its side as hosts do when the server goes: the server
    // then ends, and the proxy with it.
    let (_, st, _) = h.finish();
    assert!(st.success(), "{st:?}");
    let recs = recorded_when_ended(&trace);
    let ins = dir_frames(&recs, "in");
    assert_eq!(
        ins.iter().filter(|l| is_progress(l)).count() as u64,
        FLOOD,
        "the server's real frames"
    );
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(
        text.contains(r#""action":"close""#) && text.contains("closed the stream towards the host")
    );
}

fn faults_usage(args: &[&str], dir: &Path) -> String {
    let mut argv = vec!["proxy"];
    argv.extend_from_slice(args);
    argv.extend(["--", "true"]);
    let out = std::process::Command::new(BIN)
        .args(&argv)
        .env("MCPSCOPE_RUNTIME_DIR", dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn bad_faults_are_usage_errors_that_say_where() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("bad.toml");
    std::fs::write(
        &file,
        "seed = 1\n[[rule]]\naction = \"drop\"\nmatch = \"in && (progress\"\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let err = faults_usage(&["--faults", f], d.path());
    assert!(
        err.contains(&format!("{f}:")) && err.contains("rule 1 (match): column 7:"),
        "{err}"
    );
    assert!(err.contains("(file line 4, column 16)"), "{err}");
    assert!(err.contains("in && (progress\n"), "{err}");
    assert!(err.contains("^ "), "{err}");
    let err = faults_usage(&["--faults", "drop-sse-stream"], d.path());
    assert!(
        err.contains("drop-sse-stream") && err.contains("needs the HTTP proxy"),
        "{err}"
    );
    let err = faults_usage(&["--faults", "server-request-storm:0"], d.path());
    assert!(err.contains("from 1 to 10000"), "{err}");
    let forge = d.path().join("forge.toml");
    std::fs::write(
        &forge,
        "[[rule]]\nmatch = \"progress\"\naction = \"forge\"\nmethod = \"ping\"\n",
    )
    .unwrap();
    let err = faults_usage(&["--faults", forge.to_str().unwrap()], d.path());
    assert!(
        err.contains("rule 1 (forge)") && err.contains("`in && …`"),
        "{err}"
    );
    let no_method = d.path().join("no-method.toml");
    std::fs::write(&no_method, "[[rule]]\nmatch = \"in\"\naction = \"forge\"\n").unwrap();
    let err = faults_usage(&["--faults", no_method.to_str().unwrap()], d.path());
    assert!(err.contains("forge needs `method`"), "{err}");
    let err = faults_usage(&["--faults", "no-such-preset-or-file"], d.path());
    assert!(
        err.contains("not a preset") && err.contains("lose-progress:N%"),
        "{err}"
    );
    let err = faults_usage(&["--faults", "lose-progress:x"], d.path());
    assert!(err.contains("percentage"), "{err}");
}

trait TapMkdir {
    fn tap_mkdir(self) -> Self;
}

impl TapMkdir for std::path::PathBuf {
    fn tap_mkdir(self) -> Self {
        std::fs::create_dir_all(&self).unwrap();
        self
    }
}

#[test]
fn rules_act_on_what_the_host_sends_too() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("out.toml");
    std::fs::write(
        &file,
        "[[rule]]\nmatch = 'out && request && method == tools/call'\naction = 'delay'\nms = 300\n",
    )
    .unwrap();
    let r = session(&[file.to_str().unwrap()], d.path());
    // The call reached the server 300 ms after the host sent it.
    assert!(
        r.elapsed >= std::time::Duration::from_millis(300),
        "{:?}",
        r.elapsed
    );
    assert_eq!(r.host_progress(), (1..=FLOOD).collect::<Vec<_>>());
    let inj = r.injected();
    assert_eq!(inj.len(), 1, "{inj:?}");
    assert_eq!(inj[0]["stream"], "host→server");
    assert!(
        inj[0]["original"]
            .as_str()
            .unwrap()
            .contains("\"method\":\"tools/call\"")
    );
    r.assert_server_frames_whole();
    r.assert_nothing_blamed();
}

// ---- changes the server answers: judged on what it got --------------------

/// A faults file of one rule acting on the host's `tools/call` requests.
fn on_calls(dir: &Path, action: &str) -> std::path::PathBuf {
    let file = dir.join("calls.toml");
    std::fs::write(
        &file,
        format!(
            "[[rule]]\nmatch = 'out && request && method == tools/call'\n{action}\nlimit = 1\n"
        ),
    )
    .unwrap();
    file
}

/// `check --trace` (with `extra`): what it holds against the server, its
/// findings and the calls it did not complete.
fn server_findings(trace: &Path, extra: &[&str]) -> Vec<Value> {
    let out = std::process::Command::new(BIN)
        .args(["check", "--trace"])
        .arg(trace)
        .args(["--format", "json"])
        .args(extra)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["party"] == "server")
        .chain(v["failures"].as_array().unwrap())
        .cloned()
        .collect()
}

fn flood_call(id: u64) -> String {
    let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params":
        {"name": "flood", "arguments": {"count": FLOOD}, "_meta": {"progressToken": "f"}}});
    format!("{call}\n")
}

fn injected_actions(trace: &Path) -> Vec<(String, String)> {
    recorded_when_ended(trace)
        .iter()
        .filter(|r| r.dir == "meta")
        .filter_map(|r| serde_json::from_slice::<Value>(&r.bytes).ok())
        .filter(|v| v["event"] == "injected")
        .map(|v| {
            (
                v["action"].as_str().unwrap().to_string(),
                v["stream"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_request_id_changed_on_its_way_is_answered_by_the_id_the_server_got() {
    let d = tempfile::tempdir().unwrap();
    let file = on_calls(d.path(), "action = 'corrupt'\nhow = 'wrong-id'");
    let trace = d.path().join("wrong-id.jsonl");
    let mut h = Host::start(
        &proxied(&demo(), &trace, &["--faults", file.to_str().unwrap()]),
        d.path(),
    );
    h.initialize();
    h.write(flood_call(2).as_bytes());
    // The server answered the id it got.
    h.wait_line(|v| v["id"] == "2-wrong-id" && v.get("result").is_some());
    let (_, st, _) = h.finish();
    assert!(st.success(), "{st:?}");
    assert_eq!(
        injected_actions(&trace),
        [("corrupt".to_string(), "host→server".to_string())]
    );
    let blamed = server_findings(&trace, &[]);
    assert!(blamed.is_empty(), "{blamed:?}");
}

#[test]
fn a_request_dropped_on_its_way_is_no_silence_of_the_servers() {
    let d = tempfile::tempdir().unwrap();
    let file = on_calls(d.path(), "action = 'drop'");
    let trace = d.path().join("drop.jsonl");
    let mut h = Host::start(
        &proxied(&demo(), &trace, &["--faults", file.to_str().unwrap()]),
        d.path(),
    );
    h.initialize();
    h.write(flood_call(2).as_bytes());
    // Longer than the stall threshold below: the call never reached the
    // server, so its silence is not the server's.
    std::thread::sleep(std::time::Duration::from_millis(500));
    let pong = h.request(3, "ping", json!({}));
    assert!(pong.get("result").is_some(), "{pong}");
    let (out, st, _) = h.finish();
    assert!(st.success(), "{st:?}");
    assert!(!String::from_utf8_lossy(&out).contains("\"id\":2"));
    assert_eq!(
        injected_actions(&trace),
        [("drop".to_string(), "host→server".to_string())]
    );
    let blamed = server_findings(&trace, &["--stall-secs", "0.2"]);
    assert!(blamed.is_empty(), "{blamed:?}");
}

#[test]
fn a_request_sent_twice_on_its_way_is_answered_twice() {
    let d = tempfile::tempdir().unwrap();
    let file = on_calls(d.path(), "action = 'duplicate'");
    let trace = d.path().join("dup.jsonl");
    let mut h = Host::start(
        &proxied(&demo(), &trace, &["--faults", file.to_str().unwrap()]),
        d.path(),
    );
    h.initialize();
    h.write(flood_call(2).as_bytes());
    // Each copy is answered: run, or refused while the first still runs
    // (the demo's answer to an id in use).
    let answer =
        |v: &Value| v["id"] == 2 && (v.get("result").is_some() || v.get("error").is_some());
    h.wait_line(answer);
    h.wait_line(answer);
    let (_, st, _) = h.finish();
    assert!(st.success(), "{st:?}");
    let recs = recorded_when_ended(&trace);
    let answers = dir_frames(&recs, "in")
        .iter()
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter(|v| answer(v))
        .count();
    assert_eq!(answers, 2, "the server answered both copies");
    let blamed = server_findings(&trace, &[]);
    assert!(blamed.is_empty(), "{blamed:?}");
}

#[test]
fn a_line_broken_on_its_way_gets_the_parse_error_it_deserves() {
    let d = tempfile::tempdir().unwrap();
    let file = on_calls(d.path(), "action = 'corrupt'\nhow = 'invalid-json'");
    let trace = d.path().join("invalid.jsonl");
    let mut h = Host::start(
        &proxied(&demo(), &trace, &["--faults", file.to_str().unwrap()]),
        d.path(),
    );
    h.initialize();
    h.write(flood_call(2).as_bytes());
    let err = h.wait_line(|v| v["id"].is_null() && v.get("error").is_some());
    assert_eq!(err["error"]["code"], -32700, "{err}");
    let pong = h.request(3, "ping", json!({}));
    assert!(pong.get("result").is_some(), "{pong}");
    let (_, st, _) = h.finish();
    assert!(st.success(), "{st:?}");
    let blamed = server_findings(&trace, &[]);
    assert!(blamed.is_empty(), "{blamed:?}");
}
