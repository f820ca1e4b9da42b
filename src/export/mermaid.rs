//! The `mermaid` export: a `sequenceDiagram` of a session, or of one call.
//!
//! Participants as the trace says: mcpscope and the server for
//! mcpscope's own sessions; the host, the mcpscope proxy and the server
//! for a proxy's recording (frames go host ↔ server across the proxy's
//! lifeline). Requests are `->>`, responses `-->>`, notifications `-)`,
//! each labelled `#SEQ` and what `replay --print` says of it. Progress
//! notifications of one token that follow each other (nothing else drawn
//! between them) are folded into one note: how many, the first and the
//! last value. Findings are notes `⚠ RULE (severity): message` after the
//! last frame they cite; the server's exit, timeouts, cancellations by
//! closing a stream and transport failures are notes too.
//!
//! Every text is escaped: Mermaid ends a message at `;` and a newline and
//! reads `#…;` as an entity, so `#`, `;`, `<`, `>`, `%` become entities,
//! control characters and newlines a space (`protocol::sanitize`), and
//! labels are clipped — server text cannot end a line, open a comment,
//! inject an arrow or an HTML label.

use super::Session;
use crate::checks::Finding;
use crate::protocol::IdKey;
use crate::protocol::frame::FrameKind;
use crate::protocol::sanitize::one_line_max;
use crate::protocol::views::ProgressView;
use crate::trace::store::{Origin, flags};
use crate::trace::{Dir, EventRef};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;

/// What a label is clipped to, in characters.
const LABEL_CHARS: usize = 100;

/// How an event is described: (what, ids, summary), as `replay --print`
/// describes it (the command line hands its describer in).
pub type Describe<'f> = &'f dyn Fn(&EventRef<'_>) -> (String, String, String);

/// Mermaid-safe text: one line, at most `max` characters, no character
/// that ends a statement, starts a comment or an entity, or makes markup.
pub fn escape(s: &str, max: usize) -> String {
    let line = one_line_max(s, max);
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        match c {
            '#' => out.push_str("#35;"),
            ';' => out.push_str("#59;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '%' => out.push_str("#37;"),
            '\\' => out.push_str("#92;"),
            c => out.push(c),
        }
    }
    out
}

/// Which events of the session the diagram shows.
pub enum Scope {
    Session,
    /// One request we sent (by id): it, its response and cancellation, its
    /// token's progress, and over HTTP what came on its stream.
    Call(IdKey),
}

struct Run {
    token: String,
    dir: Dir,
    count: u64,
    seqs: (u64, u64),
    first: String,
    last: String,
}

struct Lines<'a> {
    out: String,
    client: &'static str,
    run: Option<Run>,
    findings: BTreeMap<u64, Vec<&'a Finding>>,
    ends: (&'static str, &'static str),
}

impl Lines<'_> {
    fn flush(&mut self) {
        let Some(r) = self.run.take() else { return };
        let seqs = if r.count == 1 {
            format!("#35;{}", r.seqs.0)
        } else {
            format!("#35;{}–#35;{}", r.seqs.0, r.seqs.1)
        };
        let values = if r.count == 1 {
            r.first
        } else {
            format!("first {}, last {}", r.first, r.last)
        };
        let (a, b) = self.ends;
        let _ = writeln!(
            self.out,
            "    Note over {a},{b}: {seqs} {} progress tok={}: {}",
            r.count,
            escape(&r.token, 40),
            values
        );
    }

    fn note(&mut self, text: &str) {
        self.flush();
        let (a, b) = self.ends;
        let _ = writeln!(self.out, "    Note over {a},{b}: {}", escape(text, 160));
    }

    fn findings_at(&mut self, seq: u64) {
        let Some(fs) = self.findings.remove(&seq) else {
            return;
        };
        for f in fs {
            self.note(&format!(
                "⚠ {} ({}): {}",
                f.rule.id(),
                f.severity,
                f.message
            ));
        }
    }
}

/// The diagram; `Err` when `--call` names no request of the session.
pub fn mermaid(
    s: &Session<'_>,
    scope: &Scope,
    describe: Describe<'_>,
) -> Result<String, super::ExportError> {
    let store = s.store;
    let proxy = s.is_proxy();
    let server = server_name(s);
    let mut head = String::from("sequenceDiagram\n");
    let client = if proxy {
        head.push_str("    participant H as host\n    participant P as mcpscope proxy\n");
        "H"
    } else {
        head.push_str("    participant C as mcpscope\n");
        "C"
    };
    let _ = writeln!(head, "    participant S as {}", escape(&server, 60));
    let only: Option<(HashSet<u64>, Option<IdKey>, Option<String>)> = match scope {
        Scope::Session => None,
        Scope::Call(id) => Some(call_events(s, id)?),
    };
    let mut findings: BTreeMap<u64, Vec<&Finding>> = BTreeMap::new();
    let last = store.next_seq().saturating_sub(1);
    for f in s.findings {
        if let (Some((seqs, token, _)), Scope::Call(want_id)) = (&only, scope) {
            let mine = f.request_id.as_ref() == Some(want_id)
                || (token.is_some() && f.token == *token)
                || f.seqs.iter().any(|q| seqs.contains(q));
            if !mine {
                continue;
            }
        }
        let at = f.seqs.iter().copied().max().unwrap_or(last).min(last);
        findings.entry(at).or_default().push(f);
    }
    let mut l = Lines {
        out: head,
        client,
        run: None,
        findings,
        ends: (client, "S"),
    };
    for ev in store.range(0, store.next_seq()) {
        let shown = only.as_ref().is_none_or(|(seqs, _, ch)| {
            seqs.contains(&ev.seq)
                || (ev.dir == Dir::In && ch.as_deref().is_some_and(|c| c == ev.channel))
        });
        if shown {
            draw(&mut l, &ev, describe);
        }
        l.findings_at(ev.seq);
    }
    l.flush();
    let rest: Vec<u64> = l.findings.keys().copied().collect();
    for k in rest {
        l.findings_at(k);
    }
    Ok(l.out)
}

