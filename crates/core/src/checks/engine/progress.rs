//! The rule engine's progress path: a progress notification against its
//! token's stream. The usual notification runs only `progress`'s straight
//! path; each finding is written in a cold function of its own.

use super::*;

impl Checker {
    /// A progress notification. The usual one — a request in flight, its
    /// stream rising — runs only the straight path here; every finding is
    /// written in a cold function of its own, so the flood's path stays
    /// small (the checking budget on a flood is +10% of ingest).
    pub(super) fn progress(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        let Some((slot, ri, progress, total)) = self.progress_stream(ev, out) else {
            return;
        };
        let (seq, t) = (ev.seq, ev.t_us);
        let req = &self.reqs[ri];
        // A copy `--faults` sent may still run after the first answer; a
        // cancel that never reached the server did not stop it.
        let answered = req.response.is_some() && req.changed.owed == 0;
        let cancelled = req.cancel.is_some() && !req.changed.cancel_lost;
        let task = if answered || cancelled {
            match self.progress_late(slot, ri, ev, out) {
                Some(task) => task,
                None => return,
            }
        } else {
            false
        };
        // Legacy HTTP+SSE answers everything on its one `sse` stream by design;
        // a task's messages may come on any stream (its request's stream
        // ends with the CreateTaskResult, which they may even overtake).
        let req = &self.reqs[ri];
        if req.channel.starts_with("post")
            && *req.channel != *ev.channel
            && ev.channel != "sse"
            && !task
            && !req.augmented
        {
            self.wrong_stream(slot, ri, ev, out);
        }
        self.gap_ends(slot, ri, t, seq, out);

        let tok = &mut self.toks[slot];
        let prev = tok.last_progress.replace((progress, seq));
        let prev_total = match total {
            Some(tt) => tok.total.replace((tt, seq)),
            None => None,
        };
        tok.notes += 1;
        if tok.first_note.is_none() {
            tok.first_note = Some((t, seq));
        }
        if let Some((t_prev, _)) = tok.last_note {
            tok.max_note_gap_us = tok.max_note_gap_us.max(t.saturating_sub(t_prev));
        }
        tok.last_note = Some((t, seq));
        let exceeds = match total {
            Some(tt) if progress > tt && !tok.exceeded => {
                tok.exceeded = true;
                true
            }
            _ => false,
        };
        let flood = if tok.flooded {
            None
        } else {
            self.flood_step(slot, t, seq)
        };
        let not_increasing = prev.filter(|(p0, _)| progress <= *p0);
        let total_changed = match (prev_total, total) {
            (Some((t0, s0)), Some(t1)) if t0 != t1 => Some((t0, s0)),
            _ => None,
        };
        // A request `--faults` sent twice has two runs on its token: their
        // stream is judged frame by frame only.
        let (not_increasing, total_changed, flood) = match self.reqs[ri].changed.copies {
            0 => (not_increasing, total_changed, flood),
            _ => (None, None, None),
        };
        if not_increasing.is_some() || total_changed.is_some() || exceeds || flood.is_some() {
            let found = StreamFaults {
                not_increasing,
                total_changed,
                exceeds,
                flood,
            };
            self.progress_faults(slot, ri, ev, progress, total, found, out);
        }
    }

    /// The token and request a progress notification belongs to, with its
    /// values; None when it belongs to none (judged here).
    #[inline]
    fn progress_stream(
        &mut self,
        ev: &EventRef<'_>,
        out: &mut Vec<Finding>,
    ) -> Option<(usize, usize, f64, Option<f64>)> {
        // The store parsed every well-formed progress frame once at ingest;
        // only malformed ones are parsed here, to explain what is wrong.
        let (found, progress, total) = match ev.progress {
            Some(p) => (
                self.tok_for_store(p.slot, p.serial, ev),
                p.progress,
                p.total,
            ),
            None => self.parse_progress(ev, out)?,
        };
        let Some(slot) = found.map(|s| s as usize) else {
            self.unknown_token(ev, out);
            return None;
        };
        let Some(ri) = self.toks[slot].req else {
            self.token_without_request(slot, ev.seq, out);
            return None;
        };
        Some((slot, ri, progress, total))
    }

