//! `mcpscope export TRACE --format har|mermaid|json|html [-o FILE] [--call ID]`:
//! a recorded session for other tools and people (`crate::export`); `--otlp URL`
//! sends it to an OpenTelemetry backend (`crate::otel::export`). The rule
//! engine runs over the trace as it is read, as `check --trace` runs it, so
//! the diagram, the statistics and the spans carry its findings.
//!
//! `--only FILTER` exports only what the filter selects, each call whole
//! (see [`only`]); the rule engine still judges the whole trace.
//!
//! Exit: 0 written (or sent); 1 the backend did not take every span; 2
//! usage (a stdio trace for `har`, `--call` without `mermaid` or naming no
//! request, an unreadable trace or output file, neither `--format` nor
//! `--otlp`, a filter that does not parse).

use super::check::CheckRun;
use super::replay::{describe, read_lines_into};
use crate::checks::CheckConfig;
use crate::export::mermaid::Scope;
use crate::export::{Session, har, html, mermaid, stats};
use crate::protocol::IdKey;
use crate::protocol::sanitize::one_line;
use clap::{Args, ValueEnum};
use std::io::Write;
use std::path::PathBuf;

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// HAR 1.2 of an HTTP session: one entry per HTTP exchange, with its SSE events.
    Har,
    /// A Mermaid sequence diagram (progress bursts folded, findings as notes).
    Mermaid,
    /// Latency percentiles and counts per tool and method, errors, findings by rule.
    Json,
    /// One self-contained HTML page (Scope, Timeline, findings, calls) that opens offline.
    Html,
}

#[derive(Args, Debug, Clone)]
pub struct ExportArgs {
    /// A trace recorded with --record (by call, check, the TUI or the proxy).
    pub trace: PathBuf,
    /// What to export.
    #[arg(long, value_enum, required_unless_present = "otlp")]
    pub format: Option<ExportFormat>,
    /// Write to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// mermaid: only this call (the id of a request mcpscope or the host
    /// sent): it, its response, its progress and what its stream carried.
    #[arg(long, value_name = "ID")]
    pub call: Option<String>,
    /// Export only the events FILTER selects (docs/filters.md), each call
    /// whole: a call any of whose frames is selected (its request, response,
    /// progress, cancellation) is exported with all of them, and over HTTP
    /// with its POST exchange. The findings are still the whole trace's;
    /// those about exported frames go with them.
    #[arg(long, value_name = "FILTER")]
    pub only: Option<String>,
    #[command(flatten)]
    pub otlp: super::otlp::OtlpArgs,
}

fn usage(msg: &str) -> i32 {
    eprintln!("[error] {}", one_line(msg));
    2
}

pub async fn run(a: ExportArgs) -> i32 {
    if a.call.is_some() && a.format != Some(ExportFormat::Mermaid) {
        return usage("--call applies to --format mermaid only");
    }
    let otlp = match a.otlp.config() {
        Ok(c) => c,
        Err(e) => return usage(&e.0),
    };
    let only = match super::only::matcher(a.only.as_deref()) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let mut run: Option<CheckRun> = None;
    let read = read_lines_into(
        &a.trace,
        crate::trace::StoreLimits::default(),
        |header, store, seq, _| {
            let run = run
                .get_or_insert_with(|| CheckRun::new(CheckConfig::default().for_recording(header)));
            if let Some(ev) = store.get(seq) {
                run.observe(&ev);
            }
        },
    );
    let loaded = match read {
        Ok(l) => l,
        Err(e) => return usage(&e.to_string()),
    };
    if let Some(d) = &loaded.damage {
        eprintln!(
            "[warning] {}",
            one_line(&format!("{}: {d}", a.trace.display()))
        );
    }
    let mut findings = run
        .unwrap_or_else(|| CheckRun::new(CheckConfig::default().for_recording(&loaded.header)))
        .findings();
    let mut store = loaded.store;
    if let Some(m) = only {
        let source = m.filter.source().to_string();
        let all = (store.len(), findings.len());
        (store, findings) = only::select(&store, findings, m);
        eprintln!(
            "[only] {}: {} of {} events exported; {} of {} findings about them",
            one_line(&source),
            store.len(),
            all.0,
            findings.len(),
            all.1
        );
    }
    let session = Session {
        header: &loaded.header,
        store: &store,
        findings: &findings,
    };
    let mut code = 0;
    if let Some(cfg) = &otlp {
        code = match send(&session, cfg).await {
            Ok(c) => c,
            // Stopped by a signal: nothing more is written.
            Err(c) => return c,
        };
    }
    let Some(format) = a.format else {
        return code;
    };
    let text = match format {
        ExportFormat::Har => match har::har(&session) {
            Ok(v) => serde_json::to_string_pretty(&v).unwrap_or_default() + "\n",
            Err(e) => return usage(&e.to_string()),
        },
        ExportFormat::Json => {
            serde_json::to_string_pretty(&stats::stats(&session)).unwrap_or_default() + "\n"
        }
        ExportFormat::Mermaid => {
            let scope = match &a.call {
                None => Scope::Session,
                Some(id) => Scope::Call(call_id(&session, id)),
            };
            match mermaid::mermaid(&session, &scope, &describe) {
                Ok(t) => t,
                Err(e) => return usage(&e.to_string()),
            }
        }
        ExportFormat::Html => match html::html(&session, &crate::export::generator()) {
            Ok(t) => t,
            Err(e) => return usage(&e.to_string()),
        },
    };
    match &a.output {
        Some(path) => match std::fs::write(path, text) {
            Ok(()) => code,
            Err(e) => usage(&format!("cannot write {}: {e}", path.display())),
        },
        None => {
            let mut out = super::stdout::lock();
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            code
        }
    }
}

