//! A case's expectations judged over what its calls brought: the events of
//! its window of the store (a fresh server's whole session, or its part of
//! a shared one), the calls tracked there and the findings of the checks.

use super::SuiteError;
use super::file::{Expect, Progress};
use crate::calls::{Call, Tracker};
use crate::checks::stats::CallStats;
use crate::checks::{Finding, Rule, Verdict};
use crate::protocol::IdKey;
use crate::protocol::sanitize::one_line;
use crate::protocol::views::{LogLevel, LogView, ProgressView};
use crate::trace::{Dir, Store};
use serde_json::Value;
use std::collections::HashSet;

/// One expectation the case did not meet.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Miss {
    /// Which expectation (`progress.min`, `order`, `findings`, …).
    pub what: String,
    /// Where it is written in the file (a byte offset), when it is.
    #[serde(skip)]
    pub at: Option<usize>,
    pub message: String,
    /// The rule, for a finding that fails the case.
    #[serde(skip)]
    pub rule: Option<Rule>,
}

/// What a case's calls showed, beside the misses.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Seen {
    pub calls: usize,
    /// Progress notifications of each call.
    pub progress: Vec<u64>,
    pub logs: usize,
    pub p50_ms: Option<f64>,
    pub p95_ms: Option<f64>,
    /// The largest gap between two progress notifications of a call.
    pub max_gap_ms: Option<f64>,
}

/// The events of one case: seqs `from..to`.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub from: u64,
    pub to: u64,
}

impl Window {
    pub fn holds(&self, seq: u64) -> bool {
        (self.from..self.to).contains(&seq)
    }
}

/// One call of the case, with what it brought.
struct CaseCall<'a> {
    call: &'a Call,
    stats: Option<&'a CallStats>,
    /// Its progress notifications: (seq, progress, total, message).
    progress: Vec<(u64, f64, Option<f64>, Option<String>)>,
    result: Option<Value>,
}

/// The verdict of the case's `findings` expectation (check's by default).
pub fn verdict(e: &Expect) -> Verdict {
    e.findings
        .as_ref()
        .map_or_else(Verdict::default, |f| Verdict {
            strict: f.get_ref().strict,
            allow: f
                .get_ref()
                .allow
                .iter()
                .filter_map(|r| r.parse::<Rule>().ok())
                .collect(),
        })
}

/// Judge `e` over the case's window.
pub fn judge(
    store: &Store,
    tracker: &Tracker,
    stats: &[CallStats],
    window: Window,
    e: &Expect,
    findings: &[&Finding],
) -> (Vec<Miss>, Seen) {
    let calls: Vec<CaseCall<'_>> = tracker
        .calls
        .iter()
        .filter(|c| c.method == "tools/call" && window.holds(c.request_seq))
        .map(|c| case_call(store, c, stats, window))
        .collect();
    let mut misses = Misses::default();
    completion_misses(&mut misses, store, &calls);
    answer_misses(&mut misses, e, &calls);
    progress_expect_misses(&mut misses, e, &calls);
    let arrivals = arrivals(store, window, &calls);
    if let Some(order) = &e.order
        && let Err(m) = in_order(order.get_ref(), &arrivals)
    {
        misses.add("order", Some(order.span().start), m.to_string());
    }
    let logs = case_logs(store, window);
    message_misses(&mut misses, e, &calls, &logs);
    log_misses(&mut misses, e, &logs);
    notification_misses(&mut misses, e, &arrivals);
    let found = finding_misses(e, findings);
    let durations: Vec<f64> = calls
        .iter()
        .filter_map(|c| c.stats.map(|s| s.duration_ms))
        .collect();
    let seen = Seen {
        calls: calls.len(),
        progress: calls.iter().map(|c| c.progress.len() as u64).collect(),
        logs: logs.len(),
        p50_ms: percentile(&durations, 50.0),
        p95_ms: percentile(&durations, 95.0),
        max_gap_ms: calls
            .iter()
            .filter_map(|c| c.stats.and_then(|s| s.inter_arrival_ms).map(|g| g.max))
            .reduce(f64::max),
    };
    timing_misses(&mut misses, e, &seen, &durations);
    let mut misses = misses.0;
    misses.extend(found);
    (misses, seen)
}

