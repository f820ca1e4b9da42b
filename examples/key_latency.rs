//! Key latency of the TUI (budget: a median ≤ 16 ms from key to screen, one
//! frame at 60 Hz): the real
//! release binary in tmux, on the demo server while its `flood` tool sends
//! progress notifications as fast as the transport takes them. Each sample
//! sends one focus key (alternately `2` and `1`) and polls
//! `tmux capture-pane` until the newly focused pane's thick border shows;
//! the time from sending the key to that screen is the sample. Prints the
//! median, the 90th percentile and the worst. With `scope` the Scope view
//! is focused first and each sample is a zoom key (alternately `-` and
//! `+`), awaited until the title shows the new time scale.
//!
//! The tmux server runs on a socket of its own and is killed at the end.
//!
//! `--against BIN` measures another build of mcpscope too, in the same run
//! and the same way, after this one, and prints the ratio of the medians.
//!
//! Run: `cargo build --release && cargo run --release --example key_latency [SAMPLES] [scope] [--against BIN]`

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
    let scope = args.iter().any(|a| a == "scope");
    let against = args
        .iter()
        .position(|a| a == "--against")
        .and_then(|i| args.get(i + 1))
        .map(std::path::PathBuf::from);
    let bin = release_bin::release_bin();
    let this = measure(&bin, samples, scope);
    if let Some(other) = against {
        let that = measure(&other, samples, scope);
        println!(
            "  median ratio {}: {:.2}× this build's",
            other.display(),
            that / this
        );
    }
}

/// One binary's samples during its own flood; prints them and returns the median in ms.
fn measure(bin: &std::path::Path, samples: usize, scope: bool) -> f64 {
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
    if scope {
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
        let sent = Instant::now();
        t.key(key);
        match t.wait(Duration::from_secs(5), |s| s.contains(shown)) {
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
        if scope { "Scope zoom" } else { "focus" }
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
    median
}
