//! Each HTTP exchange, on the wire and in the trace: requests sent with
//! redirects followed (each hop an event), the response's status, content
//! type and session as an `http` event, and every transport event handed to
//! the sink on its channel.

use super::state::SESSION_HEADER;
use super::{Inner, redirect, report};
use crate::event::{Event, Status};
use reqwest::Response;
use std::time::Instant;

impl Inner {
    pub(super) fn meta(&self, channel: &str, event: Event) {
        self.sink.event(channel, event);
    }

    /// Send a request, following redirects (each one a trace event).
    pub(super) async fn send(
        &self,
        channel: &str,
        req: reqwest::RequestBuilder,
    ) -> Result<Response, reqwest::Error> {
        let mut hops = Vec::new();
        let r = redirect::send(&self.client, req.build()?, &mut hops).await;
        for hop in &hops {
            self.meta(channel, hop.event());
        }
        r
    }

    pub(super) fn exchange_meta(
        &self,
        channel: &str,
        method: &str,
        resp: &Response,
        started: Instant,
    ) {
        let h = resp.headers();
        let text = |n: &str| h.get(n).and_then(|v| v.to_str().ok()).map(str::to_string);
        let ev = Event::Http {
            method: method.to_string(),
            status: Status::Code(resp.status().as_u16()),
            content_type: text("content-type"),
            session: text(SESSION_HEADER),
            ms: started.elapsed().as_millis() as u64,
            challenge: report::challenge(h),
        };
        self.meta(channel, ev);
    }
}
