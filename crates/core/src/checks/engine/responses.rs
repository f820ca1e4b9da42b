//! The server's responses to the client's requests: matched to their
//! request, judged (unknown, duplicate, null id, after a cancel, not an
//! object), and what they teach the session (capabilities, the revision,
//! the log level, the tools listed, a task created); and the buffered-
//! delivery rule, which a response completes.

use super::{Checker, KEEP_FINISHED, ReqKind, capabilities, shape};
use crate::checks::finding::Finding;
use crate::checks::rules::Rule;
use crate::checks::shape::secs;
use crate::protocol::frame::FrameKind;
use crate::protocol::{IdKey, Revision};
use crate::trace::EventRef;
use serde_json::Value;

impl Checker {
    pub(super) fn response(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        let f = ev.frame();
        let Some(id) = f.id.clone() else { return };
        // A JSON-RPC body carried by an HTTP error status (a refused probe,
        // a gateway's answer) is shown, and ends its request, but is the
        // server's HTTP answer: no protocol rule judges it.
        let http_error = self.http.error_body(ev.channel).is_some();
        let found = self.answered(&id);
        let Some(Ok(ri)) = found else {
            if http_error || self.faults.forged_to_server.contains(&id) {
                return;
            }
            // `id: null` errors are JSON-RPC's answer to a request the
            // server could not parse: allowed, but about no request of ours
            // (and owed, for a line mcpscope's `--faults` broke on its way).
            if ev.kind == FrameKind::ErrorResponse && !id.is_valid() {
                if self.owed_parse_error() {
                    return;
                }
                let message = shape::null_id_error(f.error);
                return self.emit(out, Rule::ResponseNullId, vec![ev.seq], None, None, message);
            }
            let message = match (found, self.window.forgot()) {
                (Some(Err(ri)), _) => format!(
                    "a response for id {id}, which the server never got: mcpscope's --faults dropped the client's request with that id (#{}) or changed it on its way",
                    self.reqs[ri].seq
                ),
                (_, false) => {
                    format!("a response for id {id}, which no request of this client used")
                }
                (_, true) => format!(
                    "a response for id {id}, which no request of this client in flight or among its last {KEEP_FINISHED} finished used (older requests are no longer kept)"
                ),
            };
            return self.emit(
                out,
                Rule::ResponseUnknownId,
                vec![ev.seq],
                None,
                Some(id.clone()),
                message,
            );
        };
        if let Some((first, _)) = self.reqs[ri].response {
            if http_error {
                return;
            }
            // The server got this request more than once (`--faults`
            // duplicated it): one answer per copy is its due.
            let changed = &mut self.reqs[ri].changed;
            if changed.owed > 0 {
                changed.owed -= 1;
                return;
            }
            return self.emit(
                out,
                Rule::ResponseDuplicate,
                vec![first, ev.seq],
                None,
                Some(id.clone()),
                format!(
                    "a second response for request {id} (the first was #{first}); answer each request exactly once"
                ),
            );
        }
        self.reqs[ri].response = Some((ev.seq, ev.t_us));
        if self.faults.host_input_closed {
            self.reqs[ri].changed.host_missed_response = true;
        }
        self.last_answered = Some(ri);
        let ok = ev.kind == FrameKind::Response;
        if let Some(why) = shape::result_not_object(f.result).filter(|_| ok) {
            self.emit(
                out,
                Rule::ResultNotObject,
                vec![ev.seq],
                None,
                Some(id.clone()),
                why,
            );
        }
        match self.reqs[ri].kind {
            ReqKind::Initialize | ReqKind::Discover if ok => {
                let result: Option<Value> = f
                    .result
                    .and_then(|r| serde_json::from_str::<Value>(r.get()).ok());
                if let Some(r) = result {
                    self.handshake_answer(ev, ri, &id, &r, out);
                }
            }
            ReqKind::SetLevel(Some(level)) if ok => {
                self.session_level = Some((level, self.reqs[ri].seq));
            }
            ReqKind::SetLevel(_) if !ok => {
                let code = shape::error_code(f.error);
                self.setlevel_refused(ev, self.reqs[ri].seq, code, out);
            }
            ReqKind::ToolsList { page } if ok => {
                if let Some(r) = f
                    .result
                    .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
                {
                    self.tools_listed(ev, &id, &r, out);
                    self.tools_safety(ev, &id, page, &r, out);
                }
            }
            ReqKind::ToolsCall if ok => {
                if let Some(tool) = self.reqs[ri].tool.clone() {
                    let seq = self.reqs[ri].seq;
                    self.tool_result(ev, &id, &tool, seq, f.result, out);
                }
            }
            _ => {}
        }
        // mcpscope's own `--protocol auto` probe gave up on a slow server:
        // its answer arriving anyway is the probe's doing, not a finding.
        let own_probe = self.cfg.own_client && self.reqs[ri].kind == ReqKind::Discover;
        if let Some((cseq, ct)) = self.reqs[ri].cancel
            && !own_probe
            && !self.reqs[ri].changed.cancel_lost
            && ev.t_us.saturating_sub(ct) > self.cfg.cancel_grace_us
            && shape::error_code(f.error) != Some(crate::calls::REQUEST_CANCELLED)
        {
            let late = secs(ev.t_us.saturating_sub(ct));
            self.emit(
                out,
                Rule::ResponseAfterCancel,
                vec![cseq, ev.seq],
                None,
                Some(id.clone()),
                format!(
                    "a response to request {id} {late} after the client cancelled it (#{cseq}); a cancelled request should not be answered"
                ),
            );
        }
        if ok && self.reqs[ri].task_query.is_some() {
            self.task_query_answer(ri, ev, out);
        } else if ok {
            self.task_answer(ri, ev, out);
        }
        if let Some(slot) = self.reqs[ri].token {
            let slot = slot as usize;
            self.gap_ends(slot, ri, ev.t_us, ev.seq, out);
            self.buffered(slot, ri, ev, out);
        }
        self.req_finished(ri);
    }

