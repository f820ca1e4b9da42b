//! JSON Lines trace files: written incrementally while a session runs, read
//! back for replay and offline checks.
//!
//! Line 1 is a header; each further line is one event:
//! `{"seq":N,"t":SECONDS,"dir":"in","ch":"stdio","json":FRAME}`, or `"text"`
//! (plus `"b64"` of the exact bytes when they are not UTF-8) for frames that are
//! not JSON. Batch elements carry `"batch":true`.

use super::store::{Dir, EventRef, flags};
use base64::Engine as _;
use serde_json::Value;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

pub const FORMAT_VERSION: u64 = 1;

/// Writes events as they are appended. I/O errors are remembered, not fatal:
/// a full disk must not stop the inspection.
pub struct Recorder {
    out: BufWriter<Box<dyn Write + Send + Sync>>,
    error: Option<String>,
    line: Vec<u8>,
    /// First event still in the buffer: a failed write or flush may lose
    /// everything from it on, so that is where the file is said to stop.
    unflushed_from: Option<u64>,
}

impl Recorder {
    pub fn create(path: &Path, header: &Value) -> io::Result<Recorder> {
        let f = File::create(path)?;
        Recorder::new(Box::new(f), header)
    }

    pub fn new(w: Box<dyn Write + Send + Sync>, header: &Value) -> io::Result<Recorder> {
        let mut out = BufWriter::with_capacity(1 << 20, w);
        serde_json::to_writer(&mut out, header)?;
        out.write_all(b"\n")?;
        out.flush()?;
        Ok(Recorder {
            out,
            error: None,
            line: Vec::with_capacity(512),
            unflushed_from: None,
        })
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    pub fn write_event(&mut self, ev: &EventRef<'_>) {
        if self.error.is_some() {
            return;
        }
        let l = &mut self.line;
        l.clear();
        l.extend_from_slice(b"{\"seq\":");
        l.extend_from_slice(itoa::Buffer::new().format(ev.seq).as_bytes());
        l.extend_from_slice(b",\"t\":");
        let secs = ev.t_us / 1_000_000;
        let micros = ev.t_us % 1_000_000;
        l.extend_from_slice(itoa::Buffer::new().format(secs).as_bytes());
        l.push(b'.');
        let m = itoa::Buffer::new().format(micros).to_owned();
        l.extend(std::iter::repeat_n(b'0', 6 - m.len()));
        l.extend_from_slice(m.as_bytes());
        l.extend_from_slice(b",\"dir\":\"");
        l.extend_from_slice(ev.dir.as_str().as_bytes());
        l.extend_from_slice(b"\",\"ch\":");
        // Channel names are ours; still escape them properly.
        let _ = serde_json::to_writer(&mut *l, ev.channel);
        if ev.flags & flags::IN_BATCH != 0 {
            l.extend_from_slice(b",\"batch\":true");
        }
        // A JSON frame with a raw line break (a pretty-printed HTTP body, a
        // multi-line SSE event) would split the JSONL line, and whitespace
        // around it would be lost when read back: keep those as text.
        if ev.kind.is_json()
            && ev.dir != Dir::Stderr
            && memchr::memchr2(b'\n', b'\r', ev.bytes).is_none()
            && !ev.bytes.first().is_some_and(u8::is_ascii_whitespace)
            && !ev.bytes.last().is_some_and(u8::is_ascii_whitespace)
        {
            l.extend_from_slice(b",\"json\":");
            l.extend_from_slice(ev.bytes);
        } else {
            match std::str::from_utf8(ev.bytes) {
                Ok(t) => {
                    l.extend_from_slice(b",\"text\":");
                    let _ = serde_json::to_writer(&mut *l, t);
                }
                Err(_) => {
                    l.extend_from_slice(b",\"text\":");
                    let _ = serde_json::to_writer(&mut *l, &String::from_utf8_lossy(ev.bytes));
                    l.extend_from_slice(b",\"b64\":\"");
                    l.extend_from_slice(
                        base64::engine::general_purpose::STANDARD
                            .encode(ev.bytes)
                            .as_bytes(),
                    );
                    l.push(b'"');
                }
            }
        }
        l.extend_from_slice(b"}\n");
        let from = *self.unflushed_from.get_or_insert(ev.seq);
        if let Err(e) = self.out.write_all(l) {
            self.stopped(from, &e);
        }
    }

    pub fn flush(&mut self) {
        if self.error.is_some() {
            return;
        }
        match self.out.flush() {
            Ok(()) => self.unflushed_from = None,
            Err(e) => match self.unflushed_from {
                Some(from) => self.stopped(from, &e),
                None => self.error = Some(format!("recording stopped: {e}")),
            },
        }
    }

    /// The file holds at most the events before `from`.
    fn stopped(&mut self, from: u64, e: &io::Error) {
        self.error = Some(format!("recording stopped at event {from}: {e}"));
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.flush();
    }
}

/// One event read back from a trace file.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedEvent {
    pub seq: u64,
    pub t_us: u64,
    pub dir: Dir,
    pub channel: String,
    pub in_batch: bool,
    /// The exact frame bytes.
    pub bytes: Vec<u8>,
}

