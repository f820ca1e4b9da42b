//! `mcpscope check`: run calls against a server (or read a recorded trace),
//! check every frame against the rule catalog, and report findings and
//! per-call statistics as text, JSON or JUnit XML.
//!
//! JSON shape (`--format json`), one object:
//! `{"mcpscope_check": 1, "source": {...}, "era": "handshake"|"stateless",
//!   "findings": [{rule, severity, party, seq: [..], token?, request_id?, message}],
//!   "groups": [{rule, severity, party, request_id?, token?, session?, count,
//!               first_seq?, last_seq?, message, findings: [index], fix, spec}],
//!   "calls": [{request_id, token?, method, tool?, request_seq, response_seq?,
//!              outcome, duration_ms, notifications, first_progress_ms?,
//!              inter_arrival_ms?: {min, median, max}, per_second?}],
//!   "failures": [{kind: timeout|connection|handshake|cancelled, reason, request_id?, tool?}],
//!   "summary": {error, warning, info, client: {error, warning, info},
//!               suppressed: {rule: n}, events, strict, passed,
//!               sessions_unknown?: {from_seq, left_out}},
//!   "baseline"?: {file, drift: [ListingChange as in `diff`]}}`
//!
//! `--baseline FILE` compares the tool, resource, resource template and
//! prompt definitions the session listed with the pinned ones
//! (`crate::diff::baseline`); any drift fails the check as an error
//! finding would (exit 1, `passed: false`). `--write-baseline FILE` pins
//! what the session listed. `--format sarif` is `super::sarif`.
//!
//! `groups` are the findings by cause (`crate::checks::groups`): text
//! prints one line per group and the fix once per rule, JUnit one test case
//! per group, SARIF one result per group; `findings` keeps every one.
//!
//! Both JSON and SARIF are written with bidi, C1 and zero-width characters
//! as `\u` escapes (`json_text::escape_invisible`): the same value, visibly.
//!
//! `party` is `server` or `client`: which side the rule judges (the
//! `client-` rules judge what the client, or a proxied host, sent).
//! `summary.client` counts the client findings (already in the totals).
//!
//! A call that did not complete (the server crashed, the call timed out, the
//! handshake failed) is a failure whatever the rules found: it is listed in
//! `failures`, `passed` is false, JUnit gets an `<error>` and text says FAIL.

mod ci;
mod listed;
pub mod report;

use super::call::{RequestOpts, build_args, fail, task_mode};
use super::connect::{Failure, handshake, observed, start_live};
use super::replay::read_lines_into;
use super::signals::{Signals, cancel_in_flight};
use super::spec::{ServerArgs, UsageError};
use crate::calls::Tracker;
use crate::calls::listings::Listings;
use crate::checks::stats::{FailureKind, Incomplete, call_stats_of, incomplete_calls};
use crate::checks::{CheckConfig, Finding, Party, Rule, Sessions, SeverityCounts, Verdict, groups};
use crate::client::{ClientError, Limits, Session, TokenPolicy};
use crate::diff::LineMap;
use crate::diff::baseline::Baseline;
use crate::event::Event;
use crate::protocol::Era;
use crate::protocol::sanitize::one_line;
use crate::trace::Store;
use clap::{Args, ValueEnum};
pub use report::{BaselineDrift, Report, Summary, drift_line, junit, text};
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Junit,
    Sarif,
    /// GitHub workflow commands: annotations at the baseline's or the
    /// recording's line.
    Github,
    /// A job summary, also appended to `$GITHUB_STEP_SUMMARY` when set.
    Markdown,
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
    /// Run the call as a task where the tool allows it (2025-11-25
    /// `execution.taskSupport` optional; automatic where it is required),
    /// or, at 2026-07-28, check that the server speaks the tasks extension.
    #[arg(long)]
    pub task: bool,
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
    #[command(flatten)]
    pub otlp: super::otlp::OtlpArgs,
    /// Check a recorded trace instead of running calls.
    #[arg(long, conflicts_with_all = ["tool", "record"])]
    pub trace: Option<PathBuf>,
    /// Report format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Warnings fail the check too.
    #[arg(long)]
    pub strict: bool,
    /// Findings of RULE are shown but never fail the check (repeatable):
    /// for one the server's author cannot fix, such as an SDK's.
    #[arg(long, value_name = "RULE")]
    pub allow: Vec<Rule>,
    /// Fail when the tool, resource or prompt definitions the session
    /// listed differ from those pinned in FILE (written by --write-baseline).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Pin the tool, resource and prompt definitions the session listed in
    /// FILE (with a server, --tool may then be left out: the server is only
    /// listed).
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    #[command(flatten)]
    pub thresholds: Thresholds,
    /// List only the findings about frames FILTER selects (docs/filters.md);
    /// every frame is still judged, and the verdict is the whole session's.
    // An argument of its own: a flattened `OnlyArgs` would show its help
    // ("Print only the events…"), not this.
    #[arg(long, value_name = "FILTER")]
    pub only: Option<String>,
}