fn draw(l: &mut Lines<'_>, ev: &EventRef<'_>, describe: Describe<'_>) {
    let (from, to) = match ev.dir {
        Dir::Out => (l.client, "S"),
        Dir::In => ("S", l.client),
        Dir::Meta => {
            let what = ev.method.unwrap_or("");
            if matches!(
                what,
                "exit" | "timeout" | "cancel" | "http-error" | "stream-cut" | "failed"
            ) {
                let (_, _, summary) = describe(ev);
                l.note(&format!("#{} {what} {summary}", ev.seq));
            }
            return;
        }
        Dir::Stderr => return,
    };
    if ev.flags & flags::IN_BATCH != 0 {
        // The batch itself was drawn with its count.
        return;
    }
    if let Some(p) = ev.progress {
        let token = l_token(ev);
        let value = escape(
            &crate::format::progress(p.progress, p.total, None),
            LABEL_CHARS,
        );
        // A notification a finding cites is drawn on its own, so the note
        // follows it rather than a fold of it and its neighbours.
        let cited = l.findings.contains_key(&ev.seq);
        match &mut l.run {
            Some(r) if r.token == token && r.dir == ev.dir && !cited => {
                r.count += 1;
                r.seqs.1 = ev.seq;
                r.last = value;
            }
            _ => {
                l.flush();
                l.run = Some(Run {
                    token,
                    dir: ev.dir,
                    count: 1,
                    seqs: (ev.seq, ev.seq),
                    first: value.clone(),
                    last: value,
                });
            }
        }
        return;
    }
    l.flush();
    let (what, ids, summary) = describe(ev);
    let arrow = match ev.kind {
        FrameKind::Request => "->>",
        FrameKind::Response | FrameKind::ErrorResponse => "-->>",
        _ => "-)",
    };
    let text = [format!("#{}", ev.seq), what, ids, summary]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let _ = writeln!(
        l.out,
        "    {from}{arrow}{to}: {}",
        escape(&text, LABEL_CHARS)
    );
}

fn l_token(ev: &EventRef<'_>) -> String {
    ProgressView::parse(ev.frame().params)
        .map(|p| p.token_key().to_string())
        .unwrap_or_default()
}

/// The server's name: the `serverInfo` its initialize result gave, else
/// the name the trace header gives the server.
fn server_name(s: &Session<'_>) -> String {
    for ev in s.store.range(0, s.store.next_seq()) {
        if ev.dir == Dir::In
            && ev.kind == FrameKind::Response
            && ev.method == Some(crate::protocol::methods::INITIALIZE)
            && let Some(r) = ev.frame().result
            && let Ok(v) = serde_json::from_str::<Value>(r.get())
            && let Some(n) = v.pointer("/serverInfo/name").and_then(Value::as_str)
        {
            return n.to_string();
        }
    }
    s.header
        .pointer("/server/name")
        .and_then(Value::as_str)
        .unwrap_or("server")
        .to_string()
}

/// The events of one call: every event about its id, its token's progress,
/// and its stream's channel when that is no stdio.
#[allow(clippy::type_complexity)]
fn call_events(
    s: &Session<'_>,
    id: &IdKey,
) -> Result<(HashSet<u64>, Option<IdKey>, Option<String>), super::ExportError> {
    let entry = s
        .store
        .request(Origin::Client, id)
        .ok_or_else(|| super::ExportError::NoSuchCall(id.clone()))?;
    let mut seqs: HashSet<u64> = entry.seqs.iter().copied().collect();
    let req = s.store.get(entry.request_seq);
    let token = req
        .as_ref()
        .and_then(|r| r.frame().progress_token().map(|t| IdKey::from_raw(t.get())));
    if let Some(t) = &token {
        seqs.extend(s.store.token_seqs(t));
    }
    // Cancellations name the request in their params, not their id.
    for ev in s.store.range(entry.request_seq, s.store.next_seq()) {
        if ev.method == Some(crate::protocol::methods::CANCELLED)
            && crate::protocol::views::CancelledView::parse(ev.frame().params)
                .is_some_and(|c| c.request_id == *id)
        {
            seqs.insert(ev.seq);
        }
    }
    let channel = req.map(|r| r.channel.to_string()).filter(|c| c != "stdio");
    Ok((seqs, token, channel))
}
