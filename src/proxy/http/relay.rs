//! The server's response body on its way to the host: relayed as it
//! comes, each chunk offered to its exchange, and under `--faults` or
//! `--intercept` each message tested (and held, delayed or changed) as it
//! completes.

use super::Body;
use crate::proxy::faults::http::{HttpFaults, Verdict};
use crate::proxy::http_observer::Exchange;
use crate::trace::Trace;
use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use std::sync::Arc;

/// The server's body relayed to the host as it comes, each chunk offered to
/// the exchange, a legacy stream's endpoint event pointed at the proxy.
pub(super) fn relayed_body(
    resp: reqwest::Response,
    ex: Exchange,
    rewrite: Option<crate::proxy::endpoint::EndpointRewrite>,
    faulted: Option<Faulted>,
) -> Body {
    // The exchange goes with the body: it ends when the stream is
    // dropped, at its end or when the host went away in the middle.
    // The observer gets the server's bytes as they were sent.
    let state = (resp.bytes_stream(), ex, rewrite, faulted, false);
    let chunks = futures_util::stream::unfold(
        state,
        |(mut up, mut ex, mut rw, mut fl, mut ended)| async move {
            loop {
                if let Some(f) = fl.as_mut()
                    && let Some((b, at)) = f.ready.pop_front()
                {
                    if let Some(at) = at {
                        tokio::time::sleep_until(at).await;
                    }
                    return Some((Ok(Frame::data(b)), (up, ex, rw, fl, ended)));
                }
                if fl.as_ref().is_some_and(|f| f.closed) {
                    // `--faults` closed the stream: the host's ends here, and
                    // dropping the server's tells the server.
                    ex.closed_by_proxy();
                    return None;
                }
                if ended {
                    // Its held messages keep the host's stream open until
                    // each left the hold.
                    let after = match fl.as_mut().and_then(|f| f.ic.as_mut()) {
                        Some(ic) if ic.holding() => ic.after_end().await,
                        _ => None,
                    };
                    match (after, fl.as_mut()) {
                        (Some(t), Some(f)) => {
                            f.inject(t, &mut ex);
                            continue;
                        }
                        _ => return None,
                    }
                }
                // What the controller sends goes as soon as it comes.
                let next = match fl.as_mut().and_then(|f| f.ic.as_mut()) {
                    Some(ic) => tokio::select! {
                        biased;
                        t = ic.recv() => Err(t),
                        c = up.next() => Ok(c),
                    },
                    None => Ok(up.next().await),
                };
                let next = match (next, fl.as_mut()) {
                    (Ok(c), _) => c,
                    (Err(t), Some(f)) => {
                        f.inject(t, &mut ex);
                        continue;
                    }
                    (Err(_), None) => continue,
                };
                match next {
                    Some(Ok(b)) => {
                        ex.chunk(&b);
                        let b = match rw.as_mut() {
                            Some(r) => r.feed(b),
                            None => b,
                        };
                        match fl.as_mut() {
                            Some(f) => f.take(b, &mut ex),
                            None if !b.is_empty() => {
                                return Some((Ok(Frame::data(b)), (up, ex, rw, fl, false)));
                            }
                            None => {}
                        }
                    }
                    Some(Err(e)) => {
                        ex.error(crate::protocol::sanitize::one_line(&e.to_string()).into_owned());
                        return Some((Err(std::io::Error::other(e)), (up, ex, rw, fl, true)));
                    }
                    None => {
                        ex.ended();
                        ended = true;
                        let rest = rw.as_mut().map(|r| r.finish()).unwrap_or_default();
                        match fl.as_mut() {
                            Some(f) => f.finish(rest, &mut ex),
                            None if !rest.is_empty() => {
                                return Some((Ok(Frame::data(rest)), (up, ex, rw, fl, true)));
                            }
                            None => return None,
                        }
                    }
                }
            }
        },
    );
    BodyExt::boxed(StreamBody::new(chunks))
}

/// A response on its way to the host through `--faults`: its messages
/// (each SSE event, or the whole JSON body) tested as they complete; each
/// is ready with the time it may go (a delay keeps the order, as a slow
/// link does).
pub(super) struct Faulted {
    f: Option<Arc<HttpFaults>>,
    /// `--intercept`: the breakpoint's holds on this stream.
    ic: Option<super::intercept::Intercepted>,
    trace: Trace,
    sse: bool,
    /// Bytes of a message not complete yet.
    pending: Vec<u8>,
    parser: crate::transport::sse::SseParser,
    ready: std::collections::VecDeque<(Bytes, Option<tokio::time::Instant>)>,
    /// Past the frame cap a message passes untested (it is not held).
    untested: bool,
    /// The host can resume this stream, so a rule may close it.
    closable: bool,
    /// A rule closed it: nothing more goes to the host.
    closed: bool,
}

