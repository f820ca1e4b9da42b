//! The exporter: spans wait on a bounded queue and leave in batches over
//! OTLP/HTTP protobuf, from a task of their own, so a backend that is slow
//! or down never holds the session up. What does not fit the queue is
//! dropped and counted; a batch the backend refuses for a while (connection
//! refused, 429, 502–504) is retried a few times with backoff, then counted
//! as not delivered with the reason.

use super::Config;
use super::attrs;
use super::fold::{Ready, ReadyLog};
use crate::otel::OtelError;
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span};
use prost::Message;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// Spans per export request.
pub const BATCH: usize = 512;
/// A batch leaves at the latest this long after its first span came.
pub const BATCH_DELAY: Duration = Duration::from_secs(1);
/// Retries of a batch the backend could not take for now.
pub const RETRIES: u32 = 3;
/// How long one export request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Redirects (within the backend's origin) followed for one request.
const MAX_REDIRECTS: usize = 5;
/// A `Retry-After` longer than this is cut to it.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// The resource of mcpscope's own spans.
pub fn own_resource() -> Resource {
    Resource {
        attributes: vec![
            attrs::string("service.name", "mcpscope"),
            attrs::string("service.version", env!("CARGO_PKG_VERSION")),
            attrs::string("telemetry.sdk.name", "mcpscope"),
            attrs::string("telemetry.sdk.language", "rust"),
        ],
        ..Default::default()
    }
}

/// What became of the spans and metrics given to the exporter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// The backend as said to the user (no credentials).
    pub url: String,
    /// Spans the backend took.
    pub sent: u64,
    /// Spans dropped because the queue was full.
    pub dropped: u64,
    /// Spans the backend refused, or that never reached it, or that were
    /// still waiting when the session's time to send them ran out.
    pub failed: u64,
    /// Spans the backend took but said it rejected (OTLP partial success).
    pub rejected: u64,
    /// Why spans failed last (one line).
    pub error: Option<String>,
    /// Metric exports the backend took, and why the last one failed.
    pub metrics_sent: u64,
    pub metrics_error: Option<String>,
    /// The most spans and log records held at once (never more than the
    /// queue).
    pub peak_held: usize,
    /// The server's log records the backend took; those it refused or never
    /// got, and why; those the full queue dropped. A backend without a logs
    /// endpoint is common: these do not make the export incomplete.
    pub logs_sent: u64,
    pub logs_failed: u64,
    pub logs_error: Option<String>,
    pub logs_dropped: u64,
    /// Spans made (given to the exporter or not).
    pub made: u64,
    /// Span events past the bound per span, counted instead.
    pub events_dropped: u64,
    /// Requests that got no span (too many open at once).
    pub not_opened: u64,
    /// Events the store's memory bound dropped before they were exported.
    pub unread: u64,
}

impl Report {
    /// The `[otel]` lines a session ends with.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "[otel] exported {} span(s){} to {}{}",
            self.sent,
            match self.logs_sent {
                0 => String::new(),
                n => format!(" and {n} log record(s)"),
            },
            self.url,
            match (self.metrics_sent, &self.metrics_error) {
                (n, None) if n > 0 => " with the duration histograms".to_string(),
                (_, Some(e)) => format!(" (metrics not taken: {e})"),
                _ => String::new(),
            }
        )];
        if self.dropped > 0 {
            out.push(format!(
                "[otel] {} span(s) dropped: the export queue was full (the backend is slower than the session)",
                self.dropped
            ));
        }
        if self.logs_failed > 0 {
            out.push(format!(
                "[otel] {} log record(s) of the server not forwarded: {}",
                self.logs_failed,
                self.logs_error.as_deref().unwrap_or("unknown error")
            ));
        }
        if self.logs_dropped > 0 {
            out.push(format!(
                "[otel] {} log record(s) of the server dropped: the export queue was full",
                self.logs_dropped
            ));
        }
        if self.failed > 0 {
            out.push(format!(
                "[otel] {} span(s) not delivered: {}",
                self.failed,
                self.error.as_deref().unwrap_or("unknown error")
            ));
        }
        if self.rejected > 0 {
            out.push(format!(
                "[otel] the backend rejected {} span(s)",
                self.rejected
            ));
        }
        if self.events_dropped > 0 {
            out.push(format!(
                "[otel] {} span event(s) past {} per span were counted, not sent",
                self.events_dropped,
                super::fold::MAX_EVENTS
            ));
        }
        if self.not_opened > 0 {
            out.push(format!(
                "[otel] {} request(s) got no span: more than {} were open at once",
                self.not_opened,
                super::fold::MAX_OPEN
            ));
        }
        if self.unread > 0 {
            out.push(format!(
                "[otel] {} event(s) left memory (--max-store) before they were exported",
                self.unread
            ));
        }
        out
    }

    /// Everything given was delivered.
    pub fn complete(&self) -> bool {
        self.dropped == 0 && self.failed == 0 && self.rejected == 0 && self.unread == 0
    }

    /// A session that is over, all given at once: every span and log
    /// record given was taken, refused or lost, so what is not accounted
    /// for otherwise was not delivered (`why`, unless a reason is known).
    pub fn account(mut self, spans: u64, logs: u64, why: &str) -> Report {
        self.failed = spans.saturating_sub(self.sent + self.rejected + self.dropped);
        self.logs_failed = logs.saturating_sub(self.logs_sent + self.logs_dropped);
        if self.failed > 0 && self.error.is_none() {
            self.error = Some(why.into());
        }
        if self.logs_failed > 0 && self.logs_error.is_none() {
            self.logs_error = Some(why.into());
        }
        self
    }

    /// With what the fold counted.
    pub fn with_counts(mut self, c: super::fold::Counts, unread: u64) -> Report {
        self.made = c.spans;
        self.logs_dropped += c.logs_dropped;
        self.events_dropped = c.events_dropped;
        self.not_opened = c.not_opened;
        self.unread = unread;
        self
    }
}

