//! `--log-file` / `MCPSCOPE_LOG`: mcpscope's own log, for bug reports. Off by
//! default, never on stderr, secrets redacted like the trace.

use crate::support::*;

#[test]
fn log_file_records_the_session_and_keeps_secrets_and_stderr_clean() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("mcpscope.log");
    let o = run(&[
        "call",
        "--log-file",
        log.to_str().unwrap(),
        "--tool",
        "t",
        "--",
        "sh",
        "-c",
        "read l; exit 7",
        "--api-key",
        "SECRET123",
    ]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    let text = std::fs::read_to_string(&log).expect("the log was written");
    assert!(text.contains("mcpscope started"), "{text}");
    assert!(text.contains("\"spawn\""), "{text}");
    assert!(text.contains("connection closed"), "{text}");
    assert!(text.contains("exited with status 7"), "{text}");
    assert!(text.contains("mcpscope exits"), "{text}");
    assert!(!text.contains("SECRET123"), "secrets are redacted: {text}");
    assert!(!o.stderr.contains("mcpscope started"), "{}", o.stderr);

    // The environment variable does the same; without either, nothing is written.
    let env_log = dir.path().join("env.log");
    let status = std::process::Command::new(BIN)
        .args(["tools", "--demo"])
        .env("MCPSCOPE_LOG", &env_log)
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert!(
        std::fs::read_to_string(&env_log)
            .unwrap()
            .contains("session shutdown")
    );
    let o = run(&["tools", "--demo"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

/// At debug the log tells what mcpscope did: the session started, each
/// call (its tool and token, never its arguments), each request's end, the
/// server stopped, the export's outcome and the session's end; secrets in
/// the arguments and the export's URL and headers stay out.
#[test]
fn the_log_tells_the_sessions_story_without_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("story.log");
    // A port nothing listens on: the export fails, and the log says how.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let o = run(&[
        "call",
        "--demo",
        "--log-file",
        log.to_str().unwrap(),
        "--tool",
        "echo",
        "--args",
        r#"{"text": "hi", "password": "ARGSECRET"}"#,
        "--otlp",
        &format!("http://user:URLSECRET@127.0.0.1:{port}"),
        "--otlp-header",
        "x-api-key=HEADERSECRET",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let text = std::fs::read_to_string(&log).expect("the log was written");
    let at = |what: &str| {
        text.find(what)
            .unwrap_or_else(|| panic!("no {what:?} in the log:\n{text}"))
    };
    // In the order it happened.
    let story = [
        "mcpscope started",
        "session observed",
        "live session started",
        "tools/call",
        "stopping the server",
        "live session ended",
        "mcpscope exits",
    ];
    let places: Vec<usize> = story.iter().map(|w| at(w)).collect();
    assert!(
        places.windows(2).all(|w| w[0] < w[1]),
        "{story:?} out of order:\n{text}"
    );
    assert!(text.contains("tool=\"echo\""), "{text}");
    assert!(
        text.contains("request{id=1 method=\"tools/call\"}"),
        "{text}"
    );
    assert!(
        text.contains(&format!("export=\"http://127.0.0.1:{port}/\"")),
        "{text}"
    );
    for secret in ["ARGSECRET", "URLSECRET", "HEADERSECRET"] {
        assert!(!text.contains(secret), "{secret} in the log:\n{text}");
    }
}
