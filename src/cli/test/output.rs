//! `mcpscope test`'s report: text for people, JSON, JUnit XML (one test
//! case per case), GitHub workflow commands that annotate the failing
//! expectation's line, and a Markdown summary (also appended to
//! `$GITHUB_STEP_SUMMARY` when that is set). Server text is one line,
//! escaped for the format it lands in.

use super::super::ci_text::{gh_data, gh_prop, md, md_group, ms};
use crate::checks::groups::Group;
use crate::protocol::sanitize::one_line;
use crate::suite::{CaseResult, Run};
use clap::ValueEnum;
use std::fmt::Write as _;

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Junit,
    Github,
    Markdown,
    Sarif,
}

pub fn emit(run: &Run, format: Format) {
    let text = match format {
        Format::Text => text(run),
        Format::Json => crate::protocol::json_text::escape_invisible(
            &(serde_json::to_string_pretty(run).unwrap_or_default() + "\n"),
        ),
        Format::Junit => junit(run),
        Format::Sarif => crate::protocol::json_text::escape_invisible(&sarif(run)),
        // A job's annotations and its summary, from one run.
        Format::Github => {
            super::super::ci_text::step_summary(&markdown(run));
            github(run)
        }
        Format::Markdown => {
            let md = markdown(run);
            super::super::ci_text::step_summary(&md);
            md
        }
    };
    super::super::stdout::write(text.as_bytes());
}

/// What a case's calls showed, in a few words.
fn seen(c: &CaseResult) -> String {
    let s = &c.seen;
    // The pinned definitions are a listing, not a call.
    if c.tool.is_empty() && s.calls == 0 {
        return ms(c.duration_ms);
    }
    let mut out = format!("{} call{}", s.calls, if s.calls == 1 { "" } else { "s" });
    let progress: u64 = s.progress.iter().sum();
    let _ = write!(
        out,
        " · {progress} progress · {} log{}",
        s.logs,
        if s.logs == 1 { "" } else { "s" }
    );
    if let Some(g) = s.max_gap_ms {
        let _ = write!(out, " · max gap {}", ms(g));
    }
    let _ = write!(out, " · {}", ms(c.duration_ms));
    out
}

/// The finding groups above info that did not fail the case.
fn not_failing(c: &CaseResult) -> impl Iterator<Item = &Group> {
    c.groups.iter().filter(|g| {
        g.severity != crate::checks::Severity::Info
            && !c
                .failures
                .iter()
                .any(|f| f.fix.is_some() && f.message.contains(g.rule.id()))
    })
}

fn summary_line(run: &Run) -> String {
    let n = run.cases.len();
    let passed = run.passed();
    format!(
        "{n} case{}: {passed} passed, {} failed",
        if n == 1 { "" } else { "s" },
        n - passed
    )
}

pub fn text(run: &Run) -> String {
    let mut out = String::new();
    for c in &run.cases {
        let _ = writeln!(
            out,
            "{}  {}:{}  {}  ({})",
            if c.passed { "PASS" } else { "FAIL" },
            c.file,
            c.line,
            one_line(&c.name),
            seen(c)
        );
        for f in &c.failures {
            let _ = writeln!(
                out,
                "      {}:{}: {}: {}",
                c.file,
                f.line,
                f.what,
                one_line(&f.message)
            );
            if let Some(fix) = &f.fix {
                let _ = writeln!(out, "        fix: {}", one_line(fix));
            }
        }
        // Warnings (and allowed rules) that did not fail the case, with their fix.
        for g in not_failing(c) {
            let _ = writeln!(out, "      [{}] {}", g.head(), one_line(&g.message));
            let _ = writeln!(out, "        fix: {}", one_line(&g.fix));
        }
    }
    let _ = writeln!(out, "{}", summary_line(run));
    out
}

