//! Input rounds (2026-07-28): a `tools/call` can end with `resultType:
//! input_required` (the server needs answers first) and be retried by a
//! new request carrying `inputResponses` and the echoed `requestState`;
//! with the tasks extension a task asks in its status and is answered by
//! `tasks/update`. The call and its rounds are one call: each round is
//! steps on it — asked, answered, resumed — and the call's status is the
//! final round's.
//!
//! [`InputNeeded`] keeps what a round asked (so the forms or the composer
//! can answer it); [`Asking`] links a retry to the round it answers, one
//! definition for every face that groups rounds (the call fold, the
//! Scope's lanes). Bounded and counted: what a server asks is outside
//! mcpscope's control.

use crate::protocol::IdKey;
use crate::protocol::sanitize::one_line_max;
use serde_json::Value;
use std::collections::VecDeque;

/// One entry of an `input_required` result's `inputRequests`.
#[derive(Debug, Clone, PartialEq)]
pub struct InputAsk {
    /// The key the answer goes under in `inputResponses`.
    pub key: String,
    /// `elicitation/create`, `roots/list`, `sampling/createMessage`…
    pub method: String,
    pub params: Value,
}

impl InputAsk {
    /// `elicitation/create "Project name?"`: the method and what it asks.
    pub fn summary(&self) -> String {
        let what = self
            .params
            .get("message")
            .and_then(Value::as_str)
            .map(|m| format!(" \"{}\"", one_line_max(m, 60)))
            .unwrap_or_default();
        format!("{}{what}", one_line_max(&self.method, 40))
    }
}

/// An `input_required` result (or a task's input requests), kept for
/// answering it.
#[derive(Debug, Clone, PartialEq)]
pub struct InputNeeded {
    pub asks: Vec<InputAsk>,
    /// Opaque; echoed back with the answers.
    pub request_state: Option<Value>,
    pub response_seq: u64,
    /// The request carrying `inputResponses` for it (a retry sent by the
    /// session's own forms or composed by hand), or for a task's requests
    /// the call itself once the task moved on.
    pub answered_by: Option<IdKey>,
    /// Its requests were offered as waiting asks (the forms).
    pub offered: bool,
    /// The task (tasks extension) whose `inputRequests` these are: the
    /// answers go in a `tasks/update`, not a retry of the call.
    pub task: Option<String>,
}

impl InputNeeded {
    /// What a result (or a task object) with `inputRequests` asks.
    pub fn parse(result: &Value, seq: u64) -> InputNeeded {
        let asks = result
            .get("inputRequests")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .map(|(k, r)| InputAsk {
                        key: k.clone(),
                        method: r
                            .get("method")
                            .and_then(Value::as_str)
                            .unwrap_or("?")
                            .to_string(),
                        params: r.get("params").cloned().unwrap_or(Value::Null),
                    })
                    .collect()
            })
            .unwrap_or_default();
        InputNeeded {
            asks,
            request_state: result.get("requestState").cloned(),
            response_seq: seq,
            answered_by: None,
            offered: false,
            task: None,
        }
    }
}

/// What happened in a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// The server asked: an `input_required` result, or a task's status
    /// with new input requests.
    Asked,
    /// The client answered: a retry with `inputResponses`, or a
    /// `tasks/update`.
    Answered,
    /// The server took the call up again: the first frame it sent about
    /// the retry, or the task's next status.
    Resumed,
}

impl StepKind {
    pub fn label(self) -> &'static str {
        match self {
            StepKind::Asked => "asked",
            StepKind::Answered => "answered",
            StepKind::Resumed => "resumed",
        }
    }
}

/// One step of a call's input rounds: what, at which event, when.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub kind: StepKind,
    pub seq: u64,
    pub t_us: u64,
    /// The request that answered (a retry's id, or `tasks/update`'s).
    pub by: Option<IdKey>,
}

/// Steps kept per call; later ones are counted, not kept.
pub const MAX_STEPS: usize = 96;

/// A call's steps, bounded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Steps {
    pub list: Vec<Step>,
    /// Steps not kept (the list was full).
    pub dropped: u64,
}

impl Steps {
    pub fn push(&mut self, step: Step) {
        if self.list.len() >= MAX_STEPS {
            self.dropped += 1;
        } else {
            self.list.push(step);
        }
    }

    /// Rounds asked (kept or not).
    pub fn rounds(&self) -> u64 {
        self.count(StepKind::Asked)
    }

    pub fn count(&self, kind: StepKind) -> u64 {
        self.list.iter().filter(|s| s.kind == kind).count() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.dropped == 0
    }

    pub fn last(&self) -> Option<&Step> {
        self.list.last()
    }
}

/// What a `tools/call` retry carries: its tool and echoed state.
#[derive(Debug, Clone, PartialEq)]
pub struct Retry {
    pub tool: Option<String>,
    pub state: Option<Value>,
}

/// A `tools/call`'s params that answer a round (`inputResponses`).
pub fn retry_of(params: &Value) -> Option<Retry> {
    params.get("inputResponses")?;
    Some(Retry {
        tool: params
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_owned),
        state: params.get("requestState").cloned(),
    })
}