impl Faulted {
    pub(super) fn new(
        f: Option<Arc<HttpFaults>>,
        ic: Option<super::intercept::Intercepted>,
        trace: Trace,
        sse: bool,
        closable: bool,
    ) -> Faulted {
        Faulted {
            closable,
            closed: false,
            f,
            ic,
            trace,
            sse,
            pending: Vec::new(),
            parser: crate::transport::sse::SseParser::new(),
            ready: Default::default(),
            untested: false,
        }
    }

    fn max(&self) -> usize {
        crate::transport::lines::max_frame()
    }

    fn take(&mut self, b: Bytes, ex: &mut Exchange) {
        if b.is_empty() || self.closed {
            return;
        }
        if self.untested {
            self.ready.push_back((b, None));
            return;
        }
        self.pending.extend_from_slice(&b);
        if self.sse {
            while let Some(end) = crate::proxy::faults::http::event_end(&self.pending) {
                let block: Vec<u8> = self.pending.drain(..end).collect();
                let mut verdict = Verdict::Pass;
                let mut held = false;
                for ev in self.parser.feed(&block) {
                    if let (Some(data), Verdict::Pass, false) = (&ev.data, verdict, held) {
                        // A breakpoint is tested first, then the rules.
                        held = self.hold(data.as_bytes(), Some(&block), ex);
                        if !held {
                            verdict = self.test(data.as_bytes(), ex);
                        }
                    }
                }
                if held {
                    continue;
                }
                if verdict == Verdict::Close {
                    self.closed = true;
                    self.pending.clear();
                    return;
                }
                self.settle(block.into(), verdict);
            }
        }
        if self.pending.len() > self.max() {
            // Too large to hold for a test: it, and the rest, pass as they come.
            self.untested = true;
            let all = std::mem::take(&mut self.pending);
            self.ready.push_back((all.into(), None));
        }
    }

    /// The server ended the body: a JSON body is one message, tested now;
    /// what is left of an event stream passes as it is.
    fn finish(&mut self, rest: Bytes, ex: &mut Exchange) {
        self.take(rest, ex);
        if self.pending.is_empty() {
            return;
        }
        let body = std::mem::take(&mut self.pending);
        let verdict = if self.sse || self.untested {
            Verdict::Pass
        } else if self.hold(body.trim_ascii(), None, ex) {
            return;
        } else {
            self.test(body.trim_ascii(), ex)
        };
        self.settle(body.into(), verdict);
    }

    /// Whether the breakpoint holds the server's message `data` (`block`:
    /// its SSE event; `None`: a JSON body), or keeps it from the host (the
    /// answer to a request forged to the server).
    fn hold(&mut self, data: &[u8], block: Option<&[u8]>, ex: &mut Exchange) -> bool {
        if let Some(ev) = self.ic.as_ref().and_then(|ic| ic.kept_answer(data)) {
            ex.injected(ev);
            return true;
        }
        let now = self.trace.now_us();
        self.ic.as_mut().is_some_and(|ic| ic.hold(data, now, block))
    }

    /// What the controller sent to this stream: its event recorded, then
    /// its bytes written, after what is ready before them.
    fn inject(&mut self, t: crate::proxy::breakpoints::http::ToHost, ex: &mut Exchange) {
        if let Some(ic) = self.ic.as_mut() {
            ic.done(&t);
        }
        ex.injected(t.event);
        if let Some(b) = t.bytes
            && !self.closed
        {
            self.ready.push_back((b, None));
        }
    }

    fn settle(&mut self, bytes: Bytes, verdict: Verdict) {
        match verdict {
            Verdict::Delay(d) => self
                .ready
                .push_back((bytes, Some(tokio::time::Instant::now() + d))),
            Verdict::Pass | Verdict::Answer(_) | Verdict::Close => {
                self.ready.push_back((bytes, None))
            }
        }
    }

    fn test(&self, message: &[u8], ex: &mut Exchange) -> Verdict {
        let Some(f) = &self.f else {
            return Verdict::Pass;
        };
        let mut events = Vec::new();
        let v = f.server(message, self.trace.now_us(), self.closable, &mut events);
        for ev in events {
            ex.injected(ev);
        }
        v
    }
}
