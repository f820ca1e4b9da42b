//! What mcpscope does to this machine, against the real binary: the files
//! `sessions` removes while pruning and what it prints from entries it did
//! not write; how `wrap --write` replaces a host config (through a symlink,
//! with a complete backup, nothing left behind when a write fails); and which
//! requests the local HTTP listeners refuse, with messages naming only flags
//! the command has.

use crate::support;

use crate::support::BIN;
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Above the largest pid Linux ever hands out (`pid_max` is at most 2^22):
/// an entry with this pid is stale for certain.
const NEVER_A_PID: u32 = 4_194_305;

/// A runtime directory with its private `sessions` directory.
fn runtime_dir() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let sessions = d.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::set_permissions(&sessions, PermissionsExt::from_mode(0o700)).unwrap();
    (d, sessions)
}

fn sessions(rt: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("sessions")
        .args(args)
        .env("MCPSCOPE_RUNTIME_DIR", rt)
        .output()
        .unwrap()
}

fn entry(name: &str, pid: u32, trace: &Path, started: &str, server: &[&str]) -> Value {
    json!({"name": name, "pid": pid, "transport": "stdio", "server": server,
        "trace": trace, "owned_trace": true, "started": started,
        "started_ms": 0, "events": 1})
}

#[test]
fn pruning_a_stale_entry_never_deletes_a_file_it_names_elsewhere() {
    let (rt, dir) = runtime_dir();
    let victim = rt.path().join("precious.txt");
    std::fs::write(&victim, "not mcpscope's").unwrap();
    let stale = entry("stale", NEVER_A_PID, &victim, "", &["x"]);
    std::fs::write(dir.join(format!("{NEVER_A_PID}.json")), stale.to_string()).unwrap();
    // An entry filed under another pid's name is not that pid's either:
    // its claim on that pid's trace is not believed.
    let other = NEVER_A_PID + 1;
    let others_trace = dir.join(format!("{other}.jsonl"));
    std::fs::write(&others_trace, "{}\n").unwrap();
    let misfiled = entry("misfiled", other, &others_trace, "", &["x"]);
    std::fs::write(dir.join("7.json"), misfiled.to_string()).unwrap();

    let out = sessions(rt.path(), &[]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "not mcpscope's",
        "a path outside the sessions directory was deleted"
    );
    assert!(others_trace.exists(), "a trace no entry owns was deleted");
    assert!(!dir.join(format!("{NEVER_A_PID}.json")).exists());
    assert!(!dir.join("7.json").exists());
}

