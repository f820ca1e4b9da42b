//! `[http]` lines: error statuses (with what to do about a 401) and
//! redirects that left credentials behind, from the transport's `http` and
//! `redirect` trace events; `[auth]` lines for the authorization flow's
//! steps and states.

use crate::calls::http::HttpExchanges;
use crate::event::Event;
use crate::trace::EventRef;
use crate::transport::http::report::describe;

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
        let event = ev.event();
        self.exchanges.meta(ev, event.as_ref());
        let (method, status, challenge) = match event? {
            Event::Redirect {
                status,
                to,
                not_forwarded,
                ..
            } => {
                if not_forwarded.is_empty()
                    || self.told.contains(&to)
                    || self.told.len() >= MAX_TOLD
                {
                    return None;
                }
                self.told.push(to.clone());
                return Some(format!(
                    "[http] redirected ({status}) to {to}, another origin: not forwarded there: {} (use that URL to send them)",
                    not_forwarded.join(", ")
                ));
            }
            Event::Http {
                method,
                status,
                challenge,
                ..
            } => (method, status.code()?, challenge),
            e @ (Event::AuthHttp { .. } | Event::Auth { .. }) => {
                return super::auth::auth_line(&e);
            }
            _ => return None,
        };
        // No GET stream (or no DELETE) on offer is a normal answer.
        if status < 400 || (status == 405 && matches!(method.as_str(), "GET" | "DELETE")) {
            return None;
        }
        let challenge = challenge.as_deref();
        Some(format!(
            "[http] #{} {method} {}: {}",
            ev.seq,
            ev.channel,
            describe(status, challenge)
        ))
    }
}
