//! Progress: one gauge per call, three rows each. With a total: a percent
//! bar, rate and ETA; without: an indeterminate bar with count, rate and
//! elapsed. Always the last message, time since the last notification
//! (stale ones highlighted), idle/max countdowns; finished calls keep their
//! final state, count, duration and time to first progress. A call whose
//! result is `input_required` says what the server asked for, and that `a`
//! answers it. A call running as a task keeps its gauge: the head row
//! names the task and its status (coloured), the third row its status
//! message. The details view (`d`) shows the selected call alone with
//! its task's status history and its timing statistics.

use crate::calls::tasks::TaskView;
use crate::format::{bytes, duration, duration_fine};
use crate::protocol::meta;
use crate::protocol::task::TaskStatus;
use crate::protocol::trace_context::{self, TraceParent};
use crate::trace::Store;
use crate::tui::action::Action;
use crate::tui::calls::{Call, CallStatus, Gauge};
use crate::tui::chrome::{cut_line, fit, full_width, inner};
use crate::tui::format::{amount as num, count, per_second as rate};
use crate::tui::keymap::Context;
use crate::tui::overlays::intercept::HeldPart;
use crate::tui::pane::Pane;
use crate::tui::panes::findings::view::{severity_color, severity_glyph};
use crate::tui::screen::Body;
use crate::tui::screen::View;
use crate::tui::theme::Theme;
use crate::tui::ui::hits;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

/// The pane's rows, read from the store (the caller holds its lock), and
/// which call each drawn row shows.
pub fn prepare(area: Rect, st: &View, store: &Store) -> Body {
    let n = st.panes.progress.calls.list.len();
    let info = if st.panes.progress.details && n > 0 {
        format!(
            "· details · call {} of {n} (↑↓ another, d the list)",
            st.panes.progress.cursor.selected + 1
        )
    } else {
        format!(
            "· {} running · {} total · units {}",
            st.panes.progress.calls.running(),
            n,
            st.panes.progress.byte_mode.label()
        )
    };
    let inner = inner(area);
    let w = inner.width as usize;
    let mut lines: Vec<Line> = Vec::new();
    if n == 0 {
        lines.push(Line::styled(
            " No calls yet. Pick a tool (5), edit its arguments (6) and send (s), or start with --run 'TOOL JSON'.",
            st.shell.theme.muted(),
        ));
    }
    let pr = &st.panes.progress;
    if pr.details
        && let Some(c) = pr.selected_call()
    {
        let g = Gauge::of(c, store, pr.byte_mode);
        lines.extend(call_lines(c, &g, st, w));
        if let Some(task) = &c.task {
            lines.extend(task_lines(task, c.sent_us, st));
        }
        lines.extend(super::steps::lines(c, st));
        lines.extend(detail_lines(c, st, store));
        // Only the call's own three rows: the statistics name no other call.
        let sel = pr.cursor.selected;
        let rows = hits::uniform(inner.y, sel, sel + 1, 3);
        return Body { info, lines, rows };
    }
    let height = inner.height as usize;
    let start = pr
        .order
        .window(n, pr.cursor.selected, pr.cursor.offset, height);
    let mut rows = Vec::new();
    let mut y = inner.y;
    for pos in start..n {
        let Some(c) = pr.call_at(pos) else { break };
        let h = pr.order.height(pos);
        if (y - inner.y) as usize + h as usize > height {
            break;
        }
        rows.extend(hits::uniform(y, pos, pos + 1, h));
        y += h;
        let selected = pos == pr.cursor.selected && st.shell.focus == Pane::Progress;
        let drawn: Vec<Line> = if h == 1 {
            vec![one_line(c, st)]
        } else {
            let g = Gauge::of(c, store, pr.byte_mode);
            call_lines(c, &g, st, w).into()
        };
        // Only the head row is highlighted: a selection colour behind the
        // bar would hide its empty part.
        for (k, l) in drawn.into_iter().enumerate() {
            let l = cut_line(l, w);
            lines.push(if selected && k == 0 {
                full_width(l, w, st.shell.theme.selected())
            } else {
                l
            });
        }
    }
    Body { info, lines, rows }
}

