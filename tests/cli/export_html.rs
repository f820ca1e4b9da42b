//! `mcpscope export --format html`: one self-contained page of a real
//! recording. A plain `cargo test` checks the file itself (a policy that
//! allows no remote source and hashes the page's own script and style, no
//! secret in its data, the same bytes on stdout and in `-o`, no writing
//! over its trace); the browser tests (ignored without Chromium, which
//! `.ci/run` installs) open exported files in headless Chromium with the
//! network disabled and read the DOM after the page's scripts ran: a lane
//! and a row per call, the counts, a finding linked to the frame that broke
//! the rule, and a hostile trace whose markup and scripts stay text.

use crate::support::headless;
use base64::Engine;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

const SECRET: &str = "sekrit-5c1e0d";

/// A real session with three calls whose server breaks a rule in each
/// (progress after the response), recorded by `check`.
fn faulty_recording(dir: &Path) -> PathBuf {
    let trace = dir.join("fault.jsonl");
    headless([
        "check",
        "--demo",
        "--tool",
        "fault_after_response",
        "--repeat",
        "3",
        "--record",
        trace.to_str().unwrap(),
    ])
    .expect(1);
    trace
}

fn export_html(trace: &Path, out: &Path) {
    headless([
        "export",
        trace.to_str().unwrap(),
        "--format",
        "html",
        "-o",
        out.to_str().unwrap(),
    ])
    .expect(0);
}

/// The text between `<tag …id="ID"…>` and the next `</script>`.
fn block<'a>(page: &'a str, id: &str) -> &'a str {
    let open = page.find(&format!("id=\"{id}\"")).unwrap();
    let start = open + page[open..].find('>').unwrap() + 1;
    let end = start + page[start..].find("</script>").unwrap();
    &page[start..end]
}

/// A data block of the page, inflated.
fn inflate(page: &str, id: &str) -> Vec<u8> {
    let packed = base64::engine::general_purpose::STANDARD
        .decode(block(page, id).trim())
        .unwrap();
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&packed[..])
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn sha256(text: &str) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(d)
    )
}

/// The page's inline script and style (the last `<script>`, the `<style>`).
fn inline_script(page: &str) -> &str {
    let at = page.rfind("<script>").unwrap() + "<script>".len();
    &page[at..at + page[at..].find("</script>").unwrap()]
}

fn inline_style(page: &str) -> &str {
    let at = page.find("<style>").unwrap() + "<style>".len();
    &page[at..at + page[at..].find("</style>").unwrap()]
}

#[test]
fn the_page_is_one_file_that_loads_nothing_and_names_its_maker() {
    let dir = tempfile::tempdir().unwrap();
    let trace = faulty_recording(dir.path());
    let out = dir.path().join("session.html");
    export_html(&trace, &out);
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.starts_with("<!doctype html>"), "{}", &page[..100]);
    let csp_at = page.find("Content-Security-Policy").unwrap();
    let csp = &page[csp_at..csp_at + page[csp_at..].find('>').unwrap()];
    assert!(csp.contains("default-src 'none'"), "{csp}");
    assert!(
        !csp.contains("unsafe-inline") && !csp.contains("http"),
        "{csp}"
    );
    // The policy allows exactly the page's own script and style.
    assert!(csp.contains(&sha256(inline_script(&page))), "{csp}");
    assert!(csp.contains(&sha256(inline_style(&page))), "{csp}");
    // Nothing to fetch: no element with a source, no stylesheet link.
    for tag in ["<link", "<img", "<iframe", " src=", "@import", "url("] {
        assert!(!page.contains(tag), "{tag} in the page");
    }
    let maker = format!("mcpscope {}", env!("CARGO_PKG_VERSION"));
    assert!(
        page.contains(&format!("<meta name=\"generator\" content=\"{maker}\">")),
        "the page names its maker"
    );
    let index: serde_json::Value = serde_json::from_slice(&inflate(&page, "index")).unwrap();
    assert_eq!(index["generator"], maker.as_str());
    assert_eq!(index["calls"].as_array().unwrap().len(), 3, "{index}");
    assert_eq!(index["session"]["server"], "mcpscope-demo");
    let groups = index["groups"].as_array().unwrap();
    let g = groups
        .iter()
        .find(|g| g["rule"] == "progress-after-response")
        .unwrap();
    assert!(
        g["fix"].as_str().unwrap().contains("handler returned"),
        "{g}"
    );
    // Stdout carries the same bytes as -o (the compression is deterministic).
    let stdout = headless(["export", trace.to_str().unwrap(), "--format", "html"])
        .expect(0)
        .stdout
        .clone();
    assert_eq!(stdout, page);
}

