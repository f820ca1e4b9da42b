//! The stdio proxy's [`Target`]: the commands carried out on the fault
//! engine's held messages, each change an `injected` event (source
//! `intercept`) in the trace before its message is written.

use super::control::{Reports, Target, parse_break, record};
use super::hold::{body, stream_to};
use crate::event::Event;
use crate::intercept::protocol::{Command, Report};
use crate::proxy::faults::Engine;
use crate::trace::Trace;
use futures_util::future::BoxFuture;
use std::sync::{Arc, Mutex, MutexGuard};

/// What the control connection works on.
#[derive(Clone)]
pub struct Controlled {
    pub engine: Arc<Mutex<Engine>>,
    pub trace: Trace,
    pub max_frame: usize,
}

fn lock(e: &Mutex<Engine>) -> MutexGuard<'_, Engine> {
    e.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Target for Controlled {
    fn connect(&self, reports: Reports) {
        if let Some(b) = lock(&self.engine).intercept.as_mut() {
            b.connect(reports);
        }
    }

    fn act(&self, cmd: Command) -> BoxFuture<'_, Option<Report>> {
        Box::pin(act(self, cmd))
    }

    fn left(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let mut events = Vec::new();
            let mut writes = Vec::new();
            {
                let mut e = lock(&self.engine);
                if let Some(b) = e.intercept.as_mut() {
                    b.disconnect();
                    b.set(None);
                    for (_, h) in b.take_all() {
                        let then = "forwarded when the controller left";
                        events.push(h.released("hold", then, None, self.max_frame));
                        if let Some(w) = b.writer(h.stream) {
                            writes.push((w, h.raw));
                        }
                    }
                }
            }
            record(&self.trace, crate::proxy::observer::CHANNEL, &events);
            deliver(writes).await;
        })
    }
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

/// A message the user typed, as one line: compact JSON when it is JSON;
/// else as typed, its line breaks made spaces (a stdio message is a line).
pub fn one_line(message: &str) -> Vec<u8> {
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
    record(&c.trace, crate::proxy::observer::CHANNEL, &events);
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
            let parsed = match parse_break(filter) {
                Ok(f) => f,
                Err(r) => return Some(r),
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
