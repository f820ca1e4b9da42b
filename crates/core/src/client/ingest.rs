//! The transport's sink: appends what arrives to the trace (one lock per read
//! batch), then wakes waiting requests and queues server→client requests.

use super::answer_text;
use super::pending::{Answer, Gone, Pending};
use crate::event::{Event, Loss};
use crate::protocol::IdKey;
use crate::trace::{Dir, Route, Trace};
use crate::transport::{ExitInfo, Sink};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::mpsc;

/// Server→client requests waiting for an answer, at most.
pub const SERVER_REQUEST_BACKLOG: usize = 1024;

pub struct Ingest {
    pub trace: Trace,
    pub pending: Arc<Pending>,
    /// Bounded (`SERVER_REQUEST_BACKLOG`): a server asking faster than we
    /// answer gets the rest refused in the trace, not queued without end.
    pub server_requests: mpsc::Sender<(IdKey, u64)>,
    pub redact: bool,
    /// Learns from `tools/list` results before anyone waiting on them wakes.
    pub tool_headers: Arc<super::http_headers::ToolHeaders>,
    /// Server requests dropped unanswered so far (the backlog was full).
    pub dropped: AtomicU64,
    /// Frames over this many bytes are cut
    /// ([`crate::transport::lines::max_frame_within`]).
    pub max_frame: usize,
}

impl Ingest {
    fn route(&self, channel: &str, routes: Vec<Route>, mut answers: Vec<(u64, Box<[u8]>)>) {
        // The bytes of each response, as they were copied on arrival.
        let mut bytes = |seq: u64| {
            answers
                .iter()
                .position(|(s, _)| *s == seq)
                .map(|i| answers.swap_remove(i).1)
        };
        let mut dropped: Option<(Value, u64)> = None;
        let mut count = 0u64;
        for r in routes {
            match r {
                // An error with id null answers a request the server could not
                // read; with one request in flight, that is the one.
                Route::Response { id, seq } if !id.is_valid() => {
                    let bytes = bytes(seq);
                    self.pending.complete_sole(Answer { seq, bytes });
                }
                Route::Response { id, seq } => {
                    let bytes = bytes(seq);
                    self.pending.complete(&id, Answer { seq, bytes });
                }
                Route::Malformed { id, seq, why } => {
                    self.pending.fail(&id, Gone::Malformed { seq, why });
                }
                Route::ServerRequest { id, seq } => {
                    if let Err(mpsc::error::TrySendError::Full((id, seq))) =
                        self.server_requests.try_send((id, seq))
                    {
                        dropped.get_or_insert((id.to_value(), seq));
                        count += 1;
                    }
                }
            }
        }
        if let Some((request, seq)) = dropped {
            self.say_dropped(channel, request, seq, count);
        }
    }

    /// One event per read batch for the server requests it dropped, not
    /// one per request: a storm of them would otherwise fill the trace
    /// with events of its own. It names the first, and counts them and
    /// all those dropped before.
    fn say_dropped(&self, channel: &str, request: Value, seq: u64, count: u64) {
        let total = self.dropped.fetch_add(count, Ordering::Relaxed) + count;
        let ev = Event::ServerRequestDropped {
            request,
            seq,
            reason: format!("{SERVER_REQUEST_BACKLOG} server requests already wait for an answer"),
            count,
            total,
        };
        self.trace
            .append(|s, now| s.append_event(channel, now, &ev));
    }

    /// Frames that are not UTF-8 are stored unrouted (their text cannot be
    /// classified); one that answers a request still waiting fails it now
    /// rather than at its timeout. The requests failed are returned.
    fn fail_undecodable(&self, frames: &[(u64, &[u8])]) -> Vec<IdKey> {
        let mut failed = Vec::new();
        for &(seq, bytes) in frames {
            let Some(id) = answer_text::undecodable_answer(bytes) else {
                continue;
            };
            let why = answer_text::utf8_problem(bytes).unwrap_or_default();
            if self.pending.fail(&id, Gone::Malformed { seq, why }) {
                failed.push(id);
            }
        }
        failed
    }

    /// A cut frame is no result: the request it answers fails now, named
    /// by the id in the kept start or, without one, the only request in
    /// flight (as an error with id null completes it).
    fn fail_cut(&self, seq: u64, kept: &[u8], total: u64) {
        let why = Gone::Oversized {
            seq,
            bytes: total,
            cap: kept.len(),
        };
        match answer_text::cut_frame(kept) {
            answer_text::CutFrame::Answer(id) => {
                self.pending.fail(&id, why);
            }
            answer_text::CutFrame::Unnamed => {
                self.pending.fail_sole(why);
            }
            answer_text::CutFrame::Other => {}
        }
    }
}

