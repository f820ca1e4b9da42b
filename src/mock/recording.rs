//! A recorded session read as a server's script: each message the client
//! (mcpscope, or the host behind a proxy) sent, with what the server sent
//! for it, in recorded order and with recorded times.
//!
//! Which message a server frame belongs to:
//! 1. a response, to the request with its id (on its own HTTP stream first:
//!    a proxy trace may hold several host sessions reusing ids);
//! 2. a progress notification, to the request that carried its token;
//! 3. anything else on a request's HTTP stream (`post:N`), to that request;
//! 4. otherwise to the latest request still waiting for its response, or,
//!    with none waiting, to the latest message the client sent (the
//!    `notifications/tools/list_changed` a server sends after
//!    `notifications/initialized`).
//!
//! Frames before the client's first message, stderr lines and `meta`
//! events are not replayed.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::protocol::meta::{META, PROGRESS_TOKEN};
use crate::protocol::{IdKey, methods};
use crate::trace::Dir;
use crate::trace::reader::TraceReader;

/// The most frame bytes a recording may hold in memory while served.
pub const MAX_KEPT_BYTES: usize = 1 << 30;

/// One message the client sent, and the server's frames for it.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub seq: u64,
    /// Line of the trace it was read from (the header is line 1).
    pub line: usize,
    pub t_us: u64,
    pub method: String,
    /// `None` for a notification.
    pub id: Option<Value>,
    pub params: Option<Value>,
    pub steps: Vec<Step>,
}

impl Exchange {
    pub fn is_request(&self) -> bool {
        self.id.is_some()
    }
}

/// A frame the server sent, at a recorded time.
#[derive(Debug, Clone)]
pub struct Step {
    pub t_us: u64,
    /// Recorded on HTTP's standalone GET stream rather than the request's own.
    pub standalone: bool,
    pub kind: StepKind,
}

#[derive(Debug, Clone)]
pub enum StepKind {
    /// The response to the exchange's request (its id is the host's on replay).
    Response(Value),
    /// Progress for the exchange's token (the token is the host's on replay).
    Progress(Value),
    /// A request to the client; its answer came at `answer_t_us`, if it did.
    Request {
        frame: Value,
        answer_t_us: Option<u64>,
    },
    /// Any other JSON frame, sent as recorded.
    Frame(Value),
    /// Bytes that were not JSON (a server writing garbage to stdout).
    Raw(Vec<u8>),
}

/// A trace as a server's script.
#[derive(Debug, Default)]
pub struct Recording {
    pub exchanges: Vec<Exchange>,
    /// Server frames no client message preceded, left out.
    pub unattributed: usize,
}

/// Where a frame of the trace is attributed while reading it.
#[derive(Default)]
struct Attribution {
    /// Recorded request id → exchanges with it still waiting for a response.
    waiting: HashMap<IdKey, Vec<usize>>,
    /// Every request by id, answered or not (duplicate responses replay too).
    by_id: HashMap<IdKey, usize>,
    by_token: HashMap<IdKey, usize>,
    by_channel: HashMap<String, usize>,
    /// Server→client request id → (exchange, step).
    server_requests: HashMap<IdKey, (usize, usize)>,
    /// Exchanges waiting, in the order they were sent.
    open: Vec<usize>,
    last: Option<usize>,
    kept_bytes: usize,
}

/// Read the trace at `path` as a script; a damaged or foreign file, or one
/// with nothing to serve, is an error saying why.
pub fn load(path: &Path) -> Result<Recording, String> {
    let mut reader = TraceReader::open(path).map_err(|e| e.to_string())?;
    let mut rec = Recording::default();
    let mut at = Attribution::default();
    while let Some(ev) = reader.next_event().map_err(|e| e.to_string())? {
        at.kept_bytes += ev.bytes.len();
        if at.kept_bytes > MAX_KEPT_BYTES {
            return Err(format!(
                "{}: more than {} MiB of frames: too large to serve",
                path.display(),
                MAX_KEPT_BYTES >> 20
            ));
        }
        match ev.dir {
            Dir::Out => at.client(
                &mut rec,
                ev.seq,
                reader.line(),
                ev.t_us,
                &ev.channel,
                &ev.bytes,
            ),
            Dir::In => at.server(&mut rec, ev.t_us, &ev.channel, ev.bytes),
            Dir::Stderr | Dir::Meta => {}
        }
    }
    reader.complete().map_err(|e| e.to_string())?;
    if rec.exchanges.is_empty() {
        return Err(format!(
            "{}: the trace holds no message from a client: nothing to serve",
            path.display()
        ));
    }
    Ok(rec)
}