/// Send the session to the backend; 1 when a span was not taken, `Err`
/// with its exit code when a signal stopped the export.
async fn send(s: &Session<'_>, cfg: &crate::otel::export::Config) -> Result<i32, i32> {
    let ctx = crate::otel::export::Context::of_header(s.header, None);
    let folded = crate::otel::export::recorded::fold(s.store, s.findings, ctx);
    let deadline = crate::otel::export::deadline::recording();
    let mut signals = super::signals::Signals::install();
    let report = super::otlp::send_folded(folded, cfg, deadline, &mut signals).await?;
    Ok(if report.complete() { 0 } else { 1 })
}

/// `--call 3` names the integer id 3 or, when the session has none, the
/// string id "3"; `--call '"a"'` the string "a".
fn call_id(s: &Session<'_>, text: &str) -> IdKey {
    let sent = |id: &IdKey| {
        s.store
            .request(crate::trace::store::Origin::Client, id)
            .is_some()
    };
    let raw = IdKey::from_raw(text.trim());
    let string = IdKey::Str(text.into());
    if (!raw.is_valid() || !sent(&raw)) && sent(&string) {
        return string;
    }
    raw
}

/// `export --only FILTER`: the session cut down to what the filter selects.
///
/// A call is exported whole or not at all: a span, a HAR exchange, a
/// latency, a diagram's request arrow all need the request with its
/// response (and its progress, its cancellation), so when the filter
/// selects any frame of a call, every frame of that call goes (see
/// [`Calls`]), and over HTTP the POST exchange that carried its request
/// (its `post:N` channel: the `http` status, the stream that answered it).
/// Everything else (the handshake's notifications, logs, stderr,
/// mcpscope's own events) goes only when selected itself.
mod only {
    use crate::checks::Finding;
    use crate::diff::only::SeqSet;
    use crate::filter::{CallIndex, Matcher};
    use crate::protocol::frame::FrameKind;
    use crate::trace::store::flags;
    use crate::trace::{Dir, EventRef, Store, StoreLimits};
    use serde_json::Value;
    use std::collections::{HashMap, HashSet};

    /// Which call an event belongs to, by its request's seq: the frames
    /// the filter's `call` field gives a call (its request, its response,
    /// its progress by token, its cancellation by id), and mcpscope's own
    /// record of a request's end without a response (`timeout`, `cancel`
    /// by closing its stream), which names the request by id: without it
    /// an exported call would seem never to end.
    #[derive(Default)]
    struct Calls {
        index: CallIndex,
        /// The requests sent, by their id's JSON text.
        sent: HashMap<String, u64>,
    }

    impl Calls {
        fn observe(&mut self, ev: &EventRef<'_>) {
            self.index.observe(ev);
            if ev.dir == Dir::Out
                && ev.kind == FrameKind::Request
                && let Some(id) = ev.frame().id
            {
                self.sent.insert(id.to_value().to_string(), ev.seq);
            }
        }

        fn of(&self, ev: &EventRef<'_>) -> Option<u64> {
            if ev.dir == Dir::Meta {
                if !matches!(ev.method, Some("timeout" | "cancel")) {
                    return None;
                }
                let v: Value = serde_json::from_slice(ev.bytes).ok()?;
                return self.sent.get(&v.get("request")?.to_string()).copied();
            }
            self.index.of(ev).map(|c| c.seq)
        }
    }

    /// A store of the kept events, in order (numbered from 0, as a trace
    /// of only them would be), and the findings about them, their frames
    /// renumbered to match. A finding about no kept frame is left out, as
    /// `check --only` leaves out of its list one about no selected frame.
    pub fn select(store: &Store, findings: Vec<Finding>, mut m: Matcher) -> (Store, Vec<Finding>) {
        let (first, next) = (store.first_seq(), store.next_seq());
        // First pass: what the filter selects, and the calls of those
        // frames. The matcher sees every event in order (it follows the
        // calls); a call's response comes after its request, so which
        // calls go is known only at the end.
        let (mut selected, mut calls) = (SeqSet::default(), SeqSet::default());
        let mut exchanges = HashSet::new();
        let mut of = Calls::default();
        for ev in store.range(first, next) {
            of.observe(&ev);
            if m.test(&ev) {
                selected.insert(ev.seq);
                if let Some(c) = of.of(&ev) {
                    calls.insert(c);
                    if let Some(req) = store.get(c)
                        && req.channel.starts_with("post:")
                    {
                        exchanges.insert(req.channel.to_string());
                    }
                }
            }
        }
        // Second pass: those frames, every frame of those calls and every
        // event of their POST exchanges.
        let mut out = Store::new(StoreLimits {
            max_bytes: store.max_bytes(),
        });
        let mut kept = Vec::new();
        let mut of = Calls::default();
        for ev in store.range(first, next) {
            of.observe(&ev);
            let keep = selected.has(ev.seq)
                || exchanges.contains(ev.channel)
                || of.of(&ev).is_some_and(|c| calls.has(c));
            if keep {
                let in_batch = ev.flags & flags::IN_BATCH != 0;
                out.append_recorded(ev.dir, ev.channel, ev.t_us, ev.bytes, in_batch);
                kept.push(ev.seq);
            }
        }
        // `kept` is in increasing order: a frame's new seq is its place in it.
        let renumber = |s: &u64| kept.binary_search(s).ok().map(|i| i as u64);
        let findings = findings
            .into_iter()
            .filter_map(|mut f| {
                f.seqs = f.seqs.iter().filter_map(renumber).collect();
                (!f.seqs.is_empty()).then_some(f)
            })
            .collect();
        (out, findings)
    }
}