pub fn status_color(t: &Theme, s: CallStatus) -> Color {
    match s {
        CallStatus::Running => t.state_running,
        CallStatus::Done => t.state_done,
        CallStatus::ToolError | CallStatus::RpcError | CallStatus::Failed => t.state_error,
        CallStatus::Cancelled => t.state_cancelled,
        CallStatus::TimedOut => t.state_timeout,
        CallStatus::Crashed => t.state_crashed,
        CallStatus::InputRequired => t.warn,
    }
}

/// A task status's colour: working runs, input_required waits for the
/// user, the terminal ones as the call states they end in.
fn task_color(t: &Theme, status: &str) -> Color {
    match status {
        "working" => t.state_running,
        "input_required" => t.warn,
        "completed" => t.state_done,
        "failed" => t.state_error,
        "cancelled" => t.state_cancelled,
        _ => t.fg,
    }
}

fn icon(s: CallStatus, now_us: u64) -> &'static str {
    const SPIN: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
    match s {
        CallStatus::Running => SPIN[((now_us / 100_000) % 10) as usize],
        CallStatus::Done => "✓",
        CallStatus::ToolError | CallStatus::RpcError | CallStatus::Failed => "✗",
        CallStatus::Cancelled => "⊘",
        CallStatus::TimedOut => "⧖",
        CallStatus::Crashed => "☠",
        CallStatus::InputRequired => "✎",
    }
}

/// The numbers next to the bar, in the call's units.
fn amount(g: &Gauge) -> String {
    let Some(p) = g.progress else {
        return if g.malformed {
            "malformed progress".into()
        } else {
            "waiting for progress".into()
        };
    };
    match g.total {
        Some(t) if g.zero_based_steps => {
            if p < t {
                format!("step {} of {}", num(p + 1.0), num(t))
            } else {
                format!("{} of {} steps done", num(t), num(t))
            }
        }
        Some(t) if g.bytes => format!("{} / {}", bytes(p), bytes(t)),
        Some(t) => format!("{} / {}", num(p), num(t)),
        None if g.bytes => bytes(p),
        None => format!("progress {}", num(p)),
    }
}

fn bar(t: &Theme, width: usize, g: &Gauge, c: &Call, now_us: u64) -> Vec<Span<'static>> {
    let running = c.status.is_running();
    let fill_color = if running {
        t.gauge_fill
    } else {
        status_color(t, c.status)
    };
    let fill = Style::default().fg(fill_color);
    let empty = Style::default().fg(t.gauge_empty);
    match g.ratio() {
        Some(r) => {
            let eighths = (r * width as f64 * 8.0).round() as usize;
            let full = (eighths / 8).min(width);
            let part = if full < width { eighths % 8 } else { 0 };
            const PARTS: [&str; 8] = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"];
            let mut spans = vec![Span::styled("█".repeat(full), fill)];
            let mut used = full;
            if part > 0 {
                spans.push(Span::styled(PARTS[part], fill));
                used += 1;
            }
            spans.push(Span::styled("░".repeat(width - used), empty));
            spans
        }
        None if !running => vec![Span::styled("█".repeat(width), fill)],
        None => {
            // A pulse sweeping back and forth: alive, but no promise of an end.
            let pulse = 6.min(width);
            let span = (width - pulse).max(1);
            let step = (now_us / 80_000) as usize % (2 * span);
            let pos = if step < span { step } else { 2 * span - step };
            vec![
                Span::styled("░".repeat(pos), empty),
                Span::styled("█".repeat(pulse), Style::default().fg(t.gauge_pulse)),
                Span::styled("░".repeat(width - pulse - pos), empty),
            ]
        }
    }
}

