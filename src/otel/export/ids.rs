//! Trace and span ids for what carried none of its own: derived from the
//! session's start and the event's seq, so exporting one recording twice
//! gives the same ids (a backend deduplicates, a reader can compare).

use crate::protocol::trace_context::TraceParent;

/// splitmix64: a good spread from consecutive inputs.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The ids of the span for event `seq` of the session started at
/// `start_us`: a trace id and a span id, never zero.
pub fn derived(start_us: u64, seq: u64, salt: u64) -> ([u8; 16], [u8; 8]) {
    let a = mix(start_us ^ mix(seq.wrapping_add(salt)));
    let b = mix(a ^ 0x5151_5151);
    let c = mix(b ^ seq);
    let mut trace = [0u8; 16];
    trace[..8].copy_from_slice(&a.to_be_bytes());
    trace[8..].copy_from_slice(&b.to_be_bytes());
    let mut span = c.to_be_bytes();
    if span == [0; 8] {
        span[7] = 1;
    }
    if trace == [0; 16] {
        trace[15] = 1;
    }
    (trace, span)
}

/// Lowercase hex to bytes (`None` unless it is exactly `N` bytes' worth).
pub fn from_hex<const N: usize>(s: &str) -> Option<[u8; N]> {
    let b = s.as_bytes();
    if b.len() != 2 * N {
        return None;
    }
    let nib = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    let mut out = [0u8; N];
    for (i, o) in out.iter_mut().enumerate() {
        *o = nib(b[2 * i])? << 4 | nib(b[2 * i + 1])?;
    }
    Some(out)
}

/// The ids of a `traceparent`: its trace id and the span id it names.
pub fn of_traceparent(tp: &TraceParent) -> Option<([u8; 16], [u8; 8])> {
    Some((from_hex(&tp.trace_id)?, from_hex(&tp.parent_id)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_ids_are_stable_distinct_and_never_zero() {
        assert_eq!(derived(7, 1, 0), derived(7, 1, 0));
        assert_ne!(derived(7, 1, 0).1, derived(7, 2, 0).1);
        assert_ne!(derived(7, 1, 0).0, derived(8, 1, 0).0);
        assert_ne!(derived(7, 1, 0).1, derived(7, 1, 1).1);
        for seq in 0..1000 {
            let (t, s) = derived(0, seq, 0);
            assert_ne!(t, [0; 16]);
            assert_ne!(s, [0; 8]);
        }
    }

    #[test]
    fn hex_round_trips_a_traceparent() {
        let tp =
            TraceParent::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").unwrap();
        let (t, s) = of_traceparent(&tp).unwrap();
        assert_eq!(t[0], 0x4b);
        assert_eq!(s, [0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7]);
        assert!(from_hex::<8>("00f067aa0ba902b").is_none());
        assert!(from_hex::<2>("zz00").is_none());
    }
}
