//! What `check` reports: the `--format json` document (`Report`), and
//! the text and JUnit forms of it. SARIF (`super::sarif`) writes the same
//! document; both name the report here, never the command.

use crate::checks::stats::{CallStats, Incomplete};
use crate::checks::{Finding, Group, Severity, SeverityCounts};
use crate::diff::listing::{ListingChange, Status};
use crate::protocol::IdKey;
use crate::protocol::sanitize::one_line;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The `--format json` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub mcpscope_check: u32,
    pub source: Value,
    pub era: String,
    /// What the session had that some rules need: `http`, `authorization`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub has: Vec<String>,
    pub findings: Vec<Finding>,
    /// The findings by cause: one group per rule, call (request id and
    /// token), party and host session, worst first, each with its count,
    /// first and last offending frame, fix and spec section, and the
    /// indices of its `findings`. Added to the report; `findings` still
    /// lists every one.
    #[serde(default)]
    pub groups: Vec<Group>,
    pub calls: Vec<CallStats>,
    /// Calls (or the session) that did not complete.
    #[serde(default)]
    pub failures: Vec<Incomplete>,
    pub summary: Summary,
    /// The comparison with `--baseline`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineDrift>,
}

/// How the session's definitions drift from the pinned ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BaselineDrift {
    pub file: String,
    pub drift: Vec<ListingChange>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
    /// The findings about the client, by severity (included above).
    #[serde(default)]
    pub client: SeverityCounts,
    /// Findings over the per-rule-and-key limit, counted but not listed.
    pub suppressed: BTreeMap<String, u64>,
    pub events: u64,
    /// Events the memory bound (`--max-store`) dropped before the check
    /// could see them: a session with any is not vouched for.
    #[serde(default)]
    pub evicted: u64,
    pub strict: bool,
    /// The rules `--allow` kept out of the verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed: Vec<String>,
    pub passed: bool,
    /// Where a checked trace was cut short: it never passes then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damage: Option<String>,
    /// An HTTP proxy's recording that names no host session, where a
    /// second may have begun: from that frame on only the rules judged from
    /// one frame were reported (`checks::Sessions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sessions_unknown: Option<crate::checks::SessionsUnknown>,
    /// `--only`: the filter that chose which findings are listed…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only: Option<String>,
    /// …and how many findings (counted above) it left out of the list.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub not_listed: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One drift line: `tool echo: description changed`.
pub fn drift_line(c: &ListingChange) -> String {
    let what = match c.change {
        Status::Added => "not pinned (added)".to_string(),
        Status::Removed => "pinned, no longer listed (removed)".to_string(),
        Status::Changed => {
            let fields: Vec<&str> = c.fields.iter().map(|f| f.field.as_str()).collect();
            format!("{} changed", fields.join(", "))
        }
        Status::NotListed => return format!("{}: {}", c.kind, c.name),
    };
    let mut s = format!("{} {}: {what}", c.kind, c.name);
    if !c.less_safe.is_empty() {
        s.push_str(&format!(" — less safe: {}", c.less_safe.join("; ")));
    }
    s
}

