//! `mcpscope diff A B`: compare two recorded sessions — what the server
//! listed, each aligned call (outcome, result shape, progress, the order of
//! what arrived, server requests, timing), the findings of each — and
//! report what differs (`crate::diff`). Exit 0 same, 1 differs, 2 usage or
//! a trace that cannot be read (as `check --trace`).

use super::check::CheckRun;
use crate::checks::CheckConfig;
use crate::diff::{Folder, Report, Side, Tolerances, report};
use crate::protocol::sanitize::one_line;
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
    /// The second trace (B: compared with A).
    pub b: PathBuf,
    /// Report format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: DiffFormat,
    /// A call's duration differs when one is at least this many times the other…
    #[arg(long, default_value_t = Tolerances::default().time_ratio)]
    pub time_ratio: f64,
    /// …and they are at least this many milliseconds apart.
    #[arg(long, default_value_t = Tolerances::default().min_ms)]
    pub min_ms: u64,
}

pub fn run(a: DiffArgs) -> i32 {
    if !(a.time_ratio.is_finite() && a.time_ratio >= 1.0) {
        eprintln!("[error] --time-ratio must be a number of at least 1");
        return 2;
    }
    let tol = Tolerances {
        time_ratio: a.time_ratio,
        min_ms: a.min_ms,
    };
    let (sa, sb) = match read_both(&a.a, &a.b) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("[error] {}", one_line(&e.to_string()));
            return 2;
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

/// Read both traces, each on a thread of its own (two files, two cores).
pub fn read_both(a: &Path, b: &Path) -> Result<(Side, Side), TraceReadError> {
    std::thread::scope(|s| {
        let tb = s.spawn(|| read_side(b));
        let sa = read_side(a);
        let sb = tb.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        Ok((sa?, sb?))
    })
}

/// Fold one trace into a side, line by line: the rule engine and the
/// comparison's fold see every event as it is read.
pub fn read_side(path: &Path) -> Result<Side, TraceReadError> {
    let mut reader = TraceReader::open(path)?;
    let mut store = Store::new(StoreLimits::default());
    let mut run = CheckRun::new(CheckConfig::default().for_recording(reader.header()));
    let mut fold = Folder::default();
    while let Some(e) = reader.next_event()? {
        let seq = store.append_recorded(e.dir, &e.channel, e.t_us, &e.bytes, e.in_batch);
        if let Some(ev) = store.get(seq) {
            run.observe(&ev);
            fold.observe(&ev, reader.line() as u64);
        }
    }
    let damage = reader.damage().map(|d| d.to_string());
    Ok(fold.finish(path.display().to_string(), run.findings(), damage))
}

fn emit(r: &Report, format: DiffFormat) {
    let text = match format {
        DiffFormat::Json => serde_json::to_string_pretty(r).unwrap_or_default() + "\n",
        DiffFormat::Text => report::text(r),
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}
