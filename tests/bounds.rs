//! Bounds against real processes over real pipes: a frame over the size cap
//! is cut, kept and reported; a store under `--max-store` evicts, says so,
//! and the recording still has every frame. The cap is lowered through
//! `MCPSCOPE_MAX_FRAME` so no test has to push 256 MiB.

mod common;

use common::{BIN, finish, trace_lines};
use std::process::{Command, Stdio};

/// A stdio MCP server in `sh`: answers initialize and any request by id;
/// a `tools/call` first runs `payload` (which writes to stdout).
fn sh_server(payload: &str) -> Vec<String> {
    let script = format!(
        r#"while IFS= read -r l; do
  id=$(printf '%s' "$l" | sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p')
  case "$l" in
    *'"initialize"'*) printf '{{"jsonrpc":"2.0","id":%s,"result":{{"protocolVersion":"2025-11-25","capabilities":{{"tools":{{}},"logging":{{}}}},"serverInfo":{{"name":"sh","version":"1"}}}}}}\n' "$id" ;;
    *'"tools/call"'*) {payload}
      printf '{{"jsonrpc":"2.0","id":%s,"result":{{"content":[{{"type":"text","text":"done"}}]}}}}\n' "$id" ;;
    *) if [ -n "$id" ]; then printf '{{"jsonrpc":"2.0","id":%s,"result":{{}}}}\n' "$id"; fi ;;
  esac
done"#
    );
    vec!["sh".into(), "-c".into(), script]
}

fn mcpscope(args: &[&str], server: &[String], env: &[(&str, &str)]) -> common::Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .arg("--")
        .args(server)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    finish(cmd.spawn().expect("spawn mcpscope"))
}

#[test]
fn a_stdio_line_over_the_cap_is_cut_kept_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("t.jsonl");
    // A 10,000-byte log line (JSON, but over a 4,096-byte cap), then the result.
    let payload = r#"printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"'; head -c 10000 /dev/zero | tr '\0' x; printf '"}}\n';"#;
    let out = mcpscope(
        &["call", "--tool", "big", "--record", rec.to_str().unwrap()],
        &sh_server(payload),
        &[("MCPSCOPE_MAX_FRAME", "4096")],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("done"), "the frame after it is intact");
    let finding = out.lines("[finding]");
    let oversized: Vec<_> = finding
        .iter()
        .filter(|l| l.contains("frame-oversized"))
        .collect();
    assert_eq!(oversized.len(), 1, "{}", out.stderr);
    assert!(oversized[0].contains("10086 bytes"), "{}", oversized[0]);
    assert!(oversized[0].contains("4096"), "{}", oversized[0]);

    let lines = trace_lines(&rec);
    let meta = lines
        .iter()
        .find(|l| l["dir"] == "meta" && l["json"]["event"] == "oversized")
        .expect("an oversized event");
    assert_eq!(meta["json"]["bytes"], 10086);
    assert_eq!(meta["json"]["kept"], 4096);
    let seq = meta["json"]["frame"].as_u64().expect("names its frame");
    let cut = lines
        .iter()
        .find(|l| l["seq"] == seq)
        .expect("the cut frame is recorded");
    let text = cut["text"].as_str().expect("cut JSON is kept as text");
    assert_eq!(text.len(), 4096);
    assert!(text.starts_with(r#"{"jsonrpc":"2.0","method":"notifications/message""#));
}

#[test]
fn max_store_evicts_says_so_and_the_recording_keeps_every_frame() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("t.jsonl");
    let n = 300_000;
    // ~33 MB of progress, a token of its own per frame, under a 16 MiB bound.
    let payload = format!(
        r#"awk 'BEGIN {{ for (i = 0; i < {n}; i++) printf "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"own-%d\",\"progress\":1}}}}\n", i }}';"#
    );
    let out = mcpscope(
        &[
            "call",
            "--quiet",
            "--tool",
            "flood",
            "--max-store",
            "16MiB",
            "--record",
            rec.to_str().unwrap(),
        ],
        &sh_server(&payload),
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The printer may fall behind and say what it skipped; the end of the
    // call says the total once.
    let said: Vec<_> = out
        .lines("[store]")
        .into_iter()
        .filter(|l| !l.ends_with("before they were printed"))
        .collect();
    assert_eq!(said.len(), 1, "{}", out.stderr);
    assert!(
        said[0].contains("events were evicted from memory"),
        "{}",
        said[0]
    );
    assert!(
        said[0].contains("the recording keeps every event"),
        "{}",
        said[0]
    );
    let evicted: u64 = said[0]
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("a count");
    assert!(evicted > 100_000, "{evicted}");
    let recorded = trace_lines(&rec)
        .iter()
        .filter(|l| l["json"]["method"] == "notifications/progress")
        .count();
    assert_eq!(recorded, n, "every frame reached the recording");

    // `check` with the same bound: the verdict cannot vouch for evicted events.
    let out = mcpscope(
        &["check", "--tool", "flood", "--max-store", "16MiB"],
        &sh_server(&payload),
        &[],
    );
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("[incomplete]"), "{}", out.stdout);
    assert!(out.stdout.contains(" evicted"), "{}", out.stdout);
}
