//! What one difference of a call is (`Change`, its `Aspect`) and when two
//! durations differ enough to say so (`Tolerances`): what the comparisons
//! of calls and of their order produce and the report lists.

use super::At;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// When two durations differ enough to report: by at least `min_ms` and by
/// a factor of at least `time_ratio`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tolerances {
    pub time_ratio: f64,
    pub min_ms: u64,
}

impl Default for Tolerances {
    fn default() -> Self {
        Tolerances {
            time_ratio: 2.0,
            min_ms: 250,
        }
    }
}

impl Tolerances {
    pub fn beyond(&self, a_us: u64, b_us: u64) -> bool {
        let (lo, hi) = (a_us.min(b_us), a_us.max(b_us));
        hi - lo >= self.min_ms * 1000 && hi as f64 >= lo as f64 * self.time_ratio
    }
}

/// What about a call changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Aspect {
    Tool,
    Arguments,
    Outcome,
    Result,
    Progress,
    Order,
    ServerRequests,
    Timing,
}

/// One change of a call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub aspect: Aspect,
    /// One line for people (not yet sanitised).
    pub what: String,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub a: Value,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub b: Value,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub at_a: Vec<At>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub at_b: Vec<At>,
}