pub fn junit(run: &Run) -> String {
    use super::super::check::report::xml;
    let mut files: Vec<&str> = Vec::new();
    for c in &run.cases {
        if !files.contains(&c.file.as_str()) {
            files.push(&c.file);
        }
    }
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let failed = run.cases.len() - run.passed();
    let _ = writeln!(
        out,
        "<testsuites name=\"mcpscope test\" tests=\"{}\" failures=\"{failed}\">",
        run.cases.len()
    );
    for file in files {
        let cases: Vec<&CaseResult> = run.cases.iter().filter(|c| c.file == file).collect();
        let failures = cases.iter().filter(|c| !c.passed).count();
        let time: f64 = cases.iter().map(|c| c.duration_ms).sum::<f64>() / 1000.0;
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" time=\"{time:.3}\">",
            xml(file),
            cases.len()
        );
        for c in cases {
            let _ = write!(
                out,
                "    <testcase name=\"{}\" classname=\"{}\" file=\"{}\" line=\"{}\" time=\"{:.3}\"",
                xml(&one_line(&c.name)),
                xml(file),
                xml(file),
                c.line,
                c.duration_ms / 1000.0
            );
            if c.passed {
                out.push_str("/>\n");
                continue;
            }
            let first = c.failures.first().map_or_else(
                || "failed".to_string(),
                |f| format!("{}: {}", f.what, f.message),
            );
            let mut body = String::new();
            for f in &c.failures {
                let _ = writeln!(
                    body,
                    "{}:{}: {}: {}",
                    c.file,
                    f.line,
                    f.what,
                    one_line(&f.message)
                );
            }
            for g in &c.groups {
                let _ = writeln!(
                    body,
                    "[{}] {}\nfix: {} ({})",
                    g.head(),
                    one_line(&g.message),
                    one_line(&g.fix),
                    g.spec
                );
            }
            let _ = writeln!(
                out,
                ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>",
                xml(&one_line(&first)),
                xml(&body)
            );
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// GitHub workflow commands: one `::error` per unmet expectation, at its
/// line; one per failing finding group (with its fix), at the case.
pub fn github(run: &Run) -> String {
    let mut out = String::new();
    for c in run.cases.iter().filter(|c| !c.passed) {
        let title = gh_prop(&format!("mcpscope test: {}", one_line(&c.name)));
        for f in &c.failures {
            let fix = f
                .fix
                .as_deref()
                .map(|x| format!("\nfix: {}", one_line(x)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "::error file={},line={},title={title}::{}",
                gh_prop(&c.file),
                f.line,
                gh_data(&format!("{}: {}{fix}", f.what, one_line(&f.message)))
            );
        }
    }
    for c in &run.cases {
        for g in not_failing(c) {
            let _ = writeln!(
                out,
                "::warning file={},line={},title={}::{}",
                gh_prop(&c.file),
                c.line,
                gh_prop(&format!("{} ({})", g.rule, g.severity)),
                gh_data(&format!(
                    "{}\nfix: {}",
                    one_line(&g.message),
                    one_line(&g.fix)
                ))
            );
        }
    }
    let _ = writeln!(
        out,
        "::notice title=mcpscope test::{}",
        gh_data(&summary_line(run))
    );
    out
}

pub fn markdown(run: &Run) -> String {
    let failed = run.cases.len() - run.passed();
    let mut out = format!(
        "## mcpscope test: {}\n\n",
        if failed == 0 {
            format!("all {} passed ✅", run.cases.len())
        } else {
            format!("{failed} of {} failed ❌", run.cases.len())
        }
    );
    out.push_str("| | case | tool | calls | progress | logs | p50 | p95 | max gap | findings |\n");
    out.push_str("|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
    let opt = |v: Option<f64>| v.map_or_else(|| "–".to_string(), ms);
    for c in &run.cases {
        let findings: usize = c.groups.iter().map(|g| g.count).sum();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {findings} |",
            if c.passed { "✅" } else { "❌" },
            md(&c.name),
            md(&c.tool),
            c.seen.calls,
            c.seen
                .progress
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            c.seen.logs,
            opt(c.seen.p50_ms),
            opt(c.seen.p95_ms),
            opt(c.seen.max_gap_ms),
        );
    }
    for c in run
        .cases
        .iter()
        .filter(|c| !c.passed || !c.groups.is_empty())
    {
        let _ = write!(
            out,
            "\n### {} {} ({}:{})\n\n",
            if c.passed { "✅" } else { "❌" },
            md(&c.name),
            md(&c.file),
            c.line
        );
        for f in &c.failures {
            let _ = writeln!(
                out,
                "- line {}: **{}**: {}",
                f.line,
                md(&f.what),
                md(&f.message)
            );
        }
        if !c.groups.is_empty() {
            out.push_str("\nFindings by cause:\n\n");
            c.groups.iter().for_each(|g| out.push_str(&md_group(g)));
        }
    }
    let _ = writeln!(out, "\n{}", summary_line(run));
    out
}

/// SARIF 2.1.0: a result per failed expectation, located at its line in
/// the test file (the committed file); a finding that failed a case under
/// its catalog rule (with the rule's fix as help), the others under
/// `test-expectation`, a case whose calls did not complete under
/// `call-completed`; the warnings that did not fail a case as warnings, at
/// the case's line.
pub fn sarif(run: &Run) -> String {
    use super::super::sarif::{catalog_rules, level_of, uri_of};
    use serde_json::{Value, json};
    let mut rules = catalog_rules();
    rules.push(json!({
        "id": "test-expectation",
        "shortDescription": {"text": "an expectation of a test file that its case did not meet"},
        "defaultConfiguration": {"level": "error"},
    }));
    rules.push(json!({
        "id": "call-completed",
        "shortDescription": {"text": "a call that did not complete (timeout, the server exited, the connection failed): never a pass"},
        "defaultConfiguration": {"level": "error"},
    }));
    let index_of = |id: &str| rules.iter().position(|r| r["id"] == id);
    let at = |file: &str, line: usize| {
        json!([{"physicalLocation": {
            "artifactLocation": {"uri": uri_of(file)},
            "region": {"startLine": line.max(1)},
        }}])
    };
    let mut results: Vec<Value> = Vec::new();
    let mut files: Vec<&str> = Vec::new();
    for c in &run.cases {
        if !files.contains(&c.file.as_str()) {
            files.push(&c.file);
        }
        for f in &c.failures {
            let id = match (&f.rule, f.what.as_str()) {
                (Some(r), _) => r.as_str(),
                (None, "call" | "session" | "server") => "call-completed",
                _ => "test-expectation",
            };
            let mut res = json!({
                "ruleId": id,
                "level": "error",
                "message": {"text": format!("{}: {}: {}", one_line(&c.name), f.what, one_line(&f.message))},
                "locations": at(&c.file, f.line),
                "properties": {"case": c.name, "expectation": f.what},
            });
            if let Some(i) = index_of(id) {
                res["ruleIndex"] = i.into();
            }
            results.push(res);
        }
        for g in not_failing(c) {
            let mut res = json!({
                "ruleId": g.rule.id(),
                "level": level_of(g.severity),
                "message": {"text": format!("{}: {} (×{})", one_line(&c.name), one_line(&g.message), g.count)},
                "locations": at(&c.file, c.line),
                "properties": {"case": c.name},
            });
            if let Some(i) = index_of(g.rule.id()) {
                res["ruleIndex"] = i.into();
            }
            results.push(res);
        }
    }
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "mcpscope", "version": env!("CARGO_PKG_VERSION"), "rules": rules}},
            "results": results,
            "artifacts": files.iter().map(|f| json!({"location": {"uri": uri_of(f)}})).collect::<Vec<_>>(),
            "invocations": [{"executionSuccessful": true}],
        }],
    });
    serde_json::to_string_pretty(&log).unwrap_or_default() + "\n"
}