impl CheckArgs {
    fn verdict(&self) -> Verdict {
        Verdict {
            strict: self.strict,
            allow: self.allow.clone(),
        }
    }
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
    /// progress-buffered: the longest gap between two notifications of a burst, in milliseconds.
    #[arg(long, default_value_t = 5, help_heading = "Rule thresholds")]
    pub buffered_gap_ms: u64,
    /// progress-buffered: minimum call duration in seconds.
    #[arg(long, default_value_t = 1.0, help_heading = "Rule thresholds")]
    pub buffered_min_secs: f64,
    /// progress-stalled: silence threshold in seconds.
    #[arg(long, default_value_t = 30.0, help_heading = "Rule thresholds")]
    pub stall_secs: f64,
    /// Treat the session as this era (default: inferred from the trace).
    #[arg(long, value_enum, help_heading = "Rule thresholds")]
    pub era: Option<EraArg>,
    /// client-cancel-unknown-request: a cancel within this many ms of the
    /// request's response raced it and is not reported.
    #[arg(long, default_value_t = 250, help_heading = "Rule thresholds")]
    pub cancel_race_ms: u64,
    /// progress-after-response and response-after-cancel: a message this
    /// many ms after the client's cancel was already on its way, and is not
    /// reported.
    #[arg(long, default_value_t = 1000, help_heading = "Rule thresholds")]
    pub cancel_grace_ms: u64,
    /// client-cancelled-during-progress: progress this many seconds before a cancel.
    #[arg(long, default_value_t = 2.0, help_heading = "Rule thresholds")]
    pub cancel_progress_secs: f64,
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
            buffered_gap_us: self.buffered_gap_ms * 1000,
            buffered_min_call_us: (pos(self.buffered_min_secs, "--buffered-min-secs")? * 1e6)
                as u64,
            stall_us: (pos(self.stall_secs, "--stall-secs")? * 1e6) as u64,
            cancel_race_us: self.cancel_race_ms * 1000,
            cancel_grace_us: self.cancel_grace_ms * 1000,
            cancel_progress_window_us: (pos(self.cancel_progress_secs, "--cancel-progress-secs")?
                * 1e6) as u64,
            era: self.era.map(|e| match e {
                EraArg::Handshake => Era::Handshake,
                EraArg::Stateless => Era::Stateless,
            }),
            max_per_key: self.max_per_key.max(1),
            ..CheckConfig::default()
        })
    }
}

/// Check every event of a store; returns the report.
pub fn check_store(store: &Store, cfg: CheckConfig, source: Value, verdict: &Verdict) -> Report {
    let mut run = CheckRun::new(cfg);
    for ev in store.range(0, store.next_seq()) {
        run.observe(&ev);
    }
    run.report(store, source, verdict, store.len(), store.evicted())
}

/// The rule engine fed one event at a time, so a trace read line by line
/// is checked as it is read, before the store's bound can evict an event.
pub struct CheckRun {
    checker: Sessions,
    findings: Vec<Finding>,
    /// The session went over HTTP; it authorized.
    http: bool,
    authorization: bool,
}

impl CheckRun {
    /// The era the checked session runs in, as far as it was followed.
    pub fn era(&self) -> crate::protocol::Era {
        self.checker.era()
    }

    pub fn new(cfg: CheckConfig) -> CheckRun {
        CheckRun {
            checker: Sessions::new(cfg),
            findings: Vec::new(),
            http: false,
            authorization: false,
        }
    }

