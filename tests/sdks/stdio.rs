//! Real third-party servers over stdio: the official server-everything
//! (TypeScript SDK) and a server on the official Python SDK.

use crate::support::*;

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn everything_long_running_operation_reports_exactly_steps() {
    let bin = everything();
    let argv = vec![bin.display().to_string(), "stdio".into()];
    let o = headless(["call"])
        .args([
            "--tool",
            "trigger-long-running-operation",
            "-a",
            "duration=1",
            "-a",
            "steps=4",
        ])
        .server(&argv)
        .expect(0);
    assert_eq!(
        o.lines("[progress]"),
        vec![
            "[progress] trigger-long-running-operation 1/4 (25%)",
            "[progress] trigger-long-running-operation 2/4 (50%)",
            "[progress] trigger-long-running-operation 3/4 (75%)",
            "[progress] trigger-long-running-operation 4/4 (100%)",
        ]
    );
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(
        v["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Long running operation completed")
    );

    let o = headless(["call"])
        .args([
            "--tool",
            "trigger-long-running-operation",
            "-a",
            "duration=0.2",
            "-a",
            "steps=2",
            "--token",
            "none",
        ])
        .server(&argv)
        .expect(0);
    assert!(
        o.lines("[progress]").is_empty(),
        "no token, no progress: {}",
        o.stderr
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn everything_integer_token_roots_and_list_changed() {
    let bin = everything();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let argv = vec![bin.display().to_string(), "stdio".into()];
    let o = headless(["call"])
        .args([
            "--tool",
            "trigger-long-running-operation",
            "-a",
            "duration=0.5",
            "-a",
            "steps=2",
            "--token",
            "7",
            "--root",
            root.to_str().unwrap(),
        ])
        .server(&argv)
        .record()
        .expect(0);
    let lines = o.trace();
    let progress: Vec<&serde_json::Value> =
        frames(&lines, "in", "notifications/progress").collect();
    assert_eq!(progress.len(), 2);
    assert!(progress.iter().all(|p| p["params"]["progressToken"] == 7));
    assert!(frames(&lines, "in", "notifications/tools/list_changed").count() >= 1);
    // server-everything asks for roots when the client declares them; we answer from --root.
    if frames(&lines, "in", "roots/list").count() > 0 {
        let answer = lines
            .iter()
            .find(|l| l["dir"] == "out" && l["json"]["result"]["roots"].is_array())
            .unwrap();
        assert_eq!(
            answer["json"]["result"]["roots"][0]["uri"],
            format!("file://{}", root.display())
        );
    }
    assert!(
        lines.iter().any(|l| l["dir"] == "stderr"),
        "server stderr is captured"
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn python_sdk_progress_with_messages_and_logs() {
    let argv = python_server();
    // The handshake era, where the level is asked with logging/setLevel.
    let o = headless(["call", "--protocol", "legacy"])
        .args([
            "--tool",
            "slow_task",
            "-a",
            "steps=3",
            "-a",
            "delay_ms=10",
            "--log-level",
            "debug",
        ])
        .server(&argv)
        .expect(0);
    assert_eq!(
        o.lines("[progress]"),
        vec![
            "[progress] slow_task 1/3 (33%) step 1 of 3",
            "[progress] slow_task 2/3 (66%) step 2 of 3",
            "[progress] slow_task 3/3 (100%) step 3 of 3",
        ]
    );
    let logs = o.lines("[log]");
    for level in ["debug", "info", "warning", "error"] {
        assert!(
            logs.iter()
                .any(|l| l.starts_with(&format!("[log] {level}: slow_task {level}"))),
            "{level}: {logs:?}"
        );
    }
    // mcp 2.3.0 does not declare `logging`: setLevel is still sent, as
    // asked, and the user is told the capability is missing.
    assert!(
        o.stderr.contains("did not declare the logging capability"),
        "{}",
        o.stderr
    );
}

#[test]
#[ignore = "needs test peers: bash tests/peers/install.sh"]
fn python_sdk_float_progress_and_set_level_when_declared() {
    let mut argv = python_server();
    let o = headless(["call"])
        .args(["--tool", "float_progress", "--token", "5"])
        .server(&argv)
        .expect(0);
    assert_eq!(
        o.lines("[progress]"),
        vec![
            "[progress] float_progress 0.5/3 (16%) at 0.5",
            "[progress] float_progress 1.5/3 (50%) at 1.5",
            "[progress] float_progress 2.5/3 (83%) at 2.5",
        ]
    );
    argv.push("--logging".into());
    let o = headless(["call"])
        .args([
            "--tool",
            "slow_task",
            "-a",
            "steps=2",
            "-a",
            "delay_ms=1",
            "--log-level",
            "warning",
        ])
        .server(&argv)
        .expect(0);
    let logs = o.lines("[log]");
    assert_eq!(logs.len(), 2, "{logs:?}");
    assert!(logs[0].starts_with("[log] warning"));
    assert!(logs[1].starts_with("[log] error"));
}
