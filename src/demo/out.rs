//! The single stdout writer of the demo server and the per-call gate in front
//! of it.
//!
//! Every byte the server puts on stdout passes through [`Out`]: one writer
//! thread owns stdout, so lines from concurrent calls can never interleave.
//! Sending is synchronous (an unbounded queue) so that a [`Gate`] can decide
//! "open → enqueue" atomically under its lock; that is what makes a
//! cancellation final: once the gate is closed, no line of that call can
//! reach the queue any more. Bulk producers (the flood tool) get
//! back-pressure from a small pool of permits instead of from the queue.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

/// Bulk buffers allowed in the queue at once: enough to keep the writer busy,
/// few enough that a producer outrunning stdout stays within a few MiB.
const BULK_SLOTS: usize = 4;

/// Small lines are coalesced up to this size before hitting stdout, so a burst
/// of notifications costs one write instead of one per line.
const BATCH_BYTES: usize = 64 * 1024;

enum Msg {
    /// Complete lines; the permit (bulk data only) is released once written.
    Data(Vec<u8>, Option<OwnedSemaphorePermit>),
    /// Everything queued before this is written, then the writer stops.
    Shutdown,
}

/// Handle to the stdout writer; cheap to clone.
#[derive(Clone)]
pub struct Out {
    tx: mpsc::UnboundedSender<Msg>,
    bulk: Arc<Semaphore>,
}

/// The writer thread; [`Writer::join`] waits until it has drained the queue.
pub struct Writer {
    handle: std::thread::JoinHandle<()>,
}

/// Start the writer thread. A plain thread rather than a tokio task: it does
/// blocking writes to stdout, and the flood benchmark wants them without
/// tokio's extra copy into its blocking-pool buffers.
pub fn spawn() -> std::io::Result<(Out, Writer)> {
    let (tx, rx) = mpsc::unbounded_channel();
    let handle = std::thread::Builder::new()
        .name("mcpscope-demo-stdout".into())
        .spawn(move || write_loop(rx))?;
    let out = Out {
        tx,
        bulk: Arc::new(Semaphore::new(BULK_SLOTS)),
    };
    Ok((out, Writer { handle }))
}

fn write_loop(mut rx: mpsc::UnboundedReceiver<Msg>) {
    let stdout = std::io::stdout();
    let mut batch: Vec<u8> = Vec::with_capacity(BATCH_BYTES * 2);
    while let Some(first) = rx.blocking_recv() {
        let mut lock = stdout.lock();
        let mut next = Some(first);
        let mut stop = false;
        let mut result = Ok(());
        while let Some(msg) = next.take() {
            match msg {
                Msg::Shutdown => {
                    stop = true;
                    break;
                }
                Msg::Data(bytes, _permit) => {
                    if bytes.len() >= BATCH_BYTES {
                        result = write_batch(&mut lock, &mut batch)
                            .and_then(|()| lock.write_all(&bytes));
                    } else {
                        batch.extend_from_slice(&bytes);
                        if batch.len() >= BATCH_BYTES {
                            result = write_batch(&mut lock, &mut batch);
                        }
                    }
                }
            }
            if result.is_err() {
                break;
            }
            next = rx.try_recv().ok();
        }
        let result = result
            .and_then(|()| write_batch(&mut lock, &mut batch))
            .and_then(|()| lock.flush());
        if let Err(e) = result {
            // Nobody is reading any more; queued and future lines are dropped
            // (senders ignore the closed queue) and stdin EOF ends the server.
            eprintln!("mcpscope-demo: stdout: {e}");
            return;
        }
        if stop {
            return;
        }
    }
}

fn write_batch(w: &mut impl Write, batch: &mut Vec<u8>) -> std::io::Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    let r = w.write_all(batch);
    batch.clear();
    r
}

impl Out {
    /// Queue complete lines (each ending in `\n`).
    pub fn send(&self, lines: Vec<u8>) {
        // A closed queue means stdout is gone; there is nobody to tell.
        let _ = self.tx.send(Msg::Data(lines, None));
    }

    /// Wait for room for one bulk buffer; hold the permit until it is queued.
    pub async fn bulk_permit(&self) -> Option<OwnedSemaphorePermit> {
        self.bulk.clone().acquire_owned().await.ok()
    }

    fn send_bulk(&self, lines: Vec<u8>, permit: OwnedSemaphorePermit) {
        let _ = self.tx.send(Msg::Data(lines, Some(permit)));
    }

