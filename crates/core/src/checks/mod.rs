//! Protocol checks: the rule engine that turns trace events into findings.
//!
//! `Checker` is incremental — it sees each event once, in order, and keeps
//! only per-request and per-token state, so its cost per event does not grow
//! with the history; finished requests are retired past a window, so its
//! memory does not grow with the session either. `Sessions` keeps one per
//! host session (a proxy may see several hosts at once). `LiveChecks` runs
//! them over a live `Trace` as events are appended; `check --trace` runs it over a recorded one. `stats` computes
//! per-call timing statistics from a store.

pub mod config;
pub mod engine;
pub mod finding;
pub mod groups;
pub mod live;
pub mod rules;
pub mod sessions;
pub mod shape;
pub mod stats;
pub mod verdict;

pub use config::CheckConfig;
pub use engine::Checker;
pub use finding::{Finding, PartyCounts, SeverityCounts};
pub use groups::{Group, Grouper, groups};
pub use live::LiveChecks;
pub use rules::{Party, Rule, Severity};
pub use sessions::{Sessions, SessionsUnknown};
pub use verdict::Verdict;
