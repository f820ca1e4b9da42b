//! `mcpscope test`: run test files (docs/testing.md) — each case's calls
//! against a fresh server (or one shared by the file's cases), judged by
//! the case's expectations and by the protocol checks — and report per case
//! for people and for CI (`output`). `--from TRACE` writes a test file from
//! a recording (`crate::suite::from_trace`).

mod output;
mod pin;

use super::call::{RequestOpts, fail};
use super::check::check_store;
use super::connect::{handshake, observed, start_live};
use super::signals::{Signals, cancel_in_flight};
use super::spec::{ServerArgs, UsageError};
use crate::calls::Tracker;
use crate::checks::stats::call_stats_of;
use crate::checks::{CheckConfig, Finding, Verdict, groups};
use crate::client::{ClientError, Session, TokenPolicy};
use crate::protocol::sanitize::one_line;
use crate::suite::expect::{Window, judge};
use crate::suite::file::{self, Case, Server, TestFile, line_of};
use crate::suite::{CaseResult, Failure as Miss, Run};
use clap::Args;
pub use output::Format;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Args, Debug, Clone)]
pub struct TestArgs {
    /// Test files, or directories (every `*.toml` file in one, by name).
    #[arg(value_name = "PATH", required_unless_present = "from")]
    pub paths: Vec<PathBuf>,
    /// Write a test file from a recorded trace instead: one case per call,
    /// its expectations what the recording shows (loose where timing varies).
    #[arg(long, value_name = "TRACE", conflicts_with = "paths")]
    pub from: Option<PathBuf>,
    /// Where `--from` writes the test file (default: stdout).
    #[arg(short, long, value_name = "FILE", requires = "from")]
    pub output: Option<PathBuf>,
    /// Report format. `github`: workflow commands annotating the failing
    /// expectation's line; `markdown`: a summary, also appended to
    /// `$GITHUB_STEP_SUMMARY` when that is set.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Run only the cases whose name contains this text.
    #[arg(long, value_name = "TEXT")]
    pub case: Option<String>,
    /// Write each case's session as its golden recording (beside the test
    /// file: `STEM.golden/NAME.jsonl`, or the case's `golden`) and the
    /// server's definitions as the file's baseline (`STEM.baseline.json`);
    /// later runs compare with them as `diff` and `check --baseline` do.
    #[arg(long, conflicts_with_all = ["from", "update"])]
    pub record: bool,
    /// Rewrite the golden recordings and baselines after a reviewed change,
    /// saying on stderr what changed in each.
    #[arg(long, conflicts_with = "from")]
    pub update: bool,
}

/// What a run does with the golden recordings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Goldens {
    /// Compare with each that exists (or that the case expects).
    Compare,
    /// Write them.
    Record,
    /// Compare, say what changed, and rewrite them.
    Update,
}

/// How long a case listens after its last response when the file does not say.
const SETTLE: Duration = Duration::from_millis(200);

/// One test file, read and parsed.
struct Loaded {
    path: PathBuf,
    text: String,
    file: TestFile,
}