/// The misses of a case, in the order its expectations are judged.
#[derive(Default)]
struct Misses(Vec<Miss>);

impl Misses {
    fn add(&mut self, what: &str, at: Option<usize>, message: String) {
        self.0.push(Miss {
            what: what.to_string(),
            at,
            message,
            rule: None,
        })
    }
}

/// Calls that made none, never completed or were answered with an error.
fn completion_misses(misses: &mut Misses, store: &Store, calls: &[CaseCall<'_>]) {
    if calls.is_empty() {
        misses.add("call", None, "no tools/call was made".into());
    }
    for (i, c) in calls.iter().enumerate() {
        if c.call.response().is_none() {
            let why = match c.stats.map(|s| s.outcome) {
                Some(o) => format!("{o:?}").to_lowercase(),
                None => "no response".into(),
            };
            misses.add(
                "call",
                None,
                format!("call {} did not complete ({why})", label(i, calls.len())),
            );
        }
    }
    for (i, c) in calls.iter().enumerate() {
        if let Some(seq) = c.call.response_seq()
            && c.result.is_none()
        {
            let error = store
                .get(seq)
                .and_then(|ev| ev.frame().error.map(|e| e.get().to_string()))
                .unwrap_or_else(|| "no result".into());
            misses.add(
                "call",
                None,
                format!(
                    "call {} was answered with an error: {}",
                    label(i, calls.len()),
                    clip(&error)
                ),
            );
        }
    }
}

/// `is_error`, `result` and `structured`, judged over each call's result.
fn answer_misses(misses: &mut Misses, e: &Expect, calls: &[CaseCall<'_>]) {
    let answered: Vec<(usize, &Value)> = calls
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.result.as_ref().map(|r| (i, r)))
        .collect();
    if let Some(want) = &e.is_error {
        for (i, r) in &answered {
            let got = r.get("isError").and_then(Value::as_bool).unwrap_or(false);
            if got != *want.get_ref() {
                let text = first_text(r).map(|t| format!(": {t}")).unwrap_or_default();
                misses.add(
                    "is_error",
                    Some(want.span().start),
                    format!(
                        "call {} returned isError {got}, expected {}{text}",
                        label(*i, calls.len()),
                        want.get_ref()
                    ),
                );
            }
        }
    }
    if let Some(want) = &e.result {
        for (i, r) in &answered {
            if let Err(m) = subset(want.get_ref(), r, "result") {
                misses.add(
                    "result",
                    Some(want.span().start),
                    format!("call {}: {m}", label(*i, calls.len())),
                );
            }
        }
    }
    if let Some(want) = &e.structured {
        for (i, r) in &answered {
            let got = r.get("structuredContent").unwrap_or(&Value::Null);
            if let Err(m) = subset(want.get_ref(), got, "structuredContent") {
                misses.add(
                    "structured",
                    Some(want.span().start),
                    format!("call {}: {m}", label(*i, calls.len())),
                );
            }
        }
    }
}

/// `progress` and `progress_before_response`, judged over each call.
fn progress_expect_misses(misses: &mut Misses, e: &Expect, calls: &[CaseCall<'_>]) {
    if let Some(p) = &e.progress {
        for (i, c) in calls.iter().enumerate() {
            for (what, m) in progress_misses(p.get_ref(), c) {
                misses.add(
                    what,
                    Some(p.span().start),
                    format!("call {}: {m}", label(i, calls.len())),
                );
            }
        }
    }
    if let Some(want) = &e.progress_before_response
        && *want.get_ref()
    {
        for (i, c) in calls.iter().enumerate() {
            let Some(resp) = c.call.response_seq() else {
                continue;
            };
            let late = c.progress.iter().filter(|p| p.0 > resp).count();
            if late > 0 {
                misses.add(
                    "progress_before_response",
                    Some(want.span().start),
                    format!(
                        "call {}: {late} progress notification(s) arrived after its response",
                        label(i, calls.len())
                    ),
                );
            }
        }
    }
}

/// The log messages that came in during the window: (level, text).
fn case_logs(store: &Store, window: Window) -> Vec<(LogLevel, String)> {
    store
        .logs()
        .iter()
        .filter(|s| window.holds(**s))
        .filter_map(|s| store.get(*s))
        .filter(|ev| ev.dir == Dir::In)
        .filter_map(|ev| {
            let frame = ev.frame();
            let v = LogView::parse(frame.params).ok()?;
            let text = match v.data.map(|d| serde_json::from_str::<Value>(d.get())) {
                Some(Ok(Value::String(s))) => s,
                Some(Ok(other)) => other.to_string(),
                _ => String::new(),
            };
            Some((v.level.ok()?, text))
        })
        .collect()
}

/// `messages`: each pattern matched by a progress message or a log text.
fn message_misses(
    misses: &mut Misses,
    e: &Expect,
    calls: &[CaseCall<'_>],
    logs: &[(LogLevel, String)],
) {
    let Some(want) = &e.messages else {
        return;
    };
    let texts: Vec<&str> = calls
        .iter()
        .flat_map(|c| c.progress.iter().filter_map(|p| p.3.as_deref()))
        .chain(logs.iter().map(|l| l.1.as_str()))
        .collect();
    for pattern in want.get_ref() {
        // Checked when the file was read.
        let Ok(re) = regex::Regex::new(pattern) else {
            continue;
        };
        if !texts.iter().any(|t| re.is_match(t)) {
            misses.add(
                "messages",
                Some(want.span().start),
                format!(
                    "no progress message or log text matches {pattern:?} ({} seen)",
                    texts.len()
                ),
            );
        }
    }
}

/// `logs.present` and `logs.absent`, judged over the window's logs.
fn log_misses(misses: &mut Misses, e: &Expect, logs: &[(LogLevel, String)]) {
    let Some(want) = &e.logs else {
        return;
    };
    let has = |l: LogLevel| logs.iter().any(|x| x.0 == l);
    for level in &want.get_ref().present {
        if let Ok(l) = level.parse::<LogLevel>()
            && !has(l)
        {
            misses.add(
                "logs.present",
                Some(want.span().start),
                format!("no log at level {l} ({} logs)", logs.len()),
            );
        }
    }
    for level in &want.get_ref().absent {
        if let Ok(l) = level.parse::<LogLevel>()
            && let Some((_, text)) = logs.iter().find(|x| x.0 == l)
        {
            misses.add(
                "logs.absent",
                Some(want.span().start),
                format!("a log at level {l}: {}", clip(text)),
            );
        }
    }
}

/// `notifications`: each method arrived at least once.
fn notification_misses(misses: &mut Misses, e: &Expect, arrivals: &[Arrival]) {
    let Some(want) = &e.notifications else {
        return;
    };
    for method in want.get_ref() {
        if !arrivals
            .iter()
            .any(|a| a.method.as_deref() == Some(method.as_str()))
        {
            misses.add(
                "notifications",
                Some(want.span().start),
                format!("no {method} arrived"),
            );
        }
    }
}

/// `findings`: one miss per rule that fails the case (its findings counted),
/// not one per message: a bug repeated at every frame is one thing to fix.
fn finding_misses(e: &Expect, findings: &[&Finding]) -> Vec<Miss> {
    let v = verdict(e);
    let at = e.findings.as_ref().map(|f| f.span().start);
    let mut failing: Vec<(&Finding, usize)> = Vec::new();
    for f in findings.iter().filter(|f| v.fails(f.rule, f.severity)) {
        match failing.iter_mut().find(|(g, _)| g.rule == f.rule) {
            Some((_, n)) => *n += 1,
            None => failing.push((f, 1)),
        }
    }
    let mut found = Vec::new();
    for (f, n) in failing {
        let times = if n > 1 {
            format!(" ×{n}")
        } else {
            String::new()
        };
        found.push(Miss {
            what: "findings".into(),
            at,
            message: format!(
                "[{}] {}{times}: {}",
                f.severity.as_str(),
                f.rule.id(),
                clip(&f.message)
            ),
            rule: Some(f.rule),
        });
    }
    found
}

/// `timing`: the calls' p50, p95 and slowest duration under their limits.
fn timing_misses(misses: &mut Misses, e: &Expect, seen: &Seen, durations: &[f64]) {
    let Some(t) = &e.timing else {
        return;
    };
    let t_at = Some(t.span().start);
    let over = [
        ("timing.p50_ms", t.get_ref().p50_ms, seen.p50_ms),
        ("timing.p95_ms", t.get_ref().p95_ms, seen.p95_ms),
        (
            "timing.max_ms",
            t.get_ref().max_ms,
            durations.iter().copied().reduce(f64::max),
        ),
    ];
    for (what, limit, got) in over {
        if let (Some(limit), Some(got)) = (limit, got)
            && got > limit
        {
            misses.add(
                what,
                t_at,
                format!("{got:.1} ms, at most {limit} ms expected"),
            );
        }
    }
}

fn label(i: usize, of: usize) -> String {
    if of == 1 {
        "1".into()
    } else {
        format!("{} of {of}", i + 1)
    }
}

/// Server text as one bounded, safe line.
fn clip(s: &str) -> String {
    let line = one_line(s);
    match line.char_indices().nth(200) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.into_owned(),
    }
}

fn first_text(r: &Value) -> Option<String> {
    r.get("content")?
        .as_array()?
        .iter()
        .find_map(|c| c.get("text").and_then(Value::as_str))
        .map(clip)
}

fn case_call<'a>(
    store: &Store,
    call: &'a Call,
    stats: &'a [CallStats],
    window: Window,
) -> CaseCall<'a> {
    let progress = match &call.token {
        Some(token) => progress_of(store, token, call.request_seq, window),
        None => Vec::new(),
    };
    let result = call
        .response_seq()
        .and_then(|s| store.get(s))
        .and_then(|ev| {
            ev.frame()
                .result
                .and_then(|r| serde_json::from_str(r.get()).ok())
        });
    CaseCall {
        call,
        stats: stats.iter().find(|s| s.request_seq == call.request_seq),
        progress,
        result,
    }
}

