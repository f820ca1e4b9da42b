//! Checks over a live trace: a task follows the store's "changed" signal,
//! runs the checker over new events and publishes findings for the headless
//! printer and the TUI (a shared list plus a watch counter).

use super::config::CheckConfig;
use super::finding::{Finding, SeverityCounts};
use super::sessions::Sessions;
use crate::trace::Trace;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::watch;

/// Events checked per store lock: ingest must not wait behind a long check.
const BATCH: u64 = 16_384;
/// Host sessions whose findings are counted apart, at most (a proxy rarely
/// sees more hosts at once; the rest count in the totals only).
pub const MAX_SESSIONS_COUNTED: usize = 64;

struct State {
    checker: Sessions,
    next: u64,
    findings: Vec<Finding>,
    counts: SeverityCounts,
    /// Counts per host session (findings naming one), the first
    /// [`MAX_SESSIONS_COUNTED`] sessions.
    by_session: Vec<(String, SeverityCounts)>,
    /// Events evicted from the store before the checker reached them.
    unchecked: u64,
    /// Host sessions stopped being told apart (`Sessions::unknown`), and
    /// subscribers were woken for it.
    unknown_told: bool,
}

/// Handle to the live checks of one trace. Cheap to clone; the task stops
/// when the last handle is dropped or `stop` is called.
#[derive(Clone)]
pub struct LiveChecks {
    trace: Trace,
    state: Arc<Mutex<State>>,
    published: Arc<watch::Sender<usize>>,
    task: Arc<TaskGuard>,
}

struct TaskGuard(Mutex<Option<tokio::task::JoinHandle<()>>>);

impl Drop for TaskGuard {
    fn drop(&mut self) {
        if let Some(h) = self.0.lock().unwrap_or_else(|e| e.into_inner()).take() {
            h.abort();
        }
    }
}

impl LiveChecks {
    /// Start checking `trace` from its first event. Must run inside a tokio
    /// runtime. The silence rule is re-evaluated every `tick` (about a
    /// tenth of the stall threshold, at most once a second).
    pub fn spawn(trace: Trace, config: CheckConfig) -> LiveChecks {
        let tick = Duration::from_micros((config.stall_us / 10).clamp(10_000, 1_000_000));
        let (tx, _) = watch::channel(0);
        let me = LiveChecks {
            trace: trace.clone(),
            state: Arc::new(Mutex::new(State {
                checker: Sessions::new(config),
                next: 0,
                findings: Vec::new(),
                counts: SeverityCounts::default(),
                by_session: Vec::new(),
                unchecked: 0,
                unknown_told: false,
            })),
            published: Arc::new(tx),
            task: Arc::new(TaskGuard(Mutex::new(None))),
        };
        // The task holds only weak-ish clones of the state, not of the guard,
        // so dropping every handle aborts it.
        let worker = Worker {
            trace,
            state: me.state.clone(),
            published: me.published.clone(),
        };
        let handle = tokio::spawn(async move {
            let mut rx = worker.trace.subscribe();
            let mut ticker = tokio::time::interval(tick);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    r = rx.changed() => {
                        if r.is_err() { break; }
                        worker.sync();
                    }
                    _ = ticker.tick() => worker.tick(),
                }
            }
        });
        *me.task.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
        me
    }

    fn worker(&self) -> Worker {
        Worker {
            trace: self.trace.clone(),
            state: self.state.clone(),
            published: self.published.clone(),
        }
    }

    /// Check everything appended so far, now (so a caller can print all
    /// findings about events it has already shown).
    pub fn sync(&self) {
        self.worker().sync();
    }

    /// Evaluate the time-based rule at the trace clock's current time.
    pub fn tick(&self) {
        self.worker().tick();
    }

    /// Every finding so far.
    pub fn findings(&self) -> Vec<Finding> {
        lock(&self.state).findings.clone()
    }

    /// Findings from index `from` on (for printers that keep a cursor).
    pub fn findings_since(&self, from: usize) -> Vec<Finding> {
        let s = lock(&self.state);
        s.findings
            .get(from..)
            .map(<[Finding]>::to_vec)
            .unwrap_or_default()
    }

    pub fn len(&self) -> usize {
        lock(&self.state).findings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Events the memory bound dropped before they were checked.
    pub fn unchecked(&self) -> u64 {
        lock(&self.state).unchecked
    }

    /// Requests the checker no longer keeps: finished ones retired past
    /// its window, and ones in flight dropped over its cap.
    pub fn requests_retired(&self) -> (u64, u64) {
        lock(&self.state).checker.requests_retired()
    }

    /// Where host sessions stopped being told apart, in an HTTP proxy's
    /// recording that names none (`Sessions::unknown`).
    pub fn sessions_unknown(&self) -> Option<super::SessionsUnknown> {
        lock(&self.state).checker.unknown()
    }

    pub fn counts_by_severity(&self) -> SeverityCounts {
        lock(&self.state).counts
    }

    /// Counts per host session, in the order the sessions were first found
    /// in a finding (none for a trace that names no host session).
    pub fn counts_by_session(&self) -> Vec<(String, SeverityCounts)> {
        lock(&self.state).by_session.clone()
    }

    /// Receives the number of findings whenever it grows.
    pub fn subscribe(&self) -> watch::Receiver<usize> {
        self.published.subscribe()
    }

    /// Stop the background task (findings stay readable).
    pub fn stop(&self) {
        if let Some(h) = self.task.0.lock().unwrap_or_else(|e| e.into_inner()).take() {
            h.abort();
        }
    }
}

fn lock(m: &Mutex<State>) -> MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

struct Worker {
    trace: Trace,
    state: Arc<Mutex<State>>,
    published: Arc<watch::Sender<usize>>,
}

impl Worker {
    fn sync(&self) {
        let mut st = lock(&self.state);
        let mut fresh = Vec::new();
        loop {
            let store = self.trace.read();
            let from = st.next.max(store.first_seq());
            st.unchecked += from - st.next;
            let end = store.next_seq().min(from + BATCH);
            if from >= end {
                break;
            }
            for ev in store.range(from, end) {
                st.checker.observe(&ev, &mut fresh);
            }
            st.next = end;
        }
        self.publish(&mut st, fresh);
    }

    fn tick(&self) {
        self.sync();
        let now = self.trace.now_us();
        let mut st = lock(&self.state);
        let mut fresh = Vec::new();
        st.checker.tick(now, &mut fresh);
        self.publish(&mut st, fresh);
    }

    fn publish(&self, st: &mut State, fresh: Vec<Finding>) {
        if !st.unknown_told && st.checker.unknown().is_some() {
            // Subscribers learn it even when no finding comes with it.
            st.unknown_told = true;
            if fresh.is_empty() {
                self.published.send_replace(st.findings.len());
            }
        }
        if fresh.is_empty() {
            return;
        }
        for f in &fresh {
            st.counts.add(f.severity);
            if let Some(s) = &f.session {
                let known = st.by_session.iter().position(|(id, _)| id == s);
                match known {
                    Some(i) => st.by_session[i].1.add(f.severity),
                    None if st.by_session.len() < MAX_SESSIONS_COUNTED => {
                        let mut c = SeverityCounts::default();
                        c.add(f.severity);
                        st.by_session.push((s.clone(), c));
                    }
                    None => {}
                }
            }
        }
        st.findings.extend(fresh);
        self.published.send_replace(st.findings.len());
    }
}
