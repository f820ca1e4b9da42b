//! Text for people that both faces print, headless lines and TUI panes alike:
//! numbers, durations, byte sizes, rates and the progress line. It depends on
//! nothing else in the crate, so `cli` and `tui` share it without importing
//! each other, and one server value reads the same wherever it shows.

mod numbers;
mod progress;

pub use numbers::{
    bytes, duration, duration_fine, duration_prose, millis_exact, num, rate, rel_ms, timeout_secs,
};
pub use progress::progress;
