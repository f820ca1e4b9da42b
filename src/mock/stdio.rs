//! The mock over stdio: newline-delimited JSON-RPC on stdin and stdout,
//! until the host closes stdin.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::conn::{Conn, Out, Pace, Wire};
use super::recording::Recording;
use crate::protocol::methods::codes;

/// The longest line read from the host; a longer one is answered with a
/// parse error and skipped.
pub const MAX_LINE: usize = 16 << 20;

/// How long a barrier waits for the host to read what was written, at
/// most: a host that reads nothing must not hold the responses forever.
const SETTLE_MAX: std::time::Duration = std::time::Duration::from_secs(1);

/// Serve `rec` on `input`/`output` until `input` ends; `unread` says how
/// many bytes written to `output` the host has not read yet (0 when that
/// cannot be known).
pub async fn serve(
    rec: Arc<Recording>,
    pace: Pace,
    input: impl AsyncRead + Unpin,
    output: impl AsyncWrite + Unpin + Send + 'static,
    unread: impl Fn() -> usize + Send + 'static,
) -> std::io::Result<()> {
    let (tx, rx) = mpsc::channel::<Wire>(1024);
    let mut writer = Some(tokio::spawn(write_lines(rx, output, unread)));
    let conn = Conn::new(rec, pace, Out::Stream(tx.clone()));
    let mut input = BufReader::with_capacity(64 * 1024, input);
    let mut line = Vec::new();
    let result = loop {
        let Some(w) = writer.as_mut() else {
            break Ok(());
        };
        let got = tokio::select! {
            biased;
            // The writer ends early only when the host stopped reading.
            done = w => {
                writer = None;
                let e = match done {
                    Ok(Err(e)) => e,
                    _ => std::io::Error::other("the writer stopped"),
                };
                break Err(cannot_write(e));
            }
            got = read_line(&mut input, &mut line) => got,
        };
        match got {
            Ok(None) => break Ok(()),
            Ok(Some(false)) => {
                let why = format!("Parse error: a line longer than {} MiB", MAX_LINE >> 20);
                let _ = tx.send(parse_error(&why)).await;
            }
            Ok(Some(true)) => {
                let text = line.trim_ascii();
                if text.is_empty() {
                    continue;
                }
                match serde_json::from_slice::<Value>(text) {
                    Ok(msg) => {
                        conn.handle(msg, Out::Stream(tx.clone())).await;
                    }
                    Err(e) => {
                        let _ = tx.send(parse_error(&format!("Parse error: {e}"))).await;
                    }
                }
            }
            Err(e) => break Err(e),
        }
    };
    // The host is gone: nothing still playing has anyone to go to.
    conn.stop();
    drop(conn);
    drop(tx);
    let written = match writer {
        Some(w) => w.await.unwrap_or(Ok(())),
        None => Ok(()),
    };
    // What could not reach the host is the worse news.
    result.and(written.map_err(cannot_write))
}

fn cannot_write(e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("cannot write to the host: {e}"))
}

fn parse_error(why: &str) -> Wire {
    let v = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": codes::PARSE_ERROR, "message": why}});
    Wire::Frame(Bytes::from(v.to_string()))
}

