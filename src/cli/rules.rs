//! `mcpscope rules`: the rule catalog (id, severity, description).

use crate::checks::Rule;
use std::io::Write;

pub fn run() -> i32 {
    let width = Rule::ALL.iter().map(|r| r.id().len()).max().unwrap_or(0);
    let mut out = super::stdout::lock();
    for r in Rule::ALL {
        let _ = writeln!(
            out,
            "{:width$}  {:7}  {}",
            r.id(),
            r.severity().as_str(),
            r.description()
        );
    }
    0
}
