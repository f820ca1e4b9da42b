//! Exporting a live session: a task follows the store (and the live
//! checks' findings), folds what arrives into spans, and queues each span a
//! short while after it ended, so findings the checks make about it just
//! after still join it as events. It reads the store in short batches, as
//! the live checks do, so ingest never waits behind it.

use super::fold::SpanFold;
use super::send::{Exporter, Report, own_resource};
use super::{Config, Context};
use crate::checks::LiveChecks;
use crate::trace::Trace;
use std::time::Duration;
use tokio::sync::oneshot;

/// Events folded per store lock.
const BATCH: u64 = 16_384;
/// How long an ended span waits for findings before it is queued.
pub const LINGER: Duration = Duration::from_secs(2);
/// The histograms are sent at most this often during a session.
const METRICS_EVERY: Duration = Duration::from_secs(15);
/// How often the follower looks, besides when the store changes.
const TICK: Duration = Duration::from_millis(500);

/// A live session's export; [`LiveExport::finish`] ends it.
pub struct LiveExport {
    stop: Option<oneshot::Sender<Duration>>,
    task: Option<tokio::task::JoinHandle<Report>>,
    url: String,
}

impl Drop for LiveExport {
    fn drop(&mut self) {
        if let Some(t) = self.task.take() {
            t.abort();
        }
    }
}

struct Follower {
    trace: Trace,
    checks: Option<LiveChecks>,
    fold: SpanFold,
    exporter: Exporter,
    next: u64,
    findings: usize,
    unread: u64,
}

impl LiveExport {
    /// Follow `trace` from its first event. Must run inside a tokio runtime.
    pub fn start(
        trace: Trace,
        checks: Option<LiveChecks>,
        cfg: &Config,
        ctx: Context,
    ) -> LiveExport {
        let (stop, mut stopped) = oneshot::channel::<Duration>();
        let mut f = Follower {
            trace: trace.clone(),
            checks,
            fold: SpanFold::new(ctx),
            exporter: Exporter::start(cfg),
            next: 0,
            findings: 0,
            unread: 0,
        };
        let task = tokio::spawn(async move {
            let mut changed = f.trace.subscribe();
            let mut tick = tokio::time::interval(TICK);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut metrics_at = tokio::time::Instant::now();
            let deadline = loop {
                tokio::select! {
                    d = &mut stopped => break d.unwrap_or(super::deadline::session()),
                    r = changed.changed() => if r.is_err() { break super::deadline::session() },
                    _ = tick.tick() => {}
                }
                f.catch_up().await;
                let now = f.trace.now_us();
                for r in f.fold.take_ready(now, LINGER.as_micros() as u64) {
                    f.exporter.try_push(r);
                }
                for l in f.fold.take_logs() {
                    f.exporter.try_push(l);
                }
                if f.fold.durations.changed && metrics_at.elapsed() >= METRICS_EVERY {
                    f.send_metrics();
                    metrics_at = tokio::time::Instant::now();
                }
            };
            f.end(deadline).await
        });
        LiveExport {
            stop: Some(stop),
            task: Some(task),
            url: cfg.shown(),
        }
    }

    /// The session is over: fold the rest, send everything, waiting at
    /// most `deadline` for the backend.
    pub async fn finish(mut self, deadline: Duration) -> Report {
        if let Some(s) = self.stop.take() {
            let _ = s.send(deadline);
        }
        let Some(task) = self.task.take() else {
            return Report::default();
        };
        // The task itself waits at most `deadline` for the backend.
        match tokio::time::timeout(deadline + Duration::from_secs(2), task).await {
            Ok(Ok(r)) => r,
            _ => Report {
                url: self.url.clone(),
                error: Some("the export did not end in time".into()),
                ..Report::default()
            },
        }
    }
}

impl Follower {
    /// Fold what the store holds past what was folded, a batch per lock.
    async fn catch_up(&mut self) {
        loop {
            let more = {
                let store = self.trace.read();
                if store.first_seq() > self.next {
                    self.unread += store.first_seq() - self.next;
                    self.next = store.first_seq();
                }
                let to = store.next_seq().min(self.next + BATCH);
                for ev in store.range(self.next, to) {
                    self.fold.observe(&ev, &store);
                }
                self.next = to;
                to < store.next_seq()
            };
            if let Some(c) = &self.checks {
                for f in c.findings_since(self.findings) {
                    self.findings += 1;
                    self.fold.finding(&f);
                }
            }
            if !more {
                return;
            }
            tokio::task::yield_now().await;
        }
    }

    fn send_metrics(&mut self) {
        let start = self.fold.context().unix_ns(0);
        let now = self.fold.context().unix_ns(self.trace.now_us());
        self.exporter
            .metrics(self.fold.durations.export(own_resource(), start, now));
        self.fold.durations.changed = false;
    }

    async fn end(mut self, deadline: Duration) -> Report {
        if let Some(c) = &self.checks {
            c.sync();
        }
        self.catch_up().await;
        // Nothing live waits now: what is left waits for room in the
        // queue rather than being dropped, within the deadline.
        let until = tokio::time::Instant::now() + deadline;
        for r in self.fold.finish_session() {
            self.exporter.push_until(r, until).await;
        }
        for l in self.fold.take_logs() {
            self.exporter.push_until(l, until).await;
        }
        self.send_metrics();
        self.exporter
            .finish_by(until, deadline)
            .await
            .with_counts(self.fold.counts, self.unread)
    }
}
