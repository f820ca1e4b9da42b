//! Newline framing over a byte stream: tolerant of CRLF, of lines far larger
//! than the read buffer, and of a final line without a terminator.

use std::io::{self, Read};

/// Lines longer than this are handed over in pieces rather than buffered
/// without bound (each piece is kept, and shown as a non-JSON frame).
pub const MAX_LINE: usize = 256 << 20;
const READ_SIZE: usize = 1 << 20;

/// Read `r` to EOF, calling `batch` with the complete lines of each read.
pub fn read_lines(mut r: impl Read, mut batch: impl FnMut(&[&[u8]])) -> io::Result<()> {
    let mut buf: Vec<u8> = vec![0; READ_SIZE];
    let mut filled = 0; // bytes of buf holding data
    let mut scanned = 0; // bytes of the partial line already searched for '\n'
    loop {
        if filled == buf.len() {
            buf.resize(buf.len() * 2, 0);
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
        let mut start = 0;
        let mut lines: Vec<&[u8]> = Vec::with_capacity(1024);
        let mut it = memchr::memchr_iter(b'\n', &buf[scanned..filled]);
        for nl in &mut it {
            let end = scanned + nl;
            lines.push(trim_cr(&buf[start..end]));
            start = end + 1;
        }
        if start == 0 && filled >= MAX_LINE {
            lines.push(&buf[..filled]);
            start = filled;
        }
        if !lines.is_empty() {
            batch(&lines);
        }
        drop(lines);
        // Keep the partial line at the front of the buffer.
        buf.copy_within(start..filled, 0);
        filled -= start;
        scanned = filled;
        if filled < READ_SIZE && buf.len() > 4 * READ_SIZE {
            buf.truncate(READ_SIZE);
            buf.shrink_to_fit();
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
}