impl Sink for Ingest {
    fn frames(&self, channel: &str, frames: &[&[u8]]) -> Vec<IdKey> {
        for f in frames {
            self.tool_headers.observe(f);
        }
        let mut routes = Vec::new();
        let mut undecodable = Vec::new();
        let mut answers = Vec::new();
        self.trace.append(|s, now| {
            for f in frames {
                let before = routes.len();
                let seq = s.append_frame(Dir::In, channel, now, f, &mut routes);
                // Copied now: the frames after it in this read may evict it.
                for r in &routes[before..] {
                    if let Route::Response { seq, .. } = r
                        && let Some(ev) = s.get(*seq)
                    {
                        answers.push((*seq, Box::<[u8]>::from(ev.bytes)));
                    }
                }
                // Only a frame just listed as a problem can be one (cheap
                // to ask); its bytes are looked at then.
                if s.problems().last() == Some(&seq) && std::str::from_utf8(f).is_err() {
                    undecodable.push((seq, *f));
                }
            }
        });
        let mut answered: Vec<IdKey> = routes
            .iter()
            .filter_map(|r| match r {
                Route::Response { id, .. } | Route::Malformed { id, .. } => Some(id.clone()),
                Route::ServerRequest { .. } => None,
            })
            .collect();
        self.route(channel, routes, answers);
        answered.extend(self.fail_undecodable(&undecodable));
        answered
    }

    fn oversized(&self, channel: &str, kept: &[u8], total: u64) {
        // Stored unrouted: a cut frame is no answer; but the request it was
        // meant to answer will get none, and is told so.
        let seq = self.trace.append(|s, now| {
            let seq = s.append_cut(Dir::In, channel, now, kept);
            s.append_event(
                channel,
                now,
                &Event::oversized(kept.len(), total, Some(seq)),
            );
            seq
        });
        self.fail_cut(seq, kept, total);
    }

    fn max_frame(&self) -> usize {
        self.max_frame
    }

    fn stderr(&self, channel: &str, lines: &[&[u8]]) {
        self.trace.append(|s, now| {
            for l in lines {
                s.append_stderr(channel, now, l);
            }
        });
    }

    fn event(&self, channel: &str, event: Event) {
        // The spawn event names the command line: `--api-key VALUE` and the
        // like. An `http` exchange records only what the server answered —
        // status, content type, the session id it issued — which is what a
        // trace of that session is for. mcpscope's own log gets what the
        // trace gets.
        if self.redact && !matches!(event, Event::Http { .. }) {
            let mut v = event.to_json();
            crate::protocol::secrets::redact_json(&mut v);
            tracing::debug!(channel, event = %v, "transport event");
            self.trace.append(|s, now| s.append_meta(channel, now, &v));
        } else {
            tracing::debug!(channel, event = %event.to_json(), "transport event");
            self.trace
                .append(|s, now| s.append_event(channel, now, &event));
        }
    }

    fn closed(&self, channel: &str, exit: ExitInfo) {
        tracing::info!(channel, %exit, "connection closed");
        self.trace
            .append(|s, now| s.append_event(channel, now, &Event::exit(exit)));
        self.pending.fail_all(Gone::Exited(exit));
    }

    fn failed(&self, channel: &str, request: Option<IdKey>, why: Loss) {
        tracing::warn!(channel, ?request, %why, "request failed");
        let ev = Event::Failed {
            request: request.as_ref().map(IdKey::to_value),
            error: why.to_string(),
        };
        self.trace
            .append(|s, now| s.append_event(channel, now, &ev));
        if let Some(id) = &request {
            self.tool_headers.forget(id);
        }
        match request {
            Some(id) => {
                self.pending.fail(&id, Gone::Transport(why));
            }
            None => self.pending.fail_all(Gone::Transport(why)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{MonotonicClock, Store, StoreLimits};

    /// A response followed, in the same read, by more than the store holds:
    /// the store evicts it before the request waiting for it wakes, yet the
    /// request still gets its bytes.
    #[test]
    fn a_response_evicted_before_its_request_reads_it_still_answers_it() {
        let max = crate::trace::size::MIN_STORE;
        let trace = Trace::new(
            Store::new(StoreLimits { max_bytes: max }),
            MonotonicClock::new(),
        );
        let pending = Arc::new(Pending::default());
        let (tx, _rx) = mpsc::channel(1);
        let ingest = Ingest {
            trace: trace.clone(),
            pending: pending.clone(),
            server_requests: tx,
            redact: true,
            tool_headers: Default::default(),
            dropped: Default::default(),
            max_frame: crate::transport::lines::max_frame_within(max),
        };
        let mut waiting = pending.register(IdKey::Int(1));
        let response = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}"#;
        let filler = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{}"}}}}"#,
            "x".repeat(1 << 20)
        );
        let mut frames: Vec<&[u8]> = vec![response];
        frames.extend(std::iter::repeat_n(filler.as_bytes(), 3 * (max >> 20)));
        ingest.frames("stdio", &frames);
        let answer = waiting.try_recv().expect("answered").expect("not gone");
        assert!(
            trace.read().get(answer.seq).is_none(),
            "the store no longer holds the response"
        );
        assert_eq!(answer.bytes.as_deref(), Some(&response[..]));
    }
}
