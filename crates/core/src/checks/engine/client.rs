//! The client-side rules: what the client (the host, in a proxied session;
//! mcpscope itself in its own) sent, judged against what the server sent.
//!
//! They reuse the engine's per-request state (the client's own requests)
//! and add only bounded state of their own: the server's requests awaiting
//! an answer, a capped set of the server request ids ever seen, and the
//! few requests the client itself recorded as timed out or failed.

use super::{Checker, KEEP_FINISHED, ReqKind, Stage};
use crate::checks::finding::Finding;
use crate::checks::rules::Rule;
use crate::checks::shape::secs;
use crate::event::Event;
use crate::protocol::frame::FrameKind;
use crate::protocol::views::CancelledView;
use crate::protocol::{IdKey, methods};
use crate::trace::EventRef;
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{Hash, Hasher};

/// Server requests awaiting the client's answer that are kept; beyond it
/// the oldest is forgotten (and the unknown-id rule stops judging).
const MAX_SERVER_PENDING: usize = 4096;
/// Server request ids remembered (as 64-bit hashes) to tell an answer to a
/// request never sent from a second answer to one already answered.
const MAX_SERVER_SEEN: usize = 65_536;
/// Requests the client recorded as timed out, remembered to excuse the
/// cancel that follows a timeout from `client-cancelled-during-progress`.
const MAX_TIMED_OUT: usize = 64;

#[derive(Default)]
pub(super) struct ClientSide {
    /// Server → client requests not yet answered: id → seq.
    pending: HashMap<IdKey, u64>,
    pending_order: VecDeque<IdKey>,
    seen: HashSet<u64>,
    /// Some server request ids were not kept: an answer naming an id we
    /// do not know proves nothing any more.
    forgot: bool,
    /// Answers not judged because of that.
    unjudged: u64,
    /// The seq of the initialize (or discover) result that declared the
    /// server's capabilities.
    pub(super) caps_seq: Option<u64>,
    /// Requests the client's own timeout ended (a `timeout` meta event):
    /// an idle timeout mcpscope resets on progress, and its hard cap is the
    /// maximum the rule asks for, so the cancel after it is deliberate.
    timed_out: VecDeque<IdKey>,
    /// Tokenless calls reported so far (the rule is per session, capped).
    no_token: u32,
}

