//! The observer beside the forwarding path: the forwarding threads hand it
//! copies of what they forwarded through a bounded queue; it frames them
//! into lines and appends them to the trace (which records and is checked).
//!
//! Forwarding never waits for it: when the queue is full the copy is
//! dropped and counted, the observer is told how many bytes are missing
//! before the next piece it gets, and the trace says so
//! (`observer-behind`). The line that gap cut through is not stored, and
//! all of it counts as missing — the part observed before the gap and the
//! part after it as well as the dropped bytes — so every byte forwarded is
//! either in the trace or in an `observer-behind` event.

use crate::event::Event;
use crate::trace::{Dir, Trace};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};

/// The trace channel of a stdio proxy's frames.
pub const CHANNEL: &str = "stdio";

/// Bytes waiting for the observer, at most, for a store bound of
/// `max_store`: a quarter of it (the store holds the same bytes again once
/// observed), so a burst the store can hold is not lost on the way to it.
/// `MCPSCOPE_PROXY_QUEUE` (bytes) sets it, for tests.
pub fn max_queued(max_store: usize) -> usize {
    std::env::var("MCPSCOPE_PROXY_QUEUE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(max_store / 4)
}
/// Pieces waiting for the observer, at most (each is one read, ≤ 1 MiB).
const QUEUE_PIECES: usize = 16_384;
/// Recorded batches (≤ 1 MiB of lines each) waiting for the disk, at most,
/// before the observer waits for it: its memory is then its own queue's,
/// which is bounded by the store's size and counts what it cannot keep,
/// rather than lines held for the disk.
const DISK_BACKLOG: usize = 8;

/// Which stream a piece was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    HostToServer = 0,
    ServerToHost = 1,
    Stderr = 2,
}

impl Side {
    pub fn label(self) -> &'static str {
        match self {
            Side::HostToServer => "host→server",
            Side::ServerToHost => "server→host",
            Side::Stderr => "stderr",
        }
    }
}

enum Piece {
    Bytes {
        side: Side,
        t_us: u64,
        /// Bytes of this side dropped since the previous piece that was kept.
        gap: u64,
        /// The dropped bytes ended with a line break: this piece starts a line.
        gap_ends_line: bool,
        bytes: Vec<u8>,
    },
    /// The side reached its end (after `gap` more dropped bytes).
    End { side: Side, gap: u64 },
    /// An event to record after what came before it (what `--faults`
    /// changed, after the piece holding the message it changed).
    Event { t_us: u64, event: Box<Event> },
    /// The session is over: keep what came before, stop.
    Stop,
}

/// What the observer could not keep, per side (bytes).
#[derive(Default)]
pub struct Lost([AtomicU64; 3]);

impl Lost {
    pub fn get(&self, side: Side) -> u64 {
        self.0[side as usize].load(Ordering::Relaxed)
    }
    fn add(&self, side: Side, n: u64) {
        self.0[side as usize].fetch_add(n, Ordering::Relaxed);
    }
    pub fn total(&self) -> u64 {
        self.0.iter().map(|a| a.load(Ordering::Relaxed)).sum()
    }
}

/// The handle a forwarding thread offers its copies through (one per side:
/// each side's pieces stay in their order, and a gap is told to the
/// observer with the next piece of the same side).
pub struct Feed {
    side: Side,
    tx: SyncSender<Piece>,
    queued: Arc<AtomicUsize>,
    max_queued: usize,
    lost: Arc<Lost>,
    gap: u64,
    gap_ends_line: bool,
    trace: Trace,
}

