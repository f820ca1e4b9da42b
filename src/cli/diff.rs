//! `mcpscope diff A B`: compare two recorded sessions — what the server
//! listed, each aligned call (outcome, result shape, progress, the order of
//! what arrived, server requests, timing), the findings of each — and
//! report what differs (`crate::diff`). Exit 0 same, 1 differs, 2 usage or
//! a trace that cannot be read (as `check --trace`). `--only FILTER` lists
//! only the differences about what the filter selects (`crate::diff::only`);
//! the exit code stays the whole comparison's.
//!
//! Without B, a server is named instead: A's `tools/call`s are run on it
//! now, one after the other (after the `logging/setLevel` A sent, and
//! listing what A listed), recorded, and that recording is B. A connection
//! that fails exits as `call` would (3, 4).

use super::call::{RequestOpts, fail};
use super::check::{CheckRun, LISTING_LIMIT, list_the_rest};
use super::connect::{connect, handshake};
use super::signals::{Signals, cancel_in_flight};
use super::spec::ServerArgs;
use crate::calls::listings::Kind;
use crate::checks::CheckConfig;
use crate::client::ClientError;
use crate::diff::only::Selected;
use crate::diff::{Folder, Report, Side, Tolerances, report};
use crate::filter::{CallIndex, Filter, Matcher};
use crate::protocol::sanitize::one_line;
use crate::protocol::views::LogLevel;
use crate::protocol::{Era, methods};
use crate::trace::reader::TraceReader;
use crate::trace::record::TraceReadError;
use crate::trace::{Store, StoreLimits};
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffFormat {
    Text,
    Json,
}

#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// The first trace (A: the reference).
    pub a: PathBuf,
    /// The second trace (B: compared with A). Leave it out and name a
    /// server instead to run A's calls on it now.
    pub b: Option<PathBuf>,
    #[command(flatten)]
    pub server: ServerArgs,
    #[command(flatten)]
    pub request: RequestOpts,
    /// With a server: record the session run now (else a temporary file).
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// With a server: keep listening this long after the last call.
    #[arg(long, default_value_t = 200)]
    pub settle_ms: u64,
    /// Report format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: DiffFormat,
    /// A call's duration differs when one is at least this many times the other…
    #[arg(long, default_value_t = Tolerances::default().time_ratio)]
    pub time_ratio: f64,
    /// …and they are at least this many milliseconds apart.
    #[arg(long, default_value_t = Tolerances::default().min_ms)]
    pub min_ms: u64,
    /// List only the differences about frames FILTER selects in either
    /// session (docs/filters.md); one about a call is listed when any frame
    /// of the call is selected. Both are still compared whole, and the exit
    /// code is the whole comparison's.
    #[arg(long, value_name = "FILTER")]
    pub only: Option<String>,
}

pub async fn run(a: DiffArgs) -> i32 {
    if !(a.time_ratio.is_finite() && a.time_ratio >= 1.0) {
        eprintln!("[error] --time-ratio must be a number of at least 1");
        return 2;
    }
    let tol = Tolerances {
        time_ratio: a.time_ratio,
        min_ms: a.min_ms,
    };
    let only = match super::only::matcher(a.only.as_deref()) {
        Ok(m) => m.map(|m| m.filter),
        Err(code) => return code,
    };
    let only = only.as_ref();
    let live = a.server.resolve().is_ok();
    let (sa, sb) = match (&a.b, live) {
        (Some(_), true) => {
            eprintln!("[error] diff compares A with a trace B or with a server, not both");
            return 2;
        }
        (None, false) => {
            eprintln!("[error] diff needs a second trace B, or a server to run A's calls on");
            return 2;
        }
        (Some(b), false) => match read_both(&a.a, b, only) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("[error] {}", one_line(&e.to_string()));
                return 2;
            }
        },
        (None, true) => {
            let sa = match read_side(&a.a, only) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("[error] {}", one_line(&e.to_string()));
                    return 2;
                }
            };
            match run_live(&a, &sa, only).await {
                Ok(sb) => (sa, sb),
                Err(code) => return code,
            }
        }
    };
    for s in [&sa, &sb] {
        if let Some(d) = &s.damage {
            eprintln!("[warning] {}: {}", one_line(&s.name), one_line(d));
        }
    }
    let r = report::diff(&sa, &sb, tol);
    emit(&r, a.format);
    if r.same { 0 } else { 1 }
}

/// Read both traces, each on a thread of its own (two files, two cores);
/// with `only`, each notes what the filter selects in it.
pub fn read_both(
    a: &Path,
    b: &Path,
    only: Option<&Filter>,
) -> Result<(Side, Side), TraceReadError> {
    std::thread::scope(|s| {
        let tb = s.spawn(|| read_side(b, only));
        let sa = read_side(a, only);
        let sb = tb.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        Ok((sa?, sb?))
    })
}

/// The store's bound while a trace is folded.
const FOLD_STORE: usize = 64 << 20;

/// Fold one trace into a side, line by line: the rule engine and the
/// comparison's fold see every event as it is read, and so does `only`'s
/// matcher (it follows the calls), which only notes what it selects.
pub fn read_side(path: &Path, only: Option<&Filter>) -> Result<Side, TraceReadError> {
    let mut reader = TraceReader::open(path)?;
    // Every event is folded and checked as it is appended: the store only
    // hands each one over, so a small bound serves (older chunks go).
    let mut store = Store::new(StoreLimits {
        max_bytes: FOLD_STORE,
    });
    let mut run = CheckRun::new(CheckConfig::default().for_recording(reader.header()));
    let mut fold = Folder::default();
    let mut pick = only.map(|f| Pick::new(f.clone()));
    while let Some(e) = reader.next_event()? {
        // Handed over, not copied: a huge frame is held once.
        let seq = store.append_recorded_owned(e.dir, &e.channel, e.t_us, e.bytes, e.in_batch);
        if let Some(ev) = store.get(seq) {
            run.observe(&ev);
            fold.observe(&ev, reader.line() as u64);
            if let Some(p) = &mut pick {
                p.observe(&ev);
            }
        }
    }
    let damage = reader.damage().map(|d| d.to_string());
    let era = run.era();
    let mut side = fold.finish(path.display().to_string(), run.findings(), damage);
    side.era = Some(era);
    side.selected = pick.map(|p| p.selected);
    Ok(side)
}

