//! The proxy's side of the control connection ([`crate::intercept::protocol`]): it
//! listens on 127.0.0.1, takes one controller at a time once it gave the
//! token, and carries out its commands on the engine's held messages.
//! Each change goes into the trace as an `injected` event (source
//! `intercept`).

use super::hold::{body, stream_to};
use crate::event::Event;
use crate::intercept::lines::{Line, read_line};
use crate::intercept::protocol::{Command, MAX_LINE, Report};
use crate::proxy::faults::Engine;
use crate::session::registry::InterceptEndpoint;
use crate::trace::Trace;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// What the control connection works on.
#[derive(Clone)]
pub struct Controlled {
    pub engine: Arc<Mutex<Engine>>,
    pub trace: Trace,
    pub max_frame: usize,
}

/// Listen on 127.0.0.1 for the controller: the endpoint to list in the
/// registry entry.
pub async fn start(c: Controlled) -> std::io::Result<InterceptEndpoint> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
    let endpoint = InterceptEndpoint {
        addr: listener.local_addr()?.to_string(),
        token: new_token(),
    };
    let token = endpoint.token.clone();
    let busy = Arc::new(AtomicBool::new(false));
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            let (c, token, busy) = (c.clone(), token.clone(), busy.clone());
            tokio::spawn(async move {
                let (rd, mut wr) = sock.into_split();
                let mut rd = BufReader::new(rd);
                // The token first, then one controller at a time: whoever
                // lacks the token learns nothing of the one connected.
                let mut line = Vec::new();
                let hello = match read_line(&mut rd, &mut line, MAX_LINE).await {
                    Ok(Line::Text) => serde_json::from_slice::<Command>(&line).ok(),
                    _ => None,
                };
                let refusal = match hello {
                    Some(Command::Hello { token: t }) if t == token => {
                        if busy.swap(true, Ordering::SeqCst) {
                            "another controller is connected to this proxy"
                        } else {
                            serve(rd, wr, &c).await;
                            busy.store(false, Ordering::SeqCst);
                            return;
                        }
                    }
                    _ => "the first line must be hello with this proxy's token",
                };
                let r = Report::Error {
                    message: refusal.into(),
                };
                let _ = wr.write_all(&line_of(&r)).await;
            });
        }
    });
    Ok(endpoint)
}

/// A secret for the registry entry: 128 bits from the hasher keys the
/// standard library draws from the system's randomness.
fn new_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (0..2u64)
        .map(|i| {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u64(i);
            h.write_u128(now);
            format!("{:016x}", h.finish())
        })
        .collect()
}

fn line_of(r: &Report) -> Vec<u8> {
    let mut l = serde_json::to_vec(r).unwrap_or_default();
    l.push(b'\n');
    l
}

fn lock(e: &Mutex<Engine>) -> MutexGuard<'_, Engine> {
    e.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A controller that gave the token, until it goes.
async fn serve(
    mut rd: BufReader<tokio::net::tcp::OwnedReadHalf>,
    mut wr: tokio::net::tcp::OwnedWriteHalf,
    c: &Controlled,
) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    if let Some(b) = lock(&c.engine).intercept.as_mut() {
        b.connect(tx.clone());
    }
    let writer = tokio::spawn(async move {
        while let Some(r) = rx.recv().await {
            if wr.write_all(&line_of(&r)).await.is_err() {
                break;
            }
        }
    });
    let mut line = Vec::new();
    loop {
        let report = match read_line(&mut rd, &mut line, MAX_LINE).await {
            Ok(Line::Text) => match serde_json::from_slice::<Command>(&line) {
                Ok(cmd) => act(c, cmd).await,
                Err(e) => Some(Report::Error {
                    message: format!("not a command: {e}"),
                }),
            },
            Ok(Line::TooLong) => Some(Report::Error {
                message: format!("a line over {} MiB is no command: skipped", MAX_LINE >> 20),
            }),
            Ok(Line::End) | Err(_) => break,
        };
        if let Some(r) = report {
            let _ = tx.send(r);
        }
    }
    // The controller went: nothing stays held for a TUI that is gone.
    let mut events = Vec::new();
    let mut writes = Vec::new();
    {
        let mut e = lock(&c.engine);
        if let Some(b) = e.intercept.as_mut() {
            b.disconnect();
            b.set(None);
            for (_, h) in b.take_all() {
                let then = "forwarded when the controller left";
                events.push(h.released("hold", then, None, c.max_frame));
                if let Some(w) = b.writer(h.stream) {
                    writes.push((w, h.raw));
                }
            }
        }
    }
    record(&c.trace, &events);
    deliver(writes).await;
    drop(tx);
    let _ = writer.await;
}

