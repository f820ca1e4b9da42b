//! What of a tool's definition says how safe it is, compared between two
//! listings of it: by the rule engine within one session
//! (`tool-less-safe-in-session`) and by a baseline's or a diff's drift, so
//! both say "less safe" of the same changes.

use serde_json::Value;

/// A tool's annotation `name`, when it is a boolean.
pub fn hint(tool: &Value, name: &str) -> Option<bool> {
    tool.get("annotations")?.get(name)?.as_bool()
}

/// (hint, its value when absent, the value that is the safe one)
const HINTS: [(&str, bool, bool); 4] = [
    ("readOnlyHint", false, true),
    ("destructiveHint", true, false),
    ("idempotentHint", false, true),
    ("openWorldHint", true, false),
];

/// Required inputs a [`Safety`] keeps per tool at most: a schema requiring
/// more is compared on its first ones.
pub const MAX_REQUIRED: usize = 64;

/// What of a tool's definition says how safe it is: its four hints and the
/// inputs it requires. Small, so a session's rule engine can keep one per
/// tool and compare each listing with the one before
/// (`tool-less-safe-in-session`), as a baseline compares with the pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Safety {
    hints: [Option<bool>; 4],
    required: Vec<Box<str>>,
}

impl Safety {
    pub fn of(tool: &Value) -> Safety {
        Safety {
            hints: HINTS.map(|(name, _, _)| hint(tool, name)),
            required: tool
                .get("inputSchema")
                .and_then(|s| s.get("required"))
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(Value::as_str)
                        .take(MAX_REQUIRED)
                        .map(Box::from)
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// What makes `self` less safe than `before`.
    pub fn less_safe_than(&self, before: &Safety) -> Vec<String> {
        let mut why = Vec::new();
        let word = |v: Option<bool>| match v {
            Some(true) => "true",
            Some(false) => "false",
            None => "absent",
        };
        for (i, (name, absent, safe)) in HINTS.into_iter().enumerate() {
            let (x, y) = (before.hints[i], self.hints[i]);
            if x.unwrap_or(absent) == safe && y.unwrap_or(absent) != safe {
                why.push(format!("{name} {} → {}", word(x), word(y)));
            }
        }
        for r in &self.required {
            if !before.required.contains(r) {
                why.push(format!("new required input {r:?}"));
            }
        }
        why
    }
}
