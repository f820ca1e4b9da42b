//! The real binary in a real terminal: one tmux server per test on a socket
//! of its own (killed on drop), driven with keys and read by polling the
//! captured screen with a deadline, never by fixed sleeps.

use super::BIN;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// These tests are `#[ignore]`d (a plain `cargo test` lists them as not
/// run); run on purpose without tmux, they fail saying why.
pub fn require_tmux() {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok,
        "tmux is not installed: these tests need it (apt-get install tmux)"
    );
}

/// One tmux server on its own socket, killed on drop.
pub struct Tmux {
    socket: String,
    dir: tempfile::TempDir,
}

impl Tmux {
    pub fn start(name: &str, mcpscope_args: &str) -> Tmux {
        Tmux::start_cmd(name, &format!("demo {mcpscope_args}"))
    }

    /// Any mcpscope command line (after the binary's name).
    pub fn start_cmd(name: &str, mcpscope_args: &str) -> Tmux {
        Tmux::start_sized(name, mcpscope_args, 160, 48)
    }

    /// Any mcpscope command line in a terminal of `w`×`h`.
    pub fn start_sized(name: &str, mcpscope_args: &str, w: u16, h: u16) -> Tmux {
        Tmux::start_with(name, "", mcpscope_args, w, h)
    }

    /// Shell lines to run before mcpscope (limits, traps), then mcpscope.
    pub fn start_with(name: &str, prelude: &str, mcpscope_args: &str, w: u16, h: u16) -> Tmux {
        static N: AtomicUsize = AtomicUsize::new(0);
        let socket = format!(
            "mcpscope-e2e-{name}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        );
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        std::fs::create_dir_all(&config).unwrap();
        // The shell prints the exit code and the terminal modes after mcpscope,
        // then stays so the screen can be captured.
        let script = format!(
            "#!/bin/sh\nexport MCPSCOPE_CONFIG_DIR='{cfg}'\nexport MCPSCOPE_TIMINGS='{dir}/timings'\n{prelude}'{BIN}' {mcpscope_args}\necho \"EXIT=$?\"\necho RESTORED\nstty -a\necho STTY-DONE\nexec sleep 600\n",
            cfg = config.display(),
            dir = dir.path().display(),
        );
        let path = dir.path().join("run.sh");
        std::fs::write(&path, script).unwrap();
        let t = Tmux { socket, dir };
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

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new("tmux");
        c.arg("-L").arg(&self.socket).args(args);
        c
    }

    pub fn capture(&self) -> String {
        let out = self
            .cmd(&["capture-pane", "-p", "-t", "0"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend_from_slice(keys);
        assert!(self.cmd(&args).status().unwrap().success());
    }

    pub fn literal(&self, text: &str) {
        assert!(
            self.cmd(&["send-keys", "-t", "0", "-l", text])
                .status()
                .unwrap()
                .success()
        );
    }

    pub fn display(&self, format: &str) -> String {
        let out = self
            .cmd(&["display-message", "-p", "-t", "0", format])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Poll the screen until `pred` holds; fail with the last screen after `secs`.
    pub fn wait_for(&self, what: &str, secs: u64, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let screen = self.capture();
            // A capture can catch a frame half painted (rows are written top
            // to bottom): what a caller asserts next on the returned screen
            // must come from whole frames, so a match counts once a second
            // capture shows the same screen.
            if pred(&screen) && self.capture() == screen {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Quit and check mcpscope exited 0.
    pub fn quit(&self) {
        self.keys(&["q"]);
        let screen = self.wait_for("the shell after mcpscope", 20, |s| s.contains("EXIT="));
        assert!(screen.contains("EXIT=0"), "{screen}");
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]).status();
    }
}

pub fn assert_restored(t: &Tmux) {
    assert_restored_with(t, 0);
}

/// The terminal is back to normal and mcpscope exited with `code`.
pub fn assert_restored_with(t: &Tmux, code: i32) {
    let screen = t.wait_for("the shell after mcpscope", 20, |s| s.contains("STTY-DONE"));
    assert!(screen.contains(&format!("EXIT={code}\n")), "{screen}");
    // Raw mode undone: canonical input and echo are back on.
    let modes: String = screen.split("RESTORED").nth(1).unwrap_or("").to_string();
    assert!(
        modes.contains(" icanon") && !modes.contains("-icanon"),
        "{modes}"
    );
    assert!(
        modes.contains(" echo ") && !modes.contains("-echo "),
        "{modes}"
    );
    // The alternate screen was left.
    assert_eq!(t.display("#{alternate_on}"), "0");
    assert!(
        !screen.contains("Timeline"),
        "the UI is gone from the screen: {screen}"
    );
}
