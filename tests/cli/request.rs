//! `mcpscope request METHOD [--params JSON]`: any request headless, against
//! a paging server in sh (real process, real pipes), the demo server's
//! conformance fixtures and server-everything.

use crate::support::*;
use serde_json::Value;

/// A stdio server in sh that pages `resources/list`: no cursor → page 1,
/// `p2` → page 2, `p3` → the last page (with a number no f64 holds). Any
/// other request with an id gets `-32601`. Every request line is echoed
/// on stderr so the test sees what was sent.
fn pager(loop_cursor: bool) -> Vec<String> {
    let last = if loop_cursor {
        r#"{"resources":[],"nextCursor":"p2"}"#
    } else {
        r#"{"resources":[{"uri":"demo://d","size":1e999}]}"#
    };
    let script = format!(
        r#"while IFS= read -r l; do
  printf 'sent %s\n' "$l" >&2
  id=$(printf '%s' "$l" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$l" in
    *'"initialize"'*) printf '{{"jsonrpc":"2.0","id":%s,"result":{{"protocolVersion":"2025-11-25","capabilities":{{"resources":{{}}}},"serverInfo":{{"name":"pager","version":"1"}}}}}}\n' "$id" ;;
    *'"resources/list"'*'"cursor":"p2"'*) printf '{{"jsonrpc":"2.0","id":%s,"result":{{"nextCursor":"p3","resources":[{{"uri":"demo://b"}},{{"uri":"demo://c"}}]}}}}\n' "$id" ;;
    *'"resources/list"'*'"cursor":"p3"'*) printf '{{"jsonrpc":"2.0","id":%s,"result":{last}}}\n' "$id" ;;
    *'"resources/list"'*) printf '{{"jsonrpc":"2.0","id":%s,"result":{{"resources":[{{"uri":"demo://a","name":"a"}}],"_meta":{{"k":1}},"nextCursor":"p2"}}}}\n' "$id" ;;
    *) if [ -n "$id" ]; then printf '{{"jsonrpc":"2.0","id":%s,"error":{{"code":-32601,"message":"no such method"}}}}\n' "$id"; fi ;;
  esac
done"#
    );
    vec!["sh".into(), "-c".into(), script]
}

fn request(extra: &[&str], server: &[String]) -> Output {
    let mut args: Vec<&str> = vec!["request"];
    args.extend_from_slice(extra);
    args.push("--");
    args.extend(server.iter().map(String::as_str));
    run(&args)
}

#[test]
fn a_listing_follows_every_page_and_keeps_the_servers_text() {
    let o = request(&["resources/list"], &pager(false));
    assert_eq!(o.code, 0, "{}", o.stderr);
    let compact: String = o.stdout.split_whitespace().collect();
    assert_eq!(
        compact,
        r#"{"resources":[{"uri":"demo://a","name":"a"},{"uri":"demo://b"},{"uri":"demo://c"},{"uri":"demo://d","size":1e999}],"_meta":{"k":1}}"#
    );
    // Three requests, each with its own progress token.
    let sent: Vec<Value> = o
        .lines("[stderr] sent ")
        .iter()
        .map(|l| serde_json::from_str(&l["[stderr] sent ".len()..]).unwrap())
        .filter(|v: &Value| v["method"] == "resources/list")
        .collect();
    assert_eq!(sent.len(), 3, "{}", o.stderr);
    assert!(sent[0]["params"].get("cursor").is_none());
    assert_eq!(sent[1]["params"]["cursor"], "p2");
    assert_eq!(sent[2]["params"]["cursor"], "p3");
    let tokens: std::collections::HashSet<String> = sent
        .iter()
        .map(|s| s["params"]["_meta"]["progressToken"].to_string())
        .collect();
    assert_eq!(tokens.len(), 3, "a fresh token per page: {tokens:?}");
    assert!(
        o.stderr.contains("number out of range"),
        "the big number is named: {}",
        o.stderr
    );
}

