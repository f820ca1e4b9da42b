//! A recorded session read as a server's script: each message the client
//! (mcpscope, or the host behind a proxy) sent, with what the server sent
//! for it, in recorded order and with recorded times.
//!
//! Each message belongs to its host session (`calls::scope`: a proxy trace
//! may hold several hosts, each reusing the same ids and tokens); every
//! lookup below is within the frame's session. Which message a server
//! frame belongs to:
//! 1. a response, to the request with its id (on its own HTTP stream first);
//! 2. a progress notification, to the request on its own HTTP stream when
//!    that carried its token, else to the request that carried it;
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

use super::MockError;
use crate::calls::scope::{DEFAULT, Scopes};
use crate::protocol::meta::{META, PROGRESS_TOKEN};
use crate::protocol::{IdKey, methods};
use crate::trace::reader::TraceReader;
use crate::trace::{Dir, EventRef};

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
    /// The host session it belongs to (`calls::scope`; `DEFAULT` in a
    /// trace that names none): a host is served its own session's first.
    pub scope: u64,
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
    /// Bytes sent as recorded: not JSON (a server writing garbage to
    /// stdout), or a large notification kept unparsed.
    Raw(bytes::Bytes),
    /// A large response kept as its recorded bytes (never parsed into a
    /// value, so held once); the host's id goes at byte range `id`.
    Reply {
        bytes: bytes::Bytes,
        id: std::ops::Range<usize>,
    },
}

/// Frames the mock sends together are joined up to this size; a larger
/// frame goes on its own (joining would copy it), and a larger
/// notification is kept as its bytes when the recording is read.
pub const BATCH_BYTES: usize = 1 << 20;

/// Where a response's top-level `"id"` value lies in its bytes, and the
/// id, read without building the rest of the frame (the result is skipped,
/// not held). `None` for a null id, a repeated `"id"` key or bytes that
/// are not one JSON object.
fn id_span(bytes: &[u8]) -> Option<(std::ops::Range<usize>, IdKey)> {
    use serde_json::value::RawValue;
    #[derive(serde::Deserialize)]
    struct Head<'a> {
        #[serde(borrow, default)]
        id: Option<&'a RawValue>,
    }
    // An array would fill the struct by position.
    if bytes.trim_ascii_start().first() != Some(&b'{') {
        return None;
    }
    let head: Head = serde_json::from_slice(bytes).ok()?;
    let raw = head.id?.get();
    let id: Value = serde_json::from_str(raw).ok()?;
    if id.is_null() {
        return None;
    }
    let start = (raw.as_ptr() as usize).checked_sub(bytes.as_ptr() as usize)?;
    let at = start..start + raw.len();
    (bytes.get(at.clone()) == Some(raw.as_bytes())).then(|| (at, IdKey::from_value(&id)))
}

/// A trace as a server's script.
#[derive(Debug, Default)]
pub struct Recording {
    pub exchanges: Vec<Exchange>,
    /// Server frames no client message preceded, left out.
    pub unattributed: usize,
    /// The host sessions that sent a request, in the order of their first:
    /// the mock's k-th host is served the k-th first (see `matching`).
    pub sessions: Vec<u64>,
}

