//! Test files (`mcpscope test`): a server and cases of calls with what
//! must come back — results, progress, notification order, logs, findings,
//! timing. `file` reads them, `expect` judges a case over the store,
//! `from_trace` writes a test file from a recording. Running the cases and
//! writing their results for people and for CI is the command line's
//! (`cli::test`): it owns the sessions.

mod error;
pub mod expect;
pub mod file;
pub mod from_trace;

pub use error::SuiteError;
use serde::Serialize;

/// One expectation not met, placed in its file.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    pub what: String,
    pub line: usize,
    pub message: String,
    /// How to fix it, for a finding (the rule catalog's fix).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// The rule, for a finding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

/// One case, run and judged.
#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    pub file: String,
    pub name: String,
    /// The line of its `[[case]]`.
    pub line: usize,
    pub tool: String,
    pub passed: bool,
    /// check's exit code for it: 0, 1, 3 (connection), 4 (timeout), 130.
    pub code: i32,
    pub failures: Vec<Failure>,
    pub seen: expect::Seen,
    /// The findings by cause, with their fix (as `check` groups them).
    pub groups: Vec<crate::checks::groups::Group>,
    pub duration_ms: f64,
}

/// Every case of a run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Run {
    pub mcpscope_test: u32,
    pub cases: Vec<CaseResult>,
}

impl Run {
    pub fn passed(&self) -> usize {
        self.cases.iter().filter(|c| c.passed).count()
    }

    /// The run's exit code: an interruption, else a connection failure,
    /// else a timeout, else 1 when a case failed (check's codes).
    pub fn code(&self) -> i32 {
        for code in [130, 3, 4, 2, 1] {
            if self.cases.iter().any(|c| c.code == code) {
                return code;
            }
        }
        if self.cases.iter().all(|c| c.passed) {
            0
        } else {
            1
        }
    }
}