    /// An `initialize` or `server/discover` result: the revision it chose
    /// (unsupported or newer than offered) and the capabilities it declared.
    fn handshake_answer(
        &mut self,
        ev: &EventRef<'_>,
        ri: usize,
        id: &IdKey,
        r: &Value,
        out: &mut Vec<Finding>,
    ) {
        if self.reqs[ri].kind == ReqKind::Initialize
            && r.is_object()
            && let Some(why) = shape::unsupported_version(self.offered_version.as_deref(), r)
        {
            let seqs = vec![self.reqs[ri].seq, ev.seq];
            self.emit(
                out,
                Rule::InitializeUnsupportedVersion,
                seqs,
                None,
                Some(id.clone()),
                why,
            );
        }
        if self.reqs[ri].kind == ReqKind::Initialize
            && let Some(why) = shape::newer_version(self.offered_version.as_deref(), r)
        {
            let seqs = vec![self.reqs[ri].seq, ev.seq];
            self.emit(
                out,
                Rule::ProtocolVersionNewer,
                seqs,
                None,
                Some(id.clone()),
                why,
            );
        }
        let caps = r.get("capabilities");
        self.client.caps_seq = Some(ev.seq);
        self.logging_declared = Some(
            caps.and_then(|c| c.get("logging"))
                .is_some_and(|l| !l.is_null()),
        );
        if let Some(rev) = r
            .get("protocolVersion")
            .and_then(Value::as_str)
            .and_then(|s| s.parse::<Revision>().ok())
        {
            self.learn_revision(rev);
        }
        if self.logging_declared == Some(true) {
            let answer = match self.era {
                crate::protocol::Era::Stateless => "server/discover result",
                crate::protocol::Era::Handshake => "initialize result",
            };
            self.deprecated_by_server(
                ev,
                capabilities::Deprecated::Logging,
                capabilities::Observed::Declared(answer),
                out,
            );
        }
    }

    fn buffered(&mut self, slot: usize, ri: usize, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        let tok = &self.toks[slot];
        let req = &self.reqs[ri];
        let (Some((t_first, s_first)), Some((t_last, s_last))) = (tok.first_note, tok.last_note)
        else {
            return;
        };
        let call = ev.t_us.saturating_sub(req.t_us);
        let w = self.cfg.buffered_window_us;
        // Two runs of a request sent twice, or one that reached the server
        // at a time not known: no burst can be timed against the call.
        if tok.req != Some(ri)
            || req.changed.copies > 0
            || req.changed.arrived_late
            || tok.notes < 2
            || call < self.cfg.buffered_min_call_us
            || t_last.saturating_sub(t_first) > w
            || ev.t_us.saturating_sub(t_first) > w
            || tok.max_note_gap_us > self.cfg.buffered_gap_us
        {
            return;
        }
        let (key, rid, rseq, n) = (tok.key.clone(), req.id.clone(), req.seq, tok.notes);
        self.emit(
            out,
            Rule::ProgressBuffered,
            vec![rseq, s_first, s_last, ev.seq],
            Some(key),
            Some(rid.clone()),
            format!(
                "request {rid} ran {} but all {n} progress notifications arrived together with its response (within {}); progress is being buffered instead of sent as the work happens",
                secs(call),
                secs(ev.t_us.saturating_sub(t_first))
            ),
        );
    }
}