impl Recording {
    /// A listing for a host that lists tools first, when the recording has
    /// none (`mcpscope call` records the call, not a listing): each tool the
    /// recording calls, by name. Its description and schema were not
    /// recorded; the description says so and the schema takes any object.
    pub fn called_tools(&self) -> Option<Vec<Value>> {
        if self
            .exchanges
            .iter()
            .any(|e| e.is_request() && e.method == methods::TOOLS_LIST)
        {
            return None;
        }
        let mut names: Vec<&str> = self
            .exchanges
            .iter()
            .filter(|e| e.is_request() && e.method == methods::TOOLS_CALL)
            .filter_map(|e| e.params.as_ref()?.get("name")?.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        (!names.is_empty()).then(|| {
            names
                .into_iter()
                .map(|n| {
                    serde_json::json!({
                        "name": n,
                        "description": "(not recorded: the recording holds calls of this tool, not a listing)",
                        "inputSchema": {"type": "object"},
                    })
                })
                .collect()
        })
    }
}

/// Where a frame of the trace is attributed while reading it; ids and
/// tokens are keyed by host session.
#[derive(Default)]
struct Attribution {
    scopes: Scopes,
    /// Recorded request id → exchanges with it still waiting for a response.
    waiting: HashMap<(u64, IdKey), Vec<usize>>,
    /// Every request by id, answered or not (duplicate responses replay too).
    by_id: HashMap<(u64, IdKey), usize>,
    by_token: HashMap<(u64, IdKey), usize>,
    by_channel: HashMap<String, usize>,
    /// Server→client request id → (exchange, step).
    server_requests: HashMap<(u64, IdKey), (usize, usize)>,
    /// Exchanges waiting, in the order they were sent (each names its scope).
    open: Vec<usize>,
    last: Option<usize>,
    kept_bytes: usize,
}

/// Read the trace at `path` as a script; a damaged or foreign file, or one
/// with nothing to serve, is an error saying why.
pub fn load(path: &Path) -> Result<Recording, MockError> {
    let mut reader = TraceReader::open(path)?;
    let mut rec = Recording::default();
    let mut at = Attribution::default();
    while let Some(ev) = reader.next_event()? {
        at.kept_bytes += ev.bytes.len();
        if at.kept_bytes > MAX_KEPT_BYTES {
            return Err(MockError::TooLarge {
                path: path.to_path_buf(),
                mib: MAX_KEPT_BYTES >> 20,
            });
        }
        let scope = at
            .scopes
            .route(&EventRef {
                seq: ev.seq,
                t_us: ev.t_us,
                dir: ev.dir,
                kind: crate::protocol::FrameKind::NotJson,
                channel: &ev.channel,
                method: None,
                flags: 0,
                bytes: &ev.bytes,
                progress: None,
            })
            .unwrap_or(DEFAULT);
        match ev.dir {
            Dir::Out => at.client(
                &mut rec,
                (ev.seq, reader.line(), ev.t_us),
                scope,
                &ev.channel,
                &ev.bytes,
            ),
            Dir::In => at.server(&mut rec, ev.t_us, scope, &ev.channel, ev.bytes),
            Dir::Stderr | Dir::Meta => {}
        }
    }
    reader.complete()?;
    if rec.exchanges.is_empty() {
        return Err(MockError::NothingToServe {
            path: path.to_path_buf(),
        });
    }
    Ok(rec)
}

impl Attribution {
    /// A message the client sent: `at` is its seq, trace line and time.
    fn client(
        &mut self,
        rec: &mut Recording,
        (seq, line, t_us): (u64, usize, u64),
        scope: u64,
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
                && let Some(&(ex, step)) = self.server_requests.get(&(scope, IdKey::from_value(id)))
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
            let key = (scope, IdKey::from_value(id));
            self.waiting.entry(key.clone()).or_default().push(n);
            self.by_id.insert(key, n);
            self.open.push(n);
            if let Some(token) = token_of(params.as_ref()) {
                self.by_token.insert((scope, IdKey::from_value(token)), n);
            }
            if !rec.sessions.contains(&scope) {
                rec.sessions.push(scope);
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
            scope,
            steps: Vec::new(),
        });
    }

