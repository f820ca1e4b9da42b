//! JSON Lines trace files: written incrementally while a session runs, read
//! back for replay and offline checks.
//!
//! Line 1 is a header; each further line is one event:
//! `{"seq":N,"t":SECONDS,"dir":"in","ch":"stdio","json":FRAME}`, or `"text"`
//! (plus `"b64"` of the exact bytes when they are not UTF-8) for frames that are
//! not JSON. Batch elements carry `"batch":true`.

use super::stored::{Dir, EventRef, flags};
use base64::Engine as _;
use serde_json::Value;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

pub const FORMAT_VERSION: u64 = 1;

/// Lines handed to the writer thread and not yet written, at most (in
/// batches, one per ingest batch).
const QUEUE_BATCHES: usize = 256;
/// Lines handed to the writer at once at most, when no ingest batch ends
/// sooner.
const BATCH_BYTES: usize = 1 << 20;
/// Bytes held while the queue is full, at most: beyond them the disk is not
/// keeping up and the recording stops (said in the header and at exit)
/// instead of slowing ingest or growing without end.
const MAX_HELD: usize = 64 << 20;

/// Batches handed to the writer and not yet written, shared with whoever
/// wants to wait for the disk rather than have lines held (the proxy's
/// observer, which runs beside the forwarding and whose own bounded queue
/// then fills and counts what it cannot keep).
#[derive(Clone, Default)]
pub struct Backlog(std::sync::Arc<(std::sync::Mutex<usize>, std::sync::Condvar)>);

impl Backlog {
    fn add(&self) {
        *self.0.0.lock().unwrap_or_else(|e| e.into_inner()) += 1;
    }

    fn done(&self) {
        let mut n = self.0.0.lock().unwrap_or_else(|e| e.into_inner());
        *n = n.saturating_sub(1);
        self.0.1.notify_all();
    }