/// Write each message to its stream's writer, in order. Blocking while a
/// slow receiver's queue is full, as the copying does, off the runtime's
/// threads; a receiver that is gone takes nothing.
async fn deliver(writes: Vec<(super::hold::Writer, Vec<u8>)>) {
    if writes.is_empty() {
        return;
    }
    let _ = tokio::task::spawn_blocking(move || {
        for (w, bytes) in writes {
            let _ = w.send((std::time::Instant::now(), bytes));
        }
    })
    .await;
}

fn record(trace: &Trace, events: &[Event]) {
    if events.is_empty() {
        return;
    }
    trace.append(|s, now| {
        for ev in events {
            s.append_event(crate::proxy::observer::CHANNEL, now, ev);
        }
    });
}

/// A message the user typed, as one line: compact JSON when it is JSON;
/// else as typed, its line breaks made spaces (a stdio message is a line).
fn one_line(message: &str) -> Vec<u8> {
    let mut out = match serde_json::from_str::<serde_json::Value>(message) {
        Ok(v) => v.to_string().into_bytes(),
        Err(_) => message.replace(['\n', '\r'], " ").into_bytes(),
    };
    out.push(b'\n');
    out
}

/// Carry out one command; the report to send (reports of holds and
/// releases also come from the engine). Its `injected` events are in the
/// trace before its messages are written, so an answer to them comes after.
async fn act(c: &Controlled, cmd: Command) -> Option<Report> {
    let mut events = Vec::new();
    let mut writes = Vec::new();
    let report = {
        let mut e = lock(&c.engine);
        act_locked(&mut e, cmd, c.max_frame, &mut events, &mut writes)
    };
    record(&c.trace, &events);
    deliver(writes).await;
    report
}

type Writes = Vec<(super::hold::Writer, Vec<u8>)>;

fn act_locked(
    e: &mut Engine,
    cmd: Command,
    max_frame: usize,
    events: &mut Vec<Event>,
    writes: &mut Writes,
) -> Option<Report> {
    let error = |message: String| Some(Report::Error { message });
    if let Command::Forge { to, message } = &cmd {
        let stream = stream_to(*to);
        let bytes = one_line(message);
        let Some(w) = e.intercept.as_ref()?.writer(stream) else {
            return error(format!(
                "not forged: the stream to the {} has ended",
                to.name()
            ));
        };
        let f = crate::protocol::frame::classify(body(&bytes));
        if f.kind == crate::protocol::frame::FrameKind::Request
            && let Some(id) = &f.id
        {
            // Its answer stops at the proxy: the peer never asked.
            e.remember_forged(stream.other(), id.to_value().to_string(), None);
        }
        let sent = body(&bytes);
        events.push(super::injected(
            "forge",
            stream,
            sent,
            Some(sent),
            "forged at a breakpoint".into(),
            max_frame,
        ));
        writes.push((w, bytes));
        return Some(Report::Forged { to: *to });
    }
    let b = e.intercept.as_mut()?;
    match cmd {
        Command::Hello { .. } => error("hello is said once".into()),
        Command::Break { filter } => {
            let parsed = match filter.as_deref().map(crate::filter::Filter::parse) {
                None => None,
                Some(Ok(f)) => Some(f),
                Some(Err(err)) => {
                    let src = filter.unwrap_or_default();
                    return error(format!("breakpoint: {err}\n{}", err.pointed(&src)));
                }
            };
            b.set(parsed);
            Some(Report::Breakpoint { filter: b.filter() })
        }
        Command::Forward { id, message } => {
            let Some(h) = b.take(id) else {
                return error(format!("no message {id} is held"));
            };
            let Some(w) = b.writer(h.stream) else {
                let stream = h.stream;
                b.put_back(id, h);
                return error(format!(
                    "message {id} not forwarded: its stream ({}) has ended",
                    stream.label()
                ));
            };
            let edited = message.as_deref().map(one_line);
            let (action, how, then) = match &edited {
                Some(_) => ("edit", "edited", "edited and forwarded"),
                None => ("hold", "forwarded", "forwarded"),
            };
            events.push(h.released(action, then, edited.as_deref().map(body), max_frame));
            b.tell(Report::Released {
                id,
                how: how.into(),
            });
            writes.push((w, edited.unwrap_or(h.raw)));
            None
        }
        Command::Drop { id } => {
            let Some(h) = b.take(id) else {
                return error(format!("no message {id} is held"));
            };
            events.push(h.released("drop", "dropped", None, max_frame));
            b.tell(Report::Released {
                id,
                how: "dropped".into(),
            });
            None
        }
        Command::Forge { .. } => None,
    }
}
