//! A faults file: TOML, a `seed` and `[[rule]]` tables.
//!
//! ```toml
//! seed = 42
//! [[rule]]
//! match = "in && progress"
//! action = "drop"
//! probability = 0.5
//! limit = 10
//! ```
//!
//! Errors name the file and the line; a filter's error its column too,
//! pointed at under the filter.

use super::MAX_FORGED;
use super::{Action, Corruption, DropWhen, FaultsError, Rule};
use crate::filter::Filter;
use serde::Deserialize;
use std::path::Path;
use toml::Spanned;

/// Larger files are no faults file (and are not read whole).
const MAX_FILE: u64 = 1 << 20;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    seed: Option<u64>,
    #[serde(default)]
    rule: Vec<Spanned<RuleDoc>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleDoc {
    #[serde(rename = "match")]
    filter: Spanned<String>,
    action: Spanned<String>,
    ms: Option<u64>,
    jitter_ms: Option<u64>,
    every: Option<u64>,
    probability: Option<f64>,
    how: Option<String>,
    /// `status`: the HTTP status to answer with.
    code: Option<u16>,
    /// `forge`: the method of the requests to forge, their params, and how many.
    method: Option<String>,
    params: Option<toml::Value>,
    count: Option<u32>,
    limit: Option<u64>,
}

/// The rules of `path`, numbered from `first`, and its seed.
pub fn load(path: &Path, first: u32) -> Result<(Vec<Rule>, Option<u64>), FaultsError> {
    let name = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| {
        FaultsError(format!(
            "--faults {name}: not a preset ({}) and not a readable file: {e}",
            super::presets::NAMES
        ))
    })?;
    if meta.len() > MAX_FILE {
        return Err(FaultsError(format!(
            "--faults {name}: {} bytes is too large for a faults file (at most {MAX_FILE})",
            meta.len()
        )));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| FaultsError(format!("--faults {name}: cannot read it: {e}")))?;
    parse(&text, &name, first)
}

/// 1-based line and column of a byte offset.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

pub fn parse(text: &str, name: &str, first: u32) -> Result<(Vec<Rule>, Option<u64>), FaultsError> {
    let doc: Doc = toml::from_str(text).map_err(|e| {
        let at = e
            .span()
            .map(|s| {
                let (l, c) = line_col(text, s.start);
                format!(":{l}:{c}")
            })
            .unwrap_or_default();
        FaultsError(format!("--faults {name}{at}: {}", e.message().trim()))
    })?;
    let mut rules = Vec::new();
    for (i, r) in doc.rule.into_iter().enumerate() {
        let (line, _) = line_col(text, r.span().start);
        let r = r.into_inner();
        let index = first + i as u32;
        let at = |what: &str| format!("--faults {name}:{line}: rule {} ({what})", i + 1);
        let filter = parse_filter(text, &r.filter, &at("match"))?;
        let action = action(&r).map_err(|e| FaultsError(format!("{}: {e}", at("action"))))?;
        rules.push(Rule {
            index,
            source: name.to_string(),
            filter,
            action,
            limit: r.limit,
        });
    }
    Ok((rules, doc.seed))
}

fn parse_filter(text: &str, src: &Spanned<String>, at: &str) -> Result<Filter, FaultsError> {
    Filter::parse(src.get_ref()).map_err(|e| {
        // Where the filter starts in the file (past its opening quote),
        // so the column is the file's as well as the filter's.
        let (line, col) = line_col(text, src.span().start + 1);
        let mut msg = format!(
            "{at}: {e} (file line {line}, column {})\n",
            col + e.column - 1
        );
        for l in e.pointed(src.get_ref()).lines() {
            msg.push_str("  ");
            msg.push_str(l);
            msg.push('\n');
        }
        FaultsError(msg.trim_end().to_string())
    })
}

/// Why a rule's action and its fields do not make an action; the caller
/// names the rule in front.
#[derive(Debug, thiserror::Error)]
enum ActionError {
    #[error("`{field}` does not go with action {action:?}")]
    Unused { field: &'static str, action: String },
    #[error("delay needs `ms` (milliseconds)")]
    DelayNeedsMs,
    #[error("give `every` or `probability`, not both")]
    EveryAndProbability,
    #[error("`every` must be 1 or more")]
    EveryZero,
    #[error("`probability` {0} is not within 0..1")]
    Probability(f64),
    #[error("`how` {0:?} is not one of cut, invalid-json, wrong-id")]
    How(String),
    #[error("`code` {0} is not an HTTP status from 200 to 599")]
    Code(u16),
    #[error("status needs `code` (an HTTP status, e.g. 503)")]
    StatusNeedsCode,
    #[error("forge needs `method` (the request to send, e.g. \"ping\")")]
    ForgeNeedsMethod,
    #[error("`count` {0} is not from 1 to {MAX_FORGED}")]
    Count(u32),
    #[error("`params` must be a table (the request's params object)")]
    ParamsNotTable,
    #[error(
        "{0:?} is not an action (delay, drop, duplicate, hold, late, corrupt, close, status, forge)"
    )]
    Unknown(String),
}

