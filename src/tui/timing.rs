//! The selected call's timing statistics in the Progress details view: the
//! call model's accumulator (`crate::calls::timing`), kept here under the
//! name the TUI state uses.

pub use crate::calls::Timing as CallTiming;
