//! The window of requests the engine keeps, so that its memory does not
//! grow with the length of a session (a proxy runs for days).
//!
//! A request is open while it is in flight, and while a task its answer
//! created runs (its token stays valid for the task's lifetime). It is
//! finished once answered (with no task running), cancelled, or given up by
//! the client; the most recent `KEEP_FINISHED` finished requests are kept,
//! and older ones are retired — with their id, channel, token and task — a
//! cancelled one only once its cancel is older than the grace in which
//! progress may still race it. Open requests are kept up to `MAX_OPEN`
//! (a host that never finishes anything); past that the oldest is dropped.
//! Both are counted. What a retired request's id or token means afterwards
//! is no longer known: a response, a cancel or progress naming it is judged
//! as naming no request, and the findings say the window was passed.

use super::{Checker, Req, Stage};
use std::collections::VecDeque;

/// Finished requests kept: the most recently finished.
pub const KEEP_FINISHED: usize = 4096;
/// Open requests kept (in flight, or holding a running task).
pub const MAX_OPEN: usize = 16_384;

#[derive(Default)]
pub(super) struct Window {
    /// Request slots free for reuse.
    free: Vec<usize>,
    /// Finished requests in the order they finished: (slot, serial).
    finished: VecDeque<(usize, u64)>,
    /// Open requests, oldest first: (slot, serial). Entries of requests
    /// that finished since stay until compacted away.
    open: VecDeque<(usize, u64)>,
    open_count: usize,
    next_serial: u64,
    /// Finished requests retired.
    retired: u64,
    /// Open requests dropped over `MAX_OPEN`.
    dropped: u64,
}

impl Window {
    /// Whether anything is to be retired (a test cheap enough for every event).
    pub(super) fn due(&self) -> bool {
        self.finished.len() > KEEP_FINISHED || self.open_count > MAX_OPEN
    }

    /// Whether some request is no longer kept: an unknown id or token may
    /// be one of its.
    pub(super) fn forgot(&self) -> bool {
        self.retired + self.dropped > 0
    }
}

impl Checker {
    /// Requests with state (open and finished).
    pub fn requests_kept(&self) -> usize {
        self.reqs.len() - self.window.free.len()
    }

    /// Requests no longer kept: finished ones retired past the window, and
    /// open ones dropped over its cap.
    pub fn requests_retired(&self) -> (u64, u64) {
        (self.window.retired, self.window.dropped)
    }

    /// The slot the next request will take (`place` puts it there).
    pub(super) fn next_req_slot(&self) -> usize {
        self.window.free.last().copied().unwrap_or(self.reqs.len())
    }

    /// Keep a new, open request in the slot `next_req_slot` gave.
    pub(super) fn place(&mut self, mut req: Req) {
        let w = &mut self.window;
        let serial = w.next_serial;
        w.next_serial += 1;
        req.serial = serial;
        req.stage = Stage::Open;
        let ri = match w.free.pop() {
            Some(ri) => {
                self.reqs[ri] = req;
                ri
            }
            None => {
                self.reqs.push(req);
                self.reqs.len() - 1
            }
        };
        w.open.push_back((ri, serial));
        w.open_count += 1;
        // Entries of requests that finished since: dropped from time to time,
        // so the queue stays proportional to what is open.
        if w.open.len() > 2 * w.open_count + 64 {
            let reqs = &self.reqs;
            w.open
                .retain(|&(ri, s)| reqs[ri].serial == s && reqs[ri].stage == Stage::Open);
        }
    }

    /// Request `ri` was answered, cancelled or given up: unless a task of
    /// its still runs, it is finished, and retired in turn.
    pub(super) fn req_finished(&mut self, ri: usize) {
        let r = &self.reqs[ri];
        if r.stage != Stage::Open || r.task.is_some_and(|ti| self.task_running(ti)) {
            return;
        }
        self.reqs[ri].stage = Stage::Finished;
        self.window.open_count -= 1;
        self.window.finished.push_back((ri, self.reqs[ri].serial));
    }

    /// Retire what is past the window. Called between events only.
    pub(super) fn evict(&mut self) {
        while self.window.finished.len() > KEEP_FINISHED {
            let (ri, serial) = self.window.finished[0];
            let r = &self.reqs[ri];
            if r.serial != serial || r.stage != Stage::Finished {
                self.window.finished.pop_front();
                continue;
            }
            // Progress may race a cancel for a while: until the grace is
            // over, it is still judged against the request (unless the
            // window is twice over, which only a host cancelling thousands
            // of requests within the grace can do).
            if r.response.is_none()
                && !r.gone
                && let Some((_, ct)) = r.cancel
                && self.last_t_us.saturating_sub(ct) <= self.cfg.cancel_grace_us
                && self.window.finished.len() <= 2 * KEEP_FINISHED
            {
                break;
            }
            self.window.finished.pop_front();
            // Answered after its cancel with a task that runs: open again.
            if r.task.is_some_and(|ti| self.task_running(ti)) {
                self.reqs[ri].stage = Stage::Open;
                self.window.open.push_back((ri, serial));
                self.window.open_count += 1;
                continue;
            }
            self.retire(ri);
            self.window.retired += 1;
        }
        while self.window.open_count > MAX_OPEN {
            let Some((ri, serial)) = self.window.open.pop_front() else {
                break;
            };
            let r = &self.reqs[ri];
            if r.serial != serial || r.stage != Stage::Open {
                continue;
            }
            self.window.open_count -= 1;
            self.retire(ri);
            self.window.dropped += 1;
        }
    }

    /// Forget request `ri`, and what only it named: its id, its stream, its
    /// token (unless a later request carries it now) and its task.
    fn retire(&mut self, ri: usize) {
        self.forget_renamed(ri);
        let r = &mut self.reqs[ri];
        r.stage = Stage::Retired;
        let id = std::mem::replace(&mut r.id, crate::protocol::IdKey::Int(0));
        let channel = std::mem::take(&mut r.channel);
        let (token, task) = (r.token.take(), r.task.take());
        if self.req_ids.get(&id) == Some(&ri) {
            self.req_ids.remove(&id);
        }
        if self.req_channels.get(&channel) == Some(&ri) {
            self.req_channels.remove(&channel);
        }
        if let Some(slot) = token
            && self.toks[slot as usize].req == Some(ri)
        {
            self.retire_tok(slot);
        }
        if let Some(ti) = task {
            self.retire_task(ti);
        }
        if self.last_answered == Some(ri) {
            self.last_answered = None;
        }
        self.window.free.push(ri);
    }
}
