//! Headless event lines on stderr: `[progress]`, `[log]`, `[notification]`,
//! `[stderr]`, `[protocol]`, `[http]`, `[finding]`. A view over the trace like any pane: it pulls new events
//! when the store signals a change.

use crate::protocol::frame::FrameKind;
use crate::protocol::methods;
use crate::protocol::sanitize::one_line;
use crate::protocol::task::{self, TaskState};
use crate::protocol::views::{LogView, ProgressView};
use crate::trace::store::flags;
use crate::trace::{Dir, EventRef, Trace};
use serde_json::Value;
use std::io::Write;

pub struct Printer {
    next: u64,
    quiet: bool,
    /// Our own calls, for the tool a progress token belongs to.
    calls: crate::calls::Tracker,
    /// Our requests' trace ids, for the call a received span belongs to.
    traces: crate::otel::lines::CallsByTrace,
    /// Findings already printed.
    findings_shown: usize,
    http: super::http_lines::HttpLines,
    /// The lines mcpscope's own probes draw, held until a fallback is known
    /// to have worked (then said only with `-v`).
    probes: super::probe_noise::ProbeNoise,
    /// The last status said per task, so each change is one `[task]` line.
    tasks: crate::calls::tasks::TaskBook,
    /// Tasks the answers to our requests named (the latest
    /// `BOOK_TASKS`); reports about any other task are a flood a server
    /// can make up without end: counted past the first few.
    known_tasks: std::collections::VecDeque<String>,
    unknown_tasks: crate::format::flood::Flood,
    /// Progress for tokens no request carried: counted, mostly not printed.
    strays: Strays,
    /// Findings by cause (rule, call, party, host session): a group's first
    /// finding is printed as it opens, the rest are counted and each group
    /// is said once at the end (the trace and `check --trace` keep each).
    groups: crate::checks::Grouper,
    /// `-v`: info-level groups are printed as they open too (otherwise
    /// only in the end's summary).
    pub verbose: bool,
    /// `--protocol auto`: the era was not chosen by the user, so the agreed
    /// one (and a fallback's reason) is said on a `[session]` line.
    pub say_era: bool,
}

/// `[task]` lines for tasks no answer to our requests named, printed in a
/// session; the rest are counted.
const UNKNOWN_TASKS_SHOWN: u64 = 16;

impl Printer {
    pub fn new(quiet: bool) -> Printer {
        Printer {
            next: 0,
            quiet,
            calls: crate::calls::Tracker::default(),
            traces: Default::default(),
            findings_shown: 0,
            http: Default::default(),
            probes: Default::default(),
            tasks: Default::default(),
            known_tasks: Default::default(),
            unknown_tasks: crate::format::flood::Flood::new(
                "[task]",
                "status reports for tasks no answer named",
                UNKNOWN_TASKS_SHOWN,
            ),
            strays: Strays::default(),
            groups: Default::default(),
            verbose: false,
            say_era: false,
        }
    }

    /// At the end of a session: what was counted rather than printed.
    pub fn summary(&mut self, out: &mut impl Write) {
        // A probe's lines never confirmed as its normal answer: said, as
        // `[http]` lines are, even when quiet.
        let mut buf = Vec::new();
        for l in self.probes.take() {
            let _ = writeln!(buf, "{l}");
        }
        if self.quiet {
            let _ = out.write_all(&buf);
            let _ = out.flush();
            return;
        }
        self.strays.summary(&mut buf);
        let counted = self.traces.summary().into_iter();
        for line in counted.chain(self.unknown_tasks.summary()) {
            let _ = writeln!(buf, "{line}");
        }
        // One line per group, worst first: `[finding] RULE ×N first #a last #b`.
        for g in self.groups.sorted() {
            let _ = write!(buf, "[finding] {} ×{}", g.rule, g.count);
            if let (Some(a), Some(b)) = (g.first_seq, g.last_seq) {
                let _ = write!(buf, " first #{a} last #{b}");
            }
            let _ = write!(buf, " ({}): {}", g.severity, one_line(&g.message));
            if let Some(s) = &g.session {
                let _ = write!(
                    buf,
                    " [session {}]",
                    crate::checks::finding::short_session(s)
                );
            }
            let _ = writeln!(buf);
        }
        let _ = out.write_all(&buf);
        let _ = out.flush();
    }

