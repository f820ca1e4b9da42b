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