fn progress_of(
    store: &Store,
    token: &IdKey,
    from: u64,
    window: Window,
) -> Vec<(u64, f64, Option<f64>, Option<String>)> {
    store
        .token_seqs_from(token, from)
        .filter(|s| window.holds(*s))
        .filter_map(|s| store.get(s))
        .filter(|ev| ev.dir == Dir::In)
        .filter_map(|ev| {
            let info = ev.progress?;
            let message = (ev.flags & crate::trace::store::flags::PROGRESS_MESSAGE != 0)
                .then(|| {
                    let frame = ev.frame();
                    ProgressView::parse(frame.params)
                        .ok()?
                        .message
                        .map(|m| m.into_owned())
                })
                .flatten();
            Some((ev.seq, info.progress, info.total, message))
        })
        .collect()
}

fn progress_misses(p: &Progress, c: &CaseCall<'_>) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let n = c.progress.len() as u64;
    if let Some(want) = p.count
        && n != want
    {
        out.push((
            "progress.count",
            format!("{n} progress notification(s), expected {want}"),
        ));
    }
    if let Some(min) = p.min
        && n < min
    {
        out.push((
            "progress.min",
            format!("{n} progress notification(s), expected at least {min}"),
        ));
    }
    if let Some(max) = p.max
        && n > max
    {
        out.push((
            "progress.max",
            format!("{n} progress notification(s), expected at most {max}"),
        ));
    }
    if p.increasing == Some(true)
        && let Some(w) = c.progress.windows(2).find(|w| w[1].1 <= w[0].1)
    {
        out.push((
            "progress.increasing",
            format!("progress went from {} to {}", w[0].1, w[1].1),
        ));
    }
    if p.reaches_total == Some(true) {
        match c.progress.last() {
            None => out.push(("progress.reaches_total", "no progress notification".into())),
            Some((_, v, Some(total), _)) if v < total => out.push((
                "progress.reaches_total",
                format!("the last progress is {v} of {total}"),
            )),
            Some((_, _, None, _)) => out.push((
                "progress.reaches_total",
                "the last progress notification has no total".into(),
            )),
            Some(_) => {}
        }
    }
    if let (Some(limit), Some(gap)) = (p.max_gap_ms, c.stats.and_then(|s| s.inter_arrival_ms))
        && gap.max > limit
    {
        out.push((
            "progress.max_gap_ms",
            format!("a gap of {:.1} ms, at most {limit} ms expected", gap.max),
        ));
    }
    if let Some(limit) = p.first_within_ms {
        match c.stats.and_then(|s| s.first_progress_ms) {
            None => out.push(("progress.first_within_ms", "no progress notification".into())),
            Some(first) if first > limit => out.push((
                "progress.first_within_ms",
                format!("the first progress came {first:.1} ms after the request, within {limit} ms expected"),
            )),
            Some(_) => {}
        }
    }
    out
}

