//! Copying one stream line by line through the engine (stdio MCP is
//! newline-delimited JSON). Only with `--faults`: without it the proxy
//! copies each read as it comes and never looks for line breaks.
//!
//! The bytes read are offered to the observer before anything is changed:
//! the trace has what each party really sent, and the engine's changes go
//! into it as `injected` events, through the same queue, after the piece
//! holding the line they changed.

use super::apply::{Engine, Out, Stream};
use crate::proxy::observer::Feed;
use std::io::{Read, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Instant;

const COPY_BUF: usize = 256 << 10;
/// Writes waiting for their time, at most, before the reader waits too (a
/// slow link holds back its sender as a real one would).
const DELAYED_QUEUE: usize = 4096;

/// Where the lines go: written at once, or by a thread that waits for each
/// line's time (delays), in order.
enum Sink<W: Write + Send + 'static> {
    /// The receiver, and the buffer of the last write, kept for the next
    /// read's lines (no allocation and page faults per read).
    Direct(Option<W>, Vec<u8>),
    Delayed {
        tx: Option<SyncSender<(Instant, Vec<u8>)>>,
        thread: Option<std::thread::JoinHandle<()>>,
        failed: Arc<std::sync::atomic::AtomicBool>,
    },
}

impl<W: Write + Send + 'static> Sink<W> {
    fn new(to: W, delays: bool, name: &str) -> std::io::Result<Sink<W>> {
        if !delays {
            return Ok(Sink::Direct(Some(to), Vec::new()));
        }
        let (tx, rx) = sync_channel(DELAYED_QUEUE);
        let failed = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let f = failed.clone();
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || write_when_due(to, &rx, &f))?;
        Ok(Sink::Delayed {
            tx: Some(tx),
            thread: Some(thread),
            failed,
        })
    }

    /// Write `bytes` (at `due`); `false` once the receiver is gone.
    fn write(&mut self, bytes: Vec<u8>, due: Instant) -> bool {
        match self {
            Sink::Direct(Some(w), spare) => {
                let ok = w.write_all(&bytes).is_ok();
                if bytes.capacity() <= 2 * COPY_BUF {
                    *spare = bytes;
                    spare.clear();
                }
                ok
            }
            Sink::Direct(None, _) => true,
            Sink::Delayed { tx, failed, .. } => {
                if failed.load(std::sync::atomic::Ordering::Relaxed) {
                    return false;
                }
                match tx {
                    Some(tx) => tx.send((due, bytes)).is_ok(),
                    None => true,
                }
            }
        }
    }

    /// A buffer for the next lines to write (the last one written, when
    /// it is not handed to a writer thread).
    fn spare(&mut self) -> Vec<u8> {
        match self {
            Sink::Direct(_, spare) => std::mem::take(spare),
            Sink::Delayed { .. } => Vec::new(),
        }
    }

    /// The writer thread's queue, for what is written later from elsewhere
    /// (a message released at a breakpoint).
    fn queue(&self) -> Option<SyncSender<(Instant, Vec<u8>)>> {
        match self {
            Sink::Delayed { tx: Some(tx), .. } => Some(tx.clone()),
            _ => None,
        }
    }

    /// Close towards the receiver once what was written before is out.
    fn close(&mut self) {
        match self {
            Sink::Direct(w, _) => *w = None,
            Sink::Delayed { tx, thread, .. } => {
                *tx = None;
                if let Some(t) = thread.take() {
                    let _ = t.join();
                }
            }
        }
    }
}

fn write_when_due<W: Write>(
    mut to: W,
    rx: &Receiver<(Instant, Vec<u8>)>,
    failed: &std::sync::atomic::AtomicBool,
) {
    while let Ok((due, bytes)) = rx.recv() {
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
        if to.write_all(&bytes).is_err() {
            failed.store(true, std::sync::atomic::Ordering::Relaxed);
            return;
        }
    }
}

