//! What fails a check: an error, a warning with `--strict`; never a finding
//! of a rule the user allowed (`--allow RULE`: one the author cannot fix,
//! such as an SDK's), which is still shown, marked allowed.

use super::rules::{Rule, Severity};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    pub strict: bool,
    pub allow: Vec<Rule>,
}

impl Verdict {
    pub fn allows(&self, rule: Rule) -> bool {
        self.allow.contains(&rule)
    }

    /// Whether a finding of `rule` at `severity` fails the check.
    pub fn fails(&self, rule: Rule, severity: Severity) -> bool {
        !self.allows(rule)
            && (severity == Severity::Error || (self.strict && severity == Severity::Warning))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_fail_warnings_with_strict_allowed_rules_never() {
        let rule = Rule::ToolOutputInvalid;
        let plain = Verdict::default();
        assert!(plain.fails(rule, Severity::Error));
        assert!(!plain.fails(rule, Severity::Warning));
        assert!(!plain.fails(rule, Severity::Info));
        let strict = Verdict {
            strict: true,
            ..Verdict::default()
        };
        assert!(strict.fails(rule, Severity::Warning));
        let allowed = Verdict {
            strict: true,
            allow: vec![rule],
        };
        assert!(!allowed.fails(rule, Severity::Error));
        assert!(!allowed.fails(rule, Severity::Warning));
        assert!(allowed.fails(Rule::LogInvalid, Severity::Error));
    }
}