/// The `requestState` of a result that asks for input (`Some(None)`: it
/// asks, with no state); `None` when the result does not ask.
pub fn asked_state(result: &str) -> Option<Option<Value>> {
    // Most results do not ask: skip the parse for them.
    memchr::memmem::find(result.as_bytes(), b"input_required")?;
    #[derive(serde::Deserialize)]
    struct Asks {
        #[serde(rename = "resultType", default)]
        result_type: Option<Value>,
        #[serde(rename = "requestState", default)]
        request_state: Option<Value>,
    }
    let a: Asks = serde_json::from_str(result).ok()?;
    let kind = a.result_type.as_ref().and_then(Value::as_str)?;
    (crate::protocol::meta::ResultType::parse(kind)
        == crate::protocol::meta::ResultType::InputRequired)
        .then_some(a.request_state)
}

/// Rounds waiting for their answer remembered at most; an older one is
/// forgotten (its retry then starts a call of its own) and counted.
pub const MAX_ASKING: usize = 1024;

/// Rounds waiting for an answer, by owner (a call, a lane): which one a
/// retry answers. The one whose `requestState` it echoes; else the latest
/// of the same tool (a state the client lost or a server that keeps none).
#[derive(Debug, Default)]
pub struct Asking {
    waiting: VecDeque<(usize, Option<String>, Option<Value>)>,
    /// Rounds forgotten for want of room.
    pub dropped: u64,
}

impl Asking {
    /// `owner`'s round asks (it replaces an earlier one of the same owner).
    pub fn asked(&mut self, owner: usize, tool: Option<&str>, state: Option<Value>) {
        self.waiting.retain(|w| w.0 != owner);
        if self.waiting.len() >= MAX_ASKING {
            self.waiting.pop_front();
            self.dropped += 1;
        }
        self.waiting
            .push_back((owner, tool.map(str::to_owned), state));
    }

    /// The owner whose round `retry` answers, no longer waiting.
    pub fn answer(&mut self, retry: &Retry) -> Option<usize> {
        let by_state = retry
            .state
            .as_ref()
            .and_then(|st| self.waiting.iter().rposition(|w| w.2.as_ref() == Some(st)));
        let at = by_state.or_else(|| {
            self.waiting
                .iter()
                .rposition(|w| w.1.is_some() && w.1 == retry.tool)
        })?;
        self.waiting.remove(at).map(|w| w.0)
    }

    /// `owner` waits no more (answered otherwise, or forgotten).
    pub fn forget(&mut self, owner: usize) {
        self.waiting.retain(|w| w.0 != owner);
    }

    /// Owners renumbered (some were forgotten): `map` gives the new number.
    pub fn renumber(&mut self, map: impl Fn(usize) -> Option<usize>) {
        self.waiting = std::mem::take(&mut self.waiting)
            .into_iter()
            .filter_map(|(o, t, s)| Some((map(o)?, t, s)))
            .collect();
    }

    pub fn len(&self) -> usize {
        self.waiting.len()
    }

    pub fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_retry_answers_the_round_whose_state_it_echoes_else_its_tools_latest() {
        let mut a = Asking::default();
        a.asked(1, Some("wizard"), Some(json!("s1")));
        a.asked(2, Some("wizard"), Some(json!("s2")));
        a.asked(3, Some("other"), None);
        let retry = |tool: &str, state: Option<Value>| Retry {
            tool: Some(tool.into()),
            state,
        };
        assert_eq!(a.answer(&retry("wizard", Some(json!("s1")))), Some(1));
        assert_eq!(a.answer(&retry("wizard", Some(json!("lost")))), Some(2));
        assert_eq!(a.answer(&retry("wizard", None)), None);
        assert_eq!(a.answer(&retry("other", None)), Some(3));
        assert!(a.is_empty());
    }

    #[test]
    fn waiting_rounds_are_bounded_and_counted() {
        let mut a = Asking::default();
        for i in 0..MAX_ASKING + 3 {
            a.asked(i, Some("t"), Some(json!(i)));
        }
        assert_eq!(a.len(), MAX_ASKING);
        assert_eq!(a.dropped, 3);
        let oldest = Retry {
            tool: None,
            state: Some(json!(0)),
        };
        assert_eq!(a.answer(&oldest), None, "forgotten");
    }

    #[test]
    fn steps_are_bounded_and_counted() {
        let mut s = Steps::default();
        for i in 0..MAX_STEPS as u64 + 5 {
            s.push(Step {
                kind: StepKind::Asked,
                seq: i,
                t_us: i,
                by: None,
            });
        }
        assert_eq!(s.list.len(), MAX_STEPS);
        assert_eq!(s.dropped, 5);
    }

    #[test]
    fn only_an_input_required_result_asks() {
        assert_eq!(
            asked_state(r#"{"resultType":"input_required","requestState":"x"}"#),
            Some(Some(json!("x")))
        );
        assert_eq!(
            asked_state(r#"{"resultType":"input_required"}"#),
            Some(None)
        );
        assert_eq!(asked_state(r#"{"content":[]}"#), None);
        assert_eq!(
            asked_state(r#"{"content":[{"type":"text","text":"input_required"}]}"#),
            None
        );
    }
}
