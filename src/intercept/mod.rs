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
pub mod lines;
pub mod protocol;