impl Feed {
    /// Offer a copy of `bytes`, just forwarded. Never blocks.
    pub fn offer(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        if self.queued.load(Ordering::Relaxed) + n > self.max_queued {
            return self.drop_piece(bytes);
        }
        let piece = Piece::Bytes {
            side: self.side,
            t_us: self.trace.now_us(),
            gap: self.gap,
            gap_ends_line: self.gap_ends_line,
            bytes: bytes.to_vec(),
        };
        self.queued.fetch_add(n, Ordering::Relaxed);
        match self.tx.try_send(piece) {
            Ok(()) => self.gap = 0,
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.queued.fetch_sub(n, Ordering::Relaxed);
                self.drop_piece(bytes);
            }
        }
    }

    /// Record `event` after the pieces offered so far. Waits for room:
    /// what the proxy changed is never left out of the trace (this is
    /// only used with `--faults`, where the copying is no longer free).
    pub fn record(&mut self, event: Event) {
        let t_us = self.trace.now_us();
        if let Err(e) = self.tx.send(Piece::Event {
            t_us,
            event: Box::new(event),
        }) {
            // The observer has stopped: the trace is closing; append as is.
            if let Piece::Event { t_us, event } = e.0 {
                self.trace
                    .append(|s, _| s.append_event(CHANNEL, t_us, &event));
            }
        }
    }

    /// The trace's clock now, in µs.
    pub fn now_us(&self) -> u64 {
        self.trace.now_us()
    }

    fn drop_piece(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        self.gap_ends_line = bytes.last() == Some(&b'\n');
        self.gap += n as u64;
        self.lost.add(self.side, n as u64);
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        // The forwarding of this side is over: waiting for room costs the
        // peer nothing now.
        let _ = self.tx.send(Piece::End {
            side: self.side,
            gap: self.gap,
        });
    }
}

/// The observer thread and the feeds into it.
pub struct Observer {
    thread: Option<std::thread::JoinHandle<()>>,
    /// For `Stop`: a side may never end (a host that keeps its stdin open
    /// after the server is gone), and the observer must not wait for it.
    tx: SyncSender<Piece>,
    pub lost: Arc<Lost>,
}

