//! `mcpscope mcp`: mcpscope as an MCP server, driven by the official
//! Python and TypeScript SDK clients as hosts, and by raw JSON-RPC lines
//! for what a host must not be able to do (another server, a file outside
//! the working directory).

use crate::support::{BIN, finish};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn the_sdk_clients_call_check_and_get_the_grouped_findings_with_their_fix() {
    let py = crate::support::peer("venv/bin/python")
        .display()
        .to_string();
    let py_host = root().join("tests/peers/sdk_host.py").display().to_string();
    let node_host = root()
        .join("tests/peers/sdk_host.mjs")
        .display()
        .to_string();
    for (name, host) in [
        ("python", vec![py, py_host]),
        ("typescript", vec!["node".to_string(), node_host]),
    ] {
        let mut cmd = Command::new(&host[0]);
        cmd.args(&host[1..])
            .arg("check")
            .arg(r#"{"server":"demo","tool":"fault_after_response"}"#)
            .args([BIN, "mcp", "--demo"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let o = finish(cmd.spawn().unwrap());
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
        let v: Value = serde_json::from_str(&o.stdout).unwrap();
        assert_eq!(
            v["tools"],
            serde_json::json!(["check", "call", "test", "diff"]),
            "{name}"
        );
        let r = &v["result"];
        // The Python SDK dumps its models in snake case.
        let structured = r
            .get("structuredContent")
            .or_else(|| r.get("structured_content"))
            .unwrap();
        assert_eq!(structured["exit_code"], 1, "{name}: {r}");
        let group = &structured["report"]["groups"][0];
        assert_eq!(group["rule"], "progress-after-response", "{name}");
        assert_eq!(group["count"], 2, "{name}");
        assert!(
            group["fix"]
                .as_str()
                .unwrap()
                .starts_with("a throttled or background reporter")
        );
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(
            text.contains("fix: a throttled or background reporter"),
            "{name}: {text}"
        );
        assert!(text.ends_with("FAIL"), "{name}: {text}");
    }
}

/// Send `requests` (one JSON-RPC message a line) to `mcpscope mcp ARGS`
/// in `dir`; every answer, by id.
fn exchange(dir: &Path, args: &[&str], requests: &[&str]) -> Vec<Value> {
    let mut child = Command::new(BIN)
        .arg("mcp")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for r in requests {
        writeln!(stdin, "{r}").unwrap();
    }
    drop(stdin);
    let o = finish(child);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let mut answers: Vec<Value> = o
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    answers.sort_by_key(|a| a["id"].as_i64().unwrap_or(-1));
    answers
}

#[test]
fn a_host_reaches_only_the_servers_and_files_it_was_given() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("t.toml"),
        "[server]\ndemo = true\n[[case]]\nname = \"e\"\ntool = \"echo\"\n",
    )
    .unwrap();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let call = |id: u32, name: &str, args: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{name}","arguments":{args}}}}}"#
        )
    };
    let reqs = [
        init.to_string(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_string(),
        call(2, "check", r#"{"server":"elsewhere","tool":"echo"}"#),
        call(3, "test", r#"{"path":"/etc/passwd"}"#),
        call(4, "diff", r#"{"a":"../x.jsonl","b":"t.toml"}"#),
        call(5, "test", r#"{"path":"t.toml"}"#),
        r#"{"jsonrpc":"2.0","id":6,"method":"resources/list"}"#.to_string(),
    ];
    let reqs: Vec<&str> = reqs.iter().map(String::as_str).collect();
    let a = exchange(dir.path(), &["--demo"], &reqs);
    assert_eq!(a.len(), 6, "{a:?}");
    assert_eq!(a[0]["result"]["protocolVersion"], "2025-06-18");
    let text = |v: &Value| {
        v["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(a[1]["result"]["isError"], true);
    assert!(
        text(&a[1]).contains("no server \"elsewhere\": offered are demo"),
        "{}",
        text(&a[1])
    );
    assert!(
        text(&a[2]).contains("outside the working directory"),
        "{}",
        text(&a[2])
    );
    assert_eq!(a[3]["result"]["isError"], true, "{}", a[3]);
    // A test file inside the working directory runs, its report structured.
    assert_eq!(a[4]["result"]["isError"], false, "{}", a[4]);
    assert_eq!(a[4]["result"]["structuredContent"]["exit_code"], 0);
    assert_eq!(
        a[4]["result"]["structuredContent"]["report"]["cases"][0]["passed"],
        true
    );
    assert_eq!(a[5]["error"]["code"], -32601);
}

#[test]
fn an_oversized_request_is_refused_and_the_next_one_answered() {
    let dir = tempfile::tempdir().unwrap();
    let huge = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
        "a".repeat(5 << 20)
    );
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    let a = exchange(dir.path(), &["--demo"], &[&huge, ping]);
    assert_eq!(a.len(), 2, "{a:?}");
    assert_eq!(a[0]["id"], Value::Null);
    assert_eq!(a[0]["error"]["code"], -32600);
    assert_eq!(a[1]["id"], 2);
    assert_eq!(a[1]["result"], serde_json::json!({}));
}
