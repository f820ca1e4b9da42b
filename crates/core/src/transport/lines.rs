//! Newline framing over a byte stream: tolerant of CRLF, of lines far larger
//! than the read buffer, and of a final line without a terminator.

use std::io::{self, Read};

/// Lines longer than this are cut: the first `MAX_LINE` bytes are kept and
/// the rest of the line is counted, not held (see `read_lines_capped`).
pub const MAX_LINE: usize = 256 << 20;
const READ_SIZE: usize = 1 << 20;

/// The frame size cap of every transport: `MAX_LINE`, or lower through
/// `MCPSCOPE_MAX_FRAME` (bytes), which exists so tests need not send
/// hundreds of megabytes to reach it.
pub fn max_frame() -> usize {
    static CAP: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CAP.get_or_init(|| {
        std::env::var("MCPSCOPE_MAX_FRAME")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .map_or(MAX_LINE, |n| n.min(MAX_LINE))
    })
}

/// The frame size cap where the event store holds at most `max_store`
/// bytes (`--max-store`): `max_frame()`, or a quarter of the store when
/// that is less. A frame is held whole while it is read and again once
/// stored, so one larger than that would break the bound the store was
/// given; the default store (2 GiB) keeps the default cap.
pub fn max_frame_within(max_store: usize) -> usize {
    max_frame().min(max_store / 4).max(1)
}

/// Read `r` to EOF, calling `batch` with the complete lines of each read;
/// lines over `MAX_LINE` are handed over cut to it.
pub fn read_lines(r: impl Read, batch: impl FnMut(&[&[u8]])) -> io::Result<()> {
    let batch = std::cell::RefCell::new(batch);
    read_lines_capped(
        r,
        MAX_LINE,
        |lines| (batch.borrow_mut())(lines),
        |kept, _| (batch.borrow_mut())(&[kept]),
    )
}