/// Human-readable report.
pub fn text(r: &Report) -> String {
    let mut s = String::new();
    // One line per cause; the fix once per rule.
    let mut fixed = std::collections::BTreeSet::new();
    for g in &r.groups {
        let _ = write!(s, "{}: {}", g.head(), one_line(&g.message));
        if let Some(id) = &g.session {
            let _ = write!(
                s,
                " [session {}]",
                crate::checks::finding::short_session(id)
            );
        }
        s.push('\n');
        if fixed.insert(g.rule) {
            let _ = writeln!(s, "  fix: {} ({})", g.fix, g.spec);
        }
    }
    if !r.groups.is_empty() {
        s.push('\n');
    }
    for c in &r.calls {
        let name = c.tool.as_deref().unwrap_or(&c.method);
        let _ = write!(
            s,
            "call id={} {} {}: {} ms, {} progress",
            c.request_id,
            one_line(name),
            serde_json::to_value(c.outcome)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            c.duration_ms,
            c.notifications
        );
        if let Some(t) = c.first_progress_ms {
            let _ = write!(s, ", first after {t} ms");
        }
        if let Some(g) = c.inter_arrival_ms {
            let _ = write!(
                s,
                ", gaps min/median/max {}/{}/{} ms",
                g.min, g.median, g.max
            );
        }
        if let Some(p) = c.per_second {
            let _ = write!(s, ", {p}/s");
        }
        s.push('\n');
    }
    for f in &r.failures {
        let _ = writeln!(s, "{}", failure_line(f));
    }
    if let Some(d) = &r.summary.damage {
        let _ = writeln!(s, "damaged trace: {}", one_line(d));
    }
    if let Some(b) = &r.baseline {
        if b.drift.is_empty() {
            let _ = writeln!(s, "baseline {}: no drift", one_line(&b.file));
        } else {
            let _ = writeln!(
                s,
                "baseline {}: {} definition(s) drifted",
                one_line(&b.file),
                b.drift.len()
            );
            for c in &b.drift {
                let at = c
                    .at_b
                    .map(|a| format!("  [line {}]", a.line))
                    .unwrap_or_default();
                let _ = writeln!(s, "  drift: {}{at}", one_line(&drift_line(c)));
            }
        }
    }
    if r.summary.evicted > 0 {
        let _ = writeln!(
            s,
            "[incomplete] {} events were evicted from memory (--max-store) before they could be checked; check the recording instead (`mcpscope check --trace FILE`)",
            r.summary.evicted
        );
    }
    if let Some(u) = &r.summary.sessions_unknown {
        let _ = writeln!(
            s,
            "[sessions unknown] this HTTP proxy recording does not tell host sessions apart (it was made before mcpscope recorded them) and a second host session may begin at #{}: from there only the rules judged from one frame were applied, {} finding(s) of the others left out as unsound; record the session again to judge it whole",
            u.from_seq, u.left_out
        );
    }
    if let Some(f) = &r.summary.only {
        let _ = writeln!(
            s,
            "[only] {}: {} about other frames not listed (the counts below are the whole session's)",
            one_line(f),
            match r.summary.not_listed {
                1 => "1 finding".to_string(),
                n => format!("{n} findings"),
            }
        );
    }
    let sup: u64 = r.summary.suppressed.values().sum();
    // A drift fails the check with no finding: the verdict says so, or it
    // would read `FAIL: 0 error(s), 0 warning(s)`.
    let drifted = r.baseline.as_ref().map_or(0, |b| b.drift.len());
    let _ = writeln!(
        s,
        "{}: {} error(s), {} warning(s), {} info{}{}; {} events checked{}{}",
        if r.summary.passed { "PASS" } else { "FAIL" },
        r.summary.error,
        r.summary.warning,
        r.summary.info,
        client_part(&r.summary.client),
        match drifted {
            0 => String::new(),
            1 => "; 1 definition drifted from the baseline".to_string(),
            n => format!("; {n} definitions drifted from the baseline"),
        },
        r.summary.events,
        if r.summary.evicted > 0 {
            format!(", {} evicted", r.summary.evicted)
        } else {
            String::new()
        },
        if sup > 0 {
            format!("; {sup} repeated findings not listed")
        } else {
            String::new()
        }
    );
    s
}

/// ` (client: 1 error(s), 0 warning(s), 0 info)` when findings judge the
/// client, so a reader sees which side to fix.
fn client_part(c: &SeverityCounts) -> String {
    if c.total() == 0 {
        return String::new();
    }
    format!(
        " (client: {} error(s), {} warning(s), {} info)",
        c.error, c.warning, c.info
    )
}

/// `incomplete: call id=1 t: the server was killed by signal 9 (SIGKILL)`.
fn failure_line(f: &Incomplete) -> String {
    let what = match (&f.request_id, &f.tool) {
        (Some(id), Some(t)) => format!("call id={} {}", id.to_value(), one_line(t)),
        (Some(id), None) => format!("call id={}", id.to_value()),
        _ => "session".to_string(),
    };
    format!("incomplete: {what}: {}", one_line(&f.reason))
}

/// Which call a group belongs to: by request id, else by token (the last
/// call with that token that started before the group's last frame).
fn call_of(r: &Report, g: &Group) -> Option<usize> {
    let last_seq = g
        .findings
        .iter()
        .filter_map(|i| r.findings.get(*i))
        .flat_map(|f| f.seqs.iter().copied())
        .max()
        .unwrap_or(0);
    if let Some(id) = &g.request_id
        && let Some(i) = r.calls.iter().position(|c| &c.request_id == id)
    {
        return Some(i);
    }
    let tok = g.token.as_ref()?;
    r.calls
        .iter()
        .enumerate()
        .filter(|(_, c)| c.token.as_ref() == Some(tok) && c.request_seq <= last_seq)
        .map(|(i, _)| i)
        .next_back()
}

pub(crate) fn xml(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            // Characters XML 1.0 cannot carry at all.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => o.push('\u{fffd}'),
            '\u{fffe}' | '\u{ffff}' => o.push('\u{fffd}'),
            // Bidi, C1 and zero-width characters as character references:
            // the same value to an XML reader, nothing a CI page renders
            // raw (as the JSON and SARIF reports write them as \u escapes).
            c if crate::protocol::sanitize::escape_in_json(c) => {
                let _ = write!(o, "&#x{:X};", c as u32);
            }
            c => o.push(c),
        }
    }
    o
}

