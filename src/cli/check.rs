//! `mcpscope check`: run calls against a server (or read a recorded trace),
//! check every frame against the rule catalog, and report findings and
//! per-call statistics as text, JSON or JUnit XML.
//!
//! JSON shape (`--format json`), one object:
//! `{"mcpscope_check": 1, "source": {...}, "era": "handshake"|"stateless",
//!   "findings": [{rule, severity, seq: [..], token?, request_id?, message}],
//!   "calls": [{request_id, token?, method, tool?, request_seq, response_seq?,
//!              outcome, duration_ms, notifications, first_progress_ms?,
//!              inter_arrival_ms?: {min, median, max}, per_second?}],
//!   "summary": {error, warning, info, suppressed: {rule: n}, events, strict, passed}}`

use super::call::{RequestOpts, build_args, fail};
use super::connect::{Failure, connect, handshake};
use super::replay::load;
use super::spec::{ServerArgs, UsageError};
use crate::checks::stats::{CallStats, call_stats};
use crate::checks::{CheckConfig, Checker, Finding, Rule, Severity, SeverityCounts};
use crate::client::ClientError;
use crate::protocol::Era;
use crate::protocol::sanitize::one_line;
use crate::trace::Store;
use clap::{Args, ValueEnum};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Junit,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum EraArg {
    Handshake,
    Stateless,
}

#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Tool to call (with a server).
    #[arg(long)]
    pub tool: Option<String>,
    /// Arguments as a JSON object.
    #[arg(long)]
    pub args: Option<String>,
    /// One argument KEY=VALUE (VALUE parsed as JSON when it parses, else a string).
    #[arg(short = 'a', long = "arg")]
    pub arg: Vec<String>,
    #[command(flatten)]
    pub request: RequestOpts,
    /// Run the call this many times, one after the other.
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Keep listening this long after the last call before disconnecting,
    /// so notifications a server sends after its response are caught.
    #[arg(long, default_value_t = 200)]
    pub settle_ms: u64,
    /// Record the session as a JSONL trace.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Check a recorded trace instead of running calls.
    #[arg(long, conflicts_with_all = ["tool", "record"])]
    pub trace: Option<PathBuf>,
    /// Report format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Warnings fail the check too.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub thresholds: Thresholds,
}

/// Rule thresholds (defaults as in DESIGN §5).
#[derive(Args, Debug, Clone)]
pub struct Thresholds {
    /// progress-flood: notifications per second a token may sustain.
    #[arg(long, default_value_t = 50.0, help_heading = "Rule thresholds")]
    pub flood_rate: f64,
    /// progress-flood: length of the sliding window in milliseconds.
    #[arg(long, default_value_t = 1000, help_heading = "Rule thresholds")]
    pub flood_window_ms: u64,
    /// progress-buffered: burst span in milliseconds.
    #[arg(long, default_value_t = 50, help_heading = "Rule thresholds")]
    pub buffered_window_ms: u64,
    /// progress-buffered: minimum call duration in seconds.
    #[arg(long, default_value_t = 1.0, help_heading = "Rule thresholds")]
    pub buffered_min_secs: f64,
    /// progress-stalled: silence threshold in seconds.
    #[arg(long, default_value_t = 30.0, help_heading = "Rule thresholds")]
    pub stall_secs: f64,
    /// Treat the session as this era (default: inferred from the trace).
    #[arg(long, value_enum, help_heading = "Rule thresholds")]
    pub era: Option<EraArg>,
    /// Findings reported per rule and token/request; further ones are counted.
    #[arg(long, default_value_t = 10, help_heading = "Rule thresholds")]
    pub max_per_key: u32,
}

impl Thresholds {
    pub fn config(&self) -> Result<CheckConfig, UsageError> {
        let pos = |v: f64, flag: &str| {
            if v.is_finite() && v >= 0.0 {
                Ok(v)
            } else {
                Err(UsageError(format!("{flag} must be a non-negative number")))
            }
        };
        if !(self.flood_rate.is_finite() && self.flood_rate > 0.0) {
            return Err(UsageError("--flood-rate must be a positive number".into()));
        }
        Ok(CheckConfig {
            flood_rate: self.flood_rate,
            flood_window_us: self.flood_window_ms.max(1) * 1000,
            buffered_window_us: self.buffered_window_ms * 1000,
            buffered_min_call_us: (pos(self.buffered_min_secs, "--buffered-min-secs")? * 1e6)
                as u64,
            stall_us: (pos(self.stall_secs, "--stall-secs")? * 1e6) as u64,
            era: self.era.map(|e| match e {
                EraArg::Handshake => Era::Handshake,
                EraArg::Stateless => Era::Stateless,
            }),
            max_per_key: self.max_per_key.max(1),
            ..CheckConfig::default()
        })
    }
}