    fn server(&mut self, rec: &mut Recording, t_us: u64, scope: u64, ch: &str, bytes: Vec<u8>) {
        // A large notification the host gets as recorded (no id or token
        // of its to put in) is kept as its bytes: never parsed, held once.
        if bytes.len() >= BATCH_BYTES {
            let f = crate::protocol::frame::classify(&bytes);
            if f.kind == crate::protocol::FrameKind::Notification
                && f.method.as_deref() != Some(methods::PROGRESS)
            {
                drop(f);
                return self.as_recorded(rec, t_us, scope, ch, bytes);
            }
            if matches!(
                f.kind,
                crate::protocol::FrameKind::Response | crate::protocol::FrameKind::ErrorResponse
            ) && let Some((at, id)) = id_span(&bytes)
            {
                let to = self.responded(scope, ch, &id);
                let kind = StepKind::Reply {
                    bytes: bytes::Bytes::from_owner(bytes),
                    id: at,
                };
                return self.push(rec, to, t_us, ch, kind);
            }
        }
        let v = match serde_json::from_slice::<Value>(&bytes) {
            Ok(Value::Object(m)) => {
                // Kept as parsed: the bytes go at once (a huge frame is
                // not held twice while the recording is read).
                drop(bytes);
                Value::Object(m)
            }
            // A batch's elements follow it as events of their own.
            Ok(Value::Array(_)) => return,
            _ => return self.as_recorded(rec, t_us, scope, ch, bytes),
        };
        let method = v.get("method").and_then(Value::as_str);
        let id = v.get("id").filter(|i| !i.is_null()).map(IdKey::from_value);
        let (to, kind) = match (method, id) {
            (None, Some(id)) => (self.responded(scope, ch, &id), StepKind::Response(v)),
            (Some(methods::PROGRESS), _) => match self.progress_to(rec, scope, ch, &v) {
                Some(ex) => (Some(ex), StepKind::Progress(v)),
                // A token no request carried is replayed as it was.
                None => (self.fallback(rec, scope, ch), StepKind::Frame(v)),
            },
            (Some(_), Some(id)) => {
                let to = self.fallback(rec, scope, ch);
                if let Some(ex) = to {
                    let step = rec.exchanges[ex].steps.len();
                    self.server_requests.insert((scope, id), (ex, step));
                }
                let kind = StepKind::Request {
                    frame: v,
                    answer_t_us: None,
                };
                (to, kind)
            }
            _ => (self.fallback(rec, scope, ch), StepKind::Frame(v)),
        };
        self.push(rec, to, t_us, ch, kind);
    }

    /// A server frame sent as its recorded bytes (not JSON, or a large
    /// notification), to the exchange it falls to.
    fn as_recorded(
        &mut self,
        rec: &mut Recording,
        t_us: u64,
        scope: u64,
        ch: &str,
        bytes: Vec<u8>,
    ) {
        let to = self.fallback(rec, scope, ch);
        self.push(
            rec,
            to,
            t_us,
            ch,
            StepKind::Raw(bytes::Bytes::from_owner(bytes)),
        );
    }