/// JUnit XML: one test suite per call, with one test case for the call
/// (`call-completed`: an `<error>` when it did not complete) and one per
/// group of findings about it (named by the rule; its instances and the
/// fix in the body); then a `session` suite for the groups tied to no call
/// and a session that failed. Errors fail; warnings fail with `--strict`,
/// otherwise they pass with the finding in `system-out`; info passes the
/// same way. A report with nothing else has one passing `session` case, so
/// there is never no test case.
pub fn junit(r: &Report) -> String {
    let mut suites_of: Vec<(String, Vec<&Group>)> = r
        .calls
        .iter()
        .map(|c| {
            let name = c.tool.as_deref().unwrap_or(&c.method);
            (format!("call id={} {}", c.request_id, name), Vec::new())
        })
        .collect();
    suites_of.push(("session".into(), Vec::new()));
    let session = suites_of.len() - 1;
    for g in &r.groups {
        let i = call_of(r, g).unwrap_or(session);
        suites_of[i].1.push(g);
    }
    let mut suites = String::new();
    let (mut all_tests, mut all_failures, mut all_errors) = (0, 0, 0);
    let calls_named: Vec<&IdKey> = r.calls.iter().map(|c| &c.request_id).collect();
    let nothing_else = r.calls.is_empty()
        && r.groups.is_empty()
        && r.failures.is_empty()
        && r.summary.damage.is_none()
        && r.baseline.as_ref().is_none_or(|b| b.drift.is_empty());
    for (i, (name, gs)) in suites_of.iter().enumerate() {
        let incomplete: Vec<&Incomplete> = r
            .failures
            .iter()
            .filter(|f| match &f.request_id {
                Some(id) => calls_named.get(i).is_some_and(|c| c == &id),
                None => i == session,
            })
            .collect();
        let is_call = i != session;
        if !is_call && gs.is_empty() && incomplete.is_empty() && !nothing_else {
            continue;
        }
        let (mut n, mut failures) = (0, 0);
        let mut cases = String::new();
        if incomplete.is_empty() && (is_call || nothing_else) {
            n += 1;
            let case = if is_call { "call-completed" } else { "session" };
            let _ = writeln!(
                cases,
                "    <testcase classname=\"{}\" name=\"{case}\"/>",
                xml(name)
            );
        }
        // A call that did not complete is an error of its own test case.
        for f in &incomplete {
            n += 1;
            let kind = serde_json::to_value(f.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let _ = writeln!(
                cases,
                "    <testcase classname=\"{}\" name=\"call-completed\"><error type=\"{kind}\" message=\"{}\"/></testcase>",
                xml(name),
                xml(&one_line(&f.reason))
            );
        }
        for g in gs {
            n += 1;
            let mut body: String = g
                .findings
                .iter()
                .filter_map(|i| r.findings.get(*i))
                .map(|f| xml(&one_line(&f.to_string())) + "\n")
                .collect();
            body.push_str(&xml(&format!("fix: {} ({})", g.fix, g.spec)));
            body.push('\n');
            let _ = write!(
                cases,
                "    <testcase classname=\"{}\" name=\"{}\">",
                xml(name),
                g.rule.id()
            );
            let fails = !g.allowed
                && (g.severity == Severity::Error
                    || (r.summary.strict && g.severity == Severity::Warning));
            if fails {
                failures += 1;
                let _ = write!(
                    cases,
                    "<failure type=\"{}\" message=\"{}\">{}</failure>",
                    g.severity,
                    xml(&one_line(&format!("{}: {}", g.head(), g.message))),
                    body
                );
            } else {
                let _ = write!(cases, "<system-out>{body}</system-out>");
            }
            cases.push_str("</testcase>\n");
        }
        let errors = incomplete.len();
        all_tests += n;
        all_failures += failures;
        all_errors += errors;
        let _ = write!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{n}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"0\">\n{cases}  </testsuite>\n",
            xml(name)
        );
    }
    if let Some(b) = r.baseline.as_ref().filter(|b| !b.drift.is_empty()) {
        // The drift fails one test case of a suite of its own.
        all_tests += 1;
        all_failures += 1;
        let body: String = b
            .drift
            .iter()
            .map(|c| xml(&one_line(&drift_line(c))) + "\n")
            .collect();
        let _ = write!(
            suites,
            "  <testsuite name=\"baseline\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">\n    <testcase classname=\"baseline\" name=\"baseline-drift\"><failure type=\"drift\" message=\"{} definition(s) drifted from {}\">{body}</failure></testcase>\n  </testsuite>\n",
            b.drift.len(),
            xml(&one_line(&b.file))
        );
    }
    if let Some(d) = &r.summary.damage {
        // A suite of its own: the cut is no rule's finding, yet it fails the run.
        all_tests += 1;
        all_failures += 1;
        let m = xml(&one_line(d));
        let _ = write!(
            suites,
            "  <testsuite name=\"trace\" tests=\"1\" failures=\"1\" errors=\"0\" skipped=\"0\">\n    <testcase classname=\"trace\" name=\"trace-complete\"><failure type=\"damage\" message=\"{m}\">{m}</failure></testcase>\n  </testsuite>\n"
        );
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcpscope check\" tests=\"{all_tests}\" failures=\"{all_failures}\" errors=\"{all_errors}\" skipped=\"0\">\n{suites}</testsuites>\n",
    )
}