/// Copy `from` → `to` line by line through `engine` until either side
/// ends; what is still held goes out at the end, then `to` is closed.
pub fn copy_lines<W: Write + Send + 'static>(
    mut from: impl Read,
    to: W,
    feed: &mut Feed,
    engine: &Mutex<Engine>,
    stream: Stream,
    max_line: usize,
) {
    let delays = lock(engine).delays();
    let mut sink = match Sink::new(to, delays, "proxy-delayed") {
        Ok(s) => s,
        // No thread for the delays: the stream is copied without them.
        Err(_) => return,
    };
    if let (Some(b), Some(q)) = (lock(engine).intercept.as_mut(), sink.queue()) {
        b.open_writer(stream, q);
    }
    let mut buf = vec![0u8; COPY_BUF];
    let mut lines = Lines::new(max_line);
    let mut writing = true;
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        // What the sender really sent, before anything is changed.
        feed.offer(&buf[..n]);
        if !writing {
            // Closed towards the receiver: read on, so the sender is not
            // blocked, and keep observing what it sends.
            continue;
        }
        let mut step = Step::with(sink.spare());
        {
            let mut e = lock(engine);
            let t_us = feed.now_us();
            push_read(&mut lines, &buf[..n], &mut e, stream, t_us, &mut step);
        }
        match step.deliver(&mut sink, feed) {
            Delivered::Open => {}
            Delivered::Closed => writing = false,
            // The receiver is gone: stop reading, so the sender's writes
            // fail in turn, as without faults.
            Delivered::Failed => {
                if let Some(b) = lock(engine).intercept.as_mut() {
                    b.close_writer(stream);
                }
                return;
            }
        }
    }
    let mut step = Step::default();
    {
        let mut e = lock(engine);
        let t_us = feed.now_us();
        lines.finish(|line| step.line(&mut e, stream, line, t_us));
        e.end(stream, &mut step.outs, &mut step.events);
    }
    if writing {
        step.deliver(&mut sink, feed);
    }
    sink.close();
}

/// Frame and test one read. The whole lines in its middle are first tested
/// at once (`Engine::lines_pass`): with faults that match nothing, most
/// reads go as they came, and the per-line framing and testing is paid only
/// by the reads where some rule could match. The line the read begins in
/// (it may continue the previous read's) and the one it ends in (it may go
/// on in the next) always go through the framing, so each is tested whole.
fn push_read(
    lines: &mut Lines,
    bytes: &[u8],
    e: &mut Engine,
    stream: Stream,
    t_us: u64,
    step: &mut Step,
) {
    let each = |line: Piece<'_>, e: &mut Engine, step: &mut Step| step.line(e, stream, line, t_us);
    let (Some(first), Some(last)) = (memchr::memchr(b'\n', bytes), memchr::memrchr(b'\n', bytes))
    else {
        lines.push(bytes, |l| each(l, e, step));
        return;
    };
    let (head, rest) = bytes.split_at(first + 1);
    let (middle, tail) = rest.split_at(last - first);
    lines.push(head, |l| each(l, e, step));
    if !middle.is_empty() {
        if e.lines_pass(stream, middle) {
            step.send(middle);
        } else {
            lines.push(middle, |l| each(l, e, step));
        }
    }
    lines.push(tail, |l| each(l, e, step));
}

/// The engine, even if a thread panicked holding it (its state is a
/// session's bookkeeping; the bytes must still go through).
fn lock(engine: &Mutex<Engine>) -> std::sync::MutexGuard<'_, Engine> {
    engine
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// How a step's writing went.
enum Delivered {
    Open,
    /// A rule closed the stream.
    Closed,
    /// The receiver stopped reading.
    Failed,
}

/// What one read gave: the bytes to write in order, with when.
#[derive(Default)]
struct Step {
    outs: Vec<Out>,
    events: Vec<crate::event::Event>,
    /// The buffer the first run of unchanged lines goes into.
    spare: Vec<u8>,
}

impl Step {
    fn with(spare: Vec<u8>) -> Step {
        Step {
            spare,
            ..Step::default()
        }
    }

    fn line(&mut self, e: &mut Engine, stream: Stream, line: Piece<'_>, t_us: u64) {
        match line {
            Piece::Line(l) => {
                if e.line(stream, l, t_us, &mut self.outs, &mut self.events) {
                    self.send(l);
                }
            }
            Piece::Raw(b) => self.send(b),
        }
    }

    /// Send `bytes` unchanged: one run of such lines is one buffer (no
    /// allocation per line on the path most lines take).
    fn send(&mut self, bytes: &[u8]) {
        match self.outs.last_mut() {
            Some(Out::Send(run)) => run.extend_from_slice(bytes),
            _ => {
                let mut run = std::mem::take(&mut self.spare);
                run.extend_from_slice(bytes);
                self.outs.push(Out::Send(run));
            }
        }
    }

    /// Write what this step gave, record its changes.
    fn deliver<W: Write + Send + 'static>(self, sink: &mut Sink<W>, feed: &mut Feed) -> Delivered {
        for ev in self.events {
            feed.record(ev);
        }
        let now = Instant::now();
        let mut batch = Vec::new();
        let mut ok = true;
        for o in self.outs {
            match o {
                Out::Send(b) if batch.is_empty() => batch = b,
                Out::Send(b) => batch.extend_from_slice(&b),
                Out::Delayed(b, d) => {
                    if !batch.is_empty() {
                        ok &= sink.write(std::mem::take(&mut batch), now);
                    }
                    ok &= sink.write(b, now + d);
                }
                Out::Close => {
                    if !batch.is_empty() {
                        sink.write(std::mem::take(&mut batch), now);
                    }
                    sink.close();
                    return Delivered::Closed;
                }
            }
        }
        if !batch.is_empty() {
            ok &= sink.write(batch, now);
        }
        if ok {
            Delivered::Open
        } else {
            Delivered::Failed
        }
    }
}