    /// Successful JSON-RPC response.
    pub fn respond(&self, id: &Value, result: Value) {
        self.send(response_line(id, result));
    }

    /// JSON-RPC error response.
    pub fn error(&self, id: &Value, code: i64, message: &str) {
        self.send(error_line(id, code, message));
    }

    /// JSON-RPC error response with `data`.
    pub fn error_with(&self, id: &Value, code: i64, message: &str, data: Value) {
        self.send(line(&json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": code, "message": message, "data": data}})));
    }

    /// Is the reading end gone (an HTTP response stream the client closed)?
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Ask the writer to stop after what is already queued.
    pub fn shutdown(&self) {
        let _ = self.tx.send(Msg::Shutdown);
    }
}

/// The receiving end of a channel-backed [`Out`] (the HTTP server turns it
/// into an SSE stream instead of writing stdout).
pub struct OutStream {
    rx: mpsc::UnboundedReceiver<Msg>,
}

/// An [`Out`] whose lines go to an [`OutStream`] rather than to stdout.
pub fn channel() -> (Out, OutStream) {
    let (tx, rx) = mpsc::unbounded_channel();
    let out = Out {
        tx,
        bulk: Arc::new(Semaphore::new(BULK_SLOTS)),
    };
    (out, OutStream { rx })
}

impl OutStream {
    /// The lines already queued, if any, without waiting.
    pub fn try_next(&mut self) -> Option<Vec<u8>> {
        match self.rx.try_recv().ok()? {
            Msg::Data(bytes, _permit) => Some(bytes),
            Msg::Shutdown => None,
        }
    }

    /// The next queued lines; `None` once shut down or every sender is gone.
    pub async fn next(&mut self) -> Option<Vec<u8>> {
        match self.rx.recv().await? {
            // The permit is released here: the bytes are now the reader's.
            Msg::Data(bytes, _permit) => Some(bytes),
            Msg::Shutdown => None,
        }
    }
}

impl Writer {
    /// Wait until the writer has written everything queued before
    /// [`Out::shutdown`] (or has given up on a broken stdout).
    pub async fn join(self) {
        let handle = self.handle;
        let _ = tokio::task::spawn_blocking(move || handle.join()).await;
    }
}

/// Serialise one message as a line. Compact serde_json output never contains
/// a raw newline (string contents are escaped), so framing stays intact.
pub fn line(value: &Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec());
    bytes.push(b'\n');
    bytes
}

pub fn response_line(id: &Value, result: Value) -> Vec<u8> {
    line(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

pub fn error_line(id: &Value, code: i64, message: &str) -> Vec<u8> {
    line(&json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
}

pub fn notification_line(method: &str, params: Value) -> Vec<u8> {
    line(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
}

pub fn request_line(id: &str, method: &str, params: Value) -> Vec<u8> {
    line(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
}

/// Open until the call is cancelled (or the server shuts down); checked and
/// enqueued under one lock so nothing slips through after [`Gate::close`].
pub struct Gate {
    open: Mutex<bool>,
}

impl Gate {
    pub fn new() -> Arc<Self> {
        Arc::new(Gate {
            open: Mutex::new(true),
        })
    }

    pub fn close(&self) {
        *self.open.lock().unwrap_or_else(|e| e.into_inner()) = false;
    }
}

/// A call's way out: the shared writer behind that call's gate.
#[derive(Clone)]
pub struct Link {
    out: Out,
    gate: Arc<Gate>,
}

impl Link {
    pub fn new(out: Out, gate: Arc<Gate>) -> Self {
        Link { out, gate }
    }

    /// Queue lines unless the call was cancelled; returns whether it was queued.
    pub fn send(&self, lines: Vec<u8>) -> bool {
        let open = self.gate.open.lock().unwrap_or_else(|e| e.into_inner());
        if *open {
            self.out.send(lines);
        }
        *open
    }

    /// Does nobody take its lines any more (the call cancelled, or its
    /// reading end gone)?
    pub fn is_closed(&self) -> bool {
        self.out.is_closed() || !*self.gate.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queue a big buffer of lines, waiting for a bulk slot first.
    pub async fn send_bulk(&self, lines: Vec<u8>) -> bool {
        let Some(permit) = self.out.bulk_permit().await else {
            return false;
        };
        let open = self.gate.open.lock().unwrap_or_else(|e| e.into_inner());
        if *open {
            self.out.send_bulk(lines, permit);
        }
        *open
    }
}
