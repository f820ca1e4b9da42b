//! `check --format sarif`: the report as SARIF 2.1.0, for code scanning.
//!
//! One run. `tool.driver.rules` is the rule catalog (id, description,
//! default level from the severity, `help` — how to fix it, as text and
//! markdown — and `helpUri`, the specification section), then three checks of mcpscope's own
//! that are no catalog rule: `call-completed` (a call that did not
//! complete), `trace-complete` (a trace cut short) and `baseline-drift`
//! (a definition that differs from the pinned one). Each group of findings
//! (one cause: rule, call, party, host session; `crate::checks::groups`)
//! is a `result`: `ruleId`/`ruleIndex`, `level` (error → `error`, warning →
//! `warning`, info → `note`), the first finding's message with the count,
//! and — when the session is in a file (`--trace`, or `--record`) — a
//! `location` in it: the artifact is the trace file, `region.startLine`
//! the line of the frame that broke the rule in the first finding (the
//! log, not the request it answers); that finding's earlier frames and the
//! other findings' offending frames are `relatedLocations`. A
//! `baseline-drift` result is located in the baseline file (`--baseline`),
//! at the line naming the pinned item, with the frame that listed it as a
//! related location; an item that is not pinned is located at its frame. `properties`
//! carry the first finding's seq numbers, the party judged, the token and
//! request id, and `count`, `firstSeq`, `lastSeq`.

use super::check::report::{Report, drift_line};
use crate::checks::groups::offending_seq;
use crate::checks::{Group, Rule, Severity};
use crate::diff::LineMap;
use crate::protocol::sanitize::one_line;
use serde_json::{Value, json};

/// Where the session's frames are: the trace file and each seq's line.
pub struct Artifact<'a> {
    pub uri: String,
    pub lines: &'a LineMap,
}

const OWN: [(&str, &str, &str); 3] = [
    (
        "call-completed",
        "error",
        "a call that did not complete (timeout, the server exited, the connection failed): never a pass",
    ),
    (
        "trace-complete",
        "error",
        "the trace ends mid-line: what came after the cut is unknown",
    ),
    (
        "baseline-drift",
        "error",
        "a tool, resource or prompt definition differs from the one pinned with --baseline",
    ),
];

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A path as a URI reference: unreserved characters and `/` kept, the rest
/// percent-encoded.
pub fn uri_of(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn location(art: Option<&Artifact<'_>>, seq: u64) -> Option<Value> {
    let art = art?;
    let line = art.lines.line(seq);
    let mut region = json!({});
    if line > 0 {
        region["startLine"] = line.into();
    }
    Some(json!({
        "physicalLocation": {
            "artifactLocation": {"uri": art.uri},
            "region": region,
        }
    }))
}

/// The SARIF log of a check report.
/// The rule catalog as SARIF `reportingDescriptor`s (`check` and `test`).
pub(crate) fn catalog_rules() -> Vec<Value> {
    Rule::ALL
        .iter()
        .map(|rule| {
            json!({
                "id": rule.id(),
                "shortDescription": {"text": rule.description()},
                "help": {
                    "text": format!("{} (spec: {})", rule.fix(), rule.spec()),
                    "markdown": format!("**How to fix:** {}\n\n[Specification]({})", rule.fix(), rule.spec()),
                },
                "helpUri": rule.spec(),
                "defaultConfiguration": {"level": level(rule.severity())},
            })
        })
        .collect()
}

/// A SARIF level for a severity.
pub(crate) fn level_of(s: Severity) -> &'static str {
    level(s)
}

pub fn sarif(r: &Report, art: Option<&Artifact<'_>>) -> String {
    let mut rules = catalog_rules();
    for (id, lvl, text) in OWN {
        rules.push(json!({
            "id": id,
            "shortDescription": {"text": text},
            "defaultConfiguration": {"level": lvl},
        }));
    }
    let index_of = |id: &str| rules.iter().position(|r| r["id"] == id);
    let mut results = Vec::new();
    for g in &r.groups {
        results.extend(group_result(r, g, art, index_of(g.rule.id())));
    }
    let own = |id: &str, message: String, seq: Option<u64>| {
        let mut res = json!({
            "ruleId": id,
            "level": "error",
            "message": {"text": one_line(&message)},
        });
        if let Some(i) = index_of(id) {
            res["ruleIndex"] = i.into();
        }
        if let Some(loc) = seq.and_then(|s| location(art, s)) {
            res["locations"] = json!([loc]);
        }
        res
    };
    for f in &r.failures {
        let what = match (&f.request_id, &f.tool) {
            (Some(id), Some(t)) => format!("call id={} {t}", id.to_value()),
            (Some(id), None) => format!("call id={}", id.to_value()),
            _ => "session".into(),
        };
        let seq = f.request_id.as_ref().and_then(|id| {
            r.calls
                .iter()
                .find(|c| &c.request_id == id)
                .map(|c| c.request_seq)
        });
        results.push(own(
            "call-completed",
            format!("{what} did not complete: {}", f.reason),
            seq,
        ));
    }
    if let Some(d) = &r.summary.damage {
        let mut res = own("trace-complete", d.clone(), None);
        if let Some(a) = art {
            res["locations"] = json!([{"physicalLocation": {"artifactLocation": {"uri": a.uri}}}]);
        }
        results.push(res);
    }
    let mut baseline_art = None;
    if let Some(b) = &r.baseline {
        // A drift is located first in the committed file, the baseline, at
        // the pinned item's line; the frame that listed it is related. An
        // item not pinned (added) is located at its frame.
        let text = std::fs::read_to_string(&b.file).unwrap_or_default();
        let uri = uri_of(&b.file);
        for c in &b.drift {
            let what = drift_line(c);
            let frame = c.at_b.map(|a| a.seq);
            let Some(line) = pinned_line(&text, &c.kind, &c.name) else {
                results.push(own("baseline-drift", what, frame));
                continue;
            };
            let mut res = own("baseline-drift", what, None);
            res["locations"] = json!([{"physicalLocation": {
                "artifactLocation": {"uri": uri},
                "region": {"startLine": line},
            }}]);
            if let Some(mut l) = frame.and_then(|s| location(art, s)) {
                l["id"] = 0.into();
                res["relatedLocations"] = json!([l]);
            }
            baseline_art = Some(uri.clone());
            results.push(res);
        }
    }
    let mut run = json!({
        "tool": {"driver": {
            "name": "mcpscope",
            "version": env!("CARGO_PKG_VERSION"),
            "rules": rules,
        }},
        "results": results,
        "invocations": [{"executionSuccessful": true}],
    });
    let artifacts: Vec<Value> = art
        .map(|a| a.uri.clone())
        .into_iter()
        .chain(baseline_art)
        .map(|uri| json!({"location": {"uri": uri}}))
        .collect();
    if !artifacts.is_empty() {
        run["artifacts"] = Value::Array(artifacts);
    }
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    });
    serde_json::to_string_pretty(&log).unwrap_or_default() + "\n"
}

