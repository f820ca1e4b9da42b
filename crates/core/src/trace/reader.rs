//! Reading a trace back, one line at a time: memory stays proportional to
//! one event, not to the file, and a trace cut short (a full disk, a power
//! loss, `head -c`) still gives every complete event before the cut.
//!
//! Only regular files and pipes are read (a pipe lets `mcpscope replay
//! /dev/stdin --print` follow another program); a device such as /dev/zero
//! is refused before a byte is read. Every line, from a file or a pipe, is
//! capped, so input without line breaks ends in an error, never in a hang.

use super::record::{FORMAT_VERSION, RecordedEvent, TraceReadError, parse_event};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The longest line a trace may have. The recorder writes a frame of up to
/// the transport's 256 MiB line limit as JSON text (escapes widen it) and,
/// for bytes that are not UTF-8, base64 beside it.
pub const MAX_TRACE_LINE: usize = 1 << 30;

/// The line buffer kept between lines; a larger one (left by a huge line)
/// is given back.
const KEEP_BUF: usize = 4 << 20;

/// Where a trace ends in the middle of a line: the events before it were read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// Line number of the incomplete line (the header is line 1).
    pub line: usize,
    /// Seq of the last complete event, if there was one.
    pub after_seq: Option<u64>,
    /// How many bytes the incomplete line has.
    pub bytes: usize,
}

impl Damage {
    /// The cut as an error, for readers that need the whole trace at `path`.
    pub fn error(&self, path: &str) -> TraceReadError {
        TraceReadError::Bad {
            path: path.to_string(),
            line: self.line,
            why: self.to_string(),
        }
    }
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.after_seq {
            Some(seq) => write!(f, "trace ends mid-line after event {seq}")?,
            None => write!(f, "trace ends mid-line before its first event")?,
        }
        write!(
            f,
            ": the last line is incomplete (line {}, {} bytes)",
            self.line, self.bytes
        )
    }
}

/// Whether a trace header is a proxy's recording (the host's session
/// observed) rather than mcpscope's own as the client.
pub fn is_proxy_recording(header: &serde_json::Value) -> bool {
    header.get("proxy").is_some()
        && header
            .get("recorded_as")
            .and_then(serde_json::Value::as_str)
            != Some("client")
}

/// A trace opened for reading: the header is read and checked on open; the
/// events come one by one from `next_event`.
pub struct TraceReader {
    path: String,
    input: BufReader<Box<dyn Read + Send>>,
    buf: Vec<u8>,
    line: usize,
    max_line: usize,
    header: Value,
    last_seq: Option<u64>,
    events: u64,
    damage: Option<Damage>,
}

impl TraceReader {
    /// Open the trace at `path`: a regular file or a pipe.
    pub fn open(path: &Path) -> Result<TraceReader, TraceReadError> {
        TraceReader::open_with(path, |p| crate::files::open_regular(p, true))
    }

