//! Results on stdout, checked. A command's result is its point: a write
//! that fails (a full disk, an I/O error) must fail the command, or a CI job
//! uploads a truncated SARIF file and passes. Every command writes its
//! results through [`lock`], which keeps the first error; [`finish`], at the
//! end of `main`, flushes, says it once and turns a success (or a verdict)
//! into exit 2. A reader that went away (`| head`) is no error: the rest
//! was not wanted, and the command's own exit code stands.

use std::io::{self, Write};
use std::sync::Mutex;

/// The first write error on stdout, as said to the user.
static FAILED: Mutex<Option<String>> = Mutex::new(None);

/// Stdout, locked, noting a write error it meets.
pub struct Out(io::StdoutLock<'static>);

/// Stdout for a command's results (see the module's documentation).
pub fn lock() -> Out {
    Out(io::stdout().lock())
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        noted(self.0.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        noted(self.0.flush())
    }
}

/// Write `bytes` and flush (errors are kept for [`finish`]).
pub fn write(bytes: &[u8]) {
    let mut out = lock();
    let _ = out.write_all(bytes);
    let _ = out.flush();
}

fn noted<T>(r: io::Result<T>) -> io::Result<T> {
    if let Err(e) = &r
        && e.kind() != io::ErrorKind::BrokenPipe
    {
        let mut failed = FAILED.lock().unwrap_or_else(|p| p.into_inner());
        failed.get_or_insert_with(|| e.to_string());
    }
    r
}

/// The exit code once stdout is flushed: 2 (with one `[error]` line) when a
/// result could not be written and the command would have exited 0 or 1;
/// a code that already says something worse (3, 4, 130) is kept.
pub fn finish(code: i32) -> i32 {
    let _ = noted(io::stdout().lock().flush());
    let failed = FAILED.lock().unwrap_or_else(|p| p.into_inner()).take();
    match failed {
        Some(e) => {
            eprintln!(
                "[error] cannot write stdout: {}",
                crate::protocol::sanitize::one_line(&e)
            );
            if matches!(code, 0 | 1) { 2 } else { code }
        }
        None => code,
    }
}
