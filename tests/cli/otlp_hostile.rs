//! `--otlp URL` against hostile backends: one that accepts and never
//! answers, one that answers 503 forever. Every export path (`export
//! TRACE`, `check --trace`, a live `check`) ends at its deadline even when
//! the session has more spans than the export queue holds, says how many
//! spans were not delivered, and ends at once on SIGINT or SIGTERM.
//! `MCPSCOPE_OTLP_DEADLINE_MS` (for tests) shortens the deadline.

use crate::support::otlp::{Silent, Sink, many_calls_trace, not_delivered};
use crate::support::{BIN, Output, watchdog};
use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const DEADLINE: &str = "MCPSCOPE_OTLP_DEADLINE_MS";
/// More spans than the export queue holds (4,096): the session's calls
/// plus the handshake and the session span.
const CALLS: usize = 5000;
const SPANS: u64 = CALLS as u64 + 2;

fn spawn(args: &[&str], deadline_ms: Option<u64>) -> Child {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(ms) = deadline_ms {
        cmd.env(DEADLINE, ms.to_string());
    }
    cmd.spawn().expect("spawn mcpscope")
}

/// Wait for `child` at most `limit` (then it is killed and the test
/// fails): a hang is the bug these tests are about.
fn finish_within(mut child: Child, limit: Duration) -> Output {
    let dog = watchdog(&child, limit);
    let mut err = child.stderr.take().unwrap();
    let errs = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let mut stdout = String::new();
    let _ = child.stdout.take().unwrap().read_to_string(&mut stdout);
    let status = child.wait().unwrap();
    let fired = dog.disarm();
    let stderr = errs.join().unwrap();
    assert!(
        !fired,
        "mcpscope did not end within {limit:?}; stderr:\n{stderr}"
    );
    Output {
        code: status.code().unwrap_or(-1),
        stdout,
        stderr,
    }
}

/// 503 forever, asking for the longest wait the exporter honours.
fn refusing_forever() -> Sink {
    Sink::scripted(|_, _| (503, vec![("Retry-After".into(), "5".into())]))
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) has no memory-safety preconditions.
    unsafe { libc::kill(child.id() as i32, sig) };
}

#[test]
fn export_of_more_spans_than_the_queue_ends_at_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let trace = many_calls_trace(dir.path(), CALLS);
    let trace = trace.to_str().unwrap();
    let silent = Silent::start();
    let refusing = refusing_forever();
    for url in [silent.url(), refusing.url()] {
        let o = finish_within(
            spawn(&["export", trace, "--otlp", &url], Some(1500)),
            Duration::from_secs(60),
        );
        assert_eq!(o.code, 1, "{}", o.stderr);
        assert_eq!(not_delivered(&o.stderr), Some(SPANS), "{}", o.stderr);
        assert!(
            o.stderr.contains("[otel] exported 0 span(s)"),
            "{}",
            o.stderr
        );
    }
    assert!(refusing.spans().is_empty());
}

#[test]
fn check_of_a_recording_with_more_spans_than_the_queue_ends_at_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let trace = many_calls_trace(dir.path(), CALLS);
    let trace = trace.to_str().unwrap();
    let plain = finish_within(
        spawn(&["check", "--trace", trace], None),
        Duration::from_secs(60),
    );
    let silent = Silent::start();
    let o = finish_within(
        spawn(
            &["check", "--trace", trace, "--otlp", &silent.url()],
            Some(1500),
        ),
        Duration::from_secs(60),
    );
    // The verdict's exit code, as without the export.
    assert_eq!(o.code, plain.code, "{}", o.stderr);
    assert_eq!(not_delivered(&o.stderr), Some(SPANS), "{}", o.stderr);
}

#[test]
fn a_live_check_with_more_spans_than_the_queue_ends_at_its_deadline() {
    let refusing = refusing_forever();
    let calls = "4200";
    let o = finish_within(
        spawn(
            &[
                "check",
                "--demo",
                "--tool",
                "echo",
                "-a",
                "message=hi",
                "--protocol",
                "legacy",
                "--repeat",
                calls,
                "--otlp",
                &refusing.url(),
            ],
            Some(1500),
        ),
        Duration::from_secs(100),
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lost = not_delivered(&o.stderr).unwrap_or_else(|| panic!("{}", o.stderr));
    assert!(lost > 4200, "{}", o.stderr);
    assert!(refusing.spans().is_empty());
}

/// Start `args` against a backend that never answers, wait until the
/// export is waiting on it, send `sig`: the process ends at once with
/// `code` and says what was not delivered.
fn stopped_while_waiting(args: &[&str], sig: i32, code: i32) {
    let silent = Silent::start();
    let url = silent.url();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--otlp", &url]);
    // The default deadline (30 s): only the signal ends it sooner.
    let child = spawn(&all, None);
    silent
        .arrived
        .recv_timeout(Duration::from_secs(60))
        .expect("the export reached the backend");
    signal(&child, sig);
    let o = finish_within(child, Duration::from_secs(15));
    assert_eq!(o.code, code, "{}", o.stderr);
    assert!(
        not_delivered(&o.stderr).is_some_and(|n| n > 0),
        "{}",
        o.stderr
    );
}

#[test]
fn sigint_ends_an_export_waiting_on_the_backend() {
    let dir = tempfile::tempdir().unwrap();
    let trace = many_calls_trace(dir.path(), CALLS);
    stopped_while_waiting(&["export", trace.to_str().unwrap()], libc::SIGINT, 130);
}

#[test]
fn sigint_ends_a_check_of_a_recording_waiting_on_the_backend() {
    let dir = tempfile::tempdir().unwrap();
    let trace = many_calls_trace(dir.path(), 10);
    stopped_while_waiting(
        &["check", "--trace", trace.to_str().unwrap()],
        libc::SIGINT,
        130,
    );
}

#[test]
fn sigint_ends_a_live_call_waiting_on_the_backend() {
    let silent = Silent::start();
    let url = silent.url();
    let child = spawn(
        &[
            "call",
            "--demo",
            "--tool",
            "echo",
            "-a",
            "message=hi",
            "--otlp",
            &url,
        ],
        None,
    );
    silent
        .arrived
        .recv_timeout(Duration::from_secs(60))
        .expect("the export reached the backend");
    signal(&child, libc::SIGINT);
    let o = finish_within(child, Duration::from_secs(15));
    assert_eq!(o.code, 130, "{}", o.stderr);
    assert!(
        o.stderr.contains("the export was not finished"),
        "{}",
        o.stderr
    );
}

#[test]
fn sigterm_ends_a_live_check_waiting_on_the_backend() {
    stopped_while_waiting(
        &[
            "check",
            "--demo",
            "--tool",
            "echo",
            "-a",
            "message=hi",
            "--protocol",
            "legacy",
        ],
        libc::SIGTERM,
        143,
    );
}
