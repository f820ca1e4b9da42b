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

/// How long the backend has to take the last spans.
pub const DEADLINE: Duration = Duration::from_secs(30);

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

pub async fn send(folded: Folded, cfg: &Config, deadline: Duration) -> Report {
    let exporter = Exporter::start(cfg);
    for r in folded.spans {
        exporter.push_wait(r).await;
    }
    for l in folded.logs {
        exporter.push_wait(l).await;
    }
    exporter.metrics(folded.metrics);
    exporter
        .finish(deadline)
        .await
        .with_counts(folded.counts, 0)
}
