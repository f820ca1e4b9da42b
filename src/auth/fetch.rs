//! The HTTP exchanges of the authorization flow: each one is a trace event
//! (step, method, URL without its query, status, time), bodies are read up
//! to a cap, every request has a deadline, and redirects are followed only
//! within one origin — metadata or a token that moved to another host is
//! an error, not something to follow silently.

use super::AuthError;
use super::token::TokenProblem;
use crate::event::{Event, Status};
use crate::protocol::sanitize::one_line;
use crate::transport::http::report::error_chain;
use reqwest::header::{CONTENT_TYPE, LOCATION};
use reqwest::{Client, Method, StatusCode, Url};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Metadata documents, registrations and token responses are small.
pub const MAX_BODY: usize = 256 * 1024;
const MAX_HOPS: usize = 5;

/// Where the flow's events go (the session's trace, or stderr for `auth login`).
pub type Emit = Arc<dyn Fn(Event) + Send + Sync>;

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("{method} {url}: timed out after {secs:.1}s")]
    Timeout {
        method: String,
        url: String,
        secs: f64,
    },
    #[error("{method} {url}: {why}")]
    Failed {
        method: String,
        url: String,
        why: String,
    },
    #[error("{method} {url}: redirected to another host ({to}); not followed")]
    CrossOrigin {
        method: String,
        url: String,
        to: String,
    },
    /// An answer that came but cannot be used; `why` shows none of its values.
    #[error("{url}: {why}")]
    Unusable {
        url: String,
        #[source]
        why: TokenProblem,
    },
}

/// One answer: status, content type, body (cut at [`MAX_BODY`]).
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: StatusCode,
    pub content_type: String,
    pub headers: reqwest::header::HeaderMap,
    pub body: Vec<u8>,
    pub url: Url,
}

impl Answer {
    pub fn is_json(&self) -> bool {
        let ct = self.content_type.to_ascii_lowercase();
        ct.starts_with("application/json") || ct.contains("+json")
    }

    /// The body as JSON of type T, or why not (HTML login page, garbage).
    pub fn json<T: serde::de::DeserializeOwned>(&self, what: &str) -> Result<T, AuthError> {
        if !self.is_json() {
            let ct = if self.content_type.is_empty() {
                "no content type".to_string()
            } else {
                self.content_type.clone()
            };
            return Err(AuthError::NotJson {
                what: what.to_string(),
                url: no_query(&self.url),
                content_type: one_line(&ct).into_owned(),
                first_line: one_line(&crate::transport::http::report::first_line(&self.body))
                    .into_owned(),
            });
        }
        serde_json::from_slice(&self.body).map_err(|source| AuthError::BadJson {
            what: what.to_string(),
            url: no_query(&self.url),
            source,
        })
    }
}

/// The HTTP side of the flow.
#[derive(Clone)]
pub struct Fetcher {
    client: Client,
    pub timeout: Duration,
    emit: Emit,
}

impl Fetcher {
    pub fn new(timeout: Duration, emit: Emit) -> Result<Fetcher, AuthError> {
        let client = Client::builder()
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .redirect(reqwest::redirect::Policy::none())
            .referer(false)
            .build()
            .map_err(AuthError::HttpClient)?;
        Ok(Fetcher {
            client,
            timeout,
            emit,
        })
    }

    pub fn emit(&self, ev: Event) {
        (self.emit)(ev);
    }