/// The `--format json` document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub mcpscope_check: u32,
    pub source: Value,
    pub era: String,
    pub findings: Vec<Finding>,
    pub calls: Vec<CallStats>,
    pub summary: Summary,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
    /// Findings over the per-rule-and-key limit, counted but not listed.
    pub suppressed: BTreeMap<String, u64>,
    pub events: u64,
    /// Events the memory bound (`--max-store`) dropped before the check
    /// could see them: a session with any is not vouched for.
    #[serde(default)]
    pub evicted: u64,
    pub strict: bool,
    pub passed: bool,
}

/// Check every event of a store; returns the report.
pub fn check_store(store: &Store, cfg: CheckConfig, source: Value, strict: bool) -> Report {
    let mut checker = Checker::new(cfg);
    let mut findings = Vec::new();
    for ev in store.range(0, store.next_seq()) {
        checker.observe(&ev, &mut findings);
    }
    checker.finish(&mut findings);
    let counts = SeverityCounts::of(&findings);
    let passed = counts.error == 0 && !(strict && counts.warning > 0) && store.evicted() == 0;
    Report {
        mcpscope_check: 1,
        source,
        era: match checker.era() {
            Era::Handshake => "handshake".into(),
            Era::Stateless => "stateless".into(),
        },
        calls: call_stats(store),
        summary: Summary {
            error: counts.error,
            warning: counts.warning,
            info: counts.info,
            suppressed: checker
                .suppressed()
                .iter()
                .map(|(r, n)| (r.id().to_string(), *n))
                .collect(),
            events: store.len(),
            evicted: store.evicted(),
            strict,
            passed,
        },
        findings,
    }
}

pub async fn run(a: CheckArgs) -> i32 {
    let cfg = match a.thresholds.config() {
        Ok(c) => c,
        Err(e) => return fail(&Failure::Usage(e)),
    };
    if let Some(path) = &a.trace {
        if a.server.resolve().is_ok() {
            return fail(&Failure::Usage(UsageError(
                "--trace checks a recorded trace: give no server with it".into(),
            )));
        }
        let store = match load(path) {
            Ok((_, s)) => s,
            Err(e) => {
                eprintln!(
                    "[error] {}",
                    crate::protocol::sanitize::one_line(&e.to_string())
                );
                return 2;
            }
        };
        let report = check_store(
            &store,
            cfg,
            json!({"trace": path.display().to_string()}),
            a.strict,
        );
        emit(&report, a.format);
        return if report.summary.passed { 0 } else { 1 };
    }
    let Some(tool) = a.tool.clone() else {
        return fail(&Failure::Usage(UsageError(
            "check needs --tool NAME (with a server) or --trace FILE".into(),
        )));
    };
    let args = match build_args(a.args.as_deref(), &a.arg) {
        Ok(v) => v,
        Err(e) => return fail(&Failure::Usage(e)),
    };
    let limits = match a.request.limits() {
        Ok(l) => l,
        Err(e) => return fail(&Failure::Usage(e)),
    };
    if a.repeat == 0 {
        return fail(&Failure::Usage(UsageError(
            "--repeat must be at least 1".into(),
        )));
    }
    let (session, trace, spec) = match connect(&a.server, a.record.as_deref()).await {
        Ok(x) => x,
        Err(e) => return fail(&e),
    };
    let mut code = 0;
    match handshake(&session).await {
        Err(e) => code = fail(&e),
        Ok(_) => {
            a.request.apply_log_level(&session).await;
            let policy = a.request.policy();
            for _ in 0..a.repeat {
                match session.call_tool(&tool, &args, &policy, limits).await {
                    Ok(_) | Err(ClientError::Rpc { .. }) => {}
                    Err(e @ ClientError::Timeout { .. }) => {
                        eprintln!(
                            "[error] {}",
                            crate::protocol::sanitize::one_line(&e.to_string())
                        );
                        code = 4;
                    }
                    Err(e) => {
                        code = fail(&Failure::Client(e));
                        break;
                    }
                }
            }
        }
    }
    if code != 3 {
        tokio::time::sleep(Duration::from_millis(a.settle_ms)).await;
    }
    session.shutdown().await;
    if let Some(e) = trace.read().recorder_error() {
        eprintln!("[error] {}", crate::protocol::sanitize::one_line(e));
    }
    let source =
        json!({"server": spec.name(), "tool": tool, "arguments": args, "repeat": a.repeat});
    let report = {
        let store = trace.read();
        check_store(&store, cfg, source, a.strict)
    };
    emit(&report, a.format);
    match code {
        0 if !report.summary.passed => 1,
        c => c,
    }
}