/// What the queue holds: mcpscope's spans and the server's, and the
/// server's log records.
pub enum Item {
    Span(Ready),
    Log(ReadyLog),
}

impl Item {
    fn is_log(&self) -> bool {
        matches!(self, Item::Log(_))
    }
}

impl From<Ready> for Item {
    fn from(r: Ready) -> Item {
        Item::Span(r)
    }
}

impl From<ReadyLog> for Item {
    fn from(l: ReadyLog) -> Item {
        Item::Log(l)
    }
}

enum Msg {
    Item(Box<Item>),
    Metrics(Box<ExportMetricsServiceRequest>),
    Flush(oneshot::Sender<()>),
}

/// A running exporter. Dropping it stops sending.
pub struct Exporter {
    tx: mpsc::UnboundedSender<Msg>,
    /// Spans queued or being sent: the bound is kept on this count, so the
    /// exporter never holds more than its queue.
    held: Arc<AtomicUsize>,
    cap: usize,
    /// Histogram exports queued and not yet tried.
    metrics_due: Arc<AtomicUsize>,
    report: Arc<Mutex<Report>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Exporter {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Exporter {
    /// Start sending to `cfg`'s backend. Must run inside a tokio runtime.
    pub fn start(cfg: &Config) -> Exporter {
        let (tx, rx) = mpsc::unbounded_channel();
        let held = Arc::new(AtomicUsize::new(0));
        let metrics_due = Arc::new(AtomicUsize::new(0));
        let report = Arc::new(Mutex::new(Report {
            url: cfg.shown(),
            ..Report::default()
        }));
        let worker = Worker {
            client: reqwest::Client::builder()
                .timeout(REQUEST_TIMEOUT)
                .redirect(same_origin_redirects())
                .referer(false)
                .user_agent(concat!("mcpscope/", env!("CARGO_PKG_VERSION")))
                .build()
                .unwrap_or_default(),
            traces: cfg.signal_url("traces"),
            logs: cfg.signal_url("logs"),
            metrics: cfg.signal_url("metrics"),
            headers: cfg.headers.clone(),
            held: held.clone(),
            metrics_due: metrics_due.clone(),
            report: report.clone(),
        };
        let task = tokio::spawn(worker.run(rx));
        Exporter {
            tx,
            held,
            cap: cfg.queue.max(1),
            metrics_due,
            report,
            task,
        }
    }

    /// Queue a span or a log record without waiting: `false` (and
    /// counted) when the queue is full.
    pub fn try_push(&self, item: impl Into<Item>) -> bool {
        let item = item.into();
        if !self.admit() {
            self.lost(item.is_log(), Lost::Dropped);
            return false;
        }
        self.send(item);
        true
    }

    /// Queue a span or a log record, waiting while the queue is full (the
    /// end of a session, a recording's export: nothing live to hold up);
    /// `false` (and counted) when the sender is gone. Only ever awaited
    /// under a deadline ([`Exporter::push_until`]): a backend that never
    /// takes a batch never makes room.
    async fn push_wait(&self, item: Item) -> bool {
        while !self.admit() {
            if self.task.is_finished() {
                self.lost(item.is_log(), Lost::Failed);
                return false;
            }
            // Wait for a batch to leave: a full queue means one is on its way.
            let (done, wait) = oneshot::channel();
            if self.tx.send(Msg::Flush(done)).is_err() {
                self.lost(item.is_log(), Lost::Failed);
                return false;
            }
            let _ = wait.await;
        }
        self.send(item);
        true
    }

    /// Take a place in the queue if there is one.
    fn admit(&self) -> bool {
        let admitted = self
            .held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |h| {
                (h < self.cap).then_some(h + 1)
            })
            .is_ok();
        if admitted {
            self.note_peak();
        }
        admitted
    }

    /// Hand an admitted item to the sender.
    fn send(&self, item: Item) {
        if let Err(mpsc::error::SendError(Msg::Item(item))) =
            self.tx.send(Msg::Item(Box::new(item)))
        {
            self.held.fetch_sub(1, Ordering::AcqRel);
            self.lost(item.is_log(), Lost::Failed);
        }
    }

    fn lost(&self, log: bool, how: Lost) {
        let mut r = self.lock();
        match (log, how) {
            (false, Lost::Dropped) => r.dropped += 1,
            (false, Lost::Failed) => r.failed += 1,
            (true, Lost::Dropped) => r.logs_dropped += 1,
            (true, Lost::Failed) => r.logs_failed += 1,
        }
    }

    /// Queue a span or a log record, waiting for room until `until`: what
    /// finds none by then is counted as not delivered, and said so
    /// (`false`). Past `until` nothing waits.
    pub async fn push_until(&self, item: impl Into<Item>, until: tokio::time::Instant) -> bool {
        let item = item.into();
        let log = item.is_log();
        if tokio::time::Instant::now() < until {
            return tokio::time::timeout_at(until, self.push_wait(item))
                .await
                .unwrap_or_else(|_| {
                    self.out_of_time(log);
                    false
                });
        }
        if self.admit() {
            self.send(item);
            return true;
        }
        self.out_of_time(log);
        false
    }

    /// No room before the deadline: the reason is given when the exporter
    /// stops ([`Exporter::finish_by`]).
    fn out_of_time(&self, log: bool) {
        self.lost(log, Lost::Failed);
    }

    /// Send the histograms (after the spans queued so far).
    pub fn metrics(&self, m: ExportMetricsServiceRequest) {
        self.metrics_due.fetch_add(1, Ordering::AcqRel);
        if self.tx.send(Msg::Metrics(Box::new(m))).is_err() {
            self.metrics_due.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Spans held now.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Acquire)
    }

    /// Send what is queued, waiting until `until` at most (the end of
    /// `deadline`, as said); what is still held or unsent then is counted
    /// as not delivered.
    pub async fn finish_by(&self, until: tokio::time::Instant, deadline: Duration) -> Report {
        let (done, wait) = oneshot::channel();
        let flushed = self.tx.send(Msg::Flush(done)).is_ok()
            && tokio::time::timeout_at(until, wait).await.is_ok();
        let why = format!(
            "the backend did not take them within {}",
            super::deadline::said(deadline)
        );
        self.stop(flushed, &why)
    }

    /// Stop sending at once (a stopping signal): what is still held or
    /// unsent is counted as not delivered, for `why`.
    pub fn abandon(&self, why: &str) -> Report {
        self.stop(false, why)
    }

    fn stop(&self, flushed: bool, why: &str) -> Report {
        self.task.abort();
        let left = self.held.swap(0, Ordering::AcqRel) as u64;
        let metrics_left = self.metrics_due.swap(0, Ordering::AcqRel);
        let mut r = self.lock().clone();
        r.failed += left;
        if left > 0 && (!flushed || r.error.is_none()) {
            let last = r.error.take();
            r.error = Some(match last {
                Some(e) => format!("{why} (last: {e})"),
                None => why.to_string(),
            });
        }
        if r.failed > 0 && r.error.is_none() {
            r.error = Some(why.to_string());
        }
        if r.logs_failed > 0 && r.logs_error.is_none() {
            r.logs_error = Some(why.to_string());
        }
        if metrics_left > 0 && r.metrics_error.is_none() {
            r.metrics_error = Some(why.to_string());
        }
        r
    }

    fn note_peak(&self) {
        let h = self.held.load(Ordering::Acquire);
        let mut r = self.lock();
        r.peak_held = r.peak_held.max(h);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Report> {
        self.report.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// How an item was lost: no room in the queue, or never sent.
#[derive(Clone, Copy)]
enum Lost {
    Dropped,
    Failed,
}

struct Worker {
    client: reqwest::Client,
    traces: String,
    logs: String,
    metrics: String,
    headers: Vec<(String, String)>,
    held: Arc<AtomicUsize>,
    metrics_due: Arc<AtomicUsize>,
    report: Arc<Mutex<Report>>,
}

/// How one export request went.
enum Outcome {
    Taken(bytes::Bytes),
    /// Worth trying again (after the backend's `Retry-After`, if it gave one).
    Again(String, Option<Duration>),
    Refused(String),
}

impl Worker {
    async fn run(self, mut rx: mpsc::UnboundedReceiver<Msg>) {
        let mut spans: Vec<Ready> = Vec::new();
        let mut logs: Vec<ReadyLog> = Vec::new();
        let mut due: Option<tokio::time::Instant> = None;
        loop {
            let msg = match due {
                Some(at) => tokio::select! {
                    m = rx.recv() => m,
                    _ = tokio::time::sleep_until(at) => {
                        self.send_all(&mut spans, &mut logs).await;
                        due = None;
                        continue;
                    }
                },
                None => rx.recv().await,
            };
            match msg {
                None => {
                    self.send_all(&mut spans, &mut logs).await;
                    return;
                }
                Some(Msg::Item(item)) => {
                    match *item {
                        Item::Span(r) => spans.push(r),
                        Item::Log(l) => logs.push(l),
                    }
                    due.get_or_insert_with(|| tokio::time::Instant::now() + BATCH_DELAY);
                    if spans.len() >= BATCH || logs.len() >= BATCH {
                        self.send_all(&mut spans, &mut logs).await;
                        due = None;
                    }
                }
                Some(Msg::Metrics(m)) => {
                    self.send_all(&mut spans, &mut logs).await;
                    due = None;
                    self.send_metrics(*m).await;
                }
                Some(Msg::Flush(done)) => {
                    self.send_all(&mut spans, &mut logs).await;
                    due = None;
                    let _ = done.send(());
                }
            }
        }
    }

    async fn send_all(&self, spans: &mut Vec<Ready>, logs: &mut Vec<ReadyLog>) {
        self.send_spans(std::mem::take(spans)).await;
        self.send_logs(std::mem::take(logs)).await;
    }

    async fn send_logs(&self, batch: Vec<ReadyLog>) {
        if batch.is_empty() {
            return;
        }
        let n = batch.len();
        let body = encode_logs(batch).encode_to_vec();
        match self.post(&self.logs, body).await {
            Ok(_) => self.lock().logs_sent += n as u64,
            Err(e) => {
                let mut r = self.lock();
                r.logs_failed += n as u64;
                r.logs_error = Some(e.to_string());
            }
        }
        self.held.fetch_sub(n, Ordering::AcqRel);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Report> {
        self.report.lock().unwrap_or_else(|e| e.into_inner())
    }

    async fn send_spans(&self, batch: Vec<Ready>) {
        if batch.is_empty() {
            return;
        }
        let n = batch.len();
        let body = encode(batch).encode_to_vec();
        match self.post(&self.traces, body).await {
            Ok(answer) => {
                let rejected = ExportTraceServiceResponse::decode(answer)
                    .ok()
                    .and_then(|r| r.partial_success)
                    .map_or(0, |p| p.rejected_spans.max(0) as u64);
                let mut r = self.lock();
                r.sent += n as u64 - rejected.min(n as u64);
                r.rejected += rejected;
            }
            Err(e) => {
                let mut r = self.lock();
                r.failed += n as u64;
                r.error = Some(e.to_string());
            }
        }
        self.held.fetch_sub(n, Ordering::AcqRel);
    }

    async fn send_metrics(&self, m: ExportMetricsServiceRequest) {
        match self.post(&self.metrics, m.encode_to_vec()).await {
            Ok(_) => {
                let mut r = self.lock();
                r.metrics_sent += 1;
                r.metrics_error = None;
            }
            Err(e) => self.lock().metrics_error = Some(e.to_string()),
        }
        // Never below 0: the exporter may have counted it as unsent already.
        let _ = self
            .metrics_due
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
    }

    /// POST with retries; the error is one line for the user.
    async fn post(&self, url: &str, body: Vec<u8>) -> Result<bytes::Bytes, OtelError> {
        let mut attempt = 0;
        // The signal's path only: the URL may carry credentials.
        let path = url.split(['?', '#']).next().unwrap_or_default();
        let signal = path.rsplit('/').next().unwrap_or_default().to_string();
        loop {
            match self.once(url, body.clone()).await {
                Outcome::Taken(b) => {
                    tracing::debug!(signal, bytes = body.len(), attempt, "export taken");
                    return Ok(b);
                }
                Outcome::Refused(e) => {
                    tracing::warn!(signal, why = %e, "export refused");
                    return Err(OtelError::Refused(e));
                }
                Outcome::Again(e, after) => {
                    if attempt >= RETRIES {
                        tracing::warn!(signal, why = %e, "export given up");
                        return Err(OtelError::GaveUp {
                            why: e,
                            retries: RETRIES,
                        });
                    }
                    let backoff = after
                        .unwrap_or(Duration::from_millis(250) * 2u32.pow(attempt))
                        .min(MAX_BACKOFF);
                    tracing::debug!(signal, why = %e, attempt, backoff_ms = backoff.as_millis() as u64, "export retried");
                    attempt += 1;
                    tokio::time::sleep(backoff).await;
                }
            }
        }
    }

    async fn once(&self, url: &str, body: Vec<u8>) -> Outcome {
        let mut req = self
            .client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/x-protobuf")
            .body(body);
        for (k, v) in &self.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let resp = match req.send().await {
            Ok(r) => r,
            // The URL may hold credentials: the error is said without it.
            Err(e) => {
                let e = e.without_url();
                let why = if e.is_connect() {
                    "cannot connect".to_string()
                } else if e.is_timeout() {
                    "the backend did not answer in time".to_string()
                } else {
                    crate::protocol::sanitize::one_line_max(&e.to_string(), 200)
                };
                return Outcome::Again(why, None);
            }
        };
        let status = resp.status();
        let after = resp
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let body = resp.bytes().await.unwrap_or_default();
        if status.is_success() {
            return Outcome::Taken(body);
        }
        let why = format!(
            "HTTP {}{}",
            status.as_u16(),
            status
                .canonical_reason()
                .map_or(String::new(), |r| format!(" {r}"))
        );
        if status.is_redirection() {
            return Outcome::Refused(format!(
                "{why}: a redirect to another origin (or too many) is not followed; give the backend's own URL"
            ));
        }
        match status.as_u16() {
            429 | 502 | 503 | 504 => Outcome::Again(why, after),
            _ => Outcome::Refused(why),
        }
    }
}

/// The exporter's headers (`--otlp-header`: API keys) are for the backend
/// the user named: a redirect is followed only to the same origin (scheme,
/// host and port), so they never reach another host or port; another
/// redirect is answered as final ([`Worker::once`] says why).
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let origin = |u: &reqwest::Url| {
            (
                u.scheme().to_string(),
                u.host_str().map(str::to_string),
                u.port_or_known_default(),
            )
        };
        let same = attempt
            .previous()
            .first()
            .is_some_and(|first| origin(first) == origin(attempt.url()));
        if same && attempt.previous().len() < MAX_REDIRECTS {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

/// Log records grouped by the service that made them, as one export request.
pub fn encode_logs(batch: Vec<ReadyLog>) -> ExportLogsServiceRequest {
    let mut by_service: BTreeMap<String, Vec<LogRecord>> = BTreeMap::new();
    for l in batch {
        by_service.entry(l.service).or_default().push(l.record);
    }
    ExportLogsServiceRequest {
        resource_logs: by_service
            .into_iter()
            .map(|(service, log_records)| ResourceLogs {
                resource: Some(Resource {
                    attributes: vec![attrs::string("service.name", &service)],
                    ..Default::default()
                }),
                scope_logs: vec![ScopeLogs {
                    log_records,
                    ..Default::default()
                }],
                ..Default::default()
            })
            .collect(),
    }
}

/// Spans grouped by the service that made them, as one export request.
pub fn encode(batch: Vec<Ready>) -> ExportTraceServiceRequest {
    let mut by_service: BTreeMap<Option<String>, Vec<Span>> = BTreeMap::new();
    for r in batch {
        by_service.entry(r.service).or_default().push(r.span);
    }
    ExportTraceServiceRequest {
        resource_spans: by_service
            .into_iter()
            .map(|(service, spans)| ResourceSpans {
                resource: Some(match &service {
                    None => own_resource(),
                    Some(s) => Resource {
                        attributes: vec![attrs::string("service.name", s)],
                        ..Default::default()
                    },
                }),
                scope_spans: vec![ScopeSpans {
                    scope: service.is_none().then(attrs::scope),
                    spans,
                    ..Default::default()
                }],
                ..Default::default()
            })
            .collect(),
    }
}