/// Read `r` to EOF, calling `batch` with the complete lines of each read.
/// A line longer than `max` goes to `oversized` instead, once it ended:
/// its first `max` bytes and its full length (the rest was read and
/// counted, never held), so a server cannot make mcpscope buffer more.
pub fn read_lines_capped(
    mut r: impl Read,
    max: usize,
    mut batch: impl FnMut(&[&[u8]]),
    mut oversized: impl FnMut(&[u8], u64),
) -> io::Result<()> {
    let max = max.clamp(1, usize::MAX - 1);
    let mut buf: Vec<u8> = vec![0; READ_SIZE];
    let mut filled = 0; // bytes of buf holding data
    let mut scanned = 0; // bytes of the partial line already searched for '\n'
    loop {
        let mut start = 0;
        if scanned < filled {
            let mut lines: Vec<&[u8]> = Vec::with_capacity(1024);
            for nl in memchr::memchr_iter(b'\n', &buf[scanned..filled]) {
                let end = scanned + nl;
                let line = trim_cr(&buf[start..end]);
                if line.len() > max {
                    // Whole in the buffer, still over the cap: cut alike.
                    if !lines.is_empty() {
                        batch(&lines);
                        lines.clear();
                    }
                    oversized(&line[..max], line.len() as u64);
                } else {
                    lines.push(line);
                }
                start = end + 1;
            }
            if !lines.is_empty() {
                batch(&lines);
            }
        }
        // Keep the partial line at the front of the buffer.
        buf.copy_within(start..filled, 0);
        filled -= start;
        scanned = filled;
        if filled > max {
            let rest = skip_line(&mut r, &buf[..max], filled as u64, &mut oversized)?;
            let Some(rest) = rest else { return Ok(()) };
            buf[..rest.len()].copy_from_slice(&rest);
            filled = rest.len();
            scanned = 0;
            continue;
        }
        if filled < READ_SIZE && buf.len() > 4 * READ_SIZE {
            buf.truncate(READ_SIZE);
            buf.shrink_to_fit();
        }
        if filled == buf.len() {
            // One byte past the cap tells a line of exactly `max` from a longer one.
            buf.resize((buf.len() * 2).min(max + 1), 0);
        }
        let n = match r.read(&mut buf[filled..]) {
            Ok(0) => {
                if filled > 0 {
                    batch(&[trim_cr(&buf[..filled])]);
                }
                return Ok(());
            }
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        filled += n;
    }
}

/// Read and count the rest of an oversized line whose first bytes are
/// `kept` and of which `seen` bytes were read; report it. Returns what
/// followed the line in the last read, or `None` at EOF.
fn skip_line(
    r: &mut impl Read,
    kept: &[u8],
    mut seen: u64,
    oversized: &mut impl FnMut(&[u8], u64),
) -> io::Result<Option<Vec<u8>>> {
    let mut scratch = vec![0; READ_SIZE];
    loop {
        let n = match r.read(&mut scratch) {
            Ok(0) => {
                oversized(kept, seen);
                return Ok(None);
            }
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        match memchr::memchr(b'\n', &scratch[..n]) {
            None => seen += n as u64,
            Some(p) => {
                oversized(kept, seen + p as u64);
                scratch.copy_within(p + 1..n, 0);
                scratch.truncate(n - p - 1);
                return Ok(Some(scratch));
            }
        }
    }
}

fn trim_cr(l: &[u8]) -> &[u8] {
    l.strip_suffix(b"\r").unwrap_or(l)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that returns at most `step` bytes per read, to split lines anywhere.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }
    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn collect(data: &[u8], step: usize) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        read_lines(Trickle { data, step }, |b| {
            out.extend(b.iter().map(|l| l.to_vec()))
        })
        .unwrap();
        out
    }

    #[test]
    fn crlf_partial_and_unterminated() {
        let data = b"a\r\nbb\n\n\r\nccc";
        for step in [1, 2, 3, 100] {
            assert_eq!(
                collect(data, step),
                vec![
                    b"a".to_vec(),
                    b"bb".to_vec(),
                    vec![],
                    vec![],
                    b"ccc".to_vec()
                ]
            );
        }
    }

    #[test]
    fn sixty_four_mib_line() {
        let mut data = vec![b'x'; 64 << 20];
        data.push(b'\n');
        data.extend_from_slice(b"after\n");
        let lines = collect(&data, 3 << 20);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), 64 << 20);
        assert_eq!(lines[1], b"after");
    }

    /// (length, first byte, full length if cut) of each frame.
    fn collect_capped(data: &[u8], step: usize, max: usize) -> Vec<(usize, u8, Option<u64>)> {
        let out = std::cell::RefCell::new(Vec::new());
        let sum = |l: &[u8]| (l.len(), l.first().copied().unwrap_or(0));
        read_lines_capped(
            Trickle { data, step },
            max,
            |b| {
                out.borrow_mut()
                    .extend(b.iter().map(|l| (sum(l).0, sum(l).1, None)))
            },
            |kept, total| {
                out.borrow_mut()
                    .push((sum(kept).0, sum(kept).1, Some(total)))
            },
        )
        .unwrap();
        out.into_inner()
    }

    #[test]
    fn a_line_over_the_cap_is_one_cut_frame_with_its_length() {
        let mut data = b"short\n".to_vec();
        data.extend(std::iter::repeat_n(b'y', 5000));
        data.extend_from_slice(b"\nafter\n");
        data.extend(std::iter::repeat_n(b'z', 3000));
        for step in [1, 7, 100, 1 << 20] {
            let got = collect_capped(&data, step, 1024);
            assert_eq!(
                got,
                vec![
                    (5, b's', None),
                    (1024, b'y', Some(5000)),
                    (5, b'a', None),
                    // Cut at EOF too, without a terminator.
                    (1024, b'z', Some(3000)),
                ],
                "step {step}"
            );
        }
        // A line exactly at the cap is whole.
        let exact = [vec![b'e'; 1024], b"\n".to_vec()].concat();
        for step in [100, 1 << 20] {
            assert_eq!(collect_capped(&exact, step, 1024), vec![(1024, b'e', None)]);
        }
    }
}