/// One arrival from the server, as `order` names it.
#[derive(Debug)]
struct Arrival {
    seq: u64,
    /// `progress`, `response`, `log`, or the method.
    kind: &'static str,
    level: Option<LogLevel>,
    method: Option<String>,
}

fn arrivals(store: &Store, window: Window, calls: &[CaseCall<'_>]) -> Vec<Arrival> {
    let progress: HashSet<u64> = calls
        .iter()
        .flat_map(|c| c.progress.iter().map(|p| p.0))
        .collect();
    let responses: HashSet<u64> = calls.iter().filter_map(|c| c.call.response_seq()).collect();
    let mut out = Vec::new();
    for seq in window.from..window.to.min(store.next_seq()) {
        let Some(ev) = store.get(seq) else { continue };
        if ev.dir != Dir::In {
            continue;
        }
        let (kind, level) = if progress.contains(&seq) {
            ("progress", None)
        } else if responses.contains(&seq) {
            ("response", None)
        } else if ev.method == Some(crate::protocol::methods::MESSAGE) {
            let frame = ev.frame();
            (
                "log",
                LogView::parse(frame.params).ok().and_then(|v| v.level.ok()),
            )
        } else if ev.kind.is_message() && ev.method.is_some() {
            ("method", None)
        } else {
            continue;
        };
        out.push(Arrival {
            seq,
            kind,
            level,
            method: ev.method.map(str::to_string),
        });
    }
    out
}

fn matches(item: &str, a: &Arrival) -> bool {
    match item {
        "progress" | "response" | "log" => a.kind == item,
        _ => match item.strip_prefix("log:") {
            Some(level) => a.kind == "log" && a.level.is_some_and(|l| l.as_str() == level),
            None => a.method.as_deref() == Some(item),
        },
    }
}

/// `order` as a subsequence of the arrivals, each item matched at the
/// earliest arrival after the one before.
fn in_order(order: &[String], arrivals: &[Arrival]) -> Result<(), SuiteError> {
    let mut from = 0;
    let mut prev: Option<(&str, u64)> = None;
    for item in order {
        match arrivals[from..].iter().position(|a| matches(item, a)) {
            Some(i) => {
                prev = Some((item, arrivals[from + i].seq));
                from += i + 1;
            }
            None => {
                let before = arrivals.iter().find(|a| matches(item, a));
                let item = item.clone();
                return Err(match (prev, before) {
                    (Some((p, prev_seq)), Some(b)) => SuiteError::Before {
                        item,
                        prev: p.to_string(),
                        prev_seq,
                        seq: b.seq,
                    },
                    (Some((p, prev_seq)), None) => SuiteError::NeverAfter {
                        item,
                        prev: p.to_string(),
                        prev_seq,
                    },
                    (None, _) => SuiteError::Never { item },
                });
            }
        }
    }
    Ok(())
}

/// Nearest-rank percentile.
pub fn percentile(values: &[f64], p: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    crate::sort::by(&mut v, f64::total_cmp);
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    Some(v[rank.clamp(1, v.len()) - 1])
}

/// `want` as a subset of `got`: objects by key, arrays as a prefix, numbers
/// by value (TOML's 5 is JSON's 5.0); `Err` names the first place that differs.
pub fn subset(want: &Value, got: &Value, path: &str) -> Result<(), SuiteError> {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, wv) in w {
                let p = format!("{path}.{k}");
                match g.get(k) {
                    Some(gv) => subset(wv, gv, &p)?,
                    None => return Err(SuiteError::Missing { path: p }),
                }
            }
            Ok(())
        }
        (Value::Array(w), Value::Array(g)) => {
            if g.len() < w.len() {
                return Err(SuiteError::TooFew {
                    path: path.to_string(),
                    got: g.len(),
                    want: w.len(),
                });
            }
            w.iter()
                .zip(g)
                .enumerate()
                .try_for_each(|(i, (wv, gv))| subset(wv, gv, &format!("{path}[{i}]")))
        }
        (Value::Number(w), Value::Number(g)) if w.as_f64() == g.as_f64() => Ok(()),
        (w, g) if w == g => Ok(()),
        (w, g) => Err(SuiteError::Differs {
            path: path.to_string(),
            got: clip(&g.to_string()),
            want: clip(&w.to_string()),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_subset_matches_by_key_prefix_and_number_value() {
        let got = json!({"content": [{"type": "text", "text": "done"}, {"type": "image"}], "n": 5.0, "isError": false});
        assert!(
            subset(
                &json!({"content": [{"type": "text"}], "n": 5}),
                &got,
                "result"
            )
            .is_ok()
        );
        assert_eq!(
            subset(&json!({"content": [{"text": "nope"}]}), &got, "result")
                .unwrap_err()
                .to_string(),
            "result.content[0].text is \"done\", expected \"nope\""
        );
        assert_eq!(
            subset(&json!({"x": 1}), &got, "result")
                .unwrap_err()
                .to_string(),
            "result.x is missing"
        );
        assert!(
            subset(&json!({"content": [{}, {}, {}]}), &got, "result")
                .unwrap_err()
                .to_string()
                .contains("at least 3")
        );
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let v = [5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(percentile(&v, 50.0), Some(3.0));
        assert_eq!(percentile(&v, 95.0), Some(5.0));
        assert_eq!(percentile(&[], 50.0), None);
    }

    fn arrival(seq: u64, kind: &'static str, level: Option<LogLevel>, method: &str) -> Arrival {
        Arrival {
            seq,
            kind,
            level,
            method: Some(method.to_string()),
        }
    }

    #[test]
    fn order_is_a_subsequence_and_says_what_came_first() {
        let a = [
            arrival(3, "log", Some(LogLevel::Info), "notifications/message"),
            arrival(4, "progress", None, "notifications/progress"),
            arrival(5, "response", None, "tools/call"),
            arrival(6, "progress", None, "notifications/progress"),
        ];
        let order = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(in_order(&order(&["log:info", "progress", "response"]), &a).is_ok());
        assert!(
            in_order(
                &order(&["notifications/message", "response", "progress"]),
                &a
            )
            .is_ok()
        );
        let e = in_order(&order(&["response", "log"]), &a)
            .unwrap_err()
            .to_string();
        assert!(e.contains("arrived before it (#3)"), "{e}");
        let e = in_order(&order(&["log:error"]), &a)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "\"log:error\" never arrived");
    }
}
