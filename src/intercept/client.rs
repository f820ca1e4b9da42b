//! The controller's end of the control connection (`attach --intercept`):
//! connect, say `hello` with the entry's token, then one task writes the
//! commands the TUI sends and one reads the proxy's reports. The TUI polls
//! what comes back as [`Event`]s; nothing here blocks it, and nothing the
//! proxy sends can make it panic: a line that is no report, or one past
//! [`MAX_LINE`], becomes an error report, and the connection's end is an
//! event of its own.

use super::lines::{Line, read_line};
use super::protocol::{Command, MAX_LINE, Report};
use std::time::Duration;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::mpsc;

/// A connection attempt gives up after this: the proxy is on this machine.
const CONNECT_BOUND: Duration = Duration::from_secs(5);

/// What the controller hears.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Report(Report),
    /// The connection ended (the proxy exited, refused us, or a write
    /// failed): nothing more comes, and nothing sent is done.
    Closed(String),
}

/// A connected controller.
pub struct Client {
    pub commands: mpsc::UnboundedSender<Command>,
    pub events: mpsc::UnboundedReceiver<Event>,
}

/// Connect to `addr` and say hello with `token` (both from the proxy's
/// registry entry). Fails only if the connection cannot be made; a refusal
/// after it (a wrong token, a controller already there) arrives as an
/// error report, then [`Event::Closed`].
pub async fn connect(addr: &str, token: &str) -> std::io::Result<Client> {
    let stream = tokio::time::timeout(CONNECT_BOUND, TcpStream::connect(addr))
        .await
        .map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("no answer from {addr} in {}s", CONNECT_BOUND.as_secs()),
            )
        })??;
    let _ = stream.set_nodelay(true);
    let (read, mut write) = stream.into_split();
    let hello = Command::Hello {
        token: token.to_string(),
    };
    write.write_all(&line_of(&hello)).await?;
    let (cmd_tx, mut cmd_rx) = mpsc::unbounded_channel::<Command>();
    let (ev_tx, ev_rx) = mpsc::unbounded_channel();
    let closed = ev_tx.clone();
    tokio::spawn(async move {
        while let Some(c) = cmd_rx.recv().await {
            if let Err(e) = write.write_all(&line_of(&c)).await {
                let _ = closed.send(Event::Closed(format!("sending to the proxy failed: {e}")));
                return;
            }
        }
        // The TUI ended: the proxy forwards what is held as it was.
        let _ = write.shutdown().await;
    });
    tokio::spawn(async move {
        let mut read = BufReader::new(read);
        let mut buf = Vec::new();
        let why = loop {
            match read_line(&mut read, &mut buf, MAX_LINE).await {
                Ok(Line::Text) => {
                    let ev = match serde_json::from_slice::<Report>(&buf) {
                        Ok(r) => Event::Report(r),
                        Err(e) => Event::Report(Report::Error {
                            message: format!("the proxy sent a line that is no report: {e}"),
                        }),
                    };
                    if ev_tx.send(ev).is_err() {
                        return;
                    }
                }
                Ok(Line::TooLong) => {
                    let message = format!(
                        "the proxy sent a line longer than {} MiB: skipped",
                        MAX_LINE >> 20
                    );
                    if ev_tx
                        .send(Event::Report(Report::Error { message }))
                        .is_err()
                    {
                        return;
                    }
                }
                Ok(Line::End) => break "the proxy closed the control connection".to_string(),
                Err(e) => break format!("the control connection failed: {e}"),
            }
        };
        let _ = ev_tx.send(Event::Closed(why));
    });
    Ok(Client {
        commands: cmd_tx,
        events: ev_rx,
    })
}

fn line_of(c: &Command) -> Vec<u8> {
    // A command is plain data: it always serialises.
    let mut v = serde_json::to_vec(c).unwrap_or_default();
    v.push(b'\n');
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intercept::protocol::Side;
    use tokio::io::{AsyncBufReadExt, AsyncReadExt};
    use tokio::net::TcpListener;

    #[tokio::test]
    async fn hello_first_then_commands_and_reports_both_ways() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let proxy = tokio::spawn(async move {
            let (s, _) = listener.accept().await.unwrap();
            let (r, mut w) = s.into_split();
            let mut r = BufReader::new(r);
            let mut first = String::new();
            r.read_line(&mut first).await.unwrap();
            w.write_all(b"{\"report\":\"breakpoint\",\"filter\":\"in\"}\nnot json\n")
                .await
                .unwrap();
            let mut second = String::new();
            r.read_line(&mut second).await.unwrap();
            // Close: the controller is told.
            drop(w);
            let mut rest = Vec::new();
            let _ = r.read_to_end(&mut rest).await;
            (first, second)
        });
        let mut c = connect(&addr, "t0k").await.unwrap();
        assert_eq!(
            c.events.recv().await,
            Some(Event::Report(Report::Breakpoint {
                filter: Some("in".into())
            }))
        );
        assert!(matches!(
            c.events.recv().await,
            Some(Event::Report(Report::Error { message })) if message.contains("no report")
        ));
        c.commands
            .send(Command::Forge {
                to: Side::Host,
                message: "{}".into(),
            })
            .unwrap();
        assert!(matches!(c.events.recv().await, Some(Event::Closed(_))));
        drop(c.commands);
        let (first, second) = proxy.await.unwrap();
        assert_eq!(first, "{\"op\":\"hello\",\"token\":\"t0k\"}\n");
        assert_eq!(
            second,
            "{\"op\":\"forge\",\"to\":\"host\",\"message\":\"{}\"}\n"
        );
    }
}
