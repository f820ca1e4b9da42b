//! `mcpscope replay FILE --print`: a trace's timeline as aligned text that QA
//! can diff. Without `--print` the binary opens the TUI on the trace instead
//! (`tui::replay`, dispatched from `main`). The formatter works on any store — a recorded trace loaded back,
//! or the live trace of a running session — and gives the same text for both.
//!
//! Line layout (columns separated by two spaces):
//! `SEQ  MS  DIR  WHAT  ID/TOKEN  SUMMARY` — `#12  1503.250  in   notifications/progress  tok="mcpscope-1"  3/5 (60%) Task 3/5`.

use crate::protocol::frame::FrameKind;
use crate::protocol::methods;
use crate::protocol::sanitize::one_line;
use crate::protocol::views::{CancelledView, LogView, ProgressView};
use crate::protocol::{Frame, IdKey};
use crate::trace::reader::{Damage, TraceReader};
use crate::trace::record::TraceReadError;
use crate::trace::store::flags;
use crate::trace::{Dir, EventRef, Store, StoreLimits};
use clap::Args;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug, Clone)]
pub struct ReplayArgs {
    /// A trace recorded with --record.
    pub file: PathBuf,
    /// Print the timeline as text instead of opening the TUI (which plays the
    /// trace back: Space pause, . step, < > speed, E end).
    #[arg(long)]
    pub print: bool,
}

pub fn run(a: ReplayArgs) -> i32 {
    if !a.print {
        // The binary sends interactive replays to `tui::replay` before any
        // runtime exists (the TUI builds its own); reaching here means a
        // caller inside a runtime asked for one.
        eprintln!(
            "[error] the interactive replay runs from the mcpscope binary (mcpscope replay {}); here use --print",
            a.file.display()
        );
        return 2;
    }
    // Each event is printed as soon as it is read, so memory stays within the
    // store's default bound however long the trace, and a damaged trace still
    // prints everything before the damage.
    let mut out = std::io::BufWriter::new(super::stdout::lock());
    let read = read_into(&a.file, StoreLimits::default(), |_, store, seq| {
        if let Some(ev) = store.get(seq) {
            let _ = writeln!(out, "{}", format_event(&ev));
        }
    });
    let _ = out.flush();
    match read {
        Ok(loaded) => {
            if let Some(d) = &loaded.damage {
                eprintln!("[warning] {}: {d}", one_line(&a.file.display().to_string()));
            }
            0
        }
        Err(e) => {
            eprintln!("[error] {}", one_line(&e.to_string()));
            2
        }
    }
}

/// A recorded trace read into a store, and where it was cut short, if it was.
pub struct Loaded {
    pub header: Value,
    pub store: Store,
    pub damage: Option<Damage>,
}

/// Read a recorded trace into a fresh store, line by line, calling `each`
/// with the header, the store and the seq of every event appended. A trace cut mid-line
/// gives every event before the cut, and `damage` says where.
pub fn read_into(
    path: &Path,
    limits: StoreLimits,
    mut each: impl FnMut(&Value, &Store, u64),
) -> Result<Loaded, TraceReadError> {
    read_lines_into(path, limits, |header, store, seq, _| {
        each(header, store, seq)
    })
}

/// `read_into`, also giving each event's line in the file (the header is
/// line 1).
pub fn read_lines_into(
    path: &Path,
    limits: StoreLimits,
    mut each: impl FnMut(&Value, &Store, u64, u64),
) -> Result<Loaded, TraceReadError> {
    let mut reader = TraceReader::open(path)?;
    let mut store = Store::new(limits);
    while let Some(e) = reader.next_event()? {
        let seq = store.append_recorded(e.dir, &e.channel, e.t_us, &e.bytes, e.in_batch);
        each(reader.header(), &store, seq, reader.line() as u64);
    }
    Ok(Loaded {
        header: reader.header().clone(),
        damage: reader.damage().cloned(),
        store,
    })
}

/// Read a whole recorded trace into a fresh store (header, store); a trace
/// cut mid-line is an error here (see `read_into`). Events keep their
/// recorded seq numbers only if the file starts at seq 0 with no gaps, which
/// is what `--record` writes.
pub fn load(path: &Path) -> Result<(Value, Store), TraceReadError> {
    let loaded = read_into(
        path,
        StoreLimits {
            max_bytes: usize::MAX,
        },
        |_, _, _| {},
    )?;
    if let Some(d) = loaded.damage {
        return Err(d.error(&path.display().to_string()));
    }
    Ok((loaded.header, loaded.store))
}

/// The whole timeline of a store, one line per event.
pub fn format_store(store: &Store) -> String {
    let mut s = String::new();
    for ev in store.range(0, store.next_seq()) {
        s.push_str(&format_event(&ev));
        s.push('\n');
    }
    s
}

const SUMMARY_CHARS: usize = 120;

/// One timeline line. Depends only on the event itself, so a live store and
/// its recording format identically.
pub fn format_event(ev: &EventRef<'_>) -> String {
    let ms = crate::format::millis_exact(ev.t_us);
    let dir = match ev.dir {
        Dir::Out => "out",
        Dir::In => "in",
        Dir::Stderr => "err",
        Dir::Meta => "meta",
    };
    let (what, ids, summary) = describe(ev);
    // Method names and ids come from the server too.
    let (what, ids) = (one_line(&what).into_owned(), one_line(&ids).into_owned());
    let line = format!(
        "#{:<6} {:>11}  {:<4}  {:<24}  {:<22}  {}",
        ev.seq,
        ms,
        dir,
        what,
        ids,
        clip(&summary)
    );
    line.trim_end().to_string()
}