/// A call's head row: state, tool, id/token, its task, elapsed.
fn head_spans(c: &Call, st: &View) -> Vec<Span<'static>> {
    let t = &st.shell.theme;
    let now = st.shell.now_us;
    let running = c.status.is_running();
    let elapsed = c.end_us.unwrap_or(now).saturating_sub(c.sent_us);
    let color = status_color(t, c.status);
    // Row 1: state, tool, id/token, elapsed.
    let mut ids = format!("id {}", c.id);
    match &c.token {
        Some(tok) => ids.push_str(&format!(" · token {tok}")),
        None => ids.push_str(" · no token"),
    }
    let mut head = vec![
        Span::styled(
            format!(" {} ", icon(c.status, now)),
            Style::default().fg(color).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            c.tool.clone(),
            Style::default().fg(t.fg).add_modifier(Modifier::BOLD),
        ),
    ];
    // The call's findings, by their worst: what to look at in Findings.
    if let Some(m) = st.panes.findings.call_mark(&c.id, c.token.as_ref()) {
        let more = if m.count > 1 {
            format!(" +{}", m.count - 1)
        } else {
            String::new()
        };
        head.push(Span::styled(
            format!("  {} {}{more}", severity_glyph(m.severity), m.rule),
            Style::default()
                .fg(severity_color(t, m.severity))
                .add_modifier(Modifier::BOLD),
        ));
    }
    head.push(Span::styled(format!("  {ids}  "), t.muted()));
    if let Some(task) = &c.task {
        head.push(Span::styled(
            format!("task {} ", task.short_id()),
            t.muted(),
        ));
        head.push(Span::styled(
            format!("{}  ", task.status),
            Style::default()
                .fg(task_color(t, task.status.as_str()))
                .add_modifier(Modifier::BOLD),
        ));
    }
    head.extend([Span::styled(
        if running {
            format!("running {}", duration(elapsed))
        } else {
            format!("{} in {}", c.status.label(), duration(elapsed))
        },
        Style::default().fg(color).add_modifier(Modifier::BOLD),
    )]);
    // `attach --intercept`: the recording has what the proxy read, so a
    // call whose result is held reads as done while its host still waits.
    if let Some((part, since)) = st
        .overlays
        .intercept
        .as_ref()
        .and_then(|ic| ic.holding(&c.id))
    {
        let part = match part {
            HeldPart::Request => "request",
            HeldPart::Response => "result",
        };
        head.push(Span::styled(
            format!("  ⏸ {part} held {}", duration(now.saturating_sub(since))),
            Style::default().fg(t.warn).add_modifier(Modifier::BOLD),
        ));
    }

    head
}

/// A finished call that sent no progress, on one row: its head, then
/// that nothing came, then its note.
fn one_line(c: &Call, st: &View) -> Line<'static> {
    let t = &st.shell.theme;
    let mut spans = head_spans(c, st);
    let why = if c.token.is_some() {
        " · no progress sent"
    } else {
        " · no progress asked for"
    };
    spans.push(Span::styled(why, t.muted()));
    if !c.note.is_empty() {
        spans.push(Span::styled(
            format!(" · {}", c.note),
            Style::default().fg(status_color(t, c.status)),
        ));
    }
    Line::from(spans)
}

