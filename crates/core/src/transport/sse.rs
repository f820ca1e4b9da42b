//! Incremental Server-Sent Events parser (WHATWG "event stream
//! interpretation"): tolerant of CR, LF and CRLF, of events split across
//! reads, of a byte order mark opening the stream, and of priming events
//! that carry an id but no data.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, `message` when absent.
    pub event: String,
    /// The data lines joined by `\n`; `None` for an event without data
    /// (a priming event: it only moves the last event id).
    pub data: Option<String>,
    /// The `id:` field of this event, if it had one.
    pub id: Option<String>,
    /// A `retry:` field seen in this event (milliseconds).
    pub retry_ms: Option<u64>,
    /// The event's data was over the size cap: `data` holds its first bytes,
    /// this its full length (at least).
    pub oversized: Option<u64>,
}

/// Room for the field name (`data: `) on top of a capped value.
const FIELD_ROOM: usize = 16;

/// U+FEFF in UTF-8: one at the very start of a stream is not part of it
/// (WHATWG: "One leading U+FEFF BYTE ORDER MARK character must be ignored").
const BOM: &[u8] = b"\xEF\xBB\xBF";

pub struct SseParser {
    /// Cap on one line and on one event's data (`lines::max_frame`).
    max: usize,
    buf: Vec<u8>,
    /// Bytes of the current line, including those beyond the cap (not held).
    line_len: u64,
    /// A CR ended the last line: a following LF belongs to it.
    after_cr: bool,
    event: String,
    data: Vec<String>,
    /// Bytes the data lines of this event had (joined), held or not.
    data_len: u64,
    /// Bytes of data held (≤ `max`).
    data_kept: usize,
    has_data: bool,
    id: Option<String>,
    retry_ms: Option<u64>,
    has_fields: bool,
    /// At the start of a stream: how many bytes of a byte order mark have
    /// been seen (held back until it is clear whether they are one).
    /// `None` once the stream is past its start.
    bom: Option<usize>,
    /// Bytes were lost before the current event: it is not dispatched.
    skip: bool,
    /// The stream's last event id (persists across events, as in the spec).
    pub last_event_id: Option<String>,
}

impl Default for SseParser {
    fn default() -> Self {
        SseParser::with_cap(crate::transport::lines::max_frame())
    }
}

impl SseParser {
    pub fn new() -> SseParser {
        SseParser::default()
    }

    /// A parser holding at most `max` bytes of a line or of an event's data.
    pub fn with_cap(max: usize) -> SseParser {
        SseParser {
            max: max.max(1),
            buf: Vec::new(),
            line_len: 0,
            after_cr: false,
            event: String::new(),
            data: Vec::new(),
            data_len: 0,
            data_kept: 0,
            has_data: false,
            id: None,
            retry_ms: None,
            has_fields: false,
            bom: Some(0),
            skip: false,
            last_event_id: None,
        }
    }

    /// Feed bytes; returns the events completed by them.
    pub fn feed(&mut self, mut bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        if let Some(seen) = self.bom {
            // The mark may arrive split across reads.
            let n = (BOM.len() - seen).min(bytes.len());
            if bytes[..n] == BOM[seen..seen + n] {
                if seen + n < BOM.len() {
                    self.bom = Some(seen + n);
                    return out;
                }
                bytes = &bytes[n..];
            } else {
                // Not a mark after all: what was held back is data.
                self.bytes(&BOM[..seen], &mut out);
            }
            self.bom = None;
        }
        self.bytes(bytes, &mut out);
        out
    }