#[test]
fn a_named_cursor_asks_for_that_page_only() {
    let o = request(
        &["resources/list", "--params", r#"{"cursor":"p2"}"#, "--json"],
        &pager(false),
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        o.stdout.trim(),
        r#"{"nextCursor":"p3","resources":[{"uri":"demo://b"},{"uri":"demo://c"}]}"#
    );
}

#[test]
fn a_cursor_that_comes_back_is_a_protocol_failure() {
    let o = request(&["resources/list"], &pager(true));
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(o.stdout.is_empty());
    assert!(o.stderr.contains("\"p2\" twice"), "{}", o.stderr);
}

#[test]
fn errors_and_usage() {
    let o = request(&["prompts/list"], &pager(false));
    assert_eq!(o.code, 1, "a JSON-RPC error is exit 1: {}", o.stderr);
    assert!(o.stderr.contains("-32601"), "{}", o.stderr);
    assert!(o.stdout.is_empty());
    for (args, why) in [
        (&["ping", "--params", "[]"][..], "JSON object"),
        (&["initialize"][..], "handshake"),
        (&["notifications/initialized"][..], "notification"),
    ] {
        let o = request(args, &pager(false));
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains(why), "{args:?}: {}", o.stderr);
    }
}

/// The demo server with its conformance fixtures, over stdio.
fn demo_conformance() -> Vec<String> {
    vec![BIN.into(), "demo-server".into(), "--conformance".into()]
}