    /// Print the findings that open a group (one cause):
    /// `[finding] RULE-ID (severity) #seq…: message`; the group's further
    /// findings are counted for the summary. Info-level groups wait for the
    /// summary unless `-v`. `--quiet` means the result and errors only:
    /// findings are for `check`.
    pub fn findings(&mut self, checks: &crate::checks::LiveChecks, out: &mut impl Write) {
        if self.quiet {
            return;
        }
        let fresh = checks.findings_since(self.findings_shown);
        if fresh.is_empty() {
            return;
        }
        self.findings_shown += fresh.len();
        let mut buf = Vec::new();
        for f in fresh {
            let (_, opened) = self.groups.add(&f);
            if opened && (self.verbose || f.severity > crate::checks::Severity::Info) {
                let _ = writeln!(buf, "[finding] {}", one_line(&f.to_string()));
            }
        }
        let _ = out.write_all(&buf);
        let _ = out.flush();
    }

    /// Print everything appended since the last call.
    pub fn drain(&mut self, trace: &Trace, out: &mut impl Write) {
        loop {
            let mut buf = Vec::new();
            {
                let store = trace.read();
                let first = store.first_seq();
                if self.next < first {
                    // Said, not skipped silently: the bound outran the printer.
                    let _ = writeln!(
                        buf,
                        "[store] {} events were evicted from memory (--max-store) before they were printed",
                        first - self.next
                    );
                    self.next = first;
                }
                let end = store.next_seq().min(self.next + 10_000);
                if self.next >= end {
                    return;
                }
                for ev in store.range(self.next, end) {
                    self.line(&ev, &mut buf);
                }
                self.next = end;
            }
            // Write outside the lock: a slow terminal must not stall ingest.
            let _ = out.write_all(&buf);
            let _ = out.flush();
        }
    }

    fn line(&mut self, ev: &EventRef<'_>, buf: &mut Vec<u8>) {
        let start = buf.len();
        self.event_line(ev, buf);
        // Another line printed: the probe's held lines go before it.
        if buf.len() > start && self.probes.has_held() {
            let new = buf.split_off(start);
            for l in self.probes.take() {
                let _ = writeln!(buf, "{l}");
            }
            buf.extend_from_slice(&new);
        }
    }

    fn event_line(&mut self, ev: &EventRef<'_>, buf: &mut Vec<u8>) {
        match ev.dir {
            // Requests only: the calls' ends are not printed from here.
            Dir::Out => {
                self.probes.request(ev, self.say_era);
                self.calls.observe(ev);
                self.traces.observe_request(ev.seq, ev.bytes);
            }
            Dir::Stderr if !self.quiet => {
                let _ = writeln!(buf, "[stderr] {}", one_line(&ev.text()));
            }
            Dir::In => self.incoming(ev, buf),
            // Shown even when quiet, like `[protocol]`: the session may fail because of it.
            Dir::Meta if ev.method.is_some_and(|m| m.starts_with("otel-")) => {
                if !self.quiet
                    && let Some(l) = ev.event().and_then(|e| self.traces.line(&e))
                {
                    let _ = writeln!(buf, "{l}");
                }
            }
            Dir::Meta => {
                let event = ev.event();
                if self.probes.meta(event.as_ref()) == super::probe_noise::Outcome::FellBack {
                    let held = self.probes.take();
                    if self.verbose {
                        for l in held {
                            let _ = writeln!(buf, "{l}");
                        }
                    }
                }
                if let Some(crate::event::Event::AnswerRefused {
                    seq,
                    method,
                    reason,
                    answered,
                    ..
                }) = event
                {
                    let at = if seq > 0 {
                        format!(" #{seq}")
                    } else {
                        String::new()
                    };
                    // A decline stands in for defaults that could not be
                    // sent (`--elicit defaults`): said, but not a failure
                    // of the run, unlike content the user gave that did not fit.
                    let tag = if answered == "decline" {
                        "[answer]"
                    } else {
                        "[error]"
                    };
                    let _ = writeln!(
                        buf,
                        "{tag} {}{at}: {}; answered {}",
                        one_line(&method),
                        one_line(&reason),
                        one_line(&answered)
                    );
                } else if let Some(l) = session_line(ev, self.quiet || !self.say_era, self.verbose)
                {
                    let _ = writeln!(buf, "{}", one_line(&l));
                } else if let Some(l) = self.http.line(ev)
                    && let Some(l) = self.probes.hold(ev.channel, one_line(&l).into_owned())
                {
                    let _ = writeln!(buf, "{l}");
                }
            }
            _ => {}
        }
    }

