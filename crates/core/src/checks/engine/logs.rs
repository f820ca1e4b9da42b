//! The logging rules: levels, the `logging` capability, and in the
//! 2026-07-28 era logs bound to the request that asked for them.

use super::{Checker, Stage};
use crate::checks::finding::Finding;
use crate::checks::rules::Rule;
use crate::checks::shape::article;
use crate::protocol::Era;
use crate::protocol::meta::LOG_LEVEL as META_LOG_LEVEL;
use crate::protocol::views::{LogLevel, LogView};
use crate::trace::EventRef;

impl Checker {
    pub(super) fn log(&mut self, ev: &EventRef<'_>, out: &mut Vec<Finding>) {
        let f = ev.frame();
        let view = LogView::parse(f.params);
        let level = match &view {
            Ok(LogView { level: Ok(l), .. }) => Some(*l),
            Ok(LogView {
                level: Err(bad), ..
            }) => {
                let bad = crate::protocol::sanitize::one_line(bad).into_owned();
                self.emit(
                    out,
                    Rule::LogInvalidLevel,
                    vec![ev.seq],
                    None,
                    None,
                    format!(
                        "log level {bad:?} is not one of debug, info, notice, warning, error, critical, alert, emergency"
                    ),
                );
                None
            }
            Err(why) => {
                self.emit(
                    out,
                    Rule::LogInvalidLevel,
                    vec![ev.seq],
                    None,
                    None,
                    format!("malformed log message: {why}"),
                );
                None
            }
        };
        if let Ok(LogView { data: None, .. }) = &view {
            self.emit(
                out,
                Rule::LogInvalid,
                vec![ev.seq],
                None,
                None,
                "a log message without data: notifications/message requires `data` (the message itself)".into(),
            );
        }
        self.deprecated_by_server(
            ev,
            super::capabilities::Deprecated::Logging,
            super::capabilities::Observed::Sent(crate::protocol::methods::MESSAGE),
            out,
        );
        if self.logging_declared == Some(false) {
            let answer = match self.era {
                Era::Stateless => "server/discover result",
                Era::Handshake => "initialize result",
            };
            self.emit(
                out,
                Rule::LogWithoutCapability,
                vec![ev.seq],
                None,
                None,
                format!(
                    "the server sent notifications/message but did not declare the `logging` capability in its {answer}"
                ),
            );
        }
        if self.era == Era::Stateless {
            return self.stateless_log(ev, level, out);
        }
        if let (Some(l), Some((set, set_seq))) = (level, self.session_level)
            && l < set
        {
            self.emit(
                out,
                Rule::LogBelowLevel,
                vec![set_seq, ev.seq],
                None,
                None,
                format!(
                    "{} {l} message although logging/setLevel asked for {set} and above (#{set_seq})",
                    article(l)
                ),
            );
        }
    }

    /// Which request a log belongs to: the request of its stream (HTTP), or
    /// on stdio the only request in flight; with none in flight, the request
    /// answered last (the log came after it).
    fn bind_log(&self, ev: &EventRef<'_>) -> Option<usize> {
        if ev.channel.starts_with("post") {
            return self.req_channels.get(ev.channel).copied();
        }
        if ev.channel != "stdio" {
            return None;
        }
        let mut active = self.reqs.iter().enumerate().rev().filter(|(_, r)| {
            r.stage != Stage::Retired && r.active() && !r.lost() && r.kind.is_plain()
        });
        match (active.next(), active.next()) {
            (Some((i, _)), None) => Some(i),
            (None, _) => self.last_answered,
            _ => None,
        }
    }

    fn stateless_log(
        &mut self,
        ev: &EventRef<'_>,
        level: Option<LogLevel>,
        out: &mut Vec<Finding>,
    ) {
        let Some(ri) = self.bind_log(ev) else { return };
        let req = &self.reqs[ri];
        let (rid, rseq) = (req.id.clone(), req.seq);
        if let Some((resp, _)) = req.response {
            return self.emit(
                out,
                Rule::LogAfterResponse,
                vec![resp, ev.seq],
                None,
                Some(rid.clone()),
                format!(
                    "a log for request {rid} arrived after its response (#{resp}); request-bound logs must come before the response"
                ),
            );
        }
        match req.log_level {
            None => self.emit(
                out,
                Rule::LogUnrequested,
                vec![rseq, ev.seq],
                None,
                Some(rid.clone()),
                format!(
                    "a log for request {rid}, which carried no _meta {META_LOG_LEVEL}; send logs only when the request asks for them"
                ),
            ),
            Some(Some(want)) => {
                if let Some(l) = level
                    && l < want
                {
                    self.emit(
                        out,
                        Rule::LogBelowLevel,
                        vec![rseq, ev.seq],
                        None,
                        Some(rid.clone()),
                        format!(
                            "{} {l} message although request {rid} asked for {want} and above",
                            article(l)
                        ),
                    );
                }
            }
            Some(None) => {}
        }
    }
}