    /// The server broke the authorization spec: a finding's worth.
    pub fn problem(&self, rule: &str, detail: &str) {
        self.emit(Event::AuthProblem {
            rule: rule.to_string(),
            detail: detail.to_string(),
        });
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Send one request of the flow (`step` names it in the trace).
    pub async fn send(
        &self,
        step: &str,
        method: Method,
        url: Url,
        headers: reqwest::header::HeaderMap,
        body: Option<Vec<u8>>,
    ) -> Result<Answer, FetchError> {
        self.exchange(step, method, url, headers, body, true).await
    }

    /// Like [`Fetcher::send`]; with `follow` unset a redirect is the answer.
    pub async fn exchange(
        &self,
        step: &str,
        method: Method,
        url: Url,
        headers: reqwest::header::HeaderMap,
        body: Option<Vec<u8>>,
        follow: bool,
    ) -> Result<Answer, FetchError> {
        let mut url = url;
        let mut method = method;
        let mut body = body;
        for _ in 0..=MAX_HOPS {
            let shown = no_query(&url);
            let a = self
                .once(step, &method, &url, &headers, body.as_ref(), true)
                .await?;
            if follow
                && a.status.is_redirection()
                && let Some(to) = a
                    .headers
                    .get(LOCATION)
                    .and_then(|l| l.to_str().ok())
                    .and_then(|l| a.url.join(l).ok())
            {
                if to.origin() != url.origin() {
                    return Err(FetchError::CrossOrigin {
                        method: method.to_string(),
                        url: shown,
                        to: format!("{}{}", to.origin().ascii_serialization(), to.path()),
                    });
                }
                if !matches!(
                    a.status,
                    StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
                ) && method != Method::GET
                {
                    method = Method::GET;
                    body = None;
                }
                url = to;
                continue;
            }
            return Ok(a);
        }
        Err(FetchError::Failed {
            method: method.to_string(),
            url: no_query(&url),
            why: format!("more than {MAX_HOPS} redirects"),
        })
    }

    /// Send one request and take its answer without its body (empty), no
    /// redirect followed: for an answer whose body may never end (an SSE
    /// stream) when only its status matters.
    pub async fn status_only(
        &self,
        step: &str,
        method: Method,
        url: Url,
        headers: reqwest::header::HeaderMap,
        body: Option<Vec<u8>>,
    ) -> Result<Answer, FetchError> {
        self.once(step, &method, &url, &headers, body.as_ref(), false)
            .await
    }

    /// One request within the deadline, traced; its answer's body is read
    /// (up to the cap) only with `read_body`.
    async fn once(
        &self,
        step: &str,
        method: &Method,
        url: &Url,
        headers: &reqwest::header::HeaderMap,
        body: Option<&Vec<u8>>,
        read_body: bool,
    ) -> Result<Answer, FetchError> {
        let mut req = self
            .client
            .request(method.clone(), url.clone())
            .headers(headers.clone());
        if let Some(b) = body {
            req = req.body(b.clone());
        }
        let started = Instant::now();
        let ms = || started.elapsed().as_millis() as u64;
        let shown = no_query(url);
        let sent = tokio::time::timeout(self.timeout, async {
            let resp = req.send().await?;
            let status = resp.status();
            let headers = resp.headers().clone();
            let url = resp.url().clone();
            let content_type = headers
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string();
            let body = if read_body {
                read_capped(resp).await?
            } else {
                Vec::new()
            };
            Ok::<_, reqwest::Error>(Answer {
                status,
                content_type,
                headers,
                body,
                url,
            })
        })
        .await;
        match sent {
            Err(_) => {
                self.event(
                    step,
                    method,
                    &shown,
                    Status::Failed("timed out".into()),
                    ms(),
                );
                Err(FetchError::Timeout {
                    method: method.to_string(),
                    url: shown,
                    secs: self.timeout.as_secs_f64(),
                })
            }
            Ok(Err(e)) => {
                let why = error_chain(&e);
                self.event(step, method, &shown, Status::Failed(why.clone()), ms());
                Err(FetchError::Failed {
                    method: method.to_string(),
                    url: shown,
                    why,
                })
            }
            Ok(Ok(a)) => {
                self.event(step, method, &shown, Status::Code(a.status.as_u16()), ms());
                Ok(a)
            }
        }
    }

    pub async fn get(&self, step: &str, url: Url) -> Result<Answer, FetchError> {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert(
            reqwest::header::ACCEPT,
            reqwest::header::HeaderValue::from_static("application/json"),
        );
        self.send(step, Method::GET, url, h, None).await
    }

    fn event(&self, step: &str, method: &Method, url: &str, status: Status, ms: u64) {
        self.emit(Event::AuthHttp {
            step: step.to_string(),
            method: method.to_string(),
            url: url.to_string(),
            status,
            ms,
        });
    }
}

/// A URL as shown and recorded: no query (codes, states, keys live there)
/// and no user info.
pub fn no_query(u: &Url) -> String {
    format!("{}{}", u.origin().ascii_serialization(), u.path())
}

/// At most [`MAX_BODY`] bytes of a body; the rest is not read.
async fn read_capped(resp: reqwest::Response) -> Result<Vec<u8>, reqwest::Error> {
    use futures_util::StreamExt;
    let mut out = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        let room = MAX_BODY.saturating_sub(out.len()).min(chunk.len());
        out.extend_from_slice(&chunk[..room]);
        if out.len() >= MAX_BODY {
            break;
        }
    }
    Ok(out)
}