    fn incoming(&mut self, ev: &EventRef<'_>, buf: &mut Vec<u8>) {
        if ev.flags & flags::CUT != 0 {
            let _ = writeln!(
                buf,
                "[protocol] #{} oversized: over the size cap, only its first {} bytes are kept ({})",
                ev.seq,
                ev.bytes.len(),
                one_line(&preview(ev))
            );
            return;
        }
        if !ev.kind.is_message() && ev.kind != FrameKind::Batch {
            self.not_a_message(ev, buf);
            return;
        }
        if ev.flags & flags::DUPLICATE != 0 {
            let _ = writeln!(
                buf,
                "[protocol] #{} a second response for the same request id",
                ev.seq
            );
        } else if ev.flags & flags::UNKNOWN_ID != 0 && !names_no_request(ev) {
            // An error with id null names no request at all: its own line below.
            let _ = writeln!(
                buf,
                "[protocol] #{} response for an id no request used",
                ev.seq
            );
        } else if ev.flags & flags::LATE != 0 {
            let _ = writeln!(
                buf,
                "[protocol] #{} late response, after the request was cancelled",
                ev.seq
            );
        }
        match ev.kind {
            FrameKind::Response => {
                let result = ev.frame().result;
                if let Some(why) = crate::checks::shape::result_not_object(result) {
                    let _ = writeln!(buf, "[protocol] #{} {}", ev.seq, one_line(&why));
                }
                // CreateTaskResult and tasks/get answers; cheap to rule out.
                if let Some(r) = result.filter(|r| task::may_report_task(r.get()))
                    && let Ok(v) = serde_json::from_str::<serde_json::Value>(r.get())
                    && let Some(t) = TaskState::of_result(&v)
                {
                    self.task_line(t, true, buf);
                }
                return;
            }
            FrameKind::ErrorResponse => {
                if names_no_request(ev) {
                    let why = crate::checks::shape::null_id_error(ev.frame().error);
                    let line = format!("[protocol] #{} {}", ev.seq, one_line(&why));
                    if let Some(l) = self.probes.hold(ev.channel, line) {
                        let _ = writeln!(buf, "{l}");
                    }
                }
                return;
            }
            FrameKind::Notification => {}
            _ => return,
        }
        match ev.method {
            // Well-formed progress (the store parsed it) prints nothing when quiet.
            Some(methods::PROGRESS) if self.quiet && ev.progress.is_some() => {}
            Some(methods::PROGRESS) => {
                self.progress_line(ev, buf);
            }
            Some(methods::TASKS_STATUS | methods::TASKS_NOTIFY) if !self.quiet => {
                let params = ev
                    .frame()
                    .params
                    .and_then(|p| serde_json::from_str::<serde_json::Value>(p.get()).ok());
                match params.as_ref().and_then(TaskState::of_notification) {
                    Some(t) => self.task_line(t, false, buf),
                    None => {
                        let _ = writeln!(
                            buf,
                            "[protocol] #{} invalid task status: taskId and status must be strings",
                            ev.seq
                        );
                    }
                }
            }
            Some(methods::MESSAGE) => {
                self.log_line(ev, buf);
            }
            // Any other notification, custom ones included: one line, its params compact.
            Some(method) if !self.quiet => {
                let params = ev.frame().params.map_or("", |p| p.get());
                let _ = writeln!(
                    buf,
                    "[notification] {} {}",
                    one_line(method),
                    one_line(&compact(params))
                );
            }
            _ => {}
        }
    }