impl Attribution {
    fn client(
        &mut self,
        rec: &mut Recording,
        seq: u64,
        line: usize,
        t_us: u64,
        ch: &str,
        bytes: &[u8],
    ) {
        let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(bytes) else {
            return;
        };
        let id = m.get("id").filter(|i| !i.is_null()).cloned();
        let Some(method) = m.get("method").and_then(Value::as_str) else {
            // The client's answer to a server request: the server's time
            // resumes from it.
            if let Some(id) = &id
                && let Some(&(ex, step)) = self.server_requests.get(&IdKey::from_value(id))
                && let StepKind::Request { answer_t_us, .. } =
                    &mut rec.exchanges[ex].steps[step].kind
            {
                answer_t_us.get_or_insert(t_us);
            }
            return;
        };
        let params = m.get("params").cloned();
        let n = rec.exchanges.len();
        if let Some(id) = &id {
            let key = IdKey::from_value(id);
            self.waiting.entry(key.clone()).or_default().push(n);
            self.by_id.insert(key, n);
            self.open.push(n);
            if let Some(token) = params
                .as_ref()
                .and_then(|p| p.get(META))
                .and_then(|m| m.get(PROGRESS_TOKEN))
            {
                self.by_token.insert(IdKey::from_value(token), n);
            }
            if ch.starts_with("post:") {
                self.by_channel.insert(ch.to_string(), n);
            }
        }
        self.last = Some(n);
        rec.exchanges.push(Exchange {
            seq,
            line,
            t_us,
            method: method.to_string(),
            id,
            params,
            steps: Vec::new(),
        });
    }

