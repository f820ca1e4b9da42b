//! What the checks and the headless `[http]` lines learn from the
//! transport's `http` trace events: which channel carries the body of an
//! HTTP error status (that body is the server's HTTP answer — a login page,
//! a proxy's error — not a protocol frame), and whether a POST carrying a
//! request was answered with a content type Streamable HTTP allows.

use crate::event::Event;
use crate::trace::EventRef;
use std::collections::VecDeque;

/// POST channels remembered with their error status. An error body follows
/// its status at once, so a few suffice; older ones are forgotten first.
const MAX_ERRORS: usize = 64;

#[derive(Default)]
pub struct HttpExchanges {
    errors: VecDeque<(Box<str>, u16)>,
    /// Legacy HTTP+SSE acknowledges POSTs (202) and answers on its stream.
    legacy: bool,
}

impl HttpExchanges {
    /// Learn from a meta event. For a POST answered with success but a
    /// content type that is neither JSON nor SSE, why that is wrong (the
    /// caller knows whether the POST carried a request).
    /// `event` is `ev` read as an [`Event`] (the caller has read it already).
    pub fn meta(&mut self, ev: &EventRef<'_>, event: Option<&Event>) -> Option<String> {
        if ev.channel == "sse" || matches!(event, Some(Event::TransportDetect { .. })) {
            self.legacy = true;
        }
        let Some(Event::Http {
            method,
            status,
            content_type,
            ..
        }) = event
        else {
            return None;
        };
        let status = status.code()?;
        if method != "POST" {
            return None;
        }
        self.errors.retain(|(c, _)| &**c != ev.channel);
        if status >= 400 {
            if self.errors.len() >= MAX_ERRORS {
                self.errors.pop_front();
            }
            self.errors.push_back((ev.channel.into(), status));
        }
        if self.legacy || !(200..300).contains(&status) || matches!(status, 202 | 204) {
            return None;
        }
        let ct = content_type.as_deref().unwrap_or("");
        let essence = ct
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if matches!(essence.as_str(), "application/json" | "text/event-stream") {
            return None;
        }
        let got = if essence.is_empty() {
            "no Content-Type".to_string()
        } else {
            format!("Content-Type {essence}")
        };
        Some(format!(
            "the server answered a POST carrying a request (HTTP {status}) with {got}; Streamable HTTP requires application/json or text/event-stream"
        ))
    }

    /// The error status whose body a frame on `channel` is, if it is one:
    /// the server's HTTP answer, shown but never judged by a protocol rule
    /// (a JSON-RPC error in it still ends the request it names).
    pub fn error_body(&self, channel: &str) -> Option<u16> {
        self.errors
            .iter()
            .rev()
            .find(|(c, _)| &**c == channel)
            .map(|(_, s)| *s)
    }
}
