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
    #[command(flatten)]
    pub only: super::only::OnlyArgs,
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
    let mut only = match a.only.matcher() {
        Ok(m) => m,
        Err(code) => return code,
    };
    let mut out = std::io::BufWriter::new(super::stdout::lock());
    let read = read_into(&a.file, StoreLimits::default(), |_, store, seq| {
        if let Some(ev) = store.get(seq)
            && super::only::keep(&mut only, &ev)
        {
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
        // Handed over, not copied: a huge frame is held once.
        let seq = store.append_recorded_owned(e.dir, &e.channel, e.t_us, e.bytes, e.in_batch);
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

/// How much of a value a description is built from. Every reader of a
/// description clips it to a line (`SUMMARY_CHARS`, a diagram's label), so
/// a huge frame is described from its start, never copied whole.
const DESCRIBE_BYTES: usize = 16 << 10;

/// The first `DESCRIBE_BYTES` of `s` (at a character boundary), marked as
/// cut when it goes on.
fn head(s: &str) -> std::borrow::Cow<'_, str> {
    if s.len() <= DESCRIBE_BYTES {
        return s.into();
    }
    format!("{}…", prefix(s)).into()
}

/// The first `DESCRIBE_BYTES` of `s`, cut at a character boundary.
fn prefix(s: &str) -> &str {
    let mut end = DESCRIBE_BYTES.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// A JSON value as one compact line: parsed and written again when small;
/// a large one from the start of its text (a string's characters decoded),
/// so describing it costs no copy of it.
fn compact(raw: Option<&serde_json::value::RawValue>) -> String {
    let Some(raw) = raw else {
        return String::new();
    };
    let text = raw.get();
    if text.len() > DESCRIBE_BYTES {
        return large_value_head(text);
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v) => v.to_string(),
        Err(_) => text.to_string(),
    }
}

/// The start of a large JSON value: a string's first characters decoded,
/// anything else its text as written.
fn large_value_head(text: &str) -> String {
    let cut = prefix(text);
    if text.starts_with('"') {
        // A cut inside an escape (`\u00`) does not parse: step back to
        // before it (an escape is at most six bytes).
        for back in 0..8 {
            let Some(end) = cut.len().checked_sub(back) else {
                break;
            };
            if !cut.is_char_boundary(end) {
                continue;
            }
            if let Ok(s) = serde_json::from_str::<String>(&format!("{}\"", &cut[..end])) {
                return format!("{s}…");
            }
        }
    }
    format!("{cut}…")
}

/// JSON text of `v`, written up to `DESCRIBE_BYTES` (a huge value is not
/// written out whole to be clipped to a line).
fn bounded_json(v: &Value) -> String {
    struct Bounded(Vec<u8>);
    impl std::io::Write for Bounded {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let room = DESCRIBE_BYTES.saturating_sub(self.0.len());
            if room == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            let n = b.len().min(room);
            self.0.extend_from_slice(&b[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = Bounded(Vec::new());
    let full = serde_json::to_writer(&mut w, v).is_ok();
    let mut s = String::from_utf8_lossy(&w.0).into_owned();
    if !full {
        // A character cut in two reads as U+FFFD: drop it.
        s.truncate(s.trim_end_matches('\u{FFFD}').len());
        s.push('…');
    }
    s
}

fn id_str(id: &Option<IdKey>) -> String {
    id.as_ref().map(|i| format!("id={i}")).unwrap_or_default()
}

pub fn describe(ev: &EventRef<'_>) -> (String, String, String) {
    match ev.dir {
        Dir::Stderr => (
            "stderr".into(),
            String::new(),
            head(&ev.text()).into_owned(),
        ),
        // What the proxy changed on purpose reads as a sentence, the
        // message it changed beside it.
        Dir::Meta if let Some(ev @ crate::event::Event::Injected { .. }) = ev.event() => {
            let line = ev.injected_line().unwrap_or_default();
            let crate::event::Event::Injected { original, .. } = ev else {
                return (String::new(), String::new(), String::new());
            };
            (
                "injected".into(),
                String::new(),
                format!("{line}: {}", head(&original)),
            )
        }
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
                head(&ev.text())
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
        let args = v.get("arguments").map(bounded_json).unwrap_or_default();
        return format!("{name} {args}");
    }
    bounded_json(&v)
}

fn notification_summary(f: &Frame<'_>, method: &str) -> (String, String) {
    match method {
        methods::PROGRESS => match ProgressView::parse(f.params) {
            // The message goes in raw: `format_event` makes the whole
            // summary one line and clips it.
            Ok(p) => (
                format!("tok={}", p.token_key()),
                crate::format::progress(
                    p.progress,
                    p.total,
                    p.message.as_deref().map(head).as_deref(),
                ),
            ),
            Err(why) => (String::new(), format!("invalid progress: {why}")),
        },
        methods::MESSAGE => match LogView::parse(f.params) {
            Ok(l) => {
                let level = match &l.level {
                    Ok(lv) => lv.as_str().to_string(),
                    Err(raw) => format!("{raw:?}"),
                };
                let data = match l.data {
                    Some(raw) if raw.get().len() > DESCRIBE_BYTES => large_value_head(raw.get()),
                    _ => l.data_text(),
                };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn described(frame: &str) -> (String, String) {
        let mut s = Store::default();
        let seq = s.append_recorded(Dir::In, "stdio", 0, frame.as_bytes(), false);
        let ev = s.get(seq).unwrap();
        (describe(&ev).2, format_event(&ev))
    }

    #[test]
    fn a_huge_value_is_described_from_its_start_never_whole() {
        let data = "x".repeat(1 << 20);
        let (summary, line) = described(&format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{data}"}}}}"#
        ));
        assert!(
            summary.len() <= DESCRIBE_BYTES + 16,
            "{} bytes",
            summary.len()
        );
        assert!(summary.starts_with("info: xxx") && summary.ends_with('…'));
        assert!(line.ends_with("xxx…"), "{line}");
        // Cut inside an escape, a string is still decoded up to the cut.
        let data = "\\u00e9".repeat(DESCRIBE_BYTES);
        let (summary, _) = described(&format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{data}"}}}}"#
        ));
        assert!(
            summary.starts_with("info: ééé") && summary.ends_with("é…"),
            "{}",
            &summary[..40]
        );
        // A result, and a request's arguments (redacted, then written up to the bound).
        let (summary, _) = described(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"{}"}}]}}}}"#,
            "y".repeat(1 << 20)
        ));
        // (Answering nothing sent, it is marked so.)
        assert!(
            summary.len() <= DESCRIBE_BYTES + 32,
            "{} bytes",
            summary.len()
        );
        assert!(
            summary.starts_with(r#"[unknown id] {"content""#),
            "{}",
            &summary[..40]
        );
        let mut s = Store::default();
        let req = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{{"password":"hunter2","a":"{}"}}}}}}"#,
            "z".repeat(1 << 20)
        );
        let seq = s.append_recorded(Dir::Out, "stdio", 0, req.as_bytes(), false);
        let summary = describe(&s.get(seq).unwrap()).2;
        assert!(
            summary.len() <= DESCRIBE_BYTES + 16,
            "{} bytes",
            summary.len()
        );
        assert!(
            summary.starts_with(r#"t {"a":"zzz"#) && !summary.contains("hunter2"),
            "{}",
            &summary[..60]
        );
    }

    #[test]
    fn a_small_value_is_described_whole() {
        let (summary, _) = described(
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"k": [1, 2]}}}"#,
        );
        assert_eq!(summary, r#"info: {"k":[1,2]}"#);
    }
}