    /// A frame that is not a JSON-RPC message: malformed, or the body of an
    /// HTTP error answer (held back while a probe may explain it).
    fn not_a_message(&mut self, ev: &EventRef<'_>, buf: &mut Vec<u8>) {
        let f = ev.frame();
        let status = self.http.error_body(ev.channel);
        let what = match status {
            Some(status) => format!("the body of an HTTP {status} answer, not JSON-RPC"),
            None => f.problem.unwrap_or_else(|| "malformed frame".into()),
        };
        let line = format!(
            "[protocol] #{} {}: {} ({})",
            ev.seq,
            ev.kind.label(),
            one_line(&what),
            one_line(&preview(ev))
        );
        let line = match status {
            Some(_) => self.probes.hold(ev.channel, line),
            None => Some(line),
        };
        if let Some(l) = line {
            let _ = writeln!(buf, "{l}");
        }
    }

    /// A `notifications/progress`: its call's line, or why it is invalid.
    fn progress_line(&mut self, ev: &EventRef<'_>, buf: &mut Vec<u8>) {
        let f = ev.frame();
        match ProgressView::parse(f.params) {
            Ok(p) if !self.quiet => {
                let key = p.token_key();
                // A tool call is named by its tool, any other request by its method.
                let tool = match self.calls.by_token(&key) {
                    Some(c) if c.method == methods::TOOLS_CALL => c.tool.as_deref().unwrap_or("?"),
                    Some(c) => c.method.as_str(),
                    None if !self.strays.note(&one_line(p.token.get()), buf) => return,
                    None => "?",
                };
                let message = p.message.as_deref().map(one_line);
                let line = crate::format::progress(p.progress, p.total, message.as_deref());
                let _ = writeln!(buf, "[progress] {tool} {line}");
            }
            Ok(_) => {}
            Err(why) => {
                let _ = writeln!(
                    buf,
                    "[protocol] #{} invalid progress: {}",
                    ev.seq,
                    one_line(&why.to_string())
                );
            }
        }
    }

    /// A `notifications/message`: its log line, and a bad level said.
    fn log_line(&self, ev: &EventRef<'_>, buf: &mut Vec<u8>) {
        let f = ev.frame();
        match LogView::parse(f.params) {
            Ok(l) => {
                if let Err(bad) = &l.level {
                    let _ = writeln!(
                        buf,
                        "[protocol] #{} log level {:?} is not an RFC 5424 level",
                        ev.seq,
                        one_line(bad)
                    );
                }
                if !self.quiet {
                    let level = match &l.level {
                        Ok(lv) => lv.as_str().to_string(),
                        Err(raw) => one_line(raw).to_string(),
                    };
                    let data = l.data_text();
                    match &l.logger {
                        Some(lg) => {
                            let _ = writeln!(
                                buf,
                                "[log] {level} {}: {}",
                                one_line(lg),
                                one_line(&data)
                            );
                        }
                        None => {
                            let _ = writeln!(buf, "[log] {level}: {}", one_line(&data));
                        }
                    }
                }
            }
            Err(why) => {
                let _ = writeln!(
                    buf,
                    "[protocol] #{} invalid log message: {}",
                    ev.seq,
                    one_line(&why.to_string())
                );
            }
        }
    }
}

