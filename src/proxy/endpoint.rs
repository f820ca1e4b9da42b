//! Legacy HTTP+SSE through the HTTP proxy: the server's `endpoint` event
//! tells the host where to POST its messages. Written as an absolute URL on
//! the server's own origin, it would send the host's POSTs around the
//! proxy, which would then see only the server's side of the session. So,
//! on an event stream, the first `endpoint` event naming the server's origin
//! is the one thing the proxy changes on its way to the host: its URL
//! becomes a path on the proxy (same path, query and fragment), which the
//! host resolves against the proxy's address. Every other byte passes as the
//! server wrote it; until that event is through (or [`SCAN_LIMIT`] bytes
//! passed without one) complete events are held only until their blank
//! line. The observer records what the server sent, not this rewrite.

use bytes::Bytes;

/// Bytes of a stream's start looked at for the endpoint event; past this
/// everything passes untouched.
pub const SCAN_LIMIT: usize = 64 << 10;

const BOM: &[u8] = "\u{feff}".as_bytes();

pub struct EndpointRewrite {
    upstream: reqwest::Url,
    /// Bytes held: the start of an event not complete yet.
    buf: Vec<u8>,
    scanned: usize,
    done: bool,
    /// The stream's first bytes are still to come (a BOM may open them).
    at_start: bool,
}

impl EndpointRewrite {
    pub fn new(upstream: &reqwest::Url) -> Self {
        EndpointRewrite {
            upstream: upstream.clone(),
            buf: Vec::new(),
            scanned: 0,
            done: false,
            at_start: true,
        }
    }

    /// What to forward now for this chunk (possibly nothing yet).
    pub fn feed(&mut self, chunk: Bytes) -> Bytes {
        if self.done {
            return chunk;
        }
        self.buf.extend_from_slice(&chunk);
        let mut out = Vec::new();
        while let Some(end) = event_end(&self.buf) {
            let event: Vec<u8> = self.buf.drain(..end).collect();
            self.scanned += event.len();
            let (bytes, was_endpoint) = self.rewrite(&event);
            out.extend_from_slice(&bytes);
            if was_endpoint || self.scanned >= SCAN_LIMIT {
                self.done = true;
                break;
            }
        }
        if self.done || self.scanned + self.buf.len() >= SCAN_LIMIT {
            self.done = true;
            out.append(&mut self.buf);
        }
        Bytes::from(out)
    }

    /// The stream ended: whatever is still held.
    pub fn finish(&mut self) -> Bytes {
        self.done = true;
        Bytes::from(std::mem::take(&mut self.buf))
    }

    /// One complete event, rewritten if it is an endpoint event naming the
    /// server's origin; and whether it was an endpoint event at all.
    fn rewrite(&mut self, event: &[u8]) -> (Vec<u8>, bool) {
        let start = std::mem::replace(&mut self.at_start, false);
        let lines = split_lines(event);
        let field = |line: &[u8], i: usize| -> Option<(Vec<u8>, Vec<u8>)> {
            let line = if i == 0 && start {
                line.strip_prefix(BOM).unwrap_or(line)
            } else {
                line
            };
            let colon = line.iter().position(|b| *b == b':')?;
            let value = &line[colon + 1..];
            let value = value.strip_prefix(b" ").unwrap_or(value);
            Some((line[..colon].to_vec(), value.to_vec()))
        };
        let is_endpoint = lines
            .iter()
            .enumerate()
            .any(|(i, (l, _))| field(l, i).is_some_and(|(k, v)| k == b"event" && v == b"endpoint"));
        if !is_endpoint {
            return (event.to_vec(), false);
        }
        let mut out = Vec::with_capacity(event.len());
        for (i, (line, end)) in lines.iter().enumerate() {
            match field(line, i) {
                Some((k, v)) if k == b"data" => match self.on_proxy(&v) {
                    Some(path) => {
                        // The field name keeps whatever came before it (a BOM).
                        let name_at = line.len() - v.len();
                        let prefix = &line[..name_at];
                        out.extend_from_slice(prefix);
                        out.extend_from_slice(path.as_bytes());
                    }
                    None => out.extend_from_slice(line),
                },
                _ => out.extend_from_slice(line),
            }
            out.extend_from_slice(end);
        }
        (out, true)
    }

    fn on_proxy(&self, value: &[u8]) -> Option<String> {
        on_proxy(&self.upstream, std::str::from_utf8(value).ok()?)
    }
}