impl Observer {
    /// Start observing into `trace`; frames longer than `max_frame` are cut
    /// as the transports cut them. Returns the feeds for host→server,
    /// server→host and stderr.
    pub fn start(trace: Trace, max_frame: usize, max_queued: usize) -> (Observer, [Feed; 3]) {
        let (tx, rx) = sync_channel(QUEUE_PIECES);
        let queued = Arc::new(AtomicUsize::new(0));
        let lost = Arc::new(Lost::default());
        let feed = |side| Feed {
            side,
            tx: tx.clone(),
            queued: queued.clone(),
            max_queued,
            lost: lost.clone(),
            gap: 0,
            gap_ends_line: false,
            trace: trace.clone(),
        };
        let feeds = [
            feed(Side::HostToServer),
            feed(Side::ServerToHost),
            feed(Side::Stderr),
        ];
        let lost_seen = lost.clone();
        #[allow(
            clippy::expect_used,
            reason = "std::thread::spawn panics the same way: the OS has no thread to give"
        )]
        let thread = std::thread::Builder::new()
            .name("proxy-observer".into())
            .spawn(move || {
                // Forwarding comes first: on a busy machine the copying
                // threads get the CPU, and the observer catches up after a
                // burst (its queue holds it) instead of slowing it. The
                // store's helper threads it starts inherit this.
                crate::priority::lower_this_thread();
                observe(&trace, &rx, &queued, &lost_seen, max_frame)
            })
            .expect("spawn observer thread");
        (
            Observer {
                thread: Some(thread),
                tx,
                lost,
            },
            feeds,
        )
    }

    /// Wait until every piece offered so far is in the trace, then stop
    /// (what is offered later is not observed).
    pub fn finish(mut self) {
        let _ = self.tx.send(Piece::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn observe(
    trace: &Trace,
    rx: &Receiver<Piece>,
    queued: &AtomicUsize,
    lost: &Lost,
    max_frame: usize,
) {
    let mut framers = [
        Framer::new(max_frame),
        Framer::new(max_frame),
        Framer::new(max_frame),
    ];
    let mut out = Vec::new();
    let backlog = trace.read().recorder_backlog();
    while let Ok(piece) = rx.recv() {
        if let Some(b) = &backlog {
            b.wait_below(DISK_BACKLOG);
        }
        let (side, t_us, gap, at_line, bytes, end) = match piece {
            Piece::Stop => {
                // Lines cut short by the end are frames too.
                let t_us = trace.now_us();
                for (i, f) in framers.iter_mut().enumerate() {
                    let side = [Side::HostToServer, Side::ServerToHost, Side::Stderr][i];
                    out.clear();
                    f.finish(&mut out);
                    store(trace, lost, side, t_us, f, &out);
                }
                return;
            }
            Piece::Bytes {
                side,
                t_us,
                gap,
                gap_ends_line,
                bytes,
            } => {
                queued.fetch_sub(bytes.len(), Ordering::Relaxed);
                (side, t_us, gap, gap_ends_line, bytes, false)
            }
            Piece::End { side, gap } => (side, trace.now_us(), gap, true, Vec::new(), true),
            Piece::Event { t_us, event } => {
                trace.append(|s, _| s.append_event(CHANNEL, t_us, &event));
                continue;
            }
        };
        let f = &mut framers[side as usize];
        out.clear();
        if gap > 0 {
            f.lose(gap, at_line, &mut out);
        }
        f.push(&bytes, &mut out);
        if end {
            f.finish(&mut out);
        }
        store(trace, lost, side, t_us, f, &out);
    }
}

/// Append what framing one piece gave: its lines, and for each stretch of
/// the stream that could not be kept, an `observer-behind` event with its
/// length. Bytes that were observed but had to be thrown away with a lost
/// line count as lost too.
fn store(trace: &Trace, lost: &Lost, side: Side, t_us: u64, f: &mut Framer, out: &[Framed]) {
    lost.add(side, f.take_discarded());
    if out.is_empty() {
        return;
    }
    trace.append(|s, _| {
        for item in out {
            match item {
                Framed::Line(l) => append_line(s, side, t_us, l),
                Framed::Missing(bytes) => {
                    let ev = Event::ObserverBehind {
                        stream: side.label().into(),
                        bytes: *bytes,
                        exchanges: 0,
                    };
                    s.append_event(CHANNEL, t_us, &ev);
                }
            }
        }
    });
}

fn append_line(s: &mut crate::trace::Store, side: Side, t_us: u64, l: &Line) {
    let dir = match side {
        Side::HostToServer => Dir::Out,
        Side::ServerToHost => Dir::In,
        Side::Stderr => {
            s.append_stderr(CHANNEL, t_us, &l.bytes);
            if let Some(total) = l.cut {
                let mut ev = Event::oversized(l.bytes.len(), total, None);
                if let Event::Oversized { stream, .. } = &mut ev {
                    *stream = Some("stderr".into());
                }
                s.append_event(CHANNEL, t_us, &ev);
            }
            return;
        }
    };
    match l.cut {
        None => {
            s.append_frame(dir, CHANNEL, t_us, &l.bytes, &mut Vec::new());
        }
        Some(total) => {
            let seq = s.append_cut(dir, CHANNEL, t_us, &l.bytes);
            s.append_event(
                CHANNEL,
                t_us,
                &Event::oversized(l.bytes.len(), total, Some(seq)),
            );
        }
    }
}

/// One line as stored: without its terminator (and a CR before it), cut
/// to the frame cap (`cut` then holds its full length).
#[derive(Debug, PartialEq)]
pub struct Line {
    pub bytes: Vec<u8>,
    pub cut: Option<u64>,
}

/// What framing gives, in stream order.
#[derive(Debug, PartialEq)]
pub enum Framed {
    Line(Line),
    /// This many bytes of the stream are not in the trace: bytes dropped
    /// before the observer got them, with the rest of the line they cut
    /// through (its terminator included).
    Missing(u64),
}

/// Incremental newline framing of one stream, as `transport::lines` frames
/// a whole reader: CRLF tolerated, a last line without terminator kept,
/// lines over the cap cut with their length counted, not held.
pub struct Framer {
    partial: Vec<u8>,
    /// Length of the current line so far, held or not.
    seen: u64,
    max: usize,
    /// The current line began before a gap: it is not stored.
    lost: bool,
    /// Bytes of the stretch being lost so far (the gaps and what the lost
    /// line holds around them), said once the lost line ends.
    missing: u64,
    /// Bytes that reached the framer and were thrown away with a lost line.
    discarded: u64,
}

impl Framer {
    pub fn new(max: usize) -> Framer {
        Framer {
            partial: Vec::new(),
            seen: 0,
            max: max.max(1),
            lost: false,
            missing: 0,
            discarded: 0,
        }
    }

    /// `gap` bytes are missing before the next ones: the line in progress
    /// is incomplete and dropped; unless the missing bytes ended a line
    /// (`at_line_start`), so is the line the next bytes continue, up to its
    /// end. The whole stretch is said as one `Missing` once it is over.
    pub fn lose(&mut self, gap: u64, at_line_start: bool, out: &mut Vec<Framed>) {
        if !self.lost {
            // What was held of the line so far goes with it.
            self.missing += self.seen;
            self.discarded += self.seen;
        }
        self.missing += gap;
        self.partial.clear();
        self.seen = 0;
        self.lost = true;
        if at_line_start {
            self.end_loss(out);
        }
    }

    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<Framed>) {
        while let Some(nl) = memchr::memchr(b'\n', bytes) {
            self.take(&bytes[..nl]);
            self.emit(out);
            bytes = &bytes[nl + 1..];
        }
        self.take(bytes);
    }

    /// The stream ended: a last line without terminator is a frame too.
    pub fn finish(&mut self, out: &mut Vec<Framed>) {
        if self.lost {
            self.end_loss(out);
        } else if self.seen > 0 {
            self.emit(out);
        }
    }

    /// Observed bytes thrown away since the last call.
    pub fn take_discarded(&mut self) -> u64 {
        std::mem::take(&mut self.discarded)
    }

    fn take(&mut self, b: &[u8]) {
        self.seen += b.len() as u64;
        if self.lost {
            self.missing += b.len() as u64;
            self.discarded += b.len() as u64;
            return;
        }
        // One byte past the cap tells a line of exactly `max` (plus a CR)
        // from a longer one.
        let room = (self.max + 1).saturating_sub(self.partial.len());
        self.partial.extend_from_slice(&b[..b.len().min(room)]);
    }

    fn emit(&mut self, out: &mut Vec<Framed>) {
        if self.lost {
            // The lost line's terminator is missing from the trace too.
            self.missing += 1;
            self.discarded += 1;
            self.seen = 0;
            self.end_loss(out);
            return;
        }
        let mut seen = self.seen;
        let mut bytes = std::mem::take(&mut self.partial);
        // The CR of a CRLF is not part of the frame.
        if seen as usize == bytes.len() && bytes.last() == Some(&b'\r') {
            bytes.pop();
            seen -= 1;
        }
        let cut = if seen > self.max as u64 {
            bytes.truncate(self.max);
            Some(seen)
        } else {
            None
        };
        out.push(Framed::Line(Line { bytes, cut }));
        self.seen = 0;
    }

    fn end_loss(&mut self, out: &mut Vec<Framed>) {
        if self.missing > 0 {
            out.push(Framed::Missing(self.missing));
        }
        self.missing = 0;
        self.lost = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(data: &[u8], step: usize, max: usize) -> Vec<(Vec<u8>, Option<u64>)> {
        let mut f = Framer::new(max);
        let mut out = Vec::new();
        for c in data.chunks(step) {
            f.push(c, &mut out);
        }
        f.finish(&mut out);
        out.into_iter()
            .map(|item| match item {
                Framed::Line(l) => (l.bytes, l.cut),
                Framed::Missing(n) => panic!("{n} bytes missing without a gap"),
            })
            .collect()
    }

    #[test]
    fn frames_like_the_transport_however_the_bytes_are_split() {
        let data = b"a\r\nbb\n\n\r\n\xff\xfe\nccc";
        for step in [1, 2, 3, 100] {
            let got = frame(data, step, 1 << 20);
            let want: Vec<(Vec<u8>, Option<u64>)> =
                [&b"a"[..], b"bb", b"", b"", b"\xff\xfe", b"ccc"]
                    .iter()
                    .map(|b| (b.to_vec(), None))
                    .collect();
            assert_eq!(got, want, "step {step}");
        }
    }

    #[test]
    fn a_line_over_the_cap_is_cut_and_its_length_counted() {
        let mut data = vec![b'y'; 5000];
        data.extend_from_slice(b"\nok\n");
        data.extend(vec![b'e'; 10]);
        data.extend_from_slice(b"\r\n");
        for step in [1, 7, 4096] {
            let got = frame(&data, step, 10);
            assert_eq!(
                got,
                vec![
                    (vec![b'y'; 10], Some(5000)),
                    (b"ok".to_vec(), None),
                    // Exactly at the cap, CR removed: whole.
                    (vec![b'e'; 10], None),
                ],
                "step {step}"
            );
        }
    }

    #[test]
    fn a_gap_drops_the_line_it_cut_through_and_counts_all_of_it() {
        let mut f = Framer::new(1 << 20);
        let mut out = Vec::new();
        // "two-rest\n" lost 3 bytes in the middle: "tw" seen, "o-r" dropped.
        f.push(b"one\ntw", &mut out);
        f.lose(3, false, &mut out);
        f.push(b"est\nthree\nfo", &mut out);
        // The missing bytes ("ur\n") ended a line: what follows starts one.
        f.lose(3, true, &mut out);
        f.push(b"five\nsi", &mut out);
        // Lost to the end of the stream: "six" without its terminator.
        f.lose(1, false, &mut out);
        f.finish(&mut out);
        let line = |b: &[u8]| {
            Framed::Line(Line {
                bytes: b.to_vec(),
                cut: None,
            })
        };
        assert_eq!(
            out,
            vec![
                line(b"one"),
                Framed::Missing("two-rest\n".len() as u64),
                line(b"three"),
                Framed::Missing("four\n".len() as u64),
                line(b"five"),
                Framed::Missing("si".len() as u64 + 1),
            ]
        );
        // What reached the framer and was thrown away: "tw", "est\n", "fo", "si".
        assert_eq!(f.take_discarded(), 2 + 4 + 2 + 2);
        assert_eq!(f.take_discarded(), 0);
    }

    #[test]
    fn a_long_line_a_gap_cut_through_is_counted_whole_however_long() {
        // The start observed, the middle dropped, the end observed: a
        // 400 MiB line is 400 MiB missing, not the dropped middle alone.
        let mut f = Framer::new(1024);
        let mut out = Vec::new();
        let piece = vec![b'x'; 1 << 20];
        for _ in 0..200 {
            f.push(&piece, &mut out);
        }
        f.lose(1 << 20, false, &mut out);
        for _ in 0..199 {
            f.push(&piece, &mut out);
        }
        f.push(b"\nnext\n", &mut out);
        assert_eq!(
            out,
            vec![
                Framed::Missing((400 << 20) + 1),
                Framed::Line(Line {
                    bytes: b"next".to_vec(),
                    cut: None
                }),
            ]
        );
    }

    #[test]
    fn a_full_queue_counts_what_it_dropped_and_tells_the_trace() {
        let trace = Trace::new(
            crate::trace::Store::default(),
            crate::trace::ManualClock::new(),
        );
        let (tx, rx) = sync_channel(1);
        let queued = Arc::new(AtomicUsize::new(0));
        let lost = Arc::new(Lost::default());
        let mut feed = Feed {
            side: Side::ServerToHost,
            tx,
            queued: queued.clone(),
            max_queued: 1 << 20,
            lost: lost.clone(),
            gap: 0,
            gap_ends_line: false,
            trace: trace.clone(),
        };
        // The queue holds one piece: the second and third are dropped.
        feed.offer(b"{\"a\":1}\n{\"b\"");
        feed.offer(b":2}\n");
        feed.offer(b"{\"c\":3}\n");
        assert_eq!(lost.get(Side::ServerToHost), 12);
        let t = trace.clone();
        let q = queued.clone();
        let l = lost.clone();
        let th = std::thread::spawn(move || observe(&t, &rx, &q, &l, 1 << 20));
        // Once there is room again the next piece goes through, telling the
        // gap before it (sent waiting here, so the test does not race the
        // observer for the room).
        let d = b"{\"d\":4}\n".to_vec();
        queued.fetch_add(d.len(), Ordering::Relaxed);
        let piece = Piece::Bytes {
            side: Side::ServerToHost,
            t_us: 0,
            gap: feed.gap,
            gap_ends_line: feed.gap_ends_line,
            bytes: d,
        };
        feed.tx.send(piece).unwrap();
        feed.gap = 0;
        drop(feed);
        th.join().unwrap();
        let s = trace.read();
        let texts: Vec<String> = s.range(0, s.next_seq()).map(|e| e.text().into()).collect();
        assert_eq!(texts.len(), 3, "{texts:?}");
        assert_eq!(texts[0], "{\"a\":1}");
        // `{"b"` lost its end to the gap: not stored as a frame, and its 4
        // bytes count as missing with the 12 dropped.
        assert!(texts[1].contains("observer-behind") && texts[1].contains("\"bytes\":16"));
        assert_eq!(texts[2], "{\"d\":4}");
        assert_eq!(queued.load(Ordering::Relaxed), 0);
        assert_eq!(lost.get(Side::ServerToHost), 16);
    }
}
