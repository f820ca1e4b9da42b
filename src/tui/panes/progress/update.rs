//! Progress input: the cursor over calls, cancelling one, forgetting the
//! finished ones, units, the details view (and its timing statistics, kept
//! current by the sync step), showing a call's lane, and answering an
//! `input_required` result.

use super::ProgressState;
use crate::trace::Store;
use crate::tui::action::{Action, Effect};
use crate::tui::calls::{Call, InputNeeded};
use crate::tui::command::{Command, Commands};
use crate::tui::cursor::Cursor;
use crate::tui::pane::Pane;
use crate::tui::panes::timeline::CallKey;
use crate::tui::panes::{Cx, PaneInput};
use crate::tui::views::Lane;
use serde_json::Value;

/// Events the timing statistics take in per sync.
const TIMING_BUDGET: usize = 250_000;
/// `otel-span` events looked at per sync step for the details' waterfall.
const SPANS_BUDGET: usize = 50_000;

/// Which call the call keys act on: the one under the Progress cursor, or
/// (Timeline focused) the one the selected event belongs to, as the
/// Timeline read it at its last sync.
#[derive(Debug, Clone, Copy)]
pub enum Selection<'a> {
    Progress,
    Timeline(Option<&'a CallKey>),
}

impl PaneInput for ProgressState {
    fn scroll(&mut self, delta: isize, _cx: &Cx) -> Commands {
        self.cursor.move_by(delta, self.calls.list.len());
        vec![Command::RawFollows(Pane::Progress)]
    }

    fn click(&mut self, item: Option<usize>, _cx: &Cx) -> Commands {
        if let Some(i) = item.filter(|i| *i < self.order.list.len()) {
            self.cursor.selected = i;
        }
        Vec::new()
    }
}

impl ProgressState {
    pub fn selected(&self, sel: Selection) -> Option<&Call> {
        match sel {
            Selection::Timeline(key) => match key? {
                CallKey::Token(key) => self.calls.list.iter().find(|c| {
                    c.token.as_ref() == Some(key) || c.latest.token.as_ref() == Some(key)
                }),
                CallKey::Id(id) => self.calls.get(id),
            },
            Selection::Progress => self.selected_call(),
        }
    }

    /// The Progress pane's own keys.
    pub fn apply(&mut self, a: Action, sel: Selection, live: bool) -> Commands {
        match a {
            Action::CancelCall => self.cancel(sel, live),
            Action::CycleByteMode => {
                self.byte_mode = self.byte_mode.next();
                vec![Command::Notice(format!(
                    "progress units: {}",
                    self.byte_mode.label()
                ))]
            }
            Action::ClearFinished => {
                self.calls.clear_finished();
                self.cursor = Cursor::default();
                self.order.arrange(&self.calls.list);
                self.order.seen = Some(self.calls.list.len());
                Vec::new()
            }
            Action::Details => {
                self.details = !self.details;
                self.timing = Default::default();
                vec![Command::Rescan]
            }
            Action::AnswerInput => self.answer(sel),
            Action::ShowLane => self.lane(sel),
            _ => Vec::new(),
        }
    }

    /// Narrow the timeline to the selected call's events.
    fn lane(&self, sel: Selection) -> Commands {
        let Some(call) = self.selected(sel) else {
            return Vec::new();
        };
        let lane = Lane::new(call.id.clone(), call.token.clone());
        vec![Command::ShowLane(lane), Command::Focus(Pane::Timeline)]
    }

    fn cancel(&mut self, sel: Selection, live: bool) -> Commands {
        let Some(call) = self.selected(sel) else {
            return vec![Command::Notice("no call selected".into())];
        };
        if !call.status.is_running() {
            return vec![Command::Notice(format!(
                "{} is already {}",
                call.tool,
                call.status.label()
            ))];
        }
        if !live {
            return vec![Command::Notice(
                "this is a recorded trace: nothing to cancel".into(),
            )];
        }
        // Once a task runs the call's request is answered: the task is cancelled.
        if let Some(task) = call.task.as_ref().filter(|t| !t.is_terminal()) {
            let task_id = task.id.clone();
            let notice = format!("cancelling {} (task {})", call.tool, task.short_id());
            let id = call.id.clone();
            if let Some(t) = self
                .calls
                .list
                .iter_mut()
                .find(|c| c.id == id)
                .and_then(|c| c.task.as_mut())
            {
                t.cancel_sent = true;
            }
            return vec![
                Command::Notice(notice),
                Command::Effect(Effect::CancelTask { task_id }),
            ];
        }
        // The request carrying the call now: its latest round's.
        let id = call.latest.id.clone();
        vec![
            Command::Notice(format!("cancelling {} (id {id})", call.tool)),
            Command::Effect(Effect::Cancel { id }),
        ]
    }