pub async fn run(a: TestArgs) -> i32 {
    if let Some(trace) = &a.from {
        return from(trace, a.output.as_deref());
    }
    let loaded = match load(&a.paths) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("[error] {}", one_line(&e.to_string()));
            return 2;
        }
    };
    let goldens = match (a.record, a.update) {
        (true, _) => Goldens::Record,
        (_, true) => Goldens::Update,
        _ => Goldens::Compare,
    };
    if goldens != Goldens::Compare
        && let Some(l) = loaded.iter().find(|l| l.file.server.get_ref().shared)
    {
        eprintln!(
            "[error] {}: golden recordings are one case's session each: --record and --update need shared = false",
            l.path.display()
        );
        return 2;
    }
    let mut signals = Signals::install();
    let mut run = Run {
        mcpscope_test: 1,
        cases: Vec::new(),
    };
    'files: for l in &loaded {
        let cases: Vec<(usize, &Case)> = l
            .file
            .cases
            .iter()
            .filter(|c| {
                a.case
                    .as_deref()
                    .is_none_or(|n| c.get_ref().name.contains(n))
            })
            .map(|c| (line_of(&l.text, c.span().start), c.get_ref()))
            .collect();
        let server = l.file.server.get_ref();
        let sessions: Vec<Vec<(usize, &Case)>> = if server.shared {
            vec![cases]
        } else {
            cases.into_iter().map(|c| vec![c]).collect()
        };
        for cases in sessions.iter().filter(|c| !c.is_empty()) {
            let golden = match cases.as_slice() {
                [(_, c)] if !server.shared => Some(file::golden_path(&l.path, c)),
                _ => None,
            };
            // The session is recorded: into the golden, or beside it to compare.
            let record = match (&golden, goldens) {
                (Some(g), Goldens::Record) => Some(g.clone()),
                (Some(g), _)
                    if goldens == Goldens::Update
                        || g.exists()
                        || cases[0].1.expect.golden.is_some() =>
                {
                    Some(scratch())
                }
                _ => None,
            };
            if goldens == Goldens::Record
                && let Some(dir) = record.as_deref().and_then(Path::parent)
                && let Err(e) = std::fs::create_dir_all(dir)
            {
                eprintln!("[error] {}: {e}", dir.display());
                return 2;
            }
            let mut results = session(l, server, cases, record.as_deref(), &mut signals).await;
            if let (Some(g), Some(rec), [result]) = (&golden, &record, results.as_mut_slice()) {
                compare_golden(l, cases[0].1, g, rec, goldens, result);
            }
            let stopped = results.iter().any(|r| r.code == 130);
            run.cases.extend(results);
            if stopped {
                break 'files;
            }
        }
        let base = l.path.parent().unwrap_or(Path::new("."));
        if !sessions.iter().all(Vec::is_empty)
            && let Some(pinned) = pin::run(&l.path, server_args(server, base), goldens).await
        {
            run.cases.push(pinned);
        }
    }
    if run.cases.is_empty() {
        eprintln!("[error] no case matches --case");
        return 2;
    }
    output::emit(&run, a.format);
    run.code()
}

/// Why the test files named cannot all be read and parsed.
#[derive(Debug, thiserror::Error)]
enum LoadError {
    /// A directory or a file that cannot be read.
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: no *.toml test file in it", .0.display())]
    NoTestFile(PathBuf),
    #[error(transparent)]
    File(#[from] file::FileError),
}

/// The files named (directories: their `*.toml` files, by name), each read
/// and parsed before any case runs, so a mistake in the last costs nothing.
fn load(paths: &[PathBuf]) -> Result<Vec<Loaded>, LoadError> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(p)
                .map_err(|source| LoadError::Read {
                    path: p.clone(),
                    source,
                })?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.is_file() && f.extension().is_some_and(|x| x == "toml"))
                .collect();
            if inside.is_empty() {
                return Err(LoadError::NoTestFile(p.clone()));
            }
            crate::sort::sort(&mut inside);
            files.extend(inside);
        } else {
            files.push(p.clone());
        }
    }
    let env = |name: &str| std::env::var(name).ok();
    files
        .into_iter()
        .map(|path| {
            let text = crate::files::read_small(&path, file::MAX_FILE_BYTES).map_err(|source| {
                LoadError::Read {
                    path: path.clone(),
                    source,
                }
            })?;
            let file = file::parse(&path.display().to_string(), &text, &env)?;
            Ok(Loaded { path, text, file })
        })
        .collect()
}

/// The command line's server for the file's `[server]`; a stdio server
/// runs in the test file's directory unless `cwd` says otherwise.
fn server_args(s: &Server, base: &Path) -> ServerArgs {
    ServerArgs {
        demo: s.demo,
        url: s.url.clone(),
        headers: s.headers.iter().map(|(k, v)| format!("{k}: {v}")).collect(),
        config: s.config.as_ref().map(|c| base.join(c)),
        server: s.name.clone(),
        env: s.env.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        cwd: s
            .command
            .is_some()
            .then(|| base.join(s.cwd.as_deref().unwrap_or("."))),
        protocol: s.protocol.clone().unwrap_or_else(|| "auto".into()),
        command: s.command.clone().unwrap_or_default(),
        // The cases judge the session, not the server's telemetry.
        no_otel_receiver: true,
        ..ServerArgs::default()
    }
}

