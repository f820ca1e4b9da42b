//! Bounds against real processes over real pipes: a frame over the size cap
//! is cut, kept and reported; a store under `--max-store` evicts, says so,
//! and the recording still has every frame. The cap is lowered through
//! `MCPSCOPE_MAX_FRAME` so no test has to push 256 MiB.

use crate::support::http::{Reply, Req, raw_server};
use crate::support::{Run, headless};

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

#[test]
fn a_stdio_line_over_the_cap_is_cut_kept_and_reported() {
    // A 10,000-byte log line (JSON, but over a 4,096-byte cap), then the result.
    let payload = r#"printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"'; head -c 10000 /dev/zero | tr '\0' x; printf '"}}\n';"#;
    let out = headless(["call", "--tool", "big"])
        .server(sh_server(payload))
        .env("MCPSCOPE_MAX_FRAME", "4096")
        .record()
        .expect(0);
    assert!(out.stdout.contains("done"), "the frame after it is intact");
    let finding = out.lines("[finding]");
    let oversized: Vec<_> = finding
        .iter()
        .filter(|l| l.starts_with("[finding] frame-oversized (warning)"))
        .collect();
    assert_eq!(oversized.len(), 1, "{}", out.stderr);
    // Summed up once at the end.
    assert_eq!(
        out.lines("[finding] frame-oversized ×1 first #").len(),
        1,
        "{}",
        out.stderr
    );
    assert!(oversized[0].contains("10086 bytes"), "{}", oversized[0]);
    assert!(oversized[0].contains("4096"), "{}", oversized[0]);

    let lines = out.trace();
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
    let n = 300_000;
    // ~33 MB of progress, a token of its own per frame, under a 16 MiB bound.
    let payload = format!(
        r#"awk 'BEGIN {{ for (i = 0; i < {n}; i++) printf "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"own-%d\",\"progress\":1}}}}\n", i }}';"#
    );
    let out = headless(["call", "--quiet", "--tool", "flood", "--max-store", "16MiB"])
        .server(sh_server(&payload))
        .record()
        .expect(0);
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
    let recorded = out
        .trace()
        .iter()
        .filter(|l| l["json"]["method"] == "notifications/progress")
        .count();
    assert_eq!(recorded, n, "every frame reached the recording");

    // `check` with the same bound: the verdict cannot vouch for evicted events.
    let out = headless(["check", "--tool", "flood", "--max-store", "16MiB"])
        .server(sh_server(&payload))
        .expect(1);
    assert!(out.stdout.contains("[incomplete]"), "{}", out.stdout);
    assert!(out.stdout.contains(" evicted"), "{}", out.stdout);
}

const INIT_RESULT: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}}"#;

/// A Streamable HTTP server: the handshake, then `call` answers tools/call.
fn http_server(call: impl Fn(&Req) -> Reply + Send + Sync + 'static) -> u16 {
    raw_server(move |req| match req.json()["method"].as_str() {
        Some("initialize") => {
            let mut v: serde_json::Value = serde_json::from_str(INIT_RESULT).unwrap();
            v["id"] = req.json()["id"].clone();
            Reply::Body(200, "application/json", v.to_string())
        }
        Some("tools/call") => call(req),
        _ if req.method == "GET" => Reply::Body(405, "text/plain", String::new()),
        _ => Reply::Body(202, "text/plain", String::new()),
    })
}

fn big_result(id: &serde_json::Value) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "x".repeat(10_000)}]}})
        .to_string()
}

/// The oversized event of a recording, and the cut frame it names.
fn oversized(run: &Run) -> (serde_json::Value, serde_json::Value) {
    let lines = run.trace();
    let meta = lines
        .iter()
        .find(|l| l["dir"] == "meta" && l["json"]["event"] == "oversized")
        .expect("an oversized event")["json"]
        .clone();
    let seq = meta["frame"].as_u64().expect("names its frame");
    let frame = lines
        .iter()
        .find(|l| l["seq"] == seq)
        .expect("the cut frame is recorded")
        .clone();
    (meta, frame)
}

#[test]
fn an_http_body_over_the_cap_is_cut_kept_and_fails_the_call_clearly() {
    let port =
        http_server(|req| Reply::Body(200, "application/json", big_result(&req.json()["id"])));
    let url = format!("http://127.0.0.1:{port}/mcp");
    let out = headless(["call", "--url", &url, "--transport", "http", "--tool", "t"])
        .env("MCPSCOPE_MAX_FRAME", "4096")
        .record()
        .expect(3);
    assert!(out.stderr.contains("over the size cap"), "{}", out.stderr);
    assert!(!out.stderr.contains("EOF while parsing"), "{}", out.stderr);
    assert!(
        out.lines("[protocol]")
            .iter()
            .any(|l| l.contains("oversized: over the size cap, only its first 4096 bytes are kept")),
        "{}",
        out.stderr
    );
    let findings = out.lines("[finding]");
    assert!(
        findings.iter().any(|l| l.contains("frame-oversized")),
        "{}",
        out.stderr
    );
    let (meta, frame) = oversized(&out);
    let full = big_result(&serde_json::json!(1)).len() as u64;
    assert_eq!(meta["bytes"], full);
    assert_eq!(meta["kept"], 4096);
    assert_eq!(frame["text"].as_str().map(str::len), Some(4096));
}