    pub fn observe(&mut self, ev: &crate::trace::EventRef<'_>) {
        self.checker.observe(ev, &mut self.findings);
        // Frames on any channel but stdio's went over HTTP.
        if !self.http && matches!(ev.dir, crate::trace::Dir::In | crate::trace::Dir::Out) {
            self.http = ev.channel != "stdio";
        }
        if ev.dir == crate::trace::Dir::Meta
            && !(self.http && self.authorization)
            && let Some(e) = ev.event()
        {
            match e {
                Event::Http { .. } | Event::HttpError { .. } => self.http = true,
                Event::AuthHttp { .. } | Event::Auth { .. } | Event::AuthProblem { .. } => {
                    self.authorization = true
                }
                _ => {}
            }
        }
    }

    /// The findings over everything observed (the rules that wait for the
    /// end have judged), without the rest of the report.
    pub fn findings(self) -> Vec<Finding> {
        let CheckRun {
            mut checker,
            mut findings,
            ..
        } = self;
        checker.finish(&mut findings);
        findings
    }

    /// The report over everything observed; `events` is how many were,
    /// `unchecked` how many were evicted before the rules saw them (a check
    /// cannot vouch for those, so it does not pass).
    pub fn report(
        self,
        store: &Store,
        source: Value,
        verdict: &Verdict,
        events: u64,
        unchecked: u64,
    ) -> Report {
        let CheckRun {
            mut checker,
            mut findings,
            http,
            authorization,
        } = self;
        checker.finish(&mut findings);
        let counts = SeverityCounts::of(&findings);
        let client = SeverityCounts::of(findings.iter().filter(|f| f.party == Party::Client));
        // One pass builds the calls; both the statistics and the failures read them.
        let tracker = Tracker::of(store);
        let calls = call_stats_of(&tracker, store);
        let failures = incomplete_calls(&tracker);
        let passed = !findings.iter().any(|f| verdict.fails(f.rule, f.severity))
            && failures.is_empty()
            && unchecked == 0;
        Report {
            mcpscope_check: 1,
            source,
            era: match checker.era() {
                Era::Handshake => "handshake".into(),
                Era::Stateless => "stateless".into(),
            },
            has: [(http, "http"), (authorization, "authorization")]
                .into_iter()
                .filter(|(had, _)| *had)
                .map(|(_, what)| what.to_string())
                .collect(),
            calls,
            failures,
            summary: Summary {
                error: counts.error,
                warning: counts.warning,
                info: counts.info,
                client,
                suppressed: checker
                    .suppressed()
                    .iter()
                    .map(|(r, n)| (r.id().to_string(), *n))
                    .collect(),
                events,
                evicted: unchecked,
                strict: verdict.strict,
                allowed: verdict.allow.iter().map(|r| r.id().to_string()).collect(),
                passed,
                damage: None,
                sessions_unknown: checker.unknown(),
                only: None,
                not_listed: 0,
            },
            groups: groups(&findings)
                .into_iter()
                .map(|mut g| {
                    g.allowed = verdict.allows(g.rule);
                    g
                })
                .collect(),
            findings,
            baseline: None,
        }
    }
}

/// How long `check` waits for the tool listing it asks for after its calls.
pub const LISTING_LIMIT: Duration = Duration::from_secs(2);

