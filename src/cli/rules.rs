//! `mcpscope rules`: the rule catalog (id, severity, description, how to
//! fix it, the specification section it rests on).
//!
//! Text: one line per rule, `ID  SEVERITY  DESCRIPTION · fix: HINT · SPEC-URL`
//! (scripts split the first two words). JSON (`--format json`): an array of
//! `{id, severity, party, description, fix, spec}` in catalog order.

use crate::checks::Rule;
use clap::{Args, ValueEnum};
use serde_json::json;
use std::io::Write;

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RulesFormat {
    #[default]
    Text,
    Json,
}

#[derive(Args, Debug, Clone, Default)]
pub struct RulesArgs {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: RulesFormat,
}

pub fn run(a: RulesArgs) -> i32 {
    let text = match a.format {
        RulesFormat::Text => text(),
        RulesFormat::Json => json(),
    };
    let mut out = super::stdout::lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    0
}

fn text() -> String {
    let width = Rule::ALL.iter().map(|r| r.id().len()).max().unwrap_or(0);
    let mut s = String::new();
    for r in Rule::ALL {
        s.push_str(&format!(
            "{:width$}  {:7}  {} · fix: {} · {}\n",
            r.id(),
            r.severity().as_str(),
            r.description(),
            r.fix(),
            r.spec()
        ));
    }
    s
}

fn json() -> String {
    let rules: Vec<serde_json::Value> = Rule::ALL
        .iter()
        .map(|r| {
            json!({
                "id": r.id(),
                "severity": r.severity(),
                "party": r.party(),
                "description": r.description(),
                "fix": r.fix(),
                "spec": r.spec(),
            })
        })
        .collect();
    serde_json::to_string_pretty(&rules).unwrap_or_default() + "\n"
}
