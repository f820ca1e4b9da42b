//! One stable sort for the cold paths (what the screen, the reports and the
//! exports order). `slice::sort_by` is instantiated anew for every element
//! type and comparison closure, some 10 KB of code each at opt-level 3;
//! these functions sort a permutation of indices instead, instantiated
//! once, and then move the elements into place. Same order as the standard
//! library's stable sort: equal elements keep their order.

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`, as `v.sort_by(cmp)` would.
pub fn by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let perm = permutation(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
    apply(v, perm);
}

/// Sorts `v` stably by the key `key` gives, as `v.sort_by_key(key)` would.
pub fn by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` stably, as `v.sort()` would.
pub fn sort<T: Ord>(v: &mut [T]) {
    by(v, T::cmp);
}

/// The order of `0..n` that `cmp` sorts: the one instantiation of the
/// standard library's sort behind every function here.
#[inline(never)]
fn permutation(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| cmp(a, b));
    idx
}

/// Puts `v[perm[k]]` at `k` for every `k`, following each cycle of the
/// permutation with swaps.
fn apply<T>(v: &mut [T], mut perm: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..perm.len() {
        if perm[start] == DONE {
            continue;
        }
        let mut at = start;
        loop {
            let from = perm[at];
            perm[at] = DONE;
            if from == start {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator: many lengths, many ties.
    fn numbers(seed: u64, n: usize, range: u64) -> Vec<u64> {
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 33) % range
            })
            .collect()
    }

    #[test]
    fn sorts_as_the_standard_stable_sort_does() {
        for seed in 0..200u64 {
            let n = (seed as usize * 7) % 97;
            let keys = numbers(seed, n, 1 + seed % 9);
            // Each element remembers where it started, so stability shows.
            let mut ours: Vec<(u64, usize)> = keys.iter().copied().zip(0..).collect();
            let mut std = ours.clone();
            by_key(&mut ours, |e| e.0);
            std.sort_by_key(|e| e.0);
            assert_eq!(ours, std, "seed {seed}");

            // A comparison that is no key: odd first, then descending.
            let odd_then_down =
                |a: &(u64, usize), b: &(u64, usize)| (b.0 % 2).cmp(&(a.0 % 2)).then(b.0.cmp(&a.0));
            by(&mut ours, odd_then_down);
            std.sort_by(odd_then_down);
            assert_eq!(ours, std, "seed {seed}, by a comparison");
        }
    }

    #[test]
    fn sorts_owned_values_without_losing_any() {
        let mut words: Vec<String> = ["pear", "fig", "apple", "fig", "kiwi", ""]
            .into_iter()
            .map(String::from)
            .collect();
        sort(&mut words);
        assert_eq!(words, ["", "apple", "fig", "fig", "kiwi", "pear"]);
        let mut none: Vec<String> = Vec::new();
        sort(&mut none);
        assert!(none.is_empty());
    }
}
