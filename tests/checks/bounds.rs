//! The rule engine's per-session state over a long session: finished
//! requests (and their tokens, channels and tasks) are retired past a window
//! and counted, requests still in flight and tasks still running are kept,
//! and the rules judge what is kept exactly as before.

use mcpscope::checks::engine::{KEEP_FINISHED, MAX_OPEN};
use mcpscope::checks::{CheckConfig, Checker, Finding, LiveChecks, Rule};
use mcpscope::protocol::IdKey;
use mcpscope::trace::{Dir, ManualClock, Store, StoreLimits, Trace};

/// Feeds frames through a small store (pruned as a long session's is) into
/// one checker, as the live checks do.
struct Feed {
    store: Store,
    checker: Checker,
    out: Vec<Finding>,
    checked: u64,
    t_ms: u64,
    /// Microseconds between frames.
    step_us: u64,
    t_us: u64,
}

impl Feed {
    fn new() -> Feed {
        Feed::with(CheckConfig::default())
    }

    fn with(cfg: CheckConfig) -> Feed {
        Feed {
            store: Store::new(StoreLimits { max_bytes: 8 << 20 }),
            checker: Checker::new(cfg),
            out: Vec::new(),
            checked: 0,
            t_ms: 0,
            step_us: 1000,
            t_us: 0,
        }
    }

    /// One frame, `step_us` after the one before (`t_ms` moves time on).
    fn send(&mut self, dir: Dir, channel: &str, frame: &str) {
        self.t_us += self.step_us;
        let t = self.t_ms * 1000 + self.t_us;
        self.store
            .append_recorded(dir, channel, t, frame.as_bytes(), false);
        for ev in self.store.range(self.checked, self.store.next_seq()) {
            self.checker.observe(&ev, &mut self.out);
        }
        self.checked = self.store.next_seq();
    }

    fn out(&mut self, channel: &str, frame: &str) {
        self.send(Dir::Out, channel, frame);
    }

    fn inc(&mut self, channel: &str, frame: &str) {
        self.send(Dir::In, channel, frame);
    }

    fn only(&self, rule: Rule) -> Vec<&Finding> {
        self.out.iter().filter(|f| f.rule == rule).collect()
    }
}

fn call(id: u64, token: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"x","arguments":{{}},"_meta":{{"progressToken":"{token}"}}}}}}"#
    )
}

fn task_call(id: u64, token: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"x","arguments":{{}},"task":{{}},"_meta":{{"progressToken":"{token}"}}}}}}"#
    )
}

fn created(id: u64, task: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"task":{{"taskId":"{task}","status":"working"}}}}}}"#
    )
}

fn status(task: &str, s: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{{"taskId":"{task}","status":"{s}"}}}}"#
    )
}

fn progress(token: &str, p: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"{token}","progress":{p}}}}}"#
    )
}

fn done(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"isError":false}}}}"#)
}

fn cancel(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"r"}}}}"#
    )
}

/// A well-behaved exchange: call, two progress notifications, answer; every
/// fourth on a per-request HTTP stream, every hundredth as a task that
/// completes.
fn exchange(f: &mut Feed, id: u64) {
    let token = format!("t{id}");
    let ch = if id.is_multiple_of(4) {
        format!("post:{id}")
    } else {
        "stdio".to_string()
    };
    if id.is_multiple_of(100) {
        f.out(&ch, &task_call(id, &token));
        f.inc(&ch, &created(id, &format!("T{id}")));
        f.inc(&ch, &progress(&token, 1));
        f.inc(&ch, &progress(&token, 2));
        f.inc(&ch, &status(&format!("T{id}"), "completed"));
        return;
    }
    f.out(&ch, &call(id, &token));
    f.inc(&ch, &progress(&token, 1));
    f.inc(&ch, &progress(&token, 2));
    f.inc(&ch, &done(id));
}

#[test]
fn finished_requests_are_retired_past_a_window_and_counted() {
    let mut f = Feed::new();
    let n = 200_000u64;
    for id in 1..=n {
        exchange(&mut f, id);
        if id.is_multiple_of(10_000) {
            assert!(
                f.checker.requests_kept() <= KEEP_FINISHED + 1,
                "{} requests kept after {id}",
                f.checker.requests_kept()
            );
            assert!(f.checker.tracked_tokens() <= KEEP_FINISHED + 1);
            assert!(f.checker.tracked_tasks().0 <= KEEP_FINISHED + 1);
        }
    }
    assert!(f.out.is_empty(), "a clean session: {:?}", f.out.first());
    let kept = f.checker.requests_kept() as u64;
    let (retired, dropped) = f.checker.requests_retired();
    assert_eq!(kept, KEEP_FINISHED as u64);
    assert_eq!(retired + kept, n, "every request is kept or counted");
    assert_eq!(dropped, 0, "nothing in flight was dropped");
}

