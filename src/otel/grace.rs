//! Spans come after the response they belong to (batch exporters flush on
//! a timer or at shutdown): a headless command waits a bounded time for a
//! span of each call whose request carried a `traceparent`, and says which
//! did not come.

use crate::event::Event;
use crate::protocol::trace_context::traceparent_of;
use crate::trace::{Dir, Trace};
use std::collections::BTreeMap;
use std::time::Duration;

/// How long a headless command waits for the spans of its calls.
pub const GRACE: Duration = Duration::from_secs(2);

/// The calls still waiting for a span: trace id → (request seq, method).
#[derive(Debug, Default)]
pub struct Awaited {
    calls: BTreeMap<String, (u64, String)>,
    /// The next seq to look at.
    next: u64,
    /// The server has exported something: it has an exporter pointed here.
    exported: bool,
}

/// The calls whose spans are awaited.
pub const METHODS: &[&str] = &["tools/call"];

impl Awaited {
    /// Take in what the trace holds past what was seen: requests of
    /// `methods` that carried a `traceparent` are awaited, a span of their
    /// trace settles them.
    pub fn scan(&mut self, trace: &Trace, methods: &[&str]) {
        let store = trace.read();
        let from = self.next.max(store.first_seq());
        for ev in store.range(from, store.next_seq()) {
            match ev.dir {
                Dir::Out if ev.method.is_some_and(|m| methods.contains(&m)) => {
                    if let Some(tp) = traceparent_of(ev.bytes) {
                        let method = ev.method.unwrap_or_default().to_string();
                        self.calls.insert(tp.trace_id, (ev.seq, method));
                    }
                }
                Dir::Meta if ev.method.is_some_and(|m| m.starts_with("otel-")) => {
                    self.exported = true;
                    if let Some(Event::OtelSpan { trace_id, .. }) = ev.event() {
                        self.calls.remove(&trace_id);
                    }
                }
                _ => {}
            }
        }
        self.next = store.next_seq();
    }

    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// Wait until every awaited call has a span or `grace` has passed.
    pub async fn wait(&mut self, trace: &Trace, methods: &[&str], grace: Duration) {
        let mut changed = trace.subscribe();
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            self.scan(trace, methods);
            if self.is_empty() {
                return;
            }
            match tokio::time::timeout_at(deadline, changed.changed()).await {
                Ok(Ok(())) => {}
                _ => return,
            }
        }
    }

    /// Before the server is stopped. A stdio server flushes its batch
    /// exporter when it exits (its stdin closed), so it is not waited for
    /// here; an HTTP server keeps running, so once it has shown it exports,
    /// its calls' spans are waited for up to [`GRACE`].
    pub async fn before_shutdown(&mut self, trace: &Trace, http: bool) {
        self.scan(trace, METHODS);
        if http && self.exported {
            self.wait(trace, METHODS, GRACE).await;
        }
    }

    /// After the server stopped: the calls without a span, said when the
    /// server exported anything at all (one that never does is not told
    /// about on every call).
    pub fn after_shutdown(&mut self, trace: &Trace) -> Vec<String> {
        self.scan(trace, METHODS);
        if self.exported {
            self.missing_lines()
        } else {
            Vec::new()
        }
    }

    /// `[otel] …` lines for the calls whose spans never came.
    pub fn missing_lines(&self) -> Vec<String> {
        self.calls
            .iter()
            .map(|(trace_id, (seq, method))| {
                format!(
                    "[otel] no span arrived for {method} #{seq} (trace {trace_id}): the server may not export spans, or exported after mcpscope stopped listening"
                )
            })
            .collect()
    }
}