/// One group of findings as a SARIF result: its first offending frame
/// located, the others related, and its count, party and ids as properties.
fn group_result(
    r: &Report,
    g: &Group,
    art: Option<&Artifact<'_>>,
    rule_index: Option<usize>,
) -> Option<Value> {
    let fs: Vec<&crate::checks::Finding> = g
        .findings
        .iter()
        .filter_map(|i| r.findings.get(*i))
        .collect();
    let first = fs.first()?;
    let mut text = one_line(&g.message).into_owned();
    if g.count > 1 {
        text.push_str(&format!(" (×{} in this call", g.count));
        if let (Some(a), Some(b)) = (g.first_seq, g.last_seq) {
            text.push_str(&format!(", first #{a}, last #{b}"));
        }
        text.push(')');
    }
    let mut res = json!({
        "ruleId": g.rule.id(),
        "level": level(g.severity),
        "message": {"text": text},
    });
    if let Some(i) = rule_index {
        res["ruleIndex"] = i.into();
    }
    // Allowed by the user: reported, and suppressed where it was decided.
    if g.allowed {
        res["suppressions"] = json!([{
            "kind": "external",
            "justification": format!("allowed by `mcpscope check --allow {}`", g.rule.id()),
        }]);
    }
    // The frame that broke the rule first; the first finding's earlier
    // frames (the request, the setLevel) and the other findings'
    // offending frames are related.
    let at = offending_seq(first);
    if let Some(loc) = at.and_then(|s| location(art, s)) {
        res["locations"] = json!([loc]);
        let mut related_seqs: Vec<u64> = first
            .seqs
            .iter()
            .copied()
            .filter(|s| Some(*s) != at)
            .collect();
        related_seqs.extend(fs[1..].iter().filter_map(|f| offending_seq(f)));
        let related: Vec<Value> = related_seqs
            .into_iter()
            .filter_map(|s| location(art, s))
            .enumerate()
            .map(|(i, mut l)| {
                l["id"] = i.into();
                l
            })
            .collect();
        if !related.is_empty() {
            res["relatedLocations"] = Value::Array(related);
        }
    }
    let mut props = json!({
        "seq": first.seqs,
        "party": g.party,
        "count": g.count,
    });
    if let Some(s) = g.first_seq {
        props["firstSeq"] = s.into();
    }
    if let Some(s) = g.last_seq {
        props["lastSeq"] = s.into();
    }
    if let Some(t) = &g.token {
        props["token"] = t.to_value();
    }
    if let Some(id) = &g.request_id {
        props["requestId"] = id.to_value();
    }
    res["properties"] = props;
    Some(res)
}

/// The line (1-based) of a baseline's text that names the pinned item of
/// kind `label` (`tool`, `resource`, …) called `name`: the first
/// `"name": "…"` (or `uri`, `uriTemplate`) line after the kind's key whose
/// value is that name. `None` when the item is not pinned.
pub(crate) fn pinned_line(text: &str, label: &str, name: &str) -> Option<usize> {
    use crate::calls::listings::Kind;
    let kind = Kind::ALL.into_iter().find(|k| k.label() == label)?;
    let key = format!("\"{}\"", kind.key());
    let field = format!("\"{}\"", kind.name_field());
    let mut lines = text.lines().enumerate();
    lines.find(|(_, l)| l.trim_start().starts_with(&key))?;
    lines
        .find(|(_, l)| {
            let Some(rest) = l.trim().strip_prefix(&field) else {
                return false;
            };
            let value = rest.trim_start().strip_prefix(':').unwrap_or("");
            let value = value.trim().trim_end_matches(',');
            serde_json::from_str::<String>(value).is_ok_and(|v| v == name)
        })
        .map(|(i, _)| i + 1)
}
