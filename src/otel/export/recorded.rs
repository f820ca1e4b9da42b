//! Exporting a session that is over (`mcpscope export TRACE --otlp URL`,
//! and `check`, which judges the whole session first): the findings are
//! given before the events, so each joins its request's span as an event;
//! the events are folded in one pass; then the spans are queued, waiting
//! for room rather than dropping (nothing live is held up).

use super::fold::{Counts, Ready, ReadyLog, SpanFold};
use super::send::{Exporter, Report, own_resource};
use super::{Config, Context};
use crate::checks::Finding;
use crate::trace::Store;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use std::time::Duration;

/// A session's spans and histograms, ready to send.
pub struct Folded {
    pub spans: Vec<Ready>,
    pub logs: Vec<ReadyLog>,
    pub metrics: ExportMetricsServiceRequest,
    pub counts: Counts,
}

pub fn fold(store: &Store, findings: &[Finding], ctx: Context) -> Folded {
    let mut fold = SpanFold::new(ctx);
    fold.preload(findings);
    let mut logs = Vec::new();
    for ev in store.range(store.first_seq(), store.next_seq()) {
        fold.observe(&ev, store);
        // Taken as they come: the fold holds a bounded number.
        if ev.dir == crate::trace::Dir::Meta {
            logs.extend(fold.take_logs());
        }
    }
    let spans = fold.finish_session();
    logs.extend(fold.take_logs());
    let (first, last) = fold.extent().unwrap_or((0, 0));
    let ctx = fold.context();
    let metrics = fold
        .durations
        .export(own_resource(), ctx.unix_ns(first), ctx.unix_ns(last));
    Folded {
        spans,
        logs,
        metrics,
        counts: fold.counts,
    }
}

/// Send a folded session, waiting at most `deadline` for the backend; what
/// it has not taken by then is counted as not delivered. `stop` (a stopping
/// signal, as its reason) ends the wait at once, counted the same way.
pub async fn send(
    folded: Folded,
    cfg: &Config,
    deadline: Duration,
    stop: impl Future<Output = String>,
) -> Report {
    let Folded {
        spans,
        logs,
        metrics,
        counts,
    } = folded;
    let given = (spans.len() as u64, logs.len() as u64);
    let exporter = Exporter::start(cfg);
    let until = tokio::time::Instant::now() + deadline;
    let work = async {
        // A backend that takes nothing never makes room: past the deadline
        // the rest is not queued (it is counted below).
        'queue: {
            for r in spans {
                if !exporter.push_until(r, until).await {
                    break 'queue;
                }
            }
            for l in logs {
                if !exporter.push_until(l, until).await {
                    break 'queue;
                }
            }
        }
        exporter.metrics(metrics);
        exporter.finish_by(until, deadline).await
    };
    let (report, why) = tokio::select! {
        r = work => (r, format!("the backend did not take them within {}", super::deadline::said(deadline))),
        why = stop => (exporter.abandon(&why), why),
    };
    report
        .account(given.0, given.1, &why)
        .with_counts(counts, 0)
}