    /// A retry answering the selected call's `input_required` result. It is
    /// built from the original request, read from the store by the sync step.
    fn answer(&self, sel: Selection) -> Commands {
        let Some(call) = self.selected(sel) else {
            return vec![Command::Notice("no call selected".into())];
        };
        let Some(input) = call.input.clone() else {
            return vec![Command::Notice(format!(
                "{} (id {}) is {}: only an input_required result can be answered",
                call.tool,
                call.id,
                call.status.label()
            ))];
        };
        if input.task.is_some() {
            // Its answers go in a tasks/update, which the forms send.
            return vec![Command::Notice(format!(
                "{} (id {}) waits for its task's input: A answers it (sent as tasks/update)",
                call.tool, call.id
            ))];
        }
        vec![Command::Answer {
            id: call.id.clone(),
            seq: call.request_seq,
            input: Box::new(input),
        }]
    }

    /// Sync step: the order (a new call selected, else the selection kept
    /// on its call), the window (`rows` rows), and the selected call's
    /// timing while its details are shown. Returns false when the timing
    /// has more to take in (a call with very many notifications, just
    /// selected); the second value says whether it moved.
    pub fn settle(&mut self, store: &Store, rows: usize) -> (bool, bool) {
        let len = self.calls.list.len();
        let was = self.selected_call().map(|c| c.request_seq);
        let newest = self.order.seen.filter(|n| len > *n).map(|_| len - 1);
        self.order.seen = Some(len);
        self.order.arrange(&self.calls.list);
        let keep = |o: &super::order::Order, list: &[Call], seq: Option<u64>| {
            o.list
                .iter()
                .position(|&i| Some(list[i].request_seq) == seq)
        };
        let pos = match newest {
            Some(i) => self.order.list.iter().position(|&at| at == i),
            None => keep(&self.order, &self.calls.list, was),
        };
        if let Some(p) = pos {
            self.cursor.selected = p;
        }
        self.cursor.move_by(0, len);
        self.order.measure(&self.calls.list, store);
        self.cursor.offset = self
            .order
            .window(len, self.cursor.selected, self.cursor.offset, rows);
        if self.details
            && let Some(c) = self
                .order
                .list
                .get(self.cursor.selected)
                .and_then(|&i| self.calls.list.get(i))
        {
            let before = (self.timing.count, self.spans.spans.len());
            let waits = Some(&self.calls.waits);
            let mut done = self.timing.sync_excluding(c, store, TIMING_BUDGET, waits);
            // Spans attach whenever they come, also long after the response.
            if let Some(tp) = store
                .get(c.request_seq)
                .and_then(|ev| super::view::traceparent(&ev))
            {
                done &= self.spans.sync(&tp.trace_id, store, SPANS_BUDGET);
            }
            return (done, (self.timing.count, self.spans.spans.len()) != before);
        }
        (true, false)
    }
}

/// Sync step for `Command::Answer`: the retry for the composer (raw mode):
/// `inputResponses` skeletons, the echoed `requestState`, the original
/// name and arguments. `answers` numbers the retries' ids. Returns the
/// message and the notice, or only a notice when the request was evicted.
pub fn retry(
    store: &Store,
    answers: &mut u32,
    orig_id: &crate::protocol::IdKey,
    seq: u64,
    input: &InputNeeded,
) -> Result<(Value, String), String> {
    let Some(ev) = store.get(seq) else {
        return Err(format!(
            "the request #{seq} is no longer in memory (evicted): cannot rebuild the retry"
        ));
    };
    let original = serde_json::from_slice::<Value>(ev.bytes)
        .ok()
        .and_then(|v| v.get("params").cloned())
        .unwrap_or(Value::Null);
    *answers += 1;
    let id = format!("answer-{answers}");
    let msg = crate::tui::panes::composer::answer_message(&original, input, &id, &id);
    let notice = format!(
        "answering id {orig_id}: fill in inputResponses, then s sends it{}",
        if input.answered_by.is_some() {
            " (it was answered already)"
        } else {
            ""
        }
    );
    Ok((msg, notice))
}
