//! `input_required` results (2026-07-28) answered through the forms: each
//! entry of a result's `inputRequests` becomes a waiting request like a
//! server's own (an elicitation form or URL, a sampling reply, the roots),
//! and once every entry has its answer the retry goes out by itself — the
//! original `tools/call` with `inputResponses` and the echoed
//! `requestState`, under a new id. A round the forms cannot finish (a
//! declined sampling request has no result to send) is left to the
//! composer's hand-edited retry, which stays available throughout.

use super::calls::{Call, CallStatus, InputNeeded};
use super::overlays::asks::{Answer, Ask, AskKind, Asks, Route};
use crate::client::{Limits, ServerAsk};
use crate::protocol::IdKey;
use crate::protocol::{meta, methods};
use crate::trace::Store;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use std::collections::HashMap;

/// Rounds being answered at once; more wait for the composer.
pub const MAX_ROUNDS: usize = 16;

/// One `input_required` result being answered.
#[derive(Debug)]
struct Round {
    tool: String,
    /// The original request's params.
    original: Value,
    request_state: Option<Value>,
    /// The keys asked, in the server's order.
    keys: Vec<String>,
    answers: Map<String, Value>,
    limits: Limits,
    /// A task's input requests (tasks extension): answered with `tasks/update`.
    task: Option<String>,
}

#[derive(Debug, Default)]
pub struct Rounds {
    open: HashMap<IdKey, Round>,
    /// Retries sent (their ids count up).
    sent: u32,
}

/// What answering one entry led to.
pub enum Step {
    /// More entries of the round are waiting.
    Waiting(usize),
    /// Every entry has its answer: the retry to send.
    Retry(crate::tui::action::Effect),
    /// The round cannot be finished through the forms (why).
    Abandoned(String),
    /// A task's input cannot all be given: what was answered goes as
    /// `tasks/update` (if anything was), and the task goes on waiting for
    /// the rest (why).
    TaskWaits(Option<crate::tui::action::Effect>, String),
}

/// The raw text of a response frame's `inputRequests`.
fn raw_requests(frame: &[u8]) -> Option<String> {
    type Members<'a> = HashMap<String, &'a RawValue>;
    let m: Members = serde_json::from_slice(frame).ok()?;
    let m: Members = serde_json::from_str(m.get("result")?.get()).ok()?;
    Some(m.get("inputRequests")?.get().to_string())
}

/// The raw text of `inputRequests[key]` in a response frame, so a form
/// keeps the field order the server wrote.
fn raw_entry(frame: &[u8], key: &str) -> Option<String> {
    type Members<'a> = HashMap<String, &'a RawValue>;
    let requests = raw_requests(frame)?;
    let m: Members = serde_json::from_str(&requests).ok()?;
    Some(m.get(key)?.get().to_string())
}

/// The keys of a response frame's `inputRequests`, in the server's order.
fn request_order(frame: &[u8]) -> Vec<String> {
    raw_requests(frame).map_or_else(Vec::new, |r| crate::protocol::elicit::keys_in_order(&r))
}

