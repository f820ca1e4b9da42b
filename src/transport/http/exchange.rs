//! Each HTTP exchange, on the wire and in the trace: requests sent with
//! redirects followed (each hop an event), the response's status, content
//! type and session as an `http` event, and every transport event handed to
//! the sink on its channel.

use super::state::SESSION_HEADER;
use super::{Inner, redirect, report};
use reqwest::Response;
use serde_json::json;
use std::time::Instant;

impl Inner {
    pub(super) fn meta(&self, channel: &str, event: serde_json::Value) {
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
            self.meta(channel, hop.to_json());
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
        let mut ev = json!({"event": "http", "method": method, "status": resp.status().as_u16(),
                   "content_type": text("content-type"), "session": text(SESSION_HEADER),
                   "ms": started.elapsed().as_millis() as u64});
        if let Some(c) = report::challenge(h) {
            ev["challenge"] = c.into();
        }
        self.meta(channel, ev);
    }
}