#[test]
fn demo_resources_prompts_and_completions() {
    let server = demo_conformance();
    let o = request(&["resources/list", "--json"], &server);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let uris: Vec<&str> = v["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    assert!(uris.contains(&"test://static-text"), "{uris:?}");

    let o = request(
        &[
            "resources/read",
            "--params",
            r#"{"uri":"test://static-text"}"#,
        ],
        &server,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["contents"][0]["uri"], "test://static-text");
    assert!(v["contents"][0]["text"].is_string());

    let o = request(&["resources/templates/list"], &server);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(!v["resourceTemplates"].as_array().unwrap().is_empty());

    let o = request(
        &[
            "prompts/get",
            "--params",
            r#"{"name":"test_prompt_with_arguments","arguments":{"arg1":"x1","arg2":"y2"}}"#,
        ],
        &server,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let text = serde_json::from_str::<Value>(&o.stdout).unwrap()["messages"][0]["content"]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("x1") && text.contains("y2"), "{text}");

    let o = request(
        &["resources/read", "--params", r#"{"uri":"test://nope"}"#],
        &server,
    );
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(o.stderr.contains("resources/read failed"), "{}", o.stderr);
}

#[test]
fn a_tool_call_through_request_streams_progress_and_fails_on_is_error() {
    let server = vec![BIN.into(), "demo-server".into()];
    let o = request(
        &[
            "tools/call",
            "--params",
            r#"{"name":"build_report","arguments":{"tasks":3,"delay_ms":1}}"#,
        ],
        &server,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    // The demo rate-limits its progress (latest wins): the last one is there.
    let progress = o.lines("[progress]");
    assert!(
        progress
            .last()
            .is_some_and(|l| l.starts_with("[progress] build_report 3/3 (100%)")),
        "progress is named by the call's tool: {}",
        o.stderr
    );
    let o = request(&["tools/call", "--params", r#"{"name":"nope"}"#], &server);
    assert_eq!(o.code, 1, "{}", o.stderr);
}

fn everything_argv() -> Vec<String> {
    vec![everything().display().to_string(), "stdio".into()]
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn everything_resources_templates_prompts_and_completions() {
    let server = everything_argv();
    let o = request(&["resources/list", "--json"], &server);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let resources = v["resources"].as_array().unwrap();
    assert!(!resources.is_empty(), "{v}");
    assert!(v.get("nextCursor").is_none());
    let uri = resources[0]["uri"].as_str().unwrap().to_string();

    let o = request(
        &[
            "resources/read",
            "--params",
            &format!(r#"{{"uri":{uri:?}}}"#),
        ],
        &server,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["contents"][0]["uri"], uri.as_str());

    let o = request(&["resources/templates/list"], &server);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let templates: Vec<&str> = v["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["uriTemplate"].as_str())
        .collect();
    assert!(
        templates
            .iter()
            .any(|t| t.starts_with("demo://resource/dynamic")),
        "{templates:?}"
    );

    let o = request(&["prompts/list"], &server);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(
        v["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "completable-prompt"),
        "{v}"
    );

    let o = request(
        &[
            "prompts/get",
            "--params",
            r#"{"name":"completable-prompt","arguments":{"department":"Sales","name":"Eve"}}"#,
        ],
        &server,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        v["messages"][0]["content"]["text"],
        "Please promote Eve to the head of the Sales team."
    );

    let o = request(
        &[
            "completion/complete",
            "--params",
            r#"{"ref":{"type":"ref/prompt","name":"completable-prompt"},"argument":{"name":"name","value":""},"context":{"arguments":{"department":"Engineering"}}}"#,
        ],
        &server,
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        v["completion"]["values"],
        serde_json::json!(["Alice", "Bob", "Charlie"])
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn everything_tool_call_through_request_shows_progress() {
    let o = request(
        &[
            "tools/call",
            "--params",
            r#"{"name":"trigger-long-running-operation","arguments":{"duration":0.4,"steps":2}}"#,
        ],
        &everything_argv(),
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        o.lines("[progress]"),
        vec![
            "[progress] trigger-long-running-operation 1/2 (50%)",
            "[progress] trigger-long-running-operation 2/2 (100%)",
        ]
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn python_sdk_resources_templates_prompts_and_completions() {
    let server = python_server();
    let json = |o: &Output| -> Value {
        assert_eq!(o.code, 0, "{}", o.stderr);
        serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.stdout))
    };
    let v = json(&request(&["resources/list"], &server));
    assert_eq!(v["resources"][0]["uri"], "notes://readme", "{v}");
    let v = json(&request(
        &["resources/read", "--params", r#"{"uri":"notes://readme"}"#],
        &server,
    ));
    assert_eq!(v["contents"][0]["text"], "mcpscope python peer: notes");
    let v = json(&request(&["resources/templates/list"], &server));
    assert_eq!(v["resourceTemplates"][0]["uriTemplate"], "notes://{topic}");
    // The template expanded by hand, as the TUI's form does.
    let v = json(&request(
        &["resources/read", "--params", r#"{"uri":"notes://proxy"}"#],
        &server,
    ));
    assert_eq!(v["contents"][0]["text"], "note on proxy");
    let v = json(&request(&["prompts/list"], &server));
    let args = &v["prompts"][0]["arguments"];
    assert_eq!(v["prompts"][0]["name"], "summarize");
    assert_eq!(args[0]["name"], "topic");
    assert_eq!(args[0]["required"], true);
    let v = json(&request(
        &[
            "prompts/get",
            "--params",
            r#"{"name":"summarize","arguments":{"topic":"logging","style":"long"}}"#,
        ],
        &server,
    ));
    assert_eq!(
        v["messages"][0]["content"]["text"],
        "Summarize logging in a long style."
    );
    for (r#ref, value, want) in [
        (
            r#"{"type":"ref/prompt","name":"summarize"}"#,
            "pro",
            vec!["progress", "protocol", "proxy"],
        ),
        (
            r#"{"type":"ref/resource","uri":"notes://{topic}"}"#,
            "l",
            vec!["logging"],
        ),
    ] {
        let params = format!(r#"{{"ref":{ref},"argument":{{"name":"topic","value":"{value}"}}}}"#);
        let v = json(&request(
            &["completion/complete", "--params", &params],
            &server,
        ));
        assert_eq!(v["completion"]["values"], serde_json::json!(want), "{v}");
    }
    // A prompt that does not exist is the server's error, said as such.
    let o = request(&["prompts/get", "--params", r#"{"name":"nope"}"#], &server);
    assert_eq!(o.code, 1, "{}", o.stderr);
}