/// The retry's params: the original's name and arguments with the answers
/// and the echoed state, a fresh progress token; the session adds the era's
/// `_meta` envelope again when sending.
pub fn retry_params(
    original: &Value,
    responses: Map<String, Value>,
    state: Option<&Value>,
    token: &str,
) -> Value {
    let mut params = match original {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    params.remove(meta::META);
    params.remove("inputResponses");
    params.remove("requestState");
    params.insert(meta::META.into(), json!({meta::PROGRESS_TOKEN: token}));
    params.insert("inputResponses".into(), Value::Object(responses));
    if let Some(s) = state {
        params.insert("requestState".into(), s.clone());
    }
    Value::Object(params)
}

impl Rounds {
    /// Offer `call`'s `input_required` result to the user: one waiting ask
    /// per entry. `None` (nothing offered) when too many rounds are open
    /// or the original request is no longer in memory.
    pub fn offer(
        &mut self,
        call: &Call,
        input: &InputNeeded,
        store: &Store,
        limits: Limits,
        now_us: u64,
    ) -> Option<Vec<Ask>> {
        if self.open.len() >= MAX_ROUNDS || input.asks.is_empty() {
            return None;
        }
        let original = store
            .get(call.request_seq)
            .and_then(|ev| serde_json::from_slice::<Value>(ev.bytes).ok())
            .and_then(|v| v.get("params").cloned())?;
        let response = store.get(input.response_seq).map(|ev| ev.bytes.to_vec());
        // Asked in the order the server wrote them.
        let order = response.as_deref().map(request_order).unwrap_or_default();
        let mut entries: Vec<&crate::tui::calls::InputAsk> = input.asks.iter().collect();
        crate::sort::by_key(&mut entries, |a| {
            order.iter().position(|k| *k == a.key).unwrap_or(usize::MAX)
        });
        let asks = entries
            .into_iter()
            .map(|a| {
                let raw = response
                    .as_deref()
                    .and_then(|f| raw_entry(f, &a.key))
                    .unwrap_or_else(|| json!({"params": a.params}).to_string());
                let server = ServerAsk {
                    id: IdKey::Str(format!("{}:{}", call.id, a.key).into()),
                    seq: input.response_seq,
                    method: a.method.clone(),
                    params: a.params.clone(),
                    raw,
                };
                let mut ask = Ask::new(&server, now_us);
                if a.method == methods::ROOTS_LIST {
                    ask.kind = AskKind::Roots;
                }
                ask.route = Route::Input {
                    call: call.id.clone(),
                    key: a.key.clone(),
                };
                ask
            })
            .collect();
        self.open.insert(
            call.id.clone(),
            Round {
                tool: call.tool.clone(),
                original,
                request_state: input.request_state.clone(),
                keys: input.asks.iter().map(|a| a.key.clone()).collect(),
                answers: Map::new(),
                limits,
                task: input.task.clone(),
            },
        );
        Some(asks)
    }

    /// The user answered entry `key` of `call`'s round.
    pub fn answer(&mut self, call: &IdKey, key: &str, answer: Answer) -> Step {
        let Some(round) = self.open.get_mut(call) else {
            return Step::Abandoned(format!("the round of id {call} is gone"));
        };
        match answer {
            Ok(v) => {
                round.answers.insert(key.to_string(), v);
            }
            Err((_, why)) => {
                let tool = round.tool.clone();
                let Some(round) = self.open.remove(call) else {
                    return Step::Waiting(0);
                };
                if let Some(task) = round.task {
                    // "one or more subsequent tasks/update requests": the
                    // answers given need not wait for the one that is not.
                    let update = (!round.answers.is_empty()).then(|| {
                        self.sent += 1;
                        task_update(self.sent, &task, round.answers, round.limits)
                    });
                    return Step::TaskWaits(
                        update,
                        format!(
                            "{tool}'s task (id {call}) still waits for {key}: nothing to send for it ({why})"
                        ),
                    );
                }
                return Step::Abandoned(format!(
                    "{tool} (id {call}) is not retried: {key} has no answer to send ({why})"
                ));
            }
        }
        let left = round
            .keys
            .iter()
            .filter(|k| !round.answers.contains_key(*k))
            .count();
        if left > 0 {
            return Step::Waiting(left);
        }
        let Some(round) = self.open.remove(call) else {
            return Step::Waiting(0);
        };
        self.sent += 1;
        if let Some(task) = round.task {
            // "The client provides responses via the inputResponses field in
            // one or more subsequent tasks/update requests."
            return Step::Retry(task_update(self.sent, &task, round.answers, round.limits));
        }
        let id = format!("input-{}", self.sent);
        let params = retry_params(
            &round.original,
            round.answers,
            round.request_state.as_ref(),
            &id,
        );
        Step::Retry(crate::tui::action::Effect::Raw {
            id: Some(IdKey::Str(id.into())),
            method: methods::TOOLS_CALL.into(),
            params: Some(params),
            limits: round.limits,
        })
    }

    /// Is `call`'s open round a task's input (answered by `tasks/update`)?
    pub fn is_task(&self, call: &IdKey) -> bool {
        self.open.get(call).is_some_and(|r| r.task.is_some())
    }

    /// Forget `call`'s round (its asks were dropped).
    pub fn forget(&mut self, call: &IdKey) {
        self.open.remove(call);
    }
}

/// `tasks/update` with these answers, as the `n`th message the rounds send.
fn task_update(
    n: u32,
    task: &str,
    answers: Map<String, Value>,
    limits: Limits,
) -> crate::tui::action::Effect {
    crate::tui::action::Effect::Raw {
        id: Some(IdKey::Str(format!("task-update-{n}").into())),
        method: methods::TASKS_UPDATE.into(),
        params: Some(json!({"taskId": task, "inputResponses": answers})),
        limits,
    }
}

/// Calls whose `input_required` result has not been offered yet: the
/// latest result of a call not answered by a retry already, or the new
/// input requests of a running call's task.
pub fn unoffered(calls: &mut [Call]) -> impl Iterator<Item = &mut Call> {
    unoffered_at(calls).map(|(_, c)| c)
}

/// [`unoffered`], with each call's place in the list.
fn unoffered_at(calls: &mut [Call]) -> impl Iterator<Item = (usize, &mut Call)> {
    calls.iter_mut().enumerate().filter(|(_, c)| {
        let task_input =
            c.status.is_running() && c.input.as_ref().is_some_and(|i| i.task.is_some());
        (c.status == CallStatus::InputRequired || task_input)
            && c.input
                .as_ref()
                .is_some_and(|i| !i.offered && i.answered_by.is_none())
    })
}

/// What the rounds' sync step reads and changes: the calls (the Progress
/// pane's), the asks queue and the rounds answered through it (the
/// overlays'), and the notice it leaves for the status line.
pub struct RoundsCx<'a> {
    pub live: bool,
    pub now_us: u64,
    pub calls: &'a mut super::calls::Calls,
    pub asks: &'a mut Asks,
    pub rounds: &'a mut Rounds,
    /// The composer's limits, for a round whose call had none.
    pub fallback: Limits,
    pub notice: Option<String>,
}