    /// Batches waiting to be written.
    pub fn len(&self) -> usize {
        *self.0.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Wait until fewer than `limit` batches wait to be written (or the
    /// writer is gone: it empties the backlog as it ends).
    pub fn wait_below(&self, limit: usize) {
        let mut n = self.0.0.lock().unwrap_or_else(|e| e.into_inner());
        while *n >= limit.max(1) {
            n = self.0.1.wait(n).unwrap_or_else(|e| e.into_inner());
        }
    }
}

enum ToWriter {
    /// Lines of events from seq `from` on.
    Lines { from: u64, bytes: Vec<u8> },
    /// Answer once everything before has been written.
    Sync(std::sync::mpsc::Sender<()>),
}

/// Writes events as they are appended: the lines are formatted under the
/// store's lock (they need its bytes) and written by a thread of their own,
/// so a slow or full disk never blocks ingest. I/O errors are remembered,
/// not fatal: a full disk must not stop the inspection.
pub struct Recorder {
    line: Vec<u8>,
    /// Lines not yet handed to the writer, and the seq of the first.
    batch: Vec<u8>,
    /// Buffers the writer has emptied, for the next batches: recording
    /// allocates nothing per batch once it runs.
    /// (In a mutex only so the store stays `Sync`; always reached through
    /// `&mut self`, so never contended.)
    spare: std::sync::Mutex<std::sync::mpsc::Receiver<Vec<u8>>>,
    batch_from: Option<u64>,
    tx: Option<std::sync::Arc<std::sync::mpsc::SyncSender<ToWriter>>>,
    writer: Option<std::thread::JoinHandle<()>>,
    /// Why the recording stopped, set once by whichever side saw it.
    error: std::sync::Arc<std::sync::OnceLock<String>>,
    backlog: Backlog,
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
        let error = std::sync::Arc::new(std::sync::OnceLock::new());
        let (tx, rx) = std::sync::mpsc::sync_channel(QUEUE_BATCHES);
        let tx = std::sync::Arc::new(tx);
        live()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(std::sync::Arc::downgrade(&tx));
        let err = error.clone();
        let (give_back, spare) = std::sync::mpsc::channel();
        let backlog = Backlog::default();
        let written = backlog.clone();
        let writer = std::thread::Builder::new()
            .name("recorder".into())
            .spawn(move || {
                crate::priority::lower_if_background();
                write_lines(out, rx, &give_back, &err, &written);
                // Nobody waits for a writer that is gone.
                let mut n = written.0.0.lock().unwrap_or_else(|e| e.into_inner());
                *n = 0;
                written.0.1.notify_all();
            })?;
        Ok(Recorder {
            line: Vec::with_capacity(512),
            batch: Vec::new(),
            spare: std::sync::Mutex::new(spare),
            batch_from: None,
            tx: Some(tx),
            writer: Some(writer),
            error,
            backlog,
        })
    }

    pub fn error(&self) -> Option<&str> {
        self.error.get().map(String::as_str)
    }

    /// The batches waiting to be written, to wait on.
    pub fn backlog(&self) -> Backlog {
        self.backlog.clone()
    }

    pub fn write_event(&mut self, ev: &EventRef<'_>) {
        // Stopped, or finished (events may still arrive from a server
        // process that outlives the command).
        if self.error.get().is_some() || self.tx.is_none() {
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
        self.batch_from.get_or_insert(ev.seq);
        self.batch.extend_from_slice(l);
        // A caller appending without ending batches (a replay, a bulk load)
        // still hands lines over in pieces, not as one copy of the trace.
        if self.batch.len() >= BATCH_BYTES {
            self.hand_off();
        }
    }

    /// Hand the lines appended since the last call to the writer (called at
    /// the end of each ingest batch). Never waits: while the writer's queue
    /// is full the lines are held, up to [`MAX_HELD`] bytes.
    pub fn hand_off(&mut self) {
        let Some(from) = self.batch_from else { return };
        if self.error.get().is_some() {
            self.batch = Vec::new();
            self.batch_from = None;
            return;
        }
        let Some(tx) = &self.tx else { return };
        let next = match self.spare.get_mut() {
            Ok(spare) => spare.try_recv().unwrap_or_default(),
            Err(_) => Vec::new(),
        };
        let bytes = std::mem::replace(&mut self.batch, next);
        // Counted before it is sent: the writer may be done with it first.
        self.backlog.add();
        let sent = tx.try_send(ToWriter::Lines { from, bytes });
        if sent.is_err() {
            self.backlog.done();
        }
        match sent {
            Ok(()) => self.batch_from = None,
            Err(std::sync::mpsc::TrySendError::Full(ToWriter::Lines { bytes, .. })) => {
                if bytes.len() > MAX_HELD {
                    self.stop(format!(
                        "recording stopped at event {from}: the disk does not keep up ({} MiB wait to be written)",
                        bytes.len() >> 20
                    ));
                } else {
                    self.batch = bytes;
                }
            }
            Err(_) => self.stop(format!(
                "recording stopped at event {from}: the writer is gone"
            )),
        }
    }

    /// Wait until every line handed over so far is written (or failed).
    pub fn flush(&mut self) {
        self.hand_off();
        while self.batch_from.is_some() && self.error.get().is_none() {
            // The queue was full: wait for room instead of holding the lines.
            let (Some(from), Some(tx)) = (self.batch_from.take(), &self.tx) else {
                break;
            };
            let bytes = std::mem::take(&mut self.batch);
            if tx.send(ToWriter::Lines { from, bytes }).is_err() {
                break;
            }
        }
        let (ack, done) = std::sync::mpsc::channel();
        if let Some(tx) = &self.tx
            && tx.send(ToWriter::Sync(ack)).is_ok()
        {
            let _ = done.recv();
        }
    }

    /// Write what is left and stop the writer; the file is complete after.
    pub fn finish(&mut self) {
        self.flush();
        self.tx = None;
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }

    fn stop(&mut self, why: String) {
        let _ = self.error.set(why);
        self.batch = Vec::new();
        self.batch_from = None;
    }
}

type Live = std::sync::Mutex<Vec<std::sync::Weak<std::sync::mpsc::SyncSender<ToWriter>>>>;

/// Every recording's writer, so the process can wait for them on its way
/// out whatever path it takes (an early error exit skips the stores' own
/// finish).
fn live() -> &'static Live {
    static LIVE: std::sync::OnceLock<Live> = std::sync::OnceLock::new();
    LIVE.get_or_init(Default::default)
}

/// Wait until every recording of this process has written the lines handed
/// to it. Called by the binary before it exits.
pub fn wait_all() {
    let writers: Vec<_> = {
        let mut l = live().lock().unwrap_or_else(|e| e.into_inner());
        l.retain(|w| w.strong_count() > 0);
        l.iter().filter_map(std::sync::Weak::upgrade).collect()
    };
    for tx in writers {
        let (ack, done) = std::sync::mpsc::channel();
        if tx.send(ToWriter::Sync(ack)).is_ok() {
            let _ = done.recv();
        }
    }
}

/// The writer thread: each batch is written and flushed; the first failure
/// stops the recording where that batch began (the file holds at most the
/// events before it).
fn write_lines(
    mut out: BufWriter<Box<dyn Write + Send + Sync>>,
    rx: std::sync::mpsc::Receiver<ToWriter>,
    give_back: &std::sync::mpsc::Sender<Vec<u8>>,
    error: &std::sync::OnceLock<String>,
    backlog: &Backlog,
) {
    for msg in rx {
        match msg {
            ToWriter::Lines { from, mut bytes } => {
                if error.get().is_none()
                    && let Err(e) = out.write_all(&bytes).and_then(|()| out.flush())
                {
                    let _ = error.set(format!("recording stopped at event {from}: {e}"));
                }
                // Reused for a later batch; a buffer that grew while the
                // queue was full is let go instead of kept.
                if bytes.capacity() <= 2 * BATCH_BYTES {
                    bytes.clear();
                    let _ = give_back.send(bytes);
                }
                backlog.done();
            }
            ToWriter::Sync(ack) => {
                let _ = ack.send(());
            }
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.finish();
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

/// Why one event line of a trace cannot be read; the reader names the file
/// and line around it ([`TraceReadError::Bad`]).
#[derive(Debug, thiserror::Error)]
pub enum EventError {
    #[error("bad event: {0}")]
    Json(#[source] serde_json::Error),
    #[error("unknown dir {0:?}")]
    Dir(String),
    #[error("bad b64: {0}")]
    Base64(#[source] base64::DecodeError),
    #[error("event has neither json nor text")]
    NoFrame,
}

/// A frame at least this long is handed over in the line's own buffer
/// rather than copied out of it: a huge line is then held once, not twice.
pub(super) const HAND_OVER: usize = 1 << 20;

/// Parse one event line. The frame bytes of a large `json` event are the
/// line's buffer itself, cut to the frame (`line` is left empty then).
pub(super) fn parse_event(line: &mut Vec<u8>) -> Result<RecordedEvent, EventError> {
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
    enum Frame {
        Owned(Vec<u8>),
        /// Where the raw JSON sits in the line.
        InLine(std::ops::Range<usize>),
    }
    let w: Wire<'_> = serde_json::from_slice(line).map_err(EventError::Json)?;
    let dir = Dir::parse(w.dir).ok_or_else(|| EventError::Dir(w.dir.to_string()))?;
    let frame = match (w.json, w.text, w.b64) {
        (_, _, Some(b)) => Frame::Owned(
            base64::engine::general_purpose::STANDARD
                .decode(b)
                .map_err(EventError::Base64)?,
        ),
        (Some(j), _, _) => {
            let raw = j.get().as_bytes();
            let start = (raw.as_ptr() as usize).wrapping_sub(line.as_ptr() as usize);
            match start
                .checked_add(raw.len())
                .and_then(|end| line.get(start..end))
            {
                // A borrowed raw value is a slice of the line it came from.
                Some(at) if std::ptr::eq(at, raw) => Frame::InLine(start..start + raw.len()),
                _ => Frame::Owned(raw.to_vec()),
            }
        }
        (None, Some(t), None) => Frame::Owned(t.into_bytes()),
        (None, None, None) => return Err(EventError::NoFrame),
    };
    let (seq, t, in_batch, channel) = (w.seq, w.t, w.batch, w.ch.into_owned());
    let bytes = match frame {
        Frame::Owned(v) => v,
        Frame::InLine(r) if r.len() >= HAND_OVER => {
            let mut v = std::mem::take(line);
            v.truncate(r.end);
            v.drain(..r.start);
            v
        }
        Frame::InLine(r) => line[r].to_vec(),
    };
    Ok(RecordedEvent {
        seq,
        t_us: (t * 1_000_000.0).round() as u64,
        dir,
        channel,
        in_batch,
        bytes,
    })
}