fn clip(s: &str) -> String {
    let s = one_line(s);
    if s.chars().count() <= SUMMARY_CHARS {
        return s.into_owned();
    }
    let mut t: String = s.chars().take(SUMMARY_CHARS - 1).collect();
    t.push('…');
    t
}

fn compact(raw: Option<&serde_json::value::RawValue>) -> String {
    match raw.map(|r| serde_json::from_str::<Value>(r.get())) {
        Some(Ok(v)) => v.to_string(),
        Some(Err(_)) => raw.map(|r| r.get().to_string()).unwrap_or_default(),
        None => String::new(),
    }
}

fn id_str(id: &Option<IdKey>) -> String {
    id.as_ref().map(|i| format!("id={i}")).unwrap_or_default()
}

pub fn describe(ev: &EventRef<'_>) -> (String, String, String) {
    match ev.dir {
        Dir::Stderr => ("stderr".into(), String::new(), ev.text().into_owned()),
        Dir::Meta => {
            let what = format!("meta:{}", ev.method.unwrap_or("?"));
            let body = match serde_json::from_slice::<Value>(ev.bytes) {
                Ok(Value::Object(mut m)) => {
                    m.remove("event");
                    Value::Object(m).to_string()
                }
                _ => ev.text().into_owned(),
            };
            (what, String::new(), body)
        }
        Dir::In | Dir::Out => message(ev),
    }
}

fn message(ev: &EventRef<'_>) -> (String, String, String) {
    let f = ev.frame();
    let mut marks = String::new();
    if ev.flags & flags::IN_BATCH != 0 {
        marks.push_str("[batch] ");
    }
    match f.kind {
        FrameKind::Request => {
            let method = f.method.as_deref().unwrap_or("?").to_string();
            let mut ids = id_str(&f.id);
            if let Some(t) = f.progress_token() {
                ids.push_str(&format!(" tok={}", IdKey::from_raw(t.get())));
            }
            let summary = request_summary(&f, &method);
            (method, ids, format!("{marks}{summary}"))
        }
        FrameKind::Notification => {
            let method = f.method.as_deref().unwrap_or("?").to_string();
            let (ids, summary) = notification_summary(&f, &method);
            (method, ids, format!("{marks}{summary}"))
        }
        FrameKind::Response | FrameKind::ErrorResponse => {
            for (bit, label) in [
                (flags::LATE, "[late] "),
                (flags::DUPLICATE, "[duplicate] "),
                (flags::UNKNOWN_ID, "[unknown id] "),
            ] {
                if ev.flags & bit != 0 {
                    marks.push_str(label);
                }
            }
            let what = match (f.kind, ev.method) {
                (FrameKind::Response, Some(m)) => format!("result {m}"),
                (FrameKind::Response, None) => "result".into(),
                (_, Some(m)) => format!("error {m}"),
                (_, None) => "error".into(),
            };
            let body = if f.kind == FrameKind::Response {
                compact(f.result)
            } else {
                compact(f.error)
            };
            (what, id_str(&f.id), format!("{marks}{body}"))
        }
        FrameKind::Batch => (
            "batch".into(),
            String::new(),
            format!("{} messages", f.batch.len()),
        ),
        FrameKind::Empty => ("empty".into(), String::new(), String::new()),
        kind => (
            kind.label().into(),
            String::new(),
            format!(
                "{}: {}",
                f.problem.as_deref().unwrap_or("malformed"),
                ev.text()
            ),
        ),
    }
}

/// A request's params as one line, secrets redacted as every output
/// redacts them (`protocol::secrets::redact_params`); the timeline, and the
/// Mermaid diagram drawn from it, show what was asked, not the keys.
fn request_summary(f: &Frame<'_>, method: &str) -> String {
    let Some(Ok(mut v)) = f.params.map(|p| serde_json::from_str::<Value>(p.get())) else {
        return compact(f.params);
    };
    crate::protocol::secrets::redact_params(&mut v);
    if method == methods::TOOLS_CALL {
        let name = v.get("name").and_then(Value::as_str).unwrap_or("?");
        let args = v.get("arguments").map(Value::to_string).unwrap_or_default();
        return format!("{name} {args}");
    }
    v.to_string()
}

fn notification_summary(f: &Frame<'_>, method: &str) -> (String, String) {
    match method {
        methods::PROGRESS => match ProgressView::parse(f.params) {
            // The message goes in raw: `format_event` makes the whole
            // summary one line and clips it.
            Ok(p) => (
                format!("tok={}", p.token_key()),
                crate::format::progress(p.progress, p.total, p.message.as_deref()),
            ),
            Err(why) => (String::new(), format!("invalid progress: {why}")),
        },
        methods::MESSAGE => match LogView::parse(f.params) {
            Ok(l) => {
                let level = match &l.level {
                    Ok(lv) => lv.as_str().to_string(),
                    Err(raw) => format!("{raw:?}"),
                };
                let data = l.data_text();
                let s = match &l.logger {
                    Some(lg) => format!("{level} {lg}: {data}"),
                    None => format!("{level}: {data}"),
                };
                (String::new(), s)
            }
            Err(why) => (String::new(), format!("invalid log: {why}")),
        },
        methods::CANCELLED => match CancelledView::parse(f.params) {
            Some(c) => (format!("id={}", c.request_id), c.reason.unwrap_or_default()),
            None => (String::new(), compact(f.params)),
        },
        _ => (String::new(), compact(f.params)),
    }
}