#[test]
fn requests_in_flight_and_running_tasks_outlive_the_window() {
    // Long silences are not what this is about.
    let mut f = Feed::with(CheckConfig {
        stall_us: u64::MAX / 2,
        ..CheckConfig::default()
    });
    // In flight for the whole session, and a task that keeps running.
    f.out("stdio", &call(1, "slow"));
    f.out("stdio", &task_call(2, "job"));
    f.inc("stdio", &created(2, "J"));
    f.inc("stdio", &progress("slow", 1));
    let n = 3 * KEEP_FINISHED as u64;
    for id in 10..10 + n {
        exchange(&mut f, id);
    }
    assert!(f.out.is_empty(), "{:?}", f.out);
    // Still judged as the same streams: silent while they run...
    f.inc("stdio", &progress("slow", 2));
    f.inc("stdio", &progress("job", 1));
    assert!(f.out.is_empty(), "{:?}", f.out);
    // ...and by the same rules.
    f.inc("stdio", &progress("slow", 2));
    assert_eq!(f.only(Rule::ProgressNotIncreasing).len(), 1, "{:?}", f.out);
    f.inc("stdio", &done(1));
    f.inc("stdio", &status("J", "completed"));
    assert_eq!(f.only(Rule::ResponseUnknownId).len(), 0, "{:?}", f.out);
    f.inc("stdio", &progress("job", 2));
    assert_eq!(
        f.only(Rule::TaskProgressAfterTerminal).len(),
        1,
        "{:?}",
        f.out
    );
    assert_eq!(f.checker.requests_retired().1, 0);
}

#[test]
fn recent_finished_requests_are_judged_as_before() {
    let mut f = Feed::new();
    let n = 2 * KEEP_FINISHED as u64;
    for id in 1..=n {
        exchange(&mut f, id);
    }
    // The last request finished is well inside the window.
    let last = n - 1;
    f.inc("stdio", &progress(&format!("t{last}"), 3));
    let after = f.only(Rule::ProgressAfterResponse);
    assert_eq!(after.len(), 1, "{:?}", f.out);
    assert_eq!(after[0].request_id, Some(IdKey::Int(last as i64)));
    f.inc("stdio", &done(last));
    assert_eq!(f.only(Rule::ResponseDuplicate).len(), 1, "{:?}", f.out);
    // A cancel well after the response, and a cancelled request's late answer.
    f.t_ms += 1000;
    f.out("stdio", &cancel(last));
    assert_eq!(f.only(Rule::ClientCancelUnknownRequest).len(), 1);
    f.out("stdio", &call(n + 1, "c"));
    f.out("stdio", &cancel(n + 1));
    f.inc("stdio", &done(n + 1));
    assert_eq!(f.only(Rule::ResponseUnknownId).len(), 0, "{:?}", f.out);
}

#[test]
fn retired_requests_are_reported_for_what_is_known() {
    let mut f = Feed::new();
    let n = 2 * KEEP_FINISHED as u64;
    for id in 1..=n {
        exchange(&mut f, id);
    }
    // Request 1 finished long ago: its token and id are no longer known,
    // and the findings say so rather than that no request used them.
    f.inc("stdio", &progress("t1", 3));
    f.inc("stdio", &done(1));
    let unknown = f.only(Rule::ProgressUnknownToken);
    assert_eq!(unknown.len(), 1, "{:?}", f.out);
    assert!(
        unknown[0].message.contains("last 4096 finished"),
        "{}",
        unknown[0].message
    );
    let unknown = f.only(Rule::ResponseUnknownId);
    assert_eq!(unknown.len(), 1, "{:?}", f.out);
    assert!(
        unknown[0].message.contains("last 4096 finished"),
        "{}",
        unknown[0].message
    );
}

#[test]
fn a_host_that_never_finishes_anything_is_bounded_and_counted() {
    let mut f = Feed::new();
    let n = MAX_OPEN as u64 + 5_000;
    for id in 1..=n {
        f.out("stdio", &call(id, &format!("t{id}")));
    }
    assert_eq!(f.checker.requests_kept(), MAX_OPEN);
    assert!(f.checker.tracked_tokens() <= MAX_OPEN);
    assert_eq!(f.checker.requests_retired(), (0, 5_000));
    // The newest are still judged: a duplicate token of one in flight.
    f.out("stdio", &call(n + 1, &format!("t{n}")));
    assert_eq!(f.only(Rule::ClientDuplicateProgressToken).len(), 1);
}

