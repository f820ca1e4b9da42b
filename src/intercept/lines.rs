//! Reading the control connection's lines with a bound, on either end: a
//! line longer than the bound is read to its end and skipped, never held.

use tokio::io::{AsyncBufRead, AsyncBufReadExt};

#[derive(Debug, PartialEq)]
pub enum Line {
    /// `buf` holds the line, without its newline.
    Text,
    /// A line past the bound, read to its end and thrown away.
    TooLong,
    End,
}

/// One line into `buf`, holding at most `max` bytes of it: a longer one is
/// consumed to its newline without being kept.
pub async fn read_line<R: AsyncBufRead + Unpin>(
    r: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    buf.clear();
    let mut over = false;
    loop {
        let avail = r.fill_buf().await?;
        if avail.is_empty() {
            // A last line without its newline is still a line.
            return Ok(match (over, buf.is_empty()) {
                (true, _) => Line::TooLong,
                (false, true) => Line::End,
                (false, false) => Line::Text,
            });
        }
        let (chunk, done) = match memchr::memchr(b'\n', avail) {
            Some(i) => (&avail[..i], Some(i + 1)),
            None => (avail, None),
        };
        if !over {
            if buf.len() + chunk.len() > max {
                over = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let n = done.unwrap_or(avail.len());
        r.consume(n);
        if done.is_some() {
            return Ok(if over { Line::TooLong } else { Line::Text });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::BufReader;

    #[tokio::test]
    async fn lines_past_the_bound_are_skipped_whole() {
        let data: &[u8] = b"short\n0123456789abc\nok\ntail";
        let mut r = BufReader::with_capacity(4, data);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut r, &mut buf, 8).await.unwrap(), Line::Text);
        assert_eq!(buf, b"short");
        assert_eq!(read_line(&mut r, &mut buf, 8).await.unwrap(), Line::TooLong);
        assert_eq!(read_line(&mut r, &mut buf, 8).await.unwrap(), Line::Text);
        assert_eq!(buf, b"ok");
        assert_eq!(read_line(&mut r, &mut buf, 8).await.unwrap(), Line::Text);
        assert_eq!(buf, b"tail");
        assert_eq!(read_line(&mut r, &mut buf, 8).await.unwrap(), Line::End);
    }
}