    fn bytes(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) {
        for &b in bytes {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' => self.line(out),
                b'\r' => {
                    self.after_cr = true;
                    self.line(out);
                }
                _ => {
                    // An endless line cannot grow without bound: past the
                    // cap it is counted, not held, until it ends.
                    self.line_len += 1;
                    if self.buf.len() < self.max + FIELD_ROOM {
                        self.buf.push(b);
                    }
                }
            }
        }
    }

    /// Bytes of the stream were lost before the next ones fed (an observer
    /// that fell behind): the event they cut through is not dispatched.
    /// Unless the lost bytes ended an event (`at_event`), what follows up
    /// to the next blank line is the rest of that event, dropped with it.
    pub fn lose(&mut self, at_event: bool) {
        self.buf.clear();
        self.line_len = 0;
        self.after_cr = false;
        self.bom = None;
        self.reset();
        self.skip = !at_event;
    }

    /// Bytes held for the event in progress (a line, the data so far).
    pub fn held(&self) -> usize {
        self.buf.len() + self.data_kept
    }

    /// The stream ended: an event without its blank line is dropped (per spec),
    /// but reported here so nothing the server sent goes unseen.
    /// The parser is then ready for the next stream (a reconnection), which
    /// may open with a byte order mark of its own.
    pub fn finish(&mut self) -> Option<String> {
        if let Some(seen) = self.bom.take() {
            // A stream of a mark's first bytes only: they were data.
            self.bytes(&BOM[..seen], &mut Vec::new());
        }
        // The rest of an event whose start was lost is no partial event.
        let partial = if std::mem::take(&mut self.skip) {
            None
        } else if self.has_fields || !self.buf.is_empty() {
            let mut s = self.data.join("\n");
            if !self.buf.is_empty() {
                if !s.is_empty() {
                    s.push('\n');
                }
                s.push_str(&String::from_utf8_lossy(&self.buf));
            }
            Some(s)
        } else {
            None
        };
        self.buf.clear();
        self.line_len = 0;
        self.after_cr = false;
        self.bom = Some(0);
        self.reset();
        partial
    }

    fn reset(&mut self) {
        self.event.clear();
        self.data.clear();
        self.data_len = 0;
        self.data_kept = 0;
        self.has_data = false;
        self.id = None;
        self.retry_ms = None;
        self.has_fields = false;
    }

    fn line(&mut self, out: &mut Vec<SseEvent>) {
        let line = String::from_utf8_lossy(&self.buf).into_owned();
        let dropped = self.line_len.saturating_sub(self.buf.len() as u64);
        self.buf.clear();
        self.line_len = 0;
        if line.is_empty() {
            if std::mem::take(&mut self.skip) {
                self.reset();
                return;
            }
            if let Some(id) = &self.id {
                self.last_event_id = Some(id.clone());
            }
            if self.has_fields {
                out.push(SseEvent {
                    event: if self.event.is_empty() {
                        "message".into()
                    } else {
                        std::mem::take(&mut self.event)
                    },
                    data: self.has_data.then(|| self.data.join("\n")),
                    id: self.id.take(),
                    retry_ms: self.retry_ms.take(),
                    oversized: (self.data_len > self.data_kept as u64).then_some(self.data_len),
                });
            }
            self.reset();
            return;
        }
        if line.starts_with(':') {
            return; // comment / keep-alive
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f.to_string(), v.strip_prefix(' ').unwrap_or(v).to_string()),
            None => (line, String::new()),
        };
        self.has_fields = true;
        match field.as_str() {
            "event" => self.event = value,
            "data" => {
                // Joined with '\n' between lines, as dispatched.
                let sep = usize::from(self.has_data);
                self.data_len += (sep + value.len()) as u64 + dropped;
                let room = self.max.saturating_sub(self.data_kept + sep);
                let mut value = value;
                if value.len() > room {
                    let mut cut = room;
                    while !value.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    value.truncate(cut);
                }
                if self.data_kept + sep <= self.max {
                    self.data_kept += sep + value.len();
                    self.data.push(value);
                }
                self.has_data = true;
            }
            // The stream's last event id moves only when the event is
            // dispatched: an event cut before its blank line must be replayed.
            "id" if !value.contains('\0') => self.id = Some(value),
            "retry" => self.retry_ms = value.parse().ok(),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_anywhere_with_any_line_ending() {
        let stream = b"id: 1\r\ndata:\r\n\r\n: keepalive\nevent: message\ndata: {\"a\":1}\nid: 2\n\nretry: 1500\rdata: x\rdata: y\r\r";
        for step in [1, 2, 5, stream.len()] {
            let mut p = SseParser::new();
            let mut evs = Vec::new();
            for chunk in stream.chunks(step) {
                evs.extend(p.feed(chunk));
            }
            assert_eq!(evs.len(), 3, "step {step}");
            assert_eq!(
                evs[0].data.as_deref(),
                Some(""),
                "a priming event has an id and empty data"
            );
            assert_eq!(evs[0].id.as_deref(), Some("1"));
            assert_eq!(evs[1].data.as_deref(), Some("{\"a\":1}"));
            assert_eq!(evs[1].id.as_deref(), Some("2"));
            assert_eq!(evs[2].data.as_deref(), Some("x\ny"));
            assert_eq!(evs[2].retry_ms, Some(1500));
            assert_eq!(p.last_event_id.as_deref(), Some("2"));
        }
    }

    #[test]
    fn id_only_and_cut_streams() {
        let mut p = SseParser::new();
        let evs = p.feed(b"id: 7\n\nevent: endpoint\ndata: /messages?s=1\n\ndata: {\"cut");
        assert_eq!(
            evs[0],
            SseEvent {
                event: "message".into(),
                data: None,
                id: Some("7".into()),
                retry_ms: None,
                oversized: None
            }
        );
        assert_eq!(evs[1].event, "endpoint");
        assert_eq!(
            p.finish().as_deref(),
            Some("data: {\"cut"),
            "the unfinished line is kept verbatim"
        );
        assert_eq!(p.finish(), None);
    }

    #[test]
    fn a_byte_order_mark_opening_the_stream_is_not_part_of_it() {
        let stream = "\u{FEFF}data: {\"a\":1}\n\n\u{FEFF}data: 2\n\n";
        for step in [1, 2, 3, 4, stream.len()] {
            let mut p = SseParser::new();
            let mut evs = Vec::new();
            for chunk in stream.as_bytes().chunks(step) {
                evs.extend(p.feed(chunk));
            }
            let data: Vec<Option<&str>> = evs.iter().map(|e| e.data.as_deref()).collect();
            // Only the first: later, the character is part of a field name.
            assert_eq!(data, vec![Some("{\"a\":1}"), None], "step {step}");
        }
        // The start of a mark that is not one is data; so is a mark's start
        // ending the stream.
        let mut p = SseParser::new();
        assert!(p.feed(b"\xEF\xBB").is_empty());
        let evs = p.feed(b"x: 1\ndata: y\n\n");
        assert_eq!(evs.len(), 1);
        assert_eq!(evs[0].data.as_deref(), Some("y"));
        let mut p = SseParser::new();
        assert!(p.feed(b"\xEF").is_empty());
        assert_eq!(p.finish().as_deref(), Some("\u{FFFD}"));
        // A stream resumed after `finish` may open with a mark of its own.
        let evs = p.feed("\u{FEFF}id: 3\ndata: z\n\n".as_bytes());
        assert_eq!(evs[0].data.as_deref(), Some("z"));
        assert_eq!(p.last_event_id.as_deref(), Some("3"));
    }

    #[test]
    fn lost_bytes_drop_the_event_they_cut_through_and_nothing_else() {
        let mut p = SseParser::new();
        let mut evs = p.feed(b"data: 1\n\ndata: {\"cut");
        // Lost: `":2}\n\ndata: 3\n`; the rest of event 3 follows.
        p.lose(false);
        evs.extend(p.feed(b"data: more\n\ndata: 4\n\ndata: 5"));
        // Lost: the end of event 5, ending it.
        p.lose(true);
        evs.extend(p.feed(b"id: 6\ndata: 6\n\ndata: cut by the end"));
        p.lose(false);
        let data: Vec<&str> = evs.iter().filter_map(|e| e.data.as_deref()).collect();
        assert_eq!(data, vec!["1", "4", "6"]);
        assert_eq!(p.last_event_id.as_deref(), Some("6"));
        assert_eq!(p.held(), 0);
        assert_eq!(
            p.finish(),
            None,
            "no partial of an event whose start was lost"
        );
    }

    #[test]
    fn data_over_the_cap_is_cut_and_its_length_counted() {
        // One endless data line, then many small lines: both over a 64-byte cap.
        let long = format!("data: {}\n\n", "a".repeat(1000));
        let many = "data: bbbbbbbbbb\n".repeat(20) + "\n";
        let stream = format!("{long}{many}data: ok\n\n");
        for step in [1, 7, stream.len()] {
            let mut p = SseParser::with_cap(64);
            let mut evs = Vec::new();
            for chunk in stream.as_bytes().chunks(step) {
                evs.extend(p.feed(chunk));
            }
            assert_eq!(evs.len(), 3, "step {step}");
            assert_eq!(evs[0].data.as_deref(), Some("a".repeat(64).as_str()));
            assert_eq!(evs[0].oversized, Some(1000));
            let d = evs[1].data.as_deref().unwrap_or_default();
            assert!(d.len() <= 64 && d.starts_with("bbbbbbbbbb\nbbbb"), "{d:?}");
            assert_eq!(evs[1].oversized, Some(20 * 10 + 19));
            assert_eq!(evs[2].data.as_deref(), Some("ok"));
            assert_eq!(evs[2].oversized, None, "the next event is whole");
        }
    }
}