fn call_lines(c: &Call, g: &Gauge, st: &View, w: usize) -> [Line<'static>; 3] {
    let t = &st.shell.theme;
    let now = st.shell.now_us;
    let running = c.status.is_running();
    let end = c.end_us.unwrap_or(now);
    let elapsed = end.saturating_sub(c.sent_us);
    let color = status_color(t, c.status);

    let mut head = head_spans(c, st);
    // Progress that came after the call's result (a server bug the rules
    // flag): said where the call ends, so it does not read as a plain done.
    if let (Some(end), Some(last)) = (c.end_us, g.last_us)
        && last > end
    {
        head.push(Span::styled(
            " · progress after the result",
            Style::default()
                .fg(t.lane_late)
                .add_modifier(Modifier::BOLD),
        ));
    }

    // Row 2: the bar and its numbers.
    let mut row2 = vec![Span::raw("   ")];
    if c.latest.token.is_none() {
        row2.push(Span::styled(
            "no progress token: a correct server sends no progress for this call",
            t.muted(),
        ));
    } else {
        let label = amount(g);
        let mut extra = String::new();
        if let Some(r) = g.ratio() {
            extra.push_str(&format!("  {:>3}%", (r * 100.0).floor() as u64));
            if g.total
                .is_some_and(|tot| g.progress.is_some_and(|p| p > tot))
            {
                extra.push_str(" (over total!)");
            }
        }
        if let Some(r) = g.rate.filter(|r| *r > 0.0) {
            if g.bytes {
                extra.push_str(&format!(" · {}/s", bytes(r)));
            } else if g.total.is_some() {
                extra.push_str(&format!(" · {}/s", rate(r)));
            }
        }
        if g.total.is_none() && g.notifications > 0 {
            let secs = (elapsed as f64 / 1e6).max(1e-3);
            extra.push_str(&format!(
                " · {} · {}/s",
                updates(g.notifications),
                rate(g.notifications as f64 / secs)
            ));
        }
        if running && let Some(eta) = g.eta_us() {
            extra.push_str(&format!(" · ETA {}", duration(eta)));
        }
        let text_w = label.width() + extra.width() + 2;
        let bar_w = w.saturating_sub(text_w + 4).clamp(8, 48);
        row2.extend(bar(t, bar_w, g, c, now));
        row2.push(Span::styled(
            format!(" {label}"),
            Style::default().fg(t.fg).add_modifier(Modifier::BOLD),
        ));
        row2.push(Span::styled(extra, t.muted()));
    }

    // Row 3: the task's status message, the progress message, then timing.
    let mut row3 = vec![Span::raw("   ")];
    if let Some(task) = &c.task {
        if let Some(m) = task.message.as_deref().filter(|m| !m.is_empty()) {
            let room = (w / 2).max(20);
            row3.push(Span::styled(
                crate::tui::chrome::fit(m, room.min(m.width())),
                Style::default().fg(task_color(t, task.status.as_str())),
            ));
            row3.push(Span::styled(" · ", t.muted()));
        }
        if task.status == TaskStatus::InputRequired && running {
            let key = st
                .shell
                .keymap
                .keys_for(Context::Global, Action::AnswerServer)
                .first()
                .map(|k| k.to_string())
                .unwrap_or_default();
            // Its request names the task (related-task `_meta`); one that
            // does not is taken as its own when it is the only one.
            let id = crate::tui::format::safe_row(&task.id);
            let mine = st
                .overlays
                .asks
                .waiting
                .iter()
                .any(|a| a.task.as_deref() == Some(&id))
                || (st.overlays.asks.waiting.len() == 1
                    && st.overlays.asks.waiting[0].task.is_none());
            let waiting = if !mine {
                "waiting for its request".to_string()
            } else {
                format!("{key} answers it")
            };
            row3.push(Span::styled(
                format!("{waiting} · "),
                Style::default().fg(t.warn).add_modifier(Modifier::BOLD),
            ));
        }
    }
    let msg = g.message.clone().unwrap_or_default();
    if !msg.is_empty() {
        let room = (w / 2).max(20);
        row3.push(Span::styled(
            crate::tui::chrome::fit(&msg, room.min(msg.width())),
            Style::default().fg(t.fg),
        ));
        row3.push(Span::styled(" · ", t.muted()));
    }
    let mut stats: Vec<Span<'static>> = Vec::new();
    if c.latest.token.is_some() {
        stats.push(Span::styled(updates(g.notifications), t.muted()));
        if let Some(first) = g.first_us {
            stats.push(Span::styled(
                format!(
                    " · first after {}",
                    duration(first.saturating_sub(c.latest.sent_us))
                ),
                t.muted(),
            ));
        }
    }
    let limits = st.panes.progress.calls.limits(c);
    // A question of the server's waits for the user: the call waits for
    // them, not for the server, and its idle limit is paused meanwhile.
    let asked = st
        .overlays
        .asks
        .waiting
        .iter()
        .filter(|a| a.arrived_us >= c.sent_us)
        .map(|a| a.arrived_us)
        .min()
        // A task waiting for input says so itself, with the key.
        .filter(|_| {
            running
                && c.task
                    .as_ref()
                    .is_none_or(|t| t.status != TaskStatus::InputRequired)
        });
    if let Some(since) = asked {
        let key = st
            .shell
            .keymap
            .keys_for(Context::Global, Action::AnswerServer)
            .first()
            .map(|k| k.to_string())
            .unwrap_or_default();
        stats.push(Span::styled(
            format!(
                " · ⏸ waiting for your answer — {key} ({})",
                duration(now.saturating_sub(since))
            ),
            Style::default().fg(t.warn).add_modifier(Modifier::BOLD),
        ));
        if limits.is_some_and(|l| l.idle.is_some()) {
            stats.push(Span::styled(" · idle paused", t.muted()));
        }
    } else if running {
        let last = g.last_us.unwrap_or(c.latest.sent_us);
        let since = now.saturating_sub(last);
        let stale = since > st.panes.progress.stale_after_us;
        let when = if g.last_us.is_some() {
            format!("last {} ago", duration(since))
        } else {
            format!("nothing in {}", duration(since))
        };
        stats.push(Span::styled(
            format!(" · {when}{}", if stale { " ⚠ stale" } else { "" }),
            if stale {
                Style::default().fg(t.stale).add_modifier(Modifier::BOLD)
            } else {
                t.muted()
            },
        ));
        // Once a task runs, its result is awaited from the task's creation
        // under the max limit only (a task may be long; the polls show it
        // is alive).
        let task_from = c
            .task
            .as_ref()
            .and_then(|t| t.history.first())
            .map(|s| s.t_us);
        if let Some(l) = limits {
            if let Some(idle) = l.idle.filter(|_| task_from.is_none()) {
                let at = c
                    .latest
                    .sent_us
                    .max(g.last_us.unwrap_or(0))
                    .saturating_add(u64::try_from(idle.as_micros()).unwrap_or(u64::MAX));
                stats.push(Span::styled(
                    format!(" · idle {}", duration(at.saturating_sub(now))),
                    t.muted(),
                ));
            }
            if let Some(max) = l.max {
                let at = task_from
                    .unwrap_or(c.latest.sent_us)
                    .saturating_add(u64::try_from(max.as_micros()).unwrap_or(u64::MAX));
                stats.push(Span::styled(
                    format!(" · max {}", duration(at.saturating_sub(now))),
                    t.muted(),
                ));
            }
        }
    }
    if !c.note.is_empty() {
        stats.push(Span::styled(
            format!(" · {}", c.note),
            Style::default().fg(color),
        ));
    }
    // What was asked shows until it is answered: a retry carries the
    // call on (its rounds say so), a task moves on.
    if let Some(inp) = c.input.as_ref().filter(|i| i.answered_by.is_none()) {
        let asks: Vec<String> = inp.asks.iter().map(|a| a.summary()).collect();
        let asks = if asks.is_empty() {
            "nothing named".to_string()
        } else {
            asks.join(" · ")
        };
        stats.push(Span::styled(
            format!(" · needs {asks}"),
            Style::default().fg(color).add_modifier(Modifier::BOLD),
        ));
        let next = match &inp.answered_by {
            Some(id) => format!(" · answered by id {id}"),
            // A task's requests are answered through the forms only (the
            // answers go as tasks/update); a result's also by a hand retry.
            None if inp.task.is_some() => match st
                .shell
                .keymap
                .keys_for(Context::Global, Action::AnswerServer)
                .first()
            {
                Some(k) => format!(" · {k} answers it"),
                None => String::new(),
            },
            None => match st
                .shell
                .keymap
                .keys_for(
                    Context::Pane(crate::tui::pane::Pane::Progress),
                    Action::AnswerInput,
                )
                .first()
            {
                Some(k) => format!(" · {k} answers it"),
                None => String::new(),
            },
        };
        stats.push(Span::styled(next, t.muted()));
    }
    // Where its input rounds stand, after what is asked now.
    if let Some(rounds) = super::steps::summary(&c.steps) {
        stats.push(Span::styled(format!(" · {rounds}"), t.muted()));
    }
    if stats.first().is_some_and(|s| s.content.starts_with(" · ")) {
        let s0 = stats[0].content.trim_start_matches(" · ").to_string();
        stats[0].content = s0.into();
    }
    row3.extend(stats);
    [Line::from(head), Line::from(row2), Line::from(row3)]
}

