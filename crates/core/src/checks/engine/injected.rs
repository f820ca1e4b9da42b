//! What `proxy --faults` changed on the way (the `injected` event). The
//! frames are what each party sent; the event, right after the frame it
//! changed, says what the other party got instead. Each party is judged on
//! what it really received: an answer is held against the message the
//! receiver got, never against the one its peer sent.
//!
//! - A request to the server whose id was changed (`wrong-id`) is answered
//!   by the id the server got; an answer naming the id the host sent is
//!   the server's error (it never got that id), and the host, which gets
//!   no answer to its id, may cancel it.
//! - A request that never reached the server as a request (dropped, cut,
//!   made invalid JSON, or sent after its input was closed) is no silence
//!   of the server's (`progress-stalled`), and an answer to it is an
//!   answer to an id the server never got.
//! - A line to the server that was broken excuses one `id: null` parse
//!   error (`response-null-id`): the right answer to it.
//! - A request sent twice is answered twice (`response-duplicate`), and
//!   its token carries both runs' progress (not increasing, after the
//!   first response, a flood of two).
//! - A cancel that did not reach the server as sent (dropped, held,
//!   delayed, broken) is no reason for it to stop: a response or progress
//!   after it is not judged (`response-after-cancel`,
//!   `progress-after-response`).
//! - A request that reached the server later than it was sent (delayed,
//!   held) is timed from when it arrived (`progress-buffered`, the stall
//!   before its first progress).
//! - On the host's side: a response the host did not get as sent may be
//!   cancelled (`client-cancel-unknown-request`); progress it did not get
//!   as sent is not held against its cancel
//!   (`client-cancelled-during-progress`); a server request whose id was
//!   changed is answered by the id the host got
//!   (`client-response-unknown-id`), as is a request the proxy forged
//!   (`forge`), whose answer never reaches the server.
//!
//! A message cut to the trace's frame cap in the event (`original_bytes`)
//! cannot be read back, and changes nothing here. The calls take the same
//! events into account (`calls::injected`): a call the server never got,
//! or whose input was closed while it ran, is no incomplete call of its.

use super::Checker;
use crate::calls::injected::{Got, Injected};
use crate::event::Event;
use crate::protocol::frame::FrameKind;
use crate::protocol::views::{CancelledView, ProgressView};
use crate::protocol::{IdKey, methods};
use std::collections::HashMap;

/// How the server got a request of the client's.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) enum ToServer {
    /// As sent (maybe later, or twice).
    #[default]
    AsSent,
    /// With this id instead.
    Renamed(IdKey),
    /// Not as a request: dropped, broken, or its input was closed.
    Lost,
}

/// What `--faults` changed about one request of the client's.
#[derive(Debug, Clone, Default)]
pub(super) struct Changed {
    pub(super) to_server: ToServer,
    /// Copies the server got besides the first: it may answer each.
    pub(super) copies: u32,
    /// Answers to those copies still to come.
    pub(super) owed: u32,
    /// It reached the server later than it was sent, by an unknown time.
    pub(super) arrived_late: bool,
    /// The client's cancel did not reach the server as sent.
    pub(super) cancel_lost: bool,
    /// The host did not get the server's response as sent (dropped,
    /// changed, delayed, or its id was changed on the way to the server).
    pub(super) host_missed_response: bool,
    /// The host did not get some of its progress as sent.
    pub(super) host_missed_progress: bool,
}

impl Changed {
    /// A request sent now: lost when the server's input is closed.
    pub(super) fn after(faults: &Faults) -> Changed {
        Changed {
            to_server: if faults.server_input_closed {
                ToServer::Lost
            } else {
                ToServer::AsSent
            },
            ..Changed::default()
        }
    }
}

/// What `--faults` changed beyond one request.
#[derive(Default)]
pub(super) struct Faults {
    /// Ids the server got instead of the client's → the request.
    pub(super) renamed: HashMap<IdKey, usize>,
    /// Lines to the server broken on the way whose parse error (`id:
    /// null`) has not come yet.
    pub(super) broken_to_server: u32,
    /// mcpscope closed the server's input: nothing later reaches it.
    pub(super) server_input_closed: bool,
    /// mcpscope closed the host's input: nothing later reaches it.
    pub(super) host_input_closed: bool,
    /// Ids of requests the proxy forged to the server: its answers to them
    /// answer no request of the client's, and are not judged.
    pub(super) forged_to_server: std::collections::HashSet<IdKey>,
}

/// Forged requests to the server remembered at most.
const MAX_FORGED: usize = 65_536;

