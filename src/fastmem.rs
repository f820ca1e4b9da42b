//! `memcmp` and `bcmp` for the static Linux builds. musl compares a byte at
//! a time and its `bcmp` calls that `memcmp`; Rust lowers every slice and
//! string `==` to `bcmp`, and the shipped build, optimised for size,
//! expands none of them inline, so on ingest musl's loop was 9% of the
//! profile (docs/performance.md, "The shipped binary"). Defined in the
//! binary, these take the place of musl's: the linker takes a symbol from
//! an archive only when nothing before it defines it.
//!
//! Eight bytes at a time, unaligned loads; the bodies use no slice
//! comparison (which would call `bcmp` again).

use std::ffi::c_int;

/// Where `a` and `b` first differ, as `memcmp` orders bytes (unsigned).
///
/// # Safety
/// `a` and `b` are readable for `n` bytes.
#[inline(always)]
unsafe fn compare(a: *const u8, b: *const u8, n: usize) -> c_int {
    // SAFETY: called with i + 8 <= n only, inside the n readable bytes.
    let word = |p: *const u8, i: usize| unsafe { p.add(i).cast::<u64>().read_unaligned() };
    let mut i = 0;
    while i + 8 <= n {
        let (x, y) = (word(a, i), word(b, i));
        if x != y {
            // Big-endian: the first byte in memory is the most significant.
            return if u64::from_be(x) < u64::from_be(y) {
                -1
            } else {
                1
            };
        }
        i += 8;
    }
    while i < n {
        // SAFETY: i < n.
        let (x, y) = unsafe { (*a.add(i), *b.add(i)) };
        if x != y {
            return c_int::from(x) - c_int::from(y);
        }
        i += 1;
    }
    0
}

/// Whether `a` and `b` differ (0: equal).
///
/// # Safety
/// `a` and `b` are readable for `n` bytes.
#[inline(always)]
unsafe fn differ(a: *const u8, b: *const u8, n: usize) -> c_int {
    // SAFETY: called with i + 8 <= n only, inside the n readable bytes.
    let word = |p: *const u8, i: usize| unsafe { p.add(i).cast::<u64>().read_unaligned() };
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            if word(a, i) != word(b, i) {
                return 1;
            }
            i += 8;
        }
        // The last eight bytes, overlapping what was compared.
        return c_int::from(word(a, n - 8) != word(b, n - 8));
    }
    let mut i = 0;
    while i < n {
        // SAFETY: i < n.
        if unsafe { *a.add(i) != *b.add(i) } {
            return 1;
        }
        i += 1;
    }
    0
}

/// # Safety
/// As C's `memcmp`.
#[cfg(all(target_os = "linux", target_env = "musl"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> c_int {
    // SAFETY: the caller's promise, as C's.
    unsafe { compare(a, b, n) }
}

/// # Safety
/// As C's `bcmp`.
#[cfg(all(target_os = "linux", target_env = "musl"))]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> c_int {
    // SAFETY: the caller's promise, as C's.
    unsafe { differ(a, b, n) }
}

#[cfg(test)]
mod tests {
    use super::{compare, differ};
    use std::cmp::Ordering;

    fn check(a: &[u8], b: &[u8]) {
        assert_eq!(a.len(), b.len());
        let n = a.len();
        // SAFETY: both slices are n bytes long.
        let got = unsafe { compare(a.as_ptr(), b.as_ptr(), n) };
        let want = a.cmp(b);
        assert_eq!(got.cmp(&0), want, "memcmp {a:?} {b:?}");
        // SAFETY: both slices are n bytes long.
        let d = unsafe { differ(a.as_ptr(), b.as_ptr(), n) };
        assert_eq!(d != 0, want != Ordering::Equal, "bcmp {a:?} {b:?}");
    }

    /// Every length up to three words, a difference at every position,
    /// in both directions, with bytes on both sides of 0x80 (unsigned order).
    #[test]
    fn orders_as_memcmp_and_finds_every_difference() {
        for n in 0..=24 {
            let a: Vec<u8> = (0..n).map(|i| (i * 37 + 11) as u8).collect();
            check(&a, &a.clone());
            for at in 0..n {
                for delta in [1u8, 0x7f, 0x80, 0xff] {
                    let mut b = a.clone();
                    b[at] = b[at].wrapping_add(delta);
                    check(&a, &b);
                    check(&b, &a);
                    // A later difference too: the first one decides.
                    if at + 1 < n {
                        let mut c = b.clone();
                        c[n - 1] = c[n - 1].wrapping_sub(delta);
                        check(&a, &c);
                    }
                }
            }
        }
    }

    /// Unaligned starts.
    #[test]
    fn compares_at_any_alignment() {
        let buf: Vec<u8> = (0..64u8).collect();
        let mut other = buf.clone();
        other[40] = 0;
        for start in 0..8 {
            check(&buf[start..start + 50], &other[start..start + 50]);
            check(&buf[start..start + 30], &other[start..start + 30]);
        }
    }
}
