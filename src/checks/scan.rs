//! A narrow, allocation-free reader of the three progress fields the rules
//! need (token, progress, total), for frames the store already validated.
//!
//! Why not serde: the store has parsed every frame once on ingest; a second
//! full parse per notification would add far more than the checking budget
//! (10% of ingest) on a flood. This walks the top-level object once, touching
//! each byte about once and skipping values it does not need. Anything
//! unusual (escaped keys, `null` numbers, odd layout) returns `None` and the
//! caller falls back to the serde-based `ProgressView`.

pub struct FastProgress<'a> {
    /// The token's raw JSON text.
    pub token: &'a [u8],
    pub progress: f64,
    pub total: Option<f64>,
}

#[inline]
fn ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// `i` at an opening quote: index just past the closing quote.
#[inline]
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'"' => return Some(j + 1),
            b'\\' => j += 2,
            _ => j += 1,
        }
    }
    None
}

/// `i` at the start of a value: index just past it.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// Iterate the members of the object opening at `i`: calls `f(key, value
/// start)`, which returns the index just past the value. Returns the index
/// just past the object.
#[inline]
fn members<'a>(
    b: &'a [u8],
    i: usize,
    mut f: impl FnMut(&'a [u8], usize) -> Option<usize>,
) -> Option<usize> {
    let mut i = ws(b, i);
    if *b.get(i)? != b'{' {
        return None;
    }
    i = ws(b, i + 1);
    if *b.get(i)? == b'}' {
        return Some(i + 1);
    }
    loop {
        if *b.get(i)? != b'"' {
            return None;
        }
        let end = skip_string(b, i)?;
        let key = &b[i + 1..end - 1];
        i = ws(b, end);
        if *b.get(i)? != b':' {
            return None;
        }
        i = ws(b, i + 1);
        i = ws(b, f(key, i)?);
        match *b.get(i)? {
            b',' => i = ws(b, i + 1),
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

#[inline]
fn number(raw: &[u8]) -> Option<f64> {
    if !raw.is_empty() && raw.len() <= 15 {
        let mut n: u64 = 0;
        let mut ok = true;
        for d in raw {
            let v = d.wrapping_sub(b'0');
            if v > 9 {
                ok = false;
                break;
            }
            n = n * 10 + u64::from(v);
        }
        if ok {
            return Some(n as f64);
        }
    }
    std::str::from_utf8(raw).ok()?.parse::<f64>().ok()
}

/// Byte spans of the three fields in one frame.
struct Spans {
    token: (usize, usize),
    progress: (usize, usize),
    total: Option<(usize, usize)>,
}

fn walk(b: &[u8]) -> Option<(FastProgress<'_>, Spans)> {
    let mut found = None;
    members(b, 0, |key, at| {
        if key != b"params" {
            return skip_value(b, at);
        }
        let (mut token, mut progress, mut total) = (None, None, None);
        let end = members(b, at, |k, v| {
            let e = skip_value(b, v)?;
            match k {
                b"progressToken" => token = Some((v, e)),
                b"progress" => progress = Some((v, e, number(&b[v..e])?)),
                b"total" => total = Some((v, e, number(&b[v..e])?)),
                _ => {}
            }
            Some(e)
        })?;
        let (t, (ps, pe, p)) = (token?, progress?);
        found = Some((
            FastProgress {
                token: &b[t.0..t.1],
                progress: p,
                total: total.map(|x| x.2),
            },
            Spans {
                token: t,
                progress: (ps, pe),
                total: total.map(|x| (x.0, x.1)),
            },
        ));
        Some(end)
    })?;
    found
}

/// Token, progress and total of a `notifications/progress` frame (the
/// layout-free walk; `Scanner` is the one the engine uses).
#[cfg(test)]
pub fn progress(b: &[u8]) -> Option<FastProgress<'_>> {
    walk(b).map(|(p, _)| p)
}

fn number_end(b: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
        j += 1;
    }
    j
}

/// A progress reader that remembers the layout of the last frame.
///
/// Why: a flood repeats one layout — same key order, same token — and only
/// the numbers change. When a frame starts with exactly the bytes that
/// preceded `progress` in the last fully walked frame, the walk would go the
/// same way up to there, so the numbers can be read in place. That turns a
/// walk over the whole frame into two short comparisons and two number
/// parses. Frames the store validated cannot hide a duplicate key after the
/// fields, so stopping at `total` is safe.
#[derive(Default)]
pub struct Scanner {
    /// Bytes before the progress value; the token lies inside them.
    prefix: Vec<u8>,
    token: (usize, usize),
    /// Bytes between the progress value and the total value.
    middle: Vec<u8>,
}

impl Scanner {
    pub fn progress<'a>(&mut self, b: &'a [u8]) -> Option<FastProgress<'a>> {
        if !self.prefix.is_empty() && b.starts_with(&self.prefix) {
            let ps = self.prefix.len();
            let pe = number_end(b, ps);
            if pe > ps && b[pe..].starts_with(&self.middle) {
                let ts = pe + self.middle.len();
                let te = number_end(b, ts);
                if let (Some(p), Some(t)) = (number(&b[ps..pe]), number(&b[ts..te])) {
                    return Some(FastProgress {
                        token: &b[self.token.0..self.token.1],
                        progress: p,
                        total: Some(t),
                    });
                }
            }
        }
        let (p, spans) = walk(b)?;
        match spans.total {
            Some((ts, _)) if spans.token.1 <= spans.progress.0 && ts > spans.progress.1 => {
                self.prefix.clear();
                self.prefix.extend_from_slice(&b[..spans.progress.0]);
                self.middle.clear();
                self.middle.extend_from_slice(&b[spans.progress.1..ts]);
                self.token = spans.token;
            }
            _ => self.prefix.clear(),
        }
        Some(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_fields_or_declines() {
        let p = progress(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a\"b","progress":12,"total":1.5e2,"message":"x}\"{"}}"#).unwrap();
        assert_eq!(p.token, br#""a\"b""#);
        assert_eq!(p.progress, 12.0);
        assert_eq!(p.total, Some(150.0));
        let p = progress(br#"{ "params" : { "progress" : -0.5 , "progressToken" : 7, "extra": {"a":[1,{"b":"]"}]} } , "method":"notifications/progress","jsonrpc":"2.0"}"#).unwrap();
        assert_eq!(p.token, b"7");
        assert_eq!(p.progress, -0.5);
        assert_eq!(p.total, None);
        assert!(
            progress(br#"{"params":{"progressToken":"a","progress":1,"total":null}}"#).is_none()
        );
        assert!(progress(br#"{"params":{"progressToken":"a"}}"#).is_none());
        assert!(progress(br#"{"params":{"progressToken":"a","progress":1"#).is_none());
        assert!(progress(b"garbage").is_none());
        assert!(progress(b"").is_none());
        assert!(progress(br#"{"params":{"progressToken":"a","progress":}}"#).is_none());
    }

    #[test]
    fn the_remembered_layout_gives_the_same_answers() {
        let frames: Vec<String> = [
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"total":10,"message":"a"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":2.5,"total":1e1,"message":"b"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":3,"total":12}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"u","progress":3,"total":12}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":4,"message":"c"}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":5,"total":null}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":6,"totalx":1,"total":2}}"#,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut sc = Scanner::default();
        for _ in 0..2 {
            for f in &frames {
                let a = sc
                    .progress(f.as_bytes())
                    .map(|p| (p.token.to_vec(), p.progress, p.total));
                let b = progress(f.as_bytes()).map(|p| (p.token.to_vec(), p.progress, p.total));
                assert_eq!(a, b, "{f}");
            }
        }
    }
}
