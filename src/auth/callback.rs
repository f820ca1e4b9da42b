//! The loopback redirect (RFC 8252 §7.3): a listener on 127.0.0.1 that
//! takes the one `GET /callback?code=…&state=…` the authorization server
//! sends the browser to, answers it with a page saying the window may be
//! closed, and hands the query on. Anything else it is sent (a favicon, a
//! scanner) gets a 404 and the wait goes on; requests are read up to a cap.
//! A request whose `Host` is not this listener's loopback address (or with
//! a foreign `Origin`) is refused by the listener guard, as on every local
//! listener: a rebound name from a web page cannot reach it.

use reqwest::Url;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const PATH: &str = "/callback";
const MAX_REQUEST: usize = 16 * 1024;
/// A connection that sends nothing is dropped after this long.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

pub struct Callback {
    listener: TcpListener,
    guard: crate::listen_guard::ListenGuard,
    pub redirect_uri: String,
}

/// What came back to the redirect URI, as query pairs.
pub type Returned = Vec<(String, String)>;

impl Callback {
    /// Listen on `127.0.0.1:port` (0 for any free port).
    pub async fn bind(port: u16) -> std::io::Result<Callback> {
        let listener = TcpListener::bind(("127.0.0.1", port)).await?;
        let bound = listener.local_addr()?;
        let port = bound.port();
        Ok(Callback {
            listener,
            guard: crate::listen_guard::ListenGuard::new(bound, Vec::new()),
            redirect_uri: format!("http://127.0.0.1:{port}{PATH}"),
        })
    }

    /// Wait for the redirect and return its query.
    pub async fn wait(&self) -> std::io::Result<Returned> {
        loop {
            let (mut sock, _) = self.listener.accept().await?;
            let head = match tokio::time::timeout(READ_TIMEOUT, read_head(&mut sock)).await {
                Ok(Ok(h)) => h,
                _ => continue,
            };
            let target = head
                .lines()
                .next()
                .and_then(|l| {
                    let mut parts = l.split(' ');
                    match (parts.next(), parts.next()) {
                        (Some("GET"), Some(t)) => Some(t.to_string()),
                        _ => None,
                    }
                })
                .unwrap_or_default();
            if let Err(refusal) = self.guard.admit(&header_lines(&head)) {
                let _ = sock.write_all(refusal.http1().as_bytes()).await;
                continue;
            }
            let Some(query) = callback_query(&target) else {
                let _ = sock
                    .write_all(
                        b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                    )
                    .await;
                continue;
            };
            let page = "<!doctype html><title>mcpscope</title><p>mcpscope received the \
                        authorization response. You can close this window.</p>";
            let resp = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\n\
                 content-length: {}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n{page}",
                page.len()
            );
            let _ = sock.write_all(resp.as_bytes()).await;
            let _ = sock.shutdown().await;
            return Ok(query);
        }
    }
}

async fn read_head(sock: &mut tokio::net::TcpStream) -> std::io::Result<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 2048];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < MAX_REQUEST {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// The header lines of a request head, as the listener guard reads them
/// (a line that is not a valid header is left out).
fn header_lines(head: &str) -> hyper::HeaderMap {
    let mut map = hyper::HeaderMap::new();
    for l in head.lines().skip(1) {
        if let Some((k, v)) = l.split_once(':')
            && let Ok(k) = hyper::header::HeaderName::from_bytes(k.trim().as_bytes())
            && let Ok(v) = hyper::header::HeaderValue::from_str(v.trim())
        {
            map.append(k, v);
        }
    }
    map
}

/// The query of a request target on the callback path.
fn callback_query(target: &str) -> Option<Returned> {
    let u = Url::parse(&format!("http://127.0.0.1{target}")).ok()?;
    (u.path() == PATH).then(|| u.query_pairs().into_owned().collect())
}

/// The query of a redirect URL the user pasted (the browser could not reach
/// the listener: another machine, a container).
pub fn pasted(text: &str) -> Option<Returned> {
    let u = Url::parse(text.trim()).ok()?;
    let q: Returned = u.query_pairs().into_owned().collect();
    q.iter()
        .any(|(k, _)| k == "code" || k == "error")
        .then_some(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_listener_takes_the_callback_and_skips_the_rest() {
        let cb = Callback::bind(0).await.unwrap();
        let uri = cb.redirect_uri.clone();
        assert!(uri.starts_with("http://127.0.0.1:") && uri.ends_with("/callback"));
        let base = uri.trim_end_matches("/callback").to_string();
        let client = reqwest::Client::new();
        let waiting = tokio::spawn(async move { cb.wait().await });
        let miss = client
            .get(format!("{base}/favicon.ico"))
            .send()
            .await
            .unwrap();
        assert_eq!(miss.status(), 404);
        let rebound = client
            .get(format!("{uri}?code=stolen&state=s"))
            .header("host", "evil.example")
            .send()
            .await
            .unwrap();
        assert_eq!(rebound.status(), 403, "a rebound name is refused");
        assert!(
            rebound.text().await.unwrap().contains("refused"),
            "the guard says why, as on every local listener"
        );
        let foreign = client
            .get(format!("{uri}?code=stolen&state=s"))
            .header("origin", "http://evil.example")
            .send()
            .await
            .unwrap();
        assert_eq!(foreign.status(), 403, "a foreign page is refused");
        let hit = client
            .get(format!("{uri}?code=c%20d&state=s"))
            .send()
            .await
            .unwrap();
        assert_eq!(hit.status(), 200);
        let q = waiting.await.unwrap().unwrap();
        assert_eq!(
            q,
            vec![
                ("code".to_string(), "c d".to_string()),
                ("state".to_string(), "s".to_string())
            ]
        );
    }

    #[test]
    fn a_pasted_redirect_needs_a_code_or_an_error() {
        assert!(pasted("http://127.0.0.1:5/callback?code=x&state=y").is_some());
        assert!(pasted("  http://127.0.0.1:5/callback?error=access_denied\n").is_some());
        assert!(pasted("http://127.0.0.1:5/callback?state=y").is_none());
        assert!(pasted("hello").is_none());
    }
}