impl Printer {
    /// `[task] ID STATUS MESSAGE`, once per change of a task's status or
    /// message; `answered`: an answer to our request named the task.
    fn task_line(&mut self, t: TaskState, answered: bool, buf: &mut Vec<u8>) {
        if self.quiet {
            return;
        }
        let known = self.known_tasks.contains(&t.task_id);
        if answered && !known {
            if self.known_tasks.len() >= crate::calls::tasks::BOOK_TASKS {
                self.known_tasks.pop_front();
            }
            self.known_tasks.push_back(t.task_id.clone());
        }
        if !self.tasks.changed(&t) {
            return;
        }
        if !answered
            && !known
            && let Err(count) = self.unknown_tasks.note()
        {
            if let Some(l) = count {
                let _ = writeln!(buf, "{l}");
            }
            return;
        }
        let _ = writeln!(
            buf,
            "[task] {} {}{}",
            one_line(&t.task_id),
            one_line(t.status.as_str()),
            t.message
                .map(|m| format!(" {}", one_line(&m)))
                .unwrap_or_default()
        );
    }
}

/// Progress for tokens no request carried, which a server can send without
/// end: the first `STRAYS_SHOWN` of each token are printed, the rest are
/// counted, with a line when the count reaches 1000, 10000, … and one at
/// the end. Beyond `MAX_STRAY_TOKENS` tokens they are counted together.
#[derive(Default)]
struct Strays {
    /// Each token as written (JSON), and its notifications so far.
    tokens: Vec<(String, u64)>,
    /// Notifications of the tokens past `MAX_STRAY_TOKENS`.
    others: u64,
}

const STRAYS_SHOWN: u64 = 3;
const MAX_STRAY_TOKENS: usize = 64;
const STRAY: &str = "no request carried";

impl Strays {
    /// Count one notification for `token`; whether it is printed as usual
    /// (a count line may be written to `buf` instead).
    fn note(&mut self, token: &str, buf: &mut Vec<u8>) -> bool {
        let known = self.tokens.iter().position(|(t, _)| t == token);
        let n = match known {
            Some(i) => {
                self.tokens[i].1 += 1;
                self.tokens[i].1
            }
            None if self.tokens.len() < MAX_STRAY_TOKENS => {
                self.tokens.push((token.to_string(), 1));
                1
            }
            None => {
                self.others += 1;
                if self.others == 1 {
                    let _ = writeln!(
                        buf,
                        "[progress] ? more than {MAX_STRAY_TOKENS} tokens {STRAY}: the notifications of the others are counted, not shown"
                    );
                } else if crate::format::flood::milestone(self.others) {
                    let _ = writeln!(
                        buf,
                        "[progress] ? {} notifications so far for other tokens {STRAY}",
                        self.others
                    );
                }
                return false;
            }
        };
        if n <= STRAYS_SHOWN {
            return true;
        }
        if crate::format::flood::milestone(n) {
            let _ = writeln!(
                buf,
                "[progress] ? {token}: {n} notifications so far for a token {STRAY} (the first {STRAYS_SHOWN} shown)"
            );
        }
        false
    }

    fn summary(&self, buf: &mut Vec<u8>) {
        for (token, n) in self.tokens.iter().filter(|(_, n)| *n > STRAYS_SHOWN) {
            let _ = writeln!(
                buf,
                "[progress] ? {token}: {n} notifications in all for a token {STRAY} (the first {STRAYS_SHOWN} shown)"
            );
        }
        if self.others > 0 {
            let _ = writeln!(
                buf,
                "[progress] ? {} notifications in all for other tokens {STRAY} (none shown)",
                self.others
            );
        }
    }
}

/// Params on one line: re-serialised compact when they parse (pretty-printed
/// JSON spans lines), else as sent.
fn compact(raw: &str) -> String {
    serde_json::from_str::<serde_json::Value>(raw)
        .ok()
        .and_then(|v| serde_json::to_string(&v).ok())
        .unwrap_or_else(|| raw.to_string())
}

