//! The transport a session speaks over, behind one small interface.

use crate::transport::http::HttpTransport;
use crate::transport::stdio::{CHANNEL as STDIO, StdioTransport};
use crate::transport::{ExitInfo, TransportError};
use std::time::Duration;

pub enum Link {
    Stdio(StdioTransport),
    Http(HttpTransport),
}

impl Link {
    /// Time spent authorizing so far: request deadlines move by it.
    pub fn auth_paused(&self) -> std::time::Duration {
        match self {
            Link::Stdio(_) => std::time::Duration::ZERO,
            Link::Http(h) => h.auth_paused(),
        }
    }

    /// The channel the next outgoing frame is recorded and sent on.
    pub fn reserve_channel(&self, method: Option<&str>) -> String {
        match self {
            Link::Stdio(_) => STDIO.to_string(),
            Link::Http(h) => h.reserve_channel(method),
        }
    }

    /// `headers` go with the frame's HTTP request; stdio has nowhere to put them.
    pub fn send(
        &self,
        channel: String,
        frame: Vec<u8>,
        headers: Vec<(String, String)>,
    ) -> Result<(), TransportError> {
        match self {
            Link::Stdio(s) => s.send(frame),
            Link::Http(h) => h.send(channel, frame, headers),
        }
    }

    /// Channel for events that belong to no exchange.
    pub fn meta_channel(&self) -> &'static str {
        match self {
            Link::Stdio(_) => STDIO,
            Link::Http(_) => "http",
        }
    }

    pub fn exit_info(&self) -> Option<ExitInfo> {
        match self {
            Link::Stdio(s) => s.exit_info(),
            Link::Http(_) => None,
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Link::Stdio(_) => "stdio",
            Link::Http(h) => match h.flavor() {
                crate::transport::http::Flavor::Legacy => "http+sse",
                _ => "streamable-http",
            },
        }
    }

    pub async fn shutdown(&self, grace: Duration) -> Option<ExitInfo> {
        match self {
            Link::Stdio(s) => Some(s.shutdown(grace).await),
            Link::Http(h) => {
                h.shutdown().await;
                None
            }
        }
    }
}
