//! Table-driven tests whose rows are slow processes (a conformance scenario
//! is a Node process and a server): the rows run side by side, every row
//! runs even after one fails, and the test fails naming each failed row with
//! its message. `MCPSCOPE_ROWS=TEXT` runs only the rows whose name contains
//! TEXT.
//!
//! Rows run at most as many at once as the test harness runs tests
//! (`RUST_TEST_THREADS`, else one per core), counted over every table of
//! the binary: two tables running side by side share that, as the tests
//! they replace shared the harness's threads.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

fn parallelism() -> usize {
    std::env::var("RUST_TEST_THREADS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1)
}

/// Rows running now, over every table of this binary.
static RUNNING: Mutex<usize> = Mutex::new(0);
static FREED: Condvar = Condvar::new();

/// Run `f` once fewer than `limit` rows of any table are running.
fn with_a_slot<T>(limit: usize, f: impl FnOnce() -> T) -> T {
    let mut running = FREED
        .wait_while(RUNNING.lock().unwrap_or_else(|e| e.into_inner()), |n| {
            *n >= limit
        })
        .unwrap_or_else(|e| e.into_inner());
    *running += 1;
    drop(running);
    let out = f();
    *RUNNING.lock().unwrap_or_else(|e| e.into_inner()) -= 1;
    FREED.notify_one();
    out
}

/// Run `check` on every row (selected by `MCPSCOPE_ROWS`); `name` says
/// which row a failure is.
pub fn run_rows<R: Sync>(
    rows: &[R],
    name: impl Fn(&R) -> String + Sync,
    check: impl Fn(&R) + Sync,
) {
    let only = std::env::var("MCPSCOPE_ROWS").unwrap_or_default();
    let picked: Vec<(usize, &R)> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| name(r).contains(&only))
        .collect();
    assert!(!picked.is_empty(), "no row's name contains {only:?}");
    let limit = parallelism();
    let threads = limit.min(picked.len());
    let next = AtomicUsize::new(0);
    let failed = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some(&(at, row)) = picked.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let outcome =
                        with_a_slot(limit, || catch_unwind(AssertUnwindSafe(|| check(row))));
                    if let Err(panic) = outcome {
                        let why = panic
                            .downcast_ref::<String>()
                            .map(String::as_str)
                            .or_else(|| panic.downcast_ref::<&str>().copied())
                            .unwrap_or("(no message)");
                        let line = format!("{}: {why}", name(row));
                        failed.lock().unwrap().push((at, line));
                    }
                }
            });
        }
    });
    let mut failed = failed.into_inner().unwrap();
    failed.sort();
    let failed: Vec<String> = failed.into_iter().map(|(_, line)| line).collect();
    assert!(
        failed.is_empty(),
        "{} of {} rows failed:\n{}",
        failed.len(),
        picked.len(),
        failed.join("\n")
    );
}