/// An error response with `id: null`.
fn names_no_request(ev: &EventRef<'_>) -> bool {
    ev.kind == FrameKind::ErrorResponse && ev.frame().id.is_some_and(|id| !id.is_valid())
}

fn preview(ev: &EventRef<'_>) -> String {
    let t = ev.text();
    let mut s: String = t.chars().take(120).collect();
    if t.chars().count() > 120 {
        s.push('…');
    }
    s
}

/// The era the session runs in, said once at its start (`--protocol auto`
/// may have chosen either): the revision, and why discovery fell back.
fn session_line(ev: &EventRef<'_>, silent: bool, verbose: bool) -> Option<String> {
    if silent {
        return None;
    }
    match ev.event()? {
        crate::event::Event::Negotiated {
            era,
            protocol_version,
            server_info,
            requested,
            ..
        } => {
            let name = server_info
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("server");
            let version = server_info
                .get("version")
                .and_then(Value::as_str)
                .map(|v| format!(" {v}"))
                .unwrap_or_default();
            let era = if era.as_deref() == Some("stateless") {
                "stateless"
            } else {
                "initialize handshake"
            };
            // A revision newer than mcpscope knows: the session goes on at
            // the one it offered.
            let going_on = match requested {
                Some(r) if crate::protocol::Revision::is_newer_than_known(&protocol_version) => {
                    format!(", newer than mcpscope knows: going on at {r}")
                }
                _ => String::new(),
            };
            Some(format!(
                "[session] {name}{version} · protocol {protocol_version} ({era}{going_on})"
            ))
        }
        crate::event::Event::Era {
            era,
            reason,
            refused,
        } => {
            let next = if era == "stateless" {
                "discovering again (server/discover)"
            } else if verbose || !refused {
                "falling back to the handshake era (initialize)"
            } else {
                // The probe's normal answer from a server of that era: the
                // `[session]` line that follows names the era.
                return None;
            };
            Some(format!("[session] {reason}; {next}"))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{ManualClock, Store};

    #[test]
    fn lines_follow_the_contract() {
        let trace = Trace::new(Store::default(), ManualClock::new());
        let frames: &[(Dir, &str)] = &[
            (
                Dir::Out,
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"upload_file","arguments":{},"_meta":{"progressToken":"t"}}}"#,
            ),
            (
                Dir::In,
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1048576,"total":5242880,"message":"Read 1048576 / 5242880 bytes, preparing the upload"}}"#,
            ),
            (
                Dir::In,
                r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2.5}}"#,
            ),
            (
                Dir::In,
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","logger":"tracker","data":{"k":1}}}"#,
            ),
            (
                Dir::In,
                r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"plain\u001b[2J"}}"#,
            ),
            (Dir::In, "Listening on 3000"),
        ];
        trace.append(|s, now| {
            for (d, f) in frames {
                s.append_frame(*d, "stdio", now, f.as_bytes(), &mut Vec::new());
            }
            s.append_stderr("stdio", now, b"boot \x1b[31mok");
        });
        let mut out = Vec::new();
        Printer::new(false).drain(&trace, &mut out);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "[progress] upload_file 1048576/5242880 (20%) Read 1048576 / 5242880 bytes, preparing the upload"
        );
        assert_eq!(lines[1], "[progress] upload_file 2.5");
        assert_eq!(lines[2], r#"[log] warning tracker: {"k":1}"#);
        assert_eq!(lines[3], "[log] info: plain␛[2J");
        assert!(
            lines[4].starts_with("[protocol] #5 not-json: not JSON"),
            "{}",
            lines[4]
        );
        assert_eq!(lines[5], "[stderr] boot ␛[31mok");
        assert_eq!(lines.len(), 6);

        let mut quiet = Vec::new();
        Printer::new(true).drain(&trace, &mut quiet);
        assert_eq!(String::from_utf8(quiet).unwrap().lines().count(), 1);
    }
}