/// A complete line (its line break included), or bytes of a line too long
/// to hold, passed on unchanged as they come.
enum Piece<'a> {
    Line(&'a [u8]),
    Raw(&'a [u8]),
}

/// Incremental line framing that holds at most `max` bytes of a line:
/// past that the line is passed on as it comes, untouched by the rules.
struct Lines {
    partial: Vec<u8>,
    max: usize,
    /// In a line too long to hold: its bytes pass until its line break.
    passing: bool,
}

impl Lines {
    fn new(max: usize) -> Lines {
        Lines {
            partial: Vec::new(),
            max: max.max(1),
            passing: false,
        }
    }

    fn push(&mut self, mut bytes: &[u8], mut each: impl FnMut(Piece<'_>)) {
        while !bytes.is_empty() {
            let nl = memchr::memchr(b'\n', bytes);
            let end = nl.map_or(bytes.len(), |i| i + 1);
            let (head, rest) = bytes.split_at(end);
            bytes = rest;
            if self.passing {
                each(Piece::Raw(head));
                self.passing = nl.is_none();
                continue;
            }
            if nl.is_none() {
                if self.partial.len() + head.len() > self.max {
                    each(Piece::Raw(&self.partial));
                    self.partial.clear();
                    each(Piece::Raw(head));
                    self.passing = true;
                } else {
                    self.partial.extend_from_slice(head);
                }
                continue;
            }
            if self.partial.is_empty() {
                each(Piece::Line(head));
            } else {
                self.partial.extend_from_slice(head);
                each(Piece::Line(&self.partial));
                self.partial.clear();
            }
        }
    }

    /// The stream ended: a last line without its line break is a line too.
    fn finish(&mut self, mut each: impl FnMut(Piece<'_>)) {
        if !self.partial.is_empty() {
            each(Piece::Line(&self.partial));
            self.partial.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(data: &[u8], step: usize, max: usize) -> Vec<(bool, Vec<u8>)> {
        let mut l = Lines::new(max);
        let mut got = Vec::new();
        let mut each = |p: Piece<'_>| match p {
            Piece::Line(b) => got.push((true, b.to_vec())),
            Piece::Raw(b) => got.push((false, b.to_vec())),
        };
        for c in data.chunks(step) {
            l.push(c, &mut each);
        }
        l.finish(&mut each);
        got
    }

    #[test]
    fn lines_keep_their_breaks_however_the_bytes_come() {
        for step in [1, 2, 5, 100] {
            let got = frame(b"a\r\nbb\n\nlast", step, 1 << 20);
            let want: Vec<(bool, Vec<u8>)> = [&b"a\r\n"[..], b"bb\n", b"\n", b"last"]
                .iter()
                .map(|b| (true, b.to_vec()))
                .collect();
            assert_eq!(got, want, "step {step}");
        }
    }

    /// A session's lines as both streams carry them: notifications with and
    /// without ids, requests, responses, escapes, CRLF, empty lines.
    fn traffic() -> Vec<u8> {
        let mut t = Vec::new();
        for i in 0..120 {
            let line = match i % 12 {
                0 => format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"slow\",\"_meta\":{{\"progressToken\":\"t{i}\"}}}}}}\n"
                ),
                5 => format!(
                    "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"line {i}\"}}}}\n"
                ),
                7 => "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"warning\",\"data\":\"a \\\"quoted\\\" no/such-method\"}}\r\n".to_string(),
                9 => "\n".to_string(),
                11 => format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{{}}}}\n", i - 11),
                _ => format!(
                    "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{{\"progressToken\":\"t{}\",\"progress\":{i}}}}}\n",
                    i - i % 12
                ),
            };
            t.extend_from_slice(line.as_bytes());
        }
        t.extend_from_slice(b"{\"no\":\"line break at the end\"}");
        t
    }

    /// What the receiver gets and what is recorded when `data` comes in
    /// reads of `sizes` (cycled), through `push_read` or (`fast` false)
    /// through the framing of every line.
    fn copied(
        rules: &[(&str, super::super::Action)],
        stream: Stream,
        data: &[u8],
        sizes: &[usize],
        fast: bool,
    ) -> (Vec<u8>, Vec<crate::event::Event>) {
        let rules = rules
            .iter()
            .enumerate()
            .map(|(i, (f, a))| super::super::Rule {
                index: i as u32 + 1,
                source: "test".into(),
                filter: crate::filter::Filter::parse(f).unwrap(),
                action: a.clone(),
                limit: None,
            })
            .collect();
        let mut e = Engine::new(super::super::Faults { rules, seed: 3 }, 1 << 20);
        // Lines longer than the cap pass untested, as the reads cut them:
        // a cap above the whole keeps the reference independent of them.
        let mut lines = Lines::new(1 << 20);
        let (mut got, mut events) = (Vec::new(), Vec::new());
        let mut rest = data;
        let mut k = 0;
        let mut take = |step: Step| {
            for o in step.outs {
                match o {
                    Out::Send(b) | Out::Delayed(b, _) => got.extend_from_slice(&b),
                    Out::Close => got.extend_from_slice(b"<closed>"),
                }
            }
            events.extend(step.events);
        };
        while !rest.is_empty() {
            let (read, r) = rest.split_at(sizes[k % sizes.len()].min(rest.len()));
            rest = r;
            k += 1;
            let mut step = Step::default();
            if fast {
                push_read(&mut lines, read, &mut e, stream, 0, &mut step);
            } else {
                lines.push(read, |l| step.line(&mut e, stream, l, 0));
            }
            take(step);
        }
        let mut step = Step::default();
        lines.finish(|l| step.line(&mut e, stream, l, 0));
        e.end(stream, &mut step.outs, &mut step.events);
        take(step);
        (got, events)
    }

    #[test]
    fn a_read_told_at_once_goes_as_its_lines_would() {
        use super::super::{Action, DropWhen};
        let data = traffic();
        let rule_sets: Vec<Vec<(&str, Action)>> = vec![
            vec![(
                "in && method == no/such-method",
                Action::Drop(DropWhen::Always),
            )],
            // The Nth message seen: the count must not skip the lines told at once.
            vec![(
                "seq == 41 && method == notifications/message",
                Action::Drop(DropWhen::Always),
            )],
            vec![("method == notifications/message", Action::Duplicate)],
            vec![("progress && params.progress > 50", Action::Hold)],
            vec![(
                "in && log && level >= warning",
                Action::Delay {
                    ms: 5,
                    jitter_ms: 3,
                },
            )],
            vec![("text ~ quoted", Action::Drop(DropWhen::Every(2)))],
            vec![
                (
                    "in && method == no/such-method",
                    Action::Drop(DropWhen::Always),
                ),
                ("out && method == notifications/message", Action::Hold),
            ],
        ];
        let sizes: [&[usize]; 6] = [
            &[1],
            &[7, 3],
            &[100],
            &[333, 50, 1],
            &[4096],
            &[170, 64, 9000],
        ];
        let mut told_at_once = 0;
        for rules in &rule_sets {
            for stream in [Stream::ServerToHost, Stream::HostToServer] {
                let want = copied(rules, stream, &data, &[1], false);
                for s in sizes {
                    let got = copied(rules, stream, &data, s, true);
                    let differs = got.0.iter().zip(&want.0).position(|(a, b)| a != b);
                    assert!(
                        got.0 == want.0,
                        "{rules:?} {stream:?} reads of {s:?}: {} bytes against {}, first \
                         difference at {differs:?}",
                        got.0.len(),
                        want.0.len()
                    );
                    assert_eq!(got.1, want.1, "{rules:?} {stream:?} reads of {s:?}");
                    told_at_once += usize::from(got.1.is_empty());
                }
            }
        }
        assert!(told_at_once > 0);
        // Each rule set changes something somewhere, so equal outputs mean
        // something: except the first, whose rule matches nothing.
        for rules in &rule_sets[1..] {
            let (out, events) = copied(rules, Stream::ServerToHost, &data, &[100], true);
            let (out2, events2) = copied(rules, Stream::HostToServer, &data, &[100], true);
            assert!(
                !events.is_empty() || !events2.is_empty(),
                "{rules:?} changed nothing"
            );
            assert!(out != data || out2 != data || !events.is_empty());
        }
        let (out, events) = copied(&rule_sets[0], Stream::ServerToHost, &data, &[100], true);
        assert_eq!(out, data);
        assert!(events.is_empty());
    }

    #[test]
    fn a_line_too_long_to_hold_passes_unchanged() {
        let got = frame(b"0123456789\nok\n", 4, 5);
        let raw: Vec<u8> = got
            .iter()
            .filter(|(l, _)| !l)
            .flat_map(|(_, b)| b.clone())
            .collect();
        assert_eq!(raw, b"0123456789\n");
        assert_eq!(got.last().unwrap(), &(true, b"ok\n".to_vec()));
    }
}