/// What a filter selects in one session: its frames, and the calls they
/// belong to (the filter's `call` field: a request, its response, its
/// progress, its cancellation), so a difference about a call is listed
/// when any part of that call was selected.
struct Pick {
    matcher: Matcher,
    calls: CallIndex,
    selected: Selected,
}

impl Pick {
    fn new(filter: Filter) -> Pick {
        Pick {
            selected: Selected {
                filter: filter.source().to_string(),
                ..Selected::default()
            },
            matcher: Matcher::new(filter),
            calls: CallIndex::default(),
        }
    }

    /// The next event, in order.
    fn observe(&mut self, ev: &crate::trace::EventRef<'_>) {
        self.calls.observe(ev);
        if self.matcher.test(ev) {
            self.selected.frames.insert(ev.seq);
            if let Some(c) = self.calls.of(ev) {
                self.selected.calls.insert(c.seq);
            }
        }
    }
}

fn emit(r: &Report, format: DiffFormat) {
    let text = match format {
        // Trace text keeps its bidi and C1 controls only as `\u` escapes.
        DiffFormat::Json => {
            crate::protocol::json_text::escape_invisible(
                &serde_json::to_string_pretty(r).unwrap_or_default(),
            ) + "\n"
        }
        DiffFormat::Text => report::text(r),
    };
    let mut out = super::stdout::lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Run A's calls on the server now; the recording of that session is B.
async fn run_live(a: &DiffArgs, sa: &Side, only: Option<&Filter>) -> Result<Side, i32> {
    let limits = a
        .request
        .limits()
        .map_err(|e| fail(&super::connect::Failure::Usage(e)))?;
    let temp = a.record.is_none();
    let rec = a.record.clone().unwrap_or_else(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        std::env::temp_dir().join(format!(
            "mcpscope-diff-{}-{nanos}.jsonl",
            std::process::id()
        ))
    });
    // A's calls run in A's era: a recording of the handshake era compared
    // with a server probed into 2026-07-28 would differ in what the era
    // changes (logs only when asked, input rounds), not in the server.
    // `--protocol` naming an era or a revision decides instead.
    let mut server = a.server.clone();
    if matches!(server.protocol.as_str(), "auto" | "") && sa.era == Some(Era::Handshake) {
        server.protocol = "legacy".into();
    }
    // Ctrl-C (SIGTERM, SIGHUP) cancels the call in flight and stops the
    // server, and the exit code says so (130, 143, 129), as `call` does.
    let mut signals = Signals::install();
    let mut live = connect(&server, Some(&rec), limits)
        .await
        .map_err(|e| fail(&e))?;
    let (session, spec) = (live.session.clone(), live.spec.clone());
    let work = async {
        match handshake(&session).await {
            Err(e) => return fail(&e),
            Ok(_) => {
                let mut opts = a.request.clone();
                if opts.log_level.is_none() {
                    opts.log_level = sa
                        .log_level
                        .as_deref()
                        .and_then(|l| LogLevel::ALL.into_iter().find(|x| x.as_str() == l));
                }
                opts.apply_log_level(&session, false).await;
                let policy = opts.policy();
                for c in &sa.calls {
                    let Some(tool) = c
                        .tool
                        .as_deref()
                        .filter(|_| c.method == methods::TOOLS_CALL)
                    else {
                        eprintln!(
                            "[warning] A's {} request is not run again (only tools/call is)",
                            one_line(&c.method)
                        );
                        continue;
                    };
                    match session.call_tool(tool, &c.args, &policy, limits).await {
                        Ok(_) | Err(ClientError::Rpc { .. }) | Err(ClientError::Timeout { .. }) => {
                        }
                        Err(e) => {
                            eprintln!("[error] {}", one_line(&e.to_string()));
                            break;
                        }
                    }
                }
                if sa.listings.get(Kind::Tool).is_some() {
                    let _ = tokio::time::timeout(LISTING_LIMIT, session.list_tools()).await;
                }
                if [Kind::Resource, Kind::ResourceTemplate, Kind::Prompt]
                    .into_iter()
                    .any(|k| sa.listings.get(k).is_some())
                {
                    list_the_rest(&session, limits).await;
                }
                tokio::time::sleep(std::time::Duration::from_millis(a.settle_ms)).await;
            }
        }
        0
    };
    let mut code = tokio::select! {
        c = work => c,
        stop = signals.recv() => {
            cancel_in_flight(&session, stop);
            stop.code
        }
    };
    live.stop_server(false).await;
    // A recording cut short cannot be compared: not a success.
    code = super::call::finished(live.end(std::future::pending()).await.recording_error, code);
    let side = if code == 0 {
        read_side(&rec, only)
            .map(|mut s| {
                if temp {
                    s.name = format!("{} (run now)", spec.name());
                }
                s
            })
            .map_err(|e| {
                eprintln!("[error] {}", one_line(&e.to_string()));
                2
            })
    } else {
        Err(code)
    };
    if temp {
        let _ = std::fs::remove_file(&rec);
    }
    side
}