    /// The request a progress notification on `ch` is for: the one whose
    /// stream it is when that carried its token, else the one of the
    /// session that carried it last.
    fn progress_to(&self, rec: &Recording, scope: u64, ch: &str, v: &Value) -> Option<usize> {
        let token = IdKey::from_value(v.pointer("/params/progressToken")?);
        let own = self.by_channel.get(ch).copied().filter(|ex| {
            token_of(rec.exchanges[*ex].params.as_ref())
                .is_some_and(|t| IdKey::from_value(t) == token)
        });
        own.or_else(|| self.by_token.get(&(scope, token)).copied())
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
    fn responded(&mut self, scope: u64, ch: &str, id: &IdKey) -> Option<usize> {
        let key = (scope, id.clone());
        let on_stream = self
            .by_channel
            .get(ch)
            .copied()
            .filter(|ex| self.waiting.get(&key).is_some_and(|w| w.contains(ex)));
        let ex = on_stream
            .or_else(|| self.waiting.get(&key).and_then(|w| w.last().copied()))
            .or_else(|| self.by_id.get(&key).copied())?;
        if let Some(w) = self.waiting.get_mut(&key) {
            w.retain(|e| *e != ex);
        }
        self.open.retain(|e| *e != ex);
        Some(ex)
    }

    /// Rules 3 and 4 of the module doc: the stream's request, else the
    /// session's latest waiting request, else any latest.
    fn fallback(&self, rec: &Recording, scope: u64, ch: &str) -> Option<usize> {
        let of_scope = |ex: &&usize| rec.exchanges[**ex].scope == scope;
        self.by_channel
            .get(ch)
            .copied()
            .or_else(|| self.open.iter().rev().find(of_scope).copied())
            .or_else(|| self.open.last().copied())
            .or(self.last)
    }
}

/// The progress token a request's params carry.
fn token_of(params: Option<&Value>) -> Option<&Value> {
    params?.get(META)?.get(PROGRESS_TOKEN)
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
    fn a_responses_id_is_found_in_its_bytes_or_the_frame_is_not_spliced() {
        let b = br#" {"result": {"id": 9, "x": "\"id\": 3"}, "id" :"a\"b" }"#;
        let (at, id) = id_span(b).unwrap();
        assert_eq!(&b[at], br#""a\"b""#);
        assert_eq!(id, IdKey::from_value(&Value::from("a\"b")));
        // A repeated key, a null id, no id, not an object: parsed instead.
        for b in [
            &br#"{"id": 1, "result": {}, "id": 2}"#[..],
            br#"{"id": null, "error": {}}"#,
            br#"{"result": {}}"#,
            br#"[{"id": 1}]"#,
            br#"{"id": 1, "result": "#,
        ] {
            assert!(id_span(b).is_none(), "{}", String::from_utf8_lossy(b));
        }
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
                    StepKind::Reply { .. } => "response",
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
    fn host_sessions_reusing_ids_and_tokens_keep_their_own_frames() {
        let hr = |s: &str| {
            format!(
                r#""t":0.0,"dir":"meta","ch":"x","json":{{"event":"host-request","method":"POST","session":"{s}"}}"#
            )
        };
        let call = r#""dir":"out","json":{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"tk"}}}"#;
        let prog = r#""dir":"in","json":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tk","progress":1}}"#;
        let done = r#""dir":"in","json":{"jsonrpc":"2.0","id":5,"result":{}}"#;
        let a = hr("A").replace("\"ch\":\"x\"", "\"ch\":\"post:1\"");
        let b = hr("B").replace("\"ch\":\"x\"", "\"ch\":\"post:2\"");
        let lines = [
            a,
            format!(r#""t":0.1,"ch":"post:1",{call}"#),
            b,
            format!(r#""t":0.2,"ch":"post:2",{call}"#),
            // B's progress on A's stream: the stream's own request first.
            format!(r#""t":0.3,"ch":"post:1",{prog}"#),
            format!(r#""t":0.4,"ch":"post:2",{prog}"#),
            format!(r#""t":0.5,"ch":"post:2",{prog}"#),
            format!(r#""t":0.6,"ch":"post:1",{done}"#),
            format!(r#""t":0.7,"ch":"post:2",{done}"#),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let f = trace(&refs);
        let rec = load(f.path()).unwrap();
        let steps: Vec<usize> = rec.exchanges.iter().map(|e| e.steps.len()).collect();
        assert_eq!(steps, [2, 3]);
        assert_eq!(rec.sessions.len(), 2);
        assert_ne!(rec.exchanges[0].scope, rec.exchanges[1].scope);
        // In the order each session sent its first request: the k-th host
        // is served the k-th (`matching::Cursor::for_host`).
        assert_eq!(
            rec.sessions,
            [rec.exchanges[0].scope, rec.exchanges[1].scope]
        );
    }

    #[test]
    fn a_trace_without_client_messages_or_cut_short_is_refused() {
        let f =
            trace(&[r#""t":0.0,"dir":"in","ch":"stdio","json":{"jsonrpc":"2.0","method":"x"}"#]);
        assert!(matches!(
            load(f.path()).unwrap_err(),
            MockError::NothingToServe { .. }
        ));
        let mut f = trace(&[
            r#""t":0.0,"dir":"out","ch":"stdio","json":{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        ]);
        write!(f, "{{\"seq\":1,\"t\":0.1,\"dir\":\"in\"").unwrap();
        let e = load(f.path()).unwrap_err().to_string();
        assert!(e.contains("trace ends mid-line after event 0"), "{e}");
    }
}
