//! The proxy's side of `--intercept` (the protocol is `crate::intercept`):
//! - `hold`: what is held at a breakpoint (on stdio inside the fault
//!   engine, in the order messages are read);
//! - `control`: the control connection, handing the controller's commands
//!   to the proxy's `Target`;
//! - `stdio`: the stdio proxy's target, on the fault engine;
//! - `http`: the HTTP proxy's holds, each held message's exchange waiting.

pub mod control;
pub mod hold;
pub mod http;
pub mod stdio;

use crate::event::Event;
use crate::proxy::faults::Stream;

/// The `injected` event of a change made at a breakpoint (source
/// `intercept`, rule 0): `original` as its sender wrote it (or, forged,
/// as the proxy did), `sent` what went in its place, both cut to the
/// trace's frame cap.
pub fn injected(
    action: &str,
    stream: Stream,
    original: &[u8],
    sent: Option<&[u8]>,
    detail: String,
    max_frame: usize,
) -> Event {
    let keep = |b: &[u8]| String::from_utf8_lossy(&b[..b.len().min(max_frame)]).into_owned();
    Event::Injected {
        rule: 0,
        source: "intercept".into(),
        action: action.into(),
        stream: stream.label().into(),
        original: keep(original),
        original_bytes: (original.len() > max_frame).then_some(original.len() as u64),
        sent: sent.map(keep),
        detail: Some(detail),
    }
}
