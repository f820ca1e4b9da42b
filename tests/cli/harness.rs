//! The test harness's own guarantees: a hung child is killed, and nothing
//! but a still-running child of the test is ever signalled.

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
