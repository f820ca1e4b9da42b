//! Incremental Server-Sent Events parser (WHATWG "event stream
//! interpretation"): tolerant of CR, LF and CRLF, of events split across
//! reads, and of priming events that carry an id but no data.

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
}

#[derive(Default)]
pub struct SseParser {
    buf: Vec<u8>,
    /// A CR ended the last line: a following LF belongs to it.
    after_cr: bool,
    event: String,
    data: Vec<String>,
    has_data: bool,
    id: Option<String>,
    retry_ms: Option<u64>,
    has_fields: bool,
    /// The stream's last event id (persists across events, as in the spec).
    pub last_event_id: Option<String>,
}

impl SseParser {
    pub fn new() -> SseParser {
        SseParser::default()
    }

    /// Feed bytes; returns the events completed by them.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        for &b in bytes {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' => self.line(&mut out),
                b'\r' => {
                    self.after_cr = true;
                    self.line(&mut out);
                }
                _ => {
                    self.buf.push(b);
                    // An endless line cannot grow without bound: cut it.
                    if self.buf.len() >= crate::transport::lines::MAX_LINE {
                        self.line(&mut out);
                    }
                }
            }
        }
        out
    }

    /// The stream ended: an event without its blank line is dropped (per spec),
    /// but reported here so nothing the server sent goes unseen.
    pub fn finish(&mut self) -> Option<String> {
        let partial = if self.has_fields || !self.buf.is_empty() {
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
        self.reset();
        partial
    }

    fn reset(&mut self) {
        self.event.clear();
        self.data.clear();
        self.has_data = false;
        self.id = None;
        self.retry_ms = None;
        self.has_fields = false;
    }

    fn line(&mut self, out: &mut Vec<SseEvent>) {
        let line = String::from_utf8_lossy(&self.buf).into_owned();
        self.buf.clear();
        if line.is_empty() {
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
                self.data.push(value);
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
                retry_ms: None
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
}
