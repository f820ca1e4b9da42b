//! The proxy's side of the control connection ([`crate::intercept::protocol`]): it
//! listens on 127.0.0.1, takes one controller at a time once it gave the
//! token, and hands its commands to the proxy's [`Target`]: the stdio
//! proxy's engine (`super::stdio`) or the HTTP proxy's holds
//! (`super::http`). The listening, the token and the one-at-a-time rule
//! are the same for both; only what a command does differs.

use crate::event::Event;
use crate::intercept::lines::{Line, read_line};
use crate::intercept::protocol::{Command, MAX_LINE, Report};
use crate::session::registry::InterceptEndpoint;
use crate::trace::Trace;
use futures_util::future::BoxFuture;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// Where the reports to the connected controller go.
pub type Reports = tokio::sync::mpsc::UnboundedSender<Report>;

/// What a proxy does with the controller's commands.
pub trait Target: Send + Sync + 'static {
    /// A controller connected: tell it the breakpoint in force and what
    /// is held, and send it the reports from now on.
    fn connect(&self, reports: Reports);
    /// Carry out one command (not `hello`); the report to send, if any
    /// (reports of holds and releases also come from the proxy).
    fn act(&self, cmd: Command) -> BoxFuture<'_, Option<Report>>;
    /// The controller went: clear the breakpoint and forward what is held
    /// as it was, so a closed TUI never strands a message.
    fn left(&self) -> BoxFuture<'_, ()>;
}

/// Listen on 127.0.0.1 for the controller: the endpoint to list in the
/// registry entry.
pub async fn start(target: Arc<dyn Target>) -> std::io::Result<InterceptEndpoint> {
    let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
    let endpoint = InterceptEndpoint {
        addr: listener.local_addr()?.to_string(),
        token: new_token(),
    };
    let token = endpoint.token.clone();
    let busy = Arc::new(AtomicBool::new(false));
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            let (c, token, busy) = (target.clone(), token.clone(), busy.clone());
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
                            serve(rd, wr, &*c).await;
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

/// A controller that gave the token, until it goes.
async fn serve(
    mut rd: BufReader<tokio::net::tcp::OwnedReadHalf>,
    mut wr: tokio::net::tcp::OwnedWriteHalf,
    c: &dyn Target,
) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    c.connect(tx.clone());
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
                Ok(Command::Hello { .. }) => Some(Report::Error {
                    message: "hello is said once".into(),
                }),
                Ok(cmd) => c.act(cmd).await,
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
    c.left().await;
    drop(tx);
    let _ = writer.await;
}

/// Record `events` (the `injected` events of changes) in the trace, on
/// `channel` (the proxy's channel of what concerns no one exchange).
pub fn record(trace: &Trace, channel: &str, events: &[Event]) {
    if events.is_empty() {
        return;
    }
    trace.append(|s, now| {
        for ev in events {
            s.append_event(channel, now, ev);
        }
    });
}

/// A `break` command's filter, parsed; the error report when it does not
/// parse (its column pointed at).
pub fn parse_break(filter: Option<String>) -> Result<Option<crate::filter::Filter>, Report> {
    match filter.as_deref().map(crate::filter::Filter::parse) {
        None => Ok(None),
        Some(Ok(f)) => Ok(Some(f)),
        Some(Err(err)) => {
            let src = filter.unwrap_or_default();
            Err(Report::Error {
                message: format!("breakpoint: {err}\n{}", err.pointed(&src)),
            })
        }
    }
}