/// An absolute URL on the server's origin as a path on the proxy (path,
/// query and fragment); `None` for anything else. Also what a redirect's
/// `Location` becomes, as reverse proxies do.
pub fn on_proxy(upstream: &reqwest::Url, text: &str) -> Option<String> {
    let url = reqwest::Url::parse(text.trim()).ok()?;
    let same = url.scheme() == upstream.scheme()
        && url.host_str() == upstream.host_str()
        && url.port_or_known_default() == upstream.port_or_known_default();
    if !same {
        return None;
    }
    let mut path = url.path().to_string();
    if let Some(q) = url.query() {
        path.push('?');
        path.push_str(q);
    }
    if let Some(f) = url.fragment() {
        path.push('#');
        path.push_str(f);
    }
    Some(path)
}

/// Lines with their terminators (`\r\n`, `\n` or `\r`).
fn split_lines(event: &[u8]) -> Vec<(&[u8], &[u8])> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut start = 0;
    while i < event.len() {
        match event[i] {
            b'\n' => {
                out.push((&event[start..i], &event[i..i + 1]));
                i += 1;
                start = i;
            }
            b'\r' => {
                let n = if event.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                out.push((&event[start..i], &event[i..i + n]));
                i += n;
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < event.len() {
        out.push((&event[start..], &event[event.len()..]));
    }
    out
}

/// Where the first complete event in `buf` ends (after its blank line); a
/// CR at the very end may still be the start of a CRLF, so it waits.
fn event_end(buf: &[u8]) -> Option<usize> {
    let mut i = 0;
    let mut line_empty = true;
    while i < buf.len() {
        let (terminator, n) = match buf[i] {
            b'\n' => (true, 1),
            b'\r' => match buf.get(i + 1) {
                Some(b'\n') => (true, 2),
                Some(_) => (true, 1),
                None => return None,
            },
            _ => (false, 1),
        };
        if terminator {
            if line_empty {
                return Some(i + n);
            }
            line_empty = true;
        } else {
            line_empty = false;
        }
        i += n;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(upstream: &str, chunks: &[&[u8]]) -> Vec<u8> {
        let mut r = EndpointRewrite::new(&reqwest::Url::parse(upstream).unwrap());
        let mut out = Vec::new();
        for c in chunks {
            out.extend_from_slice(&r.feed(Bytes::copy_from_slice(c)));
        }
        out.extend_from_slice(&r.finish());
        out
    }

    #[test]
    fn an_absolute_endpoint_on_the_servers_origin_becomes_a_path() {
        let got = run(
            "http://127.0.0.1:9000/sse",
            &[b"event: endpoint\r\ndata: http://127.0.0.1:9000/messages?s=1\r\n\r\nevent: message\r\ndata: http://127.0.0.1:9000/x\r\n\r\n"],
        );
        assert_eq!(
            String::from_utf8(got).unwrap(),
            "event: endpoint\r\ndata: /messages?s=1\r\n\r\nevent: message\r\ndata: http://127.0.0.1:9000/x\r\n\r\n"
        );
    }

    #[test]
    fn split_across_chunks_and_after_other_events_and_a_bom() {
        let stream = "\u{feff}: hello\n\nevent:endpoint\ndata:http://localhost:80/m\n\nrest";
        let bytes = stream.as_bytes();
        for cut in 0..bytes.len() {
            let got = run("http://localhost/sse", &[&bytes[..cut], &bytes[cut..]]);
            assert_eq!(
                String::from_utf8(got).unwrap(),
                "\u{feff}: hello\n\nevent:endpoint\ndata:/m\n\nrest",
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn other_origins_relative_paths_and_late_events_pass_untouched() {
        for stream in [
            "event: endpoint\ndata: http://elsewhere:9000/messages\n\n",
            "event: endpoint\ndata: https://127.0.0.1:9000/messages\n\n",
            "event: endpoint\ndata: /messages?s=1\n\n",
            "data: {\"jsonrpc\":\"2.0\"}\n\n",
        ] {
            let got = run("http://127.0.0.1:9000/sse", &[stream.as_bytes()]);
            assert_eq!(String::from_utf8(got).unwrap(), stream);
        }
        // Past the scan limit nothing is looked at (nor held).
        let filler = format!(": {}\n\n", "x".repeat(SCAN_LIMIT));
        let late = "event: endpoint\ndata: http://127.0.0.1:9000/m\n\n";
        let mut r = EndpointRewrite::new(&reqwest::Url::parse("http://127.0.0.1:9000/").unwrap());
        assert_eq!(r.feed(Bytes::from(filler.clone())).len(), filler.len());
        assert_eq!(r.feed(Bytes::from(late)), Bytes::from(late));
    }

    #[test]
    fn an_unfinished_event_is_held_then_flushed_at_the_end() {
        let mut r = EndpointRewrite::new(&reqwest::Url::parse("http://h/").unwrap());
        assert!(r.feed(Bytes::from_static(b"event: endpoint\r")).is_empty());
        assert_eq!(r.finish(), Bytes::from_static(b"event: endpoint\r"));
    }
}
