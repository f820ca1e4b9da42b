//! End to end: the real binary in tmux against server-everything over
//! stdio. Browse its resources, read one, subscribe and see the server's
//! updates arrive on it, fill a resource template's variable with a
//! completion and read the binary result, then get a prompt whose second
//! argument's completions depend on the first. Synchronisation is by
//! polling the captured screen with a deadline, never by fixed sleeps.
//! Ignored by a plain `cargo test` (it needs tmux and the peer).

mod common;

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_mcpscope");

/// One tmux server on its own socket, killed on drop.
struct Tmux {
    socket: String,
    _dir: tempfile::TempDir,
}

impl Tmux {
    fn start(args: &str, w: u16, h: u16) -> Tmux {
        let ok = Command::new("tmux")
            .arg("-V")
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            ok,
            "tmux is not installed: this test needs it (apt-get install tmux)"
        );
        static N: AtomicUsize = AtomicUsize::new(0);
        let socket = format!(
            "mcpscope-browse-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        );
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        std::fs::create_dir_all(&config).unwrap();
        let script = format!(
            "#!/bin/sh\nexport MCPSCOPE_CONFIG_DIR='{}'\n'{BIN}' {args}\necho \"EXIT=$?\"\nexec sleep 600\n",
            config.display()
        );
        let path = dir.path().join("run.sh");
        std::fs::write(&path, script).unwrap();
        let t = Tmux { socket, _dir: dir };
        let st = t
            .cmd(&[
                "new-session",
                "-d",
                "-x",
                &w.to_string(),
                "-y",
                &h.to_string(),
            ])
            .arg(format!("sh {}", path.display()))
            .status()
            .unwrap();
        assert!(st.success(), "tmux new-session failed");
        t
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new("tmux");
        c.arg("-L").arg(&self.socket).args(args);
        c
    }

    fn capture(&self) -> String {
        let out = self
            .cmd(&["capture-pane", "-p", "-t", "0"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        assert!(self.cmd(&args).status().unwrap().success());
    }

    fn literal(&self, text: &str) {
        assert!(
            self.cmd(&["send-keys", "-t", "0", "-l", text])
                .status()
                .unwrap()
                .success()
        );
    }

    /// Poll the screen until `pred` holds; fail with the last screen after `secs`.
    fn wait_for(&self, what: &str, secs: u64, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let screen = self.capture();
            if pred(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]).status();
    }
}

#[test]
#[ignore = "needs tmux and server-everything (tests/peers/install.sh)"]
fn browse_everything_over_stdio() {
    let bin = common::everything();
    browse_everything(&format!("-- '{}' stdio", bin.display()));
}

/// Over Streamable HTTP the updates come on the session's GET stream.
#[test]
#[ignore = "needs tmux and server-everything (tests/peers/install.sh)"]
fn browse_everything_over_streamable_http() {
    let preload = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/peers/report_port.cjs");
    let mut cmd = Command::new(common::everything());
    cmd.arg("streamableHttp")
        .env("PORT", "0")
        .env("NODE_OPTIONS", format!("--require {preload}"));
    let (_srv, port) = common::http::start_reporting(cmd);
    browse_everything(&format!("--url http://127.0.0.1:{port}/mcp"));
}

/// Browse resources, read, subscribe and see updates, a template with a
/// completion, a prompt with dependent completions; `server` names the
/// server on mcpscope's command line.
fn browse_everything(server: &str) {
    let t = Tmux::start(
        &format!("--run 'toggle-subscriber-updates {{}}' {server}"),
        160,
        48,
    );
    t.wait_for("the connection", 30, |s| s.contains("● connected"));
    t.keys(&["5", "t"]);
    let s = t.wait_for("the resources", 20, |s| {
        s.contains("architecture.md") && s.contains("Dynamic Blob Resource")
    });
    assert!(s.contains("Tools │ Resources │ Prompts (t)"), "{s}");

    // Read the first resource: its text, scrollable.
    t.keys(&["Enter"]);
    t.wait_for("the read contents", 20, |s| {
        s.contains("resources/read demo://resource/static")
            && s.contains("Everything Server – Architecture")
    });
    t.keys(&["Escape"]);

    // Subscribe: marked, and the server's updates (toggled on at start) count on it.
    t.keys(&["s"]);
    t.wait_for("the subscription mark", 20, |s| {
        s.contains("●architecture.md")
    });
    t.wait_for("an update", 30, |s| s.contains("↻1") || s.contains("↻2"));

    // The blob template: a form for its variable, completed, then read.
    t.keys(&["G", "Enter"]);
    t.wait_for("the template form", 20, |s| {
        s.contains("resources/read demo://resource/dynamic/blob/{resourceId}")
            && s.contains("resourceId")
    });
    t.literal("7");
    t.wait_for("the completion", 20, |s| s.contains("Tab take value"));
    t.keys(&["Tab"]);
    t.wait_for("the value taken", 20, |s| !s.contains("Tab take value"));
    t.keys(&["Enter"]);
    t.wait_for("the binary contents", 20, |s| {
        s.contains("resources/read demo://resource/dynamic/")
            && s.contains("binary,")
            && s.contains("0000  ")
    });
    t.keys(&["Escape"]);

    // Prompts: the second argument's values depend on the first.
    t.keys(&["t"]);
    t.wait_for("the prompts", 20, |s| s.contains("completable-prompt"));
    t.keys(&["g", "j", "j", "Enter"]);
    t.wait_for("the prompt form", 20, |s| {
        s.contains("prompts/get completable-prompt")
    });
    t.literal("Eng");
    t.wait_for("department completions", 20, |s| {
        s.contains("Engineering") && s.contains("Tab take value")
    });
    t.keys(&["Tab", "Down"]);
    t.literal("A");
    t.wait_for("name completions from the context", 20, |s| {
        s.contains("Alice")
    });
    t.keys(&["Tab", "Enter"]);
    t.wait_for("the prompt's messages", 20, |s| {
        s.contains("Please promote Alice")
    });
    // Zoomed, the whole message shows.
    t.keys(&["z"]);
    t.wait_for("the prompt's message in full", 20, |s| {
        s.contains("Please promote Alice to the head of the Engineering team.")
    });
    t.keys(&["q"]);
    t.wait_for("the exit", 20, |s| s.contains("EXIT=0"));
}