    /// A progress frame the store could not read: its token and values, or
    /// the `progress-invalid` finding.
    #[cold]
    #[inline(never)]
    fn parse_progress(
        &mut self,
        ev: &EventRef<'_>,
        out: &mut Vec<Finding>,
    ) -> Option<(Option<u32>, f64, Option<f64>)> {
        let f = ev.frame();
        match ProgressView::parse(f.params) {
            Ok(p) => {
                let found = self.tok_for_raw(p.token.get().as_bytes());
                Some((found, p.progress, p.total))
            }
            Err(why) => {
                self.emit(
                    out,
                    Rule::ProgressInvalid,
                    vec![ev.seq],
                    None,
                    None,
                    format!("malformed progress notification: {why}"),
                );
                None
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn token_without_request(&mut self, slot: usize, seq: u64, out: &mut Vec<Finding>) {
        let key = self.toks[slot].key.clone();
        self.emit(
            out,
            Rule::ProgressUnknownToken,
            vec![seq],
            Some(key.clone()),
            None,
            format!(
                "progress for token {key}, which no request carried; only send progress for the progressToken of an active request (and none when the request had no token)"
            ),
        );
    }

    /// Progress for a request that was answered or cancelled: judged here
    /// (None) unless it may still come — for a live task (`Some(true)`), or
    /// within the grace after a cancel (`Some(false)`).
    #[cold]
    #[inline(never)]
    fn progress_late(
        &mut self,
        slot: usize,
        ri: usize,
        ev: &EventRef<'_>,
        out: &mut Vec<Finding>,
    ) -> Option<bool> {
        let (seq, t) = (ev.seq, ev.t_us);
        let req = &self.reqs[ri];
        // A task's token outlives the CreateTaskResult that answered its
        // request: it is valid until the task is terminal.
        let task = match req.response {
            Some(_) => self.task_progress(req, ev),
            None => None,
        };
        if let Some(Some(end)) = task {
            let tasks::Ended {
                task,
                status,
                seq: tseq,
            } = end;
            self.emit_for(out, Rule::TaskProgressAfterTerminal, vec![tseq, seq], slot, ri, |key, rid| format!(
                    "progress for token {key} arrived after task {task} (request {rid}) was {status} (#{tseq}); a task's progress must stop when the task ends"
                ));
            return None;
        }
        let req = &self.reqs[ri];
        if let (Some((rseq, _)), None) = (req.response, &task)
            && req.changed.owed == 0
        {
            self.emit_for(out, Rule::ProgressAfterResponse, vec![rseq, seq], slot, ri, |key, rid| format!(
                    "progress for token {key} arrived after the response to request {rid} (#{rseq}); progress must stop when the request completes"
                ));
            return None;
        }
        if let Some((cseq, ct)) = req.cancel
            && !req.changed.cancel_lost
            && t.saturating_sub(ct) > self.cfg.cancel_grace_us
        {
            self.emit_for(out, Rule::ProgressAfterResponse, vec![cseq, seq], slot, ri, |key, rid| format!(
                    "progress for token {key} arrived {} after request {rid} was cancelled (#{cseq}); a server must stop sending for a cancelled request",
                    secs(t - ct)
                ));
            return None;
        }
        Some(task.is_some())
    }

    #[cold]
    #[inline(never)]
    fn wrong_stream(&mut self, slot: usize, ri: usize, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        let req = &self.reqs[ri];
        let (req_ch, req_seq) = (req.channel.clone(), req.seq);
        self.emit_for(out, Rule::NotificationWrongStream, vec![req_seq, ev.seq], slot, ri, |_, rid| {
            format!(
                "progress for request {rid} arrived on stream {} instead of the request's own stream {req_ch}",
                ev.channel
            )
        });
    }

    /// The flood window of a token not yet found flooding: the start of
    /// the window when this notification fills it too fast.
    #[inline(never)]
    fn flood_step(&mut self, slot: usize, t: u64, seq: u64) -> Option<(u64, u64)> {
        let tok = &mut self.toks[slot];
        let full = tok.flood.len() >= self.flood_limit;
        let first = tok.flood.front().copied();
        let hit = match first {
            Some((t0, s0)) if full && t.saturating_sub(t0) < self.cfg.flood_window_us => {
                tok.flooded = true;
                tok.flood = VecDeque::new();
                Some((t0, s0))
            }
            _ => None,
        };
        if !tok.flooded {
            if full {
                tok.flood.pop_front();
            }
            tok.flood.push_back((t, seq));
        }
        hit
    }

    /// The findings of one progress notification against its stream.
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn progress_faults(
        &mut self,
        slot: usize,
        ri: usize,
        ev: &EventRef<'_>,
        progress: f64,
        total: Option<f64>,
        found: StreamFaults,
        out: &mut Vec<Finding>,
    ) {
        let (seq, t) = (ev.seq, ev.t_us);
        if let Some((p0, s0)) = found.not_increasing {
            self.emit_for(out, Rule::ProgressNotIncreasing, vec![s0, seq], slot, ri, |key, _| format!(
                    "progress for token {key} went from {} to {}; progress must increase with every notification",
                    num(p0),
                    num(progress)
                ));
        }
        if let (Some((t0, s0)), Some(t1)) = (found.total_changed, total) {
            self.emit_for(out, Rule::ProgressTotalChanged, vec![s0, seq], slot, ri, |key, _| format!(
                    "total for token {key} changed from {} to {} within one request; keep total fixed once announced",
                    num(t0),
                    num(t1)
                ));
        }
        if found.exceeds {
            self.emit_for(
                out,
                Rule::ProgressExceedsTotal,
                vec![seq],
                slot,
                ri,
                |key, _| {
                    format!(
                        "progress {} exceeds total {} for token {key}",
                        num(progress),
                        num(total.unwrap_or_default())
                    )
                },
            );
        }
        if let Some((t0, s0)) = found.flood {
            let n = self.flood_limit + 1;
            let (rate, window) = (self.cfg.flood_rate, self.cfg.flood_window_us);
            self.emit_for(out, Rule::ProgressFlood, vec![s0, seq], slot, ri, |key, _| {
                format!(
                    "token {key} sent {n} progress notifications within {} (limit {}/s over {}); rate-limit progress, e.g. latest-wins every 100 ms",
                    secs(t - t0),
                    num(rate),
                    secs(window)
                )
            });
        }
    }
}

/// What one progress notification broke in its stream (see `progress`).
struct StreamFaults {
    /// The previous progress and its seq, when this one is not above it.
    not_increasing: Option<(f64, u64)>,
    /// The total announced before and its seq, when this one differs.
    total_changed: Option<(f64, u64)>,
    exceeds: bool,
    /// The flood window's first notification, when this one filled it.
    flood: Option<(u64, u64)>,
}