/// The details view under the selected call's gauge: its timing statistics
/// (kept incrementally for this call only, see `timing.rs`) and frames.
fn detail_lines(c: &Call, st: &View, store: &Store) -> Vec<Line<'static>> {
    let t = &st.shell.theme;
    let label = |s: &str| Span::styled(format!("   {s:<26}"), t.muted());
    let value = |s: String| Span::styled(s, Style::default().fg(t.fg));
    let mut out = vec![Line::styled(
        "   ── timing ── (d: back to the list)",
        t.fg(t.accent).add_modifier(Modifier::BOLD),
    )];
    let tm = &st.panes.progress.timing;
    // The request carrying the call now (its latest round's) is timed.
    if c.latest.token.is_none() {
        out.push(Line::from(vec![
            label("progress"),
            value("no progress token: nothing to time".into()),
        ]));
    } else if tm.id.as_ref() != Some(&c.latest.id) {
        out.push(Line::from(vec![
            label("progress"),
            value("reading…".into()),
        ]));
    } else {
        out.push(Line::from(vec![
            label("time to first progress"),
            value(
                tm.first_after_us()
                    .map_or("no progress yet".into(), duration),
            ),
        ]));
        let spread = match (tm.min_gap_us, tm.median_gap_us(), tm.max_gap_us) {
            (Some(lo), Some(med), Some(hi)) => {
                format!(
                    "min {} · median {} · max {}",
                    duration_fine(lo),
                    duration_fine(med),
                    duration_fine(hi)
                )
            }
            _ => "needs two notifications".into(),
        };
        out.push(Line::from(vec![
            label("between notifications"),
            value(spread),
        ]));
        let end = c.end_us.unwrap_or(st.shell.now_us);
        let per_s = tm
            .per_second(end)
            .map_or("—".into(), |r| format!("{}/s", rate(r)));
        out.push(Line::from(vec![
            label("notifications per second"),
            value(format!(
                "{per_s} ({} over {})",
                crate::format::thousands(tm.count),
                duration(end.saturating_sub(c.sent_us))
            )),
        ]));
    }
    let response = store
        .request(crate::trace::Origin::Client, &c.latest.id)
        .and_then(|r| r.response_seq);
    let sent = c.latest.request_seq;
    out.push(Line::from(vec![
        label("frames"),
        value(match response {
            Some(r) => format!("request #{sent} · response #{r}"),
            None => format!("request #{sent} · no response yet"),
        }),
    ]));
    if let Some(tp) = store.get(c.request_seq).and_then(|ev| traceparent(&ev)) {
        out.push(Line::from(vec![
            label("trace (W3C traceparent)"),
            value(format!("{} · span {}", tp.trace_id, tp.parent_id)),
        ]));
        let spans = &st.panes.progress.spans;
        if spans.trace_id.as_deref() == Some(tp.trace_id.as_str()) {
            out.extend(span_lines(spans, c.sent_us, st));
        }
    }
    out
}

