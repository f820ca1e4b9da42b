//! `mcpscope attach` in tmux joining a live proxy session: a raw host
//! (this test) drives the demo server through `mcpscope proxy`; the
//! attached TUI shows the session so far and then follows it — the host's
//! call with its gauge moving to its end — and says when the session ended.
//! Synchronisation is by polling the screen (and the host's stdout) with a
//! deadline. Ignored by a plain `cargo test` (it needs tmux).

mod proxy_support;

use proxy_support::{BIN, Host, demo};
use serde_json::json;
use std::process::Command;
use std::time::{Duration, Instant};

struct Tmux {
    socket: String,
}

impl Tmux {
    fn start(cmd: &str, rt: &std::path::Path, config: &std::path::Path) -> Tmux {
        let ok = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            ok,
            "tmux is not installed: this test needs it (apt-get install tmux)"
        );
        let socket = format!("mcpscope-attach-{}", std::process::id());
        let script = format!(
            "export MCPSCOPE_RUNTIME_DIR='{}'; export MCPSCOPE_CONFIG_DIR='{}'; '{BIN}' {cmd}; echo \"EXIT=$?\"; exec sleep 600",
            rt.display(),
            config.display()
        );
        let st = Command::new("tmux")
            .args(["-L", &socket, "new-session", "-d", "-x", "160", "-y", "48"])
            .arg(script)
            .status()
            .unwrap();
        assert!(st.success());
        Tmux { socket }
    }

    fn capture(&self) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "capture-pane", "-p", "-t", "0"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let st = Command::new("tmux")
            .args(["-L", &self.socket, "send-keys", "-t", "0"])
            .args(keys)
            .status()
            .unwrap();
        assert!(st.success());
    }

    fn wait_for(&self, what: &str, secs: u64, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let s = self.capture();
            if pred(&s) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .status();
    }
}

#[test]
#[ignore = "needs tmux"]
fn attach_joins_a_running_session_and_follows_its_gauge() {
    let d = tempfile::tempdir().unwrap();
    let config = d.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    let argv = [
        vec![
            BIN.to_string(),
            "proxy".into(),
            "--name".into(),
            "watched".into(),
            "--".into(),
        ],
        demo(),
    ]
    .concat();
    let mut h = Host::start(&argv, d.path());
    h.initialize();
    // The host's call, with the host's token: 8 chunks of 256 KiB, 700 ms apart.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "upload_file",
        "arguments": {"size_bytes": 2097152, "chunk_bytes": 262144, "delay_ms": 700},
        "_meta": {"progressToken": "host-token-7"}}});
    h.write(format!("{call}\n").as_bytes());
    h.wait_line(|v| v["method"] == "notifications/progress");

    // Joining late: the call already runs; its gauge shows mid-way.
    let t = Tmux::start("attach watched", d.path(), &config);
    let mid = t.wait_for("the host's call mid-way", 30, |s| {
        s.contains("upload_file") && s.contains(" / 2.0 MiB") && !s.contains("2.0 MiB / 2.0 MiB")
    });
    assert!(mid.contains("attached"), "{mid}");
    // Read-only: said in the header, and no Composer to send from.
    assert!(mid.contains("◆ read-only"), "{mid}");
    assert!(!mid.contains("6 Composer"), "{mid}");
    assert!(mid.contains("█"), "{mid}");
    // It follows the call to its end.
    let done = t.wait_for("the call done", 30, |s| {
        s.contains("2.0 MiB / 2.0 MiB") && s.contains("done in")
    });
    assert!(done.contains("100%"), "{done}");
    assert!(done.contains("→ req   tools/call"), "{done}");
    assert!(done.contains("← res   tools/call"), "{done}");
    h.wait_line(|v| v["id"] == 2);
    let (_, st, _) = h.finish();
    assert!(st.success());
    t.wait_for("the session's end", 20, |s| s.contains("ended"));
    t.keys(&["q"]);
    t.wait_for("attach quit", 20, |s| s.contains("EXIT=0"));
}
