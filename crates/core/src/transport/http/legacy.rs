//! HTTP+SSE (2024-11-05): one GET stream whose first `endpoint` event names
//! the URL to POST to; POSTs wait for it, and answers arrive on the stream.

use super::Inner;
use super::report::{self, error_chain};
use super::stream::DEFAULT_RETRY_MS;
use crate::event::Event;
use crate::transport::sse::SseParser;
use reqwest::Url;
use reqwest::header::ACCEPT;
use std::sync::Arc;
use std::time::{Duration, Instant};

impl Inner {
    pub(super) fn start_legacy_stream(self: &Arc<Self>) {
        let inner = self.clone();
        let mut st = self.lock();
        if st.sse_task.is_none() {
            st.sse_task = Some(tokio::spawn(async move { inner.legacy_stream().await }));
        }
    }

    /// HTTP+SSE (2024-11-05): one GET stream; its first event names the POST URL.
    async fn legacy_stream(self: Arc<Self>) {
        let channel = "sse";
        let started = Instant::now();
        let req = self
            .client
            .get(self.url.clone())
            .headers(self.headers.clone())
            .header(ACCEPT, "text/event-stream");
        let req = match self.auth.as_ref().and_then(|a| a.header()) {
            Some(h) => req.header(reqwest::header::AUTHORIZATION, h),
            None => req,
        };
        match self.send(channel, req).await {
            Ok(r) => {
                self.exchange_meta(channel, "GET", &r, started);
                if !r.status().is_success() {
                    self.endpoint.send_replace(None);
                    self.sink.failed(
                        channel,
                        None,
                        format!(
                            "the SSE stream was refused: {}",
                            report::describe(
                                r.status().as_u16(),
                                report::challenge(r.headers()).as_deref()
                            )
                        )
                        .into(),
                    );
                    return;
                }
                let mut parser = SseParser::with_cap(self.sink.max_frame());
                let mut retry = DEFAULT_RETRY_MS;
                self.read_stream(channel, r, &mut parser, &mut retry, None, false)
                    .await;
                if !*self.shutdown.borrow() {
                    self.sink
                        .failed(channel, None, "the SSE stream closed".into());
                }
            }
            Err(e) => {
                let why = format!("GET (SSE) failed: {}", error_chain(&e));
                self.meta(
                    channel,
                    Event::HttpError {
                        method: "GET".into(),
                        error: why.clone(),
                    },
                );
                self.sink.failed(channel, None, why.into());
            }
        }
    }

    pub(super) fn set_endpoint(&self, channel: &str, data: &str) {
        match self.url.join(data.trim()) {
            Ok(u) => {
                self.meta(
                    channel,
                    Event::Endpoint {
                        url: u.as_str().to_string(),
                    },
                );
                self.endpoint.send_replace(Some(u));
            }
            Err(e) => self.meta(
                channel,
                Event::EndpointInvalid {
                    data: data.to_string(),
                    error: e.to_string(),
                },
            ),
        }
    }

    pub(super) async fn wait_endpoint(&self) -> Option<Url> {
        let mut rx = self.endpoint.subscribe();
        let wait = rx.wait_for(Option::is_some);
        match tokio::time::timeout(Duration::from_secs(15), wait).await {
            Ok(Ok(u)) => u.clone(),
            _ => None,
        }
    }
}