/// Waterfall rows (a span's line and its attribute line) drawn at most;
/// the spans left out are counted.
const MAX_SPAN_ROWS: usize = 32;
/// A span's start after `origin_ns`, signed (a server's clock may run a
/// little behind the request's).
fn offset(start_ns: u64, origin_ns: u64) -> String {
    if start_ns >= origin_ns {
        format!("+{}", duration_fine((start_ns - origin_ns) / 1000))
    } else {
        format!("-{}", duration_fine((origin_ns - start_ns) / 1000))
    }
}

/// Characters of a span's attribute line (the pane cuts it at its edge).
const ATTR_COLS: usize = 160;
/// Columns of the waterfall's bar.
const BAR_COLS: usize = 24;

/// The server's spans of the call's trace: name (children indented under
/// their parent), a bar placing the span in the time the spans cover, its
/// duration, its start after the request (or the first span), kind and
/// status; under it,
/// its status message and attributes on one muted line.
fn span_lines(
    spans: &crate::calls::spans::CallSpans,
    sent_us: u64,
    st: &View,
) -> Vec<Line<'static>> {
    let t = &st.shell.theme;
    let total = spans.spans.len() as u64 + spans.more;
    let first = spans.first_start_ns().unwrap_or(0);
    // Offsets count from the request when the session's wall-clock start
    // is known exactly (a live session; span times are wall-clock), else
    // from the first span (a recording knows its start to the second).
    let (origin_ns, origin) = match st.panes.scope.wall.filter(|w| w.exact) {
        Some(w) => (
            w.unix_us.saturating_add(sent_us).saturating_mul(1000),
            "the request",
        ),
        None => (first, "the first span"),
    };
    let mut out = vec![Line::styled(
        format!(
            "   ── server spans ({}) · start after {origin} ──",
            count(total, "span", "spans")
        ),
        t.fg(t.accent).add_modifier(Modifier::BOLD),
    )];
    if total == 0 {
        out.push(Line::styled(
            "   none yet (a server that exports spans to the OTLP receiver shows them here, also after the response)",
            t.muted(),
        ));
        return out;
    }
    let last = spans.spans.iter().map(|s| s.end_ns).max().unwrap_or(first);
    let range = last.saturating_sub(first).max(1) as u128;
    let col = |ns: u64| (u128::from(ns.saturating_sub(first)) * BAR_COLS as u128 / range) as usize;
    let rows = spans.waterfall();
    let (mut used, mut drawn) = (0, 0u64);
    for p in &rows {
        let height = if p.span.attributes.is_empty() { 1 } else { 2 };
        if used + height > MAX_SPAN_ROWS {
            break;
        }
        used += height;
        drawn += 1;
        let s = p.span;
        let indent = "  ".repeat(p.depth.min(8));
        let name = format!("{indent}{}", crate::tui::format::safe(&s.name, 60));
        let a = col(s.start_ns).min(BAR_COLS - 1);
        let b = col(s.end_ns).clamp(a + 1, BAR_COLS);
        let bar = format!(
            "{}{}{}",
            " ".repeat(a),
            "▇".repeat(b - a),
            " ".repeat(BAR_COLS - b)
        );
        let status_style = match s.status.as_str() {
            "error" => Style::default().fg(t.error).add_modifier(Modifier::BOLD),
            "ok" => Style::default().fg(t.ok),
            _ => t.muted(),
        };
        out.push(Line::from(vec![
            Span::raw("   "),
            Span::styled(format!("{} ", fit(&name, 32)), Style::default().fg(t.fg)),
            Span::styled(bar, Style::default().fg(t.accent)),
            Span::styled(
                format!(" {:>8}", duration_fine(s.duration_us())),
                Style::default().fg(t.fg),
            ),
            Span::styled(format!(" {:<9}", offset(s.start_ns, origin_ns)), t.muted()),
            Span::styled(
                format!(" {:<8} ", crate::tui::format::safe(&s.kind, 11)),
                t.muted(),
            ),
            Span::styled(crate::tui::format::safe(&s.status, 8), status_style),
        ]));
        if !s.attributes.is_empty() {
            out.push(Line::styled(
                format!(
                    "   {indent}    {}",
                    crate::tui::format::safe(&s.attributes, ATTR_COLS)
                ),
                t.muted(),
            ));
        }
    }
    let left = total.saturating_sub(drawn);
    if left > 0 {
        out.push(Line::styled(
            format!(
                "   … {} more {}",
                crate::format::thousands(left),
                if left == 1 { "span" } else { "spans" }
            ),
            t.muted(),
        ));
    }
    out
}

