//! One frame's POST and what its response means: the session id an
//! `initialize` response issues, the fallback to HTTP+SSE when a server
//! refuses the POST (the spec's back-compat rule), a forgotten session
//! (404), and a JSON body or an SSE stream (handed to `stream`) as the answer.

use super::queue::Outgoing;
use super::report::{self, error_chain, failure, trim_body};
use super::state::SESSION_HEADER;
use super::{Flavor, Inner, body};
use crate::event::Event;
use crate::event::Loss;
use crate::protocol::IdKey;
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use std::sync::Arc;
use std::time::Instant;

impl Inner {
    pub(super) async fn post(self: Arc<Self>, out: Outgoing) {
        let Outgoing {
            channel,
            request_id,
            method,
            ..
        } = out.clone();
        let is_initialize = request_id.is_some() && method.as_deref() == Some("initialize");
        let flavor = self.lock().flavor;
        let target = match flavor {
            Flavor::Legacy => match self.wait_endpoint().await {
                Some(u) => u,
                None => {
                    self.sink.failed(
                        &channel,
                        request_id,
                        "the legacy SSE stream announced no endpoint".into(),
                    );
                    return;
                }
            },
            _ => self.url.clone(),
        };
        let Some(resp) = self.send_authorized(&out, &target).await else {
            return;
        };
        let status = resp.status();
        if is_initialize
            && let Some(sid) = resp
                .headers()
                .get(SESSION_HEADER)
                .and_then(|v| v.to_str().ok())
        {
            self.lock().session_id = Some(sid.to_string());
        }
        if flavor == Flavor::Auto
            && is_initialize
            && matches!(
                status,
                StatusCode::BAD_REQUEST | StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
            )
        {
            // Back-compat: a server that refuses the POST may speak HTTP+SSE.
            self.meta(
                &channel,
                Event::TransportDetect {
                    flavor: "sse".into(),
                    reason: format!("POST initialize answered {}", status.as_u16()),
                },
            );
            self.lock().flavor = Flavor::Legacy;
            self.start_legacy_stream();
            Box::pin(self.clone().post(out)).await;
            return;
        }
        if flavor == Flavor::Auto && is_initialize && status.is_success() {
            self.lock().flavor = Flavor::Streamable;
        }
        if status == StatusCode::NOT_FOUND && self.lock().session_id.is_some() && !is_initialize {
            self.meta(&channel, Event::SessionExpired { status: 404 });
            self.sink.failed(&channel, request_id, Loss::SessionExpired);
            return;
        }
        let content_type = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        if flavor == Flavor::Legacy || self.lock().flavor == Flavor::Legacy {
            // Legacy POSTs are acknowledged; answers come on the SSE stream.
            let challenge = report::challenge(resp.headers());
            let (body, _) = body::read_capped(resp, self.sink.max_frame())
                .await
                .unwrap_or_default();
            if !status.is_success() {
                let why = failure(status.as_u16(), challenge.as_deref(), &body);
                self.sink.failed(&channel, request_id, why.into());
            }
            return;
        }
        if content_type.starts_with("text/event-stream") && status.is_success() {
            self.consume_post_stream(channel, resp, request_id).await;
            return;
        }
        self.answer(&channel, request_id, status, resp).await;
    }

