//! The test harness's own guarantees: a hung child is killed, nothing but a
//! still-running child of the test is ever signalled, and a table's failed
//! rows are each named.

use crate::support::rows::run_rows;
use crate::support::watchdog;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn sleeper() -> std::process::Child {
    Command::new("sleep")
        .arg("600")
        .stdin(Stdio::null())
        .spawn()
        .expect("spawn sleep")
}

#[test]
fn a_hung_child_is_killed_at_the_limit() {
    let mut child = sleeper();
    let dog = watchdog(&child, Duration::from_millis(50));
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    assert!(dog.disarm(), "the watchdog says it fired");
}

#[test]
fn a_waited_child_disarms_its_watchdog_at_once() {
    let mut child = Command::new("true").spawn().unwrap();
    let dog = watchdog(&child, Duration::from_secs(600));
    assert!(child.wait().unwrap().success());
    let started = Instant::now();
    assert!(!dog.disarm(), "it never fired");
    // Disarming ends the watchdog's thread now, not when the limit runs out:
    // no signal can follow for a pid the kernel may have handed on.
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_table_runs_every_row_and_names_each_that_failed() {
    let ran = std::sync::atomic::AtomicUsize::new(0);
    let rows = [1, 2, 3, 4];
    let failed = std::panic::catch_unwind(|| {
        run_rows(
            &rows,
            |n| format!("row {n}"),
            |&n| {
                ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                assert!(n % 2 == 1, "{n} is even");
            },
        )
    })
    .expect_err("two rows failed");
    let message = failed.downcast_ref::<String>().expect("a message");
    assert_eq!(ran.into_inner(), 4, "every row ran");
    assert!(
        message.starts_with("2 of 4 rows failed:\nrow 2: 2 is even\nrow 4: 4 is even"),
        "{message}"
    );
}