#[test]
fn the_page_never_writes_over_its_trace() {
    let dir = tempfile::tempdir().unwrap();
    let trace = faulty_recording(dir.path());
    let before = std::fs::read(&trace).unwrap();
    let o = headless([
        "export",
        trace.to_str().unwrap(),
        "--format",
        "html",
        "-o",
        trace.to_str().unwrap(),
    ])
    .expect(2);
    assert!(o.stderr.contains("[error]"), "{}", o.stderr);
    assert_eq!(std::fs::read(&trace).unwrap(), before);
}

/// A trace recorded with --no-redact: the secret in the spawn event's
/// environment and in a tool's `api_key` argument.
fn secret_trace() -> String {
    format!(
        r#"{{"mcpscope_trace":1,"recorded_as":"client","server":{{"argv":["srv","--token={SECRET}"],"env":{{"API_TOKEN":"{SECRET}"}},"name":"srv","transport":"stdio"}},"started":"2026-01-01T00:00:00Z","version":"0.1.0"}}
{{"seq":0,"t":0.001,"dir":"meta","ch":"stdio","json":{{"event":"spawn","pid":7,"argv":["srv","--token={SECRET}"],"env":{{"API_TOKEN":"{SECRET}"}}}}}}
{{"seq":1,"t":0.002,"dir":"out","ch":"stdio","json":{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"deploy","arguments":{{"api_key":"{SECRET}","env":"prod"}},"_meta":{{"progressToken":"t1"}}}}}}}}
{{"seq":2,"t":0.003,"dir":"in","ch":"stdio","json":{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"deployed"}}]}}}}}}
"#
    )
}

