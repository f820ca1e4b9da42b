//! `demo-server --conformance` over stdio (the HTTP side is what
//! `tests/conformance/server.rs` runs the suite against): the fixtures are
//! listed before the demo tools and answer, and without the flag none of them
//! is reachable.

use crate::support::BIN;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
    next_id: i64,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        let mut child = Command::new(BIN)
            .arg("demo-server")
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn demo server");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(serde_json::from_str(&line).unwrap()).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take().unwrap();
        let mut server = Server {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        server.call(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "fixtures-test", "version": "0"}}),
        );
        server
    }

    /// Send a request and return its response (other lines are skipped).
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{msg}").unwrap();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|e| panic!("no response to {method}: {e}"));
            if line["id"] == id {
                return line;
            }
        }
    }

    fn tool_names(&mut self) -> Vec<String> {
        let mut names = Vec::new();
        let mut cursor = Value::Null;
        loop {
            let params = if cursor.is_null() {
                json!({})
            } else {
                json!({"cursor": cursor})
            };
            let page = self.call("tools/list", params);
            for t in page["result"]["tools"].as_array().unwrap() {
                names.push(t["name"].as_str().unwrap().to_owned());
            }
            cursor = page["result"]["nextCursor"].clone();
            if cursor.is_null() {
                return names;
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn fixtures_precede_the_demo_tools_and_answer() {
    let plain = Server::start(&[]).tool_names();
    let mut server = Server::start(&["--conformance"]);
    let names = server.tool_names();
    let fixtures = names.len() - plain.len();
    assert_eq!(names[fixtures..], plain[..]);
    assert!(
        names[..fixtures]
            .iter()
            .all(|n| n.starts_with("test_") || n == "json_schema_2020_12_tool"),
        "{names:?}"
    );
    // The handshake era has no input_required fixtures.
    assert!(
        !names.iter().any(|n| n.contains("input_required")),
        "{names:?}"
    );
    assert!(names.contains(&"test_simple_text".to_owned()), "{names:?}");

    let r = server.call("tools/call", json!({"name": "test_image_content"}));
    assert_eq!(r["result"]["content"][0]["type"], "image", "{r}");
    let r = server.call("resources/read", json!({"uri": "test://template/42/data"}));
    let text = r["result"]["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains("42"), "{r}");
    let r = server.call("resources/read", json!({"uri": "test://nope"}));
    assert_eq!(r["error"]["code"], -32002, "{r}");
    let r = server.call(
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}}),
    );
    let text = r["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert_eq!(text, "Prompt with arguments: arg1='a', arg2='b'");
    let r = server.call(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
               "argument": {"name": "arg1", "value": "he"}}),
    );
    assert_eq!(
        r["result"]["completion"]["values"],
        json!(["hello", "help"])
    );
}

#[test]
fn without_the_flag_no_fixture_is_reachable() {
    let mut server = Server::start(&[]);
    let names = server.tool_names();
    assert!(!names.iter().any(|n| n.starts_with("test_")), "{names:?}");
    for method in ["resources/list", "prompts/list", "completion/complete"] {
        let r = server.call(method, json!({}));
        assert_eq!(r["error"]["code"], -32601, "{method}: {r}");
    }
    let r = server.call("tools/call", json!({"name": "test_simple_text"}));
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Unknown tool"),
        "{r}"
    );
}