fn hash(id: &IdKey) -> u64 {
    let mut h = DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

impl ClientSide {
    /// `--faults` changed the id of a server request on its way to the
    /// client: the client's answer to the id it got is no unknown id (the
    /// server still waits for an answer to its own).
    pub(super) fn renamed_server_request(&mut self, id: &IdKey) {
        if self.seen.len() < MAX_SERVER_SEEN {
            self.seen.insert(hash(id));
        }
    }
}

impl Checker {
    /// Client answers not judged because the server sent more requests
    /// than are remembered.
    pub fn client_unjudged(&self) -> u64 {
        self.client.unjudged
    }

    /// Server requests awaiting the client's answer that are kept.
    pub fn server_requests_kept(&self) -> usize {
        self.client.pending.len()
    }

    /// Whether request `ri` still waits for its response at `t_us`: not
    /// answered, not given up (timed out, failed, its session lost), and
    /// not cancelled longer ago than a response could still be racing.
    fn awaiting(&self, ri: usize, t_us: u64) -> bool {
        let r = &self.reqs[ri];
        r.response.is_none()
            && !r.gone
            && r.cancel
                .is_none_or(|(_, ct)| t_us.saturating_sub(ct) <= self.cfg.cancel_race_us)
    }

    /// A request from the client, judged before the engine records it.
    pub(super) fn client_request(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        let f = ev.frame();
        let Some(id) = f.id.clone() else { return };
        if let Some(&ri) = self.req_ids.get(&id)
            && self.awaiting(ri, ev.t_us)
        {
            let first = self.reqs[ri].seq;
            self.emit(
                out,
                Rule::ClientRequestIdReused,
                vec![first, ev.seq],
                None,
                Some(id.clone()),
                format!(
                    "the client sent a second request with id {id} while request #{first} with that id still awaits its response; use a fresh id for every request"
                ),
            );
        }
        let token = f.progress_token().map(|raw| IdKey::from_raw(raw.get()));
        if let Some(key) = &token
            && let Some(&slot) = self.tok_ids.get(key)
            && let Some(ri) = self.toks[slot as usize].req
            && self.awaiting(ri, ev.t_us)
        {
            let (other, first) = (self.reqs[ri].id.clone(), self.reqs[ri].seq);
            self.emit(
                out,
                Rule::ClientDuplicateProgressToken,
                vec![first, ev.seq],
                Some(key.clone()),
                Some(id.clone()),
                format!(
                    "request {id} carries progressToken {key}, already used by request {other} (#{first}) which is still in flight; progress for the two cannot be told apart — use a unique token per request"
                ),
            );
        }
        match f.method.as_deref() {
            // mcpscope's own setLevel is what its user asked for, knowingly (it
            // says the server did not declare logging): judged on hosts only.
            Some(methods::SET_LEVEL)
                if self.logging_declared == Some(false) && !self.cfg.own_client =>
            {
                let mut seqs: Vec<u64> = self.client.caps_seq.into_iter().collect();
                seqs.push(ev.seq);
                self.emit(
                    out,
                    Rule::ClientSetlevelWithoutCapability,
                    seqs,
                    None,
                    Some(id),
                    "the client sent logging/setLevel to a server that did not declare the `logging` capability; check the server's capabilities first".into(),
                );
            }
            Some(methods::TOOLS_CALL)
                if token.is_none() && !self.cfg.tokenless_by_choice && !self.cfg.own_client =>
            {
                // One per call would bury everything else in a long session.
                if self.client.no_token >= self.cfg.max_per_key {
                    *self
                        .suppressed
                        .entry(Rule::ClientNoProgressToken)
                        .or_insert(0) += 1;
                    return;
                }
                self.client.no_token += 1;
                self.emit(
                    out,
                    Rule::ClientNoProgressToken,
                    vec![ev.seq],
                    None,
                    Some(id.clone()),
                    format!(
                        "tools/call {id} carries no _meta.progressToken, so the server may not report progress for it; send a token to see progress (and to reset timeouts on it)"
                    ),
                );
            }
            _ => {}
        }
    }

    /// `notifications/cancelled` from the client: judged, then recorded on
    /// its request (the server rules read when it was cancelled).
    pub(super) fn client_cancel(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        let f = ev.frame();
        let Some(c) = CancelledView::parse(f.params) else {
            return;
        };
        self.cancel_request(ev, &c.request_id, out);
    }

    /// The client cancelled request `rid` at `ev`: by `notifications/cancelled`,
    /// or (2026-07-28 over HTTP) by closing its response stream.
    pub(super) fn cancel_request(
        &mut self,
        ev: &EventRef<'_>,
        rid: &IdKey,
        out: &mut Vec<Finding>,
    ) {
        self.judge_cancel(ev, rid, out);
        let Some(&ri) = self.req_ids.get(rid) else {
            return;
        };
        // A cancel that never reached the server (`--faults`) is replaced
        // by the next one, which may.
        let r = &mut self.reqs[ri];
        if r.cancel.is_none() || r.changed.cancel_lost {
            r.cancel = Some((ev.seq, ev.t_us));
            r.changed.cancel_lost = self.faults.server_input_closed;
        }
        if let Some(slot) = self.reqs[ri].token {
            self.gap_ends(slot as usize, ri, ev.t_us, ev.seq, out);
        }
        self.req_finished(ri);
    }

    fn judge_cancel(&mut self, ev: &EventRef<'_>, rid: &IdKey, out: &mut Vec<Finding>) {
        let Some(&ri) = self.req_ids.get(rid) else {
            let which = match self.window.forgot() {
                false => "which it never sent".to_string(),
                true => format!(
                    "which is neither in flight nor among its last {KEEP_FINISHED} finished requests (older requests are no longer kept)"
                ),
            };
            return self.emit(
                out,
                Rule::ClientCancelUnknownRequest,
                vec![ev.seq],
                None,
                Some(rid.clone()),
                format!(
                    "the client cancelled request {rid}, {which}; cancel only requests of its own that are in flight"
                ),
            );
        };
        let req_seq = self.reqs[ri].seq;
        if self.reqs[ri].kind == ReqKind::Initialize {
            self.emit(
                out,
                Rule::ClientCancelInitialize,
                vec![req_seq, ev.seq],
                None,
                Some(rid.clone()),
                format!(
                    "the client cancelled initialize (request {rid}); initialize must not be cancelled — close the connection instead"
                ),
            );
        }
        if let Some((rseq, rt)) = self.reqs[ri].response {
            let late = ev.t_us.saturating_sub(rt);
            // A response the host did not get as sent (`--faults`) leaves
            // its request unanswered, as far as the host knows.
            if late > self.cfg.cancel_race_us && !self.reqs[ri].changed.host_missed_response {
                self.emit(
                    out,
                    Rule::ClientCancelUnknownRequest,
                    vec![rseq, ev.seq],
                    None,
                    Some(rid.clone()),
                    format!(
                        "the client cancelled request {rid} {} after its response (#{rseq}); a finished request must not be cancelled",
                        secs(late)
                    ),
                );
            }
            return;
        }
        // A second cancel, mcpscope's own recorded timeout, or (live, in
        // mcpscope's own session) the user's cancel: no ignored progress.
        // Progress the host did not get as sent (`--faults`) is not held
        // against its cancel either.
        if self.reqs[ri].cancel.is_some()
            || self.client.timed_out.contains(rid)
            || self.cfg.own_client
            || self.reqs[ri].changed.host_missed_progress
            || self.faults.host_input_closed
        {
            return;
        }
        let note = self.reqs[ri]
            .token
            .and_then(|slot| self.toks[slot as usize].last_note.map(|n| (slot, n)));
        if let Some((slot, (nt, nseq))) = note
            && self.toks[slot as usize].req == Some(ri)
            && ev.t_us.saturating_sub(nt) <= self.cfg.cancel_progress_window_us
        {
            let ago = ev.t_us.saturating_sub(nt);
            let key = self.toks[slot as usize].key.clone();
            self.emit(
                out,
                Rule::ClientCancelledDuringProgress,
                vec![nseq, ev.seq],
                Some(key),
                Some(rid.clone()),
                format!(
                    "the client cancelled request {rid} only {} after its last progress (#{nseq}): the request was still working; if a timeout did this, reset it on every progress notification and cap it with a maximum",
                    secs(ago)
                ),
            );
        }
    }

    /// A request from the server (sampling, elicitation, roots, ping).
    pub(super) fn server_request(&mut self, ev: &EventRef<'_>) {
        let Some(id) = ev.frame().id.clone() else {
            return;
        };
        let cs = &mut self.client;
        if cs.seen.len() < MAX_SERVER_SEEN {
            cs.seen.insert(hash(&id));
        } else {
            cs.forgot = true;
        }
        if cs.pending.insert(id.clone(), ev.seq).is_none() {
            cs.pending_order.push_back(id);
        }
        while cs.pending.len() > MAX_SERVER_PENDING {
            let Some(old) = cs.pending_order.pop_front() else {
                break;
            };
            cs.pending.remove(&old);
        }
        if cs.pending_order.len() > 2 * MAX_SERVER_PENDING {
            cs.pending_order.retain(|i| cs.pending.contains_key(i));
        }
    }

    /// A response (or error response) from the client to a server request.
    pub(super) fn client_answer(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        let Some(id) = ev.frame().id.clone() else {
            return;
        };
        // `id: null` is JSON-RPC's answer to a request that could not be parsed.
        if !id.is_valid() {
            return;
        }
        let cs = &mut self.client;
        if cs.pending.remove(&id).is_some() {
            if cs.pending.is_empty() {
                self.client_answered(ev);
            }
            return;
        }
        if cs.seen.contains(&hash(&id)) {
            return;
        }
        if cs.forgot {
            cs.unjudged += 1;
            return;
        }
        self.emit(
            out,
            Rule::ClientResponseUnknownId,
            vec![ev.seq],
            None,
            Some(id.clone()),
            format!(
                "the client answered request id {id}, which the server never sent; answer only the server's requests, with their ids"
            ),
        );
    }

    /// Whether a server→client request (an elicitation, a sampling
    /// request, roots) waits for the client: the user may be filling a form.
    pub(super) fn waiting_on_client(&self) -> bool {
        !self.client.pending.is_empty()
    }

    /// The client answered the last question it had: silence is the
    /// server's again from now, never counting the time the client took.
    fn client_answered(&mut self, ev: &EventRef<'_>) {
        for t in &mut self.toks {
            if t.req.is_some_and(|ri| self.reqs[ri].active()) {
                t.activity = (ev.t_us, ev.seq);
                t.stall_reported = false;
            }
        }
    }

    /// Meta events the client wrote about its own requests.
    pub(super) fn client_meta(&mut self, event: &Event) {
        let gone = match event {
            Event::Timeout { request, .. } => {
                let id = IdKey::from_value(request);
                if self.client.timed_out.len() >= MAX_TIMED_OUT {
                    self.client.timed_out.pop_front();
                }
                self.client.timed_out.push_back(id.clone());
                Some(id)
            }
            Event::Failed {
                request: Some(request),
                ..
            } => Some(IdKey::from_value(request)),
            Event::Reinitialize { .. } => {
                // The server forgot the session: nothing of it is in flight.
                for ri in 0..self.reqs.len() {
                    let r = &mut self.reqs[ri];
                    if r.stage != Stage::Retired && r.response.is_none() {
                        r.gone = true;
                        self.req_finished(ri);
                    }
                }
                None
            }
            _ => None,
        };
        if let Some(ri) = gone.and_then(|id| self.req_ids.get(&id).copied()) {
            self.reqs[ri].gone = true;
            self.req_finished(ri);
        }
    }
}

/// Whether an outgoing frame is one the client rules judge as an answer.
pub(super) fn is_answer(kind: FrameKind) -> bool {
    matches!(kind, FrameKind::Response | FrameKind::ErrorResponse)
}
