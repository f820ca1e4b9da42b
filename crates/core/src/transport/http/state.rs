//! What the transport remembers between frames: the flavor in use, the
//! session id the server issued and the negotiated protocol version (sent
//! on every request), the running request POSTs and the background streams,
//! and ending the session with a DELETE.

use super::{Flavor, Inner};
use crate::event::{Event, Status};
use crate::protocol::{IdKey, Revision};
use std::collections::HashMap;
use std::time::{Duration, Instant};

pub const SESSION_HEADER: &str = "mcp-session-id";
pub const VERSION_HEADER: &str = "mcp-protocol-version";
/// Why a request failed when the server forgot the session (HTTP 404).
pub use crate::event::SESSION_EXPIRED;

pub(super) struct State {
    pub(super) flavor: Flavor,
    /// Running request POSTs, so a stateless-era cancel can close their stream.
    pub(super) running: HashMap<IdKey, tokio::task::AbortHandle>,
    pub(super) session_id: Option<String>,
    pub(super) protocol_version: Option<String>,
    pub(super) get_task: Option<tokio::task::JoinHandle<()>>,
    pub(super) sse_task: Option<tokio::task::JoinHandle<()>>,
}

impl State {
    pub(super) fn new(flavor: Flavor) -> State {
        State {
            flavor,
            running: HashMap::new(),
            session_id: None,
            protocol_version: None,
            get_task: None,
            sse_task: None,
        }
    }
}

impl Inner {
    pub(super) fn common_headers(
        &self,
        mut req: reqwest::RequestBuilder,
    ) -> reqwest::RequestBuilder {
        req = req.headers(self.headers.clone());
        if let Some(h) = self.auth.as_ref().and_then(|a| a.header()) {
            req = req.header(reqwest::header::AUTHORIZATION, h);
        }
        let st = self.lock();
        if let Some(sid) = &st.session_id {
            req = req.header(SESSION_HEADER, sid);
        }
        if let Some(v) = &st.protocol_version
            && Revision::floor_of(v) >= Some(Revision::V2025_06_18)
        {
            req = req.header(VERSION_HEADER, v);
        }
        req
    }

    /// The stateless 2026-07-28 era: no sessions, no GET stream, no
    /// resumption (a response stream that closes takes its request with it).
    pub(super) fn is_stateless(&self) -> bool {
        let st = self.lock();
        st.protocol_version
            .as_deref()
            .and_then(Revision::floor_of)
            .is_some_and(|r| r >= Revision::V2026_07_28)
    }

    /// DELETE the session, so the server can free it at once.
    pub(super) async fn delete_session(&self, sid: String) {
        let started = Instant::now();
        let req = self
            .client
            .delete(self.url.clone())
            .headers(self.headers.clone())
            .header(SESSION_HEADER, &sid);
        let req = match self.auth.as_ref().and_then(|a| a.header()) {
            Some(h) => req.header(reqwest::header::AUTHORIZATION, h),
            None => req,
        };
        let r = tokio::time::timeout(Duration::from_secs(5), self.send("http", req)).await;
        let status = match r {
            Ok(Ok(resp)) => Status::Code(resp.status().as_u16()),
            Ok(Err(e)) => Status::Failed(e.to_string()),
            Err(_) => Status::Failed("timed out".into()),
        };
        self.meta(
            "http",
            Event::Http {
                method: "DELETE".into(),
                status,
                content_type: None,
                session: Some(sid),
                ms: started.elapsed().as_millis() as u64,
                challenge: None,
            },
        );
    }
}
