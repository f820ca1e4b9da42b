//! Redirects, followed here rather than by reqwest: its policy forwards
//! every header but a few (Authorization, Cookie) to another origin and adds
//! a `Referer`. A redirect to another origin drops every header the secret
//! list names (`protocol::secrets`), and no `Referer` is ever sent.

use crate::protocol::secrets::is_secret_name;
use reqwest::header::{CONTENT_LENGTH, CONTENT_TYPE, LOCATION};
use reqwest::{Client, Method, Request, Response, StatusCode, Url};

/// Redirects followed for one request; the next 3xx is the answer.
pub const MAX_HOPS: usize = 10;

/// One redirect followed.
#[derive(Debug, Clone, PartialEq)]
pub struct Hop {
    pub status: u16,
    pub to: Url,
    pub cross_origin: bool,
    /// Lowercase names of the headers not forwarded to the new origin.
    pub not_forwarded: Vec<String>,
}

impl Hop {
    /// The trace event; the target without its query, which may hold a key.
    pub fn to_json(&self) -> serde_json::Value {
        self.event().to_json()
    }

    pub fn event(&self) -> crate::event::Event {
        crate::event::Event::Redirect {
            status: self.status,
            to: format!(
                "{}{}",
                self.to.origin().ascii_serialization(),
                self.to.path()
            ),
            cross_origin: self.cross_origin,
            not_forwarded: self.not_forwarded.clone(),
        }
    }
}

/// Send `req`, following up to [`MAX_HOPS`] redirects; every hop taken is
/// pushed to `hops`. A redirect that cannot be followed (no usable
/// `Location`, a body that cannot be sent twice, too many hops) is returned
/// as the response, so it is reported like any other HTTP error.
pub async fn send(
    client: &Client,
    mut req: Request,
    hops: &mut Vec<Hop>,
) -> Result<Response, reqwest::Error> {
    loop {
        let again = req.try_clone();
        let resp = client.execute(req).await?;
        let status = resp.status();
        let to = resp
            .headers()
            .get(LOCATION)
            .and_then(|l| l.to_str().ok())
            .and_then(|l| resp.url().join(l).ok())
            .filter(|u| matches!(u.scheme(), "http" | "https"));
        let (Some(mut next), Some(to)) = (again, to) else {
            return Ok(resp);
        };
        if !is_followed(status) || hops.len() >= MAX_HOPS {
            return Ok(resp);
        }
        if !matches!(
            status,
            StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
        ) && !matches!(*next.method(), Method::GET | Method::HEAD)
        {
            // 301/302/303 turn a POST into a GET without its body, as browsers do.
            *next.method_mut() = Method::GET;
            *next.body_mut() = None;
            next.headers_mut().remove(CONTENT_TYPE);
            next.headers_mut().remove(CONTENT_LENGTH);
        }
        let cross_origin = to.origin() != next.url().origin();
        let mut not_forwarded = Vec::new();
        if cross_origin {
            let secret: Vec<_> = next
                .headers()
                .keys()
                .filter(|k| is_secret_name(k.as_str()))
                .cloned()
                .collect();
            for name in secret {
                next.headers_mut().remove(&name);
                not_forwarded.push(name.as_str().to_string());
            }
        }
        *next.url_mut() = to.clone();
        hops.push(Hop {
            status: status.as_u16(),
            to,
            cross_origin,
            not_forwarded,
        });
        req = next;
    }
}

fn is_followed(s: StatusCode) -> bool {
    matches!(
        s,
        StatusCode::MOVED_PERMANENTLY
            | StatusCode::FOUND
            | StatusCode::SEE_OTHER
            | StatusCode::TEMPORARY_REDIRECT
            | StatusCode::PERMANENT_REDIRECT
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trace_names_no_query() {
        let hop = Hop {
            status: 307,
            to: Url::parse("https://user:pw@example.com:8443/mcp?api_key=k").unwrap(),
            cross_origin: true,
            not_forwarded: vec!["x-api-key".into()],
        };
        let v = hop.to_json();
        assert_eq!(v["to"], "https://example.com:8443/mcp");
        assert_eq!(v["not_forwarded"][0], "x-api-key");
    }
}