/// The trace context the request carried in `_meta` (SEP-414), when it is
/// a valid one: what a server's spans of this call are filed under.
pub(super) fn traceparent(ev: &crate::trace::EventRef<'_>) -> Option<TraceParent> {
    let params: serde_json::Value = serde_json::from_str(ev.frame().params?.get()).ok()?;
    let tp = params
        .get(meta::META)?
        .get(trace_context::TRACEPARENT)?
        .as_str()?;
    TraceParent::parse(tp).ok()
}

fn updates(n: u64) -> String {
    count(n, "update", "updates")
}

/// The task's status history in the details view: each change, its time
/// since the call was sent, and where it was read.
fn task_lines(task: &TaskView, sent_us: u64, st: &View) -> Vec<Line<'static>> {
    let t = &st.shell.theme;
    let mut out = vec![Line::styled(
        format!("   ── task {} ──", crate::tui::format::safe_row(&task.id)),
        t.fg(t.accent).add_modifier(Modifier::BOLD),
    )];
    if task.dropped > 0 {
        out.push(Line::styled(
            format!("   ({} earlier changes not kept)", task.dropped),
            t.muted(),
        ));
    }
    for step in &task.history {
        let mut spans = vec![
            Span::styled(
                format!("   +{:<9} ", duration(step.t_us.saturating_sub(sent_us))),
                t.muted(),
            ),
            Span::styled(
                format!("{:<15}", step.status),
                Style::default()
                    .fg(task_color(t, step.status.as_str()))
                    .add_modifier(Modifier::BOLD),
            ),
        ];
        if let Some(m) = &step.message {
            spans.push(Span::styled(format!("{m} "), Style::default().fg(t.fg)));
        }
        spans.push(Span::styled(format!("({})", step.source), t.muted()));
        out.push(Line::from(spans));
    }
    if task.cancel_sent && !task.is_terminal() {
        out.push(Line::styled("   tasks/cancel sent", t.muted()));
    }
    out
}

impl crate::tui::screen::PaneView for super::ProgressState {
    fn prepare(
        &self,
        area: Rect,
        v: &View,
        store: &crate::trace::Store,
    ) -> Option<crate::tui::screen::Body> {
        Some(prepare(area, v, store))
    }

    fn list_rows(&self, inner: u16) -> usize {
        inner as usize / 3
    }
}