    /// Open the trace at `path` through `open` (for a live session, a
    /// reader that follows the file as it grows). Every trace mcpscope
    /// reads is opened here, so a file that cannot be read is reported one
    /// way: "cannot read trace PATH: why".
    pub fn open_with<R: Read + Send + 'static>(
        path: &Path,
        open: impl FnOnce(&Path) -> std::io::Result<R>,
    ) -> Result<TraceReader, TraceReadError> {
        let p = path.display().to_string();
        match open(path) {
            Ok(r) => TraceReader::from_reader(p, Box::new(r), MAX_TRACE_LINE),
            Err(source) => Err(TraceReadError::Io { path: p, source }),
        }
    }

    /// Read a trace from any byte stream, with lines capped at `max_line`.
    fn from_reader(
        path: String,
        r: Box<dyn Read + Send>,
        max_line: usize,
    ) -> Result<TraceReader, TraceReadError> {
        let mut t = TraceReader {
            path,
            input: BufReader::with_capacity(1 << 20, r),
            buf: Vec::new(),
            line: 0,
            max_line,
            header: Value::Null,
            last_seq: None,
            events: 0,
            damage: None,
        };
        let complete = match t.next_line()? {
            None => return Err(t.bad(1, "empty file, expected a trace header".into())),
            Some(c) => c,
        };
        let header: Value = serde_json::from_slice(&t.buf).map_err(|e| {
            if complete {
                t.bad(1, format!("header is not JSON: {e}"))
            } else {
                t.bad(
                    1,
                    "the file ends inside its header line: nothing to read".into(),
                )
            }
        })?;
        if header.get("mcpscope_trace").and_then(Value::as_u64) != Some(FORMAT_VERSION) {
            return Err(t.bad(
                1,
                "not an mcpscope trace (no \"mcpscope_trace\": 1 header)".into(),
            ));
        }
        t.header = header;
        Ok(t)
    }

    pub fn header(&self) -> &Value {
        &self.header
    }

    /// The line number of the line read last (the header is line 1): the
    /// line of the event `next_event` returned.
    pub fn line(&self) -> usize {
        self.line
    }

    /// How many events were read so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Set once the end is reached if the last line was cut short.
    pub fn damage(&self) -> Option<&Damage> {
        self.damage.as_ref()
    }

    /// At the end: a trace cut short as an error naming where, for readers
    /// that need all of it.
    pub fn complete(&self) -> Result<(), TraceReadError> {
        match &self.damage {
            Some(d) => Err(d.error(&self.path)),
            None => Ok(()),
        }
    }

    /// The next event, or `None` at the end (check `damage` then). A bad
    /// line in the middle of the file is an error naming it: a trace
    /// mcpscope wrote has none, so that file is something else.
    pub fn next_event(&mut self) -> Result<Option<RecordedEvent>, TraceReadError> {
        loop {
            let Some(complete) = self.next_line()? else {
                return Ok(None);
            };
            if self.buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match parse_event(&mut self.buf) {
                Ok(ev) => {
                    self.last_seq = Some(ev.seq);
                    self.events += 1;
                    return Ok(Some(ev));
                }
                // Without its line break this is the last line, cut short.
                Err(_) if !complete => {
                    self.damage = Some(Damage {
                        line: self.line,
                        after_seq: self.last_seq,
                        bytes: self.buf.len(),
                    });
                    return Ok(None);
                }
                Err(why) => return Err(self.bad(self.line, why.to_string())),
            }
        }
    }

    /// Read one line into `buf` (without its terminator). Returns whether it
    /// ended with a line break, or `None` at the end of the input.
    fn next_line(&mut self) -> Result<Option<bool>, TraceReadError> {
        // A huge line's buffer is not kept for the lines after it.
        if self.buf.capacity() > KEEP_BUF {
            self.buf = Vec::new();
        }
        self.buf.clear();
        let limit = self.max_line as u64 + 1;
        let n = (&mut self.input)
            .take(limit)
            .read_until(b'\n', &mut self.buf)
            .map_err(|source| TraceReadError::Io {
                path: self.path.clone(),
                source,
            })?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        let complete = self.buf.last() == Some(&b'\n');
        if complete {
            self.buf.pop();
            if self.buf.last() == Some(&b'\r') {
                self.buf.pop();
            }
        } else if self.buf.len() > self.max_line {
            return Err(self.bad(
                self.line,
                format!(
                    "line longer than {} MiB: not a trace mcpscope wrote",
                    self.max_line >> 20
                ),
            ));
        }
        Ok(Some(complete))
    }

    fn bad(&self, line: usize, why: String) -> TraceReadError {
        TraceReadError::Bad {
            path: self.path.clone(),
            line,
            why,
        }
    }
}