#[test]
fn sse_data_over_the_cap_is_cut_kept_and_the_stream_goes_on() {
    let port = http_server(|req| {
        let id = &req.json()["id"];
        let done = serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}});
        // One endless-looking data line between two ordinary events.
        Reply::Sse(format!(
            "data: {}\n\ndata: {}\n\n",
            big_result(&serde_json::json!("not-this-one")),
            done
        ))
    });
    let url = format!("http://127.0.0.1:{port}/mcp");
    // The response after it is intact.
    let out = headless(["call", "--url", &url, "--transport", "http", "--tool", "t"])
        .env("MCPSCOPE_MAX_FRAME", "4096")
        .record()
        .expect(0);
    assert!(
        out.lines("[finding]")
            .iter()
            .any(|l| l.contains("frame-oversized")),
        "{}",
        out.stderr
    );
    let (meta, frame) = oversized(&out);
    let full = big_result(&serde_json::json!("not-this-one")).len() as u64;
    assert_eq!(meta["bytes"], full);
    assert_eq!(meta["kept"], 4096);
    assert!(
        frame["text"]
            .as_str()
            .is_some_and(|t| t.len() == 4096 && t.starts_with("{\"id\":\"not-this-one\""))
    );
}

#[test]
fn a_server_that_stops_reading_gets_its_answers_refused_not_queued_without_bound() {
    let n = 50_000;
    // During the call the server asks n pings and reads none of the answers.
    let payload = format!(
        r#"awk 'BEGIN {{ for (i = 0; i < {n}; i++) printf "{{\"jsonrpc\":\"2.0\",\"id\":\"p%d\",\"method\":\"ping\"}}\n", i }}';"#
    );
    let out = headless(["call", "--quiet", "--tool", "asks"])
        .server(sh_server(&payload))
        .env("MCPSCOPE_MAX_QUEUE", "100000")
        .record()
        .expect(0);
    let lines = out.trace();
    let asked = lines
        .iter()
        .filter(|l| l["dir"] == "in" && l["json"]["method"] == "ping")
        .count();
    assert_eq!(asked, n);
    let answers: std::collections::HashSet<u64> = lines
        .iter()
        .filter(|l| {
            l["dir"] == "out"
                && l["json"]["id"]
                    .as_str()
                    .is_some_and(|id| id.starts_with('p'))
        })
        .filter_map(|l| l["seq"].as_u64())
        .collect();
    let meta = |e: &str| {
        lines
            .iter()
            .filter(|l| l["dir"] == "meta" && l["json"]["event"] == e)
            .map(|l| l["json"].clone())
            .collect::<Vec<_>>()
    };
    let failed = meta("send-failed");
    // One event per read batch, counting the requests it dropped.
    let dropped: usize = meta("server-request-dropped")
        .iter()
        .map(|e| e["count"].as_u64().unwrap() as usize)
        .sum();
    // Every ping is answered or refused in the trace, except those still
    // waiting in the (bounded) backlog when the call ended.
    let waiting = n - answers.len() - dropped;
    assert!(waiting <= 1024, "{waiting} were still waiting");
    // The answers the server never read are in its stdin pipe (64 KiB) or
    // in mcpscope's queue (100,000 bytes here): no more than that was
    // accepted, and past it sends were refused. How many pings were
    // answered rather than dropped depends on how fast the answers kept up,
    // so the refusals are asserted only when there was more than fits.
    let refused: std::collections::HashSet<u64> =
        failed.iter().filter_map(|f| f["seq"].as_u64()).collect();
    let sizes: std::collections::HashMap<u64, usize> = lines
        .iter()
        .filter_map(|l| Some((l["seq"].as_u64()?, l["json"].to_string().len() + 1)))
        .collect();
    let size = |seq: &u64| sizes.get(seq).copied().unwrap_or(0);
    let offered: usize = answers.iter().map(size).sum();
    let accepted: usize = answers.difference(&refused).map(size).sum();
    let fits = (64 << 10) + 100_000 + (64 << 10);
    assert!(
        accepted <= fits,
        "{accepted} bytes accepted for a server not reading"
    );
    if offered > fits {
        assert!(!failed.is_empty(), "the stdin queue is bounded");
    }
    assert!(failed.len() < n, "{}", failed.len());
    for f in &failed {
        let seq = f["seq"].as_u64().expect("names the answer");
        assert!(answers.contains(&seq));
        assert!(
            f["error"]
                .as_str()
                .unwrap_or_default()
                .contains("not reading its stdin")
        );
    }
}