pub async fn run(a: CheckArgs) -> i32 {
    // A filter that does not parse is a usage error before anything runs.
    let mut selected = match super::only::matcher(a.only.as_deref()) {
        Ok(m) => m.map(listed::Selected::new),
        Err(c) => return c,
    };
    let mut cfg = match a.thresholds.config() {
        Ok(c) => c,
        Err(e) => return fail(&Failure::Usage(e)),
    };
    if let Some(path) = &a.trace {
        if a.server.resolve().is_ok() {
            return fail(&Failure::Usage(UsageError(
                "--trace checks a recorded trace: give no server with it".into(),
            )));
        }
        return check_trace(&a, path, cfg).await;
    }
    let pinned = match read_baseline(&a) {
        Ok(b) => b,
        Err(c) => return c,
    };
    let lists_only = a.tool.is_none() && (a.baseline.is_some() || a.write_baseline.is_some());
    let Some(tool) = a.tool.clone().or_else(|| lists_only.then(String::new)) else {
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
    // mcpscope is the client: `--token none` and Ctrl-C are the user's choices.
    cfg.tokenless_by_choice = a.request.policy() == TokenPolicy::None;
    cfg.own_client = true;
    let otlp = match a.otlp.config() {
        Ok(c) => c,
        Err(e) => return fail(&Failure::Usage(e)),
    };
    let mut signals = Signals::install();
    // The findings are judged over the whole store at the end, and the
    // export sent then with them: neither runs live here.
    let mut live = match start_live(
        &a.server,
        a.record.as_deref(),
        limits,
        observed(&a.server),
        false,
    )
    .await
    {
        Ok(l) => l,
        Err(e) => return fail(&e),
    };
    let (session, trace, spec) = (live.session.clone(), live.trace.clone(), live.spec.clone());
    // What went wrong that the trace alone cannot say (a failed handshake).
    let mut session_failure = None;
    let calls = async {
        make_calls(
            &session,
            &a,
            &tool,
            &args,
            limits,
            lists_only,
            &mut session_failure,
        )
        .await
    };
    let mut code = tokio::select! {
        code = calls => code,
        stop = signals.recv() => {
            cancel_in_flight(&session, stop);
            stop.code
        }
    };
    live.stop_server(matches!(code, 0 | 1)).await;
    if live.receives() {
        let mut lines = crate::otel::lines::store_lines(&trace.read());
        lines.extend(live.missing_spans());
        lines.iter().for_each(|l| eprintln!("{l}"));
    }
    let ended = live.end(std::future::pending()).await;
    let recording_failed = ended.recording_error.map(|e| {
        eprintln!("[error] {}", crate::protocol::sanitize::one_line(&e));
    });
    let source = if lists_only {
        json!({"server": spec.name()})
    } else {
        json!({"server": spec.name(), "tool": tool, "arguments": args, "repeat": a.repeat})
    };
    let (mut report, listings, lines) = {
        let store = trace.read();
        let mut listings = Listings::default();
        let mut lines = LineMap::default();
        for ev in store.range(0, store.next_seq()) {
            listings.observe(&ev);
            if let Some(s) = selected.as_mut() {
                s.observe(&ev);
            }
        }
        // A recording has the header on line 1, then one event a line.
        lines.push(store.first_seq(), store.first_seq() + 2);
        (
            check_store(&store, cfg, source, &a.verdict()),
            listings,
            lines,
        )
    };
    if let Some(f) = session_failure {
        report.failures.insert(0, f);
        report.summary.passed = false;
    }
    // The whole session, judged: each finding joins its request's span.
    if let Some(cfg) = &otlp {
        let ctx = super::otlp::live_context(&trace, &spec, false);
        let folded = crate::otel::export::recorded::fold(&trace.read(), &report.findings, ctx);
        let deadline = crate::otel::export::deadline::session();
        if let Err(stop) = super::otlp::send_folded(folded, cfg, deadline, &mut signals).await {
            code = stop;
        }
    }
    if let Err(c) = apply_baseline(&a, pinned.as_ref(), &listings, &lines, &mut report) {
        // A session that failed keeps its own code.
        return if code == 0 { c } else { code };
    }
    if let Some(s) = selected {
        s.apply(&mut report);
    }
    let art = a.record.as_ref().map(|p| super::sarif::Artifact {
        uri: super::sarif::uri_of(&p.display().to_string()),
        lines: &lines,
    });
    emit(&report, a.format, art.as_ref());
    match code {
        0 if !report.summary.passed => 1,
        // The check ran, but the recording asked for is incomplete.
        0 if recording_failed.is_some() => 2,
        c => c,
    }
}

/// `--trace FILE`: check a recording, each event as it is read, against
/// the baseline when there is one; sent to OTLP when asked.
async fn check_trace(a: &CheckArgs, path: &std::path::Path, cfg: CheckConfig) -> i32 {
    // The store has a live session's bound; every event is checked as it
    // is read, before that bound could evict it. Who the client was is in
    // the header, read before the first event.
    let pinned = match read_baseline(a) {
        Ok(b) => b,
        Err(c) => return c,
    };
    let mut selected = match super::only::matcher(a.only.as_deref()) {
        Ok(m) => m.map(listed::Selected::new),
        Err(c) => return c,
    };
    let mut run: Option<CheckRun> = None;
    let mut events = 0u64;
    let mut listings = Listings::default();
    let mut lines = LineMap::default();
    let read = read_lines_into(
        path,
        crate::trace::StoreLimits::default(),
        |header, store, seq, line| {
            let run = run.get_or_insert_with(|| CheckRun::new(cfg.clone().for_recording(header)));
            if let Some(ev) = store.get(seq) {
                run.observe(&ev);
                if let Some(s) = selected.as_mut() {
                    s.observe(&ev);
                }
                listings.observe(&ev);
                lines.push(seq, line);
                events += 1;
            }
        },
    );
    let loaded = match read {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "[error] {}",
                crate::protocol::sanitize::one_line(&e.to_string())
            );
            return 2;
        }
    };
    let source = json!({"trace": path.display().to_string()});
    let run = run.unwrap_or_else(|| CheckRun::new(cfg.for_recording(&loaded.header)));
    let mut report = run.report(&loaded.store, source, &a.verdict(), events, 0);
    if let Some(d) = &loaded.damage {
        // What came after the cut is unknown, so the trace cannot pass.
        let why = format!("{}: {d}", path.display());
        eprintln!("[warning] {}", one_line(&why));
        report.summary.damage = Some(why);
        report.summary.passed = false;
    }
    if let Err(c) = apply_baseline(a, pinned.as_ref(), &listings, &lines, &mut report) {
        return c;
    }
    // A recording judged: sent as `export --otlp` sends it.
    let mut stopped = None;
    match a.otlp.config() {
        Ok(Some(cfg)) => {
            let ctx = crate::otel::export::Context::of_header(&loaded.header, None);
            let folded = crate::otel::export::recorded::fold(&loaded.store, &report.findings, ctx);
            let deadline = crate::otel::export::deadline::session();
            stopped = super::otlp::send_folded(folded, &cfg, deadline, &mut Signals::install())
                .await
                .err();
        }
        Ok(None) => {}
        Err(e) => return fail(&Failure::Usage(e)),
    }
    if let Some(s) = selected {
        s.apply(&mut report);
    }
    let art = super::sarif::Artifact {
        uri: super::sarif::uri_of(&path.display().to_string()),
        lines: &lines,
    };
    emit(&report, a.format, Some(&art));
    stopped.unwrap_or(if report.summary.passed { 0 } else { 1 })
}

