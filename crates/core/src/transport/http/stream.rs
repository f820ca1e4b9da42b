//! Reading SSE response bodies: frames to the sink as each event completes,
//! priming events and cut events kept as meta events, and a POST's stream
//! that ends before its response resumed with GET + `Last-Event-ID`.

use super::Inner;
use super::report::error_chain;
use crate::event::Event;
use crate::protocol::IdKey;
use crate::transport::sse::{SseEvent, SseParser};
use futures_util::StreamExt;
use reqwest::Response;
use reqwest::header::ACCEPT;
use std::time::{Duration, Instant};

/// A stream is resumed (or reopened) at most this many times in a row.
pub(super) const RESUME_ATTEMPTS: u32 = 5;
/// How long to wait before resuming when the server sent no `retry`.
pub(super) const DEFAULT_RETRY_MS: u64 = 1000;

impl Inner {
    /// Read a POST's SSE stream; if it ends before the response, resume it
    /// with GET + `Last-Event-ID` (honouring `retry`).
    pub(super) async fn consume_post_stream(
        &self,
        channel: String,
        resp: Response,
        request_id: Option<IdKey>,
    ) {
        let mut parser = SseParser::with_cap(self.sink.max_frame());
        let mut retry_ms = DEFAULT_RETRY_MS;
        let mut answered = self
            .read_stream(
                &channel,
                resp,
                &mut parser,
                &mut retry_ms,
                request_id.as_ref(),
                false,
            )
            .await;
        if !answered && request_id.is_some() && self.is_stateless() {
            self.sink.failed(
                &channel,
                request_id,
                "the response stream closed before the response (2026-07-28 has no resumption: the request ended with it)"
                    .into(),
            );
            return;
        }
        let mut attempts = 0;
        while !answered && request_id.is_some() {
            let Some(last) = parser.last_event_id.clone() else {
                self.sink.failed(
                    &channel,
                    request_id,
                    "the response stream closed before the response (no event id to resume from)"
                        .into(),
                );
                return;
            };
            attempts += 1;
            if attempts > RESUME_ATTEMPTS || *self.shutdown.borrow() {
                self.sink.failed(
                    &channel,
                    request_id,
                    format!("the response stream closed {attempts} times before the response")
                        .into(),
                );
                return;
            }
            self.meta(
                &channel,
                Event::Resume {
                    last_event_id: last.clone(),
                    after_ms: retry_ms,
                    attempt: attempts,
                },
            );
            tokio::time::sleep(Duration::from_millis(retry_ms)).await;
            let started = Instant::now();
            let req = self
                .common_headers(self.client.get(self.url.clone()))
                .header(ACCEPT, "text/event-stream")
                .header("last-event-id", &last);
            match self.send(&channel, req).await {
                Ok(r) => {
                    self.exchange_meta(&channel, "GET", &r, started);
                    if !r.status().is_success() {
                        let why = format!("resuming the stream failed: HTTP {}", r.status());
                        self.sink.failed(&channel, request_id, why.into());
                        return;
                    }
                    // A resumed stream replays what this request missed; the
                    // server may keep it open afterwards (some use the GET
                    // for everything), so it is released once answered.
                    answered = self
                        .read_stream(
                            &channel,
                            r,
                            &mut parser,
                            &mut retry_ms,
                            request_id.as_ref(),
                            true,
                        )
                        .await;
                }
                Err(e) => {
                    self.meta(
                        &channel,
                        Event::HttpError {
                            method: "GET".into(),
                            error: error_chain(&e),
                        },
                    );
                }
            }
        }
    }

    /// Read one SSE response body; true when it carried the response to `id`.
    /// With `until_answered`, stop reading (and close the stream) as soon as
    /// it has.
    pub(super) async fn read_stream(
        &self,
        channel: &str,
        resp: Response,
        parser: &mut SseParser,
        retry_ms: &mut u64,
        id: Option<&IdKey>,
        until_answered: bool,
    ) -> bool {
        let mut answered = false;
        let mut body = resp.bytes_stream();
        let mut shutdown = self.shutdown.subscribe();
        loop {
            let chunk = tokio::select! {
                c = body.next() => c,
                _ = shutdown.wait_for(|s| *s) => None,
            };
            match chunk {
                Some(Ok(bytes)) => {
                    for ev in parser.feed(&bytes) {
                        answered |= self.deliver(channel, &ev, retry_ms, id);
                    }
                    if answered && until_answered {
                        self.meta(
                            channel,
                            Event::StreamReleased {
                                reason: "the response arrived".into(),
                            },
                        );
                        return true;
                    }
                }
                Some(Err(e)) => {
                    self.meta(
                        channel,
                        Event::StreamError {
                            error: error_chain(&e),
                        },
                    );
                    break;
                }
                None => break,
            }
        }
        if let Some(partial) = parser.finish() {
            // An event cut mid-way: never dispatched, still kept.
            self.meta(channel, Event::StreamCut { partial });
        }
        self.meta(channel, Event::StreamEnd);
        answered
    }

    fn deliver(
        &self,
        channel: &str,
        ev: &SseEvent,
        retry_ms: &mut u64,
        id: Option<&IdKey>,
    ) -> bool {
        if let Some(r) = ev.retry_ms {
            *retry_ms = r;
        }
        match ev.data.as_deref() {
            Some(data) if ev.oversized.is_some() => {
                let total = ev.oversized.unwrap_or_default();
                self.sink.oversized(channel, data.as_bytes(), total);
                false
            }
            Some(data) if !data.is_empty() => {
                if ev.event == "endpoint" {
                    self.set_endpoint(channel, data);
                    return false;
                }
                let answered = self.sink.frames(channel, &[data.as_bytes()]);
                id.is_some_and(|id| answered.contains(id))
            }
            _ => {
                self.meta(
                    channel,
                    Event::SsePriming {
                        id: ev.id.clone(),
                        retry_ms: ev.retry_ms,
                    },
                );
                false
            }
        }
    }
}