    /// POST the frame to `target`, authorizing again for as long as the
    /// server's challenges let it; `None` once the failure is reported.
    async fn send_authorized(
        &self,
        out: &Outgoing,
        target: &reqwest::Url,
    ) -> Option<reqwest::Response> {
        let Outgoing {
            channel,
            frame,
            request_id,
            headers,
            ..
        } = out;
        let mut authorizations = 0;
        let mut delivered = out.delivered.clone();
        loop {
            if let Some(a) = &self.auth {
                a.ready().await;
            }
            let sent_auth = self.auth.as_ref().and_then(|a| a.header());
            let started = Instant::now();
            let mut req = self
                .common_headers(self.client.post(target.clone()))
                .header(ACCEPT, "application/json, text/event-stream")
                .header(CONTENT_TYPE, "application/json");
            for (k, v) in headers {
                req = req.header(k, v);
            }
            let req = req.body(frame.clone());
            let sent = self.send(channel, req).await;
            if let Some(d) = delivered.take() {
                d.notify_one();
            }
            let resp = match sent {
                Ok(r) => r,
                Err(e) => {
                    let why = format!("POST failed: {}", error_chain(&e));
                    self.meta(
                        channel,
                        Event::HttpError {
                            method: "POST".into(),
                            error: why.clone(),
                        },
                    );
                    let loss = if e.is_connect() {
                        Loss::Unreachable(why)
                    } else {
                        why.into()
                    };
                    self.sink.failed(channel, request_id.clone(), loss);
                    return None;
                }
            };
            self.exchange_meta(channel, "POST", &resp, started);
            let Some(auth) = &self.auth else {
                break Some(resp);
            };
            let challenges = auth_challenges(&resp);
            let status = resp.status().as_u16();
            if !auth.wants(status, &challenges, authorizations) {
                break Some(resp);
            }
            authorizations += 1;
            // The refused answer is kept like any other body.
            if let Ok((b, _)) = body::read_capped(resp, self.sink.max_frame()).await {
                let b = trim_body(&b);
                if !b.is_empty() {
                    self.sink.frames(channel, &[b]);
                }
            }
            if let Err(why) = auth
                .refused(status, &challenges, sent_auth.as_deref())
                .await
            {
                let head = match StatusCode::from_u16(status) {
                    Ok(s) => format!("HTTP {s}"),
                    Err(_) => format!("HTTP {status}"),
                };
                let challenge = report::challenge_of(&challenges);
                self.sink.failed(
                    channel,
                    request_id.clone(),
                    Loss::Unauthorized(format!("{head} (WWW-Authenticate: {challenge}): {why}")),
                );
                return None;
            }
        }
    }

    /// What a streamable POST's plain (non-SSE) answer means: a JSON body
    /// delivered, or the failure of the request it leaves unanswered.
    async fn answer(
        &self,
        channel: &str,
        request_id: Option<IdKey>,
        status: StatusCode,
        resp: reqwest::Response,
    ) {
        let challenge = report::challenge(resp.headers());
        let (body, total) = match body::read_capped(resp, self.sink.max_frame()).await {
            Ok(b) => b,
            Err(e) => {
                self.sink.failed(
                    channel,
                    request_id,
                    format!("reading the response failed: {}", error_chain(&e)).into(),
                );
                return;
            }
        };
        if status == StatusCode::ACCEPTED || (body.is_empty() && status.is_success()) {
            if request_id.is_some() {
                self.sink.failed(
                    channel,
                    request_id,
                    format!("HTTP {status} without a response body").into(),
                );
            }
            return;
        }
        // Whatever the body is (JSON-RPC, an HTML error page), it is kept;
        // one over the cap is kept cut, and said to be.
        if total > body.len() as u64 {
            self.sink.oversized(channel, &body, total);
            if !status.is_success() || request_id.is_some() {
                let why = format!(
                    "the response body ({total} bytes) is over the size cap of {} bytes",
                    body.len()
                );
                self.sink.failed(channel, request_id, why.into());
            }
            return;
        }
        let answered = self.sink.frames(channel, &[trim_body(&body)]);
        let answered = request_id.as_ref().is_some_and(|id| answered.contains(id));
        if !status.is_success() && !answered {
            self.sink.failed(
                channel,
                request_id,
                failure(status.as_u16(), challenge.as_deref(), &body).into(),
            );
        } else if status.is_success() && !answered && request_id.is_some() {
            self.sink.failed(
                channel,
                request_id,
                "the HTTP response did not answer the request".into(),
            );
        }
    }
}

/// Every `WWW-Authenticate` value of a response, as text.
fn auth_challenges(resp: &reqwest::Response) -> Vec<String> {
    resp.headers()
        .get_all(reqwest::header::WWW_AUTHENTICATE)
        .iter()
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .collect()
}