/// The session's handshake and the tool's calls (`--repeat` times), then
/// its listings; the check's code so far.
async fn make_calls(
    session: &Session,
    a: &CheckArgs,
    tool: &str,
    args: &Value,
    limits: Limits,
    lists_only: bool,
    session_failure: &mut Option<Incomplete>,
) -> i32 {
    let mut code = 0;
    match handshake(session).await {
        Err(e) => {
            *session_failure = Some(Incomplete {
                kind: FailureKind::Handshake,
                reason: one_line(&e.to_string()).into_owned(),
                request_id: None,
                tool: None,
            });
            code = fail(&e);
        }
        Ok(_) => {
            a.request.apply_log_level(session, false).await;
            let policy = a.request.policy();
            let as_task = !lists_only
                && match task_mode(session, tool, a.task).await {
                    Ok(t) => t,
                    Err(c) => return c,
                };
            let repeat = if lists_only { 0 } else { a.repeat };
            for _ in 0..repeat {
                let outcome = if as_task {
                    session.call_tool_as_task(tool, args, &policy, limits).await
                } else {
                    session.call_tool(tool, args, &policy, limits).await
                };
                match outcome {
                    Ok(_) | Err(ClientError::Rpc { .. }) => {}
                    Err(e @ ClientError::Timeout { .. }) => {
                        eprintln!("[error] {}", one_line(&e.to_string()));
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
    // The listing is judged too (names, schemas), and the outputSchema
    // it declares judges the results already seen. Listed after the
    // calls, so the calls are made as they always were; a session that
    // failed is not asked again, and a listing that fails is in the
    // trace for the rules, not a failure of the check.
    let lists = session.server().is_some_and(|s| s.has_capability("tools"));
    if matches!(code, 0 | 1) && session_failure.is_none() && lists {
        // Bounded: a server that never answers costs the check this much.
        let _ = tokio::time::timeout(LISTING_LIMIT, session.list_tools()).await;
    }
    // Pinning (or checking a pin) lists the rest the server declares.
    let pins = a.baseline.is_some() || a.write_baseline.is_some();
    if matches!(code, 0 | 1) && session_failure.is_none() && pins {
        list_the_rest(session, limits).await;
    }
    if code != 3 {
        tokio::time::sleep(Duration::from_millis(a.settle_ms)).await;
    }
    code
}

/// The pinned definitions of `--baseline`, read before the session runs
/// (a file that cannot be read is a usage error: exit 2).
fn read_baseline(a: &CheckArgs) -> Result<Option<Baseline>, i32> {
    let Some(path) = &a.baseline else {
        return Ok(None);
    };
    Baseline::read(path).map(Some).map_err(|e| {
        eprintln!("[error] {}", one_line(&e.to_string()));
        2
    })
}

/// Compare with the pinned definitions (drift fails the report) and write
/// the new pin, as asked.
fn apply_baseline(
    a: &CheckArgs,
    pinned: Option<&Baseline>,
    listings: &Listings,
    lines: &LineMap,
    report: &mut Report,
) -> Result<(), i32> {
    if let (Some(b), Some(path)) = (pinned, &a.baseline) {
        let drift = b.drift(listings, &|s| lines.at(s));
        if !drift.is_empty() {
            report.summary.passed = false;
        }
        report.baseline = Some(BaselineDrift {
            file: path.display().to_string(),
            drift,
        });
    }
    if let Some(path) = &a.write_baseline {
        // A listing that never ended is refused as `request` refuses it.
        let b = Baseline::pin(listings).map_err(|why| {
            eprintln!(
                "[error] {}: nothing pinned in {}",
                one_line(&why.to_string()),
                one_line(&path.display().to_string())
            );
            3
        })?;
        if b.is_empty() {
            eprintln!(
                "[error] the session listed no tools, resources or prompts: nothing to pin in {}",
                one_line(&path.display().to_string())
            );
            return Err(2);
        }
        if let Err(e) = std::fs::write(path, b.to_text()) {
            eprintln!(
                "[error] cannot write baseline {}: {}",
                one_line(&path.display().to_string()),
                one_line(&e.to_string())
            );
            return Err(2);
        }
    }
    Ok(())
}

/// List resources, resource templates and prompts when the server declares
/// them (bounded; a failure is in the trace, not a failure of the check).
pub async fn list_the_rest(session: &crate::client::Session, limits: crate::client::Limits) {
    let (res, prompts) = session.server().map_or((false, false), |s| {
        (s.has_capability("resources"), s.has_capability("prompts"))
    });
    let mut methods = Vec::new();
    if res {
        methods.push(crate::protocol::methods::RESOURCES_LIST);
        methods.push(crate::protocol::methods::RESOURCE_TEMPLATES_LIST);
    }
    if prompts {
        methods.push(crate::protocol::methods::PROMPTS_LIST);
    }
    for m in methods {
        let mut cursor: Option<Value> = None;
        for _ in 0..100 {
            let params = cursor.take().map(|c| json!({"cursor": c}));
            let reply =
                tokio::time::timeout(LISTING_LIMIT, session.request(m, params, limits)).await;
            let Ok(Ok(reply)) = reply else { break };
            match reply.result.get("nextCursor") {
                Some(c) if !c.is_null() && c != "" => cursor = Some(c.clone()),
                _ => break,
            }
        }
    }
}

fn emit(report: &Report, format: Format, art: Option<&super::sarif::Artifact<'_>>) {
    // Server text (a tool name, a drifted description) may hold bidi, C1 or
    // zero-width characters: JSON and SARIF carry them as `\u` escapes, the
    // same value, as `call` and the baseline do.
    let escaped = crate::protocol::json_text::escape_invisible;
    let text = match format {
        Format::Json => escaped(&(serde_json::to_string_pretty(report).unwrap_or_default() + "\n")),
        Format::Text => text(report),
        Format::Junit => junit(report),
        Format::Sarif => escaped(&super::sarif::sarif(report, art)),
        // A job's annotations and its summary, from one run.
        Format::Github => {
            super::ci_text::step_summary(&ci::markdown(report));
            ci::github(report, art)
        }
        Format::Markdown => {
            let md = ci::markdown(report);
            super::ci_text::step_summary(&md);
            md
        }
    };
    let mut out = super::stdout::lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