fn emit(report: &Report, format: Format) {
    let text = match format {
        Format::Json => serde_json::to_string_pretty(report).unwrap_or_default() + "\n",
        Format::Text => text(report),
        Format::Junit => junit(report),
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Human-readable report.
pub fn text(r: &Report) -> String {
    let mut s = String::new();
    for f in &r.findings {
        let _ = writeln!(s, "{}", one_line(&f.to_string()));
    }
    if !r.findings.is_empty() {
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
    if r.summary.evicted > 0 {
        let _ = writeln!(
            s,
            "[incomplete] {} events were evicted from memory (--max-store) before they could be checked; check the recording instead (`mcpscope check --trace FILE`)",
            r.summary.evicted
        );
    }
    let sup: u64 = r.summary.suppressed.values().sum();
    let _ = writeln!(
        s,
        "{}: {} error(s), {} warning(s), {} info; {} events checked{}{}",
        if r.summary.passed { "PASS" } else { "FAIL" },
        r.summary.error,
        r.summary.warning,
        r.summary.info,
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

/// Which call a finding belongs to: by request id, else by token (the last
/// call with that token that started before the finding's frames).
fn call_of(r: &Report, f: &Finding) -> Option<usize> {
    let last_seq = f.seqs.iter().copied().max().unwrap_or(0);
    if let Some(id) = &f.request_id
        && let Some(i) = r.calls.iter().position(|c| &c.request_id == id)
    {
        return Some(i);
    }
    let tok = f.token.as_ref()?;
    r.calls
        .iter()
        .enumerate()
        .filter(|(_, c)| c.token.as_ref() == Some(tok) && c.request_seq <= last_seq)
        .map(|(i, _)| i)
        .next_back()
}

fn xml(s: &str) -> String {
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
            c => o.push(c),
        }
    }
    o
}

/// JUnit XML: one test suite per call (plus `session` for findings tied to
/// no call), one test case per rule. Errors fail; warnings fail with
/// `--strict`, otherwise they pass with the finding in `system-out`; rules
/// of another era are skipped.
pub fn junit(r: &Report) -> String {
    let mut groups: Vec<(String, Vec<&Finding>)> = r
        .calls
        .iter()
        .map(|c| {
            let name = c.tool.as_deref().unwrap_or(&c.method);
            (format!("call id={} {}", c.request_id, name), Vec::new())
        })
        .collect();
    groups.push(("session".into(), Vec::new()));
    let session = groups.len() - 1;
    for f in &r.findings {
        let i = call_of(r, f).unwrap_or(session);
        groups[i].1.push(f);
    }
    let stateless = r.era == "stateless";
    let mut suites = String::new();
    let (mut all_tests, mut all_failures, mut all_skipped) = (0, 0, 0);
    for (name, fs) in &groups {
        let (mut failures, mut skipped) = (0, 0);
        let mut cases = String::new();
        for rule in Rule::ALL {
            let mine: Vec<&&Finding> = fs.iter().filter(|f| f.rule == rule).collect();
            let _ = write!(
                cases,
                "    <testcase classname=\"{}\" name=\"{}\">",
                xml(name),
                rule.id()
            );
            if rule.stateless_only() && !stateless {
                skipped += 1;
                cases.push_str("<skipped message=\"applies to 2026-07-28 sessions only\"/>");
            } else if !mine.is_empty() {
                let body: String = mine
                    .iter()
                    .map(|f| xml(&one_line(&f.to_string())) + "\n")
                    .collect();
                let fails = rule.severity() == Severity::Error
                    || (r.summary.strict && rule.severity() == Severity::Warning);
                if fails {
                    failures += 1;
                    let _ = write!(
                        cases,
                        "<failure type=\"{}\" message=\"{}\">{}</failure>",
                        rule.severity(),
                        xml(&one_line(&mine[0].message)),
                        body
                    );
                } else {
                    let _ = write!(cases, "<system-out>{body}</system-out>");
                }
            }
            cases.push_str("</testcase>\n");
        }
        let n = Rule::ALL.len();
        all_tests += n;
        all_failures += failures;
        all_skipped += skipped;
        let _ = write!(
            suites,
            "  <testsuite name=\"{}\" tests=\"{n}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">\n{cases}  </testsuite>\n",
            xml(name)
        );
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mcpscope check\" tests=\"{all_tests}\" failures=\"{all_failures}\" errors=\"0\" skipped=\"{all_skipped}\">\n{suites}</testsuites>\n",
    )
}