#[test]
fn pruning_removes_the_trace_a_stale_proxy_kept_in_the_sessions_directory() {
    let (rt, dir) = runtime_dir();
    let trace = dir.join(format!("{NEVER_A_PID}.jsonl"));
    std::fs::write(&trace, "{\"mcpscope_trace\":1}\n").unwrap();
    let stale = entry("stale", NEVER_A_PID, &trace, "", &["x"]);
    std::fs::write(dir.join(format!("{NEVER_A_PID}.json")), stale.to_string()).unwrap();
    let out = sessions(rt.path(), &["--json"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

/// A live entry (this test process's pid) whose every field carries an
/// escape, a C1 control or a bidi override.
fn hostile_live_entry(rt: &Path, dir: &Path) -> Value {
    let me = std::process::id();
    let e = entry(
        "na\u{1b}]0;owned\u{7}me",
        me,
        &rt.join("t\u{202E}race.jsonl"),
        "2026\u{1b}[2J-01-01\u{9b}31m",
        &["srv\u{2066}", "--flag\u{85}"],
    );
    std::fs::write(dir.join(format!("{me}.json")), e.to_string()).unwrap();
    e
}

fn has_raw_controls(s: &str) -> bool {
    s.chars().any(|c| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    })
}

#[test]
fn the_sessions_table_sanitises_every_field() {
    let (rt, dir) = runtime_dir();
    hostile_live_entry(rt.path(), &dir);
    let out = sessions(rt.path(), &[]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!has_raw_controls(&text), "raw control characters: {text:?}");
    assert!(text.contains("2026␛[2J-01-01<U+009B>31m"), "{text}");
    assert!(text.contains("na␛]0;owned␇me"), "{text}");
}

#[test]
fn sessions_json_escapes_bidi_and_c1_characters() {
    let (rt, dir) = runtime_dir();
    let written = hostile_live_entry(rt.path(), &dir);
    let out = sessions(rt.path(), &["--json"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!has_raw_controls(&text), "raw characters: {text:?}");
    for escaped in [r"\u202e", r"\u009b", r"\u2066", r"\u0085", r"\u001b"] {
        assert!(
            text.to_ascii_lowercase().contains(escaped),
            "{escaped} missing: {text}"
        );
    }
    // Escaped, not altered: the values read back as written.
    let list: Value = serde_json::from_str(&text).unwrap();
    for k in ["name", "trace", "started", "server"] {
        assert_eq!(list[0][k], written[k], "{k}");
    }
}

/// `mcpscope wrap --write` on `config` for server `demo`, with the
/// process's file-size limit at `fsize_limit` bytes when given (a write
/// past it fails with EFBIG, even for root; SIGXFSZ is ignored so the
/// failure is an error, not a kill).
fn wrap_write(config: &Path, fsize_limit: Option<u64>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(["wrap", "--server", "demo", "--write", "--config"])
        .arg(config);
    if let Some(limit) = fsize_limit {
        // SAFETY: only async-signal-safe calls (signal, setrlimit) between
        // fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                let lim = libc::rlimit {
                    rlim_cur: limit,
                    rlim_max: limit,
                };
                if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    cmd.output().unwrap()
}

/// A host config whose `demo` entry runs the demo server, padded with a
/// comment to `len` bytes.
fn config_text(len: usize) -> String {
    let head = format!(
        "{{\n  \"mcpServers\": {{\n    \"demo\": {{\"command\": \"{BIN}\", \"args\": [\"demo-server\"]}}\n  }}\n}}\n"
    );
    let pad = len.saturating_sub(head.len() + 4);
    format!("{head}// {}\n", "x".repeat(pad))
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn wrap_write_through_a_symlink_edits_its_target_and_keeps_the_link() {
    let d = tempfile::tempdir().unwrap();
    let dotfiles = d.path().join("dotfiles");
    let config_dir = d.path().join("config");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::create_dir_all(&config_dir).unwrap();
    let target = dotfiles.join("mcp.json");
    let original = config_text(0);
    std::fs::write(&target, &original).unwrap();
    std::fs::set_permissions(&target, PermissionsExt::from_mode(0o640)).unwrap();
    let link = config_dir.join("mcp.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();

    let out = wrap_write(&link, None);
    assert!(out.status.success(), "{out:?}");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link was replaced by a file"
    );
    assert_eq!(std::fs::read_link(&link).unwrap(), target);
    let rewritten = std::fs::read_to_string(&target).unwrap();
    assert!(rewritten.contains("\"proxy\""), "{rewritten}");
    let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640, "the target keeps its mode");
    // The backup is beside the file that was replaced, whole.
    let backup = dotfiles.join("mcp.json.bak");
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), original);
    assert_eq!(names_in(&config_dir), ["mcp.json"]);
    assert_eq!(names_in(&dotfiles), ["mcp.json", "mcp.json.bak"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&backup.display().to_string()), "{stderr}");
}

#[test]
fn a_backup_that_cannot_be_written_whole_is_named_and_removed() {
    let d = tempfile::tempdir().unwrap();
    let config = d.path().join("mcp.json");
    let original = config_text(4096);
    std::fs::write(&config, &original).unwrap();
    // The backup needs 4096 bytes; only 1024 may be written.
    let out = wrap_write(&config, Some(1024));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let backup = format!("{}.bak", config.display());
    assert!(
        stderr.contains(&backup),
        "the failing file is named: {stderr}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
    assert_eq!(names_in(d.path()), ["mcp.json"], "nothing partial is left");
}

#[test]
fn a_new_config_that_cannot_be_written_leaves_the_original_and_nothing_else() {
    let d = tempfile::tempdir().unwrap();
    let config = d.path().join("mcp.json");
    // The backup (1000 bytes) fits under the limit; the rewritten config,
    // longer by the proxy's arguments, does not.
    let original = config_text(1000);
    std::fs::write(&config, &original).unwrap();
    let out = wrap_write(&config, Some(1024));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&config.display().to_string()) && stderr.contains("File too large"),
        "the failing file and why: {stderr}"
    );
    assert_eq!(std::fs::read_to_string(&config).unwrap(), original);
    assert_eq!(names_in(d.path()), ["mcp.json"], "nothing partial is left");
}

/// `demo-server --http` on a loopback port it picks.
fn demo_server(extra: &[&str]) -> (support::http::Bg, u16) {
    let mut cmd = Command::new(BIN);
    cmd.args(["demo-server", "--http", "127.0.0.1:0"])
        .args(extra);
    support::http::start_reporting(cmd)
}

/// `proxy --listen` on a loopback port it picks, in front of a port nothing
/// listens on: every request here is refused before it would be forwarded.
fn http_proxy(rt: &Path) -> (support::http::Bg, u16) {
    let mut cmd = Command::new(BIN);
    cmd.args(["proxy", "--listen", "127.0.0.1:0", "--url"])
        .arg("http://127.0.0.1:9/mcp")
        .env("MCPSCOPE_RUNTIME_DIR", rt);
    support::http::start_reporting(cmd)
}

