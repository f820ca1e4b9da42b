//! Breakpoints between a host and a server: a proxy run with
//! `--intercept` holds each message a breakpoint filter selects until the
//! user, in `attach --intercept`, forwards it (as it was or edited) or
//! drops it; the user may also forge a message to either side. The two
//! speak over a loopback control connection ([`protocol`]) named, with its
//! token, in the proxy's registry entry.
//!
//! Every change is recorded as an `injected` event, as `--faults` changes
//! are, so the checks judge each party on what it really received.

pub mod client;
pub mod control;
pub mod hold;
pub mod protocol;

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