fn action(r: &RuleDoc) -> Result<Action, ActionError> {
    let name = r.action.get_ref().as_str();
    let unused = |fields: &[(&'static str, bool)]| -> Result<(), ActionError> {
        match fields.iter().find(|(_, set)| *set) {
            Some(&(field, _)) => Err(ActionError::Unused {
                field,
                action: name.to_string(),
            }),
            None => Ok(()),
        }
    };
    let (ms, jitter, every, prob, how) = (
        r.ms.is_some(),
        r.jitter_ms.is_some(),
        r.every.is_some(),
        r.probability.is_some(),
        r.how.is_some(),
    );
    if name != "status" && r.code.is_some() {
        return Err(ActionError::Unused {
            field: "code",
            action: name.to_string(),
        });
    }
    if name != "forge" {
        unused(&[
            ("method", r.method.is_some()),
            ("params", r.params.is_some()),
            ("count", r.count.is_some()),
        ])?;
    }
    // What an action without fields of its own (or only `code`) must not have.
    let takes_none = [
        ("ms", ms),
        ("jitter_ms", jitter),
        ("every", every),
        ("probability", prob),
        ("how", how),
    ];
    Ok(match name {
        "forge" => {
            unused(&takes_none)?;
            let Some(method) = r.method.clone() else {
                return Err(ActionError::ForgeNeedsMethod);
            };
            let params = match &r.params {
                None => None,
                Some(t @ toml::Value::Table(_)) => serde_json::to_value(t).ok(),
                Some(_) => return Err(ActionError::ParamsNotTable),
            };
            let count = r.count.unwrap_or(1);
            if !(1..=MAX_FORGED).contains(&count) {
                return Err(ActionError::Count(count));
            }
            Action::Forge {
                method,
                params,
                count,
            }
        }
        "status" => {
            unused(&takes_none)?;
            match r.code {
                Some(c) if (200..=599).contains(&c) => Action::Status(c),
                Some(c) => return Err(ActionError::Code(c)),
                None => return Err(ActionError::StatusNeedsCode),
            }
        }
        "delay" => {
            unused(&[("every", every), ("probability", prob), ("how", how)])?;
            let Some(ms) = r.ms else {
                return Err(ActionError::DelayNeedsMs);
            };
            Action::Delay {
                ms,
                jitter_ms: r.jitter_ms.unwrap_or(0),
            }
        }
        "drop" => {
            unused(&[("ms", ms), ("jitter_ms", jitter), ("how", how)])?;
            match (r.every, r.probability) {
                (Some(_), Some(_)) => return Err(ActionError::EveryAndProbability),
                (Some(0), None) => return Err(ActionError::EveryZero),
                (Some(n), None) => Action::Drop(DropWhen::Every(n)),
                (None, Some(p)) if (0.0..=1.0).contains(&p) => {
                    Action::Drop(DropWhen::Probability(p))
                }
                (None, Some(p)) => return Err(ActionError::Probability(p)),
                (None, None) => Action::Drop(DropWhen::Always),
            }
        }
        "corrupt" => {
            unused(&[
                ("ms", ms),
                ("jitter_ms", jitter),
                ("every", every),
                ("probability", prob),
            ])?;
            Action::Corrupt(match r.how.as_deref() {
                Some("cut") | None => Corruption::Cut,
                Some("invalid-json") => Corruption::InvalidJson,
                Some("wrong-id") => Corruption::WrongId,
                Some(other) => {
                    return Err(ActionError::How(other.to_string()));
                }
            })
        }
        "duplicate" | "hold" | "late" | "close" => {
            unused(&takes_none)?;
            match name {
                "duplicate" => Action::Duplicate,
                "hold" => Action::Hold,
                "late" => Action::Late,
                _ => Action::Close,
            }
        }
        other => {
            return Err(ActionError::Unknown(other.to_string()));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_of_every_action_reads() {
        let text = r#"
seed = 9
[[rule]]
match = "in && progress"
action = "drop"
every = 2
limit = 3
[[rule]]
match = "out"
action = "delay"
ms = 10
jitter_ms = 5
[[rule]]
match = "response"
action = "corrupt"
how = "wrong-id"
[[rule]]
match = "progress"
action = "late"
"#;
        let (rules, seed) = parse(text, "f.toml", 4).unwrap();
        assert_eq!(seed, Some(9));
        assert_eq!(rules.len(), 4);
        assert_eq!(rules[0].index, 4);
        assert_eq!(rules[0].action, Action::Drop(DropWhen::Every(2)));
        assert_eq!(rules[0].limit, Some(3));
        assert_eq!(
            rules[1].action,
            Action::Delay {
                ms: 10,
                jitter_ms: 5
            }
        );
        assert_eq!(rules[2].action, Action::Corrupt(Corruption::WrongId));
        assert_eq!(rules[3].action, Action::Late);
    }

    #[test]
    fn a_filter_error_names_the_line_and_the_column() {
        let text = "[[rule]]\naction = \"drop\"\nmatch = \"in && && progress\"\n";
        let e = parse(text, "bad.toml", 1).unwrap_err().0;
        assert!(
            e.starts_with("--faults bad.toml:1: rule 1 (match): column 7:"),
            "{e}"
        );
        assert!(e.contains("(file line 3, column 16)"), "{e}");
        assert!(e.contains("  in && && progress\n        ^ "), "{e}");
    }

    #[test]
    fn other_errors_name_the_line() {
        let e = parse("[[rule]]\nmatch = \"in\"\naction = \"explode\"\n", "f", 1)
            .unwrap_err()
            .0;
        assert!(
            e.contains("f:1: rule 1 (action): \"explode\" is not an action"),
            "{e}"
        );
        let e = parse(
            "seed = 1\n[[rule]]\nmatch = \"in\"\nactoin = \"drop\"\n",
            "f",
            1,
        )
        .unwrap_err()
        .0;
        assert!(e.starts_with("--faults f:4:"), "{e}");
        let e = parse(
            "[[rule]]\nmatch = \"in\"\naction = \"drop\"\nms = 3\n",
            "f",
            1,
        )
        .unwrap_err()
        .0;
        assert!(e.contains("`ms` does not go with action \"drop\""), "{e}");
    }
}
