//! The standalone GET stream (Streamable HTTP, after initialization): where a
//! server sends what belongs to no request. It is reopened with
//! `Last-Event-ID` until shutdown, never in a storm.

use super::report::error_chain;
use super::stream::{DEFAULT_RETRY_MS, RESUME_ATTEMPTS};
use super::{Flavor, HttpTransport, Inner};
use crate::event::Event;
use crate::transport::sse::SseParser;
use reqwest::StatusCode;
use reqwest::header::ACCEPT;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;

/// The GET stream is never reopened faster than this.
const MIN_RECONNECT_MS: u64 = 250;

impl HttpTransport {
    /// Open the standalone GET stream (Streamable HTTP, after initialization).
    ///
    /// Resolves once the server has answered the GET (or `limit` passed):
    /// a server may send its requests on this stream as soon as the next
    /// call arrives, and would have nowhere to send them before.
    pub async fn open_get_stream(&self, limit: Duration) {
        let (ready_tx, mut ready) = watch::channel(false);
        {
            let inner = self.inner.clone();
            let mut st = self.inner.lock();
            if st.flavor == Flavor::Legacy || st.get_task.is_some() {
                return;
            }
            st.get_task = Some(tokio::spawn(
                async move { inner.get_stream(ready_tx).await },
            ));
        }
        let _ = tokio::time::timeout(limit, ready.wait_for(|r| *r)).await;
    }
}

impl Inner {
    /// The standalone GET stream: server-initiated messages. Reconnects with
    /// `Last-Event-ID` until shutdown; a 405 means the server offers none.
    async fn get_stream(self: Arc<Self>, ready: watch::Sender<bool>) {
        let channel = "get";
        let mut parser = SseParser::with_cap(self.sink.max_frame());
        let mut retry_ms = DEFAULT_RETRY_MS;
        let mut failures = 0;
        // Streams that end at once are retried ever more slowly, whatever
        // `retry` says: a server closing immediately must not cause a GET storm.
        let mut backoff_ms = 0u64;
        while !*self.shutdown.borrow() && failures < RESUME_ATTEMPTS {
            let started = Instant::now();
            let mut req = self
                .common_headers(self.client.get(self.url.clone()))
                .header(ACCEPT, "text/event-stream");
            if let Some(last) = &parser.last_event_id {
                req = req.header("last-event-id", last);
            }
            let sent = self.send(channel, req).await;
            // Answered or refused: either way the caller need not wait longer.
            ready.send_replace(true);
            match sent {
                Ok(r) => {
                    self.exchange_meta(channel, "GET", &r, started);
                    if r.status() == StatusCode::METHOD_NOT_ALLOWED {
                        return;
                    }
                    if !r.status().is_success() {
                        failures += 1;
                    } else {
                        failures = 0;
                        self.read_stream(channel, r, &mut parser, &mut retry_ms, None, false)
                            .await;
                    }
                }
                Err(e) => {
                    failures += 1;
                    self.meta(
                        channel,
                        Event::HttpError {
                            method: "GET".into(),
                            error: error_chain(&e),
                        },
                    );
                }
            }
            if *self.shutdown.borrow() {
                return;
            }
            backoff_ms = if started.elapsed() < Duration::from_secs(1) {
                (backoff_ms * 2).clamp(MIN_RECONNECT_MS, 30_000)
            } else {
                0
            };
            let after_ms = retry_ms.max(backoff_ms).max(MIN_RECONNECT_MS);
            self.meta(
                channel,
                Event::Reconnect {
                    after_ms,
                    last_event_id: parser.last_event_id.clone(),
                },
            );
            tokio::time::sleep(Duration::from_millis(after_ms)).await;
        }
    }
}
