//! `check --format github` and `--format markdown`: the report where CI
//! shows it. GitHub workflow commands annotate, first, a committed file
//! when there is one (the baseline, at the drifted entry's line), else the
//! recording (`--trace`, `--record`) at the line of the frame that broke the
//! rule; a live session that is not recorded gets annotations without a
//! place. Markdown is a job summary: the verdict, the calls (progress count,
//! gaps, duration), the findings by cause with their fix, the drift.

use super::report::{Report, drift_line};
use crate::checks::Severity;
use crate::checks::groups::offending_seq;
use crate::cli::ci_text::{gh_command, md, md_group, ms};
use crate::cli::sarif::{Artifact, pinned_line};
use crate::protocol::sanitize::one_line;
use std::fmt::Write as _;

fn verdict(r: &Report) -> String {
    format!(
        "{}: {} error, {} warning, {} info; {} call{}",
        if r.summary.passed { "PASS" } else { "FAIL" },
        r.summary.error,
        r.summary.warning,
        r.summary.info,
        r.calls.len(),
        if r.calls.len() == 1 { "" } else { "s" }
    )
}

/// One command per finding group of warning or error (allowed rules as
/// notices), per incomplete call and per drift; a notice with the verdict.
pub fn github(r: &Report, art: Option<&Artifact<'_>>) -> String {
    let mut out = String::new();
    for g in &r.groups {
        let level = match (g.severity, g.allowed) {
            (Severity::Info, _) => continue,
            (_, true) => "notice",
            (Severity::Error, false) => "error",
            (Severity::Warning, false) if r.summary.strict => "error",
            (Severity::Warning, false) => "warning",
        };
        let first = g.findings.first().and_then(|i| r.findings.get(*i));
        let at = art
            .zip(first.and_then(offending_seq))
            .map(|(a, seq)| (a.uri.as_str(), a.lines.line(seq) as usize));
        let message = format!(
            "{}\nfix: {} ({})",
            one_line(&g.message),
            one_line(&g.fix),
            g.spec
        );
        out.push_str(&gh_command(level, at, &g.head(), &message));
    }
    for f in &r.failures {
        let what = f
            .tool
            .as_deref()
            .map_or(String::new(), |t| format!(" {}", one_line(t)));
        out.push_str(&gh_command(
            "error",
            None,
            &format!("call-completed{what}"),
            &one_line(&f.reason),
        ));
    }
    if let Some(b) = &r.baseline {
        let text = std::fs::read_to_string(&b.file).unwrap_or_default();
        for c in &b.drift {
            let at = pinned_line(&text, &c.kind, &c.name).map(|l| (b.file.as_str(), l));
            out.push_str(&gh_command(
                "error",
                at,
                "baseline-drift",
                &one_line(&drift_line(c)),
            ));
        }
    }
    if let Some(d) = &r.summary.damage {
        out.push_str(&gh_command("error", None, "trace-complete", &one_line(d)));
    }
    out.push_str(&gh_command("notice", None, "mcpscope check", &verdict(r)));
    out
}

pub fn markdown(r: &Report) -> String {
    let mut out = format!(
        "## mcpscope check: {}\n\n",
        if r.summary.passed {
            "passed ✅"
        } else {
            "failed ❌"
        }
    );
    let _ = writeln!(out, "{}\n", md(&verdict(r)));
    if !r.calls.is_empty() {
        out.push_str(
            "| call | tool | outcome | duration | progress | first progress | largest gap |\n",
        );
        out.push_str("|---|---|---|---:|---:|---:|---:|\n");
        for c in &r.calls {
            let outcome = serde_json::to_value(c.outcome)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} |",
                md(&c.request_id.to_string()),
                md(c.tool.as_deref().unwrap_or(&c.method)),
                outcome,
                ms(c.duration_ms),
                c.notifications,
                c.first_progress_ms.map_or_else(|| "–".into(), ms),
                c.inter_arrival_ms.map_or_else(|| "–".into(), |g| ms(g.max)),
            );
        }
    }
    if !r.groups.is_empty() {
        out.push_str("\n### Findings by cause\n\n");
        r.groups.iter().for_each(|g| out.push_str(&md_group(g)));
    }
    if !r.failures.is_empty() {
        out.push_str("\n### Calls that did not complete\n\n");
        for f in &r.failures {
            let _ = writeln!(out, "- {}", md(&f.reason));
        }
    }
    if let Some(b) = r.baseline.as_ref().filter(|b| !b.drift.is_empty()) {
        let _ = writeln!(out, "\n### Drift from {}\n", md(&b.file));
        for c in &b.drift {
            let _ = writeln!(out, "- {}", md(&drift_line(c)));
        }
    }
    out
}
