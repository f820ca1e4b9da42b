//! Files that are cut short, endless, or not files at all: a trace cut
//! mid-line (full disk, power loss, `head -c`) is read up to the cut and the
//! cut reported; /dev/zero as a trace or a config is refused at once; a
//! recording that stops mid-session is not a silent success.
//!
//! Children run with a data-size limit, so if a refusal regresses into
//! reading /dev/zero the process fails on allocation instead of eating the
//! machine's memory.

use crate::support::*;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// Run mcpscope with at most 1 GiB of data segment and `stdin` as its input.
fn run_limited(args: &[&str], stdin: Option<Vec<u8>>, fsize: Option<u64>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let data = libc::rlimit {
                rlim_cur: 1 << 30,
                rlim_max: 1 << 30,
            };
            libc::setrlimit(libc::RLIMIT_DATA, &data);
            if let Some(f) = fsize {
                // A file that may not grow past `f` bytes: writes beyond fail
                // with EFBIG, as a full disk fails them with ENOSPC.
                let lim = libc::rlimit {
                    rlim_cur: f,
                    rlim_max: f,
                };
                libc::setrlimit(libc::RLIMIT_FSIZE, &lim);
                libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("spawn mcpscope");
    if let Some(input) = stdin {
        let mut w = child.stdin.take().unwrap();
        std::thread::spawn(move || {
            let _ = w.write_all(&input);
        });
    }
    finish(child)
}

/// A real recorded session: an upload with progress.
fn record(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("session.jsonl");
    let o = run(&[
        "call",
        "--demo",
        "--tool",
        "upload_file",
        "--args",
        r#"{"size_bytes": 8192, "chunk_bytes": 1024, "delay_ms": 1}"#,
        "-q",
        "--record",
        path.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    path
}

/// The recording cut in the middle of its last line, as `head -c` or a full
/// disk leaves it; returns the cut file and the seq of the last whole event.
fn cut(dir: &Path) -> (std::path::PathBuf, u64) {
    let full = std::fs::read(record(dir)).unwrap();
    let lines: Vec<&[u8]> = full.split_inclusive(|b| *b == b'\n').collect();
    let last = lines[lines.len() - 1];
    let keep = full.len() - last.len() / 2;
    let path = dir.join("cut.jsonl");
    std::fs::write(&path, &full[..keep]).unwrap();
    let before: serde_json::Value =
        serde_json::from_slice(lines[lines.len() - 2]).expect("a whole event");
    (path, before["seq"].as_u64().unwrap())
}

#[test]
fn replay_print_reads_a_cut_trace_up_to_the_cut_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let (path, last) = cut(dir.path());
    let whole = run(&[
        "replay",
        "--print",
        dir.path().join("session.jsonl").to_str().unwrap(),
    ]);
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    let o = run_limited(&["replay", "--print", path.to_str().unwrap()], None, None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // Every event before the cut, exactly as the whole trace prints them.
    let expect: Vec<&str> = whole.stdout.lines().take(last as usize + 1).collect();
    let got: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(got, expect);
    assert!(
        o.stderr.contains(&format!(
            "trace ends mid-line after event {last}: the last line is incomplete"
        )),
        "{}",
        o.stderr
    );
}

#[test]
fn check_trace_checks_a_cut_trace_and_does_not_pass_it() {
    let dir = tempfile::tempdir().unwrap();
    let (path, last) = cut(dir.path());
    let p = path.to_str().unwrap();
    let o = run_limited(&["check", "--trace", p], None, None);
    assert_eq!(o.code, 1, "{}\n{}", o.stdout, o.stderr);
    let msg = format!("trace ends mid-line after event {last}: the last line is incomplete");
    assert!(o.stderr.contains(&msg), "{}", o.stderr);
    assert!(o.stdout.contains("FAIL"), "{}", o.stdout);
    assert!(
        o.stdout.contains(&format!("{} events checked", last + 1)),
        "{}",
        o.stdout
    );
    let j = run_limited(&["check", "--trace", p, "--format", "json"], None, None);
    assert_eq!(j.code, 1, "{}", j.stderr);
    let v: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(v["summary"]["passed"], false);
    assert!(
        v["summary"]["damage"].as_str().unwrap_or("").contains(&msg),
        "{v}"
    );
    let x = run_limited(&["check", "--trace", p, "--format", "junit"], None, None);
    assert_eq!(x.code, 1, "{}", x.stderr);
    let doc = roxmltree::Document::parse(&x.stdout).unwrap();
    let failure = doc
        .descendants()
        .find(|n| n.has_tag_name("failure") && n.attribute("message").unwrap_or("").contains(&msg));
    assert!(failure.is_some(), "{}", x.stdout);
}

#[test]
fn dev_zero_is_refused_as_a_trace_and_as_a_config() {
    for args in [
        &["replay", "--print", "/dev/zero"][..],
        &["check", "--trace", "/dev/zero"][..],
        &["call", "--config", "/dev/zero", "--tool", "echo"][..],
        &["tools", "--config", "/dev/zero"][..],
    ] {
        let o = run_limited(args, None, None);
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(
            o.stderr.contains("/dev/zero") && o.stderr.contains("character device"),
            "{args:?}: {}",
            o.stderr
        );
    }
}

#[test]
fn a_config_file_over_one_mib_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.json");
    let mut text = String::from("{\"mcpServers\": {\"s\": {\"command\": \"true\"}}}");
    text.push_str(&" ".repeat(1 << 20));
    std::fs::write(&path, text).unwrap();
    let o = run_limited(
        &["tools", "--config", path.to_str().unwrap(), "--server", "s"],
        None,
        None,
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("larger than 1024 KiB"), "{}", o.stderr);
}

#[test]
fn a_trace_can_come_through_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let path = record(dir.path());
    let whole = run(&["replay", "--print", path.to_str().unwrap()]);
    let bytes = std::fs::read(&path).unwrap();
    let o = run_limited(&["replay", "--print", "/dev/stdin"], Some(bytes), None);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(o.stdout, whole.stdout);
}

#[test]
fn a_recording_that_stops_mid_call_fails_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.jsonl");
    // Room for the header and the handshake, not for a thousand progress lines.
    let o = run_limited(
        &[
            "call",
            "--demo",
            "--tool",
            "flood",
            "--args",
            r#"{"count": 2000}"#,
            "-q",
            "--record",
            path.to_str().unwrap(),
        ],
        None,
        Some(16 * 1024),
    );
    assert!(
        o.stderr.contains("[error] recording stopped"),
        "{}",
        o.stderr
    );
    assert_ne!(o.code, 0, "{}", o.stderr);
    // What was written is still a readable trace, cut where the disk filled.
    let r = run(&["replay", "--print", path.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("server/discover"), "{}", r.stdout);
}

#[test]
fn a_full_device_as_the_recording_is_an_error_up_front() {
    let o = run_limited(
        &[
            "call",
            "--demo",
            "--tool",
            "echo",
            "-a",
            "text=x",
            "--record",
            "/dev/full",
        ],
        None,
        None,
    );
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("cannot record to /dev/full") && o.stderr.contains("No space left"),
        "{}",
        o.stderr
    );
}