impl Checker {
    /// An `injected` event: learn what the receiver really got.
    pub(super) fn injected(&mut self, event: &Event) {
        let Some(change) = Injected::of(event) else {
            return;
        };
        let to_server = change.to_server;
        if change.closed {
            if to_server {
                self.faults.server_input_closed = true;
            } else {
                self.faults.host_input_closed = true;
            }
        }
        let got = change.got;
        if to_server && got == Got::Broken {
            self.faults.broken_to_server += 1;
        }
        let Some(f) = change.original else { return };
        match (to_server, f.kind) {
            (true, FrameKind::Request) if got == Got::Forged => {
                // Its answer is to a request the server really got.
                if let Some(id) = f.id
                    && self.faults.forged_to_server.len() < MAX_FORGED
                {
                    self.faults.forged_to_server.insert(id);
                }
            }
            (true, FrameKind::Request) => {
                if let Some(ri) = f.id.and_then(|id| self.req_ids.get(&id).copied()) {
                    self.request_changed(ri, got);
                }
            }
            (true, FrameKind::Notification) if f.method.as_deref() == Some(methods::CANCELLED) => {
                if got != Got::Twice
                    && let Some(c) = CancelledView::parse(f.params)
                    && let Some(&ri) = self.req_ids.get(&c.request_id)
                {
                    self.reqs[ri].changed.cancel_lost = true;
                }
            }
            (false, FrameKind::Response | FrameKind::ErrorResponse) => {
                if got != Got::Twice
                    && let Some(&ri) = f.id.as_ref().and_then(|id| self.req_ids.get(id))
                {
                    self.reqs[ri].changed.host_missed_response = true;
                }
            }
            (false, FrameKind::Request) => match got {
                Got::Renamed(id) => self.client.renamed_server_request(&id),
                // The host got a request the server never sent: its answer
                // is to a request it really got.
                Got::Forged => {
                    if let Some(id) = &f.id {
                        self.client.renamed_server_request(id);
                    }
                }
                _ => {}
            },
            (false, FrameKind::Notification) if f.method.as_deref() == Some(methods::PROGRESS) => {
                if got != Got::Twice
                    && let Ok(p) = ProgressView::parse(f.params)
                    && let Some(&slot) = self.tok_ids.get(&p.token_key())
                    && let Some(ri) = self.toks[slot as usize].req
                {
                    self.reqs[ri].changed.host_missed_progress = true;
                }
            }
            _ => {}
        }
    }

    /// Request `ri` of the client's reached the server as `got` says.
    fn request_changed(&mut self, ri: usize, got: Got) {
        let c = &mut self.reqs[ri].changed;
        match got {
            Got::Nothing | Got::Broken => c.to_server = ToServer::Lost,
            Got::Renamed(id) => {
                c.to_server = ToServer::Renamed(id.clone());
                c.host_missed_response = true;
                self.faults.renamed.insert(id, ri);
            }
            Got::Twice => {
                c.copies += 1;
                c.owed += 1;
            }
            // Only the host is sent forged requests.
            Got::Forged => {}
            Got::Later(by) => {
                let Some(ms) = by else {
                    c.arrived_late = true;
                    // The first silence, from the request to what follows
                    // it, is not the server's alone.
                    if let Some(slot) = self.reqs[ri].token {
                        self.toks[slot as usize].stall_reported = true;
                    }
                    return;
                };
                let us = ms.saturating_mul(1000);
                let seq = self.reqs[ri].seq;
                self.reqs[ri].t_us = self.reqs[ri].t_us.saturating_add(us);
                if let Some(slot) = self.reqs[ri].token {
                    let t = &mut self.toks[slot as usize];
                    if t.req == Some(ri) && t.activity.1 == seq {
                        t.activity.0 = t.activity.0.saturating_add(us);
                    }
                }
            }
        }
    }

    /// The request a server's response answers, as the server got it: by
    /// the id it got; `Err` with the request when the server never got
    /// the id the response names (the client's request was dropped, broken,
    /// or reached it with another id).
    pub(super) fn answered(&self, id: &IdKey) -> Option<Result<usize, usize>> {
        if let Some(&ri) = self.faults.renamed.get(id) {
            return Some(Ok(ri));
        }
        let &ri = self.req_ids.get(id)?;
        Some(match self.reqs[ri].changed.to_server {
            ToServer::AsSent => Ok(ri),
            _ => Err(ri),
        })
    }

    /// An `id: null` parse error the server owed a line mcpscope broke on
    /// its way: the right answer, taken off the count.
    pub(super) fn owed_parse_error(&mut self) -> bool {
        let n = &mut self.faults.broken_to_server;
        if *n == 0 {
            return false;
        }
        *n -= 1;
        true
    }

    /// Request `ri` is retired: the id the server got instead goes too.
    pub(super) fn forget_renamed(&mut self, ri: usize) {
        if let ToServer::Renamed(id) = &self.reqs[ri].changed.to_server
            && self.faults.renamed.get(id) == Some(&ri)
        {
            self.faults.renamed.remove(id);
        }
    }
}
