//! What a proxy holds at a breakpoint: the filter in force, the held
//! messages, and the way to each stream's receiver. On stdio it lives
//! inside the fault engine (behind its lock), so a message is tested in
//! the order it was read, by the same matcher that follows the calls, and
//! the controller's forward goes to the same writer as the rest. Over HTTP
//! (`super::http`) each held message carries `W`, the way back to the
//! exchange that waits for it.

use crate::filter::{CallIndex, Filter};
use crate::intercept::protocol::{MAX_HELD, Report, Side};
use crate::proxy::faults::Stream;
use crate::trace::EventRef;
use std::collections::BTreeMap;
use std::sync::mpsc::SyncSender;
use std::time::Instant;

/// One held message, with its line break (stdio), and what waits for it
/// (`W`: nothing on stdio, the exchange over HTTP).
pub struct Held<W = ()> {
    pub stream: Stream,
    pub raw: Vec<u8>,
    pub at: Instant,
    pub waiter: W,
}

impl<W> Held<W> {
    /// The message without its line break.
    pub fn body(&self) -> &[u8] {
        body(&self.raw)
    }

    /// The `injected` event of its release: `action` (`hold`, `edit`,
    /// `drop`), `then` what became of it, `sent` what went in its place.
    pub fn released(
        &self,
        action: &str,
        then: &str,
        sent: Option<&[u8]>,
        max_frame: usize,
    ) -> crate::event::Event {
        let held = crate::format::duration_prose(self.at.elapsed().as_micros() as u64);
        let detail = format!("held at a breakpoint for {held}, then {then}");
        super::injected(action, self.stream, self.body(), sent, detail, max_frame)
    }
}

/// `raw` without its line break (and a CR before it).
pub fn body(raw: &[u8]) -> &[u8] {
    let b = raw.strip_suffix(b"\n").unwrap_or(raw);
    b.strip_suffix(b"\r").unwrap_or(b)
}

/// Where a stream's lines are written: its writer thread's queue.
pub type Writer = SyncSender<(Instant, Vec<u8>)>;

pub struct Breakpoints<W = ()> {
    filter: Option<Filter>,
    /// The requests seen since the proxy started, whatever the breakpoint
    /// (`tool`, `token`, `call`): a breakpoint set while a call is under
    /// way knows its tool.
    calls: CallIndex,
    held: BTreeMap<u64, Held<W>>,
    next: u64,
    writers: [Option<Writer>; 2],
    /// The connected controller.
    reports: Option<tokio::sync::mpsc::UnboundedSender<Report>>,
    /// Messages a breakpoint selected that passed: `MAX_HELD` were held.
    pub passed_full: u64,
}

pub fn side_of(stream: Stream) -> Side {
    match stream {
        Stream::HostToServer => Side::Server,
        Stream::ServerToHost => Side::Host,
    }
}

pub fn stream_to(side: Side) -> Stream {
    match side {
        Side::Server => Stream::HostToServer,
        Side::Host => Stream::ServerToHost,
    }
}

// Not derived: a derived `Default` would ask it of `W` too.
impl<W> Default for Breakpoints<W> {
    fn default() -> Self {
        Breakpoints {
            filter: None,
            calls: CallIndex::default(),
            held: BTreeMap::new(),
            next: 0,
            writers: [None, None],
            reports: None,
            passed_full: 0,
        }
    }
}

impl Breakpoints<()> {
    /// Hold `raw` (read from `stream`), and say so.
    pub fn hold(&mut self, stream: Stream, raw: &[u8]) {
        self.hold_with(stream, raw, ());
    }
}

impl<W> Breakpoints<W> {
    /// The filter source in force.
    pub fn filter(&self) -> Option<String> {
        self.filter.as_ref().map(|f| f.source().to_string())
    }

    /// A breakpoint is set.
    pub fn is_set(&self) -> bool {
        self.filter.is_some()
    }

    /// Hold what `filter` selects from now on (`None`: nothing more).
    pub fn set(&mut self, filter: Option<Filter>) {
        self.filter = filter;
    }