#[tokio::test]
async fn live_checks_count_what_the_checker_retired() {
    let clock = ManualClock::new();
    let trace = Trace::new(Store::default(), clock.clone());
    let live = LiveChecks::spawn(trace.clone(), CheckConfig::default());
    let n = KEEP_FINISHED as u64 + 100;
    for id in 1..=n {
        let token = format!("t{id}");
        for (dir, frame) in [
            (Dir::Out, call(id, &token)),
            (Dir::In, progress(&token, 1)),
            (Dir::In, done(id)),
        ] {
            clock.advance_us(1000);
            trace.append(|s, now| {
                s.append_frame(dir, "stdio", now, frame.as_bytes(), &mut Vec::new());
            });
        }
    }
    live.sync();
    assert!(live.is_empty(), "{:?}", live.findings());
    assert_eq!(live.requests_retired(), (100, 0));
    live.stop();
}

#[test]
fn a_cancelled_request_is_kept_while_progress_may_race_its_cancel() {
    let mut f = Feed::new();
    // Everything within the cancel grace (1 s): a microsecond apart.
    f.step_us = 1;
    f.out("stdio", &call(1, "c"));
    f.out("stdio", &cancel(1));
    for id in 10..10 + KEEP_FINISHED as u64 + 50 {
        exchange(&mut f, id);
    }
    assert!(f.out.is_empty(), "{:?}", f.out);
    assert_eq!(f.checker.requests_kept(), KEEP_FINISHED + 51);
    assert_eq!(f.checker.requests_retired(), (0, 0));
    // Progress within the grace is no finding; past it, it is judged
    // against the cancel, and then the request is retired.
    f.inc("stdio", &progress("c", 1));
    assert!(f.out.is_empty(), "{:?}", f.out);
    f.t_ms += 2000;
    f.inc("stdio", &progress("c", 2));
    let after = f.only(Rule::ProgressAfterResponse);
    assert_eq!(after.len(), 1, "{:?}", f.out);
    assert!(
        after[0].message.contains("cancelled"),
        "{}",
        after[0].message
    );
    assert_eq!(f.checker.requests_kept(), KEEP_FINISHED);
    assert_eq!(f.checker.requests_retired(), (51, 0));
}

#[test]
fn ids_and_tokens_reused_stay_with_the_request_using_them_now() {
    // A host that reuses a few ids and one token for calls in sequence.
    let mut f = Feed::new();
    let n = 3 * KEEP_FINISHED as u64;
    for i in 0..n {
        let id = i % 10;
        f.out("stdio", &call(id, "same"));
        f.inc("stdio", &progress("same", 1));
        f.inc("stdio", &done(id));
    }
    assert!(f.out.is_empty(), "{:?}", f.out.first());
    assert_eq!(f.checker.tracked_tokens(), 1);
    assert_eq!(f.checker.requests_retired(), (n - KEEP_FINISHED as u64, 0));
    // The token and the id are the last request's, judged as before.
    f.inc("stdio", &progress("same", 2));
    let after = f.only(Rule::ProgressAfterResponse);
    assert_eq!(after.len(), 1, "{:?}", f.out);
    let last = ((n - 1) % 10) as i64;
    assert_eq!(after[0].request_id, Some(IdKey::Int(last)));
    f.inc("stdio", &done(last as u64));
    assert_eq!(f.only(Rule::ResponseDuplicate).len(), 1, "{:?}", f.out);
}

#[test]
fn a_task_created_after_its_call_was_cancelled_keeps_the_call() {
    let mut f = Feed::with(CheckConfig {
        stall_us: u64::MAX / 2,
        ..CheckConfig::default()
    });
    // Cancelled (finished), then answered with a task that runs on.
    f.out("stdio", &task_call(1, "job"));
    f.out("stdio", &cancel(1));
    f.inc("stdio", &created(1, "J"));
    for id in 10..10 + 2 * KEEP_FINISHED as u64 {
        exchange(&mut f, id);
    }
    assert!(f.out.is_empty(), "{:?}", f.out);
    // Still known: progress long after the cancel is judged against it.
    f.inc("stdio", &progress("job", 1));
    let after = f.only(Rule::ProgressAfterResponse);
    assert_eq!(after.len(), 1, "{:?}", f.out);
    assert!(
        after[0].message.contains("cancelled"),
        "{}",
        after[0].message
    );
    // Once the task ends, the call is finished and retired in turn.
    f.inc("stdio", &status("J", "cancelled"));
    for id in 20_000..20_000 + KEEP_FINISHED as u64 {
        exchange(&mut f, id);
    }
    // Only the tasks of the exchanges kept are left.
    let recent = (20_000..20_000 + KEEP_FINISHED as u64).filter(|i| i.is_multiple_of(100));
    assert_eq!(f.checker.tracked_tasks().0, recent.count());
    assert_eq!(f.checker.requests_kept(), KEEP_FINISHED);
    assert_eq!(f.checker.requests_retired().1, 0);
}
