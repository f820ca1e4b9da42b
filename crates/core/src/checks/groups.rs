//! One finding per cause: the findings of one rule about one call (its
//! request id and progress token), one party and one host session form a
//! group, with a count and the first and last frame that broke the rule.
//! A server author with one bug reads one group, not one line per message.
//!
//! Grouping is O(1) per finding (one hash lookup), done where findings are
//! shown — at report time, by the headless printer and the TUI — never on
//! the rule engine's path.

use super::finding::Finding;
use super::rules::{Party, Rule, Severity};
use crate::protocol::IdKey;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// The frame that broke the rule: a finding's frames are oldest first and
/// the rule fires on the last one (the request or the earlier frames it
/// names come before it), so a log below the level points at the log, not
/// at the request.
pub fn offending_seq(f: &Finding) -> Option<u64> {
    f.seqs.last().copied()
}

/// What makes two findings one cause.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GroupKey {
    pub rule: Rule,
    pub party: Party,
    pub session: Option<String>,
    pub request_id: Option<IdKey>,
    pub token: Option<IdKey>,
}

impl GroupKey {
    pub fn of(f: &Finding) -> GroupKey {
        GroupKey {
            rule: f.rule,
            party: f.party,
            session: f.session.clone(),
            request_id: f.request_id.clone(),
            token: f.token.clone(),
        }
    }
}

/// One group, as `check --format json` writes it under `groups`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub rule: Rule,
    pub severity: Severity,
    pub party: Party,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<IdKey>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<IdKey>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// How many findings the group holds.
    pub count: usize,
    /// The frame that broke the rule in the first and in the last finding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_seq: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seq: Option<u64>,
    /// The first finding's message.
    pub message: String,
    /// The findings of the group: indices into the report's `findings`.
    pub findings: Vec<usize>,
    /// How to fix it, and the specification section (from the catalog).
    pub fix: String,
    pub spec: String,
    /// The rule is allowed (`--allow`): shown, never failing the check.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allowed: bool,
}

impl Group {
    fn open(f: &Finding, at: usize) -> Group {
        Group {
            rule: f.rule,
            severity: f.severity,
            party: f.party,
            request_id: f.request_id.clone(),
            token: f.token.clone(),
            session: f.session.clone(),
            count: 0,
            first_seq: None,
            last_seq: None,
            message: f.message.clone(),
            findings: Vec::new(),
            fix: f.rule.fix().to_string(),
            spec: f.rule.spec().to_string(),
            allowed: false,
        }
        .with(f, at)
    }

    fn with(mut self, f: &Finding, at: usize) -> Group {
        self.add(f, at);
        self
    }

    fn add(&mut self, f: &Finding, at: usize) {
        self.count += 1;
        self.severity = self.severity.max(f.severity);
        if let Some(s) = offending_seq(f) {
            self.first_seq = Some(self.first_seq.map_or(s, |x| x.min(s)));
            self.last_seq = Some(self.last_seq.map_or(s, |x| x.max(s)));
        }
        self.findings.push(at);
    }

    /// `RULE (severity) ×N first #a last #b` — the head of a group's line.
    pub fn head(&self) -> String {
        let mut s = format!("{} ({}) ×{}", self.rule, self.severity, self.count);
        if let (Some(a), Some(b)) = (self.first_seq, self.last_seq) {
            s.push_str(&format!(" first #{a} last #{b}"));
        }
        if self.allowed {
            s.push_str(" (allowed)");
        }
        s
    }

    /// Worst first, then by the first frame.
    pub fn order(a: &Group, b: &Group) -> std::cmp::Ordering {
        b.severity
            .cmp(&a.severity)
            .then(
                a.first_seq
                    .unwrap_or(u64::MAX)
                    .cmp(&b.first_seq.unwrap_or(u64::MAX)),
            )
            .then(a.findings.first().cmp(&b.findings.first()))
    }
}

/// Groups findings as they come, O(1) each. `add` says whether the finding
/// opened a new group (the live `[finding]` line is printed then).
#[derive(Debug, Default)]
pub struct Grouper {
    index: HashMap<GroupKey, usize>,
    groups: Vec<Group>,
    seen: usize,
}

impl Grouper {
    /// Add the next finding (its index is the count added so far); returns
    /// its group's index (in order of opening) and whether it opened it.
    pub fn add(&mut self, f: &Finding) -> (usize, bool) {
        let at = self.seen;
        self.seen += 1;
        let key = GroupKey::of(f);
        match self.index.get(&key) {
            Some(&g) => {
                self.groups[g].add(f, at);
                (g, false)
            }
            None => {
                let g = self.groups.len();
                self.groups.push(Group::open(f, at));
                self.index.insert(key, g);
                (g, true)
            }
        }
    }

    /// The groups in order of opening.
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The groups, worst first, then by first frame.
    pub fn sorted(&self) -> Vec<Group> {
        let mut out = self.groups.clone();
        crate::sort::by(&mut out, Group::order);
        out
    }
}

/// The groups of a list of findings, worst first, then by first frame.
pub fn groups(findings: &[Finding]) -> Vec<Group> {
    let mut g = Grouper::default();
    for f in findings {
        g.add(f);
    }
    g.sorted()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: Rule, seqs: &[u64], token: Option<&str>) -> Finding {
        Finding {
            rule,
            severity: rule.severity(),
            seqs: seqs.to_vec(),
            token: token.map(|t| IdKey::Str(t.into())),
            request_id: None,
            message: format!("{rule} at {seqs:?}"),
            party: rule.party(),
            session: None,
        }
    }

    #[test]
    fn one_group_per_rule_call_and_party_worst_first() {
        let fs = vec![
            finding(Rule::ProgressExceedsTotal, &[1, 3], Some("a")),
            finding(Rule::ProgressAfterResponse, &[2, 5], Some("a")),
            finding(Rule::ProgressAfterResponse, &[2, 6], Some("a")),
            finding(Rule::ProgressAfterResponse, &[2, 9], Some("a")),
            finding(Rule::ProgressAfterResponse, &[10, 12], Some("b")),
            finding(Rule::ProgressExceedsTotal, &[1, 4], Some("a")),
        ];
        let g = groups(&fs);
        let heads: Vec<String> = g.iter().map(Group::head).collect();
        assert_eq!(
            heads,
            [
                "progress-after-response (error) ×3 first #5 last #9",
                "progress-after-response (error) ×1 first #12 last #12",
                "progress-exceeds-total (warning) ×2 first #3 last #4",
            ]
        );
        assert_eq!(g[0].findings, [1, 2, 3]);
        assert_eq!(g[2].findings, [0, 5]);
        assert_eq!(g[0].message, fs[1].message);
        assert_eq!(g[0].fix, Rule::ProgressAfterResponse.fix());
        let mut live = Grouper::default();
        let opened: Vec<bool> = fs.iter().map(|f| live.add(f).1).collect();
        assert_eq!(opened, [true, true, false, false, true, false]);
    }
}