/// Read a whole trace: its header and its events. A trace cut mid-line is
/// an error here; `TraceReader` reads up to the cut and reports it.
pub fn read_trace(path: &Path) -> Result<(Value, Vec<RecordedEvent>), TraceReadError> {
    let mut r = TraceReader::open(path)?;
    let mut events = Vec::new();
    while let Some(ev) = r.next_event()? {
        events.push(ev);
    }
    r.complete()?;
    Ok((r.header().clone(), events))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str =
        "{\"mcpscope_trace\":1,\"version\":\"t\",\"started\":\"now\",\"server\":{}}\n";

    fn event(seq: u64) -> String {
        format!(
            "{{\"seq\":{seq},\"t\":0.{seq:06},\"dir\":\"in\",\"ch\":\"stdio\",\"json\":{{\"jsonrpc\":\"2.0\",\"method\":\"m{seq}\"}}}}\n"
        )
    }

    fn read_all(t: &mut TraceReader) -> Vec<RecordedEvent> {
        let mut out = Vec::new();
        while let Some(e) = t.next_event().unwrap() {
            out.push(e);
        }
        out
    }

    fn reader(text: String, max_line: usize) -> Result<TraceReader, TraceReadError> {
        TraceReader::from_reader(
            "t.jsonl".into(),
            Box::new(std::io::Cursor::new(text.into_bytes())),
            max_line,
        )
    }

    #[test]
    fn a_trace_that_cannot_be_opened_reads_the_same_however_it_is_opened() {
        let missing = Path::new("/nonexistent/t.jsonl");
        let file = TraceReader::open(missing).err().unwrap().to_string();
        assert!(
            file.starts_with("cannot read trace /nonexistent/t.jsonl: "),
            "{file}"
        );
        let live = TraceReader::open_with(missing, |_| {
            Err::<std::io::Empty, _>(std::io::Error::other("gone"))
        })
        .err()
        .unwrap()
        .to_string();
        assert_eq!(live, "cannot read trace /nonexistent/t.jsonl: gone");
    }

    #[test]
    fn a_cut_last_line_keeps_every_event_before_it() {
        let mut text = HEADER.to_string();
        for i in 0..3 {
            text.push_str(&event(i));
        }
        let full = event(3);
        text.push_str(&full[..full.len() / 2]);
        let mut t = reader(text, MAX_TRACE_LINE).unwrap();
        let evs = read_all(&mut t);
        assert_eq!(evs.len(), 3);
        assert_eq!(evs[2].seq, 2);
        let d = t.damage().expect("the cut is reported").clone();
        assert_eq!(d.after_seq, Some(2));
        assert_eq!(d.line, 5);
        assert!(
            d.to_string()
                .starts_with("trace ends mid-line after event 2: the last line is incomplete"),
            "{d}"
        );
    }

    #[test]
    fn a_complete_last_line_without_its_break_is_an_event() {
        let mut text = HEADER.to_string() + &event(0);
        text.pop();
        let mut t = reader(text, MAX_TRACE_LINE).unwrap();
        assert_eq!(read_all(&mut t).len(), 1);
        assert_eq!(t.damage(), None);
    }

    #[test]
    fn a_cut_before_the_first_event_and_inside_the_header() {
        let mut t = reader(HEADER.to_string() + "{\"seq\":0,\"t\"", MAX_TRACE_LINE).unwrap();
        assert!(read_all(&mut t).is_empty());
        let d = t.damage().unwrap().to_string();
        assert!(d.contains("before its first event"), "{d}");
        let e = reader(HEADER[..20].to_string(), MAX_TRACE_LINE)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("ends inside its header"), "{e}");
    }

    #[test]
    fn a_bad_line_in_the_middle_is_still_an_error() {
        let text = HEADER.to_string() + &event(0) + "{\"seq\":1}\n" + &event(2);
        let mut t = reader(text, MAX_TRACE_LINE).unwrap();
        assert!(t.next_event().unwrap().is_some());
        let e = t.next_event().unwrap_err().to_string();
        assert!(e.contains("t.jsonl:3:"), "{e}");
    }

    #[test]
    fn an_endless_line_stops_at_the_cap() {
        // Like /dev/zero through a pipe: no line break, ever.
        let zeros = std::io::repeat(0);
        let mut t = TraceReader::from_reader(
            "-".into(),
            Box::new(std::io::Cursor::new(HEADER.as_bytes().to_vec()).chain(zeros)),
            4096,
        )
        .unwrap();
        let e = t.next_event().unwrap_err().to_string();
        assert!(e.contains("-:2: line longer than"), "{e}");
    }

    #[test]
    fn devices_are_refused_before_reading() {
        let e = TraceReader::open(Path::new("/dev/zero"))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("character device"), "{e}");
    }
}
