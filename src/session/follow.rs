//! Reading a live session's trace while the proxy writes it: at the end of
//! the file the reader waits for more as long as the proxy runs, so a
//! `TraceReader` over it yields events as they are recorded and ends when
//! the session does. The proxy writes its last lines before it exits, and
//! an open file outlives its removal, so nothing at the end is missed.

use super::registry::Entry;
use std::fs::File;
use std::io::{self, Read};
use std::time::Duration;

/// How often the end of the file is looked at again while the proxy runs.
const POLL: Duration = Duration::from_millis(20);

pub struct Follow {
    file: File,
    /// The proxy's entry: whether it still runs (a reused pid does not).
    entry: Entry,
}

impl Follow {
    pub fn open(entry: &Entry) -> io::Result<Follow> {
        let file = crate::files::open_regular(&entry.trace, false)?;
        Ok(Follow {
            file,
            entry: entry.clone(),
        })
    }
}

impl Read for Follow {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.file.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            if !self.entry.is_live() {
                // Whatever it wrote before it ended is there now.
                return self.file.read(buf);
            }
            std::thread::sleep(POLL);
        }
    }
}