/// Sync step: offer the `input_required` results not offered yet as
/// waiting asks, and drop the asks of a round answered otherwise (a retry
/// composed by hand). Only in a live session. Returns how many asks came.
pub fn sync(st: &mut RoundsCx, store: &Store) -> usize {
    if !st.live {
        return 0;
    }
    let answered: Vec<IdKey> = st
        .calls
        .list
        .iter()
        .filter(|c| {
            st.rounds.open.contains_key(&c.id)
                && c.input.as_ref().is_some_and(|i| i.answered_by.is_some())
        })
        .map(|c| c.id.clone())
        .collect();
    for id in &answered {
        st.rounds.forget(id);
        st.asks.drop_round(id);
    }
    let fallback = st.fallback;
    let mut added = 0;
    let mut skipped = 0;
    let calls = &mut *st.calls;
    let sent_with: Vec<Option<Limits>> = calls.list.iter().map(|c| calls.limits(c)).collect();
    for (at, c) in unoffered_at(&mut calls.list) {
        let Some(mut input) = c.input.take() else {
            continue;
        };
        let room = crate::client::answer_limit().saturating_sub(st.asks.waiting.len());
        let limits = sent_with[at].unwrap_or(fallback);
        let offered = (input.asks.len() <= room)
            .then(|| st.rounds.offer(c, &input, store, limits, st.now_us))
            .flatten();
        match offered {
            Some(asks) => {
                added += asks.len();
                st.asks.waiting.extend(asks);
            }
            None if !input.asks.is_empty() => skipped += 1,
            None => {}
        }
        // Offered once: what could not be offered is the composer's.
        input.offered = true;
        c.input = Some(input);
    }
    let left = if skipped > 0 {
        format!(
            "; {} more wait for a in Progress (too much is open)",
            crate::tui::format::count(skipped as u64, "call", "calls")
        )
    } else {
        String::new()
    };
    if added > 0 {
        st.notice = Some(format!(
            "the server needs input ({}) — A to answer{left}",
            crate::tui::format::count(added as u64, "request", "requests")
        ));
    } else if skipped > 0 {
        st.notice = Some(left.trim_start_matches("; ").to_string());
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_params_replace_the_envelope_and_echo_the_state() {
        let original = json!({"name": "t", "arguments": {"a": 1},
            "_meta": {"progressToken": "x", "io.modelcontextprotocol/protocolVersion": "2026-07-28"},
            "inputResponses": {"old": {}}, "requestState": "old"});
        let mut r = Map::new();
        r.insert(
            "k".into(),
            json!({"action": "accept", "content": {"n": "A"}}),
        );
        let p = retry_params(&original, r, Some(&json!("s1")), "input-1");
        assert_eq!(
            p,
            json!({"name": "t", "arguments": {"a": 1}, "_meta": {"progressToken": "input-1"},
                "inputResponses": {"k": {"action": "accept", "content": {"n": "A"}}},
                "requestState": "s1"})
        );
    }

    #[test]
    fn raw_entries_keep_the_servers_text() {
        let frame = br#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"requestedSchema":{"properties":{"z":{},"b":{}}}}},"0":{"method":"roots/list"}}}}"#;
        assert_eq!(request_order(frame), ["a".to_string(), "0".to_string()]);
        let raw = raw_entry(frame, "a").unwrap();
        assert_eq!(
            crate::protocol::elicit::property_order(&raw),
            ["z".to_string(), "b".to_string()]
        );
        assert_eq!(raw_entry(frame, "nope"), None);
    }
}
