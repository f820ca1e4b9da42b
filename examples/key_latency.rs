//! Key latency of the TUI (budget: a median ≤ 16 ms from key to screen, one
//! frame at 60 Hz): the real
//! release binary in tmux, on the demo server while its `flood` tool sends
//! progress notifications as fast as the transport takes them. Each sample
//! sends one focus key (alternately `2` and `1`) and polls
//! `tmux capture-pane` until the newly focused pane's thick border shows;
//! the time from sending the key to that screen is the sample. Prints the
//! median, the 90th percentile and the worst. With `scope` the Scope view
//! is focused first and each sample is a zoom key (alternately `-` and
//! `+`), awaited until the title shows the new time scale. With `help`
//! each sample opens or closes the help overlay (`?`), awaited until its
//! frame shows or is gone.
//!
//! The tmux server runs on a socket of its own and is killed at the end.
//!
//! `--against BIN` measures another build of mcpscope too, in the same run
//! and the same way, after this one, and prints the ratios of the medians,
//! the p90s and the worst samples (the other build's over this one's).
//!
//! Run: `cargo build --release && cargo run --release --example key_latency [SAMPLES] [scope|help] [--against BIN]`

// A benchmark prints its figures, and a broken setup ends it at once.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::exit
)]

#[path = "support/release_bin.rs"]
mod release_bin;

use std::process::Command;
use std::time::{Duration, Instant};

const W: u16 = 160;
const H: u16 = 48;

/// One tmux server on its own socket, killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new("tmux");
        c.arg("-L").arg(&self.socket).args(args);
        c
    }

    fn capture(&self) -> String {
        let out = self
            .cmd(&["capture-pane", "-p", "-t", "0"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn key(&self, key: &str) {
        let ok = self
            .cmd(&["send-keys", "-t", "0", key])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "tmux send-keys failed");
    }

    /// Poll the screen until `pred` holds; None after `limit`.
    fn wait(&self, limit: Duration, pred: impl Fn(&str) -> bool) -> Option<Instant> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if pred(&self.capture()) {
                return Some(Instant::now());
            }
        }
        None
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]).status();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let samples: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(40);
    let kind = if args.iter().any(|a| a == "scope") {
        Kind::Scope
    } else if args.iter().any(|a| a == "help") {
        Kind::Help
    } else {
        Kind::Focus
    };
    let against = args
        .iter()
        .position(|a| a == "--against")
        .and_then(|i| args.get(i + 1))
        .map(std::path::PathBuf::from);
    let bin = release_bin::release_bin();
    let this = measure(&bin, samples, kind);
    if let Some(other) = against {
        let that = measure(&other, samples, kind);
        println!(
            "  {} over this build: median {:.2}× · p90 {:.2}× · worst {:.2}×",
            other.display(),
            that.median / this.median,
            that.p90 / this.p90,
            that.worst / this.worst
        );
    }
}

/// What each sample's key does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `2` and `1` in turn: the focused pane's thick border moves.
    Focus,
    /// `-` and `+` in the Scope: its title's time scale changes.
    Scope,
    /// `?` in turn opens and closes the help overlay.
    Help,
}

/// One binary's figures, in ms.
struct Stats {
    median: f64,
    p90: f64,
    worst: f64,
}

/// Help's frame title while it is open.
const HELP_TITLE: &str = " Help — keys";

/// One binary's samples during its own flood; prints and returns its figures.
fn measure(bin: &std::path::Path, samples: usize, kind: Kind) -> Stats {
    let config = std::env::temp_dir().join(format!("mcpscope-keylat-{}", std::process::id()));
    std::fs::create_dir_all(&config).expect("config dir");
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let t = Tmux {
        socket: format!("mcpscope-keylat-{}-{run}", std::process::id()),
    };
    let line = format!(
        "MCPSCOPE_CONFIG_DIR='{}' '{}' demo --run 'flood {{\"count\": 1000000000}}'",
        config.display(),
        bin.display()
    );
    let ok = t
        .cmd(&[
            "new-session",
            "-d",
            "-x",
            &W.to_string(),
            "-y",
            &H.to_string(),
            &line,
        ])
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "tmux new-session failed (is tmux installed?)");

    // The flood is running once its gauge shows items arriving.
    let flooding = t.wait(Duration::from_secs(20), |s| {
        s.contains("flood") && s.contains("item ")
    });
    if flooding.is_none() {
        eprintln!("the flood did not start; last screen:\n{}", t.capture());
        std::process::exit(1);
    }
    // Let the store fill a little before measuring.
    std::thread::sleep(Duration::from_secs(2));

    let mut focus = [("2", "┏ 2 Timeline"), ("1", "┏ 1 Progress")];
    if kind == Kind::Scope {
        t.key("9");
        if t.wait(Duration::from_secs(5), |s| {
            s.contains("┏ 9 Scope · 10 s per width")
        })
        .is_none()
        {
            eprintln!("the Scope did not show; last screen:\n{}", t.capture());
            std::process::exit(1);
        }
        focus = [
            ("-", "┏ 9 Scope · 20 s per width"),
            ("+", "┏ 9 Scope · 10 s per width"),
        ];
    }
    let mut lat = Vec::with_capacity(samples);
    for i in 0..samples {
        let (key, shown) = focus[i % 2];
        let opens = i % 2 == 0;
        let sent = Instant::now();
        let seen = if kind == Kind::Help {
            t.key("?");
            t.wait(Duration::from_secs(5), |s| s.contains(HELP_TITLE) == opens)
        } else {
            t.key(key);
            t.wait(Duration::from_secs(5), |s| s.contains(shown))
        };
        let key = if kind == Kind::Help { "?" } else { key };
        match seen {
            Some(at) => lat.push(at - sent),
            None => {
                eprintln!(
                    "key {key} did not show within 5 s; last screen:\n{}",
                    t.capture()
                );
                std::process::exit(1);
            }
        }
    }
    let screen = t.capture();
    let events = screen
        .lines()
        .next()
        .and_then(|l| l.split("events").next())
        .and_then(|l| l.split_whitespace().last())
        .unwrap_or("?")
        .to_string();
    if kind == Kind::Help && samples % 2 == 1 {
        t.key("?");
    }
    t.key("q");
    let _ = std::fs::remove_dir_all(&config);

    lat.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let median = ms(lat[lat.len() / 2]);
    let p90 = ms(lat[(lat.len() * 9 / 10).min(lat.len() - 1)]);
    let worst = ms(*lat.last().expect("samples"));
    println!(
        "{}: key → screen latency during a flood ({samples} {} keys, {W}×{H}, store at {events} events)",
        bin.display(),
        match kind {
            Kind::Focus => "focus",
            Kind::Scope => "Scope zoom",
            Kind::Help => "help open/close",
        }
    );
    println!(
        "  median {median:.1} ms · p90 {p90:.1} ms · worst {worst:.1} ms (budget: median ≤ 16 ms, one frame)"
    );
    println!(
        "  {}",
        if median <= 16.0 {
            "within budget"
        } else {
            "OVER BUDGET"
        }
    );
    Stats { median, p90, worst }
}