fn request_opts(s: &Server, c: &Case) -> RequestOpts {
    RequestOpts {
        token: match &c.token {
            None => "auto".into(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        },
        log_level: c.log_level.as_deref().and_then(|l| l.parse().ok()),
        timeout: c.timeout.or(s.timeout).unwrap_or(60.0),
        max_timeout: s.max_timeout.unwrap_or(600.0),
    }
}

/// A case that could not run, with why.
fn not_run(l: &Loaded, line: usize, c: &Case, code: i32, why: &str) -> CaseResult {
    CaseResult {
        file: l.path.display().to_string(),
        name: c.name.clone(),
        line,
        tool: c.tool.clone(),
        passed: false,
        code,
        failures: vec![Miss {
            what: "server".into(),
            line,
            message: one_line(why).into_owned(),
            fix: None,
            rule: None,
        }],
        seen: Default::default(),
        groups: Vec::new(),
        duration_ms: 0.0,
    }
}

/// Run `cases` in one session, then judge each over its part of it.
async fn session(
    l: &Loaded,
    server: &Server,
    cases: &[(usize, &Case)],
    record: Option<&Path>,
    signals: &mut Signals,
) -> Vec<CaseResult> {
    let base = l.path.parent().unwrap_or(Path::new("."));
    let mut args = server_args(server, base);
    if let [(_, c)] = cases
        && let Some(p) = &c.protocol
    {
        args.protocol = p.clone();
    }
    let limits = match request_opts(server, cases[0].1).limits() {
        Ok(l) => l,
        Err(UsageError(e)) => {
            return cases
                .iter()
                .map(|(n, c)| not_run(l, *n, c, 2, &e))
                .collect();
        }
    };
    let started = Instant::now();
    let mut live = match start_live(&args, record, limits, observed(&args), true).await {
        Ok(l) => l,
        Err(e) => {
            let code = fail(&e);
            let why = format!("the server did not start: {e}");
            return cases
                .iter()
                .map(|(n, c)| not_run(l, *n, c, code, &why))
                .collect();
        }
    };
    let (session, trace, spec) = (live.session.clone(), live.trace.clone(), live.spec.clone());
    // Per case: where its events start, its code, its time.
    let mut starts: Vec<u64> = Vec::new();
    let mut codes: Vec<i32> = Vec::new();
    let mut times: Vec<f64> = Vec::new();
    let mut problems: Vec<Option<String>> = Vec::new();
    let work = async {
        if let Err(e) = handshake(&session).await {
            return Some((3, format!("the handshake failed: {e}")));
        }
        for (_, c) in cases {
            let t0 = Instant::now();
            starts.push(trace.read().next_seq());
            let (code, problem) = run_case(&session, server, c).await;
            if code != 3 {
                tokio::time::sleep(c.settle_ms.map_or(SETTLE, Duration::from_millis)).await;
            }
            codes.push(code);
            problems.push(problem);
            times.push(t0.elapsed().as_secs_f64() * 1000.0);
            if code == 3 {
                break;
            }
        }
        None
    };
    let ended = tokio::select! {
        e = work => e,
        stop = signals.recv() => {
            cancel_in_flight(&session, stop);
            Some((stop.code, format!("interrupted ({})", stop.name)))
        }
    };
    live.stop_server(false).await;
    // A golden cut short is found when it is compared.
    let _ = live.end(std::future::pending()).await;
    let store = trace.read();
    let cfg = CheckConfig {
        tokenless_by_choice: cases
            .iter()
            .any(|(_, c)| request_opts(server, c).policy() == TokenPolicy::None),
        own_client: true,
        ..CheckConfig::default()
    };
    let source = json!({"server": spec.name(), "test": l.path.display().to_string()});
    let report = check_store(&store, cfg, source, &Verdict::default());
    let tracker = Tracker::of(&store);
    let stats = call_stats_of(&tracker, &store);
    let end = store.next_seq();
    let total = started.elapsed().as_secs_f64() * 1000.0;
    cases
        .iter()
        .enumerate()
        .map(|(i, (line, c))| {
            let Some(&from) = starts.get(i) else {
                let (code, why) = ended
                    .clone()
                    .unwrap_or((3, "the session ended before this case ran".into()));
                return not_run(l, *line, c, code, &why);
            };
            let last = i + 1 == starts.len();
            let window = Window {
                from,
                to: if last { end } else { starts[i + 1] },
            };
            // A finding naming no frame (the session's end) belongs to the last case.
            let findings: Vec<&Finding> = report
                .findings
                .iter()
                .filter(|f| f.seqs.iter().any(|s| window.holds(*s)) || (last && f.seqs.is_empty()))
                .collect();
            let (misses, seen) = judge(&store, &tracker, &stats, window, &c.expect, &findings);
            let mut code = codes.get(i).copied().unwrap_or(3);
            let problem = problems.get(i).and_then(Option::as_deref);
            let stop = if last { ended.as_ref() } else { None };
            if let Some((c, _)) = stop {
                code = *c;
            }
            let failures = case_failures(l, *line, misses, problem, stop);
            if code == 0 && !failures.is_empty() {
                code = 1;
            }
            let verdict = crate::suite::expect::verdict(&c.expect);
            let owned: Vec<Finding> = findings.into_iter().cloned().collect();
            let mut groups = groups(&owned);
            for g in &mut groups {
                g.allowed = verdict.allows(g.rule);
            }
            CaseResult {
                file: l.path.display().to_string(),
                name: c.name.clone(),
                line: *line,
                tool: c.tool.clone(),
                passed: failures.is_empty() && code == 0,
                code,
                failures,
                seen,
                groups,
                duration_ms: if cases.len() == 1 {
                    total
                } else {
                    times.get(i).copied().unwrap_or(0.0)
                },
            }
        })
        .collect()
}

/// Run one case's call (`repeat` times): its code and what went wrong.
async fn run_case(session: &Session, server: &Server, c: &Case) -> (i32, Option<String>) {
    let opts = request_opts(server, c);
    match opts.limits() {
        Err(UsageError(e)) => (2, Some(e)),
        Ok(limits) => {
            opts.apply_log_level(session, false).await;
            let arguments = c.arguments.clone().unwrap_or_else(|| json!({}));
            let policy = opts.policy();
            let mut outcome = (0, None);
            for _ in 0..c.repeat.unwrap_or(1) {
                match session
                    .call_tool(&c.tool, &arguments, &policy, limits)
                    .await
                {
                    Ok(_) | Err(ClientError::Rpc { .. }) => {}
                    Err(e @ ClientError::Timeout { .. }) => {
                        outcome = (4, Some(e.to_string()));
                        break;
                    }
                    Err(e) => {
                        outcome = (3, Some(e.to_string()));
                        break;
                    }
                }
            }
            outcome
        }
    }
}

/// A case's failures: the session's end (for the last case), its call's
/// problem, then its expectations' misses, each at its line of the file.
fn case_failures(
    l: &Loaded,
    line: usize,
    misses: Vec<crate::suite::expect::Miss>,
    problem: Option<&str>,
    stop: Option<&(i32, String)>,
) -> Vec<Miss> {
    let mut failures: Vec<Miss> = misses
        .into_iter()
        .map(|m| Miss {
            line: m.at.map_or(line, |at| line_of(&l.text, at)),
            what: m.what,
            message: m.message,
            fix: m.rule.map(|r| r.fix().to_string()),
            rule: m.rule.map(|r| r.id().to_string()),
        })
        .collect();
    if let Some(p) = problem {
        failures.insert(
            0,
            Miss {
                what: "call".into(),
                line,
                message: one_line(p).into_owned(),
                fix: None,
                rule: None,
            },
        );
    }
    if let Some((_, why)) = stop {
        failures.insert(
            0,
            Miss {
                what: "session".into(),
                line,
                message: one_line(why).into_owned(),
                fix: None,
                rule: None,
            },
        );
    }
    failures
}

/// `--from TRACE`: the test file for a recording, on stdout or into `-o`.
fn from(trace: &Path, output: Option<&Path>) -> i32 {
    let loaded =
        match super::replay::read_into(trace, crate::trace::StoreLimits::default(), |_, _, _| {}) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("[error] {}", one_line(&e.to_string()));
                return 2;
            }
        };
    if let Some(d) = &loaded.damage {
        eprintln!(
            "[warning] {}",
            one_line(&format!("{}: {d}", trace.display()))
        );
    }
    let text = match crate::suite::from_trace::write(
        &trace.display().to_string(),
        &loaded.header,
        &loaded.store,
    ) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("[error] {}", one_line(&e.to_string()));
            return 2;
        }
    };
    match output {
        None => super::stdout::write(text.as_bytes()),
        Some(path) => {
            if let Err(e) = std::fs::write(path, &text) {
                eprintln!("[error] {}", one_line(&format!("{}: {e}", path.display())));
                return 2;
            }
        }
    }
    0
}

