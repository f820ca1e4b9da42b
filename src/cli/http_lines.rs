//! `[http]` lines: error statuses (with what to do about a 401) and
//! redirects that left credentials behind, from the transport's `http` and
//! `redirect` trace events.

use crate::checks::http::HttpExchanges;
use crate::trace::EventRef;
use crate::transport::http::report::describe;
use serde_json::Value;

/// Redirect targets already explained; a session repeats the same hop on
/// every request. Bounded: past this, targets are no longer told apart.
const MAX_TOLD: usize = 16;

#[derive(Default)]
pub struct HttpLines {
    told: Vec<String>,
    exchanges: HttpExchanges,
}

impl HttpLines {
    /// The error status whose body a malformed frame on `channel` is.
    pub fn error_body(&self, channel: &str) -> Option<u16> {
        self.exchanges.error_body(channel)
    }

    /// The line a meta event deserves, if any (unsanitised).
    pub fn line(&mut self, ev: &EventRef<'_>) -> Option<String> {
        self.exchanges.meta(ev);
        if !matches!(ev.method, Some("http" | "redirect")) {
            return None;
        }
        let v: Value = serde_json::from_slice(ev.bytes).ok()?;
        let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("");
        let status = v.get("status").and_then(Value::as_u64).unwrap_or(0) as u16;
        if ev.method == Some("redirect") {
            let dropped: Vec<&str> = v
                .get("not_forwarded")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let to = text("to").to_string();
            if dropped.is_empty() || self.told.contains(&to) || self.told.len() >= MAX_TOLD {
                return None;
            }
            self.told.push(to.clone());
            return Some(format!(
                "[http] redirected ({status}) to {to}, another origin: not forwarded there: {} (use that URL to send them)",
                dropped.join(", ")
            ));
        }
        let method = text("method");
        // No GET stream (or no DELETE) on offer is a normal answer.
        if status < 400 || (status == 405 && matches!(method, "GET" | "DELETE")) {
            return None;
        }
        let challenge = v.get("challenge").and_then(Value::as_str);
        Some(format!(
            "[http] #{} {method} {}: {}",
            ev.seq,
            ev.channel,
            describe(status, challenge)
        ))
    }
}