    fn server(&mut self, rec: &mut Recording, t_us: u64, ch: &str, bytes: Vec<u8>) {
        let v = match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(m)) => Value::Object(m),
            // A batch's elements follow it as events of their own.
            Ok(Value::Array(_)) => return,
            _ => {
                let to = self.fallback(ch);
                return self.push(rec, to, t_us, ch, StepKind::Raw(bytes));
            }
        };
        let method = v.get("method").and_then(Value::as_str);
        let id = v.get("id").filter(|i| !i.is_null()).map(IdKey::from_value);
        let (to, kind) = match (method, id) {
            (None, Some(id)) => (self.responded(ch, &id), StepKind::Response(v)),
            (Some(methods::PROGRESS), _) => {
                let token = v
                    .pointer("/params/progressToken")
                    .map(IdKey::from_value)
                    .and_then(|t| self.by_token.get(&t).copied());
                match token {
                    Some(ex) => (Some(ex), StepKind::Progress(v)),
                    // A token no request carried is replayed as it was.
                    None => (self.fallback(ch), StepKind::Frame(v)),
                }
            }
            (Some(_), Some(id)) => {
                let to = self.fallback(ch);
                if let Some(ex) = to {
                    let step = rec.exchanges[ex].steps.len();
                    self.server_requests.insert(id, (ex, step));
                }
                let kind = StepKind::Request {
                    frame: v,
                    answer_t_us: None,
                };
                (to, kind)
            }
            _ => (self.fallback(ch), StepKind::Frame(v)),
        };
        self.push(rec, to, t_us, ch, kind);
    }

    fn push(
        &mut self,
        rec: &mut Recording,
        to: Option<usize>,
        t_us: u64,
        ch: &str,
        kind: StepKind,
    ) {
        let standalone = ch == "get" || ch.starts_with("get:");
        match to {
            Some(ex) => rec.exchanges[ex].steps.push(Step {
                t_us,
                standalone,
                kind,
            }),
            None => rec.unattributed += 1,
        }
    }

    /// The request a response on `ch` answers; it stops waiting.
    fn responded(&mut self, ch: &str, id: &IdKey) -> Option<usize> {
        let on_stream = self
            .by_channel
            .get(ch)
            .copied()
            .filter(|ex| self.waiting.get(id).is_some_and(|w| w.contains(ex)));
        let ex = on_stream
            .or_else(|| self.waiting.get(id).and_then(|w| w.last().copied()))
            .or_else(|| self.by_id.get(id).copied())?;
        if let Some(w) = self.waiting.get_mut(id) {
            w.retain(|e| *e != ex);
        }
        self.open.retain(|e| *e != ex);
        Some(ex)
    }

    /// Rules 3 and 4 of the module doc.
    fn fallback(&self, ch: &str) -> Option<usize> {
        self.by_channel
            .get(ch)
            .copied()
            .or_else(|| self.open.last().copied())
            .or(self.last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn trace(lines: &[&str]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        writeln!(
            f,
            "{{\"mcpscope_trace\":1,\"version\":\"t\",\"started\":\"now\",\"server\":{{}}}}"
        )
        .unwrap();
        for (seq, l) in lines.iter().enumerate() {
            writeln!(f, "{{\"seq\":{seq},{l}}}").unwrap();
        }
        f
    }

    #[test]
    fn frames_go_to_the_request_they_answer() {
        let f = trace(&[
            r#""t":0.0,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"t1"}}}"#,
            r#""t":0.1,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b","_meta":{"progressToken":"t2"}}}"#,
            r#""t":0.2,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t1","progress":1}}"#,
            r#""t":0.3,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
            r#""t":0.4,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","id":"s1","method":"elicitation/create","params":{}}"#,
            r#""t":0.5,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","id":"s1","result":{"action":"accept"}}"#,
            r#""t":0.6,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#""t":0.7,"dir":"in","ch":"stdio","text":"garbage""#,
            r#""t":0.8,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","id":2,"result":{}}"#,
        ]);
        let rec = load(f.path()).unwrap();
        let kinds = |ex: &Exchange| {
            ex.steps
                .iter()
                .map(|s| match &s.kind {
                    StepKind::Response(_) => "response",
                    StepKind::Progress(_) => "progress",
                    StepKind::Request { answer_t_us, .. } => {
                        assert_eq!(*answer_t_us, Some(500_000));
                        "request"
                    }
                    StepKind::Frame(_) => "frame",
                    StepKind::Raw(_) => "raw",
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(kinds(&rec.exchanges[0]), ["progress", "response"]);
        // The log and the elicitation came while both waited: the latest.
        assert_eq!(
            kinds(&rec.exchanges[1]),
            ["frame", "request", "raw", "response"]
        );
        assert_eq!(rec.exchanges[1].line, 3);
    }

    #[test]
    fn http_streams_and_notifications_after_initialized() {
        let f = trace(&[
            r#""t":0.0,"dir":"out","ch":"post:1","json":{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{}}"#,
            r#""t":0.1,"dir":"out","ch":"post:2","json":{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            r#""t":0.2,"dir":"in","ch":"post:1","json":{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#,
            r#""t":0.3,"dir":"in","ch":"post:2","json":{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#""t":0.4,"dir":"in","ch":"post:1","json":{"jsonrpc":"2.0","id":0,"result":{}}"#,
            r#""t":0.5,"dir":"out","ch":"post:3","json":{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#""t":0.6,"dir":"in","ch":"get","json":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        ]);
        let rec = load(f.path()).unwrap();
        let steps: Vec<usize> = rec.exchanges.iter().map(|e| e.steps.len()).collect();
        assert_eq!(steps, [2, 1, 1]);
    }

    #[test]
    fn a_trace_without_client_messages_or_cut_short_is_refused() {
        let f =
            trace(&[r#""t":0.0,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","method":"x"}"#]);
        assert!(load(f.path()).unwrap_err().contains("nothing to serve"));
        let mut f = trace(&[
            r#""t":0.0,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        ]);
        write!(f, "{{\"seq\":1,\"t\":0.1,\"dir\":\"in\"").unwrap();
        let e = load(f.path()).unwrap_err();
        assert!(e.contains("trace ends mid-line after event 0"), "{e}");
    }
}