/// A fresh path for a session recorded only to be compared.
fn scratch() -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    std::env::temp_dir().join(format!(
        "mcpscope-test-{}-{}.jsonl",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

/// The case's session (`recorded`) against its golden recording: a
/// failure when they differ beyond the tolerances (Compare); said on stderr
/// and written over the golden (Update); nothing to compare (Record).
fn compare_golden(
    l: &Loaded,
    c: &Case,
    golden: &Path,
    recorded: &Path,
    mode: Goldens,
    result: &mut CaseResult,
) {
    if mode == Goldens::Record {
        return;
    }
    let at = c
        .expect
        .golden
        .as_ref()
        .map_or(result.line, |g| line_of(&l.text, g.span().start));
    let tol = c
        .expect
        .golden
        .as_ref()
        .map_or_else(crate::diff::Tolerances::default, |g| {
            let d = crate::diff::Tolerances::default();
            crate::diff::Tolerances {
                time_ratio: g.get_ref().time_ratio.unwrap_or(d.time_ratio),
                min_ms: g.get_ref().min_ms.unwrap_or(d.min_ms),
            }
        });
    let mut fail = |message: String| {
        result.failures.push(Miss {
            what: "golden".into(),
            line: at,
            message,
            fix: None,
            rule: None,
        });
        result.passed = false;
        if result.code == 0 {
            result.code = 1;
        }
    };
    let changes = if golden.exists() {
        match super::diff::read_both(golden, recorded, None) {
            Ok((a, b)) => {
                let r = crate::diff::report::diff(&a, &b, tol);
                // The change lines, without the two header lines naming the files.
                let lines: Vec<String> = crate::diff::report::text(&r)
                    .lines()
                    .skip(2)
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string)
                    .collect();
                Some((r.same, lines))
            }
            Err(e) => {
                fail(format!("{}: {e}", golden.display()));
                None
            }
        }
    } else {
        None
    };
    match mode {
        Goldens::Update => {
            let name = golden.display().to_string();
            match &changes {
                None => eprintln!("[golden] {}: written (there was none)", one_line(&name)),
                Some((true, _)) => eprintln!("[golden] {}: unchanged", one_line(&name)),
                Some((false, lines)) => {
                    eprintln!("[golden] {}: changed", one_line(&name));
                    lines.iter().for_each(|l| eprintln!("  {}", one_line(l)));
                }
            }
            let moved = golden
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::copy(recorded, golden).map(|_| ()));
            if let Err(e) = moved {
                fail(format!("cannot write {}: {e}", golden.display()));
            }
        }
        _ => match changes {
            None if c.expect.golden.is_some() && !golden.exists() => fail(format!(
                "no golden recording {} (mcpscope test --record writes it)",
                golden.display()
            )),
            Some((false, lines)) => fail(format!(
                "differs from its golden recording {}: {}",
                golden.display(),
                lines
                    .iter()
                    .take(6)
                    .map(|l| l.trim())
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
            _ => {}
        },
    }
    let _ = std::fs::remove_file(recorded);
}