#[test]
fn secrets_are_redacted_as_every_export_redacts_them() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("secret.jsonl");
    std::fs::write(&trace, secret_trace()).unwrap();
    let out = dir.path().join("s.html");
    export_html(&trace, &out);
    let page = std::fs::read_to_string(&out).unwrap();
    let index = String::from_utf8(inflate(&page, "index")).unwrap();
    let raw = String::from_utf8(inflate(&page, "raw")).unwrap();
    for (what, text) in [("page", &page), ("index", &index), ("raw", &raw)] {
        assert!(
            !text.contains(SECRET),
            "the secret is in the {what}:\n{text}"
        );
    }
    assert!(raw.contains(r#""api_key":"[redacted]""#), "{raw}");
    assert!(raw.contains(r#""env":"prod""#), "the rest kept: {raw}");
}

// --- In a real browser -------------------------------------------------

/// Headless Chromium with the network disabled: every host resolves to
/// nothing and every request goes to a proxy that is not there.
fn chromium(dir: &Path, args: &[String]) -> std::process::Output {
    let bin = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .expect("chromium is not installed: these tests need it (apt-get install chromium)");
    let profile = tempfile::tempdir_in(dir).unwrap();
    let out = Command::new(bin)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--disable-background-networking",
            "--hide-scrollbars",
            "--proxy-server=127.0.0.1:9",
            "--proxy-bypass-list=<-loopback>",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            // Time runs on until the page is idle (the data is inflated
            // asynchronously), without waiting in real time.
            "--virtual-time-budget=60000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The DOM after the page's scripts ran.
fn dom(file: &Path, fragment: &str) -> String {
    let dir = file.parent().unwrap();
    let out = chromium(
        dir,
        &[
            "--dump-dom".into(),
            format!("file://{}{fragment}", file.display()),
        ],
    );
    let dom = String::from_utf8(out.stdout).unwrap();
    assert!(
        dom.contains(r#"data-state="ready""#),
        "the page did not open:\n{}",
        head(&dom)
    );
    dom
}

/// The DOM without the data blocks (for messages).
fn head(dom: &str) -> String {
    dom.lines()
        .filter(|l| l.len() < 2000)
        .collect::<Vec<_>>()
        .join("\n")
}

fn attr<'a>(dom: &'a str, tag_start: &str, name: &str) -> Option<&'a str> {
    let at = dom.find(tag_start)?;
    let tag = &dom[at..at + dom[at..].find('>')?];
    let key = format!("{name}=\"");
    let v = tag.find(&key)? + key.len();
    Some(&tag[v..v + tag[v..].find('"')?])
}

#[test]
#[ignore = "needs chromium: .ci/run installs it"]
fn the_page_draws_a_lane_per_call_and_links_a_finding_to_its_frame() {
    let dir = tempfile::tempdir().unwrap();
    let trace = faulty_recording(dir.path());
    let out = dir.path().join("session.html");
    export_html(&trace, &out);
    let page = std::fs::read_to_string(&out).unwrap();
    let index: serde_json::Value = serde_json::from_slice(&inflate(&page, "index")).unwrap();
    let g = index["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["rule"] == "progress-after-response")
        .unwrap();
    let seq = g["first_seq"].as_u64().unwrap();

    // Opened at the finding's frame link, as clicking it does.
    let d = dom(&out, &format!("#seq={seq}"));
    let body = |name| attr(&d, "<body", name).unwrap().to_string();
    assert_eq!(body("data-call-lanes"), "3", "{}", head(&d));
    assert_eq!(body("data-lanes"), "5");
    assert_eq!(body("data-events"), index["session"]["events"].to_string());
    assert_eq!(
        body("data-findings"),
        index["findings"].as_array().unwrap().len().to_string()
    );
    assert_eq!(attr(&d, "<canvas", "data-call-lanes"), Some("3"));
    // A row per call in the statistics.
    assert_eq!(d.matches("<tr data-call=").count(), 3, "{}", head(&d));
    // The group, its fix, and a link to the frame that broke the rule…
    assert!(
        d.contains("progress-after-response (error)"),
        "{}",
        head(&d)
    );
    assert!(d.contains("Fix: "));
    assert!(
        d.contains(&format!(r##"href="#seq={seq}" data-seq="{seq}""##)),
        "{}",
        head(&d)
    );
    // …which the Timeline follows: the row selected, its frame pretty-printed,
    // and the frame's findings linked back to their group.
    assert_eq!(body("data-selected-seq"), seq.to_string());
    assert!(d.contains(&format!(r#"id="ev-{seq}""#)), "{}", head(&d));
    assert!(
        d.contains(&format!(r#"<pre id="frame-text" data-seq="{seq}">{{"#)),
        "{}",
        head(&d)
    );
    assert!(
        d.contains(r#"  "method": "notifications/progress","#),
        "{}",
        head(&d)
    );
    assert!(
        d.contains(r#"class="sev-error finding-link""#),
        "{}",
        head(&d)
    );
    // The header.
    assert!(d.contains("mcpscope-demo 0.1.0"));
    assert!(
        d.contains("2026-07-28") || d.contains("2025-"),
        "{}",
        head(&d)
    );
}

/// Markup and scripts wherever a server, a host or a recording puts text:
/// the server's name, a tool's name, a log message, a progress message, a
/// stderr line, a result. Each would mark the page if it ran.
const HOSTILE: &str = r##"{"mcpscope_trace":1,"recorded_as":"client","server":{"name":"<script>document.body.setAttribute('data-pwned','name')</script>","transport":"stdio"},"started":"2026-01-01T00:00:00Z","version":"0.1.0"}
{"seq":0,"t":0.001,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"<img src=x onerror=\"document.body.setAttribute('data-pwned','tool')\">","arguments":{},"_meta":{"progressToken":"t1"}}}}
{"seq":1,"t":0.002,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1,"total":2,"message":"</script><script>document.body.setAttribute('data-pwned','progress')</script>"}}}
{"seq":2,"t":0.003,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"<b>bold</b>","data":"<img src=x onerror=\"document.body.setAttribute('data-pwned','log')\">"}}}
{"seq":3,"t":0.004,"dir":"stderr","ch":"stdio","text":"<svg onload=\"document.body.setAttribute('data-pwned','stderr')\">"}
{"seq":4,"t":0.005,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"<iframe src=\"javascript:document.body.setAttribute('data-pwned','result')\"></iframe>"}]}}}
{"seq":5,"t":0.006,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":2,"total":2}}}
"##;

#[test]
#[ignore = "needs chromium: .ci/run installs it"]
fn a_hostile_trace_runs_no_script_and_shows_its_text_literally() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("hostile.jsonl");
    std::fs::write(&trace, HOSTILE).unwrap();
    let out = dir.path().join("hostile.html");
    export_html(&trace, &out);
    let page = std::fs::read_to_string(&out).unwrap();
    // In the file, the server's name is text in the title and nowhere markup.
    assert!(
        page.contains("<title>&lt;script&gt;document.body"),
        "{}",
        head(&page)
    );
    assert_eq!(
        page.matches("<script").count(),
        3,
        "only the page's own scripts"
    );
    // Each frame opened in turn: none of them runs anything.
    for seq in 0..=5 {
        let d = dom(&out, &format!("#seq={seq}"));
        assert!(
            !d.contains("data-pwned=\""),
            "a payload ran (#{seq}):\n{}",
            head(&d)
        );
        for tag in ["<img", "<svg", "<iframe", "<b>"] {
            assert!(
                !d.contains(tag),
                "{tag} became markup (#{seq}):\n{}",
                head(&d)
            );
        }
        if seq == 0 {
            // The tool's name as a call's label, literally.
            assert!(
                d.contains(r#"&lt;img src=x onerror="document.body.setAttribute('data-pwned','tool')"&gt; #1"#),
                "{}",
                head(&d)
            );
            assert!(
                d.contains("<h1 id=\"title\">&lt;script&gt;"),
                "{}",
                head(&d)
            );
        }
        if seq == 3 {
            assert!(d.contains("&lt;svg onload="), "{}", head(&d));
        }
    }
}

/// Screenshots of one demo session at two sizes, from a real render: into
/// a temporary folder, or into screenshots/ with MCPSCOPE_BLESS_SCREENSHOTS=1
/// (docs/export.md shows them).
#[test]
#[ignore = "needs chromium: .ci/run installs it"]
fn screenshots_of_a_demo_session_at_two_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("demo.jsonl");
    headless([
        "check",
        "--demo",
        "--tool",
        "build_report",
        "--args",
        r#"{"tasks":6,"delay_ms":40}"#,
        "--repeat",
        "2",
        "--record",
        trace.to_str().unwrap(),
    ])
    .run();
    let out = dir.path().join("demo.html");
    export_html(&trace, &out);
    let bless = std::env::var_os("MCPSCOPE_BLESS_SCREENSHOTS").is_some();
    let shots = if bless {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("screenshots")
    } else {
        dir.path().to_path_buf()
    };
    for (name, w, h) in [("wide", 1400, 1000), ("narrow", 720, 1100)] {
        let png = shots.join(format!("export-html-{name}.png"));
        let _ = std::fs::remove_file(&png);
        chromium(
            dir.path(),
            &[
                format!("--screenshot={}", png.display()),
                format!("--window-size={w},{h}"),
                format!("file://{}", out.display()),
            ],
        );
        let bytes = std::fs::read(&png).unwrap();
        assert!(
            bytes.starts_with(b"\x89PNG") && bytes.len() > 20_000,
            "{name}: {} bytes",
            bytes.len()
        );
    }
}