#[derive(Debug, thiserror::Error)]
pub enum TraceReadError {
    #[error("cannot read trace {path}: {source}")]
    Io { path: String, source: io::Error },
    #[error("{path}:{line}: {why}")]
    Bad {
        path: String,
        line: usize,
        why: String,
    },
}

/// Read a whole trace: its header and its events. A trace cut mid-line is
/// an error here; `TraceReader` reads up to the cut and reports it.
pub fn read_trace(path: &Path) -> Result<(Value, Vec<RecordedEvent>), TraceReadError> {
    let mut r = super::reader::TraceReader::open(path)?;
    let mut events = Vec::new();
    while let Some(ev) = r.next_event()? {
        events.push(ev);
    }
    if let Some(d) = r.damage() {
        return Err(TraceReadError::Bad {
            path: path.display().to_string(),
            line: d.line,
            why: d.to_string(),
        });
    }
    Ok((r.header().clone(), events))
}

pub(super) fn parse_event(line: &[u8]) -> Result<RecordedEvent, String> {
    #[derive(serde::Deserialize)]
    struct Wire<'a> {
        seq: u64,
        t: f64,
        #[serde(borrow)]
        dir: &'a str,
        #[serde(borrow)]
        ch: std::borrow::Cow<'a, str>,
        #[serde(default)]
        batch: bool,
        #[serde(borrow, default)]
        json: Option<&'a serde_json::value::RawValue>,
        #[serde(default)]
        text: Option<String>,
        #[serde(default)]
        b64: Option<String>,
    }
    let w: Wire<'_> = serde_json::from_slice(line).map_err(|e| format!("bad event: {e}"))?;
    let dir = Dir::parse(w.dir).ok_or_else(|| format!("unknown dir {:?}", w.dir))?;
    let bytes = match (w.json, w.text, w.b64) {
        (_, _, Some(b)) => base64::engine::general_purpose::STANDARD
            .decode(b)
            .map_err(|e| format!("bad b64: {e}"))?,
        (Some(j), _, _) => j.get().as_bytes().to_vec(),
        (None, Some(t), None) => t.into_bytes(),
        (None, None, None) => return Err("event has neither json nor text".into()),
    };
    Ok(RecordedEvent {
        seq: w.seq,
        t_us: (w.t * 1_000_000.0).round() as u64,
        dir,
        channel: w.ch.into_owned(),
        in_batch: w.batch,
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::store::Store;
    use serde_json::json;

    #[test]
    fn round_trip_keeps_exact_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.jsonl");
        let header = json!({"mcpscope_trace": 1, "version": "x", "started": "now", "server": {}});
        let mut s = Store::default();
        s.set_recorder(Recorder::create(&path, &header).unwrap());
        let frames: Vec<(Dir, &[u8])> = vec![
            (Dir::Out, br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            (Dir::In, br#"{"jsonrpc":"2.0", "id":1, "result":{}}"#),
            (Dir::In, b"not json \x1b[0m"),
            (Dir::In, b"\xff\x00bin"),
            (
                Dir::In,
                b"{\n  \"jsonrpc\": \"2.0\",\r\n  \"id\": 1,\n  \"result\": {}\n}",
            ),
            (Dir::In, br#"[{"jsonrpc":"2.0","method":"a"}]"#),
        ];
        let mut t = 0;
        for (d, b) in &frames {
            t += 1_234_567;
            s.append_frame(*d, "stdio", t, b, &mut Vec::new());
        }
        s.append_stderr("stdio", t, b"warn: \xc3");
        s.append_meta("stdio", t, &json!({"event": "exit", "code": 0}));
        s.flush();
        drop(s);
        let (h, evs) = read_trace(&path).unwrap();
        assert_eq!(h, header);
        assert_eq!(evs.len(), 9);
        for (i, (d, b)) in frames.iter().enumerate() {
            assert_eq!(evs[i].dir, *d);
            assert_eq!(evs[i].bytes, *b, "event {i}");
            assert_eq!(evs[i].seq, i as u64);
        }
        assert_eq!(evs[0].t_us, 1_234_567);
        assert!(evs[6].in_batch);
        assert_eq!(evs[7].bytes, b"warn: \xc3");
        assert_eq!(evs[7].dir, Dir::Stderr);
        assert_eq!(evs[8].dir, Dir::Meta);
    }

    #[test]
    fn bad_files_say_where() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.jsonl");
        std::fs::write(&path, "{\"mcpscope_trace\":1}\n{\"seq\":0}\n").unwrap();
        let e = read_trace(&path).unwrap_err().to_string();
        assert!(e.contains(":2:"), "{e}");
        std::fs::write(&path, "hello\n").unwrap();
        assert!(read_trace(&path).is_err());
    }
}