    /// Whether message `ev` is to be held. Every message that may be a
    /// request comes here, breakpoint or not (a line without `"id"` is no
    /// request: the stdio engine may pass it untested), so the calls are
    /// followed from the start.
    pub fn selects(&mut self, ev: &EventRef<'_>) -> bool {
        self.calls.observe(ev);
        let Some(f) = self.filter.as_ref() else {
            return false;
        };
        if !f.matches(ev, &self.calls) {
            return false;
        }
        if self.held.len() >= MAX_HELD {
            self.passed_full += 1;
            self.tell(Report::Error {
                message: format!(
                    "{MAX_HELD} messages are held: one more the breakpoint selects passed ({} so far)",
                    self.passed_full
                ),
            });
            return false;
        }
        true
    }

    /// Hold `raw` (read from `stream`) for `waiter`, and say so; its id.
    pub fn hold_with(&mut self, stream: Stream, raw: &[u8], waiter: W) -> u64 {
        self.next += 1;
        let id = self.next;
        self.held.insert(
            id,
            Held {
                stream,
                raw: raw.to_vec(),
                at: Instant::now(),
                waiter,
            },
        );
        self.tell(held_report(id, stream, raw, 0));
        id
    }

    /// Take held message `id`.
    pub fn take(&mut self, id: u64) -> Option<Held<W>> {
        self.held.remove(&id)
    }

    /// Hold `h` again as `id` (it could not be sent).
    pub fn put_back(&mut self, id: u64, h: Held<W>) {
        self.held.insert(id, h);
    }

    /// Every held message, oldest first.
    pub fn take_all(&mut self) -> Vec<(u64, Held<W>)> {
        std::mem::take(&mut self.held).into_iter().collect()
    }

    /// The held messages of `stream`, which has ended.
    pub fn take_stream(&mut self, stream: Stream) -> Vec<(u64, Held<W>)> {
        self.take_if(|h| h.stream == stream)
    }

    /// The held messages `f` selects, oldest first.
    pub fn take_if(&mut self, f: impl Fn(&Held<W>) -> bool) -> Vec<(u64, Held<W>)> {
        let ids: Vec<u64> = self
            .held
            .iter()
            .filter(|(_, h)| f(h))
            .map(|(id, _)| *id)
            .collect();
        ids.into_iter()
            .filter_map(|id| self.held.remove(&id).map(|h| (id, h)))
            .collect()
    }

    /// A controller connected: it is told what is in force and held.
    pub fn connect(&mut self, reports: tokio::sync::mpsc::UnboundedSender<Report>) {
        let _ = reports.send(Report::Breakpoint {
            filter: self.filter(),
        });
        for (id, h) in &self.held {
            let age = h.at.elapsed().as_millis() as u64;
            let _ = reports.send(held_report(*id, h.stream, &h.raw, age));
        }
        self.reports = Some(reports);
    }

    pub fn disconnect(&mut self) {
        self.reports = None;
    }

    pub fn tell(&self, r: Report) {
        if let Some(tx) = &self.reports {
            let _ = tx.send(r);
        }
    }

    /// `stream`'s writer, while it is open.
    pub fn open_writer(&mut self, stream: Stream, w: Writer) {
        self.writers[stream as usize] = Some(w);
    }

    /// `stream` is closing: its writer must be let go, or it never ends.
    pub fn close_writer(&mut self, stream: Stream) {
        self.writers[stream as usize] = None;
    }

    /// `stream`'s writer, while the stream is open: what is written to it
    /// goes after what went before.
    pub fn writer(&self, stream: Stream) -> Option<Writer> {
        self.writers[stream as usize].clone()
    }
}

fn held_report(id: u64, stream: Stream, raw: &[u8], age_ms: u64) -> Report {
    let text = body(raw);
    Report::Held {
        id,
        to: side_of(stream),
        message: String::from_utf8_lossy(text).into_owned(),
        age_ms,
    }
}