/// POST an `initialize` with exactly these header lines (each `Name: value`);
/// the status code and the JSON body.
fn post(port: u16, headers: &[String]) -> (u16, Value) {
    use std::io::{Read, Write};
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"guard-test","version":"0"}}}"#;
    let mut head = String::new();
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    write!(
        s,
        "POST /mcp HTTP/1.1\r\n{head}content-type: application/json\r\n\
         accept: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut resp = String::new();
    s.read_to_string(&mut resp).unwrap();
    let status = resp
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {resp}"));
    let body = resp.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    // The refusals are one JSON text; a 200 may be chunked or an event stream.
    let json = serde_json::from_str(body.trim()).unwrap_or(Value::String(body.into()));
    (status, json)
}

fn message(body: &Value) -> &str {
    body["error"]["message"].as_str().unwrap_or_default()
}

/// Pairs of one header twice, the loopback value first and last: whichever
/// a listener read, a second value must not slip past it.
fn doubled(port: u16) -> Vec<(Vec<String>, &'static str)> {
    let host = format!("host: 127.0.0.1:{port}");
    vec![
        (vec![host.clone(), "host: evil.example".into()], "Host"),
        (vec!["host: evil.example".into(), host.clone()], "Host"),
        (vec![host.clone(), host.clone()], "Host"),
        (
            vec![
                host.clone(),
                "origin: http://localhost".into(),
                "origin: http://evil.example".into(),
            ],
            "Origin",
        ),
        (
            vec![
                host.clone(),
                "origin: http://localhost".into(),
                "origin: http://localhost".into(),
            ],
            "Origin",
        ),
    ]
}

#[test]
fn the_demo_server_refuses_two_host_or_two_origin_headers_with_400() {
    let (_srv, port) = demo_server(&[]);
    for (headers, what) in doubled(port) {
        let (status, body) = post(port, &headers);
        assert_eq!(status, 400, "{headers:?}: {body}");
        assert!(message(&body).contains(what), "{headers:?}: {body}");
        assert!(body["id"].is_null(), "{body}");
    }
    // One of each still passes.
    let (status, body) = post(
        port,
        &[
            format!("host: 127.0.0.1:{port}"),
            "origin: http://localhost".into(),
        ],
    );
    assert_eq!(status, 200, "{body}");
}

/// The HTTP proxy hands the guard every `Host` and `Origin` value
/// (`ListenGuard::admit`), as the demo server does.
#[test]
fn the_http_proxy_refuses_two_host_or_two_origin_headers_with_400() {
    let rt = tempfile::tempdir().unwrap();
    let (_proxy, port) = http_proxy(rt.path());
    for (headers, what) in doubled(port) {
        let (status, body) = post(port, &headers);
        assert_eq!(status, 400, "{headers:?}: {body}");
        assert!(message(&body).contains(what), "{headers:?}: {body}");
    }
}

#[test]
fn the_http_proxys_refusals_suggest_no_flag_it_lacks() {
    let rt = tempfile::tempdir().unwrap();
    let (_proxy, port) = http_proxy(rt.path());
    let refusals = [
        vec!["host: evil.example".to_string()],
        vec![
            format!("host: 127.0.0.1:{port}"),
            "origin: http://evil.example".into(),
        ],
    ];
    for headers in refusals {
        let (status, body) = post(port, &headers);
        assert_eq!(status, 403, "{headers:?}: {body}");
        let m = message(&body);
        assert!(m.contains("refused"), "{m}");
        assert!(!m.contains("--allow"), "`proxy` has no such flag: {m}");
    }
    let out = Command::new(BIN)
        .args(["proxy", "--listen", "0.0.0.0:0", "--url"])
        .arg("http://127.0.0.1:9/mcp")
        .env("MCPSCOPE_RUNTIME_DIR", rt.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a loopback address"), "{stderr}");
    assert!(
        !stderr.contains("--allow"),
        "`proxy` has no such flag: {stderr}"
    );
}

#[test]
fn the_demo_servers_refusals_suggest_its_flags() {
    let (_srv, port) = demo_server(&[]);
    let (status, body) = post(port, &["host: evil.example".to_string()]);
    assert_eq!(status, 403, "{body}");
    assert!(message(&body).contains("--allow-origin"), "{body}");
    let out = Command::new(BIN)
        .args(["demo-server", "--http", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--allow-remote"), "{stderr}");
}

/// The table's findings column says what its three numbers count.
#[test]
fn the_sessions_table_names_its_findings_column() {
    let (rt, dir) = runtime_dir();
    let me = std::process::id();
    let trace = dir.join(format!("{me}.jsonl"));
    std::fs::write(&trace, "{}\n").unwrap();
    let mut e = entry("live-one", me, &trace, "2026-12-05T10:00:00Z", &["srv"]);
    e["findings"] = json!([1, 0, 2]);
    std::fs::write(dir.join(format!("{me}.json")), e.to_string()).unwrap();
    let out = sessions(rt.path(), &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    let mut lines = text.lines();
    let head = lines.next().unwrap_or_default();
    let row = lines.next().unwrap_or_default();
    let col = head.find("FINDINGS E/W/I").expect(&text);
    assert_eq!(row.get(col..col + 5), Some("1/0/2"), "{text}");
}
