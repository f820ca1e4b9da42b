//! Progress input: the cursor over calls, cancelling one, forgetting the
//! finished ones, units, the details view (and its timing statistics, kept
//! current by the sync step), and answering an `input_required` result.

use crate::trace::Store;
use crate::tui::action::{Action, Effect};
use crate::tui::layout;
use crate::tui::panes::ctl::{self, Controller, Out, Pull};
use crate::tui::state::{Cursor, Pane, State};
use serde_json::Value;

/// Events the timing statistics take in per sync.
const TIMING_BUDGET: usize = 250_000;

pub struct Ctl;

impl Controller for Ctl {
    fn scroll(&self, st: &mut State, delta: isize) {
        st.progress.move_by(delta, st.calls.list.len());
        st.raw_source = Pane::Progress;
    }

    fn click(&self, st: &mut State, item: Option<usize>) {
        if let Some(i) = item.filter(|i| *i < st.calls.list.len()) {
            st.progress.selected = i;
        }
    }
}

/// The Progress pane's own keys.
pub fn apply(st: &mut State, a: Action, out: &mut Out) {
    match a {
        Action::CancelCall => cancel(st, out),
        Action::CycleByteMode => {
            st.byte_mode = st.byte_mode.next();
            st.notice = Some(format!("progress units: {}", st.byte_mode.label()));
        }
        Action::ClearFinished => {
            st.calls.clear_finished();
            st.progress = Cursor::default();
        }
        Action::Details => {
            st.progress_details = !st.progress_details;
            st.timing = Default::default();
            out.behind = true;
        }
        Action::AnswerInput => answer(st, out),
        _ => {}
    }
}

fn cancel(st: &mut State, out: &mut Out) {
    let Some(call) = ctl::selected_call(st) else {
        st.notice = Some("no call selected".into());
        return;
    };
    if !call.status.is_running() {
        st.notice = Some(format!("{} is already {}", call.tool, call.status.label()));
        return;
    }
    if !st.live {
        st.notice = Some("this is a recorded trace: nothing to cancel".into());
        return;
    }
    // Once a task runs the call's request is answered: the task is cancelled.
    if let Some(task) = call.task.as_ref().filter(|t| !t.is_terminal()) {
        let task_id = task.id.clone();
        let notice = format!("cancelling {} (task {})", call.tool, task.short_id());
        let id = call.id.clone();
        st.notice = Some(notice);
        if let Some(t) = st
            .calls
            .list
            .iter_mut()
            .find(|c| c.id == id)
            .and_then(|c| c.task.as_mut())
        {
            t.cancel_sent = true;
        }
        out.effects.push(Effect::CancelTask { task_id });
        return;
    }
    let id = call.id.clone();
    st.notice = Some(format!("cancelling {} (id {id})", call.tool));
    out.effects.push(Effect::Cancel { id });
}

/// A retry answering the selected call's `input_required` result. It is
/// built from the original request, read from the store by the sync step.
fn answer(st: &mut State, out: &mut Out) {
    let Some(call) = ctl::selected_call(st) else {
        st.notice = Some("no call selected".into());
        return;
    };
    let Some(input) = call.input.clone() else {
        st.notice = Some(format!(
            "{} (id {}) is {}: only an input_required result can be answered",
            call.tool,
            call.id,
            call.status.label()
        ));
        return;
    };
    if input.task.is_some() {
        // Its answers go in a tasks/update, which the forms send.
        st.notice = Some(format!(
            "{} (id {}) waits for its task's input: A answers it (sent as tasks/update)",
            call.tool, call.id
        ));
        return;
    }
    out.pulls.push(Pull::Answer {
        id: call.id.clone(),
        seq: call.request_seq,
        input: Box::new(input),
    });
}

/// Sync step for `Pull::Answer`: open the composer (raw mode) with the
/// retry: `inputResponses` skeletons, the echoed `requestState`, the
/// original name and arguments. `answers` numbers the retries' ids.
pub fn resolve_answer(
    st: &mut State,
    store: &Store,
    answers: &mut u32,
    pull: (crate::protocol::IdKey, u64, &crate::tui::calls::InputNeeded),
    out: &mut Out,
) {
    let (orig_id, seq, input) = pull;
    let Some(ev) = store.get(seq) else {
        st.notice = Some(format!(
            "the request #{seq} is no longer in memory (evicted): cannot rebuild the retry"
        ));
        return;
    };
    let original = serde_json::from_slice::<Value>(ev.bytes)
        .ok()
        .and_then(|v| v.get("params").cloned())
        .unwrap_or(Value::Null);
    *answers += 1;
    let id = format!("answer-{answers}");
    let msg = crate::tui::compose::answer_message(&original, input, &id, &id);
    st.composer.load_raw(&msg, &st.theme);
    st.notice = Some(format!(
        "answering id {orig_id}: fill in inputResponses, then s sends it{}",
        if input.answered_by.is_some() {
            " (it was answered already)"
        } else {
            ""
        }
    ));
    ctl::focus(st, Pane::Composer, out);
}

/// Sync step: the window, and the selected call's timing while its
/// details are shown. Returns false when the timing has more to take in
/// (a call with very many notifications, just selected); `changed` says
/// whether it moved.
pub fn settle(st: &mut State, store: &Store) -> (bool, bool) {
    let h = layout::list_height(st, Pane::Progress);
    st.progress.refit(st.calls.list.len(), h, false);
    if st.progress_details
        && let Some(c) = st.calls.list.get(st.progress.selected)
    {
        let before = st.timing.count;
        let done = st.timing.sync(c, store, TIMING_BUDGET);
        return (done, st.timing.count != before);
    }
    (true, false)
}