/// One line into `line`: `Some(true)` read whole, `Some(false)` longer than
/// [`MAX_LINE`] (skipped to its end), `None` at the end of the input.
async fn read_line(
    input: &mut (impl AsyncBufReadExt + Unpin),
    line: &mut Vec<u8>,
) -> std::io::Result<Option<bool>> {
    line.clear();
    let n = (&mut *input)
        .take(MAX_LINE as u64 + 1)
        .read_until(b'\n', line)
        .await?;
    if n == 0 {
        return Ok(None);
    }
    if line.last() == Some(&b'\n') || line.len() <= MAX_LINE {
        return Ok(Some(true));
    }
    // Too long: read the rest of it away, a buffer at a time.
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            return Ok(Some(false));
        }
        match memchr::memchr(b'\n', buf) {
            Some(i) => {
                input.consume(i + 1);
                return Ok(Some(false));
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}

/// Write each frame as a line until every sender is gone; an error (the
/// host closed its end) ends it.
async fn write_lines(
    mut rx: mpsc::Receiver<Wire>,
    mut out: impl AsyncWrite + Unpin,
    unread: impl Fn() -> usize,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    while let Some(first) = rx.recv().await {
        // What else is ready goes in the same write; a large frame is
        // written as it is (its parts in turn), never copied into the buffer.
        let mut next = Some(first);
        while let Some(w) = next.take() {
            if let Wire::Barrier(done) = w {
                out.write_all(&buf).await?;
                buf.clear();
                out.flush().await?;
                // Polled: a pipe says nothing when it is read.
                let until = tokio::time::Instant::now() + SETTLE_MAX;
                while unread() > 0 && tokio::time::Instant::now() < until {
                    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                }
                let _ = done.send(());
            } else if w.len() >= super::recording::BATCH_BYTES {
                if !buf.is_empty() {
                    out.write_all(&buf).await?;
                    buf.clear();
                }
                for part in w.parts() {
                    out.write_all(part).await?;
                }
                out.write_all(b"\n").await?;
            } else {
                for part in w.parts() {
                    buf.extend_from_slice(part);
                }
                buf.push(b'\n');
            }
            next = rx.try_recv().ok();
        }
        if !buf.is_empty() {
            out.write_all(&buf).await?;
            buf.clear();
        }
        out.flush().await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mock::recording::{Exchange, Step, StepKind};
    use serde_json::json;

    #[tokio::test]
    async fn a_large_frame_is_written_as_its_own_line_in_order() {
        let big = Bytes::from(vec![b'x'; super::super::recording::BATCH_BYTES + 3]);
        let (tx, rx) = mpsc::channel(8);
        let parts = Wire::Parts(vec![
            big.slice(..5),
            Bytes::from_static(b"[1]"),
            big.slice(5..),
        ]);
        for w in [
            Wire::Frame(Bytes::from_static(b"a")),
            Wire::Frame(big.clone()),
            Wire::Frame(Bytes::from_static(b"b")),
            parts,
            Wire::Parts(vec![Bytes::from_static(b"c"), Bytes::from_static(b"d")]),
        ] {
            tx.send(w).await.unwrap();
        }
        drop(tx);
        let mut out = Vec::new();
        write_lines(rx, &mut out, || 0).await.unwrap();
        let mut want = b"a\n".to_vec();
        want.extend_from_slice(&big);
        want.extend_from_slice(b"\nb\n");
        want.extend_from_slice(&big[..5]);
        want.extend_from_slice(b"[1]");
        want.extend_from_slice(&big[5..]);
        want.extend_from_slice(b"\ncd\n");
        assert!(out == want, "five lines, in order, parts joined");
    }

    #[tokio::test]
    async fn lines_in_lines_out_and_an_endless_line_is_refused() {
        let rec = Arc::new(Recording {
            exchanges: vec![Exchange {
                seq: 0,
                line: 2,
                t_us: 0,
                method: "tools/list".into(),
                id: Some(json!(0)),
                params: None,
                scope: 0,
                steps: vec![Step {
                    t_us: 10,
                    standalone: false,
                    kind: StepKind::Response(
                        json!({"jsonrpc": "2.0", "id": 0, "result": {"tools": []}}),
                    ),
                }],
            }],
            unattributed: 0,
            sessions: Vec::new(),
        });
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(
            b"\nnot json\n{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":5}\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}\n",
        );
        let (mut host_in, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, host_out) = tokio::io::duplex(1 << 16);
        let server = tokio::spawn(serve(
            rec,
            Pace::new(0.0).unwrap(),
            server_in,
            server_out,
            || 0,
        ));
        host_in.write_all(&input).await.unwrap();
        let mut reader = BufReader::new(host_out);
        let mut lines = Vec::new();
        for _ in 0..4 {
            let mut l = String::new();
            reader.read_line(&mut l).await.unwrap();
            lines.push(serde_json::from_str::<Value>(&l).unwrap());
        }
        drop(host_in);
        server.await.unwrap().unwrap();
        let out = format!("{lines:?}");
        assert_eq!(lines.len(), 4, "{out}");
        assert_eq!(lines[2]["error"]["code"], codes::INVALID_REQUEST);
        assert!(
            lines[0]["error"]["message"]
                .as_str()
                .unwrap()
                .contains("longer than 16 MiB")
        );
        assert_eq!(lines[1]["error"]["code"], codes::PARSE_ERROR);
        assert_eq!(
            lines[3],
            json!({"jsonrpc": "2.0", "id": 7, "result": {"tools": []}})
        );
    }
}
